package cfengine

import "strings"

// Class expressions (`linux.!debian|(a&b)`, the context of a promise or
// an ifvarclass), read by a small recursive-descent parser over the
// three-valued classes of the schedule; and canonify, CFEngine's way of
// turning any string into a class name.

// classValues is what a class expression is read into: the three-valued
// classes of a schedule (triValues), or a truth table over the classes
// an input's path depends on (tableValues, condinputs.go). One reader
// for both, so that both read the same language.
type classValues[V any] interface {
	konst(bool) V
	or(a, b V) V
	and(a, b V) V
	not(V) V
	// class is the value of a class the expression names (canonified),
	// read at depth; ok false: the expression cannot be read
	class(name string, depth int) (v V, ok bool)
	// unreadable is the value of what cannot be read
	unreadable() V
}

// readClassExpr reads the whole of s; ok false when it does not parse to
// its end (or nests past 100 levels).
func readClassExpr[V any](s string, vals classValues[V], depth int) (V, bool) {
	p := &exprReader[V]{s: s, vals: vals, depth: depth}
	v := p.or()
	return v, !p.bad && p.i >= len(p.s)
}

type exprReader[V any] struct {
	s     string
	i     int
	bad   bool
	depth int
	vals  classValues[V]
}

func (p *exprReader[V]) skip() {
	for p.i < len(p.s) && (p.s[p.i] == ' ' || p.s[p.i] == '\t') {
		p.i++
	}
}

func (p *exprReader[V]) or() V {
	v := p.and()
	for {
		p.skip()
		if p.i < len(p.s) && p.s[p.i] == '|' {
			p.i++
			if p.i < len(p.s) && p.s[p.i] == '|' {
				p.i++
			}
			v = p.vals.or(v, p.and())
			continue
		}
		return v
	}
}

func (p *exprReader[V]) and() V {
	v := p.unary()
	for {
		p.skip()
		if p.i < len(p.s) && (p.s[p.i] == '.' || p.s[p.i] == '&') {
			p.i++
			v = p.vals.and(v, p.unary())
			continue
		}
		return v
	}
}

func (p *exprReader[V]) unary() V {
	p.skip()
	p.depth++
	defer func() { p.depth-- }()
	if p.depth > 100 || p.i >= len(p.s) {
		p.bad = true
		return p.vals.unreadable()
	}
	switch c := p.s[p.i]; {
	case c == '!':
		p.i++
		return p.vals.not(p.unary())
	case c == '(':
		p.i++
		v := p.or()
		p.skip()
		if p.i < len(p.s) && p.s[p.i] == ')' {
			p.i++
		} else {
			p.bad = true
		}
		return v
	}
	j := p.i
	for j < len(p.s) && (isWordByte(p.s[j]) || p.s[j] == ':') {
		j++
	}
	if j == p.i {
		p.bad = true
		return p.vals.unreadable()
	}
	name := p.s[p.i:j]
	p.i = j
	switch name {
	case "any", "true":
		return p.vals.konst(true)
	case "false", "nil":
		return p.vals.konst(false)
	}
	v, ok := p.vals.class(canonify(name), p.depth)
	if !ok {
		p.bad = true
	}
	return v
}

// triValues reads an expression over three-valued classes, each given by
// the function (a schedule's classes, a version's).
type triValues func(name string) tri

func (triValues) konst(b bool) tri {
	if b {
		return triTrue
	}
	return triFalse
}
func (triValues) or(a, b tri) tri  { return or3(a, b) }
func (triValues) and(a, b tri) tri { return and3(a, b) }
func (triValues) not(a tri) tri    { return not3(a) }
func (triValues) unreadable() tri  { return triMaybe }
func (f triValues) class(name string, _ int) (tri, bool) {
	return f(name), true
}

// triExpr is an expression's value over classes given by f: triMaybe when
// it cannot be read.
func triExpr(expr string, f func(string) tri) tri {
	v, ok := readClassExpr[tri](expr, triValues(f), 0)
	if !ok {
		return triMaybe
	}
	return v
}

// everywhere evaluates a class expression before anything runs, for
// every host running CFEngine version: only any, the version's classes
// (cfengine, cfengine_3, cfengine_3_21, cfengine_3_21_0) and what follows
// from them are known; any other class may or may not be set.
func everywhere(expr, version string) tri {
	return triExpr(expr, func(name string) tri { return versionClass(name, version) })
}

// versionClass is the value of a cfengine_* hard class at version
// (sysinfo.c's DiscoverVersion and the cfengine_M_m_p classes).
func versionClass(name, version string) tri {
	if name == "cfengine" {
		return triTrue
	}
	rest, ok := strings.CutPrefix(name, "cfengine_")
	if !ok {
		return triMaybe
	}
	parts := strings.Split(rest, "_")
	have := strings.Split(version, ".")
	if len(parts) > 3 {
		return triMaybe
	}
	for i, p := range parts {
		if p == "" || strings.Trim(p, "0123456789") != "" {
			return triMaybe
		}
		if i >= len(have) {
			return triMaybe
		}
		if h := strings.TrimLeft(have[i], "0123456789"); p != strings.TrimSuffix(have[i], h) {
			return triFalse
		}
	}
	return triTrue
}

func isWordByte(c byte) bool {
	return c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80
}

func canonify(s string) string {
	clean := true
	for i := 0; i < len(s); i++ {
		if c := s[i]; !isWordByte(c) && c != ':' {
			clean = false
			break
		}
	}
	if clean {
		return s
	}
	b := []byte(s)
	for i, c := range b {
		if !isWordByte(c) && c != ':' {
			b[i] = '_'
		}
	}
	return string(b)
}
