package rudder

import (
	"bytes"
	"encoding/xml"
	"errors"
	"io"
	"path"
	"strings"
	"unicode/utf8"

	"gopkg.in/yaml.v3"

	"github.com/ordering-lsp/ordering-lsp/internal/lazyre"
)

// TechniqueIDFromPath derives the technique id and version from the
// configuration repository layout techniques/CATEGORY/.../ID/VERSION/FILE,
// the way Rudder names techniques. When the parent folder is not a
// version, the id is the parent folder and the version is empty.
func TechniqueIDFromPath(p string) (id, version string) {
	p = strings.ReplaceAll(p, "\\", "/")
	dir := path.Dir(p)
	parent := path.Base(dir)
	if isVersion(parent) {
		return path.Base(path.Dir(dir)), parent
	}
	return parent, ""
}

var versionRe = lazyre.New(`^[0-9][0-9A-Za-z.+~_-]*$`)

func isVersion(s string) bool { return versionRe.MatchString(s) }

var nameAttrRe = lazyre.New(`(?s)\bname\s*=\s*("([^"]*)"|'([^']*)')`)

// ImportMetadataXML reads a technique's metadata.xml: the <TECHNIQUE
// name="..."> root and its MULTIINSTANCE, POLICYGENERATION, SYSTEM and
// POLICY_TYPES children (Rudder's TechniqueParser reads the same tags; the
// values are compared case-insensitively). The id and version come from
// the path.
func ImportMetadataXML(filePath string, text []byte) *File {
	f := &File{Format: "metadata.xml"}
	id, version := TechniqueIDFromPath(filePath)
	dec := xml.NewDecoder(bytes.NewReader(text))
	dec.Strict = false
	dec.CharsetReader = func(_ string, r io.Reader) (io.Reader, error) { return r, nil }
	t := &Technique{Source: "metadata.xml", Known: true}
	depth := 0
	var child string
	var childStart int
	var childText strings.Builder
	found := false
	for {
		off := int(dec.InputOffset())
		tok, err := dec.Token()
		if err != nil {
			if errors.Is(err, io.EOF) {
				if depth > 0 {
					end := len(text)
					f.Errors = append(f.Errors, Error{At: Span{max(end-1, 0), end}, Code: "syntax", Msg: "unexpected end of XML: <TECHNIQUE> is not closed (truncated file?)"})
				}
				break
			}
			at := int(dec.InputOffset())
			if at > len(text) {
				at = len(text)
			}
			msg := err.Error()
			var se *xml.SyntaxError
			if errors.As(err, &se) {
				msg = se.Msg
			}
			f.Errors = append(f.Errors, Error{At: Span{max(at-1, 0), at}, Code: "syntax", Msg: "XML syntax error: " + msg})
			break
		}
		switch tk := tok.(type) {
		case xml.StartElement:
			depth++
			if depth == 1 {
				if !strings.EqualFold(tk.Name.Local, "TECHNIQUE") {
					f.Errors = append(f.Errors, Error{At: Span{off, int(dec.InputOffset())}, Code: "shape", Msg: "metadata.xml root element must be <TECHNIQUE name=\"...\">, found <" + tk.Name.Local + ">"})
					return f
				}
				found = true
				end := int(dec.InputOffset())
				t.Full = Span{off, len(text)}
				t.ID = Str{Value: id, At: Span{off + 1, off + 1 + len(tk.Name.Local)}, Set: id != ""}
				t.Version = Str{Value: version, Set: version != ""}
				if m := nameAttrRe.FindSubmatchIndex(text[off:end]); m != nil {
					s, e := m[4], m[5]
					if s < 0 {
						s, e = m[6], m[7]
					}
					t.Name = Str{Value: string(text[off+s : off+e]), At: Span{off + s, off + e}, Set: true}
				} else {
					f.Errors = append(f.Errors, Error{At: Span{off, end}, Code: "shape", Msg: "<TECHNIQUE> has no name attribute"})
				}
				if !t.ID.Set {
					t.ID = Str{Value: t.Name.Value, At: t.Name.At, Set: true}
				}
			} else if depth == 2 {
				child = strings.ToUpper(tk.Name.Local)
				childStart = int(dec.InputOffset())
				childText.Reset()
			}
		case xml.CharData:
			if depth == 2 {
				childText.Write(tk)
			}
		case xml.EndElement:
			if depth == 2 {
				val := strings.TrimSpace(childText.String())
				raw := string(text[childStart:min(off, len(text))])
				lead := len(raw) - len(strings.TrimLeft(raw, " \t\r\n"))
				at := Span{childStart + lead, childStart + lead + len(val)}
				if at.End > off {
					at.End = off
				}
				switch child {
				case "MULTIINSTANCE":
					t.MultiInstance = strings.EqualFold(val, "true")
				case "POLICYGENERATION":
					t.Generation = Str{Value: val, At: at, Set: true}
				case "SYSTEM":
					t.System = strings.EqualFold(val, "true")
				case "POLICY_TYPES":
					for _, p := range strings.Split(val, ",") {
						if p = strings.TrimSpace(p); p != "" {
							t.PolicyTypes = append(t.PolicyTypes, p)
						}
					}
				}
				child = ""
			}
			if depth == 1 {
				t.Full.End = int(dec.InputOffset())
			}
			depth--
		}
		if depth > MaxDepth {
			f.Errors = append(f.Errors, Error{At: Span{off, off + 1}, Code: "syntax", Msg: "XML nested too deeply"})
			break
		}
	}
	if found {
		f.Techniques = append(f.Techniques, t)
	} else if len(f.Errors) == 0 {
		f.Errors = append(f.Errors, Error{At: Span{0, min(1, len(text))}, Code: "shape", Msg: "no <TECHNIQUE> element in metadata.xml"})
	}
	return f
}

// ImportTechniqueYAML reads a YAML technique (technique editor / rudderc):
// id, name, version, policy_types, params. As rudderc generates its metadata.xml, a
// technique with parameters is multi-instance with one policy per
// directive and its parameters (separated-with-parameters); without
// parameters it is unique.
func ImportTechniqueYAML(filePath string, text []byte) *File {
	f := &File{Format: "technique.yml"}
	var doc yaml.Node
	if err := yaml.Unmarshal(text, &doc); err != nil {
		f.Errors = append(f.Errors, Error{At: yamlErrSpan(text, err), Code: "syntax", Msg: "YAML: " + strings.TrimPrefix(err.Error(), "yaml: ")})
		return f
	}
	if len(doc.Content) == 0 || doc.Content[0].Kind != yaml.MappingNode {
		f.Errors = append(f.Errors, Error{At: Span{0, min(1, len(text))}, Code: "shape", Msg: "technique.yml must be a mapping with id, name, version and items"})
		return f
	}
	m := doc.Content[0]
	ls := lineStarts(text)
	t := &Technique{Source: "technique.yml", Known: true, Full: Span{0, len(text)}}
	get := func(key string) *yaml.Node {
		for i := 0; i+1 < len(m.Content); i += 2 {
			if m.Content[i].Value == key {
				return m.Content[i+1]
			}
		}
		return nil
	}
	ystr := func(n *yaml.Node) Str {
		if n == nil || n.Kind != yaml.ScalarNode {
			return Str{}
		}
		s := yamlOffset(ls, text, n.Line, n.Column)
		e := s + len(n.Value)
		if n.Style&(yaml.DoubleQuotedStyle|yaml.SingleQuotedStyle) != 0 {
			s++
			e = s + len(n.Value)
		}
		if e > len(text) {
			e = len(text)
		}
		return Str{Value: n.Value, At: Span{s, e}, Set: true}
	}
	t.ID = ystr(get("id"))
	t.Name = ystr(get("name"))
	t.Version = ystr(get("version"))
	if !t.ID.Set {
		id, _ := TechniqueIDFromPath(filePath)
		t.ID = Str{Value: id, Set: id != ""}
	}
	if !t.Name.Set {
		t.Name = t.ID
	}
	if !t.Version.Set {
		_, v := TechniqueIDFromPath(filePath)
		t.Version = Str{Value: v, Set: v != ""}
	}
	// policy_types (rudderc copies it into the metadata.xml it writes as
	// POLICY_TYPES): a list of strings; rudderc refuses anything else.
	if pt := get("policy_types"); pt != nil {
		if pt.Kind == yaml.SequenceNode {
			for _, it := range pt.Content {
				if it.Kind == yaml.ScalarNode && it.Tag != "!!null" {
					if v := strings.TrimSpace(it.Value); v != "" {
						t.PolicyTypes = append(t.PolicyTypes, v)
					}
					continue
				}
				s := ystr(it)
				f.Errors = append(f.Errors, Error{At: nodeSpan(ls, text, it, s), Code: "shape", Msg: "policy_types: each policy type is a string: rudderc refuses the technique otherwise"})
			}
		} else if !(pt.Kind == yaml.ScalarNode && pt.Tag == "!!null") {
			f.Errors = append(f.Errors, Error{At: nodeSpan(ls, text, pt, ystr(pt)), Code: "shape", Msg: "policy_types must be a list of strings: rudderc refuses the technique otherwise"})
		}
	}
	params := get("params")
	t.MultiInstance = params != nil && params.Kind == yaml.SequenceNode && len(params.Content) > 0
	g := Separated
	if t.MultiInstance {
		g = SeparatedWithParameters
	}
	t.Generation = Str{Value: g}
	if !t.ID.Set {
		f.Errors = append(f.Errors, Error{At: Span{0, min(1, len(text))}, Code: "shape", Msg: "technique.yml has no id"})
		return f
	}
	f.Techniques = append(f.Techniques, t)
	return f
}

// nodeSpan is where a YAML node starts: the scalar's text when s is set,
// else one byte at its line and column.
func nodeSpan(ls []int, text []byte, n *yaml.Node, s Str) Span {
	if s.Set && s.At.End > s.At.Start {
		return s.At
	}
	o := yamlOffset(ls, text, n.Line, n.Column)
	return Span{o, min(o+1, len(text))}
}

func lineStarts(text []byte) []int {
	ls := []int{0}
	for i, b := range text {
		if b == '\n' {
			ls = append(ls, i+1)
		}
	}
	return ls
}

// yamlOffset converts yaml.v3's 1-based line and rune column to a byte offset.
func yamlOffset(ls []int, text []byte, line, col int) int {
	if line < 1 || line > len(ls) {
		return 0
	}
	off := ls[line-1]
	for c := 1; c < col && off < len(text) && text[off] != '\n'; c++ {
		_, size := utf8.DecodeRune(text[off:])
		off += size
	}
	return off
}

var yamlLineRe = lazyre.New(`line (\d+)`)

func yamlErrSpan(text []byte, err error) Span {
	m := yamlLineRe.FindStringSubmatch(err.Error())
	if m == nil {
		return Span{0, min(1, len(text))}
	}
	n := 0
	for _, c := range m[1] {
		n = n*10 + int(c-'0')
		if n > 1<<24 {
			break
		}
	}
	ls := lineStarts(text)
	if n < 1 || n > len(ls) {
		return Span{0, min(1, len(text))}
	}
	s := ls[n-1]
	e := s
	for e < len(text) && text[e] != '\n' {
		e++
	}
	return Span{s, e}
}
