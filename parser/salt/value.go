package salt

import (
	"encoding/json"
	"sort"
	"strconv"
	"strings"
)

// Unknown is the character a value the template cannot know at edit time
// (a pillar lookup, a grain, an imported macro's output) renders as. It is
// a private-use code point: YAML accepts it in plain scalars, no real SLS
// file contains it, and an ID holding it is a pattern (each Unknown stands
// for any text).
const Unknown = "\uE000"

// kind of a template value.
type kind uint8

const (
	kUnknown kind = iota
	kStr
	kNum
	kBool
	kNone
	kList
	kDict
)

// val is a Jinja value as far as it is knowable. Strings may contain
// Unknown runes (partly known, e.g. "svc_" ~ pillar value).
type val struct {
	k    kind
	s    string
	n    float64
	b    bool
	lst  *listObj // a list is shared, as in Python: `do x.append()` changes it where it lives
	dict *dict
	x    *valExt // parts that exist only in some renders (nil: none)
	// hint: an unknown value whose truth is known (`x or 'a'` is x or
	// 'a', truthy either way): 1 truthy, -1 falsy, 0 not known
	hint int8
}

// listObj is a Jinja list.
type listObj struct {
	items []val
	// unknown: changed in a way nobody can follow (an append in a loop
	// over unknown items, a method the evaluation does not know)
	unknown bool
	// shrunk: a method that may remove items ran where nobody can follow
	// (only appends and extends: the items it had are still there)
	shrunk bool
}

// valExt says which parts of a value exist only when undecidable
// branches are taken: a whole value (an item a `do x.append()` added in
// a branch of an `if` nobody can decide), or parts of a string (the
// text such items make in `x|yaml`, `x|join`, `x ~ y`).
type valExt struct {
	arms  []Arm
	marks []strMark
}

// strMark: bytes [a, b) of a string exist only in the renders that take
// the branches arms.
type strMark struct {
	a, b int
	arms []Arm
}

// arms lists the branches the whole value depends on.
func (v val) arms() []Arm {
	if v.x == nil {
		return nil
	}
	return v.x.arms
}

// marks lists the conditional parts of a string.
func (v val) marks() []strMark {
	if v.x == nil {
		return nil
	}
	return v.x.marks
}

// withArms is v, existing only when the branches arms are taken.
func (v val) withArms(arms []Arm) val {
	if len(arms) == 0 {
		return v
	}
	x := &valExt{arms: append(append([]Arm(nil), v.arms()...), arms...)}
	if v.x != nil {
		x.marks = v.x.marks
	}
	v.x = x
	return v
}

// markedStr is a string with conditional parts.
func markedStr(s string, marks []strMark) val {
	v := strVal(s)
	if len(marks) > 0 {
		v.x = &valExt{marks: marks}
	}
	return v
}

// elems are a list's items.
func (v val) elems() []val {
	if v.lst == nil {
		return nil
	}
	return v.lst.items
}

// condItems reports whether some item of a list exists only in some
// renders: its length and positions are then unknown.
func (v val) condItems() bool {
	for _, it := range v.elems() {
		if len(it.arms()) > 0 {
			return true
		}
	}
	return false
}

type dict struct {
	keys []string
	m    map[string]val
}

func newDict() *dict { return &dict{m: map[string]val{}} }

func (d *dict) set(k string, v val) {
	if _, ok := d.m[k]; !ok {
		d.keys = append(d.keys, k)
	}
	d.m[k] = v
}

var unknownVal = val{}

func strVal(s string) val  { return val{k: kStr, s: s} }
func numVal(n float64) val { return val{k: kNum, n: n} }
func boolVal(b bool) val   { return val{k: kBool, b: b} }
func listVal(l []val) val  { return val{k: kList, lst: &listObj{items: l}} }
func noneVal() val         { return val{k: kNone} }
func (v val) known() bool  { return v.k != kUnknown && !(v.k == kStr && strings.Contains(v.s, Unknown)) }

// truth returns the truthiness and whether it is known.
func (v val) truth() (bool, bool) {
	switch v.k {
	case kUnknown:
		if v.hint != 0 {
			return v.hint > 0, true
		}
		return false, false
	case kStr:
		if strings.Contains(v.s, Unknown) {
			return true, true // a partly known string is non-empty
		}
		return v.s != "", true
	case kNum:
		return v.n != 0, true
	case kBool:
		return v.b, true
	case kNone:
		return false, true
	case kList:
		if len(v.elems()) == 0 {
			return false, true
		}
		for _, it := range v.elems() {
			if len(it.arms()) == 0 {
				return true, true
			}
		}
		return false, false // only items some renders add
	case kDict:
		return len(v.dict.keys) > 0, true
	}
	return false, false
}

// text renders a value as Jinja prints it ({{ v }}).
func (v val) text() string {
	switch v.k {
	case kStr:
		return v.s
	case kNum:
		return fmtNum(v.n)
	case kBool:
		if v.b {
			return "True"
		}
		return "False"
	case kNone:
		return "None"
	case kList, kDict:
		return v.repr()
	}
	return Unknown
}

func fmtNum(n float64) string {
	if n == float64(int64(n)) && n < 1e15 && n > -1e15 {
		return strconv.FormatInt(int64(n), 10)
	}
	return strconv.FormatFloat(n, 'g', -1, 64)
}

// repr is Python's repr, which is what Jinja prints for lists and dicts.
func (v val) repr() string {
	switch v.k {
	case kStr:
		return "'" + strings.ReplaceAll(v.s, "'", "\\'") + "'"
	case kList:
		parts := make([]string, len(v.elems()))
		for i, x := range v.elems() {
			parts[i] = x.repr()
		}
		return "[" + strings.Join(parts, ", ") + "]"
	case kDict:
		parts := make([]string, 0, len(v.dict.keys))
		for _, k := range v.dict.keys {
			parts = append(parts, "'"+k+"': "+v.dict.m[k].repr())
		}
		return "{" + strings.Join(parts, ", ") + "}"
	}
	return v.text()
}

// key is the dict key a value stands for.
func (v val) key() (string, bool) {
	switch v.k {
	case kStr:
		return v.s, !strings.Contains(v.s, Unknown)
	case kNum, kBool, kNone:
		return v.text(), true
	}
	return "", false
}

func equal(a, b val) (bool, bool) {
	if !a.known() || !b.known() {
		return false, false
	}
	if a.k != b.k {
		if (a.k == kNum || a.k == kBool) && (b.k == kNum || b.k == kBool) {
			return toNum(a) == toNum(b), true
		}
		return false, true
	}
	switch a.k {
	case kStr:
		return a.s == b.s, true
	case kNum:
		return a.n == b.n, true
	case kBool:
		return a.b == b.b, true
	case kNone:
		return true, true
	case kList:
		if a.condItems() || b.condItems() {
			return false, false
		}
		if len(a.elems()) != len(b.elems()) {
			return false, true
		}
		for i := range a.elems() {
			eq, ok := equal(a.elems()[i], b.elems()[i])
			if !ok {
				return false, false
			}
			if !eq {
				return false, true
			}
		}
		return true, true
	}
	return false, false
}

func toNum(v val) float64 {
	switch v.k {
	case kNum:
		return v.n
	case kBool:
		if v.b {
			return 1
		}
	case kStr:
		f, _ := strconv.ParseFloat(strings.TrimSpace(v.s), 64)
		return f
	}
	return 0
}

// items lists what a for loop over v visits; ok is false when unknown.
func (v val) items() ([]val, bool) {
	switch v.k {
	case kList:
		return v.elems(), true
	case kDict:
		out := make([]val, len(v.dict.keys))
		for i, k := range v.dict.keys {
			out[i] = strVal(k)
		}
		return out, true
	case kStr:
		if !v.known() {
			return nil, false
		}
		out := make([]val, 0, len(v.s))
		for _, r := range v.s {
			out = append(out, strVal(string(r)))
		}
		return out, true
	}
	return nil, false
}

func sortVals(l []val) []val {
	out := append([]val(nil), l...)
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.k == kNum && b.k == kNum {
			return a.n < b.n
		}
		return a.text() < b.text()
	})
	return out
}

// FactsVar is the template variable that carries the minion's grains and
// pillar, as JSON {"grains": {...}, "pillar": {...}} (the user's facts
// file): with it `grains[...]`, `pillar[...]`, `salt['grains.get']`,
// `salt['pillar.get']` are known values, and the template renders as it
// would on that minion.
const FactsVar = "\x00facts"

func setFacts(root *scope, js string) {
	var m map[string]any
	if json.Unmarshal([]byte(js), &m) != nil {
		return
	}
	for _, k := range []string{"grains", "pillar"} {
		if d, ok := m[k].(map[string]any); ok {
			v := fromJSON(d)
			root.set(k, v)
			root.set("\x00"+k, v)
		}
	}
}

func fromJSON(x any) val {
	switch t := x.(type) {
	case nil:
		return noneVal()
	case bool:
		return boolVal(t)
	case float64:
		return numVal(t)
	case string:
		return strVal(t)
	case []any:
		l := make([]val, len(t))
		for i, e := range t {
			l[i] = fromJSON(e)
		}
		return listVal(l)
	case map[string]any:
		d := newDict()
		keys := make([]string, 0, len(t))
		for k := range t {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			d.set(k, fromJSON(t[k]))
		}
		return val{k: kDict, dict: d}
	}
	return unknownVal
}

// saltGet is salt['pillar.get'](key, default) / salt['grains.get'] with
// the user's facts: `a:b:c` walks nested mappings; a missing key is the
// default, or ” as Salt returns.
func saltGet(root val, args []val) val {
	if len(args) == 0 || args[0].k != kStr {
		return unknownVal
	}
	v, found := root, true
	for _, part := range strings.Split(args[0].s, ":") {
		next, ok := val{}, false
		if v.k == kDict {
			next, ok = v.dict.m[part]
		}
		if !ok {
			found = false
			break
		}
		v = next
	}
	if !found {
		if len(args) > 1 {
			return args[1]
		}
		return strVal("")
	}
	return v
}
