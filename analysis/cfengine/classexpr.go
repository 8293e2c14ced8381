package cfengine

import "strings"

// Class expressions (`linux.!debian|(a&b)`, the context of a promise or
// an ifvarclass), read by a small recursive-descent parser over the
// three-valued classes of the schedule; and canonify, CFEngine's way of
// turning any string into a class name.

type exprParser struct {
	s     string
	i     int
	bad   bool
	sched *scheduler
	// value, when set, gives the classes instead of sched
	value func(string) tri
	depth int
}

func (p *exprParser) skip() {
	for p.i < len(p.s) && (p.s[p.i] == ' ' || p.s[p.i] == '\t') {
		p.i++
	}
}

func (p *exprParser) or() tri {
	v := p.and()
	for {
		p.skip()
		if p.i < len(p.s) && p.s[p.i] == '|' {
			p.i++
			if p.i < len(p.s) && p.s[p.i] == '|' {
				p.i++
			}
			v = or3(v, p.and())
			continue
		}
		return v
	}
}

func (p *exprParser) and() tri {
	v := p.unary()
	for {
		p.skip()
		if p.i < len(p.s) && (p.s[p.i] == '.' || p.s[p.i] == '&') {
			p.i++
			v = and3(v, p.unary())
			continue
		}
		return v
	}
}

func (p *exprParser) unary() tri {
	p.skip()
	p.depth++
	defer func() { p.depth-- }()
	if p.depth > 100 || p.i >= len(p.s) {
		p.bad = true
		return triMaybe
	}
	switch c := p.s[p.i]; {
	case c == '!':
		p.i++
		return not3(p.unary())
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
		return triMaybe
	}
	name := p.s[p.i:j]
	p.i = j
	switch name {
	case "any", "true":
		return triTrue
	case "false", "nil":
		return triFalse
	}
	if p.value != nil {
		return p.value(canonify(name))
	}
	return p.sched.classValue(canonify(name))
}

// everywhere evaluates a class expression before anything runs, for
// every host running CFEngine version: only any, the version's classes
// (cfengine, cfengine_3, cfengine_3_21, cfengine_3_21_0) and what follows
// from them are known; any other class may or may not be set.
func everywhere(expr, version string) tri {
	p := &exprParser{s: expr, value: func(name string) tri { return versionClass(name, version) }}
	v := p.or()
	if p.bad || p.i < len(p.s) {
		return triMaybe
	}
	return v
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
