package cfengine

import (
	"bytes"
	"fmt"
	"sort"
	"strings"

	"github.com/ordering-lsp/ordering-lsp/analysis"
	cfp "github.com/ordering-lsp/ordering-lsp/parser/cfengine"
	"github.com/ordering-lsp/ordering-lsp/source"
)

// What cf-promises and cf-agent would say about a policy (checkPolicy):
// bundles and bodies a promise names that do not exist, depends_on
// handles that do not exist or close a loop; and the links from each
// name and variable to what defines it.

// bodyLvals are the promise attributes whose value names a body of the
// same type (libpromises/mod_*.c: CF_DATA_TYPE_BODY constraints).
var bodyLvals = map[string]bool{
	"action": true, "classes": true, "contain": true, "copy_from": true, "perms": true, "edit_defaults": true,
	"delete": true, "depth_search": true, "file_select": true, "link_from": true, "changes": true, "rename": true,
	"acl": true, "select_region": true, "insert_select": true, "edit_field": true, "replace_with": true,
	"match_value": true, "service_method": true, "package_method": true, "package_module": true,
	"process_select": true, "process_count": true, "database_server": true, "environment_resources": true,
	"environment_interface": true, "volume": true, "mount": true, "location": true, "password": true,
	"select_xpath": true, "module": false, "when": true,
}

// bundleLvals name a bundle: lval -> bundle type ("" = agent or common).
var bundleLvals = map[string]string{"usebundle": "", "edit_line": "edit_line", "edit_xml": "edit_xml", "home_bundle": "", "then": ""}

// together: every host that runs the policy loads both files (one file:
// always).
func (pol *policy) together(x, y *fileInfo) bool {
	return x == y || pol.certain == nil || pol.certain[x] && pol.certain[y]
}

// checkPolicy reports what cf-promises (and cf-agent) would say about one
// policy, and what they silently skip.
func (a *analyzer) checkPolicy(pol *policy, s *scheduler, complete bool) {
	missingOK := pol.unresolved
	for _, l := range pol.inputLinks {
		a.link(l)
	}
	// duplicate bundles and bodies
	seen := map[string]*bundleInfo{}
	for _, b := range pol.bundles {
		k := b.tkey
		if b.broken {
			continue // only its syntax error is reported
		}
		if first, ok := seen[k]; ok {
			if !pol.together(first.file, b.file) {
				continue
			}
			a.diag(analysis.Diagnostic{At: a.span(b.file, b.block.Name.Span), Severity: analysis.Error, Code: "duplicate",
				Message: fmt.Sprintf("Duplicate definition of bundle %s with type %s", b.block.Name.Text, b.block.Type.Text),
				Related: []analysis.Related{{At: first.node.Decl, Message: "first defined here"}}})
			continue
		}
		seen[k] = b
	}
	seenBody := map[string]*bodyInfo{}
	for _, k := range pol.bodyKeys {
		for _, bo := range pol.bodies[k] {
			if bo.block.Type.Text == "file" && bo.block.Name.Text == "control" || bo.broken {
				continue
			}
			if first, ok := seenBody[k]; ok {
				if !pol.together(first.file, bo.file) {
					continue
				}
				a.diag(analysis.Diagnostic{At: a.span(bo.file, bo.block.Name.Span), Severity: analysis.Error, Code: "duplicate",
					Message: fmt.Sprintf("Duplicate definition of body %s with type %s", bo.block.Name.Text, bo.block.Type.Text),
					Related: []analysis.Related{{At: first.node.Decl, Message: "first defined here"}}})
				continue
			}
			seenBody[k] = bo
		}
	}
	// duplicate handles (same context), promise types not allowed
	handles := map[string]*promiseInfo{}
	for _, b := range pol.bundles {
		for _, sec := range b.block.Sections {
			t := sec.Type.Text
			if b.file.checked {
				break
			}
			if !cfp.BuiltinPromiseTypes[t] && !pol.unresolved && pol.customType(t) == nil {
				a.diag(analysis.Diagnostic{At: a.span(b.file, sec.Type.Span), Severity: analysis.Error, Code: "missing-target",
					Message: fmt.Sprintf("Undefined promise type '%s'", t)})
			}
			if cfp.BuiltinPromiseTypes[t] && !cfp.TypeAllowed(b.block.Type.Text, t) {
				a.diag(analysis.Diagnostic{At: a.span(b.file, sec.Type.Span), Severity: analysis.Error, Code: "type-not-allowed",
					Message: fmt.Sprintf("Promise type '%s' not supported by '%s' bundle type", t, b.block.Type.Text)})
			}
		}
		for _, p := range b.promises {
			if p.handle == "" || strings.Contains(p.handle, "$(") || strings.Contains(p.handle, "${") {
				continue
			}
			if first, ok := handles[p.handle]; ok {
				if first.p.Context == p.p.Context && pol.together(first.bundle.file, b.file) {
					h := p.p.Get("handle")
					a.diag(analysis.Diagnostic{At: a.span(b.file, h.Rval.Span), Severity: analysis.Error, Code: "duplicate",
						Message: fmt.Sprintf("Duplicate promise handle %s found", p.handle),
						Related: []analysis.Related{{At: a.span(first.bundle.file, first.p.Get("handle").Rval.Span), Message: "first used here"}}})
				}
				continue
			}
			handles[p.handle] = p
		}
	}
	for _, fi := range pol.files {
		if !fi.checked {
			a.checkAttrs(fi)
		}
		fi.checked = true
	}
	if s != nil && len(s.pkgFails) > 0 {
		a.packageFailures(s)
	}
	// references: bodies, bundles, handles. A file shared by several
	// policies is resolved in each; what resolves as before is not
	// emitted again.
	for _, b := range pol.bundles {
		ns := b.block.Namespace
		for _, p := range b.promises {
			if p.emitted == nil && len(p.refs) > 0 {
				p.emitted = make([]*analysis.Node, len(p.refs))
			}
			for i := range p.refs {
				a.checkRef(pol, s, p, i, ns, missingOK)
			}
			if p.dependsOn != nil {
				a.checkDependsOn(pol, s, p, p.dependsOn)
			}
			if len(p.varRefs) > 0 {
				a.varLinks(pol, p)
			}
		}
	}
}

// checkAttrs reports the attribute names cf-promises rejects in one file,
// in its words. Its error makes the whole policy fail on every host. A
// name only a later CFEngine version knows is a warning naming that
// version: the policy may be written for it (cfengine.version says which
// version `@if` macros are evaluated for, not which one the hosts run).
//
// A file with a syntax error gets none: cf-promises gives up after a dozen
// errors, recovers from one its own way, and loads no other file; the
// syntax error is what to fix first.
func (a *analyzer) checkAttrs(fi *fileInfo) {
	if len(fi.parsed.Errors) > 0 {
		return
	}
	version := a.sys.parser.Version
	for _, u := range fi.parsed.UnknownAttrs(version) {
		name, b := u.Attr.Lval.Text, u.Block
		var msg string
		switch {
		case u.Section != nil:
			msg = fmt.Sprintf("Unknown attribute '%s' for promise type '%s' in bundle with type '%s'", name, u.Section.Type.Text, b.Type.Text)
		default:
			msg = fmt.Sprintf("Unknown attribute '%s' for '%s %s %s'", name, b.Kind, b.Type.Text, b.Name.Text)
		}
		sev := analysis.Error
		if u.Since != "" {
			sev = analysis.Warning
			msg += fmt.Sprintf(": CFEngine %s and later know it; %s (cfengine.version) rejects it", u.Since, version)
		}
		// Unresolved: the server offers the nearest known names (attrCompletion)
		a.diag(analysis.Diagnostic{At: a.span(fi, u.Attr.Lval.Span), Severity: sev, Code: "unknown-attribute", Message: msg, Unresolved: true})
	}
}

// missingNode marks a reference already reported as missing.
var missingNode = &analysis.Node{}

// checkRef resolves one body or bundle reference of a promise in a
// policy: a link and an edge, or a missing-target error.
func (a *analyzer) checkRef(pol *policy, s *scheduler, p *promiseInfo, i int, ns string, missingOK bool) {
	ref := &p.refs[i]
	r := ref.c.Rval
	lv := ref.c.Lval.Text
	b := p.bundle
	if ref.body {
		var target *analysis.Node
		if bo := pol.body(lv, r.Value, ns); bo != nil {
			target = bo.node
		} else if !missingOK && !(lv == "package_module" && r.Kind == cfp.Ident && strings.Contains(r.Value, "$")) {
			target = missingNode
		}
		if target == nil || p.emitted[i] == target {
			return
		}
		p.emitted[i] = target
		at := a.span(b.file, r.NameSpan)
		if target == missingNode {
			d := analysis.Diagnostic{At: at, Severity: analysis.Error, Code: "missing-target",
				Message: fmt.Sprintf("Undefined body %s with type %s", strings.TrimPrefix(r.Value, "default:"), lv)}
			if pol.layered != "" {
				d.Severity = analysis.Info
				d.Message += fmt.Sprintf(" (run alone, as its bundle __main__ lets cf-promises -c do; %s builds this module into masterfiles, whose library may define it)", pol.layered)
			}
			a.diag(d)
			return
		}
		a.linkTo(at, target)
		a.graph.Connect(&analysis.Edge{From: p.node, To: target, Kind: analysis.Reference, Reason: lv, At: at})
		return
	}
	bt := bundleLvals[lv]
	tb := pol.bundle(r.Value, ns)
	if tb != nil && bt != "" && tb.block.Type.Text != bt {
		tb = nil
		for _, cand := range pol.byKey[qualify(ns, r.Value)] {
			if cand.block.Type.Text == bt {
				tb = cand
			}
		}
	}
	var target *analysis.Node
	switch {
	case tb != nil:
		target = tb.node
	case !missingOK:
		target = missingNode
	}
	// a missing bundle is judged again in each policy (its schedule says
	// whether the promise runs there)
	if target == nil || p.emitted[i] == target && target != missingNode {
		return
	}
	p.emitted[i] = target
	sp := a.span(b.file, r.NameSpan)
	if r.Kind == cfp.String {
		sp = source.Span{URI: sp.URI, Start: r.Span.Start + 1, End: r.Span.End - 1}
	}
	if target == missingNode {
		// cf-promises accepts both; cf-agent looks the bundle up only
		// when it evaluates the promise, and stops there
		msg := fmt.Sprintf("A method attempted to use a bundle '%s' that was apparently not defined", r.Value)
		says := "says this and aborts the run"
		if lv != "usebundle" && lv != "then" {
			msg = fmt.Sprintf("Did not find bundle '%s' for edit operation", r.Value)
			says = "says this"
		}
		if pol.layered != "" {
			// as for a body: masterfiles' library may define it
			a.diag(analysis.Diagnostic{At: sp, Severity: analysis.Info, Code: "missing-target",
				Message: msg + fmt.Sprintf(" (run alone, as its bundle __main__ lets cf-agent do; %s builds this module into masterfiles, whose library may define it)", pol.layered)})
			return
		}
		switch a.refRuns(s, p) {
		case triTrue:
			a.diag(analysis.Diagnostic{At: sp, Severity: analysis.Error, Code: "missing-target", Message: msg})
		case triMaybe:
			a.diag(analysis.Diagnostic{At: sp, Severity: analysis.Warning, Code: "missing-target",
				Message: fmt.Sprintf("%s: cf-agent %s on hosts where this promise's guard (%s) holds; elsewhere it skips the promise", msg, says, guardWords(b.file, p))})
		case triFalse:
			// skipped everywhere: cf-agent never looks the bundle up.
			// An unquoted name is still expanded (and complained
			// about) when only if/unless hold the promise back.
			if r.Kind == cfp.Ident && s.ifFalse[p.idx] {
				a.diag(analysis.Diagnostic{At: sp, Severity: analysis.Warning, Code: "missing-target",
					Message: fmt.Sprintf("Apparent bundle '%s' was undeclared, but used in a promise (possible unquoted literal value): cf-agent logs this error in every pass and goes on; the promise itself is skipped (its guard (%s) is false)", r.Value, guardWords(b.file, p))})
			}
		}
		return
	}
	a.linkTo(sp, target)
	a.graph.Connect(&analysis.Edge{From: p.node, To: target, Kind: analysis.Call, Reason: lv, At: sp})
}

// refRuns tells whether a promise that names a bundle is evaluated,
// so that cf-agent looks the bundle up: true when it is unguarded or its
// guard held when the schedule reached it, maybe when its guard may or
// may not hold, false when the schedule reached it only with its guard
// false. A promise the schedule did not reach counts as unguarded when
// it has no guard, else as maybe.
func (a *analyzer) refRuns(s *scheduler, p *promiseInfo) tri {
	if s == nil {
		return triTrue
	}
	if g := s.evalGuard[p.idx]; g > 0 {
		return g - 1
	}
	if _, reached := s.guardFalse[p.idx]; reached {
		return triFalse
	}
	if p.p.Context == "any" && len(p.guards) == 0 {
		return triTrue
	}
	return triMaybe
}

// guardWords quotes a promise's guard as written: its class context,
// its if/ifvarclass/unless attributes.
func guardWords(fi *fileInfo, p *promiseInfo) string {
	var parts []string
	if p.p.Context != "any" {
		parts = append(parts, "'"+p.p.Context+"::'")
	}
	for _, c := range p.guards {
		if c.Rval != nil && c.Rval.Span.End <= len(fi.src.Text) {
			parts = append(parts, c.Lval.Text+" => "+string(fi.src.Text[c.Rval.Span.Start:c.Rval.Span.End]))
		}
	}
	return strings.Join(parts, ", ")
}

// checkDependsOn links each handle of a depends_on and warns about the
// ones that keep the promise from ever running.
func (a *analyzer) checkDependsOn(pol *policy, s *scheduler, p *promiseInfo, c *cfp.Constraint) {
	for _, h := range p.depends {
		sp := a.span(p.bundle.file, h.Span)
		sp = source.Span{URI: sp.URI, Start: sp.Start + 1, End: sp.End - 1}
		targets := pol.handles[h.Value]
		var nodes []*analysis.Node
		for _, t := range targets {
			nodes = append(nodes, t.node)
			if k := (edgeKey{t.node, p.node, sp}); !a.seenEdge[k] {
				a.seenEdge[k] = true
				a.graph.Connect(&analysis.Edge{From: t.node, To: p.node, Kind: analysis.Order, Reason: "depends_on", At: sp})
			}
		}
		if len(nodes) > 0 {
			a.link(analysis.Link{At: sp, Nodes: nodes})
		}
		if pol.unresolved || strings.ContainsAny(h.Value, "$@") {
			continue
		}
		if len(targets) == 0 {
			a.diag(analysis.Diagnostic{At: sp, Severity: analysis.Warning, Code: "never-runs", NeverRuns: true, Unresolved: true,
				Message: fmt.Sprintf("depends_on '%s': no promise has this handle, so this promise silently never runs (cf-agent reports nothing)", h.Value)})
			continue
		}
		t := targets[0]
		if fails(t) {
			a.diag(analysis.Diagnostic{At: sp, Severity: analysis.Warning, Code: "never-runs", NeverRuns: true,
				Message: fmt.Sprintf("depends_on '%s': that promise (%s) always fails (NOT_KEPT), so this promise silently never runs", h.Value, t.node.Ref),
				Related: []analysis.Related{{At: t.node.Decl, Message: "the promise with handle '" + h.Value + "'"}}})
			continue
		}
		if s == nil {
			continue
		}
		if cyc := a.dependsCycle(pol, p, h.Value); cyc != nil {
			// One warning per cycle, on the handle that closes it (the last
			// one written); every member finds the same cycle and only the
			// owner of that handle reports it.
			at := make([]source.Span, len(cyc))
			closing := 0
			for i, q := range cyc {
				at[i] = sp
				if i > 0 {
					at[i] = a.dependsSpan(q, cyc[(i+1)%len(cyc)].handle)
				}
				if at[i].URI > at[closing].URI || at[i].URI == at[closing].URI && at[i].Start > at[closing].Start {
					closing = i
				}
			}
			if closing != 0 {
				continue
			}
			var rel []analysis.Related
			var members []*analysis.Node
			names := []string{}
			for i, q := range cyc {
				members = append(members, q.node)
				names = append(names, q.handle)
				if i > 0 && !at[i].IsZero() {
					rel = append(rel, analysis.Related{At: at[i], Message: fmt.Sprintf("%s depends on '%s'", q.node.Ref, cyc[(i+1)%len(cyc)].handle)})
				}
			}
			a.diag(analysis.Diagnostic{At: sp, Severity: analysis.Warning, Code: "never-runs", NeverRuns: true,
				Message: fmt.Sprintf("depends_on cycle (%s): these promises silently never run", strings.Join(append(names, names[0]), " -> ")),
				Related: rel, Members: members})
			continue
		}
		if !s.ran(p) && s.ran(t) && t.bundle != p.bundle {
			a.diag(analysis.Diagnostic{At: sp, Severity: analysis.Warning, Code: "never-runs", NeverRuns: true,
				Message: fmt.Sprintf("depends_on '%s': that promise is in bundle '%s', which runs after this promise's bundle '%s' has finished, so this promise silently never runs", h.Value, t.bundle.label, p.bundle.label),
				Related: []analysis.Related{{At: t.node.Decl, Message: "the promise with handle '" + h.Value + "'"}}})
		}
	}
}

// dependsSpan is the words of q's depends_on entry naming handle h (the
// quotes left out), or a zero span.
func (a *analyzer) dependsSpan(q *promiseInfo, h string) source.Span {
	for _, d := range q.depends {
		if d.Value == h {
			sp := a.span(q.bundle.file, d.Span)
			return source.Span{URI: sp.URI, Start: sp.Start + 1, End: sp.End - 1}
		}
	}
	return source.Span{}
}

// dependsCycle returns the promises of a depends_on cycle through p (via
// handle h), or nil.
func (a *analyzer) dependsCycle(pol *policy, p *promiseInfo, h string) []*promiseInfo {
	if p.handle == "" {
		return nil
	}
	// BFS from the promise named h back to p
	type item struct {
		q    *promiseInfo
		path []*promiseInfo
	}
	start := pol.handles[h]
	if len(start) == 0 {
		return nil
	}
	queue := []item{{start[0], []*promiseInfo{p, start[0]}}}
	seen := map[*promiseInfo]bool{start[0]: true}
	for len(queue) > 0 && len(seen) < 10000 {
		it := queue[0]
		queue = queue[1:]
		if it.q == p {
			return it.path[:len(it.path)-1]
		}
		d := it.q.p.Get("depends_on")
		if d == nil {
			continue
		}
		for _, x := range d.Rval.Scalars() {
			for _, nq := range pol.handles[x.Value] {
				if nq == p {
					return it.path
				}
				if !seen[nq] {
					seen[nq] = true
					queue = append(queue, item{nq, append(append([]*promiseInfo(nil), it.path...), nq)})
				}
			}
		}
	}
	return nil
}

// varLinks links $(bundle.var) and $(var) references in a promise's
// strings to the vars promises defining them (or the bundle parameter).
func (a *analyzer) varLinks(pol *policy, p *promiseInfo) {
	own := p.varsLinked
	p.varsLinked = true
	for _, r := range p.varRefs {
		if r.bundle == "" && own {
			continue // linked in an earlier policy: same bundle
		}
		b := p.bundle
		if r.bundle != "" {
			b = pol.bundle(r.bundle, p.bundle.block.Namespace)
		}
		if b == nil {
			continue
		}
		if r.bundle == "" {
			if at := a.span(p.bundle.file, r.at); !a.seenLink[at] {
				for _, prm := range b.block.Params {
					if prm.Text == r.name {
						a.link(analysis.Link{At: at, Files: []source.Span{a.span(b.file, prm.Span)}})
					}
				}
			}
		}
		idx := b.vars[r.name]
		if len(idx) == 0 {
			continue
		}
		nodes := make([]*analysis.Node, len(idx))
		for i, k := range idx {
			nodes[i] = b.promises[k].node
		}
		a.link(analysis.Link{At: a.span(p.bundle.file, r.at), Nodes: nodes})
	}
}

// scanVarRefs finds the $(bundle.var) and $(var) references in a
// promise's promiser and values.
func scanVarRefs(text []byte, p *cfp.Promise) []varRef {
	var out []varRef
	check := func(s string, base int) {
		for i := 0; i+1 < len(s); i++ {
			if (s[i] != '$' && s[i] != '@') || (s[i+1] != '(' && s[i+1] != '{') {
				continue
			}
			end := matchClose(s, i+1)
			if end < 0 {
				return
			}
			name := s[i+2 : end]
			if name == "" || strings.ContainsAny(name, "$()[]{} ") {
				continue
			}
			bname, vname, qualified := strings.Cut(name, ".")
			if !qualified {
				bname, vname = "", name // this bundle's variable or parameter
			}
			out = append(out, varRef{at: cfp.Span{Start: base + i + 2, End: base + end}, bundle: bname, name: vname})
		}
	}
	quoted := func(sp cfp.Span) {
		if sp.End-sp.Start >= 2 && sp.End <= len(text) {
			raw := text[sp.Start+1 : sp.End-1]
			if bytes.IndexByte(raw, '$') >= 0 || bytes.IndexByte(raw, '@') >= 0 {
				check(string(raw), sp.Start+1)
			}
		}
	}
	var visit func(r *cfp.Rval)
	visit = func(r *cfp.Rval) {
		if r == nil {
			return
		}
		switch r.Kind {
		case cfp.String:
			quoted(r.Span)
		case cfp.NakedVar:
			check(r.Value, r.Span.Start)
		}
		for _, it := range r.Items {
			visit(it)
		}
	}
	quoted(p.PromiserSpan)
	for _, c := range p.Constraints {
		visit(c.Rval)
	}
	return out
}

// packageFailures reports the packages promises the schedule reached that
// fail cf-agent's sanity check (scheduler.packageFailure): an error where
// their guard held, a warning where it may. cf-promises accepts them.
func (a *analyzer) packageFailures(s *scheduler) {
	ps := make([]*promiseInfo, 0, len(s.pkgFails))
	for p := range s.pkgFails {
		ps = append(ps, p)
	}
	sort.Slice(ps, func(i, j int) bool { return ps[i].idx < ps[j].idx })
	for _, p := range ps {
		msg := s.pkgFails[p].msg
		why := "a new packages promise (policy, version, architecture or options) runs through a package_module body, its own or body common control's, and this policy has neither: cf-agent says this in every pass and never keeps the promise"
		if p.pkg&pkgNew == 0 {
			why = "an old packages promise runs through a package_method body, and it has none (a new one would name a package_module: policy => \"present\" and package_module => ...): cf-agent says this in every pass and never keeps the promise"
		}
		at := a.span(p.bundle.file, p.p.PromiserSpan)
		at.Start, at.End = at.Start+1, at.End-1 // (inside the quotes)
		d := analysis.Diagnostic{At: at, Severity: analysis.Error, Code: "never-runs", Message: msg,
			Related: []analysis.Related{{At: at, Message: why}}}
		if s.pkgFails[p].guard != triTrue {
			d.Severity = analysis.Warning
			d.Message = msg + " cf-agent says this on hosts where this promise's guard (" + guardWords(p.bundle.file, p) + ") holds, and never keeps the promise there"
		}
		a.diag(d)
	}
}
