// Package rudder computes what Rudder's policy generation makes of rules,
// directives and techniques for one node: which directives of a unique
// technique win, how directives of multi-instance techniques are merged
// or kept separate, and the final policy order (system policies first,
// then by rule name and directive name, case-insensitive), following
// Normation/rudder's MergePolicyService and PolicyOrdering.
package rudder

import (
	"crypto/sha256"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"sync"

	"github.com/ordering-lsp/ordering-lsp/analysis"
	prs "github.com/ordering-lsp/ordering-lsp/parser/rudder"
	"github.com/ordering-lsp/ordering-lsp/source"
)

type system struct {
	mu    sync.Mutex // cache: highlighting reads it beside analyses
	cache map[string]cacheEntry
}

type cacheEntry struct {
	hash [32]byte
	file *prs.File
}

// New returns the Rudder system.
func New() analysis.System { return &system{cache: map[string]cacheEntry{}} }

func (s *system) Name() string { return "rudder" }

// Owns claims Rudder exports by content: JSON with Rudder's words near the
// start, metadata.xml with a <TECHNIQUE> root, YAML techniques.
func (s *system) Owns(p string, head func() []byte) bool {
	base := strings.ToLower(filepath.Base(p))
	if !strings.HasSuffix(base, ".xml") && base != "technique.yml" && base != "technique.yaml" && !strings.HasSuffix(base, ".json") {
		return false
	}
	return prs.Detect(p, head()) != ""
}

func (s *system) Flags() []analysis.Flag {
	return []analysis.Flag{
		{Name: "node-groups", Key: "rudder.nodeGroups", Help: "comma-separated group ids or names the node belongs to (default: a node targeted by every enabled rule)"},
	}
}

func (s *system) parse(f *source.File) *prs.File {
	h := sha256.Sum256(f.Text)
	s.mu.Lock()
	e, ok := s.cache[f.URI]
	s.mu.Unlock()
	if ok && e.hash == h {
		return e.file
	}
	name := f.Path
	if name == "" {
		name = f.URI
	}
	pf := prs.Import(name, f.Text, "")
	s.mu.Lock()
	s.cache[f.URI] = cacheEntry{hash: h, file: pf}
	s.mu.Unlock()
	return pf
}

// globFiles lists files matching the rudder.glob setting (comma-separated
// patterns, `**` for any folders) under the workspace roots.
func globFiles(req *analysis.Request) []*source.File {
	pats := splitList(req.Settings.Get("rudder.glob", ""))
	if len(pats) == 0 || req.Workspace == nil {
		return nil
	}
	roots := req.Workspace.Roots()
	if p := source.URIToPath(req.Entry); p != "" && req.Workspace.IsDir(p) {
		roots = append(roots, p)
	}
	var out []*source.File
	for _, root := range roots {
		paths := req.Workspace.Walk(func(p string) bool {
			rel, err := filepath.Rel(root, p)
			if err != nil {
				return false
			}
			rel = filepath.ToSlash(rel)
			for _, pat := range pats {
				if globMatch(pat, rel) || globMatch(pat, path.Base(rel)) {
					return true
				}
			}
			return false
		}, root)
		for _, p := range paths {
			if f := req.Workspace.Lookup(p); f != nil {
				out = append(out, f)
			}
		}
	}
	return out
}

// globMatch matches slash-separated paths; `**` matches any number of
// folders.
func globMatch(pat, name string) bool {
	return globParts(strings.Split(pat, "/"), strings.Split(name, "/"), 0)
}

func globParts(pp, np []string, depth int) bool {
	if depth > 64 {
		return false
	}
	for len(pp) > 0 {
		if pp[0] == "**" {
			for i := 0; i <= len(np); i++ {
				if globParts(pp[1:], np[i:], depth+1) {
					return true
				}
			}
			return false
		}
		if len(np) == 0 {
			return false
		}
		if ok, _ := path.Match(pp[0], np[0]); !ok {
			return false
		}
		pp, np = pp[1:], np[1:]
	}
	return len(np) == 0
}

func splitList(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// Analyze imports every file, resolves references, generates the node's
// policies and explains them.
func (s *system) Analyze(req *analysis.Request) *analysis.Result {
	a := &analyzer{req: req, res: &analysis.Result{}, techByID: map[string][]*technique{}, synth: map[string]*technique{}, texts: map[string][]byte{}}
	seen := map[string]bool{}
	files := append(append([]*source.File(nil), req.Files...), globFiles(req)...)
	sort.SliceStable(files, func(i, j int) bool { return files[i].URI < files[j].URI })
	for _, f := range files {
		if seen[f.URI] {
			continue
		}
		seen[f.URI] = true
		a.res.Files = append(a.res.Files, f.URI)
		a.texts[f.URI] = f.Text
		a.load(f.URI, s.parse(f))
		if req.Canceled() {
			return a.res
		}
	}
	s.mu.Lock()
	for uri := range s.cache {
		if !seen[uri] {
			delete(s.cache, uri) // closed or deleted since
		}
	}
	s.mu.Unlock()
	a.resolve()
	a.generate()
	a.explain()
	return a.res
}

type analyzer struct {
	req *analysis.Request
	res *analysis.Result

	rules      []*rule
	directives []*directive
	techniques []*technique
	groups     []*group

	ruleByID  map[string]*rule
	dirByID   map[string]*directive
	groupByID map[string]*group
	techByID  map[string][]*technique
	synth     map[string]*technique

	techFiles int // techniques defined in files (not the built-in table)

	texts    map[string][]byte // file contents by URI (identical copies are no duplicates)
	libCache map[string]string // technique library root by category folder

	drafts   []*draft
	policies []*policy
	refused  bool
	nodeDesc string

	ranked  map[*technique][]*draft
	perTech map[*technique]int
}

func (a *analyzer) diag(at source.Span, sev analysis.Severity, code, msg string, rel ...analysis.Related) {
	a.res.Diags = append(a.res.Diags, analysis.Diagnostic{At: at, Severity: sev, Code: code, Message: msg, Related: rel})
}

func (a *analyzer) load(uri string, f *prs.File) {
	for _, e := range f.Errors {
		sev := analysis.Error
		if e.Code == "shape" {
			sev = analysis.Warning
		}
		msg := e.Msg
		if e.Code == "syntax" {
			msg = "cannot read this Rudder " + formatName(f.Format) + ": " + e.Msg
		}
		a.diag(span(uri, e.At), sev, e.Code, msg)
	}
	for _, r := range f.Rules {
		a.rules = append(a.rules, &rule{Rule: r, uri: uri})
	}
	for _, d := range f.Directives {
		a.directives = append(a.directives, &directive{Directive: d, uri: uri})
	}
	for _, t := range f.Techniques {
		a.techniques = append(a.techniques, &technique{Technique: t, uri: uri})
	}
	for _, g := range f.Groups {
		a.groups = append(a.groups, &group{Group: g, uri: uri})
	}
}

func formatName(f string) string {
	switch f {
	case "metadata.xml":
		return "technique metadata.xml"
	case "technique.yml":
		return "YAML technique"
	case "repository-xml":
		return "configuration repository XML"
	}
	return "JSON export"
}
