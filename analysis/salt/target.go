package salt

import (
	"fmt"
	"net/netip"
	"regexp"
	"strconv"
	"strings"
)

// Top-file targeting: which targets of a top file a minion matches, as
// Salt 3007 decides on the minion (salt/matchers/confirm_top.py and the
// matcher modules it loads; salt/utils/data.py subdict_match for grains
// and pillar; salt/utils/minions.py parse_target and nodegroup_comp).
// What the minion's data cannot decide (a Python regular expression Go
// cannot compile, the data or range matchers, grains or pillar that were
// not given) is "maybe": the target is taken, as for a machine that
// matches it.

// tri is a three-valued truth: what a matcher says when the data may not
// decide.
type tri int8

const (
	no tri = iota
	maybe
	yes
)

func triOf(b bool) tri {
	if b {
		return yes
	}
	return no
}

func (x tri) and(y tri) tri { return min(x, y) }
func (x tri) or(y tri) tri  { return max(x, y) }
func (x tri) not() tri      { return yes - x }

// minion is what targeting reads of one minion.
type minion struct {
	id string
	// grains and pillar as decoded JSON/YAML (map[string]any, []any,
	// string, json.Number/int/float, bool, nil); nil when not given: a
	// matcher on them is then maybe
	grains, pillar map[string]any
}

// targetMatch is confirm_top: the matcher named by the last `- match:`
// item of the target's list (compound when none), applied to the
// target's key. nodegroups come from the master configuration.
func (m *minion) targetMatch(tgt, matcher string, nodegroups map[string]any) tri {
	switch matcher {
	case "", "compound":
		return m.compound(tgt, nodegroups)
	case "glob":
		return triOf(fnmatchPy(m.id, tgt))
	case "pcre":
		return m.pcre(tgt)
	case "list":
		return triOf(listMatch(m.id, tgt))
	case "grain":
		return m.dataMatch(m.grains, tgt, ":", false, false)
	case "grain_pcre":
		return m.dataMatch(m.grains, tgt, ":", true, false)
	case "pillar":
		return m.dataMatch(m.pillar, tgt, ":", false, false)
	case "pillar_pcre":
		return m.dataMatch(m.pillar, tgt, ":", true, false)
	case "pillar_exact":
		return m.dataMatch(m.pillar, tgt, ":", false, true)
	case "ipcidr":
		return m.ipcidr(tgt)
	case "nodegroup":
		if _, ok := nodegroups[tgt]; !ok {
			return no
		}
		words, ok := nodegroupComp(tgt, nodegroups, map[string]bool{}, true)
		if !ok {
			return m.compoundWords(nil, nodegroups)
		}
		return m.compoundWords(words, nodegroups)
	}
	return maybe // data, range, a matcher of the user's own
}

// listMatch is list_match.match on a string target.
func listMatch(id, tgt string) bool {
	return strings.Contains(tgt, ","+id+",") || strings.HasPrefix(tgt, id+",") || strings.HasSuffix(tgt, ","+id) || id == tgt
}

func (m *minion) pcre(tgt string) tri {
	re, err := pyRegexp(tgt)
	if err != nil {
		return maybe
	}
	return triOf(re.MatchString(m.id))
}

// pyRegexp compiles a Python regular expression for re.match (anchored
// at the start only); an error when RE2 lacks what it uses (lookaround,
// backreferences): the caller cannot decide.
func pyRegexp(p string) (*regexp.Regexp, error) {
	return regexp.Compile(`^(?:` + p + `)`)
}

// compound is compound_match.match on a string target.
func (m *minion) compound(tgt string, nodegroups map[string]any) tri {
	return m.compoundWords(strings.Fields(tgt), nodegroups)
}

// targetRex is salt.utils.minions.TARGET_REX: an engine letter, for G,
// P, I and J an optional one-character delimiter, then `@`.
func parseTarget(word string) (engine, delim, pattern string) {
	if len(word) >= 3 && strings.ContainsRune("GPIJLNSER", rune(word[0])) {
		if word[1] == '@' {
			return word[:1], "", word[2:]
		}
		if strings.ContainsRune("GPIJ", rune(word[0])) && len(word) >= 4 {
			// one character (a rune) of delimiter, then @
			r := []rune(word[1:])
			if len(r) >= 3 && r[1] == '@' {
				return word[:1], string(r[0]), string(r[2:])
			}
		}
	}
	return "", "", word
}

var compoundEngines = map[string]string{"G": "grain", "P": "grain_pcre", "I": "pillar", "J": "pillar_pcre",
	"L": "list", "S": "ipcidr", "E": "pcre"}

// compoundWords evaluates the words as compound_match does: each word
// becomes True/False (its engine, else a glob on the id), operators stay,
// `not` after a value gets an `and` before it, and the result is a
// Python boolean expression whose syntax errors make the target false.
func (m *minion) compoundWords(words []string, nodegroups map[string]any) tri {
	words = append([]string(nil), words...)
	var toks []string
	var vals []tri
	isOp := func(w string) bool { return w == "and" || w == "or" || w == "not" || w == "(" || w == ")" }
	for len(words) > 0 {
		w := words[0]
		words = words[1:]
		if isOp(w) {
			if len(toks) > 0 {
				last := toks[len(toks)-1]
				if last == "(" && (w == "and" || w == "or") {
					return no
				}
				if w == "not" && last != "and" && last != "or" && last != "(" {
					toks = append(toks, "and")
				}
				toks = append(toks, w)
			} else {
				if w != "(" && w != "not" {
					return no
				}
				toks = append(toks, w)
			}
			continue
		}
		engine, delim, pat := parseTarget(w)
		if engine == "N" {
			if dec, ok := nodegroupComp(pat, nodegroups, map[string]bool{}, true); ok && len(dec) > 0 {
				words = append(dec, words...)
			}
			continue
		}
		var v tri
		if engine == "" {
			v = triOf(fnmatchPy(m.id, w))
		} else {
			name, ok := compoundEngines[engine]
			if !ok {
				return no // an unknown engine (R without seco.range) fails the whole target
			}
			switch name {
			case "grain", "grain_pcre", "pillar", "pillar_pcre":
				if delim == "" {
					delim = ":"
				}
				data := m.grains
				if strings.HasPrefix(name, "pillar") {
					data = m.pillar
				}
				v = m.dataMatch(data, pat, delim, strings.HasSuffix(name, "pcre"), false)
			case "list":
				v = triOf(listMatch(m.id, pat))
			case "ipcidr":
				v = m.ipcidr(pat)
			case "pcre":
				v = m.pcre(pat)
			}
		}
		toks = append(toks, "\x00"+strconv.Itoa(len(vals)))
		vals = append(vals, v)
	}
	p := &boolExpr{toks: toks, vals: vals}
	v, ok := p.or()
	if !ok || p.i != len(toks) {
		return no // Python's eval raises: "Invalid compound target"
	}
	return v
}

// boolExpr parses the Python expression compound_match hands to eval:
// or_test, and_test, not_test over True/False and parentheses.
type boolExpr struct {
	toks []string
	vals []tri
	i    int
}

func (p *boolExpr) peek() string {
	if p.i < len(p.toks) {
		return p.toks[p.i]
	}
	return ""
}

func (p *boolExpr) or() (tri, bool) {
	v, ok := p.and()
	for ok && p.peek() == "or" {
		p.i++
		var w tri
		w, ok = p.and()
		v = v.or(w)
	}
	return v, ok
}

func (p *boolExpr) and() (tri, bool) {
	v, ok := p.not()
	for ok && p.peek() == "and" {
		p.i++
		var w tri
		w, ok = p.not()
		v = v.and(w)
	}
	return v, ok
}

func (p *boolExpr) not() (tri, bool) {
	switch t := p.peek(); {
	case t == "not":
		p.i++
		v, ok := p.not()
		return v.not(), ok
	case t == "(":
		p.i++
		v, ok := p.or()
		if !ok || p.peek() != ")" {
			return no, false
		}
		p.i++
		return v, true
	case strings.HasPrefix(t, "\x00"):
		p.i++
		n, _ := strconv.Atoi(t[1:])
		return p.vals[n], true
	}
	return no, false
}

// nodegroupComp expands a nodegroup as salt.utils.minions.nodegroup_comp:
// nested N@ groups in parentheses; a group of bare names becomes L@ (or
// E@ when they look like regular expressions). ok is false for an
// unknown or recursive group (Salt logs it and expands to nothing).
func nodegroupComp(ng string, nodegroups map[string]any, skip map[string]bool, first bool) ([]string, bool) {
	if skip[ng] {
		return nil, false
	}
	def, found := nodegroups[ng]
	if !found {
		return nil, false
	}
	var words []string
	switch d := def.(type) {
	case string:
		words = strings.Fields(d)
	case []any:
		for _, w := range d {
			words = append(words, fmt.Sprint(pyStr(w)))
		}
	default:
		return nil, false
	}
	skip[ng] = true
	defer delete(skip, ng)
	var ret []string
	expanded := false
	isOp := func(w string) bool { return w == "and" || w == "or" || w == "not" || w == "(" || w == ")" }
	for _, w := range words {
		switch {
		case isOp(w):
			ret = append(ret, w)
		case len(w) >= 3 && strings.HasPrefix(w, "N@"):
			expanded = true
			sub, _ := nodegroupComp(w[2:], nodegroups, skip, false)
			ret = append(ret, sub...)
		default:
			ret = append(ret, w)
		}
	}
	if len(ret) > 0 {
		ret = append(append([]string{"("}, ret...), ")")
	}
	if expanded || !first {
		if !first {
			if j := nodegroupRegex(words); j != nil {
				return j, true
			}
		}
		return ret, true
	}
	if j := nodegroupRegex(words); j != nil {
		return j, true
	}
	return words, true
}

// nodegroupRegex is _nodegroup_regex: words without operators, engines
// or `*` are a list of minion ids (E@ when one holds a regex character).
func nodegroupRegex(words []string) []string {
	for _, w := range words {
		if w == "and" || w == "or" || w == "not" || w == "(" || w == ")" {
			return nil
		}
	}
	for _, w := range words {
		if strings.Contains(w, "*") || len(w) >= 2 && w[0] >= 'A' && w[0] <= 'Z' && w[1] == '@' {
			return nil
		}
	}
	// Salt's test `x in [x for y in regex_chars if y in x]` is true when
	// the word contains one of the characters
	for _, w := range words {
		if strings.ContainsAny(w, "([{\\?}])") {
			return []string{"E@" + strings.Join(words, ",")}
		}
	}
	return []string{"L@" + strings.Join(words, ",")}
}

// ipcidr is ipcidr_match: an address in the ipv4/ipv6 grain, or one of
// them inside a network.
func (m *minion) ipcidr(tgt string) tri {
	if m.grains == nil {
		return maybe
	}
	var addrs []netip.Addr
	collect := func(key string) {
		if l, ok := m.grains[key].([]any); ok {
			for _, x := range l {
				if s, ok := x.(string); ok {
					if a, err := netip.ParseAddr(s); err == nil {
						addrs = append(addrs, a)
					}
				}
			}
		}
	}
	if a, err := netip.ParseAddr(tgt); err == nil {
		if a.Is4() {
			collect("ipv4")
		} else {
			collect("ipv6")
		}
		for _, x := range addrs {
			if x == a {
				return yes
			}
		}
		return no
	}
	pfx, err := netip.ParsePrefix(tgt)
	if err != nil || pfx.Masked() != pfx {
		return no // Salt: "Invalid IP/CIDR target" (a network with host bits set is one)
	}
	if pfx.Addr().Is4() {
		collect("ipv4")
	} else {
		collect("ipv6")
	}
	for _, x := range addrs {
		if pfx.Contains(x) {
			return yes
		}
	}
	return no
}

// dataMatch is subdict_match over grains or pillar: `a:b:c` matches
// data[a][b] against `c`, else data[a] against `b:c` (the deepest key
// first); strings compared lower-cased with fnmatch (or re.match).
func (m *minion) dataMatch(data map[string]any, expr, delim string, regex, exact bool) tri {
	if data == nil {
		return maybe
	}
	if !strings.Contains(expr, delim) {
		return no
	}
	r := subdictMatch(data, expr, delim, regex, exact)
	return r
}

func subdictMatch(data any, expr, delim string, regex, exact bool) tri {
	splits := strings.Split(expr, delim)
	if len(splits) == 1 {
		return no
	}
	out := no
	for idx := len(splits) - 1; idx > 0; idx-- {
		key := strings.Join(splits[:idx], delim)
		var matchstr string
		var match any
		found := true
		if key == "*" {
			matchstr, match = expr, data
		} else {
			matchstr = strings.Join(splits[idx:], delim)
			match, found = traverse(data, key, delim)
		}
		if !found {
			continue
		}
		if d, ok := match.(map[string]any); ok {
			if len(d) == 0 {
				continue // {} is traverse's default: Salt skips it
			}
			out = out.or(dictMatch(d, matchstr, regex, exact))
			if out == yes {
				return yes
			}
			continue
		}
		if l, ok := match.([]any); ok {
			for _, member := range l {
				if d, ok := member.(map[string]any); ok {
					out = out.or(dictMatch(d, matchstr, regex, exact))
				}
				out = out.or(valueMatch(member, matchstr, regex, exact))
				if out == yes {
					return yes
				}
			}
			continue
		}
		out = out.or(valueMatch(match, matchstr, regex, exact))
		if out == yes {
			return yes
		}
	}
	return out
}

func dictMatch(target map[string]any, pattern string, regex, exact bool) tri {
	wildcard := strings.HasPrefix(pattern, "*:")
	if wildcard {
		pattern = pattern[2:]
	}
	if pattern == "*" {
		return yes
	}
	if _, ok := target[pattern]; ok {
		return yes
	}
	out := subdictMatch(target, pattern, ":", regex, exact)
	if out == yes || !wildcard {
		return out
	}
	for _, x := range target {
		switch v := x.(type) {
		case map[string]any:
			out = out.or(dictMatch(v, pattern, regex, exact))
		case []any:
			for _, it := range v {
				out = out.or(valueMatch(it, pattern, regex, exact))
			}
		default:
			out = out.or(valueMatch(v, pattern, regex, exact))
		}
		if out == yes {
			return yes
		}
	}
	return out
}

// valueMatch is _match: str(target).lower() against the lower-cased
// pattern.
func valueMatch(target any, pattern string, regex, exact bool) tri {
	t := strings.ToLower(pyStr(target))
	p := strings.ToLower(pattern)
	if regex {
		re, err := pyRegexp(p)
		if err != nil {
			return maybe
		}
		return triOf(re.MatchString(t))
	}
	if exact {
		return triOf(t == p)
	}
	return triOf(fnmatchPy(t, p))
}

// traverse is traverse_dict_and_list: `a:b:0` walks mappings and lists
// (an index, or the first mapping in a list holding the key).
func traverse(data any, key, delim string) (any, bool) {
	ptr := data
	for _, each := range strings.Split(key, delim) {
		switch p := ptr.(type) {
		case []any:
			idx, err := strconv.Atoi(each)
			found := false
			for _, e := range p {
				if d, ok := e.(map[string]any); ok {
					if v, ok := d[each]; ok && err != nil {
						ptr, found = v, true
						break
					}
				}
			}
			if !found && err == nil {
				if idx < 0 {
					idx += len(p)
				}
				if idx < 0 || idx >= len(p) {
					return nil, false
				}
				ptr, found = p[idx], true
			}
			if !found {
				return nil, false
			}
		case map[string]any:
			v, ok := p[each]
			if !ok {
				return nil, false
			}
			ptr = v
		default:
			return nil, false
		}
	}
	return ptr, true
}

// pyStr is Python's str() of a decoded JSON/YAML value.
func pyStr(v any) string {
	switch t := v.(type) {
	case nil:
		return "None"
	case bool:
		if t {
			return "True"
		}
		return "False"
	case string:
		return t
	case float64:
		if t == float64(int64(t)) && t < 1e16 && t > -1e16 {
			return strconv.FormatInt(int64(t), 10) + ".0"
		}
		return strconv.FormatFloat(t, 'g', -1, 64)
	case int:
		return strconv.Itoa(t)
	case int64:
		return strconv.FormatInt(t, 10)
	case fmt.Stringer:
		return t.String()
	}
	return fmt.Sprint(v)
}

// fnmatchPy is Python's fnmatch.fnmatch on POSIX (case-sensitive): `*`,
// `?`, `[seq]`, `[!seq]`, an unclosed `[` literal.
func fnmatchPy(name, pat string) bool {
	return globMatchPy([]rune(name), []rune(pat))
}

func globMatchPy(name, pat []rune) bool {
	for len(pat) > 0 {
		switch pat[0] {
		case '*':
			for len(pat) > 0 && pat[0] == '*' {
				pat = pat[1:]
			}
			if len(pat) == 0 {
				return true
			}
			for i := 0; i <= len(name); i++ {
				if globMatchPy(name[i:], pat) {
					return true
				}
			}
			return false
		case '?':
			if len(name) == 0 {
				return false
			}
			name, pat = name[1:], pat[1:]
		case '[':
			end := classEnd(pat)
			if end < 0 {
				if len(name) == 0 || name[0] != '[' {
					return false
				}
				name, pat = name[1:], pat[1:]
				continue
			}
			if len(name) == 0 || !classMatch(pat[1:end], name[0]) {
				return false
			}
			name, pat = name[1:], pat[end+1:]
		default:
			if len(name) == 0 || name[0] != pat[0] {
				return false
			}
			name, pat = name[1:], pat[1:]
		}
	}
	return len(name) == 0
}

// classEnd finds the `]` closing the class at pat[0] as fnmatch.translate
// does (a `]` right after `[` or `[!` is a member), -1 when unclosed.
func classEnd(pat []rune) int {
	j := 1
	if j < len(pat) && pat[j] == '!' {
		j++
	}
	if j < len(pat) && pat[j] == ']' {
		j++
	}
	for j < len(pat) && pat[j] != ']' {
		j++
	}
	if j >= len(pat) {
		return -1
	}
	return j
}

func classMatch(class []rune, c rune) bool {
	neg := len(class) > 0 && class[0] == '!'
	if neg {
		class = class[1:]
	}
	in := false
	for i := 0; i < len(class); i++ {
		if i+2 < len(class) && class[i+1] == '-' {
			if class[i] <= c && c <= class[i+2] {
				in = true
			}
			i += 2
			continue
		}
		if class[i] == c {
			in = true
		}
	}
	return in != neg
}
