package rudder

import (
	"bytes"
	"encoding/xml"
	"errors"
	"io"
	"strconv"
	"strings"
)

// xnode is an XML element with byte offsets: the whole element and its
// direct text (trimmed).
type xnode struct {
	name       string
	attrs      []xml.Attr
	start, end int
	text       string
	textAt     Span
	kids       []*xnode
}

func (n *xnode) kid(name string) *xnode {
	for _, k := range n.kids {
		if k.name == name {
			return k
		}
	}
	return nil
}

func (n *xnode) attr(name string) string {
	for _, a := range n.attrs {
		if a.Name.Local == name {
			return a.Value
		}
	}
	return ""
}

// parseXMLTree reads a whole XML document into xnodes. On a syntax error
// it returns what it built with the error's offset.
func parseXMLTree(text []byte) (*xnode, *Error) {
	dec := xml.NewDecoder(bytes.NewReader(text))
	dec.Strict = false
	dec.CharsetReader = func(_ string, r io.Reader) (io.Reader, error) { return r, nil }
	var root *xnode
	var stack []*xnode
	for {
		off := int(dec.InputOffset())
		tok, err := dec.Token()
		if err != nil {
			if errors.Is(err, io.EOF) {
				if len(stack) > 0 {
					end := len(text)
					return root, &Error{At: Span{max(end-1, 0), end}, Code: "syntax", Msg: "unexpected end of XML: <" + stack[len(stack)-1].name + "> is not closed (truncated file?)"}
				}
				return root, nil
			}
			at := min(int(dec.InputOffset()), len(text))
			msg := err.Error()
			var se *xml.SyntaxError
			if errors.As(err, &se) {
				msg = se.Msg
			}
			return root, &Error{At: Span{max(at-1, 0), at}, Code: "syntax", Msg: "XML syntax error: " + msg}
		}
		switch tk := tok.(type) {
		case xml.StartElement:
			if len(stack) >= MaxDepth {
				return root, &Error{At: Span{off, off + 1}, Code: "syntax", Msg: "XML nested too deeply"}
			}
			n := &xnode{name: tk.Name.Local, attrs: tk.Copy().Attr, start: off, textAt: Span{-1, -1}}
			if len(stack) > 0 {
				p := stack[len(stack)-1]
				p.kids = append(p.kids, n)
			} else if root == nil {
				root = n
			}
			stack = append(stack, n)
		case xml.CharData:
			if len(stack) > 0 {
				n := stack[len(stack)-1]
				end := int(dec.InputOffset())
				raw := text[off:min(end, len(text))]
				trimmed := bytes.TrimSpace(raw)
				if len(trimmed) > 0 {
					s := off + bytes.Index(raw, trimmed)
					if n.textAt.Start < 0 {
						n.textAt.Start = s
					}
					n.textAt.End = s + len(trimmed)
				}
				n.text += string(tk)
			}
		case xml.EndElement:
			if len(stack) > 0 {
				n := stack[len(stack)-1]
				n.end = int(dec.InputOffset())
				n.text = strings.TrimSpace(n.text)
				if n.textAt.Start < 0 {
					n.textAt = Span{off, off}
				}
				stack = stack[:len(stack)-1]
			}
		}
	}
}

func (n *xnode) str() Str {
	if n == nil {
		return Str{}
	}
	return Str{Value: n.text, At: n.textAt, Set: true}
}

// ImportRepoXML reads the XML files of a Rudder server's configuration
// repository (/var/rudder/configuration-repository): rules/**/ID.xml
// (<rule fileFormat="6">), directives/**/ID.xml (<directive>), groups/**
// (<nodeGroup>), as Rudder's XmlSerialisation writes them.
func ImportRepoXML(text []byte) *File {
	f := &File{Format: "repository-xml"}
	root, err := parseXMLTree(text)
	if err != nil {
		f.Errors = append(f.Errors, *err)
	}
	if root == nil || root.end == 0 {
		return f
	}
	full := Span{root.start, root.end}
	switch root.name {
	case "rule":
		r := &Rule{Full: full, Enabled: true}
		r.ID = root.kid("id").str()
		if !r.ID.Set {
			f.Errors = append(f.Errors, Error{At: Span{root.start, root.start + 1}, Code: "shape", Msg: "<rule> without <id>"})
			return f
		}
		r.Name = root.kid("displayName").str()
		if !r.Name.Set {
			r.Name = root.kid("name").str()
		}
		if !r.Name.Set {
			r.Name = r.ID
		}
		r.Category = root.kid("category").str()
		if ds := root.kid("directiveIds"); ds != nil {
			for _, k := range ds.kids {
				if k.name == "id" {
					r.Directives = append(r.Directives, k.str())
				}
			}
		}
		if ts := root.kid("targets"); ts != nil {
			r.TargetsAt = Span{ts.start, ts.end}
			t := &Target{Op: "or"}
			for _, k := range ts.kids {
				if k.name != "target" {
					continue
				}
				if strings.HasPrefix(k.text, "{") {
					// Composite targets are written as JSON in the element.
					if v, jerr := ParseJSON([]byte(k.text)); jerr == nil {
						if k.textAt.End-k.textAt.Start == len(k.text) {
							shiftJSON(v, k.textAt.Start, 0)
						} else {
							pinJSON(v, k.textAt, 0) // escaped text: offsets differ
						}
						im := &importer{f: f}
						if x := im.target(v, 0); x != nil {
							t.Items = append(t.Items, x)
						}
						continue
					}
				}
				t.Items = append(t.Items, &Target{Simple: k.str()})
			}
			r.Targets = t
		}
		if e := root.kid("isEnabled"); e != nil {
			r.Enabled = !strings.EqualFold(e.text, "false")
			r.EnabledAt = e.textAt
		}
		if s := root.kid("isSystem"); s != nil {
			r.System = strings.EqualFold(s.text, "true")
		}
		f.Rules = append(f.Rules, r)
	case "directive":
		d := &Directive{Full: full, Enabled: true, Priority: 5}
		d.ID = root.kid("id").str()
		if !d.ID.Set {
			f.Errors = append(f.Errors, Error{At: Span{root.start, root.start + 1}, Code: "shape", Msg: "<directive> without <id>"})
			return f
		}
		d.Name = root.kid("displayName").str()
		if !d.Name.Set {
			d.Name = d.ID
		}
		d.TechniqueName = root.kid("techniqueName").str()
		d.TechniqueVersion = root.kid("techniqueVersion").str()
		if p := root.kid("priority"); p != nil {
			if n, err := strconv.Atoi(p.text); err == nil {
				d.Priority, d.PrioritySet, d.PriorityAt = n, true, p.textAt
			}
		}
		if e := root.kid("isEnabled"); e != nil {
			d.Enabled = !strings.EqualFold(e.text, "false")
			d.EnabledAt = e.textAt
		}
		if s := root.kid("isSystem"); s != nil {
			d.System = strings.EqualFold(s.text, "true")
		}
		d.PolicyMode = root.kid("policyMode").str()
		if s := root.kid("section"); s != nil {
			var walk func(n *xnode, path string, inst, depth int)
			walk = func(n *xnode, path string, inst, depth int) {
				if depth > MaxDepth {
					return
				}
				count := map[string]int{}
				for _, k := range n.kids {
					switch k.name {
					case "var":
						d.Vars = append(d.Vars, Var{Section: path, Instance: inst, Name: Str{Value: k.attr("name"), At: Span{k.start, k.start}, Set: true}, Value: k.str()})
					case "section":
						name := k.attr("name")
						sp := name
						if path != "" {
							sp = path + "/" + name
						}
						walk(k, sp, count[name], depth+1)
						count[name]++
					}
				}
			}
			walk(s, "", 0, 0)
		}
		f.Directives = append(f.Directives, d)
	case "nodeGroup":
		g := &Group{Full: full}
		g.ID = root.kid("id").str()
		if !g.ID.Set {
			return f
		}
		g.Name = root.kid("displayName").str()
		if !g.Name.Set {
			g.Name = g.ID
		}
		f.Groups = append(f.Groups, g)
	}
	return f
}

// shiftJSON moves the offsets of a JSON tree parsed from a substring.
func shiftJSON(v *JSON, by, depth int) {
	if v == nil || depth > MaxDepth {
		return
	}
	v.Start += by
	v.End += by
	for _, it := range v.Items {
		shiftJSON(it, by, depth+1)
	}
	for _, m := range v.Members {
		m.KeyAt.Start += by
		m.KeyAt.End += by
		shiftJSON(m.Value, by, depth+1)
	}
}

// pinJSON gives every value of a tree one span (the element's text).
func pinJSON(v *JSON, at Span, depth int) {
	if v == nil || depth > MaxDepth {
		return
	}
	v.Start, v.End = at.Start-1, at.End+1 // Inner() then covers the text
	for _, it := range v.Items {
		pinJSON(it, at, depth+1)
	}
	for _, m := range v.Members {
		m.KeyAt = at
		pinJSON(m.Value, at, depth+1)
	}
}
