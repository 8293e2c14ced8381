package salt

import (
	"bytes"
	"fmt"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/ordering-lsp/ordering-lsp/analysis"
	sp "github.com/ordering-lsp/ordering-lsp/parser/salt"
	"github.com/ordering-lsp/ordering-lsp/source"
)

// What a simulated run found wrong: missing requisites, cycles, states
// that never run, requisites Salt ignores.

// runProblems reports what the simulated run found: requisites not
// found, cycles, order: last pulled earlier, watch acting as require,
// sls requisites on include-only files.
func (a *analyzer) runProblems(c *compiler, sm *sim, entrySLS string, run *analysis.Run) {
	pos := map[*chunk]int{}
	for i, ch := range sm.order {
		pos[ch] = i
	}
	// requisites not found
	var lostChunks []*chunk
	for ch := range sm.lost {
		lostChunks = append(lostChunks, ch)
	}
	sort.Slice(lostChunks, func(i, j int) bool { return lostChunks[i].index < lostChunks[j].index })
	for _, ch := range lostChunks {
		for _, l := range sm.lost[ch] {
			e := l.entry
			at := e.span
			if e.inFrom != nil {
				at = e.inFrom.span
			}
			var msg string
			if l.kind == "listen" {
				msg = fmt.Sprintf("Referenced state %s: %s does not exist", e.mod, e.target)
			} else if a.master {
				run.Refused = true
				msg = fmt.Sprintf("Referenced state does not exist for requisite [%s: (%s: %s)] in state [%s] in SLS [%s]", l.kind, e.mod, e.target, ch.name, ch.sls)
			} else {
				msg = fmt.Sprintf("The following requisites were not found:\n    %s:\n        %s: %s", l.kind, e.mod, e.target)
			}
			if hint := a.hint(c, sm, e); hint != "" {
				msg += "\n" + hint
			}
			sev := analysis.Error
			if e.f != nil && e.inFrom == nil && entryInAlt(e) {
				// Every branch of an undecidable condition is checked, but
				// only the machines that render this one fail.
				sev = analysis.Warning
				msg += "\n" + reqBranchNote(e, a.master)
			}
			a.contextual(analysis.Diagnostic{At: at, Severity: sev, Code: "missing-requisite", Message: msg, Unresolved: true}, e.target, e.mod)
		}
	}
	a.patternRequisites(sm)
	a.hiddenRequisites(c, sm)
	a.altNameRequisites(c, sm)
	if sm.crash != nil {
		a.crashError(sm)
	}
	// cycles (the simulation meets every cycle as a recursive requisite)
	if len(sm.recursive) > 0 {
		a.cycles(c, sm, run)
		a.onfailAll(sm)
	}
	a.runProblemsRest(c, sm, pos, run)
}

// patternRequisites records the requisites of the run that name, as
// written, a state nothing declares, and that only states whose ID or
// name is template output could be (a `name: {{ vim.pkg }}` merged from
// pillar): the same words as a requisite not found, kept with those
// states. The run does not fail them (the machine's data may make the
// name), so they are reported only when another run holding the file
// does (finish): stefano-pogliani/salt-states' grafana install requires
// `pkg: grafana-ensure-aptget-https`, which no state declares, and the
// highstate that applies it with vim.sls is found only if pillar makes
// vim's package that name.
func (a *analyzer) patternRequisites(sm *sim) {
	if a.master {
		return
	}
	for _, ch := range sm.chunks {
		for _, k := range pullOrder {
			for _, e := range ch.reqs.get(k) {
				if e.bad == "null" {
					continue
				}
				m := sm.match(e)
				if len(m.chunks) > 0 || !m.patternOnly {
					continue
				}
				at := e.span
				if e.inFrom != nil {
					at = e.inFrom.span
				}
				var cands []reqCand
				for _, t := range m.maybeChunks {
					id := t.id
					if strings.Contains(id, sp.Unknown) {
						id = "`" + shownAsWritten(t.body.f, t.body.decl.key) + "`"
					}
					what, sep := fmt.Sprintf("%s %s, whose name is `%s`", t.state, id, shownAsWritten(t.nameIn(), t.nameNode)), ","
					switch {
					case t.argsOut != nil:
						what = fmt.Sprintf("%s %s, whose arguments%s `%s`", t.state, id, argsOutWords, strings.TrimPrefix(shownAsWritten(t.argsFile, t.argsOut), t.state+"."+t.fun+":"))
					case t.nameNode == nil || !strings.Contains(t.name, sp.Unknown):
						what, sep = fmt.Sprintf("%s %s", t.state, id), "" // the ID is the template
					}
					rel := what + sep + " may be it"
					cands = append(cands, reqCand{rel: analysis.Related{At: a.node(t).Decl, Message: rel}, what: what, argsOut: t.argsOut != nil})
				}
				msg := fmt.Sprintf("The following requisites were not found:\n    %s:\n        %s: %s", reqKeyOrder[k], e.mod, e.target)
				if hint := a.hint(nil, sm, e); hint != "" {
					msg += "\n" + hint
				}
				sev := analysis.Error
				if e.f != nil && e.inFrom == nil && entryInAlt(e) {
					sev = analysis.Warning
					msg += "\n" + reqBranchNote(e, a.master)
				}
				a.contextualMaybe(analysis.Diagnostic{At: at, Severity: sev, Code: "missing-requisite", Message: msg, Unresolved: true}, e.target, e.mod, cands)
			}
		}
	}
}

// altNameRequisites reports a requisite whose target is a name: a state
// writes only in some branches of an undecidable if (altNames), when the
// requisite is outside those branches: it is met only where one of them
// is taken. bahazero901/saltstack's kubernetes-pkgs requires `pkg:
// docker`; docker-client is named docker where os_family is RedHat,
// docker.io where it is Debian: salt-order with os_family Debian,
// "The following requisites were not found: require: pkg: docker";
// with RedHat, found. A requisite in the same branch as the name (or
// under the same test of grains, pillar or salt[...]) stays silent
// (alt_branch_name).
func (a *analyzer) altNameRequisites(c *compiler, sm *sim) {
	if len(c.altWrites) == 0 || sm.generator {
		return
	}
	for _, ch := range sm.chunks {
		for _, k := range pullOrder {
			for _, e := range ch.reqs.get(k) {
				if e.bad != "" || e.mod == "sls" || strings.Contains(e.target, sp.Unknown) || strings.Contains(e.mod, sp.Unknown) || c.shadowNames[e.target] {
					continue
				}
				m := sm.match(e)
				if len(m.chunks) > 0 || len(m.maybeChunks) > 0 {
					continue
				}
				var writes []altWrite
				for _, w := range c.altWrites[e.target] {
					if !e.modMatches(w.module) {
						continue
					}
					if len(w.arms) == 0 || slices.ContainsFunc(w.arms, func(x sp.Arm) bool { return x.Loop }) {
						writes = nil // a loop writes it: nobody can say where
						break
					}
					writes = append(writes, w)
				}
				if len(writes) == 0 || sameBranches(e, writes) {
					continue
				}
				at := e.span
				if e.inFrom != nil {
					at = e.inFrom.span
				}
				var nots []string
				var related []analysis.Related
				for _, w := range writes {
					var bs []analysis.Branch
					for _, x := range w.arms {
						bs = append(bs, arm{w.b.f, x})
					}
					when := armsText(bs)
					if when == "" {
						nots = nil
						break
					}
					nots = append(nots, "not ("+when+")")
					related = append(related, analysis.Related{At: w.b.f.span(w.val),
						Message: fmt.Sprintf("%s %s is named %s here, only where %s", w.module, w.b.id, e.target, when)})
				}
				if len(nots) == 0 {
					continue
				}
				when := strings.Join(nots, " and ")
				if pre := armsText(armsOf(e)); pre != "" {
					when = pre + " and " + when
				}
				key := reqKeyOrder[k]
				var msg string
				if a.master {
					msg = fmt.Sprintf("Referenced state does not exist for requisite [%s: (%s: %s)] in state [%s] in SLS [%s]", key, e.mod, e.target, ch.name, ch.sls)
					msg += "\n(only where " + when + ": a Jinja condition decided on the machine by grains, pillar or salt[...]; Salt refuses the run there)"
				} else {
					msg = fmt.Sprintf("The following requisites were not found:\n    %s:\n        %s: %s", key, e.mod, e.target)
					msg += "\n(only where " + when + ": a Jinja condition decided on the machine by grains, pillar or salt[...]; the state fails there)"
				}
				a.contextual(analysis.Diagnostic{At: at, Severity: analysis.Warning, Code: "missing-requisite", Message: msg, Related: related, Unresolved: true}, e.target, e.mod)
			}
		}
	}
}

// sameBranches: requisite e is written in a branch that writes the name
// it requires (the same arm of the same if), or under the same test of
// machine data (grains, pillar, salt[...]) in another file: where it
// renders, the name is there.
func sameBranches(e *reqEntry, writes []altWrite) bool {
	if e.f == nil || e.inFrom != nil {
		return false
	}
	for _, x := range entryArms(e) {
		for _, w := range writes {
			for _, y := range w.arms {
				if e.f == w.b.f && x.Point == y.Point && x.Arm == y.Arm || sameTests(x, y, e.f == w.b.f) {
					return true
				}
			}
		}
	}
	return false
}

// sameTests: two branches make the same tests the same way: in one file
// any expression, across files only tests of machine data (grains,
// pillar, salt[...]; a template variable of one file is not another's).
func sameTests(x, y sp.Arm, sameFile bool) bool {
	if len(x.Tests) == 0 || len(x.Tests) != len(y.Tests) {
		return false
	}
	for i, t := range x.Tests {
		u := y.Tests[i]
		if t.Subj != u.Subj || t.Pos != u.Pos || !sameFile && !(strings.Contains(t.Subj, "pillar") || strings.Contains(t.Subj, "grains") || strings.Contains(t.Subj, "salt[")) {
			return false
		}
	}
	return true
}

// branchNote says which renders a requisite entry exists in: the
// undecidable Jinja conditions it is written under, in the template's
// words.
func branchNote(e *reqEntry) string {
	return rendersNote(armsText(armsOf(e)))
}

// reqBranchNote is branchNote for a requisite Salt does not find: with
// the default engine the run goes on and that state fails (salt-order
// with results: result False, "The following requisites were not
// found", the next state True), the master engine refuses the run.
func reqBranchNote(e *reqEntry, master bool) string {
	if master {
		return branchNote(e)
	}
	if when := armsText(armsOf(e)); when != "" {
		return "(only where " + when + ": a Jinja condition decided on the machine by grains, pillar or salt[...]; the state fails there)"
	}
	return "(in a branch of a Jinja condition that depends on grains, pillar or salt[...]: the state fails where it renders)"
}

// rendersNote is the words of branchNote for the conditions when ("" if
// their words are unknown).
func rendersNote(when string) string {
	if when != "" {
		return "(only where " + when + ": a Jinja condition decided on the machine by grains, pillar or salt[...]; Salt refuses the run there)"
	}
	return "(in a branch of a Jinja condition that depends on grains, pillar or salt[...]: Salt refuses the run where it renders)"
}

// placeBranchNote says which renders text of f at offset off exists in,
// as branchNote does for a requisite entry: "" when every render has it.
func placeBranchNote(f *sfile, off int) string {
	if f == nil || f.p == nil || f.p.R == nil {
		return ""
	}
	var bs []analysis.Branch
	for _, x := range f.p.R.ArmsAt(off) {
		bs = append(bs, arm{f, x})
	}
	if len(bs) == 0 {
		return ""
	}
	return rendersNote(armsText(bs))
}

// declBranchNote says which renders an ID declaration exists in (its file
// may also be included from a branch: then nothing more is known here).
func declBranchNote(d *idDecl) string {
	if d != nil && d.key != nil {
		if note := placeBranchNote(d.f, d.key.Start); note != "" {
			return note
		}
	}
	return rendersNote("")
}

// hiddenRequisites checks the requisites of alternatives the model
// hides: both branches of an undecidable condition declare one ID (or
// one state of an ID), the first stands for both in the order, and what
// only the other requires would go unchecked (`web` under `if
// grains['os_family'] == 'Debian'` and again under `else`, requiring a
// pkgrepo only there). A target no state of the run can be is a warning
// naming the branch: the machines that render it fail.
func (a *analyzer) hiddenRequisites(c *compiler, sm *sim) {
	var decls []*stDecl
	for _, d := range c.hidden {
		decls = append(decls, d.decls...)
		decls = append(decls, d.hidden...)
	}
	for _, f := range c.files {
		for _, d := range f.ids {
			decls = append(decls, d.hidden...)
		}
	}
	seen := map[*reqEntry]bool{}
	for _, sd := range decls {
		for _, ar := range sd.args {
			if !requisiteKeys[ar.key] || strings.HasSuffix(ar.key, "_in") || ar.key == "prerequired" {
				continue
			}
			for _, e := range ar.reqs {
				if e.bad != "" || seen[e] || strings.Contains(e.target, sp.Unknown) || strings.Contains(e.mod, sp.Unknown) {
					continue
				}
				seen[e] = true
				m := sm.match(e)
				if len(m.chunks) > 0 || m.maybe {
					continue
				}
				key := ar.key
				if a.master {
					key = strings.TrimSuffix(strings.TrimSuffix(key, "_any"), "_all")
				}
				msg := fmt.Sprintf("The following requisites were not found:\n    %s:\n        %s: %s", key, e.mod, e.target)
				if hint := a.hint(c, sm, e); hint != "" {
					msg += "\n" + hint
				}
				if entryInAlt(e) {
					msg += "\n" + reqBranchNote(e, a.master)
				} else if a.master {
					msg += "\n(in a declaration of '" + sd.module + "' only some renders make, which another declaration of its ID stands for here: Salt refuses the run where it renders)"
				} else {
					msg += "\n(in a declaration of '" + sd.module + "' only some renders make, which another declaration of its ID stands for here: the state fails where it renders)"
				}
				a.contextual(analysis.Diagnostic{At: e.span, Severity: analysis.Warning, Code: "missing-requisite", Message: msg, Unresolved: true}, e.target, e.mod)
			}
		}
	}
}

// crashError reports where salt-call dies with a Python exception, so
// the run ends with a traceback instead of results.
func (a *analyzer) crashError(sm *sim) {
	cr := sm.crash
	d := analysis.Diagnostic{Severity: analysis.Error, Code: "salt-crash", At: a.node(cr.at).Decl}
	switch cr.kind {
	case "recursion":
		loopFrom := -1
		for i, ch := range cr.stack {
			if ch == cr.at {
				loopFrom = i
				break
			}
		}
		if loopFrom < 0 {
			first := cr.stack[0]
			d.At = a.node(first).Decl
			d.Message = fmt.Sprintf("Salt stops with RecursionError: maximum recursion depth exceeded: running %s runs a chain of %d states, each waiting for the next, deeper than Python's recursion limit allows (Salt 3007 survives %d)", first.id, len(cr.stack)+1, pythonDepth)
			d.Related = append(d.Related, analysis.Related{At: a.node(cr.at).Decl, Message: cr.at.id + " is where the limit is reached"})
			break
		}
		var ids []string
		seen := map[*chunk]bool{}
		prereqTarget := ""
		for _, ch := range cr.stack[loopFrom:] {
			if seen[ch] {
				break
			}
			seen[ch] = true
			ids = append(ids, ch.id)
			if prereqTarget == "" && len(ch.reqs.get(rqPrerequired)) > 0 {
				prereqTarget = ch.id
			}
			if ch != cr.at {
				d.Related = append(d.Related, analysis.Related{At: a.node(ch).Decl, Message: ch.id + " is on the loop"})
			}
		}
		d.Message = fmt.Sprintf("Salt never finishes this run: running %s runs its requisites first, and they lead back to it (%s -> %s) without end", cr.at.id, strings.Join(ids, " -> "), cr.at.id)
		if prereqTarget != "" {
			d.Message += fmt.Sprintf("; Salt's check for recursive requisites skips %s because a prereq watches it", prereqTarget)
		}
		d.Message += ". salt-call stops with RecursionError: maximum recursion depth exceeded"
	case "unbound":
		d.Message = fmt.Sprintf("Salt crashes on %s: an onfail_all target has not run yet, and %s has no other requisite that Salt runs first (call_chunk does not pull onfail_all), so call_chunk fails with UnboundLocalError: cannot access local variable 'chunk' (salt-call prints a traceback instead of results). Put the onfail_all targets earlier (order, or a require on them)", cr.at.id, cr.at.id)
	case "listen_in":
		d.At = cr.entry.span
		d.Message = fmt.Sprintf("Salt crashes at the end of the run: a listen_in item must name a module (`- <module>: %s`); call_listen fails with AttributeError: 'str' object has no attribute 'items'", cr.entry.target)
	}
	a.diag(d)
}

// onfailAll explains a Salt 3006/3007 trap: check_requisite waits for
// onfail_all targets, but call_chunk's list of requisites to run first
// has no onfail_all, so a state whose onfail_all target comes later is
// re-checked twenty times and fails with "Recursive requisite found".
func (a *analyzer) onfailAll(sm *sim) {
	var rec []*chunk
	for ch := range sm.recursive {
		rec = append(rec, ch)
	}
	sort.Slice(rec, func(i, j int) bool { return rec[i].index < rec[j].index })
	for _, ch := range rec {
		for _, e := range ch.reqs.get(rqOnfailAll) {
			m := sm.match(e)
			for _, t := range m.chunks {
				r := sm.running[t.tid]
				mine := sm.running[ch.tid]
				if r == nil || mine == nil || r.num >= mine.num {
					a.diag(analysis.Diagnostic{At: e.span, Severity: analysis.Warning, Code: "onfail-all-later",
						Message: fmt.Sprintf("Recursive requisite found: %s runs after %s, and Salt does not run onfail_all requisites first (call_chunk pulls require, watch, prereq, onfail, onchanges and their _any forms, not onfail_all); %s fails after 20 attempts. Put %s earlier (order, or a require on it)", t.id, ch.id, ch.id, t.id)})
					break
				}
			}
		}
	}
}

func (a *analyzer) cycles(c *compiler, sm *sim, run *analysis.Run) {
	var nodes []*analysis.Node
	nodeChunk := map[*analysis.Node]*chunk{}
	for _, ch := range sm.chunks {
		n := a.node(ch)
		if _, ok := nodeChunk[n]; !ok {
			nodes = append(nodes, n)
			nodeChunk[n] = ch
		}
	}
	inRun := map[*analysis.Node]bool{}
	for _, n := range nodes {
		inRun[n] = true
	}
	byIndex := make([]*analysis.Node, len(a.rec.keyList))
	for n := range nodeChunk {
		byIndex[n.Index] = n
	}
	var edges []*analysis.Edge
	entry := map[*analysis.Edge]*reqEntry{}
	for _, r := range a.rec.edges {
		from, to := byIndex[r.from], byIndex[r.to]
		if from != nil && to != nil && inRun[from] && inRun[to] && r.kind.Orders() {
			e := &analysis.Edge{From: from, To: to, Kind: r.kind, Reason: r.reason, At: r.e.span}
			entry[e] = r.e
			edges = append(edges, e)
		}
	}
	idx := map[*analysis.Node]int{}
	for _, ch := range sm.chunks {
		n := a.node(ch)
		if _, ok := idx[n]; !ok {
			idx[n] = ch.index
		}
	}
	less := func(x, y *analysis.Node) bool { return idx[x] < idx[y] }
	reported := map[string]bool{}
	for _, p := range c.problems {
		if p.code == "cycle" {
			reported[p.msg] = true
		}
	}
	// Only cycles one render can have (requisites in branches of Jinja
	// conditions that exclude each other make none).
	for _, cc := range analysis.FeasibleCycles(nodes, edges, less, func(e *analysis.Edge) []analysis.Branch { return armsOf(entry[e]) }) {
		cyc := cc.Path
		ns := analysis.CycleNodes(cyc)
		ns = ns[:len(ns)-1]
		var ids []string
		for i := len(ns) - 1; i >= 0; i-- {
			ids = append(ids, fmt.Sprintf("ID \"%s\"", nodeChunk[ns[i]].id))
		}
		first := nodeChunk[ns[len(ns)-1]]
		var msg string
		if a.master {
			var parts []string
			for _, e := range cyc {
				parts = append(parts, fmt.Sprintf("(%s, '%s', %s)", chunkStr(nodeChunk[e.To]), strings.SplitN(e.Reason, " ", 2)[0], chunkStr(nodeChunk[e.From])))
			}
			msg = "Recursive requisites were found: " + strings.Join(parts, ", ")
			run.Refused = true
		} else {
			msg = fmt.Sprintf("A recursive requisite was found, SLS \"%s\" %s", first.sls, strings.Join(ids, " "))
		}
		dup := false
		if !a.master && len(ns) <= 2 {
			// verify_high reports this pair (in one of the two orders),
			// or a state requiring itself (ID "x" ID "x")
			for m := range reported {
				if strings.Contains(m, fmt.Sprintf("ID \"%s\"", nodeChunk[ns[0]].id)) && strings.Contains(m, fmt.Sprintf("ID \"%s\"", nodeChunk[ns[len(ns)-1]].id)) {
					dup = true
				}
			}
		}
		if dup {
			// give the verify_high diagnostic every edge
			for _, p := range c.problems {
				if p.code == "cycle" && len(p.related) < len(cyc) {
					p.related, p.members = nil, ns
					for _, e := range cyc {
						p.related = append(p.related, relatedSpan{e.At, fmt.Sprintf("%s %s %s", nodeChunk[e.To].id, e.Reason, nodeChunk[e.From].id)})
					}
				}
			}
			continue
		}
		d := analysis.Diagnostic{At: cyc[len(cyc)-1].At, Severity: analysis.Error, Code: "cycle", Message: msg}
		if len(cc.When) > 0 {
			// Only renders that take these Jinja branches have it.
			d.Severity = analysis.Warning
			if when := armsText(cc.When); when != "" {
				d.Message += "\nwhen " + when
			}
		}
		for _, e := range cyc[:len(cyc)-1] { // the last edge is the diagnostic's own
			d.Related = append(d.Related, analysis.Related{At: e.At, Message: fmt.Sprintf("%s %s %s", nodeChunk[e.To].id, e.Reason, nodeChunk[e.From].id)})
		}
		d.Members = ns
		a.contextual(d, "", "")
	}
}

func (a *analyzer) runProblemsRest(c *compiler, sm *sim, pos map[*chunk]int, run *analysis.Run) {
	// order: last pulled earlier by a requisite
	pulled := make([]*chunk, 0, len(sm.pulledBy))
	for ch := range sm.pulledBy {
		pulled = append(pulled, ch)
	}
	sort.Slice(pulled, func(i, j int) bool { return pulled[i].index < pulled[j].index })
	for _, ch := range pulled {
		by := sm.pulledBy[ch]
		if ch.orderHow != "last" || by.order >= ch.order || ch.ov.arg == nil || ch.ov.arg.keyNode == nil {
			continue
		}
		f := ch.ov.arg.f
		a.diag(analysis.Diagnostic{At: source.Span{URI: f.file.URI, Start: ch.ov.arg.keyNode.Start, End: ch.ov.arg.val.End},
			Severity: analysis.Info, Code: "order-last-pulled",
			Message: fmt.Sprintf("%s has order: last, but %s (order %s) requires it: Salt runs it before %s, at position %d of %d in %s, not last",
				ch.id, by.id, strconv.FormatFloat(by.order, 'f', -1, 64), by.id, pos[ch]+1, len(sm.order), run.Name)})
	}
	// watch on a state without mod_watch
	for _, ch := range sm.chunks {
		if len(ch.watchAsRequire) == 0 || !a.knownNoModWatch(c.t, ch.state) {
			continue
		}
		if ar := ch.watchArg; ar != nil && ar.keyNode != nil && ar.f != nil {
			a.diag(analysis.Diagnostic{At: ar.f.span(ar.keyNode), Severity: analysis.Info, Code: "watch-as-require",
				Message: fmt.Sprintf("watch on a %s state: the %s module has no mod_watch, so Salt treats this watch as require (ordering only, nothing is refreshed)", ch.state, ch.state)})
		}
		for _, e := range ch.watchAsRequire {
			if e.inFrom != nil {
				a.diag(analysis.Diagnostic{At: e.inFrom.span, Severity: analysis.Info, Code: "watch-as-require",
					Message: fmt.Sprintf("watch_in on a %s state: the %s module has no mod_watch, so Salt treats this as require (ordering only, nothing is refreshed)", ch.state, ch.state)})
			}
		}
	}
	// sls requisites on an SLS that only includes others
	for _, ch := range sm.chunks {
		for ki, key := range reqKeyOrder {
			entries := ch.reqs.get(ki)
			for _, e := range entries {
				if e.mod != "sls" || hasGlob(e.target) || e.inFrom != nil {
					continue
				}
				tf := c.t.bySLS(e.target)
				if tf == nil || len(tf.ids) > 0 || len(tf.includes) == 0 || tf.generator {
					continue
				}
				m := sm.match(e)
				if len(m.chunks) == 0 {
					continue
				}
				direct := map[string]bool{}
				for _, x := range m.chunks {
					direct[x.sls] = true
				}
				var names []string
				for n := range direct {
					names = append(names, n)
				}
				sort.Strings(names)
				a.diag(analysis.Diagnostic{At: e.span, Severity: analysis.Info, Code: "sls-include-only",
					Message: fmt.Sprintf("%s: sls: %s declares no states; Salt matches the states of the SLS files it includes itself and rendered first (%s), not those included deeper or already included elsewhere",
						key, e.target, strings.Join(names, ", "))})
			}
		}
	}
}

// chunkStr is DependencyGraph._chunk_str of the newer engine.
func chunkStr(ch *chunk) string {
	if ch.id != ch.name {
		return fmt.Sprintf("{'SLS': '%s', 'ID': '%s', 'NAME': '%s'}", ch.sls, ch.id, ch.name)
	}
	return fmt.Sprintf("{'SLS': '%s', 'ID': '%s'}", ch.sls, ch.id)
}

// shownAsWritten is the template text of a node as the user wrote it, on
// one line.
func shownAsWritten(f *sfile, n *sp.Node) string {
	if f == nil || n == nil {
		return ""
	}
	return strings.Join(strings.Fields(f.p.Display(n)), " ")
}

// reqCand is a state a requisite may name through a template
// (patternRequisites): where it is, with its words, and whether a macro
// writes its arguments.
type reqCand struct {
	rel     analysis.Related // "<what> may be it"
	what    string
	argsOut bool
}

// argsOutWords, in a candidate of patternRequisites, says that a state's
// arguments (its name: among them) are the output of a template.
const argsOutWords = " (its name: among them) are the output of"

// knownNoModWatch: state module mod is known to define no mod_watch:
// one of Salt's own (stateFuncs), or a custom one the tree's _states/
// holds whose source defines none. A module neither Salt nor the
// workspace defines (a custom module synced from elsewhere, one Salt has
// since removed) may have one: nothing is said (SUSE/caasp-salt's
// _states/caasp_service.py is read; it has no mod_watch, so the watch is
// a require, as said).
func (a *analyzer) knownNoModWatch(t *tree, mod string) bool {
	builtinOnce.Do(func() {
		builtinStates = map[string]bool{}
		for k := range stateFuncs {
			m, _, _ := strings.Cut(k, ".")
			builtinStates[m] = true
		}
	})
	if builtinStates[mod] {
		return true
	}
	if t == nil {
		return false
	}
	for _, r := range t.rootList() {
		if f := a.req.Workspace.Lookup(filepath.Join(r, "_states", mod+".py")); f != nil {
			return !bytes.Contains(f.Text, []byte("def mod_watch")) && !bytes.Contains(f.Text, []byte("mod_watch ="))
		}
	}
	return false
}

var (
	builtinOnce   sync.Once
	builtinStates map[string]bool
)
