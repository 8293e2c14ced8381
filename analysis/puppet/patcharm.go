package puppet

import (
	"reflect"
	"slices"

	"github.com/ordering-lsp/ordering-lsp/analysis"
	pp "github.com/ordering-lsp/ordering-lsp/parser/puppet"
)

// A resource put into, or taken out of, an arm of a conditional of a
// class's body (issue 25): `if $manage { package { 'x': } }`.
//
// A class body's statements are mostly under conditionals, and each such
// edit built every run of the class again (300 for profile::base of
// operations-puppet: 5.7 s, 11 CPU-s). A run that evaluated the class
// took the arm or did not. Taken, the resource is a child of the class
// like one written in its body (a conditional contains nothing), after
// the declaration before it in the arm (or before the one after it), and
// the patch is patchSnap's (unpatchSnap's for one taken out). Not taken,
// the edit moves places only (movedOnly). Which it was is read from the
// run: the arm's declaration the new resource is placed by (the one
// taken out, for a removal) is in the run's nodes, or it is not: only
// evaluating it makes a node declared there, and only an error or the
// same key declared elsewhere keeps it from making one (two arms nobody
// decides that declare one resource make one node, the first's): such
// runs are built again. Under a conditional nobody decides
// (speculation), the new node takes the branches and the condition of
// the declaration beside it.

// armEdit is where the edited statement list is: the conditionals from
// the class's body down, each by its place in its list and its arm.
type armEdit struct {
	path []armStep
	k    int // the statement's place in the arm (the longer list)
}

type armStep struct {
	at  int
	els bool // an if's else arm (an elsif is an else holding one If)
	opt int  // a case's option (-1: an if)
}

// arm is the statements of the arm st of the conditional n (an if's
// then or else, a case's option), and a copy of n without them.
func arm(n pp.Node, st armStep) ([]pp.Node, pp.Node, bool) {
	switch c := n.(type) {
	case *pp.If:
		if st.opt >= 0 {
			return nil, nil, false
		}
		cp := *c
		if st.els {
			cp.Else = nil
			return c.Else, &cp, true
		}
		cp.Then = nil
		return c.Then, &cp, true
	case *pp.Case:
		if st.opt < 0 || st.opt >= len(c.Options) {
			return nil, nil, false
		}
		cp := *c
		cp.Options = slices.Clone(c.Options)
		cp.Options[st.opt].Body = nil
		return c.Options[st.opt].Body, &cp, true
	}
	return nil, nil, false
}

// editedArm is the arm of the conditional n0 (n1 now) whose statements
// the edit changed: the first that differs (those before an edit are
// the same, places too).
func editedArm(n0, n1 pp.Node) (armStep, bool) {
	switch c0 := n0.(type) {
	case *pp.If:
		c1, ok := n1.(*pp.If)
		if !ok {
			return armStep{}, false
		}
		return armStep{opt: -1, els: sameTrees(reflect.ValueOf(c0.Then), reflect.ValueOf(c1.Then))}, true
	case *pp.Case:
		c1, ok := n1.(*pp.Case)
		if !ok || len(c0.Options) != len(c1.Options) {
			return armStep{}, false
		}
		for k := range c0.Options {
			if !sameTrees(reflect.ValueOf(c0.Options[k].Body), reflect.ValueOf(c1.Options[k].Body)) {
				return armStep{opt: k}, true
			}
		}
	}
	return armStep{}, false
}

// armPlan: the statement at place j of the class b0's body (b1's now) is
// a conditional, and one arm of it, or of conditionals within it, gained
// or lost one plain resource. Nil when it cannot be patched.
func (a *analyzer) armPlan(p *patchPlan, t0, t1 *pp.File, b0, b1 *pp.ClassDef, j int, ot, nt []byte) *patchPlan {
	e := &armEdit{}
	l0, l1 := b0.Body, b1.Body
	at := j
	for len(l0) == len(l1) {
		st, ok := editedArm(l0[at], l1[at])
		if !ok {
			if len(e.path) == 0 {
				return a.noPlan(23)
			}
			return a.armReplaced(p, t0, t1, b0, b1, j, e, l0, l1, at, ot, nt)
		}
		st.at = at
		l0, _, _ = arm(l0[at], st)
		l1, _, _ = arm(l1[at], st)
		e.path = append(e.path, st)
		if len(l0) == len(l1) {
			if at = firstDiff(l0, l1); at == len(l0) {
				return a.noPlan(23)
			}
		}
	}
	p.arm = e
	var r *pp.Resource
	if p.removed = len(l0) > len(l1); p.removed {
		close0, close1 := -1, -1 // (up to the arm's closing brace: known when the last one was not taken out)
		if k := firstDiff(l1, l0); k == len(l1) && k > 0 {
			close0, close1 = closingBrace(ot, l0[k].Span().End), closingBrace(nt, l1[k-1].Span().End)
		}
		r = a.removedPlan(p, l0, l1, close0, close1, ot, nt)
	} else {
		close0, close1 := -1, -1
		if len(l0) > 0 {
			close0, close1 = closingBrace(ot, l0[len(l0)-1].Span().End), closingBrace(nt, l1[len(l1)-1].Span().End)
		}
		r = a.addedPlan(p, l0, l1, close0, close1, ot, nt)
	}
	if r == nil {
		return nil
	}
	e.k, p.at = p.at, j
	if p.pre < 0 || p.oldEnd < p.pre || p.newEnd < p.pre {
		return a.noPlan(8)
	}
	if !a.sameRest(p, t0, t1, b0, b1, func(i int) int { return i }) {
		return nil
	}
	return a.judged(p, r, ot, nt, b1)
}

// openingBrace is the place of the `{` before to in text when only
// blanks lie between (-1: something else does).
func openingBrace(text []byte, to int) int { return braceBeside(text, to-1, -1, '{') }

// closingBrace is the place of the `}` after from in text when only
// blanks lie between (-1: something else does).
func closingBrace(text []byte, from int) int { return braceBeside(text, from, 1, '}') }

// braceBeside walks text from i by step over blanks to the brace b.
func braceBeside(text []byte, i, step int, b byte) int {
	for ; i >= 0 && i < len(text); i += step {
		switch text[i] {
		case ' ', '\t', '\r', '\n':
		case b:
			return i
		default:
			return -1
		}
	}
	return -1
}

// armReplaced: the statement k of the arm l0 (l1 now) is a resource
// replaced by another (a title or a value typed over): replacedPlan's
// plan, in the arm. The run that took the arm has the old one taken out
// and the new one put in; one that did not is moved.
func (a *analyzer) armReplaced(p *patchPlan, t0, t1 *pp.File, b0, b1 *pp.ClassDef, j int, e *armEdit, l0, l1 []pp.Node, k int, ot, nt []byte) *patchPlan {
	r0, ok0 := l0[k].(*pp.Resource)
	r1, ok1 := l1[k].(*pp.Resource)
	if !ok0 || !ok1 {
		return a.noPlan(23)
	}
	if !replacedRegion(p, r0, r1, ot, nt) {
		return a.noPlan(8)
	}
	var prev pp.Node
	if k > 0 {
		prev = l1[k-1]
	}
	e.k = k
	in := &patchPlan{uri: p.uri, oldID: p.oldID, newID: p.newID, at: j, arm: e}
	p.removed, p.at, p.then, p.arm = true, j, in, e
	if !a.sameRest(p, t0, t1, b0, b1, func(i int) int { return i }) || !a.judge(p, r0, ot, b1) || !a.judge(in, r1, nt, b1) ||
		!a.placeAfter(in, prev, nextOf(l1, k), false) {
		return nil
	}
	return p
}

// sameArm: the conditionals n0, n1 (the class body's statement the edit
// is in) the same at the places the edit moves them to, but for the
// statement put in or taken out at the end of e's path.
func (p *patchPlan) sameArm(e *armEdit, n0, n1 pp.Node) bool {
	x0, x1 := n0, n1
	for d, st := range e.path {
		// the conditional without its edited arm, then the arm
		l0, c0, ok0 := arm(x0, st)
		l1, c1, ok1 := arm(x1, st)
		if !ok0 || !ok1 || !p.sameMoved(c0, c1) {
			return false
		}
		if d+1 < len(e.path) { // (the conditional further down: at next)
			next := e.path[d+1].at
			if len(l0) != len(l1) {
				return false
			}
			for k := range l0 {
				if k != next && !p.sameMoved(l0[k], l1[k]) {
					return false
				}
			}
			x0, x1 = l0[next], l1[next]
			continue
		}
		// the edited arm: all but the statement e.k
		if p.then != nil { // (replaced)
			if len(l0) != len(l1) {
				return false
			}
			for k := range l0 {
				if k != e.k && !p.sameMoved(l0[k], l1[k]) {
					return false
				}
			}
			continue
		}
		short, long := l0, l1
		if p.removed {
			short, long = l1, l0
		}
		if len(long) != len(short)+1 || e.k >= len(long) {
			return false
		}
		rest := slices.Delete(slices.Clone(long), e.k, e.k+1)
		for k := range short {
			y0, y1 := short[k], rest[k]
			if p.removed {
				y0, y1 = rest[k], short[k]
			}
			if !p.sameMoved(y0, y1) {
				return false
			}
		}
	}
	return true
}

// armSnap patches a run for a plan in an arm: as patchSnap (or
// unpatchSnap) when the run took the arm, by moving places when it did
// not (see above).
func (a *analyzer) armSnap(s *runSnap, p *patchPlan, deps map[depKey]string) *runSnap {
	ref, key := p.prevDecl, p.prevKey // (the arm's declaration the new one goes by)
	if p.removed {
		ref, key = p.decl, p.key // (the one taken out, in the old text)
	}
	taken, class := false, false
	for _, sn := range s.nodes {
		switch {
		case sn.n.Decl == ref:
			taken = true
		case sn.kind == 'A' && sn.n.Ref == p.classDisplay:
			class = true
		}
	}
	switch {
	case taken && p.removed:
		return a.unpatchSnap(s, p, deps)
	case taken:
		return a.patchSnap(s, p, deps)
	case !class:
		return a.refuse(80) // (the class is not evaluated here: nothing to tell the arm by)
	case slices.Contains(s.declared, key):
		// The run declares its key elsewhere: in another arm nobody
		// decides, the two declarations are one resource, whose node is
		// the first's (condSets' alternatives), and this one makes none.
		return a.refuse(84)
	}
	if s.run.Refused {
		return a.refuse(81) // (an error may have kept the arm's node from being made)
	}
	for _, d := range s.diags {
		if d.Severity == analysis.Error {
			return a.refuse(81)
		}
	}
	return a.movedOnly(s, p, deps)
}

// armConds: the node at place i of a run has the branches of the class
// whose begin anchor is at place begin (a conditional decided in the run
// adds none; one nobody decides adds its own).
func (o *snapOrder) armConds(i, begin int) bool {
	for k := 0; k+2 < len(o.ends); k += 3 {
		if int(o.ends[k]) == begin {
			return slices.Equal(o.condsOf(i), o.endCondsOf(k/3))
		}
	}
	return false
}

// condSet is the place in o.condSets of the branches of the node at
// place i (-1: none).
func (o *snapOrder) condSet(i int) int32 {
	k, ok := slices.BinarySearchFunc(o.conds, int32(i), func(c nodeConds, i int32) int { return int(c.i - i) })
	if !ok {
		return -1
	}
	return o.conds[k].set
}

// armFacts: the facts a resource declared beside the node at place i of
// s has from where it is declared: the node's condition (buildRun's
// condFact, first of its facts), without what it has for itself.
func armFacts(s *runSnap, i int) ([]analysis.Fact, bool) {
	k, ok := slices.BinarySearchFunc(s.facts, int32(i), func(f nodeFacts, i int32) int { return int(f.i - i) })
	if !ok || len(s.facts[k].facts) == 0 || s.facts[k].facts[0].Label != "condition" {
		return nil, false
	}
	return s.facts[k].facts[:1:1], true
}
