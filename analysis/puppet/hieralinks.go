package puppet

import (
	"bytes"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/ordering-lsp/ordering-lsp/analysis"
	pp "github.com/ordering-lsp/ordering-lsp/parser/puppet"
	"github.com/ordering-lsp/ordering-lsp/source"
	"gopkg.in/yaml.v3"
)

// hieraLinks makes the Hiera keys of the open documents links to the
// data that sets them: the key of `lookup('k')`, `hiera('k')`,
// `hiera_array`/`hiera_hash`, and a class parameter, whose value Puppet
// looks up as `class::param` before it takes the default. The targets
// are the key's lines in the data files of the hierarchies Puppet reads
// for it (the environment's, then the module's), highest priority
// first, each with the value it sets there, so hover says what a node
// gets and go-to-definition lands on the line to change. A key no data
// file of the workspace sets is no link. Only open documents, as
// fileLinks (the follow judge keeps a parameter's link true while it is
// typed: hieraParamNames).
func (a *analyzer) hieraLinks() []analysis.Link {
	var out []analysis.Link
	var data map[string]bool // (the data files, once a document may be one)
	for _, doc := range a.ws.Overlays() {
		fi := a.byURI[doc.URI]
		if fi == nil && isDataName(doc.Path) {
			if data == nil {
				data = map[string]bool{}
				for _, p := range a.hieraDataFiles() {
					data[filepath.Clean(p)] = true
				}
			}
			if data[filepath.Clean(doc.Path)] {
				out = append(out, a.paramLinks(doc)...)
			}
			continue
		}
		if fi == nil || fi.ast == nil || fi.src == nil {
			continue
		}
		text := fi.src.Text
		// call: a lookup() (never followed without an analysis: a
		// parameter typed into a header may be, hieraSets, so only one
		// some data sets is a link)
		link := func(key string, at source.Span, call bool) {
			files, notes := a.hieraSetters(key)
			switch {
			case len(files) > 0:
				out = append(out, analysis.Link{At: at, Files: files, Notes: notes, Title: "Hiera key `" + key + "`, set in:"})
			case call && a.hasHieraData(key):
				out = append(out, analysis.Link{At: at, Title: "Hiera key `" + key + "`: no data file of the workspace sets it (the lookup's default applies, or data outside the workspace)"})
			case call && !a.hieraCertain(key):
				// (williancardoso/controlrepo: hieradata/ and no hiera.yaml)
				out = append(out, analysis.Link{At: at, Title: "Hiera key `" + key + "`: the environment has no hiera.yaml of its own here, so the Puppet server's global hiera.yaml, which is not read here, says where this is looked up: its value is unknown"})
			}
		}
		for _, st := range fi.ast.Stmts {
			pp.Walk(st, func(n pp.Node) bool {
				switch t := n.(type) {
				case *pp.ClassDef:
					for _, p := range t.Params {
						if p.Splat || p.Name == "" {
							continue
						}
						link(strings.ToLower(strings.TrimPrefix(t.Name, "::"))+"::"+p.Name, source.Span{URI: fi.uri, Start: p.NameLoc.Pos, End: p.NameLoc.End}, false)
					}
				case *pp.Call:
					switch t.Name {
					case "lookup", "hiera", "hiera_array", "hiera_hash":
					default:
						return true
					}
					if len(t.Args) == 0 {
						break
					}
					s, ok := t.Args[0].(*pp.Str)
					if !ok || s.Interpolated() || s.Value == "" {
						break
					}
					at := source.Span{URI: fi.uri, Start: s.Pos, End: s.End}
					if at.End-at.Start >= 2 && at.End <= len(text) && (text[at.Start] == '\'' || text[at.Start] == '"') {
						at.Start, at.End = at.Start+1, at.End-1 // the key, not its quotes
					}
					link(strings.TrimPrefix(s.Value, "::"), at, true)
				}
				return true
			})
		}
	}
	return out
}

// isDataName: a file name Hiera's YAML or JSON backend reads.
func isDataName(p string) bool {
	switch filepath.Ext(p) {
	case ".yaml", ".yml", ".json":
		return true
	}
	return false
}

// paramLinks makes each top-level key of an open data file that names a
// class parameter (class::param) a link to the parameter: the other way
// of hieraLinks, from the data to the code that receives it.
func (a *analyzer) paramLinks(doc *source.File) []analysis.Link {
	var out []analysis.Link
	topKeys(doc.Text, func(key string, start, end int) bool {
		i := strings.LastIndex(key, "::")
		if i <= 0 || strings.ContainsAny(key, " \t#") {
			return true
		}
		ci := a.classes[key[:i]]
		if ci == nil || ci.def == nil || ci.file == nil {
			return true
		}
		for _, p := range ci.def.Params {
			if p.Name == key[i+2:] && !p.Splat {
				out = append(out, analysis.Link{
					At:    source.Span{URI: doc.URI, Start: start, End: end},
					Files: []source.Span{{URI: ci.file.uri, Start: p.NameLoc.Pos, End: p.NameLoc.End}},
					Notes: []string{"parameter `$" + p.Name + "` of class `" + ci.name + "`"},
					Title: "Hiera key `" + key + "`, the value of:",
				})
				break
			}
		}
		return true
	})
	return out
}

// topKeys calls fn with each top-level key of a YAML data file (a line
// that starts with it, quoted or not, before a colon; a leading :: is not
// the key's) and the key's bytes, until fn returns false.
func topKeys(text []byte, fn func(key string, start, end int) bool) {
	for off := 0; off < len(text); {
		line := text[off:]
		if i := bytes.IndexByte(line, '\n'); i >= 0 {
			line = line[:i]
		}
		at := off
		off += len(line) + 1
		var key []byte
		if len(line) > 0 && (line[0] == '\'' || line[0] == '"') {
			end := bytes.IndexByte(line[1:], line[0])
			if end < 0 {
				continue
			}
			key, at = line[1:1+end], at+1
			if rest := bytes.TrimLeft(line[2+end:], " \t"); len(rest) == 0 || rest[0] != ':' {
				continue
			}
		} else {
			end := bytes.IndexByte(line, ':')
			for end >= 0 && end+1 < len(line) && line[end+1] == ':' { // (the key's own ::)
				if n := bytes.IndexByte(line[end+2:], ':'); n >= 0 {
					end += 2 + n
				} else {
					end = -1
				}
			}
			if end <= 0 {
				continue
			}
			key = bytes.TrimRight(line[:end], " \t")
		}
		if k, ok := bytes.CutPrefix(key, []byte("::")); ok {
			key, at = k, at+2
		}
		if len(key) > 0 && !fn(string(key), at, at+len(key)) {
			return
		}
	}
}

// hieraSetters are the places of the data files that set key, in
// Puppet's lookup order, and what each sets (a file of a level the facts
// cannot fill says so: only the nodes that read it get that value).
func (a *analyzer) hieraSetters(key string) (files []source.Span, notes []string) {
	dirs, _ := a.hieraDirs(key)
	seen := map[string]bool{}
	for _, d := range dirs {
		for _, p := range a.hieraFiles(d) {
			mp, partial, _ := hieraFile(p)
			if seen[mp] {
				continue
			}
			seen[mp] = true
			v, ok := a.dataFile(mp)[key]
			if !ok {
				continue
			}
			f := a.ws.Lookup(mp)
			if f == nil {
				continue
			}
			at := source.Span{URI: f.URI}
			if s, e, ok := dataKeyAt(f.Text, key); ok {
				at.Start, at.End = s, e
			}
			note := "`" + shortValue(v) + "`"
			if partial {
				note += " (on the nodes whose facts name this file)"
			}
			files = append(files, at)
			notes = append(notes, note)
		}
	}
	return files, notes
}

// hasHieraData: a hierarchy a lookup of key reads has a data file in
// the workspace (a repository without Hiera data says nothing of a key).
// hieraCertain: every hiera.yaml a lookup of key reads is in the
// workspace (hieraDirs).
func (a *analyzer) hieraCertain(key string) bool {
	_, certain := a.hieraDirs(key)
	return certain
}

func (a *analyzer) hasHieraData(key string) bool {
	dirs, _ := a.hieraDirs(key)
	for _, d := range dirs {
		for _, p := range a.hieraFiles(d) {
			if mp, _, _ := hieraFile(p); a.ws.Lookup(mp) != nil {
				return true
			}
		}
	}
	return false
}

// dataKeyAt finds key as a top-level key of a YAML data file (a line
// that starts with it, quoted or not, and a colon), or of a JSON one
// ("key" followed by a colon, anywhere): the key's bytes.
func dataKeyAt(text []byte, key string) (start, end int, ok bool) {
	topKeys(text, func(k string, s, e int) bool {
		if k == key {
			start, end, ok = s, e, true
		}
		return !ok
	})
	if ok {
		return start, end, true
	}
	if i := bytes.Index(text, []byte(`"`+key+`"`)); i >= 0 {
		if rest := bytes.TrimLeft(text[i+len(key)+2:], " \t\r\n"); len(rest) > 0 && rest[0] == ':' {
			return i + 1, i + 1 + len(key), true
		}
	}
	return 0, 0, false
}

// shortValue is a data value as one short line of YAML.
func shortValue(v any) string {
	var s string
	switch t := v.(type) {
	case string:
		s = t
	case nil:
		s = "~"
	case map[string]any, []any:
		b, err := yaml.Marshal(t)
		if err != nil {
			s = fmt.Sprint(t)
			break
		}
		var flow yaml.Node
		if yaml.Unmarshal(b, &flow) == nil && len(flow.Content) == 1 {
			setFlow(flow.Content[0])
			if b, err = yaml.Marshal(flow.Content[0]); err == nil {
				s = strings.TrimSpace(string(b))
				break
			}
		}
		s = fmt.Sprint(t)
	default:
		s = fmt.Sprint(t)
	}
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > 80 {
		s = string(r[:79]) + "…"
	}
	return strings.ReplaceAll(s, "`", "'")
}

func setFlow(n *yaml.Node) {
	if n.Kind == yaml.MappingNode || n.Kind == yaml.SequenceNode {
		n.Style = yaml.FlowStyle
	}
	for _, c := range n.Content {
		setFlow(c)
	}
}

// hieraDataFiles are the data files a parameter's automatic lookup may
// read for the classes of the workspace's modules and the environment's:
// what the follow judge searches before it lets a parameter typed into a
// class header follow without an analysis (hieraParamNames).
func (a *analyzer) hieraDataFiles() []string {
	out := []string{} // (none: nothing to search; nil: not known)
	seen := map[string]bool{}
	add := func(d string) {
		for _, p := range a.hieraFiles(d) {
			if mp, _, _ := hieraFile(p); !seen[mp] {
				seen[mp] = true
				out = append(out, mp)
			}
		}
	}
	envs, _ := a.envRoots()
	for _, d := range envs {
		add(d)
	}
	mods := map[string]bool{}
	for name := range a.classes {
		if i := strings.Index(name, "::"); i > 0 {
			mods[name[:i]] = true
		} else {
			mods[name] = true
		}
	}
	for m := range mods {
		if root := a.moduleRoot(m); root != "" && (a.ws.Lookup(filepath.Join(root, "hiera.yaml")) != nil || a.ws.IsDir(filepath.Join(root, "data"))) {
			add(root)
		}
	}
	return out
}
