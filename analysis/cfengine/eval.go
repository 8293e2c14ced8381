package cfengine

import (
	"fmt"
	"path/filepath"
	"strings"

	cfp "github.com/ordering-lsp/ordering-lsp/parser/cfengine"
)

// A static evaluator for the values CFEngine computes before and while it
// runs: just enough to expand inputs, bundlesequence entries and
// promisers. Variables take the union of the values every class branch
// gives them (an over-approximation: inputs must load every file any host
// could load). What cannot be known statically stays unresolved.

// valueSet is the possible values of a variable (a list variable keeps
// all its items).
type valueSet struct {
	vals     []string
	resolved bool
}

type varDef struct {
	bundle  *bundleInfo
	promise *cfp.Promise
	name    string // promiser, may be arr[key]
}

type evaluator struct {
	pol   *policy
	cache map[string]*valueSet
	busy  map[string]bool
	// strict: only what every host running the policy computes is
	// resolved (a variable defined once, in a file every host loads,
	// under a context true everywhere, without if/unless); the rest
	// stays unresolved
	strict bool
	// written: the variables naming folders of the checkout
	// ($(sys.libdir), $(this.promise_dirname)...) are kept as written,
	// for messages
	written bool
}

// pathVars are the variables whose values are folders of the checkout
// here and of the host there.
var pathVars = map[string]bool{"this.promise_dirname": true, "sys.policy_entry_dirname": true,
	"sys.inputdir": true, "sys.masterdir": true, "sys.libdir": true}

func newEvaluator(pol *policy) *evaluator {
	return &evaluator{pol: pol, cache: map[string]*valueSet{}, busy: map[string]bool{}}
}

// scope is where a string is being expanded: the bundle (for unqualified
// variables), its parameters' values, and the file (this.promise_dirname).
type scope struct {
	bundle *bundleInfo
	params map[string]string
	dir    string
	act    int // the bundle activation (name and arguments), numbered
	// promiser is $(this.promiser) while a promise's guard is evaluated
	// (as written: a guard on it is the "unless already defined" idiom)
	promiser string
}

const maxValues = 64

// varKey is the evaluator's key of a variable name as written in sc:
// bundle.var (a bare name is sc's bundle's; false outside a bundle),
// ns:bundle.var outside the default namespace.
func varKey(name string, sc scope) (string, bool) {
	switch {
	case !strings.Contains(name, "."):
		if sc.bundle == nil {
			return "", false
		}
		return sc.bundle.key + "." + name, true
	case strings.HasPrefix(name, "default:"):
		return strings.TrimPrefix(name, "default:"), true
	}
	return name, true
}

// lookup returns the values of a qualified or unqualified variable name.
func (ev *evaluator) lookup(name string, sc scope) *valueSet {
	if sc.params != nil {
		if v, ok := sc.params[name]; ok {
			if strings.HasPrefix(v, "\x00") { // a list passed whole
				return &valueSet{vals: strings.Split(v[1:], "\x00"), resolved: true}
			}
			return &valueSet{vals: []string{v}, resolved: true}
		}
	}
	switch name {
	case "this.promise_dirname":
		if sc.dir != "" {
			return &valueSet{vals: []string{sc.dir}, resolved: true}
		}
	case "sys.policy_entry_dirname", "sys.inputdir", "sys.masterdir":
		return &valueSet{vals: []string{ev.pol.entryDir}, resolved: true}
	case "sys.libdir":
		// $(sys.workdir)/inputs/lib on the host, where the standard
		// library is deployed: the workspace's copy when the policy has a
		// lib/ beside it (masterfiles deploys its lib/ there), else
		// unknown here
		if sub, ok := libSubdir(ev.pol.a.version()); ok && !ev.pol.hostLib {
			return &valueSet{vals: []string{filepath.Join(ev.pol.entryDir, sub)}, resolved: true}
		}
		return &valueSet{}
	case "sys.local_libdir":
		if sub, ok := libSubdir(ev.pol.a.version()); ok {
			return &valueSet{vals: []string{sub}, resolved: true}
		}
		return &valueSet{}
	case "const.dirsep":
		return &valueSet{vals: []string{"/"}, resolved: true}
	case "const.n":
		return &valueSet{vals: []string{"\n"}, resolved: true}
	case "const.t":
		return &valueSet{vals: []string{"\t"}, resolved: true}
	case "this.promiser":
		if sc.promiser != "" {
			return &valueSet{vals: []string{sc.promiser}, resolved: true}
		}
	case "this.bundle":
		if sc.bundle != nil {
			return &valueSet{vals: []string{sc.bundle.block.Name.Text}, resolved: true}
		}
	}
	key, ok := varKey(name, sc)
	if !ok {
		return &valueSet{}
	}
	local := sc.params != nil && sc.bundle != nil && strings.HasPrefix(key, sc.bundle.key+".")
	if vs, ok := ev.cache[key]; ok && !local {
		return vs
	}
	if ev.busy[key] {
		return &valueSet{}
	}
	defs := ev.pol.varDefs(key, false)
	if _, ok := ev.pol.augments[key]; ok {
		defs = unlessAugmented(defs, key)
	}
	if ev.strict {
		// one definition whose context holds everywhere, once those no
		// host has are left out (cfengine_3_5:: at 3.21); def.json's
		// values are not certain either (a host's host_specific.json
		// may override them)
		var live []*varDef
		for _, d := range defs {
			if d.promise.VarContext || everywhere(d.promise.Context, ev.pol.a.version()) != triFalse {
				live = append(live, d)
			}
		}
		if len(live) != 1 || !ev.certainDef(live[0]) {
			return &valueSet{}
		}
		defs = live
	}
	if len(defs) == 0 {
		// augments (def.json) variables: def's ("vars"), or any bundle's
		// ("variables"); cf-agent expands their values where they are used
		if v, ok := ev.pol.augments[key]; ok {
			ev.busy[key] = true
			vs := &valueSet{vals: v, resolved: true}
			var expanded []string
			for _, x := range v {
				e := ev.expand(x, scope{dir: ev.pol.entryDir})
				if !e.resolved {
					expanded = nil
					break
				}
				expanded = append(expanded, e.vals...)
			}
			if expanded != nil {
				vs.vals = expanded
			}
			delete(ev.busy, key)
			ev.cache[key] = vs
			return vs
		}
		return &valueSet{}
	}
	ev.busy[key] = true
	out := &valueSet{resolved: true}
	for _, d := range defs {
		dsc := scope{bundle: d.bundle, dir: d.bundle.dir}
		if local {
			dsc.params = sc.params
		}
		vs := ev.value(d, dsc)
		if !vs.resolved {
			out.resolved = false
		}
		out.add(vs.vals...)
	}
	delete(ev.busy, key)
	if !local {
		ev.cache[key] = out
	}
	return out
}

// unlessAugmented leaves out the definitions of a variable def.json
// defines that only run when it is not defined yet (`unless =>
// isvariable("x")` on x, or on "$(this.promiser)"): cf-agent skips them.
func unlessAugmented(defs []*varDef, key string) []*varDef {
	out := defs[:0:0]
	for _, d := range defs {
		if !unlessDefined(d, key) {
			out = append(out, d)
		}
	}
	return out
}

func unlessDefined(d *varDef, key string) bool {
	for _, c := range d.promise.Constraints {
		r := c.Rval
		if c.Lval.Text != "unless" || r == nil || r.Kind != cfp.Call || r.Value != "isvariable" || len(r.Items) != 1 || r.Items[0].Kind != cfp.String {
			continue
		}
		switch name := r.Items[0].Value; name {
		case "$(this.promiser)", "${this.promiser}":
			return true
		default:
			if k, ok := varKey(name, scope{bundle: d.bundle}); ok && k == key {
				return true
			}
		}
	}
	return false
}

func (vs *valueSet) add(vals ...string) {
	for _, v := range vals {
		dup := false
		for _, w := range vs.vals {
			if w == v {
				dup = true
				break
			}
		}
		if !dup && len(vs.vals) < maxValues {
			vs.vals = append(vs.vals, v)
		}
	}
}

// certainDef: d gives its variable its value on every host when inputs
// are read (strict): PolicyResolve (expand.c) evaluates the vars of every
// bundle, common or not, before it expands the control bodies' inputs.
func (ev *evaluator) certainDef(d *varDef) bool {
	b := d.bundle
	if !ev.pol.certain[b.file] {
		return false
	}
	p := d.promise
	if p.VarContext || everywhere(p.Context, ev.pol.a.version()) != triTrue {
		return false
	}
	for _, c := range p.Constraints {
		switch c.Lval.Text {
		case "if", "ifvarclass", "unless":
			return false
		}
	}
	return true
}

var valueLvals = []string{"string", "slist", "int", "real", "ilist", "rlist", "data"}

func (ev *evaluator) value(d *varDef, sc scope) *valueSet {
	for _, c := range d.promise.Constraints {
		for _, l := range valueLvals {
			if c.Lval.Text == l {
				return ev.rval(c.Rval, sc)
			}
		}
	}
	return &valueSet{}
}

// arrayValues returns the values of every element arr[...] of an array.
func (ev *evaluator) array(name string, sc scope, keys bool) *valueSet {
	if ev.strict {
		return &valueSet{}
	}
	key := name
	if !strings.Contains(name, ".") && sc.bundle != nil {
		key = sc.bundle.key + "." + name
	}
	key = strings.TrimPrefix(key, "default:")
	out := &valueSet{resolved: true}
	found := false
	for _, d := range ev.pol.varDefs(key, true) {
		found = true
		if keys {
			idx := d.name[strings.IndexByte(d.name, '[')+1:]
			out.add(strings.TrimSuffix(idx, "]"))
			continue
		}
		vs := ev.value(d, scope{bundle: d.bundle, dir: d.bundle.dir})
		if !vs.resolved {
			out.resolved = false
		}
		out.add(vs.vals...)
	}
	if !found {
		// maybe a list or an augments variable
		if !keys {
			return ev.lookup(name, sc)
		}
		return &valueSet{}
	}
	return out
}

func (ev *evaluator) rval(r *cfp.Rval, sc scope) *valueSet {
	if r == nil {
		return &valueSet{}
	}
	switch r.Kind {
	case cfp.String, cfp.Ident:
		// "@(list)" alone in a list item is the list's values (the
		// idiom inputs => { "@(inform_tests.inputs)" }).
		if v := r.Value; len(v) > 3 && v[0] == '@' && (v[1] == '(' && v[len(v)-1] == ')' || v[1] == '{' && v[len(v)-1] == '}') &&
			!strings.ContainsAny(v[2:len(v)-1], "()${}") {
			return ev.lookup(v[2:len(v)-1], sc)
		}
		return ev.expand(r.Value, sc)
	case cfp.NakedVar:
		if strings.HasPrefix(r.Value, "@") {
			return ev.lookup(r.Value[2:len(r.Value)-1], sc)
		}
		return ev.expand(r.Value, sc)
	case cfp.List:
		out := &valueSet{resolved: true}
		for _, it := range r.Items {
			vs := ev.rval(it, sc)
			if !vs.resolved {
				out.resolved = false
			}
			out.add(vs.vals...)
		}
		return out
	case cfp.Call:
		switch r.Value {
		case "getvalues", "getindices":
			if len(r.Items) == 1 {
				a := r.Items[0]
				if a.Kind == cfp.Call && a.Value == "mergedata" && len(a.Items) == 1 {
					a = a.Items[0]
				}
				if a.Kind == cfp.String || a.Kind == cfp.Ident {
					return ev.array(strings.TrimPrefix(strings.TrimSuffix(strings.TrimPrefix(a.Value, "@("), ")"), "default:"), sc, r.Value == "getindices")
				}
				if a.Kind == cfp.NakedVar {
					return ev.array(a.Value[2:len(a.Value)-1], sc, r.Value == "getindices")
				}
			}
		case "concat":
			out := &valueSet{vals: []string{""}, resolved: true}
			for _, it := range r.Items {
				vs := ev.rval(it, sc)
				if !vs.resolved || len(vs.vals) != 1 {
					return &valueSet{}
				}
				out.vals[0] += vs.vals[0]
			}
			return out
		}
	}
	return &valueSet{}
}

// expand interpolates $(x) and ${x} in s. Several possible values give
// several results; unresolved references are kept as written and make the
// result unresolved.
func (ev *evaluator) expand(s string, sc scope) *valueSet {
	if !strings.Contains(s, "$(") && !strings.Contains(s, "${") {
		return &valueSet{vals: []string{s}, resolved: true}
	}
	results := []string{""}
	// picks[k]: the value each variable took in results[k]: a variable
	// written twice in one string has one value on a host (and one
	// element per iteration), so "$(g.d)/$(g.d).cf" is a/a.cf or b/b.cf,
	// never a/b.cf (atsaloli/cf3-tutorial); only its first place
	// multiplies the results
	var picks [][]pick
	resolved := true
	for i := 0; i < len(s); {
		if s[i] == '$' && i+1 < len(s) && (s[i+1] == '(' || s[i+1] == '{') {
			end := matchClose(s, i+1)
			if end < 0 {
				for k := range results {
					results[k] += s[i:]
				}
				break
			}
			inner := s[i+2 : end]
			if strings.Contains(inner, "$(") || strings.Contains(inner, "${") {
				if e := ev.expand(inner, sc); e.resolved && len(e.vals) == 1 {
					inner = e.vals[0]
				}
			}
			var vs *valueSet
			if ev.written && pathVars[inner] {
				vs = &valueSet{vals: []string{s[i : end+1]}, resolved: true}
			} else {
				vs = ev.lookup(inner, sc)
			}
			if !vs.resolved || len(vs.vals) == 0 {
				resolved = false
				for k := range results {
					results[k] += s[i : end+1]
				}
			} else if picks != nil && picked(picks[0], inner) >= 0 {
				for k := range results {
					results[k] += vs.vals[picked(picks[k], inner)]
				}
			} else {
				var next []string
				var nextPicks [][]pick
				for k, r := range results {
					for vi, v := range vs.vals {
						if len(next) < maxValues {
							next = append(next, r+v)
							var pk []pick
							if picks != nil {
								pk = picks[k]
							}
							nextPicks = append(nextPicks, append(pk[:len(pk):len(pk)], pick{inner, vi}))
						}
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
			results[k] += s[i:j]
		}
		i = j
	}
	return &valueSet{vals: results, resolved: resolved}
}

// pick is the value (by index in its values) a variable took in one
// expansion of a string.
type pick struct {
	name string
	i    int
}

// picked is the index of the value name took in ps, -1 if none yet.
func picked(ps []pick, name string) int {
	for _, p := range ps {
		if p.name == name {
			return p.i
		}
	}
	return -1
}

func matchClose(s string, open int) int {
	o := s[open]
	c := byte(')')
	if o == '{' {
		c = '}'
	}
	depth := 0
	for i := open; i < len(s); i++ {
		switch s[i] {
		case o:
			depth++
		case c:
			depth--
			if depth == 0 {
				return i
			}
		}
	}
	return -1
}

// version is the CFEngine version the analysis is for (cfengine.version).
func (a *analyzer) version() string { return a.sys.parser.Version }

// libSubdir is $(sys.local_libdir) at version, the folder of inputs
// $(sys.libdir) is: lib/MAJOR.MINOR from 3.6 (where both variables
// appeared) to 3.7, lib from 3.8 on (libenv/sysinfo.c's DiscoverVersion
// at each tag); ok is false before 3.6, where neither is defined.
func libSubdir(version string) (string, bool) {
	var major, minor int
	if n, _ := fmt.Sscanf(version, "%d.%d", &major, &minor); n < 2 {
		return "lib", true
	}
	switch {
	case major < 3 || major == 3 && minor < 6:
		return "", false
	case major == 3 && minor < 8:
		return fmt.Sprintf("lib/%d.%d", major, minor), true
	}
	return "lib", true
}
