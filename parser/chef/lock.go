package chef

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"
)

// JKind is the kind of a JSON node.
type JKind uint8

const (
	JNull JKind = iota
	JBool
	JNumber
	JString
	JArray
	JObject
)

// JSON is a JSON value with the byte range it covers.
type JSON struct {
	Kind       JKind
	Str        string // string value, number text, "true"/"false"
	Items      []*JSON
	Keys       []JKey // object members in file order
	Start, End int
}

// JKey is one object member.
type JKey struct {
	Name       string
	Start, End int // the key string, quotes included
	Value      *JSON
}

// Get returns the member named k of an object, or nil.
func (j *JSON) Get(k string) *JSON {
	if j == nil || j.Kind != JObject {
		return nil
	}
	for i := len(j.Keys) - 1; i >= 0; i-- { // a repeated key: the last wins, as in Ruby
		if j.Keys[i].Name == k {
			return j.Keys[i].Value
		}
	}
	return nil
}

// Key returns the member entry named k, or nil.
func (j *JSON) Key(k string) *JKey {
	if j == nil || j.Kind != JObject {
		return nil
	}
	for i := range j.Keys {
		if j.Keys[i].Name == k {
			return &j.Keys[i]
		}
	}
	return nil
}

// String renders a JSON value compactly (for messages and comparisons).
func (j *JSON) String() string {
	if j == nil {
		return "nil"
	}
	switch j.Kind {
	case JNull:
		return "nil"
	case JBool, JNumber:
		return j.Str
	case JString:
		return fmt.Sprintf("%q", j.Str)
	case JArray:
		parts := make([]string, len(j.Items))
		for i, it := range j.Items {
			parts[i] = it.String()
		}
		return "[" + strings.Join(parts, ", ") + "]"
	}
	parts := make([]string, len(j.Keys))
	for i, k := range j.Keys {
		parts[i] = fmt.Sprintf("%q=>%s", k.Name, k.Value.String())
	}
	return "{" + strings.Join(parts, ", ") + "}"
}

// SyntaxError is a JSON error at a byte offset.
type SyntaxError struct {
	Offset int
	Msg    string
}

func (e *SyntaxError) Error() string { return e.Msg }

const maxJSONDepth = 500

// ParseJSON decodes JSON keeping the byte range of every value and key.
func ParseJSON(src []byte) (*JSON, error) {
	d := json.NewDecoder(bytes.NewReader(src))
	d.UseNumber()
	p := &jparser{src: src, d: d}
	v, err := p.value(0)
	if err != nil {
		return nil, err
	}
	if _, err := d.Token(); err != io.EOF {
		return v, &SyntaxError{Offset: int(d.InputOffset()), Msg: "unexpected data after the top-level value"}
	}
	return v, nil
}

type jparser struct {
	src []byte
	d   *json.Decoder
}

// start finds where the next token begins (after whitespace, ',' and ':').
func (p *jparser) start() int {
	i := int(p.d.InputOffset())
	for i < len(p.src) {
		switch p.src[i] {
		case ' ', '\t', '\n', '\r', ',', ':':
			i++
			continue
		}
		break
	}
	return i
}

func (p *jparser) err(err error) error {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return &SyntaxError{Offset: int(se.Offset), Msg: se.Error()}
	}
	if err == io.EOF || err == io.ErrUnexpectedEOF {
		return &SyntaxError{Offset: len(p.src), Msg: "unexpected end of JSON input"}
	}
	return &SyntaxError{Offset: int(p.d.InputOffset()), Msg: err.Error()}
}

func (p *jparser) value(depth int) (*JSON, error) {
	if depth > maxJSONDepth {
		return nil, &SyntaxError{Offset: int(p.d.InputOffset()), Msg: "JSON nested too deeply"}
	}
	s := p.start()
	tok, err := p.d.Token()
	if err != nil {
		return nil, p.err(err)
	}
	v := &JSON{Start: s}
	switch t := tok.(type) {
	case json.Delim:
		switch t {
		case '[':
			v.Kind = JArray
			for p.d.More() {
				it, err := p.value(depth + 1)
				if err != nil {
					return nil, err
				}
				v.Items = append(v.Items, it)
			}
			if _, err := p.d.Token(); err != nil {
				return nil, p.err(err)
			}
		case '{':
			v.Kind = JObject
			for p.d.More() {
				ks := p.start()
				kt, err := p.d.Token()
				if err != nil {
					return nil, p.err(err)
				}
				name, _ := kt.(string)
				ke := int(p.d.InputOffset())
				val, err := p.value(depth + 1)
				if err != nil {
					return nil, err
				}
				v.Keys = append(v.Keys, JKey{Name: name, Start: ks, End: ke, Value: val})
			}
			if _, err := p.d.Token(); err != nil {
				return nil, p.err(err)
			}
		default:
			return nil, &SyntaxError{Offset: s, Msg: fmt.Sprintf("unexpected %q", t)}
		}
	case string:
		v.Kind, v.Str = JString, t
	case json.Number:
		v.Kind, v.Str = JNumber, t.String()
	case bool:
		v.Kind = JBool
		if t {
			v.Str = "true"
		} else {
			v.Str = "false"
		}
	case nil:
		v.Kind = JNull
	}
	v.End = int(p.d.InputOffset())
	return v, nil
}

// ---- lock files ----

// LockItem is a string of a lock file with its byte range.
type LockItem struct {
	Text       string
	Start, End int
}

// CookbookLock is one entry of cookbook_locks.
type CookbookLock struct {
	Name          string
	Version       string
	Identifier    string
	SourceOptions *JSON
	Start, End    int // the key
}

// IncludedLock is one entry of included_policy_locks.
type IncludedLock struct {
	Name          string
	RevisionID    string
	SourceOptions map[string]string
	Start, End    int
}

// NamedRunList is one entry of named_run_lists.
type NamedRunList struct {
	Name       string
	Items      []LockItem
	Start, End int
}

// Dep is a [name, constraint] pair of solution_dependencies.
type Dep struct{ Name, Constraint string }

// Lock is a Policyfile lock (Policyfile.lock.json / NAME.lock.json).
type Lock struct {
	Root          *JSON
	Name          string
	RevisionID    string
	RunList       []LockItem
	NamedRunLists []NamedRunList
	CookbookLocks []CookbookLock
	Default       *JSON
	Override      *JSON
	Included      []IncludedLock
	// PolicyfileDeps is solution_dependencies["Policyfile"].
	PolicyfileDeps []Dep
	// Dependencies is solution_dependencies["dependencies"]: "name (version)" -> deps.
	Dependencies map[string][]Dep
}

// ParseLock reads a lock file. The error is a *SyntaxError for bad JSON,
// or says which required part is missing.
func ParseLock(src []byte) (*Lock, error) {
	root, err := ParseJSON(src)
	if err != nil {
		return nil, err
	}
	if root.Kind != JObject {
		return nil, &SyntaxError{Offset: root.Start, Msg: "a policy lock is a JSON object"}
	}
	l := &Lock{Root: root, Dependencies: map[string][]Dep{}}
	str := func(j *JSON) string {
		if j != nil && j.Kind == JString {
			return j.Str
		}
		return ""
	}
	items := func(j *JSON) []LockItem {
		var out []LockItem
		if j == nil {
			return nil
		}
		for _, it := range j.Items {
			if it.Kind == JString {
				out = append(out, LockItem{Text: it.Str, Start: it.Start, End: it.End})
			}
		}
		return out
	}
	l.Name = str(root.Get("name"))
	l.RevisionID = str(root.Get("revision_id"))
	l.RunList = items(root.Get("run_list"))
	if nr := root.Get("named_run_lists"); nr != nil {
		for _, k := range nr.Keys {
			l.NamedRunLists = append(l.NamedRunLists, NamedRunList{Name: k.Name, Items: items(k.Value), Start: k.Start, End: k.End})
		}
	}
	if cl := root.Get("cookbook_locks"); cl != nil {
		for _, k := range cl.Keys {
			l.CookbookLocks = append(l.CookbookLocks, CookbookLock{Name: k.Name, Version: str(k.Value.Get("version")),
				Identifier: str(k.Value.Get("identifier")), SourceOptions: k.Value.Get("source_options"), Start: k.Start, End: k.End})
		}
	}
	l.Default = root.Get("default_attributes")
	l.Override = root.Get("override_attributes")
	if inc := root.Get("included_policy_locks"); inc != nil {
		for _, it := range inc.Items {
			il := IncludedLock{Name: str(it.Get("name")), RevisionID: str(it.Get("revision_id")), SourceOptions: map[string]string{}, Start: it.Start, End: it.End}
			if so := it.Get("source_options"); so != nil {
				for _, k := range so.Keys {
					if k.Value.Kind == JString {
						il.SourceOptions[k.Name] = k.Value.Str
					}
				}
			}
			l.Included = append(l.Included, il)
		}
	}
	if sd := root.Get("solution_dependencies"); sd != nil {
		pairs := func(j *JSON) []Dep {
			var out []Dep
			if j == nil {
				return nil
			}
			for _, it := range j.Items {
				if it.Kind == JArray && len(it.Items) >= 2 {
					out = append(out, Dep{str(it.Items[0]), str(it.Items[1])})
				}
			}
			return out
		}
		l.PolicyfileDeps = pairs(sd.Get("Policyfile"))
		if deps := sd.Get("dependencies"); deps != nil {
			for _, k := range deps.Keys {
				l.Dependencies[k.Name] = pairs(k.Value)
			}
		}
	}
	return l, nil
}

// SolutionVersions maps cookbook name -> version from
// solution_dependencies.dependencies ("name (1.2.3)" keys), falling back to
// cookbook_locks.
func (l *Lock) SolutionVersions() map[string]string {
	out := map[string]string{}
	keys := make([]string, 0, len(l.Dependencies))
	for k := range l.Dependencies {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		name, ver, ok := strings.Cut(k, " (")
		if ok {
			out[name] = strings.TrimSuffix(ver, ")")
		}
	}
	for _, c := range l.CookbookLocks {
		if _, ok := out[c.Name]; !ok {
			out[c.Name] = c.Version
		}
	}
	return out
}

// LooksLikeLock reports whether the head of a .lock.json file is a policy lock.
func LooksLikeLock(head []byte) bool {
	return bytes.Contains(head, []byte(`"cookbook_locks"`)) || bytes.Contains(head, []byte(`"revision_id"`))
}
