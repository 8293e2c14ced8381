package chef

import (
	"path/filepath"
	"sort"
	"strings"

	"github.com/ordering-lsp/ordering-lsp/analysis"
	"github.com/ordering-lsp/ordering-lsp/internal/lazyre"
	"github.com/ordering-lsp/ordering-lsp/source"
)

var (
	includeNameRe = lazyre.New(`^\s*include_policy\s*\(?\s*["']([^"']*)$`)
	includePathRe = lazyre.New(`^\s*include_policy\s*\(?\s*["'][^"']*["']\s*,.*\bpath\s*:\s*["']([^"']*)$`)
)

// Complete offers policy names in `include_policy "` and the lock files
// of the workspace, relative to this Policyfile, in `path: "`.
func (s *system) Complete(req analysis.CompletionRequest) *analysis.Completion {
	f, off := req.File, req.Offset
	if off < 0 || off > len(f.Text) {
		return nil
	}
	lineStart := strings.LastIndexByte(string(f.Text[:off]), '\n') + 1
	line := string(f.Text[lineStart:off])
	span := func(partial string) source.Span { return source.Span{URI: f.URI, Start: off - len(partial), End: off} }
	if m := includePathRe.FindStringSubmatch(line); m != nil {
		return &analysis.Completion{Replace: span(m[1]), Items: lockFileItems(req)}
	}
	if m := includeNameRe.FindStringSubmatch(line); m != nil {
		seen := map[string]bool{}
		var items []analysis.CompletionItem
		for _, n := range req.Result.Graph.Nodes {
			if n.Kind == "policy" && n.Decl.URI != f.URI && !seen[n.Ref] && n.Ref != "" {
				seen[n.Ref] = true
				items = append(items, analysis.CompletionItem{Label: n.Ref, Node: n})
			}
		}
		sort.SliceStable(items, func(i, j int) bool { return items[i].Label < items[j].Label })
		return &analysis.Completion{Replace: span(m[1]), Items: items}
	}
	return nil
}

func lockFileItems(req analysis.CompletionRequest) []analysis.CompletionItem {
	dir := filepath.Dir(req.File.Path)
	var out []analysis.CompletionItem
	for _, u := range req.Result.Files {
		p := source.URIToPath(u)
		if !strings.HasSuffix(p, ".lock.json") {
			continue
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			continue
		}
		rel = filepath.ToSlash(rel)
		if !strings.HasPrefix(rel, "../") {
			rel = "./" + rel
		}
		out = append(out, analysis.CompletionItem{Label: rel, Detail: "lock file"})
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Label < out[j].Label })
	return out
}
