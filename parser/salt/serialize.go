package salt

import (
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/ordering-lsp/ordering-lsp/internal/lazyre"
)

// Text made from values, with the parts that exist only in some renders
// marked: the items a `do x.append()` added in a branch of an undecidable
// `if` keep saying so when a list is printed, joined or dumped as YAML or
// JSON, so that what they turn into (an include, a state) is known to be
// conditional.

type mtext struct {
	b     strings.Builder
	marks []strMark
}

// add appends s whose conditional parts are marks (offsets in s).
func (m *mtext) add(s string, marks []strMark) {
	base := m.b.Len()
	for _, mk := range marks {
		m.marks = append(m.marks, strMark{mk.a + base, mk.b + base, mk.arms})
	}
	m.b.WriteString(s)
}

// addVal appends text made from v: when v exists only in some renders,
// all of it is marked.
func (m *mtext) addVal(s string, marks []strMark, v val) {
	start := m.b.Len()
	m.add(s, marks)
	if a := v.arms(); len(a) > 0 && m.b.Len() > start {
		m.marks = append(m.marks, strMark{start, m.b.Len(), a})
	}
}

func (m *mtext) val() val { return markedStr(m.b.String(), m.marks) }

// printed is what `{{ v }}` writes, with its conditional parts.
func (v val) printed() (string, []strMark) {
	var m mtext
	switch v.k {
	case kList, kDict:
		s, mk := v.reprMarked()
		m.addVal(s, mk, v)
	default:
		m.addVal(v.text(), v.marks(), v)
	}
	return m.b.String(), m.marks
}

// reprMarked is repr with the conditional items marked.
func (v val) reprMarked() (string, []strMark) {
	var m mtext
	switch v.k {
	case kList:
		m.add("[", nil)
		for i, x := range v.elems() {
			if i > 0 {
				m.add(", ", nil)
			}
			s, mk := x.reprMarked()
			m.addVal(s, mk, x)
		}
		m.add("]", nil)
	case kDict:
		m.add("{", nil)
		for i, k := range v.dict.keys {
			if i > 0 {
				m.add(", ", nil)
			}
			x := v.dict.m[k]
			s, mk := x.reprMarked()
			m.add("'"+k+"': ", nil)
			m.addVal(s, mk, x)
		}
		m.add("}", nil)
	default:
		m.add(v.repr(), nil)
	}
	return m.b.String(), m.marks
}

// joinMarked is `items|join(sep)`.
func joinMarked(items []val, sep string) val {
	var m mtext
	for i, it := range items {
		if i > 0 {
			m.add(sep, nil)
		}
		s, mk := it.printed()
		m.add(s, mk)
	}
	return m.val()
}

// concatMarked is `l ~ r` (and `+` of two strings).
func concatMarked(l, r val) val {
	if l.x == nil && r.x == nil {
		return strVal(l.text() + r.text())
	}
	var m mtext
	for _, v := range []val{l, r} {
		s, mk := v.printed()
		m.add(s, mk)
	}
	return m.val()
}

// known reports whether v holds nothing unknown (so it can be dumped).
func (v val) deepKnown(depth int) bool {
	if depth > 50 {
		return false
	}
	switch v.k {
	case kUnknown:
		return false
	case kStr:
		return v.known()
	case kList:
		for _, x := range v.elems() {
			if !x.deepKnown(depth + 1) {
				return false
			}
		}
	case kDict:
		for _, k := range v.dict.keys {
			if strings.Contains(k, Unknown) || !v.dict.m[k].deepKnown(depth+1) {
				return false
			}
		}
	}
	return true
}

// ---------------------------------------------------------------------
// The yaml filter: salt/utils/jinja.py SerializerExtension.format_yaml,
// salt.utils.yaml.safe_dump(value, default_flow_style=flow_style) with
// allow_unicode, stripped, without a trailing "\n...". Salt dumps with
// CSafeDumper, libyaml's emitter (src/emitter.c): this follows it for the
// values a template can hold (strings, numbers, booleans, None, lists,
// dicts with sorted keys as PyYAML's representer gives them), line width
// and quoting included. TestYAMLFilterOracle compares it with the real
// dumper. (gopkg.in/yaml.v3's encoder is a port of the same emitter but
// never folds lines: its width is fixed at "unlimited" with no setter, and
// Salt's output folds at 80 columns, which decides where an include list
// or a state ID breaks.)

const yamlBestWidth = 80
const yamlBestIndent = 2

type yemitter struct {
	out        strings.Builder
	column     int
	indent     int // -1: none yet
	indents    []int
	flowLevel  int
	whitespace bool
	indention  bool
	mapCtx     bool
	simpleKey  bool
	flowStyle  bool
	marks      []strMark
}

// yamlDump is `v|yaml(flow)`; ok is false when v holds unknown parts.
func yamlDump(v val, flow bool) (string, []strMark, bool) {
	if !v.deepKnown(0) {
		return "", nil, false
	}
	e := &yemitter{indent: -1, whitespace: true, indention: true, flowStyle: flow}
	e.node(v, false, 0)
	e.writeIndent() // document end
	s := e.out.String()
	// .strip(); a "\n..." document end marker would go too
	lead := len(s) - len(strings.TrimLeft(s, " \t\n\r\v\f"))
	s = strings.TrimSpace(s)
	var marks []strMark
	for _, m := range e.marks {
		a, b := m.a-lead, min(m.b-lead, len(s))
		if a < b && a >= 0 {
			marks = append(marks, strMark{a, b, m.arms})
		}
	}
	return s, marks, true
}

// put writes text without line breaks; the column counts characters.
func (e *yemitter) put(s string) {
	e.out.WriteString(s)
	e.column += utf8.RuneCountInString(s)
}

func (e *yemitter) putBreak() {
	e.out.WriteByte('\n')
	e.column = 0
}

func (e *yemitter) increaseIndent(flow, indentless bool) {
	e.indents = append(e.indents, e.indent)
	if e.indent < 0 {
		if flow {
			e.indent = yamlBestIndent
		} else {
			e.indent = 0
		}
	} else if !indentless {
		e.indent += yamlBestIndent
	}
}

func (e *yemitter) popIndent() {
	e.indent = e.indents[len(e.indents)-1]
	e.indents = e.indents[:len(e.indents)-1]
}

func (e *yemitter) writeIndicator(ind string, needWhitespace, isWhitespace, isIndention bool) {
	if needWhitespace && !e.whitespace {
		e.put(" ")
	}
	e.put(ind)
	e.whitespace = isWhitespace
	e.indention = e.indention && isIndention
}

func (e *yemitter) writeIndent() {
	indent := max(e.indent, 0)
	if !e.indention || e.column > indent || (e.column == indent && !e.whitespace) {
		e.putBreak()
	}
	if e.column < indent {
		e.put(strings.Repeat(" ", indent-e.column))
	}
	e.whitespace, e.indention = true, true
}

// node is yaml_emitter_emit_node.
func (e *yemitter) node(v val, mapping bool, depth int) {
	e.mapCtx, e.simpleKey = mapping, false
	start := e.out.Len()
	switch v.k {
	case kList:
		if e.flowLevel > 0 || e.flowStyle || len(v.elems()) == 0 {
			e.flowSeq(v, depth)
		} else {
			e.blockSeq(v, depth)
		}
	case kDict:
		if e.flowLevel > 0 || e.flowStyle || len(v.dict.keys) == 0 {
			e.flowMap(v, depth)
		} else {
			e.blockMap(v, depth)
		}
	default:
		e.scalar(v)
	}
	if a := v.arms(); len(a) > 0 {
		s := e.out.String()
		for start < len(s) && (s[start] == ' ' || s[start] == '\n') {
			start++
		}
		if start < len(s) {
			e.marks = append(e.marks, strMark{start, len(s), a})
		}
	}
}

func (e *yemitter) flowSeq(v val, depth int) {
	e.writeIndicator("[", true, true, false)
	e.increaseIndent(true, false)
	e.flowLevel++
	for i, it := range v.elems() {
		if i > 0 {
			e.writeIndicator(",", false, false, false)
		}
		if e.column > yamlBestWidth {
			e.writeIndent()
		}
		e.node(it, false, depth+1)
	}
	e.flowLevel--
	e.popIndent()
	e.writeIndicator("]", false, false, false)
}

func (e *yemitter) blockSeq(v val, depth int) {
	e.increaseIndent(false, e.mapCtx && !e.indention)
	for _, it := range v.elems() {
		e.writeIndent()
		e.writeIndicator("-", true, false, true)
		e.node(it, false, depth+1)
	}
	e.popIndent()
}

// sortedKeys: PyYAML's represent_mapping sorts the items.
func sortedKeys(d *dict) []string {
	ks := append([]string(nil), d.keys...)
	sort.Strings(ks)
	return ks
}

func (e *yemitter) flowMap(v val, depth int) {
	e.writeIndicator("{", true, true, false)
	e.increaseIndent(true, false)
	e.flowLevel++
	for i, k := range sortedKeys(v.dict) {
		if i > 0 {
			e.writeIndicator(",", false, false, false)
		}
		if e.column > yamlBestWidth {
			e.writeIndent()
		}
		if simpleKey(k) {
			e.key(k, true)
			e.writeIndicator(":", false, false, false)
		} else {
			e.writeIndicator("?", true, false, false)
			e.key(k, false)
			if e.column > yamlBestWidth {
				e.writeIndent()
			}
			e.writeIndicator(":", true, false, false)
		}
		e.node(v.dict.m[k], true, depth+1)
	}
	e.flowLevel--
	e.popIndent()
	e.writeIndicator("}", false, false, false)
}

func (e *yemitter) blockMap(v val, depth int) {
	e.increaseIndent(false, false)
	for _, k := range sortedKeys(v.dict) {
		e.writeIndent()
		if simpleKey(k) {
			e.key(k, true)
			e.writeIndicator(":", false, false, false)
		} else {
			e.writeIndicator("?", true, false, true)
			e.key(k, false)
			e.writeIndent()
			e.writeIndicator(":", true, false, true)
		}
		e.node(v.dict.m[k], true, depth+1)
	}
	e.popIndent()
}

// key writes a mapping key (a string).
func (e *yemitter) key(k string, simple bool) {
	e.mapCtx, e.simpleKey = true, simple
	e.scalarText(k, true)
}

// simpleKey is yaml_emitter_check_simple_key for an implicit string
// scalar: on one line, at most 128 bytes.
func simpleKey(k string) bool {
	return !analyzeScalar(k).multiline && len(k) <= 128
}

// scalar writes a non-collection value.
func (e *yemitter) scalar(v val) {
	switch v.k {
	case kStr:
		e.scalarText(v.s, true)
	case kNum:
		e.scalarText(yamlNum(v.n), false)
	case kBool:
		if v.b {
			e.scalarText("true", false)
		} else {
			e.scalarText("false", false)
		}
	default:
		e.scalarText("null", false)
	}
}

// yamlNum is represent_int, or represent_float for a number with a
// fraction.
func yamlNum(n float64) string {
	if n == float64(int64(n)) && n < 1e15 && n > -1e15 {
		return strconv.FormatInt(int64(n), 10)
	}
	s := strings.ToLower(pyFloatRepr(n))
	if !strings.Contains(s, ".") && strings.Contains(s, "e") {
		s = strings.Replace(s, "e", ".0e", 1)
	}
	return s
}

// pyFloatRepr is Python's repr of a float.
func pyFloatRepr(n float64) string {
	abs := n
	if abs < 0 {
		abs = -abs
	}
	if abs != 0 && (abs < 1e-4 || abs >= 1e16) {
		s := strconv.FormatFloat(n, 'e', -1, 64)
		// Python: 1e-05, 1e+16
		mant, exp, _ := strings.Cut(s, "e")
		sign := exp[0]
		exp = strings.TrimLeft(exp[1:], "0")
		if len(exp) < 2 {
			exp = strings.Repeat("0", 2-len(exp)) + exp
		}
		return mant + "e" + string(sign) + exp
	}
	s := strconv.FormatFloat(n, 'f', -1, 64)
	if !strings.Contains(s, ".") {
		s += ".0"
	}
	return s
}

// scalarText is yaml_emitter_emit_scalar with the style
// yaml_emitter_select_scalar_style picks (isStr: a str, whose plain form
// must read as a str again; other scalars are plain).
func (e *yemitter) scalarText(text string, isStr bool) {
	a := analyzeScalar(text)
	plainImplicit := !isStr || resolvesToStr(text)
	style := byte(0)
	if e.simpleKey && a.multiline {
		style = '"'
	}
	if style == 0 {
		if e.flowLevel > 0 && !a.flowPlain || e.flowLevel == 0 && !a.blockPlain {
			style = '\''
		}
		if text == "" && (e.flowLevel > 0 || e.simpleKey) {
			style = '\''
		}
		if !plainImplicit {
			style = '\''
		}
	}
	if style == '\'' && !a.singleQuoted {
		style = '"'
	}
	e.increaseIndent(true, false)
	breaks := !e.simpleKey
	switch style {
	case 0:
		e.writePlain(text, breaks)
	case '\'':
		e.writeSingleQuoted(text, breaks)
	default:
		e.writeDoubleQuoted(text, breaks)
	}
	e.popIndent()
}

type scalarAnalysis struct {
	multiline                           bool
	flowPlain, blockPlain, singleQuoted bool
}

// yamlBreak is IS_BREAK: CR, LF, NEL, LS, PS.
func yamlBreak(r rune) bool {
	return r == '\r' || r == '\n' || r == 0x85 || r == 0x2028 || r == 0x2029
}

// yamlBlankZ is IS_BLANKZ (the end of the string counts).
func yamlBlankZ(r rune) bool { return r == -1 || r == 0 || r == ' ' || r == '\t' || yamlBreak(r) }

// yamlPrintable is IS_PRINTABLE.
func yamlPrintable(r rune) bool {
	return r == 0x0a || r >= 0x20 && r <= 0x7e || r >= 0xa0 && r <= 0xd7ff || r >= 0xe000 && r <= 0xfffd && r != 0xfeff
}

// analyzeScalar is yaml_emitter_analyze_scalar (unicode output).
func analyzeScalar(scalar string) scalarAnalysis {
	if scalar == "" {
		return scalarAnalysis{blockPlain: true, singleQuoted: true}
	}
	rs := []rune(scalar)
	at := func(i int) rune {
		if i < len(rs) {
			return rs[i]
		}
		return -1
	}
	var blockInd, flowInd, lineBreaks, special bool
	var leadingSpace, leadingBreak, trailingSpace, trailingBreak, breakSpace, spaceBreak bool
	if strings.HasPrefix(scalar, "---") || strings.HasPrefix(scalar, "...") {
		blockInd, flowInd = true, true
	}
	preceded := true
	followed := yamlBlankZ(at(1))
	prevSpace, prevBreak := false, false
	for i, ch := range rs {
		if i == 0 {
			if strings.ContainsRune("#,[]{}&*!|>'\"%@`", ch) {
				flowInd, blockInd = true, true
			}
			if ch == '?' || ch == ':' {
				flowInd = true
				if followed {
					blockInd = true
				}
			}
			if ch == '-' && followed {
				flowInd, blockInd = true, true
			}
		} else {
			if strings.ContainsRune(",?[]{}", ch) {
				flowInd = true
			}
			if ch == ':' {
				flowInd = true
				if followed {
					blockInd = true
				}
			}
			if ch == '#' && preceded {
				flowInd, blockInd = true, true
			}
		}
		if !yamlPrintable(ch) {
			special = true
		}
		if yamlBreak(ch) {
			lineBreaks = true
		}
		switch {
		case ch == ' ':
			if i == 0 {
				leadingSpace = true
			}
			if i == len(rs)-1 {
				trailingSpace = true
			}
			if prevBreak {
				breakSpace = true
			}
			prevSpace, prevBreak = true, false
		case yamlBreak(ch):
			if i == 0 {
				leadingBreak = true
			}
			if i == len(rs)-1 {
				trailingBreak = true
			}
			if prevSpace {
				spaceBreak = true
			}
			prevSpace, prevBreak = false, true
		default:
			prevSpace, prevBreak = false, false
		}
		preceded = yamlBlankZ(ch)
		if i+1 < len(rs) {
			followed = yamlBlankZ(at(i + 2))
		}
	}
	a := scalarAnalysis{multiline: lineBreaks, flowPlain: true, blockPlain: true, singleQuoted: true}
	if leadingSpace || leadingBreak || trailingSpace || trailingBreak {
		a.flowPlain, a.blockPlain = false, false
	}
	if breakSpace {
		a.flowPlain, a.blockPlain, a.singleQuoted = false, false, false
	}
	if spaceBreak || special {
		a.flowPlain, a.blockPlain, a.singleQuoted = false, false, false
	}
	if lineBreaks {
		a.flowPlain, a.blockPlain = false, false
	}
	if flowInd {
		a.flowPlain = false
	}
	if blockInd {
		a.blockPlain = false
	}
	return a
}

// The implicit resolvers of yaml.resolver.Resolver (what a plain scalar
// reads as); Python's `$` also matches before a final newline.
var (
	yamlBoolRe  = lazyre.New(`^(?:yes|Yes|YES|no|No|NO|true|True|TRUE|false|False|FALSE|on|On|ON|off|Off|OFF)$`)
	yamlFloatRe = lazyre.New(`^(?:[-+]?(?:[0-9][0-9_]*)\.[0-9_]*(?:[eE][-+][0-9]+)?|\.[0-9][0-9_]*(?:[eE][-+][0-9]+)?|[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+\.[0-9_]*|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$`)
	yamlIntRe   = lazyre.New(`^(?:[-+]?0b[0-1_]+|[-+]?0[0-7_]+|[-+]?(?:0|[1-9][0-9_]*)|[-+]?0x[0-9a-fA-F_]+|[-+]?[1-9][0-9_]*(?::[0-5]?[0-9])+)$`)
	yamlNullRe  = lazyre.New(`^(?:~|null|Null|NULL|)$`)
	yamlTimeRe  = lazyre.New(`^(?:[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]|[0-9][0-9][0-9][0-9]-[0-9][0-9]?-[0-9][0-9]?(?:[Tt]|[ \t]+)[0-9][0-9]?:[0-9][0-9]:[0-9][0-9](?:\.[0-9]*)?(?:[ \t]*(?:Z|[-+][0-9][0-9]?(?::[0-9][0-9])?))?)$`)
)

// resolvesToStr reports whether a plain scalar with this text reads as a
// string (Resolver.resolve with implicit plain), the resolvers chosen by
// the first character as the resolver chooses them.
func resolvesToStr(s string) bool {
	if s == "" {
		return false // null
	}
	t := strings.TrimSuffix(s, "\n")
	first := s[0]
	check := func(re *lazyre.Regexp, firsts string) bool {
		return strings.IndexByte(firsts, first) >= 0 && re.MatchString(t)
	}
	switch {
	case check(yamlBoolRe, "yYnNtTfFoO"),
		check(yamlFloatRe, "-+0123456789."),
		check(yamlIntRe, "-+0123456789"),
		first == '<' && t == "<<",
		check(yamlNullRe, "~nN"),
		check(yamlTimeRe, "0123456789"),
		first == '=' && t == "=":
		return false
	}
	return true
}

// writeBreak is WRITE_BREAK.
func (e *yemitter) writeBreak(r rune) {
	if r == '\n' {
		e.putBreak()
		return
	}
	e.out.WriteRune(r)
	e.column = 0
}

func (e *yemitter) writePlain(text string, allowBreaks bool) {
	if !e.whitespace && (text != "" || e.flowLevel > 0) {
		e.put(" ")
	}
	e.writeRunes([]rune(text), allowBreaks, false)
	e.whitespace, e.indention = false, false
}

func (e *yemitter) writeSingleQuoted(text string, allowBreaks bool) {
	e.writeIndicator("'", true, false, false)
	if e.writeRunes([]rune(text), allowBreaks, true) {
		e.writeIndent()
	}
	e.writeIndicator("'", false, false, false)
	e.whitespace, e.indention = false, false
}

// writeRunes writes a plain or single-quoted scalar's characters as
// libyaml's emitter does: long lines folded at spaces, breaks kept, a
// quote doubled inside quotes. It reports whether it ended in breaks.
func (e *yemitter) writeRunes(rs []rune, allowBreaks, quoted bool) bool {
	spaces, breaks := false, false
	for i, ch := range rs {
		switch {
		case ch == ' ':
			fold := allowBreaks && !spaces && e.column > yamlBestWidth && !(i+1 < len(rs) && rs[i+1] == ' ')
			if quoted {
				fold = fold && i != 0 && i != len(rs)-1
			}
			if fold {
				e.writeIndent()
			} else {
				e.put(" ")
			}
			spaces = true
		case yamlBreak(ch):
			if !breaks && ch == '\n' {
				e.putBreak()
			}
			e.writeBreak(ch)
			e.indention = true
			breaks = true
		default:
			if breaks {
				e.writeIndent()
			}
			if quoted && ch == '\'' {
				e.put("'")
			}
			e.put(string(ch))
			e.indention = false
			spaces, breaks = false, false
		}
	}
	return breaks
}

var yamlEscapes = map[rune]byte{
	0: '0', 0x07: 'a', 0x08: 'b', 0x09: 't', 0x0a: 'n', 0x0b: 'v', 0x0c: 'f', 0x0d: 'r', 0x1b: 'e',
	'"': '"', '\\': '\\', 0x85: 'N', 0xa0: '_', 0x2028: 'L', 0x2029: 'P',
}

func (e *yemitter) writeDoubleQuoted(text string, allowBreaks bool) {
	e.writeIndicator("\"", true, false, false)
	rs := []rune(text)
	spaces := false
	for i, ch := range rs {
		switch {
		case !yamlPrintable(ch) || ch == 0xfeff || yamlBreak(ch) || ch == '"' || ch == '\\':
			if c, ok := yamlEscapes[ch]; ok {
				e.put("\\" + string(c))
			} else if ch <= 0xff {
				e.put("\\x" + strings.ToUpper(leftPad(strconv.FormatInt(int64(ch), 16), 2)))
			} else if ch <= 0xffff {
				e.put("\\u" + strings.ToUpper(leftPad(strconv.FormatInt(int64(ch), 16), 4)))
			} else {
				e.put("\\U" + strings.ToUpper(leftPad(strconv.FormatInt(int64(ch), 16), 8)))
			}
			spaces = false
		case ch == ' ':
			if allowBreaks && !spaces && e.column > yamlBestWidth && i != 0 && i != len(rs)-1 {
				e.writeIndent()
				if i+1 < len(rs) && rs[i+1] == ' ' {
					e.put("\\")
				}
			} else {
				e.put(" ")
			}
			spaces = true
		default:
			e.put(string(ch))
			spaces = false
		}
	}
	e.writeIndicator("\"", false, false, false)
	e.whitespace, e.indention = false, false
}

func leftPad(s string, n int) string {
	if len(s) >= n {
		return s
	}
	return strings.Repeat("0", n-len(s)) + s
}

// ---------------------------------------------------------------------
// The json filter: format_json, salt.utils.json.dumps(value,
// sort_keys=sort_keys, indent=indent) with ensure_ascii=False, stripped.

// jsonDump is `v|json(sort_keys, indent)`; indent < 0 is None.
func jsonDump(v val, sortKeys bool, indent int) (string, []strMark, bool) {
	if !v.deepKnown(0) {
		return "", nil, false
	}
	var m mtext
	jsonWrite(&m, v, sortKeys, indent, 0)
	return strings.TrimSpace(m.b.String()), m.marks, true
}

func jsonWrite(m *mtext, v val, sortKeys bool, indent, level int) {
	start := m.b.Len()
	nl := func(l int) {
		if indent >= 0 {
			m.add("\n"+strings.Repeat(" ", indent*l), nil)
		}
	}
	sep := ", "
	if indent >= 0 {
		sep = ","
	}
	switch v.k {
	case kList:
		if len(v.elems()) == 0 {
			m.add("[]", nil)
			break
		}
		m.add("[", nil)
		for i, it := range v.elems() {
			if i > 0 {
				m.add(sep, nil)
			}
			nl(level + 1)
			jsonWrite(m, it, sortKeys, indent, level+1)
		}
		nl(level)
		m.add("]", nil)
	case kDict:
		keys := v.dict.keys
		if sortKeys {
			keys = sortedKeys(v.dict)
		}
		if len(keys) == 0 {
			m.add("{}", nil)
			break
		}
		m.add("{", nil)
		for i, k := range keys {
			if i > 0 {
				m.add(sep, nil)
			}
			nl(level + 1)
			m.add(jsonString(k)+": ", nil)
			jsonWrite(m, v.dict.m[k], sortKeys, indent, level+1)
		}
		nl(level)
		m.add("}", nil)
	case kStr:
		m.add(jsonString(v.s), nil)
	case kNum:
		if v.n == float64(int64(v.n)) && v.n < 1e15 && v.n > -1e15 {
			m.add(strconv.FormatInt(int64(v.n), 10), nil)
		} else {
			m.add(pyFloatRepr(v.n), nil)
		}
	case kBool:
		if v.b {
			m.add("true", nil)
		} else {
			m.add("false", nil)
		}
	default:
		m.add("null", nil)
	}
	if a := v.arms(); len(a) > 0 && m.b.Len() > start {
		m.marks = append(m.marks, strMark{start, m.b.Len(), a})
	}
}

// jsonString is json's encoding of a str with ensure_ascii=False.
func jsonString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch r {
		case '"':
			b.WriteString(`\"`)
		case '\\':
			b.WriteString(`\\`)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case '\t':
			b.WriteString(`\t`)
		case '\b':
			b.WriteString(`\b`)
		case '\f':
			b.WriteString(`\f`)
		default:
			if r < 0x20 {
				b.WriteString(`\u00` + leftPad(strconv.FormatInt(int64(r), 16), 2))
			} else {
				b.WriteRune(r)
			}
		}
	}
	b.WriteByte('"')
	return b.String()
}

// ---------------------------------------------------------------------
// The indent filter: jinja2.filters.do_indent(s, width, first, blank).

// pyLineBreak reports the length of a line boundary of str.splitlines
// at s[i:], 0 when there is none.
func pyLineBreak(s string, i int) int {
	switch s[i] {
	case '\r':
		if i+1 < len(s) && s[i+1] == '\n' {
			return 2
		}
		return 1
	case '\n', '\v', '\f', 0x1c, 0x1d, 0x1e:
		return 1
	}
	r, n := utf8.DecodeRuneInString(s[i:])
	if r == 0x85 || r == 0x2028 || r == 0x2029 {
		return n
	}
	return 0
}

// indentMarked is do_indent: every line after the first (and the first
// too with first) gets the prefix, empty lines only with blank; the
// conditional parts move with their text.
func indentMarked(v val, prefix string, first, blank bool) val {
	s := v.s + "\n"
	// the lines, as splitlines gives them, with their start offsets
	type line struct{ a, b int }
	var lines []line
	a := 0
	for i := 0; i < len(s); {
		if n := pyLineBreak(s, i); n > 0 {
			lines = append(lines, line{a, i})
			i += n
			a = i
			continue
		}
		i++
	}
	if a < len(s) {
		lines = append(lines, line{a, len(s)})
	}
	var m mtext
	marks := v.marks()
	// moved maps an offset of v.s to the output
	var starts []int // output offset of each line
	for i, l := range lines {
		if i > 0 {
			m.add("\n", nil)
		}
		if first && i == 0 || i > 0 && (blank || l.b > l.a) {
			m.add(prefix, nil)
		}
		starts = append(starts, m.b.Len())
		m.add(s[l.a:l.b], nil)
	}
	moved := func(off int) int {
		for i := len(lines) - 1; i >= 0; i-- {
			if off >= lines[i].a {
				return starts[i] + min(off-lines[i].a, lines[i].b-lines[i].a)
			}
		}
		return 0
	}
	for _, mk := range marks {
		if x, y := moved(mk.a), moved(mk.b); x < y {
			m.marks = append(m.marks, strMark{x, y, mk.arms})
		}
	}
	out := m.val()
	if a := v.arms(); len(a) > 0 {
		out = out.withArms(a)
	}
	return out
}
