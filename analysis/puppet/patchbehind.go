package puppet

import (
	pp "github.com/ordering-lsp/ordering-lsp/parser/puppet"
	"github.com/ordering-lsp/ordering-lsp/source"
)

// A resource put in after includes (issue 25).
//
// A class's body is often includes, then resources: `include
// profile::apt` and a resource typed below it. A patch places a new
// resource after the declaration before it, or before the one after it;
// after an include it could do neither, and built the class's runs
// again (operations-puppet's profile::base is includes between a few
// resources). Where a node made after a statement goes is the place of
// the first node made once the statement is done: after a plain
// declaration, the place after its node; after an include that declared
// its class, where the class's body ended (snapOrder.ends: the place of
// the first node made after it, and the keys declared by then); after an
// include of a class declared before it, or nowhere, where the
// statement before it ended. A class is declared by the include when its
// begin anchor is made at or after that place (places are the order
// nodes are made in). So the includes are read from the declaration
// before them (or the body's start) on. Anything else before them (a
// resource-like class, a define, a function called) refuses.

// placeBehind fills p.behind with the includes before the resource in
// its body (in the order written), after a plain declaration (p.prev*)
// or the body's start; false when a statement before them is neither.
func (a *analyzer) placeBehind(p *patchPlan, before []pp.Node) bool {
	var rev []string // (the classes' anchors' Ref)
	p.prevKey, p.prevDisplay, p.prevDecl, p.next = "", "", source.Span{}, false
	k := len(before) - 1
	for ; k >= 0; k-- {
		_, name, _, ok := classCall(before[k])
		if !ok {
			break
		}
		rev = append(rev, refString("Class", classDisplay(name)))
	}
	if len(rev) == 0 {
		a.noPlan(15)
		return false
	}
	if k >= 0 {
		r, isRes := before[k].(*pp.Resource)
		if !isRes {
			a.noPlan(15)
			return false
		}
		if typ, _, _, ok := lastDecl(r); !ok || typ == "concat_file" || typ == "stage" || !a.placeAfter(p, r, nil, false) {
			a.noPlan(15)
			return false
		}
	}
	p.behind = make([]string, len(rev))
	for i, b := range rev {
		p.behind[len(rev)-1-i] = b
	}
	return true
}

// placeBehind is where the resource goes in the run s (patchSnap's
// begin: the class's begin anchor, prev: the declaration before the
// includes, -1: none): its place and the keys declared before it, from
// the class the last include that declared one declared (ok); -1, -1
// when none did (the declaration before them decides).
func (p *patchPlan) placeBehind(s *runSnap, begin, prev int) (ins, declAt int, ok bool) {
	o := s.order
	cur := begin + 1
	if prev >= 0 {
		cur = prev + 1
	}
	ins, declAt = -1, -1
	for _, b := range p.behind {
		at := -1
		for i, sn := range s.nodes {
			if sn.kind == 'A' && sn.n.Ref == b {
				if at >= 0 {
					return 0, 0, false
				}
				at = i
			}
		}
		if at < cur {
			continue // (declared before it, or nowhere: it made nothing)
		}
		k := 0
		for ; k+2 < len(o.ends) && int(o.ends[k]) != at; k += 3 {
		}
		if k+2 >= len(o.ends) {
			return 0, 0, false // (an empty class keeps no entry)
		}
		cur = int(o.ends[k+1])
		ins, declAt = cur, int(o.ends[k+2])
	}
	return ins, declAt, true
}
