package puppet

import (
	"crypto/md5"
	"crypto/sha1"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"path"
	"strconv"
	"strings"

	"github.com/ordering-lsp/ordering-lsp/analysis"
	pp "github.com/ordering-lsp/ordering-lsp/parser/puppet"
	"github.com/ordering-lsp/ordering-lsp/source"
)

// pureFunc evaluates the side-effect-free functions that commonly build
// titles and parameters (core Puppet and stdlib), when their arguments
// are known. Method calls pass the receiver as the first argument.
func pureFunc(name string, args []val, at source.Span) (val, bool) {
	name = strings.TrimPrefix(name, "stdlib::")
	strArg := func(i int) (string, bool) {
		if i >= len(args) {
			return "", false
		}
		s, ok := args[i].text()
		return s, ok && (args[i].k == vStr || args[i].k == vNum || args[i].k == vBool)
	}
	mapStr := func(f func(string) string) (val, bool) {
		if len(args) == 0 {
			return val{}, false
		}
		if args[0].k == vArr {
			out := val{k: vArr, at: at}
			for _, x := range args[0].arr {
				s, ok := x.text()
				if !ok || x.k != vStr {
					return val{}, false
				}
				out.arr = append(out.arr, str(f(s), at))
			}
			return out, true
		}
		s, ok := strArg(0)
		if !ok {
			return val{}, false
		}
		return str(f(s), at), true
	}
	switch name {
	case "downcase":
		return mapStr(strings.ToLower)
	case "upcase":
		return mapStr(strings.ToUpper)
	case "capitalize":
		return mapStr(func(s string) string {
			if s == "" {
				return s
			}
			return strings.ToUpper(s[:1]) + strings.ToLower(s[1:])
		})
	case "strip":
		return mapStr(strings.TrimSpace)
	case "basename":
		return mapStr(path.Base)
	case "dirname":
		return mapStr(path.Dir)
	case "md5", "sha1", "sha256":
		s, ok := strArg(0)
		if !ok {
			return val{}, false
		}
		var sum []byte
		switch name {
		case "md5":
			h := md5.Sum([]byte(s))
			sum = h[:]
		case "sha1":
			h := sha1.Sum([]byte(s))
			sum = h[:]
		default:
			h := sha256.Sum256([]byte(s))
			sum = h[:]
		}
		return str(hex.EncodeToString(sum), at), true
	case "regsubst":
		if len(args) < 3 {
			return val{}, false
		}
		pat, ok1 := args[1].text()
		if args[1].k == vRegex {
			pat, ok1 = args[1].s, true
		}
		repl, ok2 := strArg(2)
		if !ok1 || !ok2 {
			return val{}, false
		}
		flags := ""
		if len(args) > 3 {
			flags, _ = args[3].text()
		}
		expr := pat
		if strings.Contains(flags, "I") {
			expr = "(?i)" + expr
		}
		re, err := compileRegex(expr)
		if err != nil {
			return val{}, false
		}
		// Ruby's \1 and \0 become Go's ${1} and ${0}.
		goRepl := repl
		for i := 9; i >= 0; i-- {
			goRepl = strings.ReplaceAll(goRepl, fmt.Sprintf("\\%d", i), fmt.Sprintf("${%d}", i))
		}
		global := strings.Contains(flags, "G")
		return mapStr(func(s string) string {
			if global {
				return re.ReplaceAllString(s, goRepl)
			}
			loc := re.FindStringSubmatchIndex(s)
			if loc == nil {
				return s
			}
			var dst []byte
			dst = re.ExpandString(dst, goRepl, s, loc)
			return s[:loc[0]] + string(dst) + s[loc[1]:]
		})
	case "join":
		if len(args) == 0 || args[0].k != vArr {
			return val{}, false
		}
		sep := ""
		if len(args) > 1 {
			sep, _ = args[1].text()
		}
		parts := make([]string, 0, len(args[0].arr))
		for _, x := range args[0].arr {
			s, ok := x.text()
			if !ok {
				return val{}, false
			}
			parts = append(parts, s)
		}
		return str(strings.Join(parts, sep), at), true
	case "split":
		s, ok := strArg(0)
		sep, ok2 := strArg(1)
		if len(args) > 1 && args[1].k == vRegex {
			re, err := compileRegex(args[1].s)
			if err != nil || !ok {
				return val{}, false
			}
			out := val{k: vArr, at: at}
			for _, p := range re.Split(s, -1) {
				out.arr = append(out.arr, str(p, at))
			}
			return out, true
		}
		if !ok || !ok2 {
			return val{}, false
		}
		out := val{k: vArr, at: at}
		for _, p := range strings.Split(s, sep) {
			out.arr = append(out.arr, str(p, at))
		}
		return out, true
	case "pick", "pick_default":
		for _, a := range args {
			if a.k == vUnknown {
				return val{}, false
			}
			if a.k != vUndef && !(a.k == vStr && a.s == "" && !a.pat) {
				return a, true
			}
		}
		if name == "pick_default" && len(args) > 0 {
			return args[len(args)-1], true
		}
		return val{}, false
	case "concat":
		out := val{k: vArr, at: at}
		for _, a := range args {
			out.arr = append(out.arr, a.list()...)
		}
		return out, true
	case "flatten":
		if len(args) == 1 {
			return val{k: vArr, arr: args[0].list(), at: at}, true
		}
	case "sprintf":
		f, ok := strArg(0)
		if !ok {
			return val{}, false
		}
		var vs []any
		for _, a := range args[1:] {
			s, ok := a.text()
			if !ok {
				return val{}, false
			}
			if a.k == vNum {
				if n, ok := numVal(a.s); ok {
					vs = append(vs, int64(n))
					continue
				}
			}
			vs = append(vs, s)
		}
		out := fmt.Sprintf(f, vs...)
		if strings.Contains(out, "%!") {
			return val{}, false
		}
		return str(out, at), true
	case "any2array":
		if len(args) == 0 {
			return val{k: vArr, at: at}, true
		}
		if args[0].k == vUnknown {
			return val{}, false
		}
		if args[0].k == vArr {
			return args[0], true
		}
		if len(args) == 1 {
			return val{k: vArr, arr: []val{args[0]}, at: at}, true
		}
		return val{k: vArr, arr: append([]val(nil), args...), at: at}, true
	case "unique":
		if len(args) == 1 && args[0].k == vArr {
			out := val{k: vArr, at: at}
			seen := map[string]bool{}
			for _, x := range args[0].arr {
				s, ok := x.text()
				if !ok {
					return val{}, false
				}
				if !seen[s] {
					seen[s] = true
					out.arr = append(out.arr, x)
				}
			}
			return out, true
		}
	case "empty":
		if len(args) == 1 {
			switch args[0].k {
			case vArr, vHash:
				return val{k: vBool, s: fmt.Sprint(len(args[0].arr) == 0), at: at}, true
			case vStr:
				if !args[0].pat {
					return val{k: vBool, s: fmt.Sprint(args[0].s == ""), at: at}, true
				}
			case vUndef:
				return val{k: vBool, s: "true", at: at}, true
			}
		}
	case "size", "length", "count":
		if len(args) == 1 && (args[0].k == vArr || args[0].k == vHash) {
			return val{k: vNum, s: fmt.Sprint(len(args[0].arr)), at: at}, true
		}
	case "str2bool":
		if s, ok := strArg(0); ok {
			switch strings.ToLower(s) {
			case "true", "yes", "y", "1", "t":
				return val{k: vBool, s: "true", at: at}, true
			case "false", "no", "n", "0", "f", "", "undef":
				return val{k: vBool, s: "false", at: at}, true
			}
		}
	case "String":
		if s, ok := strArg(0); ok {
			return str(s, at), true
		}
	case "keys", "values":
		if len(args) == 1 && args[0].k == vHash {
			out := val{k: vArr, at: at}
			if name == "keys" {
				out.arr = append(out.arr, args[0].hkeys()...)
			} else {
				out.arr = append(out.arr, args[0].arr...)
			}
			return out, true
		}
	case "merge":
		if len(args) >= 1 {
			acc := val{k: vHash, at: at, x: &valX{}}
			for _, a := range args {
				if a.k != vHash {
					return val{}, false
				}
				acc = mergeHash(acc, a, at)
			}
			return acc, true
		}
	}
	return val{}, false
}

// ---- functions ----

func (r *run) call(e *env, t *pp.Call, at source.Span) val {
	nameAt := r.span(e.f, t.NameLoc)
	switch t.Name {
	case "import":
		// Puppet 3's import (oslcat, slillibri): an evaluation error since
		// Puppet 4, where the statement runs
		r.diag(nameAt, analysis.Error, "evaluation", "Use of 'import' has been discontinued in favor of a manifest directory. See http://links.puppet.com/puppet-import-deprecation")
		return val{k: vUndef, at: at}
	case "include", "contain", "require", "hiera_include":
		for i, a := range t.Args {
			v := r.eval(e, a)
			if t.Name == "hiera_include" {
				// hiera_include('classes') is include(hiera_array('classes')):
				// every level's list, merged.
				if i > 0 {
					break
				}
				v = r.function(e, "hiera_array", nameAt, []val{v}, t.Args, nil, at)
			}
			if v.k == vUnknown {
				if r.rec != nil {
					r.recFail() // reads the run's Hiera keys
				}
				r.unknownIncludes = true // a list nobody knows: any classes, any module's
				if key := r.hieraKeys[v.at]; key != "" {
					r.hieraClasses(e, key, v.at, t.Name)
				}
			}
			var lbuf [1]val
			for _, x := range v.items(&lbuf) {
				name, ok := x.text()
				if x.k == vRef && x.ref.typ == "Class" {
					name, ok = x.ref.title, !x.ref.pat
				}
				if !ok {
					r.classByUnknownName = true // any class may be the one it names
					if x.k == vStr && x.pat {
						r.includeFamily(e, x, a)
					}
					continue
				}
				c := r.declareClass(e, name, x.at, t.Name, nil)
				if c == nil {
					continue
				}
				owner := e.sc.owner
				switch t.Name {
				case "contain":
					if owner != nil && owner != c {
						c.more().also = append(c.extraContainers(), owner)
						if r.rec != nil {
							r.recSite(c, siteEff{class: c.title, also: owner})
						}
					}
				case "require":
					if owner != nil {
						cref := &ref{typ: "Class", title: c.title, at: x.at}
						r.rels = append(r.rels, &relation{op: "require()", left: val{k: vRef, ref: cref, at: x.at}, right: val{k: vRes, x: &valX{res: []*res{owner}}}, at: x.at, cond: e.cond})
					}
				}
			}
		}
		return val{k: vUndef, at: at}
	case "realize":
		// Not at once: Puppet adds a collection, evaluated with the
		// others before each round of defined-type bodies (finish).
		for _, a := range t.Args {
			v := r.eval(e, a)
			r.cols = append(r.cols, &collector{fixed: v.list(), env: e, at: r.span(e.f, *a.Span())})
		}
		return val{k: vUndef, at: at}
	}
	var args []val
	if len(t.Args) > 0 {
		args = make([]val, 0, len(t.Args)) // one allocation, not one per argument
	}
	for _, a := range t.Args {
		args = append(args, r.eval(e, a))
	}
	return r.function(e, t.Name, nameAt, args, t.Args, t.Lambda, at)
}

// function evaluates the calls that matter for the catalog: iteration
// with lambdas (each, map, filter, with...) and create_resources.
func (r *run) function(e *env, name string, nameAt source.Span, args []val, argNodes []pp.Node, lam *pp.Lambda, at source.Span) val {
	switch name {
	case "each", "map", "filter", "reduce", "with", "slice", "flat_map", "any", "all", "step", "reverse_each":
		if lam == nil {
			return unknown(at)
		}
		if name == "with" {
			r.lambda(e, lam, args)
			return unknown(at)
		}
		if len(args) == 0 {
			return unknown(at)
		}
		coll := args[0]
		n := 0
		switch coll.k {
		case vArr:
			var out []val
			for i, x := range coll.arr {
				if n++; n > 10000 {
					break
				}
				var res val
				if len(lam.Params) >= 2 {
					res = r.lambda(e, lam, []val{{k: vNum, s: fmt.Sprint(i)}, x})
				} else {
					res = r.lambda(e, lam, []val{x})
				}
				out = append(out, res)
			}
			if name == "map" {
				return val{k: vArr, arr: out, at: at}
			}
			return unknown(at)
		case vHash:
			for i, k := range coll.hkeys() {
				if n++; n > 10000 {
					break
				}
				if len(lam.Params) >= 2 {
					r.lambda(e, lam, []val{k, coll.arr[i]})
				} else {
					r.lambda(e, lam, []val{{k: vArr, arr: []val{k, coll.arr[i]}}})
				}
			}
			return unknown(at)
		case vNum:
			if f, ok := numVal(coll.s); ok && f < 10000 {
				for i := 0; i < int(f); i++ {
					r.lambda(e, lam, []val{{k: vNum, s: fmt.Sprint(i)}})
				}
			}
			return unknown(at)
		}
		// Unknown collection: evaluate the body once with unknown
		// parameters so its resources exist as patterns.
		r.specLambda(e, lam, name, at)
		return unknown(at)
	case "lookup", "hiera", "hiera_array", "hiera_hash":
		if len(args) >= 1 {
			if key, ok := args[0].text(); ok && args[0].k == vStr {
				unique, deep := name == "hiera_array", false
				if len(args) >= 3 && name == "lookup" {
					if m, ok := args[2].text(); ok {
						unique, deep = m == "unique", m == "deep"
					}
				}
				v, found, certain := r.a.hieraLookup3(key, at)
				if (unique || deep && v.k == vArr) && found && v.k != vUnknown {
					// (a deep merge of arrays is their union too)
					// every level's array, highest priority first, each
					// element once (Puppet's unique merge)
					v = r.a.hieraUnique(key, at)
				}
				if found && v.k != vUnknown {
					return v
				}
				if found || !certain {
					// A level we cannot read (it needs facts or node data)
					// may hold the key: the default is only a guess.
					if r.hieraKeys == nil {
						r.hieraKeys = map[source.Span]string{}
					}
					merge := name == "hiera_array" // lookup(key, type, merge): unique, deep, hash merge the levels
					if len(args) >= 3 && name == "lookup" {
						if m, ok := args[2].text(); ok && m != "first" && m != "" {
							merge = true
						}
					}
					if merge {
						key += mergedMark
					}
					r.hieraKeys[at] = key
					if r.rec != nil {
						r.recHKey(at, key)
					}
					return unknown(at)
				}
			} else {
				return unknown(at)
			}
			// A default: lookup(key, default_value => x),
			// lookup(key, type, merge, default), hiera(key, default).
			for _, d := range args[1:] {
				if d.k == vHash {
					for i, k := range d.hkeys() {
						if s, _ := k.text(); s == "default_value" {
							return d.arr[i]
						}
					}
				}
			}
			if name != "lookup" && len(args) >= 2 {
				return args[1]
			}
			if len(args) >= 4 {
				return args[3]
			}
		}
		return unknown(at)
	case "ensure_resource", "stdlib::ensure_resource":
		if len(args) >= 2 {
			if typ, ok := args[0].text(); ok {
				var attrs []attr
				if len(args) >= 3 {
					attrs = hashAttrs(args[2])
				}
				args[1].each(func(tv val) {
					r.declare(e, strings.ToLower(typ), tv, attrs, tv.at, packSpan(at), false, false, true)
				})
			}
		}
		return unknown(at)
	case "ensure_resources", "stdlib::ensure_resources", "create_resources":
		if len(args) >= 2 && args[1].k == vHash {
			if typ, ok := args[0].text(); ok {
				virtual := strings.HasPrefix(typ, "@")
				exported := strings.HasPrefix(typ, "@@")
				typ = strings.ToLower(strings.TrimLeft(typ, "@"))
				var defaults []attr
				if len(args) >= 3 {
					defaults = hashAttrs(args[2])
				}
				for i, k := range args[1].hkeys() {
					attrs := append(append([]attr(nil), defaults...), hashAttrs(args[1].arr[i])...)
					r.declare(e, typ, k, attrs, k.at, packSpan(at), virtual, exported, name != "create_resources")
				}
			}
		}
		return unknown(at)
	case "ensure_packages", "stdlib::ensure_packages":
		if len(args) >= 1 {
			var defaults []attr
			if len(args) >= 2 {
				defaults = hashAttrs(args[1])
			}
			if args[0].k == vHash {
				for i, k := range args[0].hkeys() {
					r.declare(e, "package", k, append(append([]attr(nil), defaults...), hashAttrs(args[0].arr[i])...), k.at, packSpan(at), false, false, true)
				}
			} else {
				args[0].each(func(tv val) {
					r.declare(e, "package", tv, defaults, tv.at, packSpan(at), false, false, true)
				})
			}
		}
		return unknown(at)
	case "defined":
		// defined('name'): a class or defined type of that name exists;
		// defined(Type['x']): declared so far (evaluation order matters,
		// as in Puppet); defined('$var'): the variable is set.
		if len(args) == 0 {
			return unknown(at)
		}
		all := true
		for _, a := range args {
			switch a.k {
			case vStr:
				if a.pat {
					return unknown(at)
				}
				n := strings.ToLower(strings.TrimPrefix(a.s, "::"))
				if strings.HasPrefix(n, "$") {
					// $facts and $trusted are set on every node (Puppet 4+);
					// other variables depend on scope and data.
					if n == "$facts" || n == "$trusted" || n == "$server_facts" {
						continue
					}
					return unknown(at)
				}
				if r.a.classFor(r, n) == nil && r.a.defineFor(r, n) == nil && !builtinTypes[n] {
					all = false
				}
			case vRef:
				if a.ref.pat {
					return unknown(at)
				}
				if x, exact := r.resolveBoth(a.ref); x == nil || !exact {
					if x != nil {
						return unknown(at)
					}
					all = false
				}
			default:
				return unknown(at)
			}
		}
		return val{k: vBool, s: strconv.FormatBool(all), at: at}
	}
	if lam == nil {
		if v, ok := pureFunc(name, args, at); ok {
			return v
		}
	}
	if lam != nil {
		r.specLambda(e, lam, name, at)
	}
	return unknown(at)
}

// specLambda evaluates a block once with unknown parameters, as an
// undecided branch of the iteration function name: its resources exist as
// patterns, under the condition that the loop runs.
func (r *run) specLambda(e *env, lam *pp.Lambda, name string, at source.Span) {
	se := *e
	se.spec = true
	se.cond = e.cond.under(r.loopArm(name))
	params := make([]val, len(lam.Params))
	for i := range params {
		params[i] = unknown(at)
	}
	r.lambda(&se, lam, params)
}

func (r *run) lambda(e *env, lam *pp.Lambda, args []val) val {
	sc := newBodyScope(e.sc, e.sc, e.sc.owner, e.sc.name, lam.Params, lam.Body, 0)
	sc.defaults = nil
	if r.rec != nil {
		r.recScope(sc)
	}
	for i, p := range lam.Params {
		name := strings.TrimPrefix(p.Name, "::")
		if i < len(args) {
			sc.vars.set(name, args[i])
		} else if p.Default != nil {
			sc.vars.set(name, r.eval(e, p.Default))
		} else {
			sc.vars.set(name, unknown(r.span(e.f, p.Loc)))
		}
	}
	ne := *e
	ne.sc = sc
	var last val
	for _, s := range lam.Body {
		last = r.eval(&ne, s)
	}
	return last
}
