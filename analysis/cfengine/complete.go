package cfengine

import (
	"bytes"
	"sort"
	"strings"

	"github.com/ordering-lsp/ordering-lsp/analysis"
	"github.com/ordering-lsp/ordering-lsp/internal/lazyre"
	cfp "github.com/ordering-lsp/ordering-lsp/parser/cfengine"
	"github.com/ordering-lsp/ordering-lsp/source"
)

var (
	// the attribute whose list or value the cursor is in, then the open string
	dependsRe   = lazyre.New(`\bdepends_on\s*=>\s*\{[^}]*"([^"]*)$`)
	sequenceRe  = lazyre.New(`\bbundlesequence\s*=>\s*\{[^}]*"([^"]*)$`)
	usebundleRe = lazyre.New(`\busebundle\s*=>\s*"?([A-Za-z0-9_.:]*)$`)
	handleRe    = lazyre.New(`\bhandle\s*=>\s*"([^"$@{}]+)"`)
)

// Complete offers the handles of the workspace in depends_on, and bundle
// names in bundlesequence and usebundle.
func (s *System) Complete(req analysis.CompletionRequest) *analysis.Completion {
	f, off := req.File, req.Offset
	if off < 0 || off > len(f.Text) {
		return nil
	}
	before := string(f.Text[max(0, off-2000):off])
	start := func(partial string) source.Span {
		return source.Span{URI: f.URI, Start: off - len(partial), End: off}
	}
	if m := dependsRe.FindStringSubmatch(before); m != nil {
		c := &analysis.Completion{Replace: start(m[1]), Items: handleItems(req)}
		c.From = req.Result.Enclosing(f.URI, off)
		c.Orders, c.TargetFirst = c.From != nil, true
		return c
	}
	if m := sequenceRe.FindStringSubmatch(before); m != nil {
		return &analysis.Completion{Replace: start(m[1]), Items: bundleItems(req.Result, "")}
	}
	if m := usebundleRe.FindStringSubmatch(before); m != nil {
		return &analysis.Completion{Replace: start(m[1]), Items: bundleItems(req.Result, "agent")}
	}
	return s.attrCompletion(req)
}

// attrCompletion offers the attribute names CFEngine knows where one is
// typed (which also gives an unknown attribute its "Change to create"
// quick fix): in a promise after its promiser or a comma, in a body or a
// promise block after `{`, `;` or a class context, or before `=>`.
func (s *System) attrCompletion(req analysis.CompletionRequest) *analysis.Completion {
	text, off := req.File.Text, req.Offset
	if req.Result == nil {
		return nil
	}
	start, end := off, off
	for start > 0 && isIdentByte(text[start-1]) {
		start--
	}
	for end < len(text) && isIdentByte(text[end]) {
		end++
	}
	if start < len(text) && start < end && text[start] >= '0' && text[start] <= '9' {
		return nil
	}
	prev := start - 1
	for prev >= 0 && isBlank(text[prev]) {
		prev--
	}
	next := end
	for next < len(text) && isBlank(text[next]) {
		next++
	}
	arrow := bytes.HasPrefix(text[next:], []byte("=>"))
	n := req.Result.Enclosing(req.File.URI, off)
	if n == nil || prev < 0 {
		return nil
	}
	f := strings.Fields(n.Ref)
	var kind, bt, t string
	switch {
	case n.Kind == "promise" && n.Parent != nil: // files: "x"
		pf := strings.Fields(n.Parent.Ref)
		if len(pf) < 2 || !(arrow || text[prev] == ',' || prev == n.Decl.End-1) {
			return nil
		}
		kind, bt, t = "bundle", pf[1], strings.TrimSuffix(f[0], ":")
	case (n.Kind == "body" || n.Kind == "promise") && len(f) >= 2: // body perms m, promise agent x
		if !(arrow || text[prev] == ';' || text[prev] == '{' || prev > 0 && text[prev] == ':' && text[prev-1] == ':') {
			return nil
		}
		kind, t = n.Kind, f[1]
	default:
		return nil
	}
	s.verMu.Lock()
	version := s.version
	s.verMu.Unlock()
	names := cfp.AttrNames(kind, bt, t, version)
	if len(names) == 0 {
		return nil
	}
	items := make([]analysis.CompletionItem, len(names))
	for i, name := range names {
		items[i] = analysis.CompletionItem{Label: name, Detail: "attribute", Attribute: true}
	}
	return &analysis.Completion{Replace: source.Span{URI: req.File.URI, Start: start, End: off}, Items: items}
}

func isIdentByte(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

func isBlank(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// handleItems reads the handle of every promise from its text.
func handleItems(req analysis.CompletionRequest) []analysis.CompletionItem {
	texts := map[string][]byte{req.File.URI: req.File.Text}
	text := func(uri string) []byte {
		t, ok := texts[uri]
		if !ok && req.Workspace != nil {
			if f := req.Workspace.Lookup(source.URIToPath(uri)); f != nil {
				t = f.Text
			}
			texts[uri] = t
		}
		return t
	}
	seen := map[string]bool{}
	var out []analysis.CompletionItem
	for _, n := range req.Result.Graph.Nodes {
		if n.Kind != "promise" || n.Full.IsZero() {
			continue
		}
		t := text(n.Full.URI)
		if n.Full.Start < 0 || n.Full.End > len(t) || n.Full.Start > n.Full.End {
			continue
		}
		m := handleRe.FindSubmatch(t[n.Full.Start:n.Full.End])
		if m == nil || seen[string(m[1])] {
			continue
		}
		seen[string(m[1])] = true
		out = append(out, analysis.CompletionItem{Label: string(m[1]), Node: n})
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Label < out[j].Label })
	return out
}

// bundleItems lists bundle names (of one bundle type when typ is set).
func bundleItems(r *analysis.Result, typ string) []analysis.CompletionItem {
	seen := map[string]bool{}
	var out []analysis.CompletionItem
	for _, n := range r.Graph.Nodes {
		if n.Kind != "bundle" {
			continue
		}
		f := strings.Fields(n.Ref) // bundle <type> <name>
		if len(f) != 3 || (typ != "" && f[1] != typ) || seen[f[2]] {
			continue
		}
		seen[f[2]] = true
		out = append(out, analysis.CompletionItem{Label: f[2], Node: n})
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Label < out[j].Label })
	return out
}
