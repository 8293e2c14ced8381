package salt

import (
	"strings"

	"github.com/ordering-lsp/ordering-lsp/analysis"
	sp "github.com/ordering-lsp/ordering-lsp/parser/salt"
	"github.com/ordering-lsp/ordering-lsp/source"
)

// An edit that keeps a file's shape (same IDs, states, functions,
// requisites, orders, includes, extends; only offsets and the values of
// ordinary arguments change) cannot change what Salt does with the run:
// the previous run record is patched (spans moved, the new objects
// swapped in, labels renamed) instead of rendering, compiling and
// simulating the whole run again. Anything that could make a difference
// (a changed value some requisite, extend or hint could name, a name that
// decides a sort tie, a message quoting the old value, template output,
// syntax errors) falls back to the full computation.

// freeKeys are argument keys whose values never decide order, matching
// or messages by themselves (everything but requisites, order, names,
// state and fun); `name` is checked further (it names the chunk).
func freeArg(key string) bool {
	if requisiteKeys[key] || requisiteKeywords[key] {
		return false
	}
	switch key {
	case "order", "names", "state", "fun", "listen_in":
		return false
	}
	return true
}

// fileMap maps a file's previous lowered version onto its new one.
type fileMap struct {
	old, new *sfile
	nodes    map[*sp.Node]*sp.Node
	offs     map[int]int
	back     map[int]int // offs reversed: the map must be one to one
	ids      map[*idDecl]*idDecl
	sts      map[*stDecl]*stDecl
	reqs     map[*reqEntry]*reqEntry
	changed  []valChange
	free     map[*sp.Node]bool // argument values allowed to change
}

type valChange struct {
	old, new *sp.Node
}

func (m *fileMap) off(o, n int) bool {
	if prev, ok := m.offs[o]; ok {
		return prev == n
	}
	if _, ok := m.back[n]; ok {
		return false
	}
	m.offs[o] = n
	m.back[n] = o
	return true
}

// walk compares two value trees; only scalars under a free argument value
// may differ.
func (m *fileMap) walk(o, n *sp.Node, free bool, depth int) bool {
	if o == nil || n == nil {
		return o == n
	}
	if depth > 200 || o.Kind != n.Kind || o.Tag != n.Tag || len(o.Keys) != len(n.Keys) || len(o.Vals) != len(n.Vals) || len(o.Items) != len(n.Items) {
		return false
	}
	if !m.off(o.Start, n.Start) || !m.off(o.End, n.End) {
		return false
	}
	m.nodes[o] = n
	free = free || m.free[o]
	if o.Value != n.Value {
		if !free || o.Kind != sp.Scalar || strings.Contains(o.Value, sp.Unknown) || strings.Contains(n.Value, sp.Unknown) {
			return false
		}
		m.changed = append(m.changed, valChange{o, n})
	} else if strings.Contains(o.Value, sp.Unknown) && m.old.p.Display(o) != m.new.p.Display(n) {
		return false
	}
	for i := range o.Keys {
		// keys of nested maps stay as they were
		if o.Keys[i].Value != n.Keys[i].Value || !m.walk(o.Keys[i], n.Keys[i], false, depth+1) || !m.walk(o.Vals[i], n.Vals[i], free, depth+1) {
			return false
		}
	}
	for i := range o.Items {
		if !m.walk(o.Items[i], n.Items[i], free, depth+1) {
			return false
		}
	}
	return true
}

func markFree(free map[*sp.Node]bool, decls []*stDecl) {
	for _, d := range decls {
		for _, a := range d.args {
			if a.val != nil && freeArg(a.key) {
				free[a.val] = true
			}
		}
	}
}

// mapFile builds the map from old to new, or reports that the edit
// changed the file's shape.
func mapFile(old, nw *sfile) (*fileMap, bool) {
	if old.file.URI != nw.file.URI || old.root != nw.root || old.sls != nw.sls || old.init != nw.init ||
		old.top != nw.top || old.generator != nw.generator {
		return nil, false
	}
	op, np := old.p, nw.p
	if len(op.Errors) > 0 || len(np.Errors) > 0 || op.Skipped || np.Skipped || op.Renderer != np.Renderer ||
		len(op.R.Alts) > 0 || len(np.R.Alts) > 0 || len(op.Opaque) != len(np.Opaque) ||
		len(op.Entries) != len(np.Entries) || len(old.ids) != len(nw.ids) || len(old.includes) != len(nw.includes) ||
		len(old.excludes) != len(nw.excludes) || len(old.extends) != len(nw.extends) {
		return nil, false
	}
	m := &fileMap{old: old, new: nw, nodes: map[*sp.Node]*sp.Node{}, offs: map[int]int{}, back: map[int]int{}, ids: map[*idDecl]*idDecl{},
		sts: map[*stDecl]*stDecl{}, reqs: map[*reqEntry]*reqEntry{}, free: map[*sp.Node]bool{}}
	for _, d := range old.ids {
		markFree(m.free, d.decls)
	}
	for _, e := range old.extends {
		markFree(m.free, e.decls)
	}
	for i, oe := range op.Entries {
		ne := np.Entries[i]
		if oe.Opaque != ne.Opaque || !m.off(oe.Start, ne.Start) || !m.off(oe.End, ne.End) {
			return nil, false
		}
		if (oe.Key == nil) != (ne.Key == nil) || oe.Key != nil && oe.Key.Value != ne.Key.Value {
			return nil, false
		}
		if !m.walk(oe.Key, ne.Key, false, 0) || !m.walk(oe.Val, ne.Val, false, 0) {
			return nil, false
		}
	}
	// the lowered structures correspond one to one
	for i, o := range old.includes {
		n := nw.includes[i]
		if o.name != n.name || o.env != n.env || m.nodes[o.node] != n.node {
			return nil, false
		}
	}
	for i, o := range old.excludes {
		n := nw.excludes[i]
		if o.kind != n.kind || o.name != n.name || m.nodes[o.node] != n.node {
			return nil, false
		}
	}
	for i, o := range old.extends {
		n := nw.extends[i]
		if o.id != n.id || m.nodes[o.key] != n.key || !m.decls(o.decls, n.decls) {
			return nil, false
		}
	}
	for i, o := range old.ids {
		n := nw.ids[i]
		if o.id != n.id || o.short != n.short || o.bad != n.bad || (o.dupOf == nil) != (n.dupOf == nil) ||
			m.nodes[o.key] != n.key || m.nodes[o.val] != n.val || !m.decls(o.decls, n.decls) {
			return nil, false
		}
		if !m.off(o.entry.Start, n.entry.Start) || !m.off(o.entry.End, n.entry.End) {
			return nil, false
		}
		m.ids[o] = n
	}
	return m, true
}

func (m *fileMap) decls(o, n []*stDecl) bool {
	if len(o) != len(n) {
		return false
	}
	for i, od := range o {
		nd := n[i]
		if od.module != nd.module || od.fun != nd.fun || od.null != nd.null || od.notList != nd.notList || (od.argsOut == nil) != (nd.argsOut == nil) ||
			len(od.funs) != len(nd.funs) || len(od.args) != len(nd.args) ||
			m.nodes[od.modNode] != nd.modNode || m.nodes[od.funNode] != nd.funNode {
			return false
		}
		for j := range od.funs {
			if od.funs[j] != nd.funs[j] {
				return false
			}
		}
		for j, oa := range od.args {
			na := nd.args[j]
			if oa.key != na.key || oa.via != na.via || len(oa.reqs) != len(na.reqs) || m.nodes[oa.keyNode] != na.keyNode || m.nodes[oa.val] != na.val {
				return false
			}
			for k, oe := range oa.reqs {
				ne := na.reqs[k]
				if oe.mod != ne.mod || oe.target != ne.target || oe.disp != ne.disp || oe.bad != ne.bad || oe.inFrom != nil || ne.inFrom != nil ||
					m.nodes[oe.node] != ne.node || !m.off(oe.span.Start, ne.span.Start) || !m.off(oe.span.End, ne.span.End) {
					return false
				}
				m.reqs[oe] = ne
			}
		}
		m.sts[od] = nd
	}
	return true
}

// referenced reports whether some requisite, extend or listen of the
// run's files could name v (exactly, by glob, by template, or in a
// case-insensitive hint).
func referenced(files []*sfile, v string) bool {
	low := strings.ToLower(v)
	for _, f := range files {
		if f.targets.lower[low] {
			return true
		}
		for _, t := range f.targets.globs {
			if fnmatch(v, t) || strings.EqualFold(t, v) {
				return true
			}
		}
	}
	return false
}

// targetSet is what a file's requisites, extends and excludes name:
// lower-cased (hints ignore case), and the patterns.
type targetSet struct {
	lower map[string]bool
	globs []string
}

// collectTargets lists what a file's requisites and extends name (for
// referenced).
func collectTargets(f *sfile) targetSet {
	ts := targetSet{lower: map[string]bool{}}
	addT := func(t string) {
		ts.lower[strings.ToLower(t)] = true
		if hasGlob(t) || strings.Contains(t, sp.Unknown) {
			ts.globs = append(ts.globs, t)
		}
	}
	add := func(decls []*stDecl) {
		for _, d := range decls {
			for _, a := range d.args {
				for _, e := range a.reqs {
					addT(e.target)
				}
			}
		}
	}
	for _, d := range f.ids {
		add(d.decls)
	}
	for _, e := range f.extends {
		addT(e.id)
		add(e.decls)
	}
	for _, e := range f.excludes {
		addT(e.name)
	}
	return ts
}

// patcher rewrites a record of the old files into one of the new files.
type patcher struct {
	maps  map[string]*fileMap // by URI
	list  []*fileMap
	ok    bool
	reqs  map[*reqEntry]*reqEntry // run-local entries copied
	origs map[*inOrigin]*inOrigin
}

// edited returns the map of the file at uri when it changed.
func (p *patcher) edited(uri string) *fileMap {
	for _, m := range p.list {
		if m.old.file.URI == uri {
			return m
		}
	}
	return nil
}

// touches reports whether an entry belongs to, or points into, an edited
// file.
func (p *patcher) touches(e *reqEntry) bool {
	return p.edited(e.span.URI) != nil || e.f != nil && p.edited(e.f.file.URI) != nil ||
		e.inFrom != nil && p.edited(e.inFrom.span.URI) != nil
}

func (p *patcher) span(s source.Span) source.Span {
	m := p.edited(s.URI)
	if m == nil {
		return s
	}
	a, ok1 := m.offs[s.Start]
	b, ok2 := m.offs[s.End]
	if !ok1 || !ok2 {
		p.ok = false
		return s
	}
	return source.Span{URI: s.URI, Start: a, End: b}
}

func (p *patcher) node(n *sp.Node, uri string) *sp.Node {
	if n == nil {
		return nil
	}
	for _, m := range p.maps {
		if nn, ok := m.nodes[n]; ok {
			return nn
		}
	}
	return n
}

func (p *patcher) origin(o *inOrigin) *inOrigin {
	if o == nil {
		return nil
	}
	if n, ok := p.origs[o]; ok {
		return n
	}
	n := o
	if p.maps[o.span.URI] != nil {
		cp := *o
		cp.span = p.span(o.span)
		n = &cp
	}
	p.origs[o] = n
	return n
}

func (p *patcher) entry(e *reqEntry) *reqEntry {
	if e == nil {
		return nil
	}
	if !p.touches(e) {
		return e
	}
	if n, ok := p.reqs[e]; ok {
		return n
	}
	n := e
	for _, m := range p.maps {
		if ne, ok := m.reqs[e]; ok {
			n = ne
			break
		}
	}
	if n == e && (p.maps[e.span.URI] != nil || e.f != nil && p.maps[e.f.file.URI] != nil || e.inFrom != nil && p.maps[e.inFrom.span.URI] != nil) {
		// a run-local entry (made by requisite_in) over the edited file
		cp := *e
		cp.span = p.span(e.span)
		cp.node = p.node(e.node, e.span.URI)
		if e.f != nil {
			if m := p.maps[e.f.file.URI]; m != nil {
				cp.f = m.new
			}
		}
		cp.inFrom = p.origin(e.inFrom)
		n = &cp
	}
	p.reqs[e] = n
	return n
}

// patchRecord makes the record of the run over newFiles from prev, the
// record over prev.sfiles, when every changed file kept its shape and no
// changed value can matter; nil otherwise.
func patchRecord(prev *runRecord, newFiles []*sfile) *runRecord {
	if prev == nil || len(prev.sfiles) != len(newFiles) || prev.chunkNode == nil {
		return nil
	}
	p := &patcher{maps: map[string]*fileMap{}, ok: true, reqs: map[*reqEntry]*reqEntry{}, origs: map[*inOrigin]*inOrigin{}}
	for i, o := range prev.sfiles {
		n := newFiles[i]
		if o == n {
			continue
		}
		if o.file.URI != n.file.URI {
			return nil
		}
		if m := p.maps[o.file.URI]; m != nil {
			if m.old != o || m.new != n {
				return nil
			}
			continue
		}
		m, ok := mapFile(o, n)
		if !ok {
			return nil
		}
		p.maps[o.file.URI] = m
		p.list = append(p.list, m)
	}
	if len(p.maps) == 0 {
		return nil
	}
	// changed values nothing may name; names must not decide a sort tie
	renamed := map[int32]valChange{}
	nameNodes := map[*sp.Node]bool{}
	for _, k := range prev.keyList {
		if k.nameNode != nil {
			nameNodes[k.nameNode] = true
		}
	}
	for _, m := range p.maps {
		for _, c := range m.changed {
			if referenced(newFiles, c.old.Value) || referenced(newFiles, c.new.Value) || referenced(prev.sfiles, c.old.Value) {
				return nil
			}
			if c.old.Value == "" || prev.mentions(c.old.Value) {
				return nil
			}
		}
	}
	for i, k := range prev.keyList {
		if k.nameNode == nil {
			if k.state != "" || k.name != "" {
				for _, m := range p.maps {
					for _, c := range m.changed {
						if k.name == c.old.Value {
							return nil
						}
					}
				}
			}
			continue
		}
		for _, m := range p.maps {
			nn, ok := m.nodes[k.nameNode]
			if ok && nn.Value != k.nameNode.Value {
				renamed[int32(i)] = valChange{k.nameNode, nn}
			}
		}
	}
	if len(renamed) > 0 {
		// a renamed chunk's order must be its own: ties sort by name
		count := make(map[float64]int, len(prev.chunkOrder))
		for _, o := range prev.chunkOrder {
			count[o]++
		}
		for ci, ni := range prev.chunkNode {
			if _, ok := renamed[ni]; ok && count[prev.chunkOrder[ci]] > 1 {
				return nil
			}
		}
	}
	rec := &runRecord{run: prev.run, files: prev.files, sfiles: newFiles, funs: prev.funs,
		chunkNode: prev.chunkNode, chunkOrder: prev.chunkOrder, facts: prev.facts}
	rec.keyList = make([]nodeKey, len(prev.keyList))
	rec.info = make([]nodeInfo, len(prev.info))
	for i, k := range prev.keyList {
		if k.decl != nil {
			if m := p.maps[k.decl.f.file.URI]; m != nil {
				nd, ok := m.ids[k.decl]
				if !ok {
					return nil
				}
				k.decl = nd
			}
		}
		if k.st != nil {
			for _, m := range p.maps {
				if ns, ok := m.sts[k.st]; ok {
					k.st = ns
					break
				}
			}
		}
		k.nameNode = p.node(k.nameNode, "")
		rec.keyList[i] = k
		info := prev.info[i]
		info.decl = p.span(info.decl)
		info.full = p.span(info.full)
		if c, ok := renamed[int32(i)]; ok {
			if !strings.HasSuffix(info.ref, " "+c.old.Value) {
				return nil
			}
			info.ref = info.ref[:len(info.ref)-len(c.old.Value)] + c.new.Value
		}
		rec.info[i] = info
	}
	// a step label ends with the chunk's name too
	if len(renamed) > 0 {
		rec.run.Steps = make([]analysis.Step, len(prev.run.Steps))
		for i, st := range prev.run.Steps {
			if c, ok := renamed[int32(st.Node.Index)]; ok {
				if !strings.HasSuffix(st.Label, " "+c.old.Value) {
					return nil
				}
				st.Label = st.Label[:len(st.Label)-len(c.old.Value)] + c.new.Value
			}
			rec.run.Steps[i] = st
		}
	}
	rec.edges = make([]edgeRec, len(prev.edges))
	for i, e := range prev.edges {
		e.e = p.entry(e.e)
		rec.edges[i] = e
	}
	rec.agg = make([]aggLink, len(prev.agg))
	for i, l := range prev.agg {
		l.at = p.span(l.at)
		rec.agg[i] = l
	}
	rec.diags = make([]analysis.Diagnostic, len(prev.diags))
	for i, d := range prev.diags {
		rec.diags[i] = p.diag(d)
	}
	rec.ctx = make([]ctxRec, len(prev.ctx))
	for i, c := range prev.ctx {
		c.d = p.diag(c.d)
		rec.ctx[i] = c
	}
	rec.inFacts = make([]inFact, len(prev.inFacts))
	for i, f := range prev.inFacts {
		f.o = p.origin(f.o)
		rec.inFacts[i] = f
	}
	if !p.ok {
		return nil
	}
	return rec
}

func (p *patcher) diag(d analysis.Diagnostic) analysis.Diagnostic {
	d.At = p.span(d.At)
	if len(d.Related) > 0 {
		rel := make([]analysis.Related, len(d.Related))
		for i, r := range d.Related {
			r.At = p.span(r.At)
			rel[i] = r
		}
		d.Related = rel
	}
	return d
}

// mentions reports whether a message, reason or fact of the record quotes
// s (then a changed value could change the words).
func (r *runRecord) mentions(s string) bool {
	has := func(d analysis.Diagnostic) bool {
		if strings.Contains(d.Message, s) {
			return true
		}
		for _, x := range d.Related {
			if strings.Contains(x.Message, s) {
				return true
			}
		}
		return false
	}
	for _, d := range r.diags {
		if has(d) {
			return true
		}
	}
	for _, c := range r.ctx {
		if has(c.d) {
			return true
		}
	}
	for _, e := range r.edges {
		if strings.Contains(e.reason, s) {
			return true
		}
	}
	for _, f := range r.facts {
		if strings.Contains(f.value, s) {
			return true
		}
	}
	for _, st := range r.run.Steps {
		if strings.Contains(st.Note, s) {
			return true
		}
	}
	return false
}
