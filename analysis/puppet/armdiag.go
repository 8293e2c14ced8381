package puppet

import (
	"github.com/ordering-lsp/ordering-lsp/analysis"
)

// One problem in every arm of a conditional. A warning says "only when"
// a branch we cannot decide is taken; the same problem in each arm of an
// if with an else (or a case with a default) is met whichever arm the
// node takes: Puppet fails on every node that reaches the conditional
// (`if $facts[...] { file { '/a': ensur => present } } else { file {
// '/a': ensur => absent } }`: "no parameter named 'ensur'" at whichever
// arm, puppet-order). Such warnings are one problem of the conditional's
// place: an error when that is reached on every node, else they stay.

// armDiag is a warning made under an undecided branch, and what it says
// without the branch (msg).
type armDiag struct {
	i    int // its index in r.diags
	code string
	msg  string
	cond *cond
}

// noteArm records the last diagnostic as made under e's innermost
// undecided branch; msg is its words without the branch's. The body is
// not shared between runs (a replay would not note it).
func (r *run) noteArm(e *env, msg string) {
	if e.cond == nil || len(e.cond.local()) == 0 {
		return
	}
	r.recFail()
	d := r.diags[len(r.diags)-1]
	r.armDiags = append(r.armDiags, armDiag{i: len(r.diags) - 1, code: d.Code, msg: msg, cond: e.cond})
}

// innermost is the condition node of c's innermost branch.
func innermost(c *cond) *cond {
	for x := c; x != nil; x = x.parent {
		if x.br != nil {
			return x
		}
	}
	return nil
}

// mergeArms turns the warnings one problem gives in every arm of an
// exhaustive conditional reached on every node into one error, at the
// first arm's place, the others related. (Nested conditionals are left
// as they are: the inner one is not reached on every node.)
func (r *run) mergeArms() {
	if len(r.armDiags) == 0 {
		return
	}
	type key struct {
		code, msg string
		point     int32
		outer     *cond
	}
	groups := map[key][]armDiag{}
	var order []key
	for _, d := range r.armDiags {
		in := innermost(d.cond)
		if in == nil || d.i >= len(r.diags) {
			continue
		}
		k := key{d.code, d.msg, in.br.point, in.parent}
		if _, ok := groups[k]; !ok {
			order = append(order, k)
		}
		groups[k] = append(groups[k], d)
	}
	drop := map[int]bool{}
	for _, k := range order {
		g := groups[k]
		n := int(innermost(g[0].cond).br.every)
		if n == 0 {
			continue
		}
		seen := map[int32]bool{}
		for _, d := range g {
			seen[innermost(d.cond).br.arm] = true
		}
		if len(seen) < n {
			continue
		}
		first := &r.diags[g[0].i]
		first.Severity = analysis.Error
		first.Message = k.msg
		for _, d := range g[1:] {
			if o := r.diags[d.i]; o.At != first.At {
				first.Related = append(first.Related, analysis.Related{At: o.At, Message: "also in this arm"})
			}
			drop[d.i] = true
		}
		r.compileErr = true
	}
	if len(drop) > 0 {
		out := r.diags[:0]
		for i, d := range r.diags {
			if !drop[i] {
				out = append(out, d)
			}
		}
		r.diags = out
	}
	r.armDiags = nil
}
