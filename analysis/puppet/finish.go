package puppet

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"sync/atomic"
	"unicode"

	"github.com/ordering-lsp/ordering-lsp/analysis"
	pp "github.com/ordering-lsp/ordering-lsp/parser/puppet"
	"github.com/ordering-lsp/ordering-lsp/source"
)

// The end of a run's evaluation, as Puppet's evaluate_generators does it:
// collectors (and realize()), the bodies of defined type instances, round
// after round, then overrides and resource defaults.

// ---- collectors ----

// collector is a collector or a realize() of a run, evaluated round after
// round at the end of it (collect).
type collector struct {
	fixed    []val // realize(): the resources it names (Puppet's FixedCollector)
	typ      string
	exported bool
	query    pp.Node
	env      *env
	attrs    []attr
	at       source.Span
	matched  []*res
	scanned  int // r.resources[:scanned] have been matched against the query
	done     bool
	values   map[pp.Node]val // query values, evaluated once in the collector's scope
	// the last tag the query compared and its run.tagID + 1 (0: none):
	// a query compares the same tag for every resource
	tagText string
	tagN    int
}

// override is a reference's override block (`File['x'] { ... }`), applied
// after the last round.
type override struct {
	target val
	attrs  []attr
	env    *env
	at     source.Span
}

func (r *run) collect(c *collector) bool {
	changed := false
	realize := func(x *res) {
		if x.virtual && !x.realized {
			x.realized = true
			changed = true
			if x.kind == "define" {
				r.pending = append(r.pending, x)
			}
		}
	}
	if c.fixed != nil {
		for _, v := range c.fixed {
			switch v.k {
			case vRef:
				if x := r.resolve(v.ref); x != nil {
					realize(x)
				}
			case vRes:
				for _, x := range v.resList() {
					realize(x)
				}
			}
		}
		return changed
	}
	// Each resource is looked at once: nothing a query reads (type, title,
	// tags, attributes) changes before overrides and defaults are applied
	// after the last round, so a resource that did not match will not.
	fresh := r.resources[c.scanned:]
	c.scanned = len(r.resources)
	for _, x := range fresh {
		if x.typ != c.typ || x.kind == "class" {
			continue
		}
		if c.exported {
			// puppet apply has no storeconfigs: export collectors collect nothing.
			continue
		}
		if !r.queryMatch(c, c.query, x) {
			continue
		}
		c.matched = append(c.matched, x)
		realize(x)
	}
	return changed
}

func (r *run) queryMatch(c *collector, q pp.Node, x *res) bool {
	if q == nil {
		return true
	}
	switch t := q.(type) {
	case *pp.Paren:
		return r.queryMatch(c, t.X, x)
	case *pp.Binary:
		switch t.Op {
		case "and":
			return r.queryMatch(c, t.Left, x) && r.queryMatch(c, t.Right, x)
		case "or":
			return r.queryMatch(c, t.Left, x) || r.queryMatch(c, t.Right, x)
		case "==", "!=":
			var name string
			switch l := t.Left.(type) {
			case *pp.Name:
				name = l.Value
			case *pp.Str:
				name = l.Value
			default:
				return false
			}
			want, done := c.values[t.Right]
			if !done {
				want = r.eval(c.env, t.Right)
				if c.values == nil {
					c.values = map[pp.Node]val{}
				}
				c.values[t.Right] = want
			}
			if t.Op == "!=" {
				return neMatch(name, want, x)
			}
			if name == "tag" {
				ws, ok := want.text()
				if !ok {
					return false
				}
				// Every resource has tags (its type at least).
				return r.tagged(x, ws, c.tagIDOf(r, ws))
			}
			return eqMatch(name, want, x)
		}
	}
	return false
}

// neMatch is `name != want` in a collector query. Puppet 7's collector
// (CollectorTransformer#query_ComparisonExpression) has no special case
// for `!=`: it is the negation of its DSL equality (CompareOperator#equals)
// between the value written for the attribute and want. So an attribute
// not written matches (unless want is undef); an array, even ['x'], never
// equals a string; 1 is not '1'; strings compare without case. For tag it
// is the `tag` attribute as written too, not the tags Puppet gives the
// resource (its type, title, classes), which `==` looks at. A value we do
// not know matches nothing, as with `==`.
func neMatch(name string, want val, x *res) bool {
	return neVal(queried(name, x), want)
}

// neVal is neMatch's answer for the value written, have.
func neVal(have, want val) bool {
	eq, known := equal(have, want)
	return known && !eq
}

// eqMatch is `==` on anything but tag, as Puppet 7's collector query
// does it: the written value (the title for title; absent is undef)
// equals the wanted one, or for an array one of its elements does, in
// the language's equality (strings without case, a number never a
// string: `message == '1'` does not match `message => 1`).
func eqMatch(name string, want val, x *res) bool {
	return eqVal(queried(name, x), want)
}

// eqVal is eqMatch's answer for the value written, have.
func eqVal(have, want val) bool {
	if have.k == vArr {
		for _, e := range have.arr {
			if eq, known := equal(e, want); known && eq {
				return true
			}
		}
		return false
	}
	eq, known := equal(have, want)
	return known && eq
}

// queried is the value a query compares: the title, or the attribute as
// written (undef when it is not).
func queried(name string, x *res) val {
	if name == "title" {
		return val{k: vStr, s: x.title}
	}
	if a, ok := x.attr(name); ok {
		return a.v
	}
	return val{k: vUndef}
}

// tagged reports whether Puppet gives x the tag t (case-insensitively):
// its type, its title (when tag-like) and their `::` segments, its `tag`
// attribute, and the same for every container up to main's "class".
// id is t's number in the run (tagID).
func (r *run) tagged(x *res, t string, id int) bool {
	if x.kind == "main" {
		return strings.EqualFold("class", t)
	}
	return x.selfTagged(t) || r.bodyTagged(id, x.scopeRes(), t, 1)
}

// tagStamps numbers the runs that number tags (run.tagStamp): bodyTags
// another run wrote (in memory resArena handed on, or copied by a
// replay) is stale, and read as empty.
var tagStamps atomic.Uint32

// tagID numbers t, a tag a collector's query compares, in this run: bit
// id of every bodyTags is about t.
func (r *run) tagID(t string) int {
	if id, ok := r.tagIDs[t]; ok {
		return id
	}
	if r.tagIDs == nil {
		r.tagIDs = map[string]int{}
		r.tagStamp = tagStamps.Add(1)
	}
	id := len(r.tagNames)
	r.tagIDs[t] = id
	r.tagNames = append(r.tagNames, t)
	return id
}

// tagIDOf is r.tagID(t) without its map lookup when t is the tag c
// compared last (a query compares the same one for every resource).
func (c *collector) tagIDOf(r *run, t string) int {
	if c.tagN == 0 || c.tagText != t {
		c.tagText, c.tagN = t, r.tagID(t)+1
	}
	return c.tagN - 1
}

// tagBodies is the memo of bodyTagged for tag t, for the bodies that keep
// none themselves (see bodyTags).
func (r *run) tagBodies(t string) map[*res]bool {
	if r.tagMemo == nil {
		r.tagMemo = map[string]map[*res]bool{}
	}
	m := r.tagMemo[t]
	if m == nil {
		m = map[*res]bool{}
		r.tagMemo[t] = m
	}
	return m
}

// bodyTags is what bodyTagged knows of one body (a class or define
// instance: those always have a resMore), kept on it: a map per tag
// keyed by body, and selfTagged reading the body's attributes again for
// each tag, were most of what collectors cost in an edit of
// operations-puppet's profile::base. Bit i is about the run's tag number
// i (run.tagNames); tags numbered 64 and on, and bodies without a
// resMore (nodes), use the maps (tagBodies). Either way a body's answer
// for a tag is kept once, computed as it was, so the answers are the same.
type bodyTags struct {
	stamp uint32 // the run.tagStamp of the run that wrote it; another run's is empty
	selfN uint8  // self holds the answers for tags 0..selfN-1
	known uint64 // bodyTagged has answered these tags
	has   uint64 // ... with true
	self  uint64 // selfTagged's answers (all tags numbered so far in one pass)
}

// bodyTagged: the body c (n levels above the resource asked about) or one
// it is in has tag t (number id). The answer is kept per tag and body
// (bodyTags or tagBodies): every resource of a define instance or class
// asks it again (walking each resource's bodies for each collector was 5%
// of check on operations-puppet). Nothing it reads changes while
// collectors run (see collect).
func (r *run) bodyTagged(id int, c *res, t string, n int) bool {
	if c == nil || n >= 100 {
		return false
	}
	if c.kind == "main" {
		// the same answer whether kept or not: keep none
		return strings.EqualFold("class", t)
	}
	bit := uint64(1) << (id & 63)
	var b *bodyTags
	var m map[*res]bool
	if id < 64 && c.resMore != nil {
		b = &c.tags
		if b.stamp != r.tagStamp {
			*b = bodyTags{stamp: r.tagStamp}
		}
		if b.known&bit != 0 {
			return b.has&bit != 0
		}
	} else {
		m = r.tagBodies(t)
		if v, ok := m[c]; ok {
			return v
		}
	}
	var self bool
	if b != nil {
		if id >= int(b.selfN) {
			to := min(len(r.tagNames), 64)
			b.self |= r.selfTagBits(c, int(b.selfN), to)
			b.selfN = uint8(to)
		}
		self = b.self&bit != 0
	} else {
		self = c.selfTagged(t)
	}
	v := self || r.bodyTagged(id, c.scopeRes(), t, n+1)
	if b != nil {
		b.known |= bit
		if v {
			b.has |= bit
		}
	} else {
		m[c] = v
	}
	return v
}

// selfTagBits is selfTagged for the tags r.tagNames[from:to] at once
// (bit i for tag i), reading x's attributes once. The bits of x's type
// are kept per run (bodies of one type are many, and a define's type has
// `::` segments); a title that gives no tag is not checked for being
// tag-like (both must hold).
func (r *run) selfTagBits(x *res, from, to int) uint64 {
	names := r.tagNames
	mask := uint64(1)<<to - 1 // to <= 64: 1<<64 is 0 in Go, and 0-1 is all ones
	mask &^= uint64(1)<<from - 1
	bits := r.typeTagBits(x.typ, to) & mask
	if t := tagBits(x.title, names, from, to); t != 0 && validTag(x.title) {
		bits |= t
	}
	if !x.tagAttr {
		return bits
	}
	if a, ok := x.attr("tag"); ok {
		var lbuf [1]val
		for _, v := range a.v.items(&lbuf) {
			if s, ok := v.text(); ok {
				bits |= tagBits(s, names, from, to)
			}
		}
	}
	return bits
}

// typeTags: the bits tagBits gives a type for the run's first n tags.
type typeTags struct {
	bits uint64
	n    int
}

// typeTagBits is tagBits(typ, r.tagNames, 0, to), kept per type.
func (r *run) typeTagBits(typ string, to int) uint64 {
	tt, ok := r.typeTags[typ]
	if !ok || tt.n < to {
		if r.typeTags == nil {
			r.typeTags = map[string]typeTags{}
		}
		tt.bits |= tagBits(typ, r.tagNames, tt.n, to)
		tt.n = to
		r.typeTags[typ] = tt
	}
	return tt.bits
}

// tagBits has bit i set (from <= i < to) when hasTag(s, names[i]),
// splitting s at `::` once for all of them.
func tagBits(s string, names []string, from, to int) uint64 {
	var bits uint64
	for i := from; i < to; i++ {
		if strings.EqualFold(s, names[i]) {
			bits |= 1 << i
		}
	}
	if !strings.Contains(s, "::") {
		return bits
	}
	for seg := range strings.SplitSeq(s, "::") {
		for i := from; i < to; i++ {
			if strings.EqualFold(seg, names[i]) {
				bits |= 1 << i
			}
		}
	}
	return bits
}

// selfTagged: x's type, title or tag attribute gives it tag t. A title
// is seldom the tag asked for: that is checked before whether it is
// tag-like (validTag reads all of it).
func (x *res) selfTagged(t string) bool {
	if hasTag(x.typ, t) || (hasTag(x.title, t) && validTag(x.title)) {
		return true
	}
	if !x.tagAttr {
		return false
	}
	if a, ok := x.attr("tag"); ok {
		var lbuf [1]val
		for _, v := range a.v.items(&lbuf) {
			if s, ok := v.text(); ok && hasTag(s, t) {
				return true
			}
		}
	}
	return false
}

// scopeRes is the resource whose body declared x.
func (x *res) scopeRes() *res {
	if x.kind == "class" {
		if x.scope == nil {
			return nil
		}
		return x.scope.owner
	}
	return x.container
}

// hasTag: tag s, or for a `::` name one of its segments, is t (tags
// compare without case).
func hasTag(s, t string) bool {
	if strings.EqualFold(s, t) {
		return true
	}
	if !strings.Contains(s, "::") {
		return false
	}
	for seg := range strings.SplitSeq(s, "::") {
		if strings.EqualFold(seg, t) {
			return true
		}
	}
	return false
}

// validTag is Puppet's tag syntax (Puppet::Util::Tagging): a title like
// '/etc/motd' or 'has space' is not a tag.
func validTag(t string) bool {
	if t == "" {
		return false
	}
	ascii := true
	for i := 0; i < len(t) && ascii; i++ {
		c := t[i]
		switch {
		case c >= 0x80:
			ascii = false // letters and digits of other scripts: below
		case c == '_' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9':
		case i == 0 || (c != '.' && c != ':' && c != '-'):
			return false
		}
	}
	if ascii {
		return true
	}
	for i, c := range t {
		word := c == '_' || unicode.IsLetter(c) || unicode.IsDigit(c)
		if !word && (i == 0 || (c != '.' && c != ':' && c != '-')) {
			return false
		}
	}
	return true
}

// ---- finishing: defines, collectors, overrides, defaults ----

func (r *run) finish() {
	// Puppet's evaluate_generators: collections first, in the order they
	// were made (realize() makes one too), then the body of every define
	// instance in the catalog that is neither evaluated nor virtual, in
	// catalog order; again until nothing changes. Collections and bodies
	// made in a round wait for the next one.
	for gen := 0; gen < maxDefineGens; gen++ {
		if r.a.canceled() {
			return
		}
		progress := false
		for _, c := range r.cols {
			if r.collect(c) {
				progress = true
			}
		}
		batch := r.pending
		r.pending = nil
		slices.SortStableFunc(batch, func(x, y *res) int { return x.prio - y.prio })
		for _, x := range batch {
			if x.inner != nil {
				continue
			}
			if r.defEvals++; r.defEvals > maxDefineEvals {
				if r.defEvals == maxDefineEvals+1 {
					r.diag(x.decl, analysis.Warning, "limit", fmt.Sprintf("ordering-lsp stopped evaluating defined types after %d instances (a define that declares itself?)", maxDefineEvals))
				}
				continue
			}
			r.evalDefineShared(x)
			progress = true
		}
		if !progress {
			break
		}
	}
	// realize() of what the catalog does not hold: a missing target like
	// a relationship's, whose severity the whole workspace decides (a
	// class of an absent module, or a caller of a class analysed alone,
	// may declare the virtual resource).
	for _, c := range r.cols {
		for _, v := range c.fixed {
			if v.k == vRef && !v.ref.pat && r.resolve(v.ref) == nil {
				r.missingWhen(v.at, v.ref, fmt.Sprintf("Failed to realize virtual resources %s", refString(v.ref.typ, v.ref.title)), nil)
			}
		}
	}
	// Overrides.
	for _, o := range r.overrides {
		var lbuf [1]val
		for _, t := range o.target.items(&lbuf) {
			var targets []*res
			switch t.k {
			case vRef:
				if x := r.resolve(t.ref); x != nil {
					targets = append(targets, x)
				}
			case vRes:
				targets = t.resList()
			}
			for _, x := range targets {
				x.attrs = append(x.attrs, o.attrs...)
			}
		}
	}
	// Collector override blocks.
	for _, c := range r.cols {
		if len(c.attrs) == 0 {
			continue
		}
		for _, x := range c.matched {
			x.attrs = append(x.attrs, c.attrs...)
		}
	}
	// Resource defaults, dynamically scoped: nearest scope wins, among
	// the defaults written before the resource was created (defaultsOf).
	for _, x := range r.resources {
		if x.kind == "class" || x.kind == "main" || x.kind == "stage" && x.scope == nil {
			continue
		}
		x.attrs = defaultsOf(x.typ, x.scope, x.prio, x.attrs)
	}
	// A collector's override block is a resource Puppet creates when it
	// collects, so it carries the defaults in force in the collector's
	// scope then, and overrides with them as with what it writes
	// (Puppet::Parser::Resource#override_parameter), except where the
	// value is the one a default of the collected resource's own scopes
	// gives (testdata/oracle/defaults_collector_*).
	for _, c := range r.cols {
		if len(c.attrs) == 0 || c.env == nil || len(c.matched) == 0 {
			continue
		}
		extra := defaultsOf(c.typ, c.env.sc, math.MaxInt, c.attrs)[len(c.attrs):]
		for _, x := range c.matched {
			for _, d := range extra {
				if _, set := x.anyAttr(d.name); set && isDefault(x, d) {
					continue
				}
				d.from = byOverride
				x.attrs = append(x.attrs[:len(x.attrs):len(x.attrs)], d)
			}
		}
	}
	r.mergeArms()
}

// isDefault: d's value is what a default for its name in x's dynamic
// scopes gives (Puppet::Parser::Scope#is_default?: every default there
// is, the value compared, not where it was written).
func isDefault(x *res, d attr) bool {
	for s := x.scope; s != nil; s = s.dyn {
		for _, e := range s.defaults[x.typ] {
			if e.name == d.name && sameValue(e.v, d.v) {
				return true
			}
		}
	}
	return false
}

// sameValue compares two values as Puppet's == would for what a default
// can hold (strings, references, arrays of them), ignoring where they
// were written.
func sameValue(a, b val) bool {
	if a.k != b.k || a.pat != b.pat || a.s != b.s || len(a.arr) != len(b.arr) || (a.ref == nil) != (b.ref == nil) {
		return false
	}
	if a.ref != nil && (a.ref.typ != b.ref.typ || a.ref.title != b.ref.title || a.ref.pat != b.ref.pat) {
		return false
	}
	for i := range a.arr {
		if !sameValue(a.arr[i], b.arr[i]) {
			return false
		}
	}
	return (a.x == nil) == (b.x == nil) && (a.x == nil || sameVal(a, b, true))
}

// defaultsOf adds to attrs (a resource's attributes or parameters) the
// resource defaults for type typ that the dynamic scopes from sc held when
// the resource was created at catalog position prio, for the names attrs
// does not set (a default does not count: finish adds them after a define
// instance's parameters took theirs). Puppet 7 looks them up then
// (Puppet::Parser::Resource#initialize), so a default written after a
// resource in its scope does not reach it, and one written after a define
// instance reaches the resources of its body, evaluated later. attrs
// itself is never written: it may be shared.
func defaultsOf(typ string, sc *scope, prio int, attrs []attr) []attr {
	any := false
	for s := sc; s != nil && !any; s = s.dyn {
		for _, d := range s.defaults[typ] {
			if int(d.seq) < prio {
				any = true
				break
			}
		}
	}
	if !any {
		return attrs // no default for this type in scope: nothing to add
	}
	seen := map[string]bool{}
	for _, a := range attrs {
		if a.from != byDefault {
			seen[a.name] = true
		}
	}
	out := attrs[:len(attrs):len(attrs)]
	for s := sc; s != nil; s = s.dyn {
		for _, d := range s.defaults[typ] {
			if int(d.seq) < prio && !seen[d.name] {
				out = append(out, d)
			}
		}
		for _, d := range s.defaults[typ] {
			if int(d.seq) < prio {
				seen[d.name] = true
			}
		}
	}
	return out
}

// inCatalog: virtual resources that were never realized are not applied.
func (x *res) inCatalog() bool { return !x.virtual || x.realized }

// hashAttrs turns a literal hash of parameters into attributes.
func hashAttrs(h val) []attr {
	if h.k != vHash {
		return nil
	}
	var out []attr
	for i, k := range h.hkeys() {
		if name, ok := k.text(); ok {
			out = append(out, attr{name: name, v: h.arr[i], nameAt: packSpan(k.at), at: packSpan(h.arr[i].at)})
		}
	}
	return out
}

// speculate evaluates branches whose condition we cannot decide: each
// branch writes into its own layer over the scope's variables, then a
// variable keeps a value only if every possible branch (exhaustive: no
// implicit empty one) agrees.
func (r *run) speculate(e *env, branches [][]pp.Node, arms []*branch, exhaustive bool) {
	se := *e
	se.spec = true
	if exhaustive && !e.spec {
		for _, a := range arms {
			a.every = int32(len(branches))
		}
	}
	sc := e.sc
	base := sc.vars
	layers := make([]varMap, 0, len(branches)+1)
	for i, b := range branches {
		se.cond = e.cond.under(arms[i])
		sc.under = append(sc.under, &base)
		sc.vars = varMap{}
		r.stmts(&se, b)
		layers = append(layers, sc.vars)
		sc.vars = base
		sc.under = sc.under[:len(sc.under)-1]
	}
	if !exhaustive || len(layers) == 0 {
		layers = append(layers, varMap{})
	}
	get := func(m *varMap, k string) (val, bool) {
		if v, ok := m.get(k); ok {
			return v, true
		}
		v, ok := sc.get(k)
		return v, ok
	}
	for li := range layers {
		layers[li].each(func(k string, v val) {
			same := true
			for oi := range layers {
				w, ok := get(&layers[oi], k)
				if !ok {
					same = false
					break
				}
				if eq, known := equal(v, w); !known || !eq {
					same = false
					break
				}
			}
			if same {
				sc.vars.set(k, v)
			} else {
				sc.vars.set(k, unknown(v.at))
			}
		})
	}
}

// get looks a variable up in this scope only (its layers included).
func (s *scope) get(name string) (val, bool) {
	if v, ok := s.vars.get(name); ok {
		return v, true
	}
	for i := len(s.under) - 1; i >= 0; i-- {
		if v, ok := s.under[i].get(name); ok {
			return v, true
		}
	}
	return val{}, false
}

// matchType is `x =~ Type` for the core data types we can decide.
func matchType(x val, t string) (bool, bool) {
	if !x.known() && x.k != vHash {
		return false, false
	}
	switch t {
	case "Array", "Tuple":
		return x.k == vArr, true
	case "Hash", "Struct":
		return x.k == vHash, true
	case "String":
		return x.k == vStr, true
	case "Boolean":
		return x.k == vBool, true
	case "Integer":
		return x.k == vNum && !strings.ContainsAny(x.s, ".eE"), true
	case "Float":
		return x.k == vNum && strings.ContainsAny(x.s, ".eE"), true
	case "Numeric":
		return x.k == vNum, true
	case "Undef":
		return x.k == vUndef, true
	case "Any":
		return true, true
	case "NotUndef":
		return x.k != vUndef, true
	}
	return false, false
}

// mergeHash is Puppet's hash + hash: keys of the right side win.
func mergeHash(l, r val, at source.Span) val {
	out := val{k: vHash, at: at, x: &valX{}}
	idx := map[string]int{}
	put := func(k, v val) {
		ks, ok := k.text()
		if !ok {
			ks = "\x00?" + fmt.Sprint(len(idx))
		}
		if i, seen := idx[ks]; seen {
			out.arr[i] = v
			return
		}
		idx[ks] = len(out.arr)
		out.x.keys = append(out.x.keys, k)
		out.arr = append(out.arr, v)
	}
	for i, k := range l.hkeys() {
		put(k, l.arr[i])
	}
	for i, k := range r.hkeys() {
		put(k, r.arr[i])
	}
	return out
}

// subtract is hash - keys (a key, an array of keys or a hash) and
// array - array / element.
func subtract(l, r val, at source.Span) (val, bool) {
	var drop []val
	switch r.k {
	case vHash:
		drop = r.hkeys()
	case vArr:
		drop = r.arr
	default:
		drop = []val{r}
	}
	gone := func(x val) (bool, bool) {
		for _, d := range drop {
			eq, ok := equal(x, d)
			if !ok {
				return false, false
			}
			if eq {
				return true, true
			}
		}
		return false, true
	}
	if l.k == vHash {
		out := val{k: vHash, at: at, x: &valX{}}
		for i, k := range l.hkeys() {
			g, ok := gone(k)
			if !ok {
				return val{}, false
			}
			if !g {
				out.x.keys = append(out.x.keys, k)
				out.arr = append(out.arr, l.arr[i])
			}
		}
		return out, true
	}
	out := val{k: vArr, at: at}
	for _, x := range l.arr {
		g, ok := gone(x)
		if !ok {
			return val{}, false
		}
		if !g {
			out.arr = append(out.arr, x)
		}
	}
	return out, true
}
