package puppet

import (
	"fmt"
	"slices"
	"strings"

	"github.com/ordering-lsp/ordering-lsp/analysis"
	pp "github.com/ordering-lsp/ordering-lsp/parser/puppet"
)

// Conditions on declarations and relationships.
//
// When the analysis cannot decide a test (a fact nobody gave us, a Hiera
// key without data, a parameter a caller computes), it evaluates every
// branch (speculate). Without more, relationships written in branches
// that exclude each other meet in one graph, and
//
//	if $ensure == 'present' { Exec[r] -> Service[s] } else { Service[s] -> Exec[r] }
//
// looks like a cycle that no run of Puppet can have. So every
// declaration and relationship remembers the branches it was written in,
// and a cycle is reported only when the branches of its edges can all be
// taken in one run.

// branch is one arm of one evaluation of a conditional whose test we
// could not decide.
type branch struct {
	point int32  // the evaluation of the conditional (unique in its run)
	arm   int32  // which arm of it
	tests []test // what taking this arm says about values
	text  string // for messages: "$ensure == 'present'", "not $restart"
	every int32  // the number of arms when one of them is taken on every node the run stands for (an if with an else, a case with a default, not under another undecided branch); else 0
	// An if's arm is worded only when a message needs it (describe):
	// a control repository evaluates hundreds of thousands of ifs whose
	// words nobody reads.
	cond  pp.Node
	f     *fileInfo
	owner *res
	neg   bool
	desc  string // describe's answer, once asked (every resource under the arm asks)
}

// describe is the arm in the manifest's words.
func (b *branch) describe() string {
	if b.text != "" || b.cond == nil {
		return b.text
	}
	if b.desc != "" {
		return b.desc
	}
	txt := sourceText(b.f, b.cond) + ownerWhere(b.owner)
	if b.neg {
		txt = "not " + paren(sourceText(b.f, b.cond)) + ownerWhere(b.owner)
	}
	b.desc = txt
	return txt
}

// words is the arm's test as written, without the class or define it is
// in (the same words for every instance of a define).
func (b *branch) words() string {
	return strings.TrimSuffix(b.describe(), ownerWhere(b.owner))
}

// test is what an arm says about one value: truthy or not (vals nil), or
// equal to one of vals or to none of them.
type test struct {
	subj string
	vals []string
	pos  bool
}

// cond is where something was written: the branches around it, innermost
// first. A class body's chain ends at the class (root), whose own
// condition is only known once every place that includes it has been
// evaluated: what all of them have in common.
type cond struct {
	br     *branch
	parent *cond
	root   *res
}

// local lists the branches c was written in, innermost first, up to its
// class or define body (whose own condition is its callers').
func (c *cond) local() []*branch {
	var out []*branch
	for x := c; x != nil; x = x.parent {
		if x.br != nil {
			out = append(out, x.br)
		}
	}
	return out
}

// rootClass is the class whose body c is in (the end of its chain), nil
// outside class bodies.
func (c *cond) rootClass() *res {
	for x := c; x != nil; x = x.parent {
		if x.root != nil {
			return x.root
		}
	}
	return nil
}

// under is c extended by one more branch.
func (c *cond) under(b *branch) *cond { return &cond{br: b, parent: c} }

// conflicts: two arms that no run takes together.
func (b *branch) conflicts(o *branch) bool {
	if b.point == o.point {
		return b.arm != o.arm
	}
	for _, t := range b.tests {
		for _, u := range o.tests {
			if t.subj == u.subj && t.excludes(u) {
				return true
			}
		}
	}
	return false
}

// excludes: the two tests of one value cannot both hold.
func (t test) excludes(u test) bool {
	switch {
	case t.vals != nil && u.vals == nil:
		return u.excludes(t)
	case t.vals == nil && u.vals != nil:
		// Truthiness against equality: only false and undef are falsy in
		// Puppet ('' and 0 are true).
		if !u.pos {
			return false
		}
		falsy := 0
		for _, v := range u.vals {
			if v == "b:false" || v == "undef" {
				falsy++
			}
		}
		return (t.pos && falsy == len(u.vals)) || (!t.pos && falsy == 0)
	case t.vals == nil:
		return t.pos != u.pos
	case t.pos && u.pos:
		for _, v := range t.vals {
			if slices.Contains(u.vals, v) {
				return false
			}
		}
		return true
	case t.pos && !u.pos:
		return subset(t.vals, u.vals)
	case !t.pos && u.pos:
		return subset(u.vals, t.vals)
	}
	return false
}

func subset(a, b []string) bool {
	for _, v := range a {
		if !slices.Contains(b, v) {
			return false
		}
	}
	return true
}

// consistent: no two branches of bs exclude each other.
func consistent(bs []*branch) bool {
	for i, b := range bs {
		for _, o := range bs[i+1:] {
			if b.conflicts(o) {
				return false
			}
		}
	}
	return true
}

// addBranches adds to set the branches of add it does not hold yet.
func addBranches(set, add []*branch) []*branch {
	for _, b := range add {
		if !hasBranch(set, b) {
			set = append(set, b)
		}
	}
	return set
}

// unionBranches is addBranches for a set nobody else holds yet: an empty
// set takes add itself (clipped: sets are never changed in place, and an
// append to it reallocates), a set adding nothing new stays as it is.
// Most edges need the branches of one resource only, and copying them for
// every edge was a sixth of what a control repository's runs allocated.
func unionBranches(set, add []*branch) []*branch {
	if len(set) == 0 {
		return add[:len(add):len(add)]
	}
	for i, b := range add {
		if !hasBranch(set, b) {
			return addBranches(slices.Clip(set), add[i:])
		}
	}
	return set
}

func hasBranch(set []*branch, b *branch) bool {
	for _, o := range set {
		if o.point == b.point && o.arm == b.arm {
			return true
		}
	}
	return false
}

// common keeps the branches both sets hold: all a disjunction of the two
// conditions is sure to imply.
func common(a, b []*branch) []*branch {
	var out []*branch
	for _, x := range a {
		if hasBranch(b, x) {
			out = append(out, x)
		}
	}
	return out
}

// condSets expands conditions into sets of branches, memoised per run
// (classes and define bodies share their chains).
type condSets struct {
	memo map[*cond][]*branch
	busy map[*res]bool
	// classes: class's answers asked with no class under way. Such an
	// answer is the same every time: it reads the memoised sets of the
	// class's sites, which its first computation fixed (every edge a
	// class's resource makes asked it again, a slice each time).
	classes map[*res][]*branch
	// cuts counts the answers a class included from its own body cut
	// short (class1): a set computed under such a cut is the answer for
	// the class that started it, not for the condition alone, and is not
	// kept (kept, the order resources were asked in changed their
	// conditions: a resource put before psick::admin::user's `if $manage`
	// took `$manage (in Class[Psick::Admin])` out of the later ones')
	cuts int
}

func (s *condSets) of(c *cond) []*branch {
	if c == nil {
		return nil
	}
	if bs, ok := s.memo[c]; ok {
		return bs
	}
	if s.memo == nil {
		s.memo = map[*cond][]*branch{}
	}
	top, cuts := len(s.busy) == 0, s.cuts
	var bs []*branch
	switch {
	case c.root != nil:
		bs = s.class(c.root)
	default:
		bs = addBranches(slices.Clone(s.of(c.parent)), []*branch{c.br})
	}
	if top || s.cuts == cuts {
		s.memo[c] = bs
	}
	return bs
}

// class: the condition under which a class is in the catalog is what the
// conditions of all the places that declare it have in common.
func (s *condSets) class(c *res) []*branch {
	if len(s.busy) > 0 {
		return s.class1(c)
	}
	if bs, ok := s.classes[c]; ok {
		return bs
	}
	bs := s.class1(c)
	if s.classes == nil {
		s.classes = map[*res][]*branch{}
	}
	s.classes[c] = bs
	return bs
}

func (s *condSets) class1(c *res) []*branch {
	if s.busy[c] {
		s.cuts++
		return nil // a class included from its own body: no more than that
	}
	if s.busy == nil {
		s.busy = map[*res]bool{}
	}
	s.busy[c] = true
	defer delete(s.busy, c)
	var bs []*branch
	for i, site := range c.sites {
		if site == nil {
			return nil
		}
		if i == 0 {
			bs = s.of(site)
			continue
		}
		bs = common(bs, s.of(site))
		if len(bs) == 0 {
			return nil
		}
	}
	return bs
}

// res is the condition of a resource's existence: its own, or for a
// class, its declarations'.
func (s *condSets) res(x *res) []*branch {
	if x == nil {
		return nil
	}
	if x.kind == "class" {
		return s.class(x)
	}
	bs := s.of(x.cond)
	for _, alt := range x.alternatives() {
		if len(bs) == 0 {
			break
		}
		bs = common(bs, s.of(alt))
	}
	return bs
}

// eitherOf words the condition of x when the places that declare its
// class share none: the condition of each, "or" between them (at most
// three, then how many more), as in "the node reads
// hieradata/nodes/flood.yaml or the node reads
// hieradata/nodes/dev-flood.yaml". A place with no branch of its own is
// in a class body: the places that declare that class, and so on.
// Empty when some chain of places declares it unconditionally.
func (s *condSets) eitherOf(x *res) string {
	var parts []string
	ok := false
	switch {
	case x == nil:
	case x.kind == "class": // (its resources': the places that declare it)
		ok = s.classPlaces(x, &parts, 0)
	case x.cond != nil:
		ok = s.placesOf(x.cond, &parts, 0)
	}
	if !ok || len(parts) < 2 {
		return ""
	}
	if len(parts) > 3 {
		return strings.Join(parts[:3], " or ") + fmt.Sprintf(" or %d more conditions", len(parts)-3)
	}
	return strings.Join(parts, " or ")
}

// placesOf adds to parts the conditions under which code written at c
// is reached (eitherOf); false when it is reached unconditionally (or
// the classes declaring each other go deeper than we look).
func (s *condSets) placesOf(c *cond, parts *[]string, depth int) bool {
	if bs := s.of(c); len(bs) > 0 {
		if t := whenText(bs); !slices.Contains(*parts, t) {
			*parts = append(*parts, t)
		}
		return true
	}
	return s.classPlaces(c.rootClass(), parts, depth)
}

// classPlaces is placesOf for the body of class root.
func (s *condSets) classPlaces(root *res, parts *[]string, depth int) bool {
	if root == nil || len(root.sites) == 0 || depth > 8 || len(*parts) > 8 {
		return false
	}
	for _, site := range root.sites {
		if site == nil || !s.placesOf(site, parts, depth+1) {
			return false
		}
	}
	return true
}

// ifArms describes the two arms of an if/unless whose test is unknown.
func (r *run) ifArms(e *env, t *pp.If) [2]*branch {
	p := r.nextPoint()
	var named []subjectOf // both arms name the same subjects
	then := r.tests(e, t.Cond, true, &named)
	els := r.tests(e, t.Cond, false, &named)
	if t.Unless {
		then, els = els, then
	}
	return [2]*branch{
		{point: p, arm: 0, tests: then, cond: t.Cond, f: e.f, owner: e.sc.owner, neg: t.Unless},
		{point: p, arm: 1, tests: els, cond: t.Cond, f: e.f, owner: e.sc.owner, neg: !t.Unless},
	}
}

// caseArms describes the arms of a case whose value is unknown.
func (r *run) caseArms(e *env, t *pp.Case) []*branch {
	p := r.nextPoint()
	txt := r.text(e, t.X)
	in := r.where(e)
	subj := r.subject(e, t.X, nil)
	var all []string
	allLit := true
	for _, o := range t.Options {
		for _, vn := range o.Values {
			if _, ok := vn.(*pp.Default); ok {
				continue
			}
			if s, ok := literal(vn); ok {
				all = append(all, s)
			} else {
				allLit = false
			}
		}
	}
	arms := make([]*branch, len(t.Options))
	for i, o := range t.Options {
		b := &branch{point: p, arm: int32(i)}
		var vals, shown []string
		isDefault, lit := false, true
		for _, vn := range o.Values {
			if _, ok := vn.(*pp.Default); ok {
				isDefault = true
				continue
			}
			s, ok := literal(vn)
			lit = lit && ok
			vals = append(vals, s)
			shown = append(shown, r.text(e, vn))
		}
		switch {
		case isDefault:
			b.text = txt + " matches no other case" + in
			if allLit && len(all) > 0 {
				b.tests = []test{{subj: subj, vals: all, pos: false}}
			}
		default:
			b.text = txt + " is " + strings.Join(shown, " or ") + in
			if lit && len(vals) > 0 {
				b.tests = []test{{subj: subj, vals: vals, pos: true}}
			}
		}
		arms[i] = b
	}
	return arms
}

// where names the class or define instance whose body tests a value: the
// same words mean other values elsewhere, and the diagnostic is often
// read in another file.
func (r *run) where(e *env) string {
	return ownerWhere(e.sc.owner)
}

func ownerWhere(o *res) string {
	if o != nil && (o.kind == "define" || o.kind == "class") {
		return " (in " + o.display + ")"
	}
	return ""
}

// loopArm is the body of an iteration over values we do not know: it
// may run any number of times, and excludes nothing. Its words follow
// "when" and "only when" ("... when the each block runs on values we do
// not know"; "each call of the each block" read badly there).
func (r *run) loopArm(fn string) *branch {
	return &branch{point: r.nextPoint(), text: "the " + fn + " block runs on values we do not know"}
}

func (r *run) nextPoint() int32 {
	r.points++
	return r.points
}

// tests reads what taking a condition's then (truth) or else arm says
// about values.
func (r *run) tests(e *env, n pp.Node, truth bool, named *[]subjectOf) []test {
	for {
		p, ok := n.(*pp.Paren)
		if !ok {
			break
		}
		n = p.X
	}
	switch t := n.(type) {
	case *pp.Unary:
		if t.Op == "!" {
			return r.tests(e, t.X, !truth, named)
		}
	case *pp.Binary:
		switch t.Op {
		case "and":
			if truth {
				return append(r.tests(e, t.Left, true, named), r.tests(e, t.Right, true, named)...)
			}
			return nil
		case "or":
			if !truth {
				return append(r.tests(e, t.Left, false, named), r.tests(e, t.Right, false, named)...)
			}
			return nil
		case "==", "!=":
			x, lit := t.Left, t.Right
			s, ok := literal(lit)
			if !ok {
				x, lit = t.Right, t.Left
				s, ok = literal(lit)
			}
			if !ok {
				break
			}
			pos := truth == (t.Op == "==")
			return []test{{subj: r.subject(e, x, named), vals: []string{s}, pos: pos}}
		case "in":
			arr, ok := t.Right.(*pp.Array)
			if !ok {
				break
			}
			var vals []string
			for _, el := range arr.Elems {
				s, ok := literal(el)
				if !ok {
					return nil
				}
				vals = append(vals, s)
			}
			return []test{{subj: r.subject(e, t.Left, named), vals: vals, pos: truth}}
		}
	}
	return []test{{subj: r.subject(e, n, named), pos: truth}}
}

// literal is the value of a constant as Puppet compares it (strings
// without regard to case).
func literal(n pp.Node) (string, bool) {
	switch t := n.(type) {
	case *pp.Str:
		if t.Interpolated() {
			return "", false
		}
		return "s:" + strings.ToLower(t.Value), true
	case *pp.Name:
		return "s:" + strings.ToLower(t.Value), true
	case *pp.Num:
		return "n:" + t.Text, true
	case *pp.Bool:
		if t.Value {
			return "b:true", true
		}
		return "b:false", true
	case *pp.Undef:
		return "undef", true
	}
	return "", false
}

// subject names the value an expression computes: its text with every
// variable written as the one variable it reads, so that one value tested
// in two places is one subject. Puppet variables are never reassigned, so
// in one run a class's variable is one value: `$ensure` inside class
// elasticsearch and `$elasticsearch::ensure` elsewhere are the same
// subject. A variable of a define instance, node or lambda is named by its
// scope (the same text in another instance is another value).
// subject names the value an expression tests; named (may be nil) keeps
// the names given while the arms of one conditional are described.
func (r *run) subject(e *env, n pp.Node, named *[]subjectOf) string {
	if named == nil {
		return r.subject1(e, n)
	}
	for _, c := range *named {
		if c.n == n {
			return c.s
		}
	}
	s := r.subject1(e, n)
	*named = append(*named, subjectOf{n, s})
	return s
}

// subjectOf is a subject named while the arms of one if are described.
type subjectOf struct {
	n pp.Node
	s string
}

func (r *run) subject1(e *env, n pp.Node) string {
	l := n.Span()
	src := e.f.src.Text
	if l.Pos < 0 || l.End > len(src) || l.Pos > l.End {
		return "?"
	}
	var b strings.Builder
	var inner []string // variables read inside strings: named after the text
	at := l.Pos
	pp.Walk(n, func(m pp.Node) bool {
		v, ok := m.(*pp.Var)
		if !ok {
			return true
		}
		vl := v.Span()
		if vl.Pos < at || vl.End > l.End || vl.Pos >= vl.End || src[vl.Pos] != '$' {
			inner = append(inner, r.varIdentity(e, v.Name))
			return false
		}
		b.Write(src[at:vl.Pos])
		b.WriteString(r.varIdentity(e, v.Name))
		at = vl.End
		return false
	})
	b.Write(src[at:l.End])
	out := oneSpaced(b.String())
	for _, id := range inner {
		out += "|" + id
	}
	return out
}

// oneSpaced is strings.Join(strings.Fields(s), " "), without the lists
// for the usual text that has no run of spaces, no other space character
// and no space at either end.
func oneSpaced(s string) string {
	plain := len(s) == 0 || (s[0] != ' ' && s[len(s)-1] != ' ')
	for i := 0; plain && i < len(s); i++ {
		switch c := s[i]; {
		case c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r' || c >= 0x80:
			plain = false
		case c == ' ' && i+1 < len(s) && s[i+1] == ' ':
			plain = false
		}
	}
	if plain {
		return s
	}
	return strings.Join(strings.Fields(s), " ")
}

// varIdentity names the variable a name reads where e stands: `$::x` for
// top scope, `$::c::x` for class c's, its scope's address otherwise.
func (r *run) varIdentity(e *env, name string) string {
	if rest, ok := strings.CutPrefix(name, "::"); ok {
		return "$::" + rest
	}
	if strings.Contains(name, "::") {
		return "$::" + name
	}
	for s := e.sc; s != nil; s = s.parent {
		v, ok := s.get(name)
		if r.rec != nil {
			r.readScope(s, name, v, ok)
		}
		if !ok {
			continue
		}
		switch {
		case s == r.top:
			return "$::" + name
		case s.name != "":
			return "$::" + s.name + "::" + name
		}
		return fmt.Sprintf("$%p::%s", s, name)
	}
	return "$::" + name
}

// text is an expression's source, on one line.
func (r *run) text(e *env, n pp.Node) string {
	return sourceText(e.f, n)
}

func sourceText(f *fileInfo, n pp.Node) string {
	l := n.Span()
	src := f.src.Text
	if l.Pos < 0 || l.End > len(src) || l.Pos > l.End {
		return "?"
	}
	s := oneSpaced(string(src[l.Pos:l.End]))
	if len(s) > 80 {
		s = s[:77] + "..."
	}
	return s
}

func paren(s string) string {
	if strings.ContainsAny(s, " ") && !(strings.HasPrefix(s, "(") && strings.HasSuffix(s, ")")) {
		return "(" + s + ")"
	}
	return s
}

// SamePoint, SameArm and Excludes make a branch an analysis.Branch, for
// analysis.FeasibleCycles.
func (b *branch) SamePoint(o analysis.Branch) bool {
	x, ok := o.(*branch)
	return ok && x.point == b.point
}

func (b *branch) SameArm(o analysis.Branch) bool {
	x, ok := o.(*branch)
	return ok && x.point == b.point && x.arm == b.arm
}

func (b *branch) Excludes(o analysis.Branch) bool {
	x, ok := o.(*branch)
	return ok && b.conflicts(x)
}

// feasibleCycles: the run's cycles that one run of Puppet can have.
func (g *runGraph) feasibleCycles(nodes []*analysis.Node, edges []*analysis.Edge, less func(p, q *analysis.Node) bool) []analysis.CondCycle {
	econd := g.edgeConds(edges)
	return analysis.FeasibleCycles(nodes, edges, less, func(e *analysis.Edge) []analysis.Branch {
		bs := econd[e]
		if len(bs) == 0 {
			return nil
		}
		out := make([]analysis.Branch, len(bs))
		for i, b := range bs {
			out[i] = b
		}
		return out
	})
}

// whenText says which branches a cycle needs, in the manifest's words.
func whenText(bs []*branch) string {
	parts := make([]string, 0, len(bs))
	for _, b := range bs {
		if t := b.describe(); !slices.Contains(parts, t) {
			parts = append(parts, t)
		}
	}
	return strings.Join(parts, " and ")
}

// branches turns what analysis.FeasibleCycles reports back into ours.
func branches(bs []analysis.Branch) []*branch {
	out := make([]*branch, 0, len(bs))
	for _, b := range bs {
		if x, ok := b.(*branch); ok {
			out = append(out, x)
		}
	}
	return out
}

// absentWhen: a relationship written under the branches of x (a resource
// with a metaparameter) or c (a chain) names t, which exists only in
// another arm of the same conditional: every run that makes the
// relationship lacks its target. It returns the relationship's branches.
func (g *runGraph) absentWhen(x, t *res, c *cond) ([]*branch, bool) {
	if g.r.points == 0 {
		return nil, false
	}
	var need []*branch
	if x != nil {
		need = g.conds.of(x.cond)
	}
	need = addBranches(slices.Clone(need), g.conds.of(c))
	if len(need) == 0 || !consistent(need) {
		return nil, false
	}
	have := g.conds.res(t)
	if len(have) == 0 {
		return nil, false
	}
	// Only arms of one evaluation: a declaration elsewhere that the
	// analysis did not see (a define it could not expand, another class's
	// test of the same value) must not turn into a missing target
	// (puppetlabs-apache: Package['httpd'] of apache::package on FreeBSD).
	for _, h := range have {
		for _, n := range need {
			if h.point == n.point && h.arm != n.arm {
				return need, true
			}
		}
	}
	return nil, false
}
