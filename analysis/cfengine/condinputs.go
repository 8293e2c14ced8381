package cfengine

import (
	"sort"
	"strings"

	cfp "github.com/ordering-lsp/ordering-lsp/parser/cfengine"
)

// Inputs whose value a class decides. cf-promises expands inputs after it
// has evaluated the classes of common bundles and the vars of every
// bundle (PolicyResolve), with -D classes and hard classes known: a
// variable defined several times under class contexts takes, on a host,
// the value of the last definition whose context holds there
// (`"d" string => "a"; B:: "d" string => "b";` is b where B is defined,
// a elsewhere). condEval computes each value of an input item with the
// class condition under which a host computes it, so a missing file can
// be reported for the hosts that name it. Anything it cannot follow (an
// array, a function, def.json, a variable context, a file only some hosts
// load) makes the item unknown, and it stays silent.

// condTerm is a class expression that holds (neg: does not hold).
type condTerm struct {
	expr string
	neg  bool
}

// condVal is one value and the conjunction of terms under which a host
// computes it.
type condVal struct {
	val   string
	terms []condTerm
}

type condEval struct {
	pol     *policy
	written bool // keep the checkout's folders as written (pathVars)
	base    *evaluator
	cache   map[string][]condVal
	busy    map[string]bool
}

func newCondEval(pol *policy, written bool) *condEval {
	return &condEval{pol: pol, written: written,
		base:  &evaluator{pol: pol, cache: map[string]*valueSet{}, busy: map[string]bool{}, strict: true, written: written},
		cache: map[string][]condVal{}, busy: map[string]bool{}}
}

func (c *condEval) rval(r *cfp.Rval, sc scope) ([]condVal, bool) {
	if r == nil {
		return nil, false
	}
	switch r.Kind {
	case cfp.String, cfp.Ident:
		if v := r.Value; len(v) > 3 && v[0] == '@' && (v[1] == '(' && v[len(v)-1] == ')' || v[1] == '{' && v[len(v)-1] == '}') &&
			!strings.ContainsAny(v[2:len(v)-1], "()${}") {
			return c.lookup(v[2:len(v)-1], sc)
		}
		return c.expand(r.Value, sc)
	case cfp.NakedVar:
		if strings.HasPrefix(r.Value, "@") {
			return c.lookup(r.Value[2:len(r.Value)-1], sc)
		}
		return c.expand(r.Value, sc)
	case cfp.List:
		var out []condVal
		for _, it := range r.Items {
			vs, ok := c.rval(it, sc)
			if !ok {
				return nil, false
			}
			out = append(out, vs...)
		}
		if len(out) > maxValues {
			return nil, false
		}
		return out, true
	}
	return nil, false
}

// builtin: names the evaluator knows without definitions (sys.*,
// const.*, this.*).
func builtin(name string) bool {
	return strings.HasPrefix(name, "sys.") || strings.HasPrefix(name, "const.") || strings.HasPrefix(name, "this.")
}

func (c *condEval) lookup(name string, sc scope) ([]condVal, bool) {
	if builtin(name) {
		vs := c.base.lookup(name, sc)
		if !vs.resolved || len(vs.vals) == 0 {
			return nil, false
		}
		out := make([]condVal, len(vs.vals))
		for i, v := range vs.vals {
			out[i] = condVal{val: v}
		}
		return out, true
	}
	key := name
	if !strings.Contains(name, ".") {
		if sc.bundle == nil {
			return nil, false
		}
		key = sc.bundle.key + "." + name
	} else if strings.HasPrefix(name, "default:") {
		key = strings.TrimPrefix(name, "default:")
	}
	if out, ok := c.cache[key]; ok {
		return out, out != nil
	}
	if c.busy[key] {
		return nil, false
	}
	c.busy[key] = true
	out := c.defsValues(key)
	delete(c.busy, key)
	c.cache[key] = out
	return out, out != nil
}

// defsValues: the values of the definitions of key, each under its guard
// and under no later definition's guard (a later one overwrites it).
func (c *condEval) defsValues(key string) []condVal {
	version := c.pol.a.version()
	var live []*varDef
	for _, d := range c.pol.varDefs(key, false) {
		if d.promise.VarContext {
			return nil
		}
		if everywhere(d.promise.Context, version) != triFalse {
			live = append(live, d)
		}
	}
	if len(live) == 0 {
		return nil
	}
	guards := make([][]condTerm, len(live))
	for i, d := range live {
		if d.bundle != live[0].bundle || !c.pol.certain[d.bundle.file] {
			return nil
		}
		g, ok := guardTerms(d.promise, version)
		if !ok {
			return nil
		}
		guards[i] = g
	}
	out := []condVal{}
	for i, d := range live {
		terms := append([]condTerm(nil), guards[i]...)
		shadowed := false
		for _, g := range guards[i+1:] {
			if len(g) == 0 {
				shadowed = true // a later definition every host takes
				break
			}
			if len(g) == 1 {
				terms = append(terms, condTerm{expr: g[0].expr, neg: !g[0].neg})
			} else {
				terms = append(terms, condTerm{expr: termsExpr(g), neg: true})
			}
		}
		if shadowed {
			continue
		}
		vals, ok := c.value(d)
		if !ok {
			return nil
		}
		for _, v := range vals {
			out = append(out, condVal{val: v.val, terms: append(append([]condTerm(nil), terms...), v.terms...)})
		}
		if len(out) > maxValues {
			return nil
		}
	}
	return out
}

// guardTerms: the class context and if/ifvarclass/unless of a promise as
// terms (those true at the version left out); ok is false when one is
// not a class expression written out.
func guardTerms(p *cfp.Promise, version string) ([]condTerm, bool) {
	var out []condTerm
	add := func(expr string, neg bool) bool {
		if strings.ContainsAny(expr, "$@") {
			return false
		}
		if everywhere(expr, version) == triTrue {
			if neg {
				out = append(out, condTerm{expr: "any", neg: true})
			}
			return true
		}
		out = append(out, condTerm{expr: expr, neg: neg})
		return true
	}
	if !add(p.Context, false) {
		return nil, false
	}
	for _, k := range p.Constraints {
		switch k.Lval.Text {
		case "if", "ifvarclass", "unless":
			if k.Rval == nil || k.Rval.Kind != cfp.String && k.Rval.Kind != cfp.Ident || !add(k.Rval.Value, k.Lval.Text == "unless") {
				return nil, false
			}
		}
	}
	return out, true
}

// termsExpr writes a conjunction as one class expression.
func termsExpr(ts []condTerm) string {
	if len(ts) == 0 {
		return "any"
	}
	parts := make([]string, len(ts))
	for i, t := range ts {
		e := t.expr
		if !plainClass(e) {
			e = "(" + e + ")"
		}
		if t.neg {
			e = "!" + e
		}
		parts[i] = e
	}
	return strings.Join(parts, ".")
}

// plainClass: expr is one class name.
func plainClass(expr string) bool {
	if expr == "" {
		return false
	}
	for i := 0; i < len(expr); i++ {
		if !isWordByte(expr[i]) && expr[i] != ':' {
			return false
		}
	}
	return true
}

func (c *condEval) value(d *varDef) ([]condVal, bool) {
	for _, k := range d.promise.Constraints {
		switch k.Lval.Text {
		case "string", "slist":
			return c.rval(k.Rval, scope{bundle: d.bundle, dir: d.bundle.dir})
		case "int", "real", "ilist", "rlist", "data":
			return nil, false
		}
	}
	return nil, false
}

// expand interpolates $(x) and ${x} in s, each result under the
// conditions of the values it took (one value per variable, however many
// times it is written).
func (c *condEval) expand(s string, sc scope) ([]condVal, bool) {
	if !strings.Contains(s, "$(") && !strings.Contains(s, "${") {
		return []condVal{{val: s}}, true
	}
	results := []condVal{{}}
	var picks [][]pick
	for i := 0; i < len(s); {
		if s[i] == '$' && i+1 < len(s) && (s[i+1] == '(' || s[i+1] == '{') {
			end := matchClose(s, i+1)
			if end < 0 {
				return nil, false
			}
			inner := s[i+2 : end]
			if strings.Contains(inner, "$(") || strings.Contains(inner, "${") {
				return nil, false
			}
			var vs []condVal
			if c.written && pathVars[inner] {
				vs = []condVal{{val: s[i : end+1]}}
			} else {
				var ok bool
				if vs, ok = c.lookup(inner, sc); !ok || len(vs) == 0 {
					return nil, false
				}
			}
			if picks != nil && picked(picks[0], inner) >= 0 {
				for k := range results {
					results[k].val += vs[picked(picks[k], inner)].val
				}
			} else {
				var next []condVal
				var nextPicks [][]pick
				for k, r := range results {
					for vi, v := range vs {
						if len(next) >= maxValues {
							return nil, false
						}
						next = append(next, condVal{val: r.val + v.val, terms: append(append([]condTerm(nil), r.terms...), v.terms...)})
						var pk []pick
						if picks != nil {
							pk = picks[k]
						}
						nextPicks = append(nextPicks, append(pk[:len(pk):len(pk)], pick{inner, vi}))
					}
				}
				results, picks = next, nextPicks
			}
			i = end + 1
			continue
		}
		j := i
		for j < len(s) && s[j] != '$' {
			j++
		}
		if j == i {
			j = i + 1
		}
		for k := range results {
			results[k].val += s[i:j]
		}
		i = j
	}
	return results, true
}

// condCubes is the class expression under which one of conds holds (over
// the version's classes, the classes the policy defines from an
// expression, and free classes), with the hosts in words (the condition
// reduced to its smallest sum of conjunctions); sat and taut say whether
// some host / every host meets it. ok is false when it cannot be decided
// (an expression that does not parse, too many classes).
func (pol *policy) condCubes(conds [][]condTerm) (expr, words string, sat, taut, ok bool) {
	defs := pol.classDefs()
	var key strings.Builder
	key.WriteString(pol.clsDefsKey)
	for _, ts := range conds {
		key.WriteString(termsExpr(ts))
		key.WriteByte(0)
	}
	if r, hit := pol.a.cubes[key.String()]; hit {
		return r.expr, r.words, r.sat, r.taut, r.ok
	}
	expr, words, sat, taut, ok = pol.computeCubes(conds, defs)
	pol.a.cubes[key.String()] = cubeResult{expr, words, sat, taut, ok}
	return
}

// cubeResult is what condCubes gave for some conditions (with the
// policy's classDefs of the time).
type cubeResult struct {
	expr, words   string
	sat, taut, ok bool
}

func (pol *policy) computeCubes(conds [][]condTerm, defs map[string]string) (expr, words string, sat, taut, ok bool) {
	var ors []string
	for _, ts := range conds {
		ors = append(ors, termsExpr(ts))
	}
	if len(ors) == 1 {
		expr = ors[0]
	} else {
		for i, o := range ors {
			ors[i] = "(" + o + ")"
		}
		expr = strings.Join(ors, "|")
	}
	version := pol.a.version()
	var atoms []string
	seen := map[string]bool{}
	// classOf values a class: the version's, one the policy defines as
	// an expression (that expression), else assign's
	var classOf func(name string, assign func(string) tri, busy map[string]bool) tri
	classOf = func(name string, assign func(string) tri, busy map[string]bool) tri {
		if v := versionClass(name, version); v != triMaybe {
			return v
		}
		if e, ok := defs[name]; ok && !busy[name] {
			busy[name] = true
			v := triExpr(e, func(n string) tri { return classOf(n, assign, busy) })
			delete(busy, name)
			return v
		}
		return assign(name)
	}
	free := func(name string) tri {
		if !seen[name] {
			seen[name] = true
			atoms = append(atoms, name)
		}
		return triMaybe
	}
	busy := map[string]bool{}
	if _, ok := readClassExpr[tri](expr, triValues(func(n string) tri { return classOf(n, free, busy) }), 0); !ok || len(atoms) > 12 {
		return "", "", false, false, false
	}
	// the truth table of expr over the atoms, all assignments at once
	truth, ok := readClassExpr[table](expr, &tableValues{n: len(atoms), atoms: atoms, defs: defs, version: version, busy: map[string]bool{}}, 0)
	if !ok {
		return "", "", false, false, false
	}
	taut = true
	var minterms []uint32
	for m := 0; m < 1<<len(atoms); m++ {
		if truth[m/64]&(1<<(m%64)) != 0 {
			sat = true
			minterms = append(minterms, uint32(m))
		} else {
			taut = false
		}
	}
	if sat && !taut {
		words = cubeWords(atoms, minimize(minterms, len(atoms)))
	}
	return expr, words, sat, taut, true
}

// classDefs are the classes a common bundle of a file every host loads
// defines from a class expression, unguarded, in the policy's only
// classes promise of that name (`"other_unix_os" expression =>
// "!windows.!linux";`, `"site" expression => "any";`): cf-promises
// evaluates them before it expands inputs, so on a host the class is
// that expression.
func (pol *policy) classDefs() map[string]string {
	if pol.clsDefs != nil && pol.clsDefsN == len(pol.files) {
		return pol.clsDefs
	}
	out := map[string]string{}
	pol.clsDefs, pol.clsDefsN = out, len(pol.files)
	defer func() {
		// the key of these definitions, for condCubes' cache
		names := make([]string, 0, len(out))
		for n := range out {
			names = append(names, n)
		}
		sort.Strings(names)
		var k strings.Builder
		for _, n := range names {
			k.WriteString(n + "=" + out[n] + "\x01")
		}
		k.WriteByte(0)
		pol.clsDefsKey = k.String()
	}()
	count := map[string]int{}
	version := pol.a.version()
	for _, b := range pol.bundles {
		for _, p := range b.promises {
			if p.typ != "classes" {
				continue
			}
			name := canonify(p.p.Promiser)
			count[name]++
			if b.block.Type.Text != "common" || !pol.certain[b.file] || p.p.VarContext || everywhere(p.p.Context, version) != triTrue {
				continue
			}
			expr, guarded := "", false
			for _, k := range p.p.Constraints {
				switch k.Lval.Text {
				case "expression":
					if k.Rval != nil && (k.Rval.Kind == cfp.String || k.Rval.Kind == cfp.Ident) && !strings.ContainsAny(k.Rval.Value, "$@") {
						expr = k.Rval.Value
					}
				case "if", "ifvarclass", "unless":
					guarded = true
				}
			}
			if expr != "" && !guarded {
				out[name] = expr
			}
		}
	}
	for name := range out {
		if count[name] != 1 {
			delete(out, name)
		}
	}
	return out
}

func allDefined(names []string) string {
	if len(names) == 1 {
		return names[0] + " is defined"
	}
	return strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1] + " are defined"
}

// noneDefined: "X is not defined", "neither X nor Y is defined", "none
// of X, Y, Z is defined" (with tail ""; "X is not", "neither X nor Y is").
func noneDefined(names []string, tail string) string {
	var s string
	switch len(names) {
	case 1:
		s = names[0] + " is not"
	case 2:
		s = "neither " + names[0] + " nor " + names[1] + " is"
	default:
		s = "none of " + strings.Join(names, ", ") + " is"
	}
	if tail != "" {
		s += " " + tail
	}
	return s
}

// condInputs: for an inputs item whose values classes decide, each value
// some hosts but not all compute, with those hosts in words, and under
// "\x00"+value the value as messages quote it; nil when the item cannot
// be followed. context is the inputs attribute's class context.
// c and cw are the round's evaluators, the second keeping the checkout's
// folders as written.
func (a *analyzer) condInputs(pol *policy, c, cw *condEval, it *cfp.Rval, sc scope, context string) map[string]string {
	vals, ok := c.rval(it, sc)
	if !ok {
		return nil
	}
	shown, ok := cw.rval(it, sc)
	if !ok || len(shown) != len(vals) {
		return nil
	}
	var outer []condTerm
	if context != "" && everywhere(context, a.version()) != triTrue {
		outer = []condTerm{{expr: context}}
	}
	byVal := map[string][][]condTerm{}
	var order []string
	for _, v := range vals {
		if _, ok := byVal[v.val]; !ok {
			order = append(order, v.val)
		}
		byVal[v.val] = append(byVal[v.val], append(append([]condTerm(nil), outer...), v.terms...))
	}
	out := map[string]string{}
	for k, v := range vals {
		if _, ok := out["\x00"+v.val]; !ok {
			out["\x00"+v.val] = shown[k].val
		}
	}
	for _, v := range order {
		conds := byVal[v]
		_, words, sat, taut, ok := pol.condCubes(conds)
		switch {
		case !ok:
			return nil
		case !sat:
			continue
		case taut:
			out[v] = ""
		default:
			out[v] = words
		}
	}
	return out
}

// cube is a conjunction over atoms: the bits of care are in it, with
// the values in val.
type cube struct{ care, val uint32 }

// minimize gives a small set of cubes covering exactly the minterms
// (Quine-McCluskey's prime implicants, then a greedy cover, both in a
// fixed order).
func minimize(minterms []uint32, n int) []cube {
	all := uint32(1)<<n - 1
	cur := map[cube]bool{}
	for _, m := range minterms {
		cur[cube{all, m}] = true
	}
	var primes []cube
	for len(cur) > 0 {
		next := map[cube]bool{}
		used := map[cube]bool{}
		keys := sortedCubes(cur)
		for i, a := range keys {
			for _, b := range keys[i+1:] {
				if a.care != b.care {
					continue
				}
				d := a.val ^ b.val
				if d != 0 && d&(d-1) == 0 {
					next[cube{a.care &^ d, a.val &^ d}] = true
					used[a], used[b] = true, true
				}
			}
		}
		for _, c := range keys {
			if !used[c] {
				primes = append(primes, c)
			}
		}
		cur = next
	}
	// greedy: the prime covering most uncovered minterms (fewest
	// classes, then order, on ties)
	left := map[uint32]bool{}
	for _, m := range minterms {
		left[m] = true
	}
	var out []cube
	for len(left) > 0 {
		best, bestN := -1, 0
		for i, c := range primes {
			k := 0
			for m := range left {
				if m&c.care == c.val {
					k++
				}
			}
			if k > bestN || k == bestN && k > 0 && bits(c.care) < bits(primes[best].care) {
				best, bestN = i, k
			}
		}
		if best < 0 {
			break
		}
		c := primes[best]
		out = append(out, c)
		for m := range left {
			if m&c.care == c.val {
				delete(left, m)
			}
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if bits(out[i].care) != bits(out[j].care) {
			return bits(out[i].care) < bits(out[j].care)
		}
		return out[i].care < out[j].care || out[i].care == out[j].care && out[i].val > out[j].val
	})
	return out
}

func sortedCubes(m map[cube]bool) []cube {
	out := make([]cube, 0, len(m))
	for c := range m {
		out = append(out, c)
	}
	sort.Slice(out, func(i, j int) bool {
		return out[i].care < out[j].care || out[i].care == out[j].care && out[i].val < out[j].val
	})
	return out
}

func bits(x uint32) int {
	n := 0
	for ; x != 0; x &= x - 1 {
		n++
	}
	return n
}

// cubeWords says on which hosts the cubes hold: "only on hosts where
// GERMANY is defined", "... where neither ITALY nor GERMANY is defined",
// else a class expression ('debian|redhat|linux.!specific_linux_os').
func cubeWords(atoms []string, cubes []cube) string {
	if len(cubes) == 1 {
		var pos, neg []string
		for k, a := range atoms {
			if cubes[0].care&(1<<k) == 0 {
				continue
			}
			if cubes[0].val&(1<<k) != 0 {
				pos = append(pos, a)
			} else {
				neg = append(neg, a)
			}
		}
		var s string
		switch {
		case len(pos) == 0:
			s = noneDefined(neg, "defined")
		case len(neg) == 0:
			s = allDefined(pos)
		default:
			s = allDefined(pos) + " and " + noneDefined(neg, "")
		}
		return "only on hosts where " + s
	}
	ors := make([]string, len(cubes))
	for i, c := range cubes {
		var lits []string
		for k, a := range atoms {
			if c.care&(1<<k) == 0 {
				continue
			}
			if c.val&(1<<k) == 0 {
				a = "!" + a
			}
			lits = append(lits, a)
		}
		ors[i] = strings.Join(lits, ".")
	}
	return "only on hosts where the class expression '" + strings.Join(ors, "|") + "' holds"
}

// tableValues reads a class expression into its truth table over n
// atoms (bit m of the table: the value when atom k is set iff bit k of m
// is); a class the policy defines from an expression is that
// expression's table, the version's classes are constant.
type tableValues struct {
	n       int
	atoms   []string
	defs    map[string]string
	version string
	busy    map[string]bool
}

type table []uint64

func (t *tableValues) words() int { return (1<<t.n + 63) / 64 }

func (t *tableValues) konst(v bool) table {
	tb := make(table, t.words())
	if v {
		for m := 0; m < 1<<t.n; m++ {
			tb[m/64] |= 1 << (m % 64)
		}
	}
	return tb
}

// (or, and and not change a: every value read is a table of its own)
func (t *tableValues) or(a, b table) table {
	for k := range a {
		a[k] |= b[k]
	}
	return a
}

func (t *tableValues) and(a, b table) table {
	for k := range a {
		a[k] &= b[k]
	}
	return a
}

func (t *tableValues) not(a table) table {
	all := t.konst(true)
	for k := range a {
		a[k] = ^a[k] & all[k]
	}
	return a
}

func (t *tableValues) unreadable() table { return t.konst(false) }

func (t *tableValues) class(name string, depth int) (table, bool) {
	switch versionClass(name, t.version) {
	case triTrue:
		return t.konst(true), true
	case triFalse:
		return t.konst(false), true
	}
	if e, ok := t.defs[name]; ok && !t.busy[name] {
		t.busy[name] = true
		v, ok := readClassExpr[table](e, t, depth)
		delete(t.busy, name)
		return v, ok
	}
	for k, a := range t.atoms {
		if a == name {
			tb := make(table, t.words())
			for m := 0; m < 1<<t.n; m++ {
				if m&(1<<k) != 0 {
					tb[m/64] |= 1 << (m % 64)
				}
			}
			return tb, true
		}
	}
	return t.konst(false), false // not an atom: the first pass saw every name
}
