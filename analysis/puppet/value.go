package puppet

import (
	"path"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/ordering-lsp/ordering-lsp/source"
)

// vkind is the kind of a statically evaluated value.
type vkind uint8

const (
	vUnknown vkind = iota // facts, function results, anything we cannot know
	vStr
	vNum
	vBool
	vUndef
	vDefault
	vRegex
	vArr
	vHash
	vRef      // a resource reference Type['title']
	vRes      // resources declared by an expression (chain operands)
	vCollect  // a collector (chain operand)
	vTypeName // a bare type like String, File (no title)
)

// val is a value computed without running Puppet. Strings built from
// unknown parts are patterns (pat: '*' stands for the unknown piece).
type val struct {
	k   vkind
	pat bool // (next to k: 96 bytes instead of 104)
	// boolean: an unknown value that is a Boolean (`!$x`, a comparison):
	// it equals no String, Number or other kind of value, as Puppet
	// compares (`!$facts['os']['name'] == 'RedHat'` is false everywhere:
	// `!` binds tighter than `==`; puppetlabs-seteam/control-repo)
	boolean bool
	// str: an unknown value that is a String when set (a legacy fact such
	// as operatingsystemmajrelease): it equals no Number or Boolean
	// (rgbank's `$::operatingsystemmajrelease == 7` holds on no node),
	// though it may be undef where the fact is absent
	str bool
	s   string
	arr []val
	ref *ref
	x   *valX // hash keys, declared resources, collector
	at  source.Span
}

// valX holds what only some values carry, keeping val small.
type valX struct {
	// closed: the hash has every key there is ($trusted), so a missing
	// key is undef, not a key the data we see happens to lack.
	closed bool
	keys   []val
	res    []*res
	col    *collector
}

func (v val) hkeys() []val {
	if v.x == nil {
		return nil
	}
	return v.x.keys
}

func (v val) resList() []*res {
	if v.x == nil {
		return nil
	}
	return v.x.res
}

// ref is Type['title'] as written; typ is the capitalised type, title
// possibly a pattern.
type ref struct {
	typ   string
	title string
	pat   bool
	at    source.Span
}

func unknown(at source.Span) val { return val{k: vUnknown, at: at} }

func unknownBool(at source.Span) val { return val{k: vUnknown, boolean: true, at: at} }
func unknownStr(at source.Span) val  { return val{k: vUnknown, str: true, at: at} }
func str(s string, at source.Span) val {
	return val{k: vStr, s: s, at: at}
}

func (v val) known() bool {
	switch v.k {
	case vUnknown:
		return false
	case vStr:
		return !v.pat
	case vArr:
		for _, x := range v.arr {
			if !x.known() {
				return false
			}
		}
	}
	return true
}

// text renders a value as Puppet would interpolate it; unknown parts are '*'.
func (v val) text() (string, bool) {
	switch v.k {
	case vStr:
		return v.s, !v.pat
	case vNum:
		return v.s, true
	case vBool:
		return v.s, true
	case vUndef:
		return "", true
	case vRef:
		return refString(v.ref.typ, v.ref.title), !v.ref.pat
	case vArr:
		parts := make([]string, len(v.arr))
		ok := true
		for i, x := range v.arr {
			s, k := x.text()
			parts[i] = s
			ok = ok && k
		}
		return "[" + strings.Join(parts, ", ") + "]", ok
	case vDefault:
		return "default", true
	}
	return "*", false
}

// truthy: known and truthy / known and falsy / unknown.
func (v val) truth() (bool, bool) {
	switch v.k {
	case vUndef:
		return false, true
	case vBool:
		return v.s == "true", true
	case vStr:
		if v.pat {
			return true, v.s != "" && v.s != "*" // a non-empty pattern is a non-empty string
		}
		return true, true
	case vNum, vArr, vHash, vRef, vRes, vDefault, vRegex, vTypeName:
		return true, true
	}
	return false, false
}

// items is list() without allocating for a single value (held in buf)
// or an array of plain values (its own elements, not to be modified).
func (v val) items(buf *[1]val) []val {
	if v.k != vArr {
		buf[0] = v
		return buf[:]
	}
	for i := range v.arr {
		if v.arr[i].k == vArr {
			return v.list()
		}
	}
	return v.arr
}

// list flattens arrays (one level deep per nesting) into a slice.
func (v val) list() []val {
	if v.k == vArr {
		var out []val
		for _, x := range v.arr {
			out = append(out, x.list()...)
		}
		return out
	}
	return []val{v}
}

var (
	capCache sync.Map // keys and values are copies (see regexCache)
	capCount atomic.Int64
)

// capType turns notify / foo::bar / Foo::bar into Notify / Foo::Bar.
func capType(t string) string {
	if v, ok := capCache.Load(t); ok {
		return v.(string)
	}
	c := strings.Clone(capType1(t))
	if capCount.Add(1) <= maxGlobalCache {
		capCache.Store(strings.Clone(t), c)
	}
	return c
}

func capType1(t string) string {
	t = strings.TrimPrefix(t, "::")
	if t == "" {
		return t
	}
	parts := strings.Split(t, "::")
	for i, p := range parts {
		if p != "" {
			parts[i] = strings.ToUpper(p[:1]) + strings.ToLower(p[1:])
		}
	}
	return strings.Join(parts, "::")
}

func refString(typ, title string) string { return typ + "[" + title + "]" }

// canonTitle normalises a title the way the type's namevar does: files
// drop trailing slashes and double slashes.
func canonTitle(typ, title string) string {
	if typ == "File" && strings.HasPrefix(title, "/") {
		c := path.Clean(title)
		return c
	}
	if typ == "Class" {
		return strings.ToLower(strings.TrimPrefix(title, "::"))
	}
	return title
}

// patTitle is a title pattern (a title built from unknown values, '*'
// for each) as references are matched against it: a File's without its
// trailing slashes, as Puppet's file paths are (`"${home}/cltbld/bin/"`
// is File['/Users/cltbld/bin'] where $home is /Users; catlee's osx_lion).
func patTitle(typ, title string) string {
	if typ == "File" && len(title) > 1 {
		if t := strings.TrimRight(title, "/"); t != "" {
			return t
		}
	}
	return title
}

// classDisplay is how Puppet prints a class title: Class[Foo::Bar];
// Class[main] stays lower-case.
func classDisplay(name string) string {
	if name == "main" || name == "settings" {
		return name
	}
	return capType(name)
}

// globMatch matches s against a pattern whose '*' stands for any text.
func globMatch(pat, s string) bool {
	i := strings.IndexByte(pat, '*')
	if i < 0 {
		return pat == s
	}
	if !strings.HasPrefix(s, pat[:i]) {
		return false
	}
	s = s[i:]
	pat = pat[i+1:]
	for {
		j := strings.IndexByte(pat, '*')
		if j < 0 {
			return strings.HasSuffix(s, pat)
		}
		k := strings.Index(s, pat[:j])
		if k < 0 {
			return false
		}
		s = s[k+j:]
		pat = pat[j+1:]
	}
}

func numVal(s string) (float64, bool) {
	if strings.HasPrefix(s, "0x") || strings.HasPrefix(s, "0X") {
		n, err := strconv.ParseInt(s[2:], 16, 64)
		return float64(n), err == nil
	}
	f, err := strconv.ParseFloat(s, 64)
	return f, err == nil
}

func fmtNum(f float64) string {
	if f == float64(int64(f)) {
		return strconv.FormatInt(int64(f), 10)
	}
	return strconv.FormatFloat(f, 'f', -1, 64)
}

// equal compares two known values the way Puppet's == does (strings
// case-insensitively).
func equal(a, b val) (bool, bool) {
	if a.boolean && b.k != vUnknown && b.k != vBool || b.boolean && a.k != vUnknown && a.k != vBool {
		return false, true
	}
	if a.str && (b.k == vNum || b.k == vBool) || b.str && (a.k == vNum || a.k == vBool) {
		return false, true
	}
	if !a.known() || !b.known() {
		return false, false
	}
	if a.k == vNum && b.k == vNum {
		x, _ := numVal(a.s)
		y, _ := numVal(b.s)
		return x == y, true
	}
	if a.k == vArr && b.k == vArr {
		if len(a.arr) != len(b.arr) {
			return false, true
		}
		for i := range a.arr {
			e, ok := equal(a.arr[i], b.arr[i])
			if !ok {
				return false, false
			}
			if !e {
				return false, true
			}
		}
		return true, true
	}
	if a.k != b.k {
		if (a.k == vUndef) != (b.k == vUndef) {
			return false, true
		}
		return false, true
	}
	as, _ := a.text()
	bs, _ := b.text()
	return strings.EqualFold(as, bs), true
}

// each calls fn for every element of a flattened array, or for v itself,
// without allocating a slice for the common single-value case.
func (v val) each(fn func(val)) {
	if v.k != vArr {
		fn(v)
		return
	}
	for _, x := range v.arr {
		x.each(fn)
	}
}
