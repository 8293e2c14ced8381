package puppet

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/ordering-lsp/ordering-lsp/analysis"
	"github.com/ordering-lsp/ordering-lsp/source"
	"gopkg.in/yaml.v3"
)

// An external node classifier answers, for one certname, a YAML document:
// `classes` (a list of names, or a hash of name -> parameters),
// `parameters` (top-scope variables) and `environment`. A repository that
// keeps those answers (`enc/<certname>.yaml`, or the folder or file the
// setting `puppet.enc` names) classifies the node the way the server
// would: Puppet 7's compiler sets the parameters as top-scope variables
// before the main manifest (Compiler#set_node_parameters) and declares
// the classes after the node block, those with parameters first, as
// `class { name: ... }`, then the others as `include`
// (Compiler#evaluate_node_classes).

type encClass struct {
	name   string
	at     source.Span
	params []attr // nil: included without parameters
}

type encOutput struct {
	classes []encClass
	params  map[string]any
}

// loadENC reads the chosen node's ENC answer, if the repository has one.
func (a *analyzer) loadENC() {
	if a.forNode == "" {
		return
	}
	p := a.req.Settings.Get("puppet.enc", "")
	if p == "" {
		// an enc/ folder of the environment (the command line has no
		// workspace folder: the environment is found from the files)
		for _, r := range append([]string{a.root()}, a.roots...) {
			if c := filepath.Join(r, "enc"); r != "" && a.ws.Exists(c) {
				p = c
				break
			}
		}
	} else {
		p = absFacts(a.root(), p)
	}
	if st, err := os.Stat(p); err == nil && st.IsDir() {
		found := ""
		for _, ext := range []string{".yaml", ".yml"} {
			c := filepath.Join(p, a.forNode+ext)
			if _, err := os.Stat(c); err == nil {
				found = c
				break
			}
		}
		p = found
	}
	if p == "" {
		return
	}
	f := a.ws.Lookup(p)
	if f == nil {
		return
	}
	a.encFile = p
	var doc yaml.Node
	if err := yaml.Unmarshal(f.Text, &doc); err != nil || len(doc.Content) == 0 || doc.Content[0].Kind != yaml.MappingNode {
		a.addDiag(analysis.Diagnostic{At: source.Span{URI: f.URI}, Severity: analysis.Warning, Code: "enc",
			Message: "not an ENC answer (a YAML hash with classes and parameters): the node's classes from it are unknown"})
		return
	}
	out := &encOutput{}
	lines := lineStarts(f.Text)
	spanOf := func(n *yaml.Node) source.Span {
		if n.Line < 1 || n.Line > len(lines) {
			return source.Span{URI: f.URI}
		}
		start := runeOffset(f.Text, lines[n.Line-1], n.Column-1)
		end := start + len(n.Value)
		if n.Style&(yaml.DoubleQuotedStyle|yaml.SingleQuotedStyle) != 0 {
			end += 2
		}
		return source.Span{URI: f.URI, Start: start, End: min(end, len(f.Text))}
	}
	if cl := mapValue(doc.Content[0], "classes"); cl != nil {
		switch cl.Kind {
		case yaml.SequenceNode:
			for _, n := range cl.Content {
				if n.Kind == yaml.ScalarNode {
					out.classes = append(out.classes, encClass{name: n.Value, at: spanOf(n)})
				}
			}
		case yaml.MappingNode:
			var with, without []encClass
			for i := 0; i+1 < len(cl.Content); i += 2 {
				k, v := cl.Content[i], cl.Content[i+1]
				c := encClass{name: k.Value, at: spanOf(k)}
				if v.Kind == yaml.MappingNode && len(v.Content) > 0 {
					for j := 0; j+1 < len(v.Content); j += 2 {
						var x any
						v.Content[j+1].Decode(&x)
						pat := spanOf(v.Content[j])
						c.params = append(c.params, attr{name: v.Content[j].Value, v: toVal(x, pat), nameAt: packSpan(pat), at: packSpan(pat)})
					}
					with = append(with, c)
				} else {
					without = append(without, c)
				}
			}
			out.classes = append(with, without...)
		}
	}
	if pm := mapValue(doc.Content[0], "parameters"); pm != nil && pm.Kind == yaml.MappingNode {
		var m map[string]any
		if pm.Decode(&m) == nil {
			out.params = m
		}
	}
	a.enc = out
}

// encParameters sets the ENC's parameters as top-scope variables.
func (r *run) encParameters() {
	enc := r.a.enc
	if enc == nil {
		return
	}
	for k, v := range enc.params {
		if k == "environment" {
			continue
		}
		r.top.vars.set(k, toVal(v, source.Span{}))
	}
}

// encClasses declares the ENC's classes in node scope sc.
func (r *run) encClasses(e *env) {
	enc := r.a.enc
	if enc == nil {
		return
	}
	for _, c := range enc.classes {
		how := "include"
		if c.params != nil {
			how = "class"
		}
		r.declareClass(e, strings.TrimPrefix(c.name, "::"), c.at, how, c.params)
	}
}
