package cfengine

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/ordering-lsp/ordering-lsp/analysis"
	cfp "github.com/ordering-lsp/ordering-lsp/parser/cfengine"
	"github.com/ordering-lsp/ordering-lsp/source"
)

// fileInfo is one parsed policy file and the nodes made for it.
type fileInfo struct {
	src     *source.File
	parsed  *cfp.File
	dir     string
	bundles []*bundleInfo
	bodies  []*bodyInfo
	blocks  []*cfp.Block
}

type bundleInfo struct {
	block    *cfp.Block
	file     *fileInfo
	key      string // name, or ns:name outside the default namespace
	label    string // as cf-agent prints it: name or ns:name
	dir      string
	node     *analysis.Node
	promises []*promiseInfo // text order
}

type bodyInfo struct {
	block *cfp.Block
	file  *fileInfo
	key   string // type + " " + (ns:)name
	node  *analysis.Node
}

type promiseInfo struct {
	p       *cfp.Promise
	typ     string
	bundle  *bundleInfo
	node    *analysis.Node
	handle  string
	textIdx int
	// position among the promises of its type in its bundle (sections
	// merged in file order), 0-based, and the count
	typeIdx, typeCount int
}

func qualify(ns, name string) string {
	if strings.Contains(name, ":") {
		if strings.HasPrefix(name, "default:") {
			return strings.TrimPrefix(name, "default:")
		}
		return name
	}
	if ns == "" || ns == "default" {
		return name
	}
	return ns + ":" + name
}

// newFileInfo builds the nodes of one parsed file.
func (a *analyzer) newFileInfo(src *source.File, parsed *cfp.File) *fileInfo {
	fi := &fileInfo{src: src, parsed: parsed, blocks: parsed.Blocks}
	if src.Path != "" {
		fi.dir = filepath.Dir(src.Path)
	}
	span := func(s cfp.Span) source.Span { return source.Span{URI: src.URI, Start: s.Start, End: s.End} }
	for _, b := range parsed.Blocks {
		switch b.Kind {
		case "bundle":
			bi := &bundleInfo{block: b, file: fi, key: qualify(b.Namespace, b.Name.Text), dir: fi.dir}
			bi.label = bi.key
			bi.node = a.graph.Add(&analysis.Node{
				Kind: "bundle", Ref: fmt.Sprintf("bundle %s %s", b.Type.Text, bi.key),
				Decl: span(b.Name.Span), Full: span(b.Span), Container: true,
			})
			counts := map[string]int{}
			for _, s := range b.Sections {
				counts[s.Type.Text] += len(s.Promises)
			}
			idx := map[string]int{}
			for _, s := range b.Sections {
				for _, p := range s.Promises {
					pi := &promiseInfo{p: p, typ: s.Type.Text, bundle: bi, textIdx: len(bi.promises),
						typeIdx: idx[s.Type.Text], typeCount: counts[s.Type.Text]}
					idx[s.Type.Text]++
					if h := p.Get("handle"); h != nil && h.Rval != nil && h.Rval.Kind == cfp.String {
						pi.handle = h.Rval.Value
					}
					pi.node = a.graph.Add(&analysis.Node{
						Kind: "promise", Ref: fmt.Sprintf("%s: %q", s.Type.Text, p.Promiser),
						Decl: span(p.PromiserSpan), Full: span(p.Span), Parent: bi.node,
					})
					bi.promises = append(bi.promises, pi)
					a.promiseOf[p] = pi
				}
			}
			fi.bundles = append(fi.bundles, bi)
		case "body", "promise":
			key := b.Type.Text + " " + qualify(b.Namespace, b.Name.Text)
			if b.Kind == "promise" {
				key = "promise " + b.Name.Text
			}
			bo := &bodyInfo{block: b, file: fi, key: key}
			bo.node = a.graph.Add(&analysis.Node{
				Kind: b.Kind, Ref: fmt.Sprintf("%s %s %s", b.Kind, b.Type.Text, qualify(b.Namespace, b.Name.Text)),
				Decl: span(b.Name.Span), Full: span(b.Span), Container: true,
			})
			fi.bodies = append(fi.bodies, bo)
		}
	}
	return fi
}

// policy is the set of files one entry file loads (itself and its inputs,
// followed recursively) and what they define.
type policy struct {
	entry    *fileInfo
	entryDir string
	files    []*fileInfo
	inFiles  map[*fileInfo]bool
	bundles  []*bundleInfo
	byKey    map[string][]*bundleInfo
	bodies   map[string][]*bodyInfo
	handles  map[string][]*promiseInfo
	augments map[string][]string
	control  *cfp.Block // body common control
	// unresolved is true when some inputs could not be computed
	// statically: missing-definition diagnostics are then not given.
	unresolved bool
	// missing is true when an input file does not exist.
	missing    bool
	inputLinks []analysis.Link
}

func (pol *policy) add(fi *fileInfo) {
	if pol.inFiles[fi] {
		return
	}
	pol.inFiles[fi] = true
	pol.files = append(pol.files, fi)
	for _, b := range fi.bundles {
		if b.block.Name.Text == "__main__" {
			// __main__ is main in the entry file and ignored elsewhere
			if fi != pol.entry {
				continue
			}
			b.key, b.label = "main", "main"
		}
		pol.bundles = append(pol.bundles, b)
		pol.byKey[b.key] = append(pol.byKey[b.key], b)
		for _, p := range b.promises {
			if p.handle != "" {
				pol.handles[p.handle] = append(pol.handles[p.handle], p)
			}
		}
	}
	for _, bo := range fi.bodies {
		pol.bodies[bo.key] = append(pol.bodies[bo.key], bo)
		if pol.control == nil && bo.block.Kind == "body" && bo.block.Type.Text == "common" && bo.block.Name.Text == "control" {
			pol.control = bo.block
		}
	}
}

// bundle finds a bundle by name as written in ns (qualified names win;
// an unqualified name is looked up in ns, then in default).
func (pol *policy) bundle(name, ns string) *bundleInfo {
	if bs := pol.byKey[qualify(ns, name)]; len(bs) > 0 {
		return pickRunnable(bs)
	}
	if bs := pol.byKey[qualify("default", name)]; len(bs) > 0 {
		return pickRunnable(bs)
	}
	return nil
}

func pickRunnable(bs []*bundleInfo) *bundleInfo {
	for _, b := range bs {
		if b.block.Type.Text == "agent" || b.block.Type.Text == "common" {
			return b
		}
	}
	return bs[0]
}

func (pol *policy) body(typ, name, ns string) *bodyInfo {
	if bs := pol.bodies[typ+" "+qualify(ns, name)]; len(bs) > 0 {
		return bs[0]
	}
	if bs := pol.bodies[typ+" "+qualify("default", name)]; len(bs) > 0 {
		return bs[0]
	}
	return nil
}

// loadPolicy follows inputs from an entry file until no new file appears.
func (a *analyzer) loadPolicy(entry *fileInfo) *policy {
	pol := &policy{entry: entry, entryDir: entry.dir, inFiles: map[*fileInfo]bool{}, byKey: map[string][]*bundleInfo{},
		bodies: map[string][]*bodyInfo{}, handles: map[string][]*promiseInfo{}, augments: map[string][]string{}}
	pol.add(entry)
	var extraInputs []string
	if entry.dir != "" {
		if f := a.req.Workspace.Lookup(filepath.Join(entry.dir, "def.json")); f != nil {
			var aug struct {
				Vars   map[string]any `json:"vars"`
				Inputs []string       `json:"inputs"`
			}
			if json.Unmarshal(f.Text, &aug) == nil {
				for k, v := range aug.Vars {
					var vals []string
					switch t := v.(type) {
					case string:
						vals = []string{t}
					case []any:
						for _, x := range t {
							if s, ok := x.(string); ok {
								vals = append(vals, s)
							}
						}
					}
					pol.augments["def."+k] = vals
				}
				extraInputs = aug.Inputs
			}
		}
	}
	seenLink := map[string]bool{}
	for round := 0; round < 12; round++ {
		ev := newEvaluator(pol)
		before := len(pol.files)
		pol.unresolved = false
		for _, in := range extraInputs {
			for _, v := range ev.expand(in, scope{dir: entry.dir}).vals {
				if !strings.Contains(v, "$(") {
					a.addInput(pol, v, entry.dir, nil, nil)
				}
			}
		}
		for i := 0; i < len(pol.files); i++ {
			fi := pol.files[i]
			for _, bo := range fi.bodies {
				b := bo.block
				if b.Kind != "body" || b.Name.Text != "control" || (b.Type.Text != "common" && b.Type.Text != "file") {
					continue
				}
				if b.Type.Text == "common" && fi != entry {
					continue
				}
				for _, at := range b.Attrs {
					if at.Lval.Text != "inputs" || at.Rval == nil {
						continue
					}
					items := at.Rval.Items
					if at.Rval.Kind != cfp.List {
						items = []*cfp.Rval{at.Rval}
					}
					for _, it := range items {
						vs := ev.rval(it, scope{dir: fi.dir})
						if !vs.resolved {
							pol.unresolved = true
						}
						for _, v := range vs.vals {
							if strings.Contains(v, "$(") || strings.Contains(v, "${") {
								continue
							}
							base := entry.dir
							if b.Type.Text == "file" {
								base = fi.dir
							}
							var link *analysis.Link
							lk := fmt.Sprintf("%s#%d", fi.src.URI, it.Span.Start)
							if it.Kind == cfp.String && !seenLink[lk] {
								seenLink[lk] = true
								link = &analysis.Link{At: source.Span{URI: fi.src.URI, Start: it.Span.Start + 1, End: it.Span.End - 1}}
							}
							a.addInput(pol, v, base, link, fi)
						}
					}
				}
			}
		}
		if len(pol.files) == before {
			break
		}
	}
	if pol.missing {
		pol.unresolved = true
	}
	return pol
}

func (a *analyzer) addInput(pol *policy, v, base string, link *analysis.Link, from *fileInfo) {
	p := v
	if !filepath.IsAbs(p) {
		p = filepath.Join(base, p)
		if a.load(p) == nil && base != pol.entryDir {
			p = filepath.Join(pol.entryDir, v)
		}
	}
	fi := a.load(filepath.Clean(p))
	if fi == nil {
		pol.missing = true
		// a missing input: cf-promises refuses the policy, unless
		// ignore_missing_inputs; reported once, on the words.
		if link != nil && from != nil {
			a.diag(analysis.Diagnostic{At: link.At, Severity: analysis.Warning, Code: "missing-input",
				Message: fmt.Sprintf("Can't stat file '%s' for parsing", v)})
		}
		return
	}
	if link != nil {
		link.Files = []source.Span{{URI: fi.src.URI}}
		pol.inputLinks = append(pol.inputLinks, *link)
	}
	pol.add(fi)
}
