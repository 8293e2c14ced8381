package salt

import (
	"bytes"
)

// Undefined variables. Salt renders SLS with Jinja's StrictUndefined
// (salt/utils/templates.py, unless the master sets allow_undefined):
// printing a name nothing binds fails the render, "Jinja variable 'psls'
// is undefined" (khrisrichardson/salt-states' prometheus/init.sls), and so
// does testing one in an if or iterating over one in a for. Judged: what
// an output `{{ }}`, an if's condition or a for's iterable surely
// evaluates (not the right of `and` after an unknown left, not the
// subject of a test), and only names that are not the renderer's context
// and that the file never mentions in a statement tag (set, for, macro,
// import ...: a binding this reading may have missed), never tests for
// being defined and never gives a default.

// renderGlobals are the names an SLS's Jinja context holds: the
// renderer's (salt/renderers/jinja.py), the SLS's paths
// (generate_sls_context), Salt's and Jinja's globals.
var renderGlobals = map[string]bool{
	"salt": true, "grains": true, "opts": true, "pillar": true, "saltenv": true, "sls": true, "context": true,
	"proxy": true, "env": true, "rendered_sls": true, "mine": true,
	"data": true, "tag": true, // (a reactor SLS's event: salt/utils/reactor.py)
	"tplpath": true, "tplfile": true, "tpldir": true, "tpldot": true, "tplroot": true,
	"slspath": true, "slsdotpath": true, "slscolonpath": true, "sls_path": true,
	"odict": true, "show_full_context": true, "raise": true, "ifelse": true,
	"__opts__": true, "__salt__": true, "__grains__": true, "__pillar__": true,
	"range": true, "dict": true, "lipsum": true, "cycler": true, "joiner": true, "namespace": true,
	"loop": true, "caller": true, "varargs": true, "kwargs": true, "self": true, "super": true,
	"true": true, "false": true, "none": true, "True": true, "False": true, "None": true,
}

// evalJudged evaluates an if's condition or a for's iterable, at, and
// notes the names it finds unbound: StrictUndefined fails the render on
// its truth, iteration or comparison as on printing it (salt-order:
// `{% if foo %}` fails with "Jinja variable 'foo' is undefined").
// It reports whether the evaluation surely fails on a Python 2 method
// (jinja_py2.go).
func (r *renderer) evalJudged(e expr, at Span, sc *scope) (val, bool) {
	if at == (Span{}) || r.ctx.track {
		return r.evalCalls(e, sc, at)
	}
	r.ctx.track, r.ctx.undef = true, r.ctx.undef[:0]
	v, fails := r.evalCalls(e, sc, at)
	r.ctx.track = false
	if len(r.ctx.undef) > 0 {
		r.noteUndefined(at.Start, at.End, r.ctx.undef, true)
	}
	return v, fails
}

// noteUndefined turns the names the output expression [a, b) looked up
// and found bound nowhere into errors at the name (warnings in a branch
// only some renders take).
func (r *renderer) noteUndefined(a, b int, names []string, tag bool) {
	seen := map[string]bool{}
	for _, n := range names {
		if seen[n] {
			continue
		}
		seen[n] = true
		at, ok := nameIn(r.src, a, b, n)
		if !ok {
			continue
		}
		e := Error{Span: at, Severity: 1, Msg: "Jinja variable '" + n + "' is undefined", tag: tag}
		r.inBranch(&e)
		*r.undef = append(*r.undef, e)
	}
}

// nameIn finds the identifier name in src[a:b], not as an attribute
// (`x.name`) or inside quotes.
func nameIn(src []byte, a, b int, name string) (sp Span, ok bool) {
	unquoted(src, a, b, func(i int) bool {
		if !bytes.HasPrefix(src[i:b], []byte(name)) || i > a && (identByte(src[i-1]) || src[i-1] == '.') {
			return false
		}
		if j := i + len(name); j < len(src) && identByte(src[j]) {
			return false
		}
		sp, ok = Span{i, i + len(name)}, true
		return true
	})
	return sp, ok
}

// unquoted calls f with each offset of src[a:b] outside a quoted string
// (backslash escapes skipped) until f says it found what it looked for.
func unquoted(src []byte, a, b int, f func(i int) bool) {
	quote := byte(0)
	for i := a; i < b && i < len(src); i++ {
		c := src[i]
		if quote != 0 {
			if c == '\\' {
				i++
			} else if c == quote {
				quote = 0
			}
			continue
		}
		if c == '\'' || c == '"' {
			quote = c
			continue
		}
		if f(i) {
			return
		}
	}
}

func identByte(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// inStatement says whether name is an identifier of some statement tag
// of src: bound or tested there, never judged undefined. For a name an
// if's or a for's expression found unbound (conds), the conditions of
// if and elif tags and the iterables of for tags do not count, but a
// test of it anywhere does (`x is defined`, `x|default(...)`: the
// author expects it may be missing, a context may give it).
func inStatement(src []byte, name string, conds bool) bool {
	if conds && testedAnywhere(src, name) {
		return true
	}
	for off := 0; ; {
		i := bytes.Index(src[off:], []byte("{%"))
		if i < 0 {
			return false
		}
		a := off + i
		j := bytes.Index(src[a:], []byte("%}"))
		if j < 0 {
			j = len(src) - a
		}
		from, to := a, a+j
		if conds {
			from, to = bindingPart(src, a+2, a+j)
		}
		if _, ok := nameIn(src, from, to, name); ok {
			return true
		}
		off = a + j
		if off >= len(src) {
			return false
		}
	}
}

// bindingPart is the part of the statement tag src[a:b] (after "{%")
// that may bind or test names: none of an if or elif, the targets of a
// for, all of any other.
func bindingPart(src []byte, a, b int) (int, int) {
	i := a
	for i < b && (src[i] == '-' || src[i] == '+' || src[i] == ' ' || src[i] == '\t' || src[i] == '\n' || src[i] == '\r') {
		i++
	}
	k := i
	for k < b && identByte(src[k]) {
		k++
	}
	switch string(src[i:k]) {
	case "if", "elif":
		return k, k
	case "for":
		if in, ok := nameIn(src, k, b, "in"); ok {
			return k, in.Start
		}
	}
	return a, b
}

// testedAnywhere: src tests name for being defined, or gives it a
// default.
func testedAnywhere(src []byte, name string) bool {
	for off := 0; off < len(src); {
		at, ok := nameIn(src, off, len(src), name)
		if !ok {
			return false
		}
		rest := bytes.TrimLeft(src[at.End:min(len(src), at.End+40)], " \t")
		for _, t := range [][]byte{[]byte("is defined"), []byte("is not defined"), []byte("is undefined"), []byte("is not undefined")} {
			if bytes.HasPrefix(rest, t) {
				return true
			}
		}
		if f, ok := bytes.CutPrefix(rest, []byte("|")); ok {
			f = bytes.TrimLeft(f, " \t")
			if bytes.HasPrefix(f, []byte("default")) || bytes.HasPrefix(f, []byte("d(")) || bytes.HasPrefix(f, []byte("d ")) {
				return true
			}
		}
		off = at.End
	}
	return false
}

// undefinedErrors keeps the undefined names no statement of src names.
func undefinedErrors(src []byte, errs []Error) []Error {
	var out []Error
	type judgedKey struct {
		name  string
		conds bool
	}
	judged := map[judgedKey]bool{}
	seen := map[Span]bool{}
	for _, e := range errs {
		n := judgedKey{string(src[e.Start:e.End]), e.tag}
		ok, done := judged[n]
		if !done {
			ok = !inStatement(src, n.name, n.conds)
			judged[n] = ok
		}
		if ok && !seen[e.Span] {
			seen[e.Span] = true
			out = append(out, e)
		}
	}
	return out
}

// inBranch makes a render failure found under conditions the analysis
// cannot decide a warning naming them: only the renders that take those
// branches fail.
func (r *renderer) inBranch(e *Error) {
	if len(r.ctx.arms) == 0 {
		return
	}
	e.Severity = 2
	e.Msg += " (only where " + JoinArms(r.ctx.arms) + ")"
}
