package salt

import (
	"slices"
	"strings"
)

// The evaluation of Jinja expressions (parsed by the grammar in
// jinja_grammar.go): enough to evaluate what is knowable without executing
// anything (literals, names bound by set/for, string methods, common
// filters). Anything else evaluates to unknown.

// expr is a parsed expression.
type expr interface{}

type (
	eLit  struct{ v val }
	eName struct{ name string }
	eList struct{ items []expr }
	eDict struct{ keys, vals []expr }
	eAttr struct {
		x    expr
		name string
	}
	eIndex struct{ x, i expr }
	eSlice struct{ x, lo, hi expr }
	eCall  struct {
		fn   expr
		args []expr
		kw   map[string]expr
	}
	eFilter struct {
		x    expr
		name string
		args []expr
		kw   map[string]expr
	}
	eTest struct {
		x    expr
		name string
		neg  bool
		args []expr
	}
	eBin struct {
		op   string
		l, r expr
	}
	eNot  struct{ x expr }
	eNeg  struct{ x expr }
	eCond struct{ then, cond, els expr }
	eBad  struct{}
)

// scope is a chain of variable bindings.
type scope struct {
	vars   map[string]val
	parent *scope
	ctx    *evalCtx // set on the root scope of a render
}

// evalCtx is what the render is doing while expressions are evaluated:
// the undecidable branches being rendered (an item appended there exists
// only in the renders that take them) and the loops over unknown items
// (how many times an append there runs is unknown).
type evalCtx struct {
	arms    []Arm
	loops   int
	mutated bool // the last `do` changed a list it knows
	// track: names looked up and bound nowhere are noted in undef (while
	// an output expression is evaluated: undefinedNames)
	track bool
	undef []string
	// judge: the Python 2 dict methods called are noted in calls (while
	// an expression Jinja surely evaluates is: jinja_py2.go); py2Errs are
	// the errors they make (py2At indexes them by place), dead > 0 while
	// rendering a body Salt never reaches (its if or for surely fails)
	judge   bool
	calls   []py2Call
	py2Errs []Error
	py2At   map[Span]int
	dead    int
	// fromCode: names bound from template code the render does not
	// evaluate (an import, a macro, load_yaml) or from such a name
	fromCode map[string]bool
}

// markFromCode notes names bound from code the render does not evaluate.
func (c *evalCtx) markFromCode(names ...string) {
	if c.fromCode == nil {
		c.fromCode = map[string]bool{}
	}
	for _, n := range names {
		c.fromCode[n] = true
	}
}

// textRoot is the name an expression's text starts from (`d` of
// `d.k3s.pkg.deps_url`).
func textRoot(text string) string {
	text = strings.TrimSpace(text)
	i := 0
	for i < len(text) && (text[i] == '_' || text[i] >= 'a' && text[i] <= 'z' || text[i] >= 'A' && text[i] <= 'Z' || i > 0 && text[i] >= '0' && text[i] <= '9') {
		i++
	}
	return text[:i]
}

func (s *scope) context() *evalCtx {
	for c := s; c != nil; c = c.parent {
		if c.ctx != nil {
			return c.ctx
		}
	}
	return nil
}

// mutate runs a list method that changes the list in place (Jinja lists
// are Python lists: every name bound to it sees the change).
func (c *evalCtx) mutate(l *listObj, method string, args []val) val {
	c.mutated = true
	if method != "append" && method != "extend" && method != "insert" {
		l.shrunk = true
	}
	if c.loops > 0 {
		l.unknown = true
		return noneVal()
	}
	own := l.items // no two lists share an array: every list is made from a new slice
	switch method {
	case "append":
		if len(args) != 1 {
			l.unknown = true
			break
		}
		l.items = append(own, args[0].withArms(c.arms))
	case "extend":
		items, ok := unknownVal.items()
		if len(args) == 1 {
			items, ok = args[0].items()
		}
		if !ok {
			l.unknown = true
			break
		}
		for _, it := range items {
			own = append(own, it.withArms(c.arms))
		}
		l.items = own
	case "insert":
		if len(args) != 2 || args[0].k != kNum || len(c.arms) > 0 || args[1].condItems() {
			l.unknown = true
			break
		}
		i := int(args[0].n)
		if i < 0 {
			i = max(0, i+len(own))
		}
		i = min(i, len(own))
		out := append(append(append([]val(nil), own[:i]...), args[1]), own[i:]...)
		l.items = out
	default:
		l.unknown = true
		return unknownVal // pop() gives an item nobody knows
	}
	return noneVal()
}

func (s *scope) lookup(name string) (val, bool) {
	for c := s; c != nil; c = c.parent {
		if v, ok := c.vars[name]; ok {
			return v, true
		}
	}
	return unknownVal, false
}

func (s *scope) set(name string, v val) { s.vars[name] = v }

// assignWhere rebinds name in the scope that defines it (objects live
// there: a `do x.append()` in a loop changes the outer x), else in s.
func (s *scope) assignWhere(name string, v val) {
	for c := s; c != nil; c = c.parent {
		if _, ok := c.vars[name]; ok {
			c.vars[name] = v
			return
		}
	}
	s.vars[name] = v
}

func eval(e expr, sc *scope, depth int) val {
	v := eval1(e, sc, depth)
	if v.k == kList && v.lst.unknown {
		u := unknownVal
		if !v.lst.shrunk && slices.ContainsFunc(v.lst.items, func(it val) bool { return len(it.arms()) == 0 }) {
			// items were only added to it: it has the ones every
			// render gives it (openSUSE/heroes-salt's collectors,
			// extended in a loop over pillar)
			u.hint = 1
		}
		return u
	}
	return v
}

func eval1(e expr, sc *scope, depth int) val {
	if depth > 200 {
		return unknownVal
	}
	depth++
	switch x := e.(type) {
	case eLit:
		return x.v
	case eName:
		v, ok := sc.lookup(x.name)
		if !ok && !renderGlobals[x.name] {
			if c := sc.context(); c != nil && c.track {
				c.undef = append(c.undef, x.name)
			}
		}
		return v
	case eList:
		l := make([]val, len(x.items))
		for i, it := range x.items {
			l[i] = eval(it, sc, depth)
		}
		return listVal(l)
	case eDict:
		d := newDict()
		for i := range x.keys {
			k, ok := eval(x.keys[i], sc, depth).key()
			if !ok {
				return unknownVal
			}
			d.set(k, eval(x.vals[i], sc, depth))
		}
		return val{k: kDict, dict: d}
	case eAttr:
		return attr(eval(x.x, sc, depth), x.name)
	case eIndex:
		return index(eval(x.x, sc, depth), eval(x.i, sc, depth))
	case eSlice:
		return slice(eval(x.x, sc, depth), x.lo, x.hi, sc, depth)
	case eCall:
		return call(x, sc, depth)
	case eFilter:
		return filter(x, sc, depth)
	case eTest:
		return test(x, sc, depth)
	case eNot:
		b, ok := eval(x.x, sc, depth).truth()
		if !ok {
			return unknownVal
		}
		return boolVal(!b)
	case eNeg:
		v := eval(x.x, sc, depth)
		if v.k == kNum {
			return numVal(-v.n)
		}
		return unknownVal
	case eCond:
		b, ok := eval(x.cond, sc, depth).truth()
		if !ok {
			return unknownVal
		}
		if b {
			return eval(x.then, sc, depth)
		}
		return eval(x.els, sc, depth)
	case eBin:
		return binary(x, sc, depth)
	}
	return unknownVal
}

func attr(v val, name string) val {
	if v.k == kDict {
		if r, ok := v.dict.m[name]; ok {
			return r
		}
		return unknownVal
	}
	// Methods are resolved by call(); a bare attribute of a known scalar
	// is unknown.
	return unknownVal
}

func index(v, i val) val {
	switch v.k {
	case kDict:
		k, ok := i.key()
		if !ok {
			return unknownVal
		}
		if r, ok := v.dict.m[k]; ok {
			return r
		}
	case kList:
		if i.k == kNum && !v.condItems() {
			l := v.elems()
			n := int(i.n)
			if n < 0 {
				n += len(l)
			}
			if n >= 0 && n < len(l) {
				return l[n]
			}
		}
	case kStr:
		if i.k == kNum && v.known() {
			rs := []rune(v.s)
			n := int(i.n)
			if n < 0 {
				n += len(rs)
			}
			if n >= 0 && n < len(rs) {
				return strVal(string(rs[n]))
			}
		}
	}
	return unknownVal
}

func slice(v val, loE, hiE expr, sc *scope, depth int) val {
	var n int
	switch v.k {
	case kList:
		if v.condItems() {
			return unknownVal
		}
		n = len(v.elems())
	case kStr:
		if !v.known() {
			return unknownVal
		}
		n = len([]rune(v.s))
	default:
		return unknownVal
	}
	bound := func(e expr, def int) (int, bool) {
		if e == nil {
			return def, true
		}
		b := eval(e, sc, depth)
		if b.k != kNum {
			return 0, false
		}
		i := int(b.n)
		if i < 0 {
			i += n
		}
		return max(0, min(i, n)), true
	}
	lo, ok1 := bound(loE, 0)
	hi, ok2 := bound(hiE, n)
	if !ok1 || !ok2 {
		return unknownVal
	}
	if hi < lo {
		hi = lo
	}
	if v.k == kList {
		return listVal(append([]val(nil), v.elems()[lo:hi]...))
	}
	return strVal(string([]rune(v.s)[lo:hi]))
}

func evalArgs(args []expr, sc *scope, depth int) []val {
	out := make([]val, len(args))
	for i, a := range args {
		out[i] = eval(a, sc, depth)
	}
	return out
}

func call(x eCall, sc *scope, depth int) val {
	if _, ok := x.kw["expr_form"]; ok && saltFunc(x.fn, sc, depth) == "mine.get" {
		// Salt 3001 removed expr_form (tgt_type): mine.get takes no such
		// keyword, the call fails every render
		notePy2Call(sc, eName{name: "salt"}, unknownVal, removedKwarg+"expr_form")
	}
	// salt['pillar.get'](...) / salt['grains.get'](...) with the user's facts
	if ix, ok := x.fn.(eIndex); ok {
		if n, ok := ix.x.(eName); ok && n.name == "salt" {
			if fn, ok := eval(ix.i, sc, depth).key(); ok {
				var which string
				switch fn {
				case "pillar.get", "config.get":
					which = "\x00pillar"
				case "grains.get":
					which = "\x00grains"
				}
				if which != "" {
					if root, ok := sc.lookup(which); ok && root.k == kDict {
						return saltGet(root, evalArgs(x.args, sc, depth))
					}
				}
			}
		}
	}
	at, ok := x.fn.(eAttr)
	if !ok {
		if n, ok := x.fn.(eName); ok {
			args := evalArgs(x.args, sc, depth)
			switch n.name {
			case "range":
				var lo, hi float64
				switch len(args) {
				case 1:
					if args[0].k != kNum {
						return unknownVal
					}
					hi = args[0].n
				case 2:
					if args[0].k != kNum || args[1].k != kNum {
						return unknownVal
					}
					lo, hi = args[0].n, args[1].n
				default:
					return unknownVal
				}
				if hi-lo > 1000 {
					return unknownVal
				}
				var l []val
				for i := lo; i < hi; i++ {
					l = append(l, numVal(i))
				}
				return listVal(l)
			case "dict":
				d := newDict()
				for k, e := range x.kw {
					d.set(k, eval(e, sc, depth))
				}
				if len(args) == 0 {
					sortKeys(d)
					return val{k: kDict, dict: d}
				}
			case "namespace":
				d := newDict()
				for k, e := range x.kw {
					d.set(k, eval(e, sc, depth))
				}
				return val{k: kDict, dict: d}
			}
		}
		return unknownVal
	}
	recv := eval(at.x, sc, depth)
	args := evalArgs(x.args, sc, depth)
	if py2Methods[at.name] {
		notePy2Call(sc, at.x, recv, at.name)
		return unknownVal
	}
	if recv.k == kList {
		switch at.name {
		case "append", "extend", "insert", "pop", "remove", "clear", "sort", "reverse":
			if ctx := sc.context(); ctx != nil {
				return ctx.mutate(recv.lst, at.name, args)
			}
			recv.lst.unknown = true
			recv.lst.shrunk = true
			return unknownVal
		}
	}
	arg := func(i int) (string, bool) {
		if i < len(args) && args[i].k == kStr {
			return args[i].s, true
		}
		return "", false
	}
	switch recv.k {
	case kStr:
		s := recv.s
		switch at.name {
		case "split":
			if !recv.known() {
				return unknownVal
			}
			var parts []string
			if sep, ok := arg(0); ok && sep != "" {
				n := -1
				if len(args) > 1 && args[1].k == kNum {
					n = int(args[1].n) + 1
				}
				parts = strings.SplitN(s, sep, n)
			} else if len(args) == 0 {
				parts = strings.Fields(s)
			} else {
				return unknownVal
			}
			l := make([]val, len(parts))
			for i, p := range parts {
				l[i] = strVal(p)
			}
			return listVal(l)
		case "rsplit":
			sep, ok := arg(0)
			if !ok || sep == "" || !recv.known() {
				return unknownVal
			}
			n := -1
			if len(args) > 1 && args[1].k == kNum {
				n = int(args[1].n)
			}
			var parts []string
			if n < 0 {
				parts = strings.Split(s, sep)
			} else {
				rest := s
				for len(parts) < n {
					i := strings.LastIndex(rest, sep)
					if i < 0 {
						break
					}
					parts = append([]string{rest[i+len(sep):]}, parts...)
					rest = rest[:i]
				}
				parts = append([]string{rest}, parts...)
			}
			l := make([]val, len(parts))
			for i, p := range parts {
				l[i] = strVal(p)
			}
			return listVal(l)
		case "replace":
			a, ok1 := arg(0)
			b, ok2 := arg(1)
			if !ok1 || !ok2 || !recv.known() {
				return unknownVal
			}
			return strVal(strings.ReplaceAll(s, a, b))
		case "lower":
			return strVal(strings.ToLower(s))
		case "upper":
			return strVal(strings.ToUpper(s))
		case "strip", "rstrip", "lstrip":
			cut := " \t\n\r"
			if c, ok := arg(0); ok {
				cut = c
			}
			switch at.name {
			case "strip":
				return strVal(strings.Trim(s, cut))
			case "rstrip":
				return strVal(strings.TrimRight(s, cut))
			}
			return strVal(strings.TrimLeft(s, cut))
		case "startswith", "endswith":
			p, ok := arg(0)
			if !ok || !recv.known() {
				return unknownVal
			}
			if at.name == "startswith" {
				return boolVal(strings.HasPrefix(s, p))
			}
			return boolVal(strings.HasSuffix(s, p))
		case "join":
			if len(args) == 1 && args[0].k == kList {
				return joinMarked(args[0].elems(), s)
			}
		case "format":
			out := s
			for _, a := range args {
				out = strings.Replace(out, "{}", a.text(), 1)
			}
			if strings.Contains(out, "{") {
				return unknownVal
			}
			return strVal(out)
		}
	case kDict:
		switch at.name {
		case "get":
			if len(args) == 0 {
				return unknownVal
			}
			k, ok := args[0].key()
			if !ok {
				return unknownVal
			}
			if v, ok := recv.dict.m[k]; ok {
				return v
			}
			if len(args) > 1 {
				return args[1]
			}
			return noneVal()
		case "items":
			l := make([]val, len(recv.dict.keys))
			for i, k := range recv.dict.keys {
				l[i] = listVal([]val{strVal(k), recv.dict.m[k]})
			}
			return listVal(l)
		case "keys":
			l := make([]val, len(recv.dict.keys))
			for i, k := range recv.dict.keys {
				l[i] = strVal(k)
			}
			return listVal(l)
		case "values":
			l := make([]val, len(recv.dict.keys))
			for i, k := range recv.dict.keys {
				l[i] = recv.dict.m[k]
			}
			return listVal(l)
		}
	}
	return unknownVal
}

func sortKeys(d *dict) {
	l := make([]val, len(d.keys))
	for i, k := range d.keys {
		l[i] = strVal(k)
	}
	l = sortVals(l)
	for i := range l {
		d.keys[i] = l[i].s
	}
}

func filter(x eFilter, sc *scope, depth int) val {
	var v val
	if c := sc.context(); c != nil && c.track && (x.name == "default" || x.name == "d") {
		// (an undefined name is what default is for, not an attribute
		// of one: `foo.bar|default(1)` fails where foo is unbound)
		if o := strictObject(x.x); o != nil {
			eval(o, sc, depth)
		}
		c.track = false
		v = eval(x.x, sc, depth)
		c.track = true
	} else {
		v = eval(x.x, sc, depth)
	}
	args := evalArgs(x.args, sc, depth)
	// arg is the i-th positional argument or the keyword argument name
	arg := func(i int, name string) (val, bool) {
		if i < len(args) {
			return args[i], true
		}
		if e, ok := x.kw[name]; ok {
			return eval(e, sc, depth), true
		}
		return unknownVal, false
	}
	switch x.name {
	case "yaml":
		// salt/utils/jinja.py format_yaml(value, flow_style=True)
		flow := true
		if f, ok := arg(0, "flow_style"); ok {
			b, known := f.truth()
			if !known {
				return unknownVal
			}
			flow = b
		}
		if s, marks, ok := yamlDump(v, flow); ok && len(args)+len(x.kw) <= 1 {
			return markedStr(s, marks)
		}
		return unknownVal
	case "json":
		// format_json(value, sort_keys=True, indent=None)
		sortKeys, indent := true, -1
		if f, ok := arg(0, "sort_keys"); ok {
			b, known := f.truth()
			if !known {
				return unknownVal
			}
			sortKeys = b
		}
		if f, ok := arg(1, "indent"); ok && f.k != kNone {
			if f.k != kNum || f.n < 0 || f.n != float64(int(f.n)) {
				return unknownVal
			}
			indent = int(f.n)
		}
		if s, marks, ok := jsonDump(v, sortKeys, indent); ok && len(args)+len(x.kw) <= 2 {
			return markedStr(s, marks)
		}
		return unknownVal
	case "indent":
		// jinja2 do_indent(s, width=4, first=False, blank=False)
		if v.k != kStr || !v.known() {
			return unknownVal
		}
		prefix := "    "
		if w, ok := arg(0, "width"); ok {
			switch {
			case w.k == kNum && w.n >= 0 && w.n == float64(int(w.n)) && w.n < 1000:
				prefix = strings.Repeat(" ", int(w.n))
			case w.k == kStr && w.known():
				prefix = w.s
			default:
				return unknownVal
			}
		}
		flags := [2]bool{}
		for i, name := range []string{"first", "blank"} {
			if f, ok := arg(i+1, name); ok {
				b, known := f.truth()
				if !known {
					return unknownVal
				}
				flags[i] = b
			}
		}
		return indentMarked(v, prefix, flags[0], flags[1])
	case "default", "d":
		if v.k == kUnknown {
			// An undefined name takes the default; an unknown value may
			// be defined. Only a literal default over an undefined local
			// name is knowable, and we cannot tell which: unknown.
			return unknownVal
		}
		return v
	case "string":
		if v.k == kUnknown {
			return unknownVal
		}
		return strVal(v.text())
	case "lower":
		if v.k == kStr {
			return strVal(strings.ToLower(v.s))
		}
	case "upper":
		if v.k == kStr {
			return strVal(strings.ToUpper(v.s))
		}
	case "trim":
		if v.k == kStr {
			return strVal(strings.TrimSpace(v.s))
		}
	case "capitalize":
		if v.k == kStr && v.known() && v.s != "" {
			return strVal(strings.ToUpper(v.s[:1]) + strings.ToLower(v.s[1:]))
		}
	case "replace":
		if v.k == kStr && v.known() && len(args) >= 2 && args[0].k == kStr && args[1].k == kStr {
			return strVal(strings.ReplaceAll(v.s, args[0].s, args[1].s))
		}
	case "join":
		if v.k == kList {
			sep := ""
			if len(args) > 0 && args[0].k == kStr {
				sep = args[0].s
			}
			return joinMarked(v.elems(), sep)
		}
	case "list":
		if l, ok := v.items(); ok {
			return listVal(append([]val(nil), l...)) // a new list
		}
	case "first":
		if v.k == kList && len(v.elems()) > 0 && !v.condItems() {
			return v.elems()[0]
		}
	case "last":
		if v.k == kList && len(v.elems()) > 0 && !v.condItems() {
			return v.elems()[len(v.elems())-1]
		}
	case "length", "count":
		if l, ok := v.items(); ok && !v.condItems() {
			return numVal(float64(len(l)))
		}
	case "sort":
		if v.k == kList && !v.condItems() {
			return listVal(sortVals(v.elems()))
		}
	case "reverse":
		if v.k == kList && !v.condItems() {
			l := make([]val, len(v.elems()))
			for i, it := range v.elems() {
				l[len(l)-1-i] = it
			}
			return listVal(l)
		}
	case "unique":
		if v.k == kList && !v.condItems() {
			var l []val
			seen := map[string]bool{}
			for _, it := range v.elems() {
				if !seen[it.repr()] {
					seen[it.repr()] = true
					l = append(l, it)
				}
			}
			return listVal(l)
		}
	case "int":
		if v.k == kNum || (v.k == kStr && v.known()) {
			return numVal(float64(int64(toNum(v))))
		}
	case "float":
		if v.k == kNum || (v.k == kStr && v.known()) {
			return numVal(toNum(v))
		}
	case "bool", "to_bool":
		if b, ok := v.truth(); ok {
			if v.k == kStr {
				s := strings.ToLower(v.s)
				return boolVal(s == "true" || s == "yes" || s == "1" || s == "on")
			}
			return boolVal(b)
		}
	case "dictsort":
		if v.k == kDict {
			d := &dict{keys: append([]string(nil), v.dict.keys...), m: v.dict.m}
			sortKeys(d)
			l := make([]val, len(d.keys))
			for i, k := range d.keys {
				l[i] = listVal([]val{strVal(k), d.m[k]})
			}
			return listVal(l)
		}
	}
	return unknownVal
}

// strictObject is what a test for being defined or a default filter
// evaluates without StrictUndefined's leniency: the object whose attribute,
// item or method the subject takes (foo in `foo.bar`, `foo['bar']`,
// `foo.get('x')`), when it is a plain chain of names, attributes and
// literal indexes (no call evaluated twice); nil otherwise.
func strictObject(e expr) expr {
	var o expr
	switch x := e.(type) {
	case eAttr:
		o = x.x
	case eIndex:
		o = x.x
	case eCall:
		if a, ok := x.fn.(eAttr); ok {
			o = a.x
		}
	}
	if o == nil || !pureChain(o) {
		return nil
	}
	return o
}

func pureChain(e expr) bool {
	switch x := e.(type) {
	case eName:
		return true
	case eAttr:
		return pureChain(x.x)
	case eIndex:
		_, lit := x.i.(eLit)
		return lit && pureChain(x.x)
	}
	return false
}

func test(x eTest, sc *scope, depth int) val {
	var r val
	switch x.name {
	case "defined", "undefined":
		name, isName := x.x.(eName)
		if !isName {
			// `foo.bar is defined`: only the last lookup may give an
			// undefined; the object it is made on is evaluated, and an
			// unbound name there fails (salt-order: "Jinja variable
			// 'foo' is undefined")
			if o := strictObject(x.x); o != nil {
				eval(o, sc, depth)
			}
			return unknownVal
		}
		v, ok := sc.lookup(name.name)
		if !ok || v.k == kUnknown {
			return unknownVal
		}
		r = boolVal(x.name == "defined")
	default:
		// a test of a name nothing binds is no error (`x is none`), of
		// anything more is (`x.y is none`, `x|length is number`)
		_, bare := x.x.(eName)
		v := evalMaybe(x.x, sc, depth, !bare)
		if v.k == kUnknown {
			return unknownVal
		}
		switch x.name {
		case "none":
			r = boolVal(v.k == kNone)
		case "string":
			r = boolVal(v.k == kStr)
		case "number", "integer", "float":
			r = boolVal(v.k == kNum)
		case "mapping":
			r = boolVal(v.k == kDict)
		case "sequence", "iterable":
			r = boolVal(v.k == kList || v.k == kStr || v.k == kDict)
		case "list":
			r = boolVal(v.k == kList)
		case "true", "false":
			r = boolVal(v.k == kBool && v.b == (x.name == "true"))
		case "sameas", "equalto", "eq":
			if len(x.args) != 1 {
				return unknownVal
			}
			eq, ok := equal(v, eval(x.args[0], sc, depth))
			if !ok {
				return unknownVal
			}
			r = boolVal(eq)
		default:
			return unknownVal
		}
	}
	if x.neg {
		r.b = !r.b
	}
	return r
}

// evalMaybe is eval of what Jinja evaluates only in some renders (the
// right of `and` after an unknown left, ...) or without failing on an
// undefined name: unless surely, the names it finds unbound are not
// judged (StrictUndefined fails only where they are evaluated).
func evalMaybe(e expr, sc *scope, depth int, surely bool) val {
	if c := sc.context(); c != nil && c.track && !surely {
		c.track = false
		defer func() { c.track = true }()
	}
	if c := sc.context(); c != nil && c.judge && !surely {
		c.judge = false
		defer func() { c.judge = true }()
	}
	return eval(e, sc, depth)
}

func binary(x eBin, sc *scope, depth int) val {
	switch x.op {
	case "and":
		l := eval(x.l, sc, depth)
		lb, lok := l.truth()
		if lok && !lb {
			return l
		}
		r := evalMaybe(x.r, sc, depth, lok)
		if !lok {
			if rb, rok := r.truth(); rok && !rb {
				// x or r, falsy either way: Jinja prints which one
				return val{hint: -1}
			}
			return unknownVal
		}
		return r
	case "or":
		l := eval(x.l, sc, depth)
		lb, lok := l.truth()
		if lok && lb {
			return l
		}
		r := evalMaybe(x.r, sc, depth, lok)
		if !lok {
			if rb, rok := r.truth(); rok && rb {
				// x or r, truthy either way: `pillar.get('x') or [...]`
				// prints one of them, not True (saltstack-formulas/
				// rabbitmq-formula package/clean.sls `names:`)
				return val{hint: 1}
			}
			return unknownVal
		}
		return r
	}
	l := eval(x.l, sc, depth)
	r := eval(x.r, sc, depth)
	switch x.op {
	case "~":
		return concatMarked(l, r)
	case "+":
		switch {
		case l.k == kStr && r.k == kStr:
			return concatMarked(l, r)
		case l.k == kNum && r.k == kNum:
			return numVal(l.n + r.n)
		case l.k == kList && r.k == kList:
			return listVal(append(append([]val(nil), l.elems()...), r.elems()...))
		case l.k == kStr && r.k == kUnknown, l.k == kUnknown && r.k == kStr:
			return strVal(l.text() + r.text())
		}
		return unknownVal
	case "==", "!=":
		eq, ok := equal(l, r)
		if !ok {
			return unknownVal
		}
		return boolVal(eq == (x.op == "=="))
	case "in":
		if !l.known() {
			return unknownVal
		}
		switch r.k {
		case kStr:
			if !r.known() || l.k != kStr {
				return unknownVal
			}
			return boolVal(strings.Contains(r.s, l.s))
		case kList:
			maybe := false
			for _, it := range r.elems() {
				eq, ok := equal(l, it)
				if !ok {
					return unknownVal
				}
				if eq {
					if len(it.arms()) == 0 {
						return boolVal(true)
					}
					maybe = true // only some renders add it
				}
			}
			if maybe {
				return unknownVal
			}
			return boolVal(false)
		case kDict:
			k, _ := l.key()
			_, ok := r.dict.m[k]
			return boolVal(ok)
		}
		return unknownVal
	}
	if l.k == kNum && r.k == kNum {
		a, b := l.n, r.n
		switch x.op {
		case "-":
			return numVal(a - b)
		case "*":
			return numVal(a * b)
		case "/":
			if b != 0 {
				return numVal(a / b)
			}
		case "//":
			if b != 0 {
				return numVal(float64(int64(a / b)))
			}
		case "%":
			if b != 0 && a == float64(int64(a)) && b == float64(int64(b)) {
				return numVal(float64(int64(a) % int64(b)))
			}
		case "<":
			return boolVal(a < b)
		case ">":
			return boolVal(a > b)
		case "<=":
			return boolVal(a <= b)
		case ">=":
			return boolVal(a >= b)
		}
	}
	if l.k == kStr && r.k == kStr && l.known() && r.known() {
		switch x.op {
		case "<":
			return boolVal(l.s < r.s)
		case ">":
			return boolVal(l.s > r.s)
		case "<=":
			return boolVal(l.s <= r.s)
		case ">=":
			return boolVal(l.s >= r.s)
		}
	}
	return unknownVal
}

// saltFunc names the Salt function fn calls (`salt['mine.get']`,
// `salt.mine.get`), salt being the renderer's, or "".
func saltFunc(fn expr, sc *scope, depth int) string {
	isSalt := func(e expr) bool {
		n, ok := e.(eName)
		if !ok || n.name != "salt" {
			return false
		}
		_, bound := sc.lookup("salt")
		return !bound
	}
	switch f := fn.(type) {
	case eIndex:
		if isSalt(f.x) {
			if k, ok := eval(f.i, sc, depth).key(); ok {
				return k
			}
		}
	case eAttr:
		if m, ok := f.x.(eAttr); ok && isSalt(m.x) {
			return m.name + "." + f.name
		}
	}
	return ""
}
