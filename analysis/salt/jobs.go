package salt

import (
	"fmt"
	"maps"
	"runtime"
	"slices"
	"strings"
	"sync"

	"github.com/ordering-lsp/ordering-lsp/analysis"
	sp "github.com/ordering-lsp/ordering-lsp/parser/salt"
	"github.com/ordering-lsp/ordering-lsp/source"
)

// The runs of a request: an SLS alone, a top file for each of its
// targets, built on every CPU and finished into the graph in order.

func (a *analyzer) newCompiler(t *tree, dry bool) *compiler {
	return &compiler{t: t, mods: map[string]bool{}, fileEnv: map[*sfile]string{}, iorder: 10000, auto: a.auto, shadowed: map[string]bool{}, dry: dry}
}

func (a *analyzer) runSLS(t *tree, f *sfile) {
	name := "state.sls " + f.sls
	build := func(dry bool) (*compiler, *high) {
		c := a.newCompiler(t, dry)
		st := c.renderState(f.sls, nil, 0, false)
		if st == nil {
			st = newHigh()
		}
		return c, st
	}
	a.cachedRun(name, f.file.URI, f.sls, build, nil)
}

// cachedRun computes a run, or replays it when the files that make it
// are the very ones (same lowered file objects) a previous analysis used:
// an edit recomputes only the runs that include the edited file.
func (a *analyzer) cachedRun(name, entry, entrySLS string, build func(dry bool) (*compiler, *high), tops []*sfile) {
	dc, _ := build(true)
	files := dc.files
	if len(tops) > 0 {
		// the top files' spans are in the record too (missing includes)
		files = append(append([]*sfile(nil), tops...), files...)
	}
	var kb strings.Builder
	fmt.Fprintf(&kb, "%s\x00%s\x00%v\x00%v\x00%s", name, entry, a.master, a.auto, a.cfg.key())
	ident := kb.String()
	for _, f := range files {
		fmt.Fprintf(&kb, "\x00%p", f)
	}
	key := kb.String()
	a.s.mu.Lock()
	rec := a.s.runs[key]
	if rec != nil {
		rec.gen = a.s.gen
		a.s.last[ident] = rec
	}
	prev := a.s.last[ident]
	a.s.mu.Unlock()
	a.jobs = append(a.jobs, &runJob{name: name, entry: entry, sls: entrySLS, build: build, key: key, ident: ident, rec: rec, prev: prev, files: files})
}

// runJob is a run to apply; rec is nil until it is computed.
type runJob struct {
	name, entry, sls string
	build            func(dry bool) (*compiler, *high)
	key, ident       string
	rec              *runRecord
	prev             *runRecord // the last record of this run, for patching
	files            []*sfile
}

// runJobs computes the runs not in the cache on every core (each into
// its own record), then applies every run in order.
func (a *analyzer) runJobs() {
	var todo []*runJob
	for _, j := range a.jobs {
		if j.rec == nil {
			todo = append(todo, j)
		}
	}
	compute := func(j *runJob) {
		rec := patchRecord(j.prev, j.files)
		if rec != nil {
			a.s.mu.Lock()
			a.s.patched++
			a.s.mu.Unlock()
		} else {
			w := *a // a worker: its own record; shared state is locked
			rec = &runRecord{tmp: map[nodeKey]*analysis.Node{}, edgeSeen: map[edgeKey]bool{}, sfiles: j.files}
			w.rec = rec
			c, h := j.build(false)
			if !w.finishRun(c, h, j.name, j.entry, j.sls) {
				return // canceled: neither cached nor applied
			}
			rec.edgeSeen = nil
			rec.tmp = nil
			rec.agg = aggregateLinks(rec.links)
			rec.links = nil
		}
		rec.gen = a.s.gen
		a.s.mu.Lock()
		a.s.runs[j.key] = rec
		a.s.last[j.ident] = rec
		a.s.mu.Unlock()
		j.rec = rec
	}
	workers := min(runtime.GOMAXPROCS(0), len(todo))
	if workers <= 1 {
		for _, j := range todo {
			if a.req.Canceled() {
				break
			}
			compute(j)
		}
	} else {
		next := make(chan *runJob)
		var wg sync.WaitGroup
		for w := 0; w < workers; w++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for j := range next {
					if !a.req.Canceled() {
						compute(j)
					}
				}
			}()
		}
		for _, j := range todo {
			if a.req.Canceled() {
				break
			}
			next <- j
		}
		close(next)
		wg.Wait()
	}
	if a.req.Canceled() {
		a.jobs = nil
		return
	}
	for _, j := range a.jobs {
		if j.rec != nil {
			a.apply(j.rec)
		}
	}
	a.jobs = nil
}

// runTop builds the highstate of a top.sls: every SLS of every target of
// every environment, in top file order (one machine matching all targets).
func (a *analyzer) runTop(t *tree, top *sfile) {
	// In the server, a top file with several targets besides '*' gives
	// one highstate per target (with the '*' states): states of targets
	// that never meet on one machine must not conflict. `order top.sls`
	// prints one highstate for a machine matching every target.
	tops := append([]*sfile{top}, a.topIncludes(t, top)...)
	var targets []string
	seen := map[string]bool{}
	for _, tt := range topTargets(tops) {
		if tt.target != "*" && !seen[tt.target] {
			seen[tt.target] = true
			targets = append(targets, tt.target)
		}
	}
	if a.minion != nil {
		a.runTopNode(t, tops, a.minion)
		return
	}
	if a.req.Entry != "" || len(targets) < 2 {
		a.runTopFor(t, tops, "", "highstate")
		return
	}
	for _, tg := range targets {
		a.runTopFor(t, tops, tg, "highstate "+strings.ReplaceAll(tg, sp.Unknown, "*"))
	}
}

// topIncludes lists the files a top file's `include:` pulls in as more
// top data (salt/state.py get_tops: each name is an fnmatch pattern over
// the environment's SLS names, each file is read once, and only the
// includes of the top file itself are followed; a name that matches
// nothing is skipped without a word).
func (a *analyzer) topIncludes(t *tree, top *sfile) []*sfile {
	var out []*sfile
	seen := map[string]bool{}
	for _, e := range top.p.Entries {
		if e.Key == nil || e.Key.Value != "include" || e.Val == nil || e.Val.Kind != sp.Seq {
			continue
		}
		for _, it := range e.Val.Items {
			name, ok := it.Str()
			if !ok || it.Kind != sp.Scalar || strings.Contains(name, sp.Unknown) {
				continue
			}
			var names []string
			if hasGlob(name) {
				for _, n := range t.avail() {
					if fnmatch(n, name) {
						names = append(names, n)
					}
				}
			} else {
				names = []string{name}
			}
			for _, n := range names {
				if seen[n] {
					continue
				}
				if f := t.bySLS(n); f != nil && f != top {
					seen[n] = true
					out = append(out, f)
				}
			}
		}
	}
	return out
}

// topTarget is one target of the merged top data.
type topTarget struct {
	env, target string
	val         *sp.Node
	f           *sfile
	// orig: the list as written when val is a merge of several
	// (top_file_merging_strategy merge_all)
	orig *sp.Node
}

// written is the target's list as the top file writes it.
func (tt topTarget) written() *sp.Node {
	if tt.orig != nil {
		return tt.orig
	}
	return tt.val
}

// topTargets merges top files as _merge_tops_merge does: targets in the
// order they first appear, a later top file's list replacing an
// earlier one's for the same environment and target.
func topTargets(tops []*sfile) []topTarget {
	idx := map[[2]string]int{}
	var out []topTarget
	for _, tf := range tops {
		for _, e := range tf.p.Entries {
			if e.Key == nil || e.Val == nil || e.Val.Kind != sp.Map {
				continue
			}
			for i, k := range e.Val.Keys {
				tt := topTarget{env: e.Key.Value, target: k.Value, val: e.Val.Vals[i], f: tf}
				key := [2]string{tt.env, tt.target}
				if j, ok := idx[key]; ok {
					out[j] = tt
					continue
				}
				idx[key] = len(out)
				out = append(out, tt)
			}
		}
	}
	return out
}

// highstateTargets is the top data a highstate reads: this top file's
// (and what it includes), and, when the master's configuration names
// other saltenvs, every saltenv's top file merged as Salt merges them
// (Runbook/runbook-ops: base's top gives every minion dockerio, which the
// runbook saltenv's SLS require), in the order Salt reads the saltenvs.
func (a *analyzer) highstateTargets(t *tree, tops []*sfile) []topTarget {
	if len(a.envTrees) == 0 {
		return topTargets(tops)
	}
	merged, _ := a.mergedTops(t, tops)
	var out []topTarget
	for _, te := range merged {
		for _, tt := range te.targets {
			tt.env = te.env
			out = append(out, tt)
		}
	}
	return out
}

// runTopFor is the highstate of a machine matching target (and '*'); ""
// means every target. tops are the top file and the files it includes.
func (a *analyzer) runTopFor(t *tree, tops []*sfile, target, name string) {
	top := tops[0]
	build := func(dry bool) (*compiler, *high) {
		c := a.newCompiler(t, dry)
		hs := newHigh()
		if dry {
			for _, f := range tops[1:] {
				for _, e := range top.p.Entries {
					if e.Key == nil || e.Key.Value != "include" || e.Val == nil || e.Val.Kind != sp.Seq {
						continue
					}
					for _, it := range e.Val.Items {
						if n, ok := it.Str(); ok && (n == f.sls || hasGlob(n) && fnmatch(f.sls, n)) {
							a.link(top.span(it), nil, []source.Span{{URI: f.file.URI}})
						}
					}
				}
			}
		}
		for _, tt := range a.highstateTargets(t, tops) {
			tv := tt.val
			if tv.Kind != sp.Seq {
				continue
			}
			if target != "" && tt.target != "*" && tt.target != target {
				continue
			}
			et := t // (the saltenv of another top file's data)
			if x := a.envTrees[tt.env]; x != nil && tt.env != t.env {
				et = x
			}
			own := slices.Contains(tops, tt.f)
			for _, it := range tv.Items {
				name, ok := it.Str()
				if !ok || it.Kind != sp.Scalar {
					continue
				}
				if strings.Contains(name, sp.Unknown) {
					c.generator = true
					continue
				}
				var names []string
				if hasGlob(name) {
					for _, n := range et.avail() {
						if fnmatch(n, name) && n != "top" {
							names = append(names, n)
						}
					}
				} else {
					names = []string{name}
				}
				for _, n := range names {
					if tf := et.bySLS(n); tf != nil && dry && own {
						a.link(tt.f.span(it), nil, []source.Span{{URI: tf.file.URI}})
					}
					if c.mods[modKey(tt.env, n)] {
						continue
					}
					inc := &include{name: n, node: it, f: tt.f, env: tt.env}
					st := c.renderState(n, inc, 0, false)
					if st != nil {
						c.merge(hs, st)
					}
				}
			}
		}
		return c, hs
	}
	a.cachedRun(name, top.file.URI, "", build, tops)
}

// finishRun computes a run into a.rec; false when the request was
// canceled on the way (the record is incomplete).
func (a *analyzer) finishRun(c *compiler, h *high, name, entry, entrySLS string) bool {
	if a.req.Canceled() {
		return false
	}
	c.settleAddOns()
	seenURI := map[string]bool{}
	for _, f := range c.files {
		if !seenURI[f.file.URI] {
			seenURI[f.file.URI] = true
			a.rec.files = append(a.rec.files, f.file.URI)
		}
	}
	// links of includes and extends
	for _, f := range c.files {
		a.fileLinks(c, f)
	}
	var exts []*extension
	for _, e := range h.extends {
		ext := &extension{id: e.id, sls: e.f.sls, env: c.fileEnv[e.f], at: e.f.span(e.key), key: e.key, f: e.f}
		for _, d := range e.decls {
			hs := newHState(d)
			hs.funs = nil
			for _, fn := range d.funs {
				hs.funs = append(hs.funs, fn)
			}
			ext.states = append(ext.states, hs)
		}
		exts = append(exts, ext)
	}
	// reconcile_extend is in call_high: extends first, then verify_high
	c.reconcileExtend(h, exts, false)
	c.verifyHigh(h, a.master)
	c.requisiteIn(h)
	c.applyExclude(h)
	if a.req.Canceled() {
		return false
	}
	chunks := c.compile(h)
	sm := newSim(chunks, c.generator)
	sm.shadowed = c.shadowed
	sm.shadowNames = c.altNames(h)
	if a.req.Canceled() {
		return false
	}
	sm.run()
	if a.req.Canceled() {
		return false
	}

	run := analysis.Run{Name: name, Entry: entry, Alone: strings.HasPrefix(name, "state.sls ")}
	total := len(sm.order) + len(sm.listen)
	for _, ch := range sm.order {
		n := a.node(ch)
		note := ""
		r := sm.running[ch.tid]
		switch {
		case r != nil && r.lost:
			note = "fails: requisites not found"
		case r != nil && r.tied:
			note = "fails: recursive requisite (after 20 attempts; Salt gives it the next state's run number)"
		case r != nil && r.recursive:
			note = "fails: recursive requisite"
		}
		lb := n.Ref
		if a.rec.funs[n.Index] != ch.fun {
			lb = label(ch, ch.body.f)
		}
		st := analysis.Step{Node: n, Label: lb, Note: note}
		if r != nil {
			st.Seq = r.num + 1
		}
		run.Steps = append(run.Steps, st)
		a.orderFact(n, ch)
	}
	_ = total
	// call_listen runs the listeners' mod_watch chunks after every state,
	// then numbers its errors: their __run_num__ continue the run's.
	for i, l := range sm.listen {
		n := a.node(l.ch)
		lb := strings.ReplaceAll(l.ch.state, sp.Unknown, "*") + ".mod_watch listener_" + label(l.ch, l.ch.body.f)[len(l.ch.state+"."+l.ch.fun)+1:]
		run.Steps = append(run.Steps, analysis.Step{Node: n, Label: lb,
			Note: "listen: mod_watch at the end of the run, only if " + l.target.id + " reports changes",
			Seq:  sm.runNum + i + 1})
	}
	for j, le := range sm.listenErrs {
		run.Steps = append(run.Steps, analysis.Step{Node: a.node(le.ch), Label: "Listen_Error.Listen_Error listen_" + le.target + " listen_" + le.mod,
			Note: "fails: the listen names no state (" + le.mod + ": " + le.target + ")",
			Seq:  sm.runNum + len(sm.listen) + j + 1})
	}
	for _, p := range c.problems {
		if p.refuses {
			run.Refused = true
		}
	}
	if sm.crash != nil {
		run.Refused = true
	}
	// a file Salt cannot render (Jinja or YAML error) fails the whole run
	for _, f := range c.files {
		for _, e := range f.p.Errors {
			if e.Severity == 1 {
				run.Refused = true
			}
		}
		for _, d := range f.ids {
			if d.bad != "" {
				run.Refused = true
			}
		}
	}
	a.edgesAndLinks(c, h, sm, run.Name)
	a.runProblems(c, sm, entrySLS, &run)
	for _, p := range c.problems {
		d := analysis.Diagnostic{At: p.at, Severity: sev(p.sev), Code: p.code, Message: p.msg, Members: p.members}
		for _, r := range p.related {
			if p.code == "cycle" && r.at == p.at {
				continue // the diagnostic's own words: the related entries are the other edges
			}
			d.Related = append(d.Related, analysis.Related{At: r.at, Message: r.msg})
		}
		if p.code == "extend-missing" || p.code == "cycle" {
			a.contextual(d, p.target, p.targetMod)
			continue
		}
		a.diag(d)
	}
	a.rec.run = run
	a.rec.chunkNode = make([]int32, len(sm.chunks))
	a.rec.chunkOrder = make([]float64, len(sm.chunks))
	for i, ch := range sm.chunks {
		a.rec.chunkNode[i] = int32(a.node(ch).Index)
		a.rec.chunkOrder[i] = ch.order
	}
	return true
}

// altNames adds to the names hidden alternatives give (shadowNames) the
// name: values a state writes in branches of an undecidable if beside the
// one it keeps (every branch is rendered, the last name: wins here; on
// the machine the branch taken gives its own). ffhf-salt's exit/openvpn.sls
// names its config /etc/openvpn/openvpn.conf where os_family is Alpine,
// server.conf elsewhere, and requires the first under the same test:
// salt-order with the test true finds it.
//
// Each such name is recorded with the branches that write it (altWrites):
// a requisite outside them names a state only the machines taking them
// have (altNameRequisites).
func (c *compiler) altNames(h *high) map[string]bool {
	out, copied := c.shadowNames, false
	c.altWrites = nil
	for _, id := range h.ids {
		b := h.m[id]
		if b == nil || b.f == nil || b.f.p == nil {
			continue
		}
		for _, st := range b.states {
			last := st.argLast("name")
			for _, a := range st.args {
				if a == last || a.key != "name" || a.val == nil || a.val.Kind != sp.Scalar || !b.f.p.InAltNode(a.val) {
					continue
				}
				if !copied {
					// a copy: shadowNames keeps only what hidden
					// alternatives declare
					out, copied = maps.Clone(out), true
					if out == nil {
						out = map[string]bool{}
					}
				}
				out[a.val.Value] = true
				if c.altWrites == nil {
					c.altWrites = map[string][]altWrite{}
				}
				c.altWrites[a.val.Value] = append(c.altWrites[a.val.Value], altWrite{b: b, module: st.module, val: a.val, arms: b.f.p.ArmsOf(a.val)})
			}
		}
	}
	return out
}

// altWrite is a name: a state writes only in some branches (altNames).
type altWrite struct {
	b      *body
	module string
	val    *sp.Node
	arms   []sp.Arm
}
