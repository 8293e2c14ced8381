package puppet

import (
	"reflect"
	"strconv"
	"strings"

	"github.com/ordering-lsp/ordering-lsp/analysis"
	pp "github.com/ordering-lsp/ordering-lsp/parser/puppet"
	"github.com/ordering-lsp/ordering-lsp/source"
)

// A resource added to a class after a comment was typed elsewhere in the
// file: the comment was followed without an analysis (the server moves
// the last result through an edit that changes places only), so the runs'
// snapshots read the text before both edits, and the two edits are not
// one stretch of text a plan can read (patchplan.go). In VS Code on
// operations-puppet, a character typed into a comment of profile::base,
// then a resource pasted thirty lines below, rebuilt all 300 runs that
// read the class (13 CPU-s) where the paste alone is patched (2 CPU-s).
//
// The plan reads instead from the version between: the new text with the
// statement's edit undone (midVersion). When the old text becomes that
// one by a move alone (the same trees at moved places, as a followed
// edit), the runs are moved to it (moveSnap), then patched from there.

// midVersion is the text of fi with the one statement of one class body
// that an edit added, took out or replaced given back its old text, the
// move from old's text to it and the bodies' ends it moves (movesOnly);
// false when there is no such statement, or old's tree does not become
// its tree by a move of places alone (but for an attribute no rule
// reads: the server follows both without an analysis).
func (a *analyzer) midVersion(old treeText, fi *fileInfo) (treeText, analysis.Shift, map[source.Span]source.Span, bool) {
	t0, t1 := old.ast, fi.ast
	if len(t0.Errors) > 0 || len(t1.Errors) > 0 || len(t0.Stmts) != len(t1.Stmts) {
		return treeText{}, analysis.Shift{}, nil, false
	}
	var b0, b1 *pp.ClassDef
	for i := range t0.Stmts {
		c0, ok0 := t0.Stmts[i].(*pp.ClassDef)
		c1, ok1 := t1.Stmts[i].(*pp.ClassDef)
		if !ok0 || !ok1 {
			continue
		}
		n0, n1 := len(c0.Body), len(c1.Body)
		if n0 == n1+1 || n1 == n0+1 || n1 == n0+2 || n0 == n1 && firstDiff(c0.Body, c1.Body) < n0 {
			if b0 != nil {
				return treeText{}, analysis.Shift{}, nil, false
			}
			b0, b1 = c0, c1
		}
	}
	if b0 == nil {
		return treeText{}, analysis.Shift{}, nil, false
	}
	short, long := b0.Body, b1.Body
	if len(short) > len(long) {
		short, long = long, short
	}
	// The statement edited is the first that differs or, when an
	// attribute typed before it was followed too, the last (counted from
	// the end).
	k := firstDiff(short, long)
	t := 0
	for t < len(short) && sameTrees(reflect.ValueOf(short[len(short)-1-t]), reflect.ValueOf(long[len(long)-1-t])) {
		t++
	}
	tried := false
	for _, k := range []int{k, len(long) - 1 - t} {
		if k < 1 || k >= len(long) || tried && k == firstDiff(short, long) {
			continue
		}
		tried = true
		if len(b1.Body) == len(b0.Body)+2 { // (and an assignment followed before: followassign.go)
			if mid, m, ends, ok := a.midWithout(old, fi, b1, k); ok {
				return mid, m, ends, true
			}
			continue
		}
		if mid, m, ends, ok := a.midAt(old, fi, b0, b1, k); ok {
			return mid, m, ends, true
		}
	}
	return treeText{}, analysis.Shift{}, nil, false
}

// midAt is midVersion with statement k of the class body (b0 in old, b1
// in fi) given back its old text.
func (a *analyzer) midAt(old treeText, fi *fileInfo, b0, b1 *pp.ClassDef, k int) (treeText, analysis.Shift, map[source.Span]source.Span, bool) {
	// [a0, e0) of the old text is [a1, e1) of the new: from the end of the
	// statement before to the start of the first one after (or to the
	// class's closing brace)
	next := func(b *pp.ClassDef, i int) int {
		if i < len(b.Body) {
			return b.Body[i].Span().Pos
		}
		return b.Loc.End - 1
	}
	a0, a1 := b0.Body[k-1].Span().End, b1.Body[k-1].Span().End
	var e0, e1 int
	switch {
	case len(b1.Body) == len(b0.Body)+1:
		e0, e1 = next(b0, k), next(b1, k+1)
	case len(b0.Body) == len(b1.Body)+1:
		e0, e1 = next(b0, k+1), next(b1, k)
	default:
		e0, e1 = next(b0, k+1), next(b1, k+1)
	}
	ot, nt := old.text, fi.src.Text
	if a0 > e0 || e0 > len(ot) || a1 > e1 || e1 > len(nt) {
		return treeText{}, analysis.Shift{}, nil, false
	}
	mid := make([]byte, 0, a1+(e0-a0)+len(nt)-e1)
	mid = append(append(append(mid, nt[:a1]...), ot[a0:e0]...), nt[e1:]...)
	return a.midFrom(old, mid)
}

// midWithout is midVersion with statement k of the class body (b1 in
// fi), one the old text does not have, taken out with the text between
// it and the statement before: where the body gained two statements, one
// of them an assignment the server followed (followassign.go), the other
// the statement a plan puts in.
func (a *analyzer) midWithout(old treeText, fi *fileInfo, b1 *pp.ClassDef, k int) (treeText, analysis.Shift, map[source.Span]source.Span, bool) {
	nt := fi.src.Text
	a1, e1 := b1.Body[k-1].Span().End, b1.Body[k].Span().End
	if a1 > e1 || e1 > len(nt) {
		return treeText{}, analysis.Shift{}, nil, false
	}
	mid := make([]byte, 0, len(nt)-(e1-a1))
	return a.midFrom(old, append(append(mid, nt[:a1]...), nt[e1:]...))
}

// midFrom is the version between of the text mid: old's text becomes it
// by a move alone (movesOnly), with the bodies' ends the move gives.
func (a *analyzer) midFrom(old treeText, mid []byte) (treeText, analysis.Shift, map[source.Span]source.Span, bool) {
	ot := old.text
	m := analysis.NewShift(old.uri, ot, mid)
	if m.Pre == len(ot) && m.Pre == len(mid) {
		return treeText{}, analysis.Shift{}, nil, false // (nothing else changed: the plan failed for another reason)
	}
	mt := pp.Parse(mid)
	if len(mt.Errors) > 0 {
		return treeText{}, analysis.Shift{}, nil, false
	}
	m, ends, ok := a.movesOnlyAt(old.ast, mt, m, ot, mid)
	if !ok {
		a.noPlan(19)
		return treeText{}, analysis.Shift{}, nil, false
	}
	return treeText{uri: old.uri, ast: mt, text: mid}, m, ends, true
}

// movesOnly: the tree t1 (text nt) is t0 (text ot) with its places moved
// through m, but for one attribute added or taken, or one literal value
// typed over, that no rule reads (followattr.go's and inert.go's
// judgements, as a result follows them without an analysis); ends: the
// new spans of the resource bodies whose end moved past the edit.
func (a *analyzer) movesOnly(t0, t1 *pp.File, m analysis.Shift, ot, nt []byte) (map[source.Span]source.Span, bool) {
	w := &treePair{m: m, attr: true, vals: true, assign: true}
	if !w.same(reflect.ValueOf(t0.Stmts), reflect.ValueOf(t1.Stmts)) {
		return nil, false
	}
	if w.changed() && !a.attrJudge().assignFollows(w, m.URI, ot, nt) {
		return nil, false
	}
	if w.valOld != nil && (w.extra != nil || !a.attrJudge().valueFollows(w, ot, nt)) {
		return nil, false
	}
	if w.extra != nil {
		text := ot
		if w.added {
			text = nt
		}
		if !a.attrJudge().attrFollows(w, text) {
			return nil, false
		}
	}
	return w.ends, true
}

// movesOnlyAt is movesOnly through m, or through m slid to the start of
// its line (lineStart), with the one it took.
func (a *analyzer) movesOnlyAt(t0, t1 *pp.File, m analysis.Shift, ot, nt []byte) (analysis.Shift, map[source.Span]source.Span, bool) {
	if ends, ok := a.movesOnly(t0, t1, m, ot, nt); ok {
		return m, ends, true
	}
	if l := lineStart(m, ot, nt); l != m {
		if ends, ok := a.movesOnly(t0, t1, l, ot, nt); ok {
			return l, ends, true
		}
	}
	return m, nil, false
}

// lineStart slides an edit that only puts text in (or only takes text
// out) to the left while the character before it is the last of that
// text, up to the start of its line: the same edit of the same texts.
// NewShift takes the longest common prefix, so `  $b = 1\n` put before
// `  $a = 2` reads as `b = 1\n  $` put after the `$` of `$a`, inside a
// statement that must be found unmoved (followassign.go).
func lineStart(m analysis.Shift, ot, nt []byte) analysis.Shift {
	switch {
	case m.Pre == m.OldEnd && m.CurEnd > m.Pre: // nt[Pre:CurEnd] put in
		for m.Pre > 0 && ot[m.Pre-1] != '\n' && ot[m.Pre-1] == nt[m.CurEnd-1] {
			m.Pre, m.OldEnd, m.CurEnd = m.Pre-1, m.OldEnd-1, m.CurEnd-1
		}
	case m.Pre == m.CurEnd && m.OldEnd > m.Pre: // ot[Pre:OldEnd] taken out
		for m.Pre > 0 && nt[m.Pre-1] != '\n' && nt[m.Pre-1] == ot[m.OldEnd-1] {
			m.Pre, m.OldEnd, m.CurEnd = m.Pre-1, m.OldEnd-1, m.CurEnd-1
		}
	}
	return m
}

// valueFollows: the attribute whose value an edit changed (treePair.vals)
// is one no rule reads, of a resource whose values the cutoff may skip,
// its value a literal before and after (ot, nt: the texts).
func (j *followJudge) valueFollows(w *treePair, ot, nt []byte) bool {
	r := w.valRes
	if r == nil || r.TypeExpr != nil || !inertType(strings.ToLower(r.Type)) || !j.mayTake(w.valOld) || !j.mayTake(w.valNew) {
		return false
	}
	return w.valOld.Op == "=>" && literalValue(w.valOld.Value, ot, true) && literalValue(w.valNew.Value, nt, true)
}

// attrJudge is what decides whether an attribute is read, for this
// analysis's plans: the attribute names the workspace's collectors query
// (follow.go). Under planMu (planFor holds it).
func (a *analyzer) attrJudge() *followJudge {
	m := a.main
	if m.attrJ != nil {
		return m.attrJ
	}
	// (a patched analysis makes its Hiera links again: no parameter's data
	// to search, dataFiles)
	j := &followJudge{sys: a.sys, queried: map[string]bool{}, manifests: manifestsOf(a.order), dataFiles: []string{}}
	a.sys.mu.Lock()
	for _, fi := range a.order {
		if fi.ast == nil {
			j.anyAttr = true // (let go: not known)
			continue
		}
		q, ok := a.sys.queries[fi.ast]
		if !ok {
			q = queriesOf(fi.ast)
		}
		for _, n := range q.names {
			j.queried[n] = true
		}
		j.anyAttr = j.anyAttr || q.any
	}
	a.sys.mu.Unlock()
	m.attrJ = j
	return j
}

// movePlan is the plan for runs whose file changed by moves only, or by
// one attribute no rule reads besides (movesOnly): an edit the server
// follows without an analysis (a comment, an attribute line), which the
// next analysis finds between the runs' text and the new one. Each run
// is moved (movedOnly).
func (a *analyzer) movePlan(old treeText, fi *fileInfo, oldID, newID string) *patchPlan {
	t0, t1 := old.ast, fi.ast
	if len(t0.Errors) > 0 || len(t1.Errors) > 0 || len(t0.Stmts) != len(t1.Stmts) {
		return nil
	}
	m, ends, ok := a.movesOnlyAt(t0, t1, analysis.NewShift(old.uri, old.text, fi.src.Text), old.text, fi.src.Text)
	if !ok {
		return a.noPlan(22)
	}
	return &patchPlan{uri: old.uri, oldID: oldID, newID: newID, pre: m.Pre, oldEnd: m.OldEnd, newEnd: m.CurEnd, moveOnly: true, ends: ends}
}

// movedOnly is s moved through the plan's edit (movePlan).
func (a *analyzer) movedOnly(s *runSnap, p *patchPlan, deps map[depKey]string) *runSnap {
	ns := a.moveSnap(s, p.shift(), p.ends)
	if ns == nil {
		return nil
	}
	ns.deps = deps
	return ns
}

// moveSnap is s with its places moved through m, an edit of its file that
// moves places only (midVersion): nodes, facts, edges, diagnostics,
// missing targets, links, the chains of collectors and the steps; nil
// when a place lies in the edit. ends gives the new full spans of bodies
// whose end moved past the edit (treePair).
func (a *analyzer) moveSnap(s *runSnap, m analysis.Shift, ends map[source.Span]source.Span) *runSnap {
	p := &patchPlan{uri: m.URI, ends: ends}
	line := func(uri string, off int) int { return a.line(source.Span{URI: uri, Start: off}) }
	moved, ok := a.movedNodes(s, p, m, line, nil, nil)
	if !ok {
		return nil
	}
	ns := *s
	ns.ids = nil
	if ns.cols, ok = movedCols(s.cols, m); !ok {
		return a.refuse(64)
	}
	// The definitions links and edges point at that the edit moved (a
	// comment above the class): moved copies, which the merge takes for
	// this analysis's definition nodes (defKeyOf: by their place).
	for i, d := range s.defs {
		if d.Decl.URI != m.URI && d.Full.URI != m.URI {
			continue
		}
		c := *d
		if c.Decl, ok = m.Span(d.Decl); !ok {
			return a.refuse(63)
		}
		if c.Full, ok = m.Span(d.Full); !ok {
			return a.refuse(63)
		}
		if c.Facts, ok = analysis.ShiftFacts(d.Facts, m, line); !ok {
			return a.refuse(63)
		}
		if c.Decl == d.Decl && c.Full == d.Full && len(c.Facts) == len(d.Facts) && (len(d.Facts) == 0 || &c.Facts[0] == &d.Facts[0]) {
			continue
		}
		if ns.defs == nil || &ns.defs[0] == &s.defs[0] {
			ns.defs = append([]*analysis.Node(nil), s.defs...)
		}
		ns.defs[i] = &c
		moved[d] = &c
	}
	for _, sn := range s.nodes { // (a node under a moved definition)
		if n := sn.n; n.Parent != nil && moved[n.Parent] != nil {
			c := moved[n]
			if c == nil {
				cp := *n
				c = &cp
				moved[n] = c
			}
			c.Parent = moved[n.Parent]
		}
	}
	ns.nodes = make([]snapNode, len(s.nodes))
	for i, sn := range s.nodes {
		ns.nodes[i] = snapNode{moved.of(sn.n), sn.kind}
	}
	ns.facts = make([]nodeFacts, len(s.facts))
	for i, f := range s.facts {
		fs, ok := analysis.ShiftFacts(f.facts, m, line)
		if !ok {
			return a.refuse(60)
		}
		ns.facts[i] = nodeFacts{f.i, fs}
	}
	ns.edges = make([]*analysis.Edge, len(s.edges))
	for i, e := range s.edges {
		if ns.edges[i], ok = moved.edge(e, m); !ok {
			return a.refuse(61)
		}
	}
	sd := *s
	sd.defs = nil // (they moved above)
	if !a.movedResult(&sd, &ns, p, m, line, moved) {
		return nil
	}
	if o := s.order; o != nil && len(o.endFacts) > 0 { // (words that may name lines)
		no := *o
		no.endFacts = make([][]analysis.Fact, len(o.endFacts))
		for i, fs := range o.endFacts {
			if no.endFacts[i], ok = analysis.ShiftFacts(fs, m, line); !ok {
				return a.refuse(62)
			}
		}
		ns.order = &no
	}
	// (the order as it was: a patch after it orders the run again)
	ns.run.Steps = make([]analysis.Step, len(s.run.Steps))
	for i, st := range s.run.Steps {
		st.Node = moved.of(st.Node)
		ns.run.Steps[i] = st
	}
	return &ns
}

// movesPlace: whether the edits of p move the class definition's place
// then (classPlace: "uri:start-end Ref") to now, the same class.
func (p *patchPlan) movesPlace(then, now string) bool {
	span := func(s string) (source.Span, string, bool) {
		at, ref, ok := strings.Cut(s, " ")
		i := strings.LastIndexByte(at, ':')
		if !ok || i < 0 {
			return source.Span{}, "", false
		}
		a, b, ok := strings.Cut(at[i+1:], "-")
		start, err1 := strconv.Atoi(a)
		end, err2 := strconv.Atoi(b)
		return source.Span{URI: at[:i], Start: start, End: end}, ref, ok && err1 == nil && err2 == nil
	}
	sp, ref0, ok0 := span(then)
	want, ref1, ok1 := span(now)
	if !ok0 || !ok1 || ref0 != ref1 || sp.URI != p.uri {
		return false
	}
	var ok bool
	if p.before != nil {
		if sp, ok = p.before.Span(sp); !ok {
			return false
		}
	}
	for q := p; q != nil; q = q.then {
		if sp, ok = q.shift().Span(sp); !ok {
			return false
		}
	}
	return sp == want
}
