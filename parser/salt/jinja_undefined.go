package salt

import (
	"bytes"
	"strings"
)

// Undefined variables. Salt renders SLS with Jinja's StrictUndefined
// (salt/utils/templates.py, unless the master sets allow_undefined):
// printing a name nothing binds fails the render, "Jinja variable 'psls'
// is undefined" (khrisrichardson/salt-states' prometheus/init.sls). Only
// what an output `{{ }}` evaluates is judged, and only names the file
// never mentions in a statement tag (set, for, macro, import, if ...: a
// binding this reading may have missed, or a test of it) and that are
// not the renderer's context.

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

// noteUndefined turns the names the output expression [a, b) looked up
// and found bound nowhere into errors at the name (warnings in a branch
// only some renders take).
func (r *renderer) noteUndefined(a, b int, names []string) {
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
		e := Error{Span: at, Severity: 1, Msg: "Jinja variable '" + n + "' is undefined"}
		if len(r.ctx.arms) > 0 {
			e.Severity = 2
			texts := make([]string, len(r.ctx.arms))
			for i, arm := range r.ctx.arms {
				texts[i] = arm.Text
			}
			e.Msg += " (only where " + strings.Join(texts, " and ") + ")"
		}
		*r.undef = append(*r.undef, e)
	}
}

// nameIn finds the identifier name in src[a:b], not as an attribute
// (`x.name`) or inside quotes.
func nameIn(src []byte, a, b int, name string) (Span, bool) {
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
		if !bytes.HasPrefix(src[i:b], []byte(name)) || i > a && (identByte(src[i-1]) || src[i-1] == '.') {
			continue
		}
		if j := i + len(name); j < len(src) && identByte(src[j]) {
			continue
		}
		return Span{i, i + len(name)}, true
	}
	return Span{}, false
}

func identByte(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// inStatement says whether name is an identifier of some statement tag
// of src: bound or tested there, never judged undefined.
func inStatement(src []byte, name string) bool {
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
		if _, ok := nameIn(src, a, a+j, name); ok {
			return true
		}
		off = a + j
		if off >= len(src) {
			return false
		}
	}
}

// undefinedErrors keeps the undefined names no statement of src names.
func undefinedErrors(src []byte, errs []Error) []Error {
	var out []Error
	judged := map[string]bool{}
	seen := map[Span]bool{}
	for _, e := range errs {
		n := string(src[e.Start:e.End])
		ok, done := judged[n]
		if !done {
			ok = !inStatement(src, n)
			judged[n] = ok
		}
		if ok && !seen[e.Span] {
			seen[e.Span] = true
			out = append(out, e)
		}
	}
	return out
}
