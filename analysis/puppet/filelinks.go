package puppet

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/ordering-lsp/ordering-lsp/analysis"
	pp "github.com/ordering-lsp/ordering-lsp/parser/puppet"
	"github.com/ordering-lsp/ordering-lsp/source"
)

// fileLinks makes the places of the open documents that name a module's
// file links to that file: `puppet:///modules/m/p` (m's files/p, whatever
// attribute or variable holds it), `template('m/p')` and `epp('m/p')`
// (m's templates/p), `file('m/p')` (m's files/p). The editor opens the
// file on Ctrl+click (textDocument/documentLink) and go-to-definition
// lands there. Only open documents: those are the ones an editor asks
// about, and looking for every file of every manifest at each keystroke
// would cost operations-puppet thousands of stats. A file the module
// path does not hold is no link (a missing source is Puppet's error at
// apply time, on the agent, not the compile's).
func (a *analyzer) fileLinks() []analysis.Link {
	var out []analysis.Link
	for _, doc := range a.ws.Overlays() { // (a few open documents, not every file loaded)
		fi := a.byURI[doc.URI]
		if fi == nil || fi.ast == nil || fi.src == nil {
			continue
		}
		text := fi.src.Text
		link := func(s *pp.Str, kind, ref string) {
			mod, rest, ok := strings.Cut(ref, "/")
			if !ok || mod == "" || rest == "" || strings.Contains(rest, "..") {
				return
			}
			p := a.moduleFile(mod, kind, rest)
			if p == "" {
				return
			}
			at := source.Span{URI: fi.uri, Start: s.Pos, End: s.End}
			if at.End-at.Start >= 2 && at.End <= len(text) && (text[at.Start] == '\'' || text[at.Start] == '"') {
				at.Start, at.End = at.Start+1, at.End-1 // the path, not its quotes
			}
			out = append(out, analysis.Link{At: at, Files: []source.Span{{URI: source.PathToURI(p)}}})
		}
		for _, st := range fi.ast.Stmts {
			pp.Walk(st, func(n pp.Node) bool {
				switch t := n.(type) {
				case *pp.Str:
					if !t.Interpolated() {
						if ref, ok := strings.CutPrefix(t.Value, "puppet:///modules/"); ok {
							link(t, "files", ref)
						}
					}
				case *pp.Call:
					kind := ""
					switch t.Name {
					case "template", "epp":
						kind = "templates"
					case "file":
						kind = "files"
					}
					if kind == "" {
						break
					}
					for _, arg := range t.Args {
						if s, ok := arg.(*pp.Str); ok && !s.Interpolated() && !filepath.IsAbs(s.Value) {
							link(s, kind, s.Value)
						}
					}
				}
				return true
			})
		}
	}
	return out
}

// moduleFile is the path of rest in the kind folder (files, templates)
// of module mod, as the module path finds the module (the first folder
// of that name), or "" when no such regular file is there.
func (a *analyzer) moduleFile(mod, kind, rest string) string {
	root := a.moduleRoot(mod)
	if root == "" {
		for _, d := range a.modpath {
			if a.ws.IsDir(filepath.Join(d, mod)) {
				root = filepath.Join(d, mod)
				break
			}
		}
	}
	if root == "" {
		return ""
	}
	p := filepath.Join(root, kind, filepath.FromSlash(rest))
	if st, err := os.Stat(p); err != nil || !st.Mode().IsRegular() {
		return ""
	}
	return p
}
