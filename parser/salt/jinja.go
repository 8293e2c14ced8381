package salt

import (
	"bytes"
	"slices"
	"strings"

	"github.com/ordering-lsp/ordering-lsp/internal/lazyre"
)

// The Jinja front end renders a template without executing anything: it
// expands what is knowable and writes Unknown where a value comes from the
// machine (pillar, grains, salt[...], imports). The rendered text keeps a
// map back to the source so that every position lands on what the user
// wrote.

// Seg maps a piece of rendered text back to the source.
type Seg struct {
	R      int // rendered start
	RLen   int
	S, SE  int  // source span: the literal text, or the whole {{ ... }}
	Lit    bool // literal text: offsets map one to one
	Opaque bool // output of something unknowable (may hold anything)
}

// Rendered is a template's output and its map to the source.
type Rendered struct {
	Text []byte
	Segs []Seg
	// Opaque lists source spans of unknowable output that stands on its
	// own lines (a macro call, an unknown loop body producing keys...): the
	// template may produce states there that nobody can name in advance.
	Opaque []Span
	// Alts lists the source of branches of conditions nobody can decide
	// at edit time: every branch is rendered, so what they declare are
	// alternatives, not duplicates.
	Alts []Span
	// Arms says, for each branch in Alts, which evaluation of which
	// condition it belongs to and what taking it says about the tested
	// values: branches of one evaluation, or tests of one expression that
	// cannot both hold (`x` and `not x`), never render together.
	Arms []Arm
	// Conds lists rendered text that exists only when undecidable
	// branches are taken although it is not written inside them: what an
	// item a `do x.append()` added in a branch turns into where the list
	// is printed or looped over.
	Conds  []CondOut
	Errors []Error
	// Undefined: names an output prints that nothing binds (Salt's
	// StrictUndefined fails the render): the caller, which knows whether
	// the file is also a template another includes, reports them
	Undefined []Error
	// Py2: calls of Python 2 dict methods (iteritems, has_key...) that
	// Salt's Python 3 fails the render on (jinja_py2.go), reported like
	// Undefined
	Py2 []Error
}

// CondOut is rendered text [R, End) that exists only in the renders that
// take the branches Arms.
type CondOut struct {
	R, End int
	Arms   []Arm
}

// CondArms lists the branches the rendered range [a, b) depends on
// through conditional values (an empty range: the text at a).
func (r *Rendered) CondArms(a, b int) []Arm {
	var out []Arm
	for _, c := range r.Conds {
		if c.R < b && a < c.End || a == b && c.R <= a && a < c.End {
			out = append(out, c.Arms...)
		}
	}
	return out
}

// Arm is one branch of an undecidable if/elif/else.
type Arm struct {
	Span
	Point int32 // the evaluation of the if (unique in the render)
	Arm   int32
	Tests []ArmTest
	Text  string // for messages: "salt['pillar.get']('x')", "not (...)"
	Loop  bool   // the body (or else) of a for over an unknown iterable, not an if's branch
	// Sure: a loop's body over an iterable known to have items (how many
	// is unknown): it renders in every render, it is no branch
	Sure bool
	// FromCode: a loop's iterable comes from template code the render
	// does not evaluate (an imported map.jinja): the workspace knows it
	FromCode bool
	// Targets and Iter: a loop body's variables ("name, user") and its
	// iterable's source, for messages whose later conditions test them
	Targets, Iter string
}

// JoinArms says in words what a render needs to take the branches arms
// (outermost first): their conditions joined by "and". A condition
// inside a loop over unknown items that tests the loop's variables
// holds of one item, so from the loop on the words read "(for some dev
// in devs: dev and ...)", not "devs has items and dev" (dev means
// nothing outside the loop). Words in tail follow the arms' (inside a
// loop's scope).
func JoinArms(arms []Arm, tail ...string) string {
	var words []string
	scoped := false
	for i, a := range arms {
		if a.Text == "" {
			continue
		}
		if a.Loop && a.Arm == 0 && a.Targets != "" && armsMention(arms[i+1:], tail, strings.Split(a.Targets, ", ")) {
			words = append(words, "(for some "+a.Targets+" in "+strings.Join(strings.Fields(a.Iter), " ")+": "+JoinArms(arms[i+1:], tail...)+")")
			scoped = true
			break
		}
		words = append(words, strings.Join(strings.Fields(a.Text), " "))
	}
	if !scoped {
		words = append(words, tail...)
	}
	if len(words) > 1 {
		for i, w := range words { // `a and b or c` would read as (a and b) or c
			if OrOutside(w) {
				words[i] = "(" + w + ")"
			}
		}
	}
	return strings.Join(words, " and ")
}

// armsMention: some arm's condition (or a tail word) names one of names (an identifier
// outside quotes, not an attribute after '.').
func armsMention(arms []Arm, tail, names []string) bool {
	texts := tail
	for _, a := range arms {
		texts = append(slices.Clip(texts), a.Text)
	}
	for _, x := range texts {
		found := false
		unquoted([]byte(x), 0, len(x), func(i int) bool {
			if !identByte(x[i]) || x[i] >= '0' && x[i] <= '9' || i > 0 && (identByte(x[i-1]) || x[i-1] == '.') {
				return false // (not the start of a name, or an attribute)
			}
			j := i
			for j < len(x) && identByte(x[j]) {
				j++
			}
			found = slices.Contains(names, x[i:j])
			return found
		})
		if found {
			return true
		}
	}
	return false
}

// IfAlts reports whether some branch of an undecidable if, or the else
// of a loop over an unknown iterable, was rendered beside the others (a
// loop without else renders its body once whatever its arm).
func (r *Rendered) IfAlts() bool {
	for _, a := range r.Arms {
		if !a.Loop || a.Arm == 1 {
			return true
		}
	}
	return false
}

// ArmTest: the expression Subj is truthy (Pos) or falsy.
type ArmTest struct {
	Subj string
	Pos  bool
}

// ArmsAt lists the branches a source offset lies in (nested conditions:
// several), outermost first.
func (r *Rendered) ArmsAt(off int) []Arm {
	var out []Arm
	for _, a := range r.Arms {
		if off >= a.Start && off < a.End && !a.Sure {
			out = append(out, a)
		}
	}
	return out
}

// ArmsConflict: two branches no render takes together.
func ArmsConflict(a, b Arm) bool {
	if a.Point == b.Point {
		return a.Arm != b.Arm
	}
	for _, t := range a.Tests {
		for _, u := range b.Tests {
			if t.Subj == u.Subj && t.Pos != u.Pos {
				return true
			}
		}
	}
	return false
}

// armOf describes branch j of an if whose condition i was the first that
// could not be decided: its own condition holds (else: none), the
// undecided ones before it do not.
func armOf(x jIf, i, j int, point int32) Arm {
	a := Arm{Span: x.spans[j], Point: point, Arm: int32(j - i)}
	var words []string
	for k := i; k <= j && k < len(x.texts); k++ {
		if x.conds[k] == nil {
			continue
		}
		subj, pos := condSubject(x.texts[k])
		if k < j {
			pos = !pos
			words = append(words, "not ("+strings.TrimSpace(x.texts[k])+")")
		} else if w := strings.TrimSpace(x.texts[k]); len(words) > 0 && OrOutside(w) {
			words = append(words, "("+w+")")
		} else {
			words = append(words, w)
		}
		a.Tests = append(a.Tests, ArmTest{Subj: subj, Pos: pos})
	}
	a.Text = strings.Join(words, " and ")
	return a
}

// loopArm describes the body of a loop over an iterable nobody can know
// here: it renders where the iterable has items (is truthy, as a list,
// a mapping or a string with items is).
func loopArm(x jFor, point int32) Arm {
	subj, pos := condSubject(x.iterText)
	return Arm{Span: x.bodySpan, Point: point, Tests: []ArmTest{{Subj: subj, Pos: pos}},
		Text: strings.TrimSpace(x.iterText) + " has items", Loop: true,
		Targets: strings.Join(x.targets, ", "), Iter: strings.TrimSpace(x.iterText)}
}

// testedTruthy: an enclosing branch holds only where the loop's
// iterable is truthy, so the loop has items there (a list, mapping or
// string that is truthy has; anything else fails the loop): jsatt/
// saltstates users/init.sls loops over user.ssh_keys under `if
// user.get('ssh_keys', [])`, and its `names:` is never empty.
func testedTruthy(arms []Arm, iter string) bool {
	want := sameAccess(iter)
	for _, a := range arms {
		if a.Loop {
			continue
		}
		for _, t := range a.Tests {
			if t.Pos && sameAccess(t.Subj) == want {
				return true
			}
		}
	}
	return false
}

var (
	getAccessRe   = lazyre.New(`\.get\(\s*['"](\w+)['"]\s*(?:,[^()]*)?\)`)
	indexAccessRe = lazyre.New(`\[\s*['"](\w+)['"]\s*\]`)
)

// sameAccess writes an item access one way: `x.get('k', [])`, `x['k']`
// and `x.k` are the same key of x (a default only changes a missing key,
// which is falsy either way), blanks left out.
func sameAccess(e string) string {
	e = strings.Join(strings.Fields(e), "")
	e = getAccessRe.ReplaceAllString(e, ".$1")
	return indexAccessRe.ReplaceAllString(e, ".$1")
}

// OrOutside: expression text x has an `or` outside brackets and quotes
// (joined to other conditions with `and`, it needs brackets).
func OrOutside(x string) bool {
	depth, found := 0, false
	unquoted([]byte(x), 0, len(x), func(i int) bool {
		switch x[i] {
		case '(', '[', '{':
			depth++
		case ')', ']', '}':
			depth--
		}
		found = depth == 0 && strings.HasPrefix(x[i:], " or ")
		return found
	})
	return found
}

// condSubject strips leading `not`s (each flips the test) and spaces.
func condSubject(text string) (string, bool) {
	s := strings.Join(strings.Fields(text), " ")
	pos := true
	for {
		t := strings.TrimPrefix(s, "not ")
		if t == s {
			break
		}
		s, pos = strings.TrimSpace(t), !pos
	}
	for len(s) > 1 && s[0] == '(' && s[len(s)-1] == ')' && !strings.Contains(s[1:len(s)-1], ")") {
		s = strings.TrimSpace(s[1 : len(s)-1])
	}
	return s, pos
}

// InAlt reports whether a source offset lies in a branch of an unknown
// condition.
func (r *Rendered) InAlt(off int) bool {
	for _, a := range r.Alts {
		if off >= a.Start && off < a.End {
			return true
		}
	}
	return false
}

// Span is a half-open byte range of the source.
type Span struct{ Start, End int }

// Error is a problem found while reading the source.
type Error struct {
	Span
	Msg      string
	Severity int  // 1 error, 2 warning, 3 info
	tag      bool // an undefined name of an if's or a for's expression (jinja_undefined.go)
	// unknownTag: the lexer's, at a tag jinja2 does not know; the
	// grammar's error in that chunk says less
	unknownTag bool
}

// Src maps a rendered offset to the source.
func (r *Rendered) Src(off int) int {
	segs := r.Segs
	lo, hi := 0, len(segs)
	for lo < hi {
		m := (lo + hi) / 2
		if segs[m].R <= off {
			lo = m + 1
		} else {
			hi = m
		}
	}
	i := lo - 1
	if i < 0 {
		if len(segs) > 0 {
			return segs[0].S
		}
		return 0
	}
	s := segs[i]
	if s.Lit {
		d := off - s.R
		if d > s.SE-s.S {
			d = s.SE - s.S
		}
		return s.S + d
	}
	if off >= s.R+s.RLen {
		return s.SE
	}
	return s.S
}

// SrcEnd maps the exclusive end of a rendered range to the source: an end
// inside or at the end of an expression's output maps to the expression's end.
func (r *Rendered) SrcEnd(off int) int {
	segs := r.Segs
	lo, hi := 0, len(segs)
	for lo < hi {
		m := (lo + hi) / 2
		if segs[m].R < off {
			lo = m + 1
		} else {
			hi = m
		}
	}
	i := lo - 1
	if i < 0 {
		return r.Src(off)
	}
	s := segs[i]
	if s.Lit {
		return s.S + min(off-s.R, s.SE-s.S)
	}
	return s.SE
}

// Display renders the rendered range [a,b) for people: known text as it
// renders, unknowable parts as the source that would produce them.
func (r *Rendered) Display(src []byte, a, b int) string {
	var sb strings.Builder
	for _, s := range r.Segs {
		if s.R+s.RLen <= a || s.R >= b {
			continue
		}
		lo, hi := max(a, s.R), min(b, s.R+s.RLen)
		chunk := string(r.Text[lo:hi])
		if !s.Lit && strings.Contains(chunk, Unknown) && s.SE <= len(src) {
			chunk = strings.ReplaceAll(chunk, Unknown, string(src[s.S:s.SE]))
		}
		sb.WriteString(chunk)
	}
	if sb.Len() == 0 && a < b && b <= len(r.Text) {
		return string(r.Text[a:b])
	}
	return sb.String()
}

// Template tokens.
type jtok struct {
	kind       byte // 't' text, 'e' expression, 's' statement, 'c' comment
	start, end int  // whole token in source
	in         int  // start of the inner text
	inEnd      int
	lstrip     bool // {%- : strip whitespace before
	rstrip     bool // -%} : strip whitespace after
}

func lexTemplate(src []byte) ([]jtok, []Error) {
	var toks []jtok
	var errs []Error
	i := 0
	textStart := 0
	n := len(src)
	flushText := func(end int) {
		if end > textStart {
			toks = append(toks, jtok{kind: 't', start: textStart, end: end, in: textStart, inEnd: end})
		}
	}
	for i < n-1 {
		if src[i] != '{' || (src[i+1] != '{' && src[i+1] != '%' && src[i+1] != '#') {
			i++
			continue
		}
		open := src[i+1]
		closeCh := map[byte]byte{'{': '}', '%': '%', '#': '#'}[open]
		flushText(i)
		start := i
		in := i + 2
		t := jtok{start: start}
		if in < n && (src[in] == '-' || src[in] == '+') {
			t.lstrip = src[in] == '-'
			in++
		}
		// raw blocks: {% raw %} ... {% endraw %}
		j := in
		found := false
		quote := byte(0)
		for j < n-1 {
			c := src[j]
			if open != '#' {
				if quote != 0 {
					if c == '\\' {
						j += 2
						continue
					}
					if c == quote {
						quote = 0
					}
					j++
					continue
				}
				if c == '\'' || c == '"' {
					quote = c
					j++
					continue
				}
			}
			if c == closeCh && src[j+1] == '}' {
				found = true
				break
			}
			j++
		}
		if !found {
			errs = append(errs, unclosedTagError(src, start, in, open))
			// treat the rest as text
			textStart = start
			i = n
			break
		}
		inEnd := j
		if inEnd > in && (src[inEnd-1] == '-' || src[inEnd-1] == '+') {
			t.rstrip = src[inEnd-1] == '-'
			inEnd--
		}
		t.in, t.inEnd, t.end = in, inEnd, j+2
		switch open {
		case '{':
			t.kind = 'e'
		case '%':
			t.kind = 's'
		case '#':
			t.kind = 'c'
		}
		toks = append(toks, t)
		i = t.end
		textStart = i
		if t.kind == 's' && strings.TrimSpace(string(src[t.in:t.inEnd])) == "raw" {
			// find {% endraw %}
			k := i
			for k < n-1 {
				if src[k] == '{' && src[k+1] == '%' {
					m := k + 2
					for m < n && (src[m] == '-' || src[m] == ' ' || src[m] == '\t') {
						m++
					}
					if strings.HasPrefix(string(src[m:min(n, m+6)]), "endraw") {
						break
					}
				}
				k++
			}
			if k >= n-1 {
				errs = append(errs, Error{Span: Span{t.start, t.end}, Msg: "Jinja syntax error: unclosed raw block", Severity: 1})
				k = n
			}
			toks = append(toks, jtok{kind: 'r', start: i, end: k, in: i, inEnd: k})
			// skip the {% endraw %} tag itself
			e := k
			if k < n {
				if j := strings.Index(string(src[k:]), "%}"); j >= 0 {
					e = k + j + 2
				} else {
					e = n
				}
			}
			i = e
			textStart = e
		}
	}
	flushText(n)
	return toks, errs
}

// Template tree.
type jnode interface{}

type (
	jText struct{ start, end int } // after whitespace control
	jExpr struct {
		start, end int
		e          expr
	}
	jIf struct {
		conds  []expr   // nil cond = else
		texts  []string // each condition's source ("" for else)
		bodies [][]jnode
		spans  []Span // source of each body
		at     []Span // source of each condition (zero for else)
	}
	jFor struct {
		targets    []string
		iter       expr
		iterText   string // the iterable's source, for messages
		iterAt     Span   // the iterable's source
		cond       expr
		condAt     Span // the filter's source (`if` after the iterable)
		body, els  []jnode
		bodySpan   Span // source of the body (to its else or endfor)
		elsSpan    Span // source of the else branch
		start, end int
	}
	jSet struct {
		targets []string
		e       expr
		at      Span // the value's source
	}
	jSetBlock struct {
		name string
		body []jnode
	}
	jUnknownSet struct {
		names []string
	} // imports, load_yaml...
	// jDo is `{% do expr %}`: evaluated for what it changes (a list's
	// append, extend, insert); when it changes something the evaluation
	// cannot follow, root (the variable it starts from) becomes unknown.
	jDo struct {
		e    expr
		root string
		at   Span // the expression's source
	}
	jOpaque struct{ start, end int } // output nobody can know
	jScope  struct {
		sets []jSet
		body []jnode
	}
)

// renderer walks the tree writing output.
type renderer struct {
	src    []byte
	out    []byte
	segs   []Seg
	opaque []Span
	alts   []Span
	arms   []Arm
	conds  []CondOut
	points *int32 // shared with sub-renderers: every evaluation of an if is unique
	steps  int
	limit  int
	mode   int
	ctx    *evalCtx
	undef  *[]Error // undefined names printed (jinja_undefined.go), shared with sub-renderers
}

// sub is a renderer for text that goes elsewhere (a skipped branch, a
// set block), sharing the evaluation context.
func (r *renderer) sub() *renderer {
	return &renderer{src: r.src, limit: r.limit - r.steps, mode: r.mode, points: r.points, ctx: r.ctx, undef: r.undef}
}

// alternatives renders, in place of the branches of an undecidable
// condition from branch i on, what one of them renders when their texts
// cannot stand side by side: text inside a line
// (`- {% if a %}file{% else %}ini{% endif %}: x`, all of them would be
// `fileini`), or exactly one of several key lines (a state ID or function
// chosen by a branch: stacked, the first key would be empty). That is
// unknown text where theirs differs, keeping what they share around it, so
// the YAML keeps its shape. It reports false, rendering nothing, when the
// branches can stand together (the usual blocks of states or arguments).
func (r *renderer) alternatives(x jIf, i int, sc *scope, depth int) bool {
	exhaustive := x.conds[len(x.conds)-1] == nil
	// Only a branch of at most one line of text can be either kind: the
	// usual blocks of states are turned away here, before rendering them
	// twice (this runs for every undecidable condition of every render).
	for _, sp := range x.spans[i:] {
		if sp.Start < 0 || sp.End > len(r.src) || sp.Start > sp.End {
			return false
		}
		lines := 0
		for _, l := range bytes.Split(r.src[sp.Start:sp.End], []byte("\n")) {
			if len(bytes.TrimSpace(l)) > 0 {
				lines++
			}
		}
		if lines > 1 {
			return false
		}
	}
	for _, b := range x.bodies[i:] {
		for _, n := range b {
			switch n.(type) {
			case jDo, jSet, jSetBlock:
				return false // its effects are followed per branch below
			}
		}
	}
	var outs []string
	var scopes []*scope
	for j := i; j < len(x.conds); j++ {
		sub := r.sub()
		inner := &scope{vars: map[string]val{}, parent: sc}
		// under the branch's condition: a name it prints that nothing
		// binds fails only the renders taking it (an if around one
		// argument line of a state: saltstack-formulas/
		// kubernetes-formula client/binary/install.sls' source_hash was
		// an error for every render)
		r.ctx.arms = append(r.ctx.arms, armOf(x, i, j, 0))
		sub.render(x.bodies[j], inner, depth+1)
		r.ctx.arms = r.ctx.arms[:len(r.ctx.arms)-1]
		if len(sub.opaque) > 0 || len(sub.conds) > 0 {
			return false
		}
		outs = append(outs, string(sub.out))
		scopes = append(scopes, inner)
	}
	if !exhaustive {
		outs = append(outs, "")
	}
	inline, keys := true, exhaustive
	for _, o := range outs {
		if strings.Contains(o, "\n") {
			inline = false
		}
		line := strings.TrimSpace(o)
		if line == "" || strings.Contains(line, "\n") || !strings.HasSuffix(line, ":") || strings.HasPrefix(line, "-") || strings.HasPrefix(line, "#") {
			keys = false
		}
	}
	blank := true
	for _, o := range outs {
		blank = blank && strings.TrimSpace(o) == ""
	}
	if blank || !inline && !keys {
		return false
	}
	// what all of them start and end with stays; the rest is unknown
	pre, suf := outs[0], outs[0]
	for _, o := range outs[1:] {
		pre = pre[:commonPrefix(pre, o)]
		suf = suf[len(suf)-commonSuffix(suf, o):]
	}
	if len(pre)+len(suf) > len(outs[0]) {
		suf = suf[len(pre)+len(suf)-len(outs[0]):]
	}
	start, end := x.spans[i].Start, x.spans[len(x.spans)-1].End
	*r.points++
	for j := i; j < len(x.conds); j++ {
		r.alts = append(r.alts, x.spans[j])
		r.arms = append(r.arms, armOf(x, i, j, *r.points))
	}
	r.steps++
	for _, sc2 := range scopes {
		for name := range sc2.vars {
			sc.set(name, unknownVal)
		}
	}
	r.emit(pre+Unknown+suf, start, end, true)
	return true
}

func commonPrefix(a, b string) int {
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	return n
}

func commonSuffix(a, b string) int {
	n := 0
	for n < len(a) && n < len(b) && a[len(a)-1-n] == b[len(b)-1-n] {
		n++
	}
	return n
}

// cond records that out[a:b] exists only in the renders taking arms.
func (r *renderer) cond(a, b int, arms []Arm) {
	if a < b && len(arms) > 0 {
		r.conds = append(r.conds, CondOut{a, b, arms})
	}
}

// Rendering modes for conditions nobody can decide at edit time.
const (
	modeAll   = iota // render every branch (the default)
	modeFirst        // only the first undecidable branch
	modeLast         // only the else branch (nothing when there is none)
)

func (r *renderer) lit(a, b int) {
	if b <= a {
		return
	}
	if n := len(r.segs); n > 0 && r.segs[n-1].Lit && r.segs[n-1].SE == a && r.segs[n-1].R+r.segs[n-1].RLen == len(r.out) {
		r.segs[n-1].RLen += b - a
		r.segs[n-1].SE = b
	} else {
		r.segs = append(r.segs, Seg{R: len(r.out), RLen: b - a, S: a, SE: b, Lit: true})
	}
	r.out = append(r.out, r.src[a:b]...)
}

func (r *renderer) emit(text string, a, b int, opaque bool) {
	if text == "" {
		return
	}
	r.segs = append(r.segs, Seg{R: len(r.out), RLen: len(text), S: a, SE: b, Opaque: opaque})
	r.out = append(r.out, text...)
}

// atLineStart reports whether the output so far ends at a line start
// (only blanks since the last newline).
func (r *renderer) atLineStart() bool {
	for i := len(r.out) - 1; i >= 0; i-- {
		switch r.out[i] {
		case '\n':
			return true
		case ' ', '\t':
			continue
		default:
			return false
		}
	}
	return true
}

func (r *renderer) render(nodes []jnode, sc *scope, depth int) {
	if depth > 60 {
		return
	}
	for _, n := range nodes {
		r.steps++
		if r.steps > r.limit || len(r.out) > 8<<20 {
			return
		}
		switch x := n.(type) {
		case jText:
			r.lit(x.start, x.end)
		case jExpr:
			r.ctx.track, r.ctx.undef = true, r.ctx.undef[:0]
			v, _ := r.evalCalls(x.e, sc, Span{x.start, x.end})
			r.ctx.track = false
			if len(r.ctx.undef) > 0 {
				r.noteUndefined(x.start, x.end, r.ctx.undef, false)
			}
			// Python repr is what Jinja prints for lists and dicts; YAML
			// reads it as flow.
			text, marks := v.printed()
			lineStart := r.atLineStart()
			opaque := v.k == kUnknown
			if opaque && lineStart && r.restOfLineBlank(x.end) {
				if ind, ok := r.blockScalar(); ok {
					// `contents: |` then `{{ text|indent(8) }}` at column
					// 0: the text belongs to the block scalar (indented
					// as far as its blanks already written do not:
					// deeper, the scalar's next lines would end it).
					r.emit(strings.Repeat(" ", max(0, ind-r.blanksBefore()))+Unknown, x.start, x.end, true)
					continue
				}
				r.opaque = append(r.opaque, Span{x.start, x.end})
				if r.indented() {
					// A macro's output on its own line (arguments, list
					// items): unknowable; a YAML comment keeps the rest
					// of the mapping readable.
					r.emit("#"+Unknown, x.start, x.end, true)
					continue
				}
			}
			at := len(r.out)
			r.emit(text, x.start, x.end, opaque)
			for _, m := range marks {
				r.cond(at+m.a, at+m.b, m.arms)
			}
		case jOpaque:
			if r.atLineStart() {
				r.opaque = append(r.opaque, Span{x.start, x.end})
				if r.indented() {
					r.emit("#"+Unknown, x.start, x.end, true)
					continue
				}
			}
			r.emit(Unknown, x.start, x.end, true)
		case jIf:
			taken := false
			dead := r.ctx.dead
			for i, c := range x.conds {
				if c == nil {
					r.render(x.bodies[i], sc, depth+1)
					taken = true
					break
				}
				v, fails := r.evalJudged(c, x.at[i], sc)
				if fails {
					r.ctx.dead++ // (Salt reaches no branch from here on)
				}
				b, ok := v.truth()
				if !ok {
					// Unknown condition: the branch may render; so may the
					// rest. Render them all (states in any branch exist
					// for some machine); what they set becomes unknown,
					// what they append to a list is there only in the
					// renders that take them.
					if r.mode == modeAll && r.alternatives(x, i, sc, depth) {
						taken = true
						break
					}
					*r.points++
					point := *r.points
					for j := i; j < len(x.conds); j++ {
						arm := armOf(x, i, j, point)
						r.alts = append(r.alts, x.spans[j])
						r.arms = append(r.arms, arm)
						inner := &scope{vars: map[string]val{}, parent: sc}
						// mode: every branch, only the first, or only
						// the last (none when there is no else)
						render := r.mode == modeAll || r.mode == modeFirst && j == i ||
							r.mode == modeLast && j == len(x.conds)-1 && x.conds[j] == nil
						r.ctx.arms = append(r.ctx.arms, arm)
						if render {
							r.render(x.bodies[j], inner, depth+1)
						} else {
							sub := r.sub()
							sub.render(x.bodies[j], inner, depth+1)
							r.steps += sub.steps
						}
						r.ctx.arms = r.ctx.arms[:len(r.ctx.arms)-1]
						for name := range inner.vars {
							sc.set(name, unknownVal)
						}
					}
					taken = true
					break
				}
				if b {
					r.render(x.bodies[i], sc, depth+1)
					taken = true
					break
				}
			}
			_ = taken
			r.ctx.dead = dead
		case jFor:
			it, fails := r.evalJudged(x.iter, x.iterAt, sc)
			if fails {
				r.ctx.dead++
			}
			r.renderFor(x, it, sc, depth)
			if fails {
				r.ctx.dead--
			}
		case jSet:
			v, _ := r.evalCalls(x.e, sc, x.at)
			bindTargets(sc, x.targets, v)
			if r.ctx != nil && r.ctx.fromCode[textRoot(string(r.src[x.at.Start:x.at.End]))] {
				r.ctx.markFromCode(x.targets...)
			}
		case jSetBlock:
			sub := r.sub()
			sub.mode = modeAll
			sub.render(x.body, sc, depth+1)
			r.steps += sub.steps
			s := string(sub.out)
			if strings.Contains(s, Unknown) {
				sc.set(x.name, unknownVal)
			} else {
				var marks []strMark
				for _, c := range sub.conds {
					marks = append(marks, strMark{c.R, c.End, c.Arms})
				}
				sc.set(x.name, markedStr(s, marks))
			}
		case jDo:
			r.ctx.mutated = false
			r.evalCalls(x.e, sc, x.at)
			if !r.ctx.mutated && x.root != "" {
				sc.assignWhere(x.root, unknownVal)
			}
		case jUnknownSet:
			for _, n := range x.names {
				sc.set(n, unknownVal)
			}
			if r.ctx != nil {
				r.ctx.markFromCode(x.names...)
			}
		case jScope:
			inner := &scope{vars: map[string]val{}, parent: sc}
			for _, s := range x.sets {
				v, _ := r.evalCalls(s.e, sc, s.at)
				bindTargets(inner, s.targets, v)
			}
			r.render(x.body, inner, depth+1)
		}
	}
}

// renderFor renders a for loop over the iterable's value it.
func (r *renderer) renderFor(x jFor, it val, sc *scope, depth int) {
	items, ok := it.items()
	inner := &scope{vars: map[string]val{}, parent: sc}
	if !ok {
		for _, t := range x.targets {
			inner.set(t, unknownVal)
		}
		inner.set("loop", unknownVal)
		// One pass with the loop variables unknown: what the body
		// declares becomes patterns; how often what it appends
		// to a list is appended is unknown. The body renders only
		// where the iterable has items, which nobody can decide
		// here: it is a branch of that condition, as an `if`
		// over it would be (a requisite written in it fails only
		// there).
		*r.points++
		arm := loopArm(x, *r.points)
		arm.Sure = it.k == kUnknown && (it.hint > 0 || testedTruthy(r.ctx.arms, x.iterText))
		if r.ctx != nil && r.ctx.fromCode[textRoot(x.iterText)] {
			arm.FromCode = true
			r.ctx.markFromCode(x.targets...)
		}
		r.alts = append(r.alts, x.bodySpan)
		r.arms = append(r.arms, arm)
		r.ctx.arms = append(r.ctx.arms, arm)
		// With an else, body and else are alternatives as an if's
		// branches are: a retry after a YAML error renders the
		// body only (modeFirst), then the else only (modeLast)
		// (irtnog/salt-states: `- names:` over a body of items or
		// an else of `[]` is YAML only one at a time).
		if len(x.els) == 0 || r.mode != modeLast {
			r.ctx.loops++
			r.render(x.body, inner, depth+1)
			r.ctx.loops--
		}
		r.ctx.arms = r.ctx.arms[:len(r.ctx.arms)-1]
		if len(x.els) > 0 && r.mode != modeFirst { // (where it has none)
			els := Arm{Span: x.elsSpan, Point: arm.Point, Arm: 1, Text: "not (" + strings.TrimSpace(x.iterText) + " has items)", Loop: true}
			for _, t := range arm.Tests {
				els.Tests = append(els.Tests, ArmTest{Subj: t.Subj, Pos: !t.Pos})
			}
			r.alts = append(r.alts, x.elsSpan)
			r.arms = append(r.arms, els)
			r.ctx.arms = append(r.ctx.arms, els)
			r.render(x.els, sc, depth+1)
			r.ctx.arms = r.ctx.arms[:len(r.ctx.arms)-1]
		}
		return
	}
	count := 0
	for idx, item := range items {
		inner := &scope{vars: map[string]val{}, parent: sc}
		bindTargets(inner, x.targets, item)
		loop := newDict()
		loop.set("index", numVal(float64(idx+1)))
		loop.set("index0", numVal(float64(idx)))
		loop.set("first", boolVal(idx == 0))
		loop.set("last", boolVal(idx == len(items)-1))
		loop.set("length", numVal(float64(len(items))))
		inner.set("loop", val{k: kDict, dict: loop})
		if x.cond != nil {
			v, _ := r.evalCalls(x.cond, inner, x.condAt)
			b, ok := v.truth()
			if ok && !b {
				continue
			}
		}
		count++
		// an item only some renders have: so is what the body
		// makes of it
		itemArms := item.arms()
		at := len(r.out)
		r.ctx.arms = append(r.ctx.arms, itemArms...)
		r.render(x.body, inner, depth+1)
		r.ctx.arms = r.ctx.arms[:len(r.ctx.arms)-len(itemArms)]
		r.cond(at, len(r.out), itemArms)
		if r.steps > r.limit {
			return
		}
	}
	if count == 0 {
		r.render(x.els, sc, depth+1)
	}
}

// blockScalar reports whether the previous output line opens a YAML
// block scalar (ends in | or >, with chomping), and the indentation its
// content needs.
func (r *renderer) blockScalar() (int, bool) {
	end := len(r.out)
	for end > 0 && (r.out[end-1] == ' ' || r.out[end-1] == '\t') {
		end--
	}
	if end == 0 || r.out[end-1] != '\n' {
		return 0, false
	}
	end--
	start := end
	for start > 0 && r.out[start-1] != '\n' {
		start--
	}
	line := strings.TrimRight(string(r.out[start:end]), " \t\r")
	t := strings.TrimRight(line, "-+0123456789")
	if !strings.HasSuffix(t, "|") && !strings.HasSuffix(t, ">") {
		return 0, false
	}
	// content goes deeper than the key that owns the scalar (after
	// "- " items the key sits further right)
	rest := strings.TrimLeft(line, " ")
	ind := len(line) - len(rest)
	for strings.HasPrefix(rest, "- ") {
		rest = strings.TrimLeft(rest[2:], " ")
		ind = len(line) - len(rest)
	}
	return ind + 2, true
}

// blanksBefore is how many blanks the current output line has before the
// write position.
func (r *renderer) blanksBefore() int {
	n := len(r.out)
	k := n
	for k > 0 && (r.out[k-1] == ' ' || r.out[k-1] == '\t') {
		k--
	}
	return n - k
}

// indented reports whether the current output line has blanks before
// the write position.
func (r *renderer) indented() bool { return r.blanksBefore() > 0 }

// restOfLineBlank reports whether only blanks follow off up to the newline.
func (r *renderer) restOfLineBlank(off int) bool {
	for i := off; i < len(r.src); i++ {
		switch r.src[i] {
		case '\n':
			return true
		case ' ', '\t', '\r':
		default:
			return false
		}
	}
	return true
}

func bindTargets(sc *scope, targets []string, v val) {
	if len(targets) == 1 && !strings.HasPrefix(targets[0], "(") {
		sc.set(targets[0], v)
		return
	}
	var parts []val
	if v.k == kList && !v.condItems() {
		parts = v.elems()
	}
	for i, t := range targets {
		part := unknownVal
		if i < len(parts) {
			part = parts[i]
		}
		if inner, ok := strings.CutPrefix(t, "("); ok {
			// a nested tuple: "(a,b)" or "(a,(b,c))"
			bindTargets(sc, splitTargets(strings.TrimSuffix(inner, ")")), part)
			continue
		}
		sc.set(t, part)
	}
}

// splitTargets splits "a,(b,c),d" at its top-level commas.
func splitTargets(s string) []string {
	var out []string
	depth, start := 0, 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '(':
			depth++
		case ')':
			depth--
		case ',':
			if depth == 0 {
				out = append(out, s[start:i])
				start = i + 1
			}
		}
	}
	return append(out, s[start:])
}

// applyWhitespaceControl trims text tokens next to {%- and -%} markers.
func applyWhitespaceControl(src []byte, toks []jtok) {
	for i := range toks {
		t := &toks[i]
		if t.kind != 't' {
			continue
		}
		if i > 0 && toks[i-1].rstrip {
			for t.in < t.inEnd && isSpace(src[t.in]) {
				t.in++
			}
		}
		if i+1 < len(toks) && toks[i+1].lstrip {
			for t.inEnd > t.in && isSpace(src[t.inEnd-1]) {
				t.inEnd--
			}
		}
	}
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// RenderJinja renders src with the given known variables.
func RenderJinja(src []byte, vars map[string]string) *Rendered {
	return renderJinja(src, vars, modeAll)
}

func renderJinja(src []byte, vars map[string]string, mode int) *Rendered {
	tree, errs := parseJinja(src)
	root := &scope{vars: map[string]val{}, ctx: &evalCtx{}}
	for k, v := range vars {
		if k == FactsVar {
			setFacts(root, v)
			continue
		}
		root.set(k, strVal(v))
	}
	r := &renderer{src: src, limit: 200000, mode: mode, points: new(int32), ctx: root.ctx, undef: new([]Error)}
	r.render(tree, root, 0)
	if r.steps > r.limit {
		errs = append(errs, Error{Span: Span{0, 0}, Severity: 3, Msg: "template expansion stopped early: too many loop iterations"})
	}
	return &Rendered{Text: r.out, Segs: r.segs, Opaque: r.opaque, Alts: r.alts, Arms: r.arms, Conds: r.conds, Errors: errs,
		Undefined: undefinedErrors(src, *r.undef), Py2: root.ctx.py2Errs}
}

// Identity is the "rendering" of a file without a template engine.
func Identity(src []byte) *Rendered {
	return &Rendered{Text: src, Segs: []Seg{{R: 0, RLen: len(src), S: 0, SE: len(src), Lit: true}}}
}
