package puppet

import (
	"bytes"
	"slices"
	"strings"

	"github.com/ordering-lsp/ordering-lsp/analysis"
	pp "github.com/ordering-lsp/ordering-lsp/parser/puppet"
	"github.com/ordering-lsp/ordering-lsp/source"
)

// An include of a class nobody defines, added to a class's body, taken
// out or typed over (issue 25). Typing `include profile::foo` passes
// through a class name per keystroke that no code defines, and the
// latency test's probe is one: each rebuilt the 300 runs that read
// profile::base on operations-puppet (6 s, 10 CPU-s). Such an include
// makes no node and no edge: a run that evaluates it gains the "Could
// not find class" diagnostic (classMissing: its words and severity
// depend on the workspace alone when the class's body is evaluated
// outside speculation), a link without target, the inputs a build reads
// (the class and its module), and what the diagnostic implies: an error
// refuses the run, a hint says code outside the workspace may declare
// what the run misses (runSnap.absent). So the run is its last snapshot
// with the places moved, one diagnostic and one link taken out or put
// in.

// inclEdit is the include an edit put in (name, at: the new text's) or
// took out (oldName, oldAt: the old text's); "" where there is none.
// known, oldKnown: the class is defined (then the function is include,
// and a run patches it only where the class was declared before, outside
// any conditional: no node, a link to the class, the class as input).
type inclEdit struct {
	name, oldName   string
	at, oldAt       source.Span
	how, oldHow     string // include, contain or require
	known, oldKnown bool
}

// inclSide judges one side of an include edit: a class nobody defines
// (any of the three functions), or one some code defines (include only:
// contain and require draw edges).
func (a *analyzer) inclSide(n pp.Node) (how, name string, at pp.Loc, known, ok bool) {
	how, name, at, ok = classCall(n)
	switch {
	case !ok:
		return
	case a.classNowhere(name):
		return how, name, at, false, true
	case how == "include" && a.lookupClass(name) != nil:
		return how, name, at, true, true
	}
	return how, name, at, false, false
}

// classCall is the class a statement `include NAME` (contain, require)
// names when it is one literal name, lower-cased as declareClass keys it,
// and the name's place.
func classCall(n pp.Node) (how, name string, at pp.Loc, ok bool) {
	c, isCall := n.(*pp.Call)
	if !isCall || !classFunctions[c.Name] || len(c.Args) != 1 || c.Lambda != nil {
		return "", "", pp.Loc{}, false
	}
	switch v := c.Args[0].(type) {
	case *pp.Name:
		name, at = v.Value, v.Loc
	case *pp.Str:
		if v.Interpolated() {
			return "", "", pp.Loc{}, false
		}
		name, at = v.Value, v.Loc
	default:
		return "", "", pp.Loc{}, false
	}
	name = strings.ToLower(strings.TrimPrefix(name, "::"))
	return c.Name, name, at, name != "" && !strings.ContainsAny(name, "$*[ ")
}

// classNowhere: no code of the workspace defines class name, and no file
// an autoload would read for it exists (a fork cannot load one).
func (a *analyzer) classNowhere(name string) bool {
	if a.lookupClass(name) != nil || a.lookupDefine(name) != nil {
		return false
	}
	for _, p := range a.autoloadPaths(name) {
		if a.files[p] != nil || a.ws.Lookup(p) != nil {
			return false
		}
	}
	return true
}

// inclPlan is the plan for an edit of class body b0 (old text ot) into
// b1 (nt) that adds, takes out or replaces one include of a class nobody
// defines at statement k; nil (no plan) when the statement is something
// else, or names a class some code defines.
func (a *analyzer) inclPlan(p *patchPlan, t0, t1 *pp.File, b0, b1 *pp.ClassDef, k int, ot, nt []byte) *patchPlan {
	var ie inclEdit
	var n0, n1 pp.Node
	switch {
	case len(b1.Body) == len(b0.Body)+1:
		n1 = b1.Body[k]
	case len(b0.Body) == len(b1.Body)+1:
		n0 = b0.Body[k]
	default:
		n0, n1 = b0.Body[k], b1.Body[k]
	}
	if n0 != nil {
		how, name, at, known, ok := a.inclSide(n0)
		if !ok {
			return nil
		}
		ie.oldHow, ie.oldName, ie.oldAt, ie.oldKnown = how, name, source.Span{URI: p.uri, Start: at.Pos, End: at.End}, known
	}
	if n1 != nil {
		how, name, at, known, ok := a.inclSide(n1)
		if !ok {
			return nil
		}
		ie.how, ie.name, ie.at, ie.known = how, name, source.Span{URI: p.uri, Start: at.Pos, End: at.End}, known
	}
	// The edit: from the end of the statement before to the start of the
	// one after (the shortest textual edit may cut into a neighbour:
	// `include other` taken out before `include ::other`); first in the
	// body, the texts' common prefix and suffix widened to the statements.
	delta := len(nt) - len(ot)
	next := func(b *pp.ClassDef, i int) int {
		if i < len(b.Body) {
			return b.Body[i].Span().Pos
		}
		return b.Loc.End - 1
	}
	if k >= 1 {
		p.pre = b0.Body[k-1].Span().End
		if n0 != nil {
			p.oldEnd = next(b0, k+1)
		} else {
			p.oldEnd = next(b0, k)
		}
		p.newEnd = p.oldEnd + delta
	} else {
		d := analysis.NewShift(p.uri, ot, nt)
		p.pre, p.oldEnd = d.Pre, d.OldEnd
		if n0 != nil {
			p.pre, p.oldEnd = min(p.pre, n0.Span().Pos), max(p.oldEnd, n0.Span().End)
		}
		if n1 != nil {
			p.pre, p.oldEnd = min(p.pre, n1.Span().Pos), max(p.oldEnd, n1.Span().End-delta)
		}
		p.newEnd = p.oldEnd + delta
	}
	if p.pre < 0 || p.oldEnd > len(ot) || p.newEnd > len(nt) || p.newEnd < p.pre ||
		!bytes.Equal(ot[:p.pre], nt[:p.pre]) || !bytes.Equal(ot[p.oldEnd:], nt[p.newEnd:]) {
		return a.noPlan(21)
	}
	p.at, p.incl = k, &ie
	p.classDisplay = refString("Class", classDisplay(b1.Name))
	if !a.sameRest(p, t0, t1, b0, b1, func(i int) int {
		switch {
		case i < k || n0 != nil && n1 != nil:
			return i
		case n0 != nil:
			return i - 1
		}
		return i + 1
	}) {
		return nil
	}
	return p
}

// inclSnap is s with the plan's include taken out and put in (inclPlan);
// nil when the run is not one it can patch.
func (a *analyzer) inclSnap(s *runSnap, p *patchPlan, deps map[depKey]string) *runSnap {
	ie := p.incl
	// The class's body is evaluated once; under speculation (what a
	// resource at its top would be told: snapOrder.ends) only a hint is
	// worded as outside it (classMissing).
	o := s.order
	begin := -1
	for i, sn := range s.nodes {
		if sn.kind == 'A' && sn.n.Ref == p.classDisplay {
			if begin >= 0 {
				return a.refuse(70)
			}
			begin = i
		}
	}
	if begin < 0 {
		return a.refuse(71)
	}
	cls := -1
	for k := 0; k+2 < len(o.ends); k += 3 {
		if int(o.ends[k]) == begin {
			cls = k / 3
		}
	}
	if cls < 0 {
		return a.refuse(72)
	}
	spec := len(o.endFacts[cls]) > 0
	// What the run says of itself reads as what its diagnostics say: it
	// is refused when one is an error, and "absent" when a class's hint
	// (classMissing) says a module is not in the workspace, or for
	// another reason it kept (absentElse).
	errs, hints := 0, 0
	old := -1
	for i, d := range s.diags {
		if d.Severity == analysis.Error {
			errs++
		}
		if missingClassHint(d) {
			hints++
		}
		if ie.oldName != "" && !ie.oldKnown && d.At == ie.oldAt && strings.HasPrefix(d.Message, "Could not find class ::"+ie.oldName) {
			if old >= 0 {
				return a.refuse(73)
			}
			old = i
		}
	}
	if ie.oldKnown && !declaredBefore(s, ie.oldName, begin, nil) {
		return a.refuse(79) // (it was the one that declared it)
	}
	if s.run.Refused != (errs > 0) || s.absent != (s.absentElse || hints > 0) || ie.oldName != "" && !ie.oldKnown && old < 0 {
		return a.refuse(74)
	}
	if fi := a.byURI[s.run.Entry]; fi != nil && fi.ast != nil && len(fi.ast.Errors) > 0 {
		return a.refuse(74) // (refused for its main manifest's syntax too: buildRun)
	}
	var put analysis.Diagnostic
	var def *analysis.Node // the class a known include links to
	switch {
	case ie.name != "" && ie.known:
		ci := a.lookupClass(ie.name)
		if ci == nil || ci.node == nil || !declaredBefore(s, ie.name, begin, o.endCondsOf(cls)) {
			return a.refuse(79)
		}
		def = ci.node
	case ie.name != "":
		put = a.classMissing(ie.name, false, nil)
		put.At = ie.at
		if spec && put.Severity != analysis.Hint {
			return a.refuse(77)
		}
	}
	sd := *s
	if old >= 0 {
		gone := s.diags[old]
		sd.diags = slices.Delete(slices.Clone(s.diags), old, old+1)
		if gone.Severity == analysis.Error {
			errs--
		}
		if missingClassHint(gone) {
			hints--
		}
	}
	if ie.oldName != "" {
		// its link (to the class, or to nothing) goes with it
		j := -1
		for i := 0; i < s.linkCount(); i++ {
			if s.linkAt(i) == ie.oldAt && (s.links.start[i+1]-s.links.start[i] == 1) == ie.oldKnown {
				if j >= 0 {
					return a.refuse(76)
				}
				j = i
			}
		}
		if j < 0 {
			return a.refuse(76)
		}
		sd.links, sd.ids = s.linksWithout(func(i int) bool { return i == j }), nil
	}
	ns := a.moveSnap(&sd, p.shift(), nil)
	if ns == nil {
		return nil
	}
	ns.deps = deps
	ns.absent = s.absentElse || hints > 0
	if def != nil {
		t := -1
		k, _ := defKeyOf(def)
		for i, d := range ns.defs {
			if dk, ok := defKeyOf(d); ok && dk == k {
				t = i
			}
		}
		if t < 0 {
			ns.defs = append(slices.Clip(ns.defs), def)
			t = len(ns.defs) - 1
		}
		ns.links.addAll(ie.at, []int32{int32(-1 - t)})
		a.addDeps(ns.deps, depKey{'c', ie.name}) // (classFor)
	}
	if ie.name != "" && def == nil {
		ns.diags = append(slices.Clip(ns.diags), put)
		if put.Severity == analysis.Error {
			errs++
		}
		if put.Severity == analysis.Hint {
			ns.absent = true
		}
		ns.links.addAll(ie.at, nil)
		a.addDeps(ns.deps, depKey{'c', ie.name}, depKey{'m', ie.name}) // (classFor, moduleKnown)
	}
	ns.run.Refused = errs > 0
	return ns
}

// addDeps adds to a run's inputs deps (patched makes them for the run)
// the inputs ks a build reads too, at their values now.
func (a *analyzer) addDeps(deps map[depKey]string, ks ...depKey) {
	for _, k := range ks {
		if _, ok := deps[k]; !ok {
			deps[k] = a.depValue(k)
		}
	}
}

// declaredBefore: the run declared class name before the class whose
// begin anchor is s.nodes[begin] (an include there is no first
// declaration: nothing evaluated), first outside any conditional nobody
// decides (x.spec: no "declared only when" fact), so that the class's
// branches, the intersection of its sites' (condSets.class), are none
// whatever sites an include adds or takes. An include added (site: the
// branches of the class it is written in) may also add a site under
// branches that hold the class's own: the intersection stays.
func declaredBefore(s *runSnap, name string, begin int, site []uint64) bool {
	o := s.order
	ref := refString("Class", classDisplay(name))
	at := -1
	for i, sn := range s.nodes {
		if sn.kind == 'A' && sn.n.Ref == ref {
			if at >= 0 {
				return false
			}
			at = i
		}
	}
	if at < 0 || at >= begin {
		return false
	}
	for k := 0; k+2 < len(o.ends); k += 3 {
		if int(o.ends[k]) == at {
			set := o.endCondsOf(k / 3)
			if set == nil {
				return len(o.endFacts[k/3]) == 0
			}
			for _, b := range set {
				if !slices.Contains(site, b) {
					return false
				}
			}
			return site != nil
		}
	}
	return false
}

// missingClassHint: d is classMissing's hint that a class may be in a
// module outside the workspace (which makes its run "absent").
func missingClassHint(d analysis.Diagnostic) bool {
	return d.Severity == analysis.Hint && (d.Code == "unknown-class" || d.Code == codeNotInstalled) &&
		strings.HasPrefix(d.Message, "Could not find class ::") &&
		!strings.Contains(d.Message, "(listed under '") // (classification data's: hieraClass)
}
