package salt

import (
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/ordering-lsp/ordering-lsp/analysis"
	"github.com/ordering-lsp/ordering-lsp/internal/lazyre"
	"github.com/ordering-lsp/ordering-lsp/source"
)

var (
	// `      - pkg: ngi` (a requisite naming its module) or `      - ngi`
	reqItemRe = lazyre.New(`^(\s*)-\s*(?:([A-Za-z_][\w.]*)\s*:\s*)?(['"]?)([^'":#]*)$`)
	// a key line: `    - require:` or `    require:`
	keyLineRe = lazyre.New(`^(\s*)(?:-\s*)?([A-Za-z_]\w*)\s*:\s*(?:#.*)?$`)
)

// requisite keywords and their direction: true when the target runs
// before the state that writes it (require, watch...), false when after
// (prereq, the _in forms); listen and use do not order.
var reqDirection = map[string]bool{
	"require": true, "require_any": true, "watch": true, "watch_any": true,
	"onfail": true, "onfail_any": true, "onfail_all": true, "onfail_stop": true,
	"onchanges": true, "onchanges_any": true, "prereq": false,
	"require_in": false, "watch_in": false, "onfail_in": false, "onchanges_in": false, "prereq_in": true,
}

var unordered = map[string]bool{"listen": true, "listen_in": true, "use": true, "use_in": true}

// Complete offers, in a requisite list, the states of the workspace
// (`pkg: nginx`, or the IDs of one module once it is typed) and SLS names
// after `sls:`; in an include list, SLS names.
func (s *System) Complete(req analysis.CompletionRequest) *analysis.Completion {
	f, off := req.File, req.Offset
	if off < 0 || off > len(f.Text) {
		return nil
	}
	lineStart := strings.LastIndexByte(string(f.Text[:off]), '\n') + 1
	line := string(f.Text[lineStart:off])
	if am := argItemRe.FindStringSubmatchIndex(line); am != nil {
		// an argument's name under a state function (`    - sou`)
		below := ""
		if nl := strings.IndexByte(string(f.Text[off:]), '\n'); nl >= 0 {
			below = string(f.Text[off+nl+1:])
		}
		if fun, written := argSite(string(f.Text[:lineStart]), below, am[3]-am[2]); fun != "" {
			start := off
			if am[4] >= 0 {
				start = lineStart + am[4]
			}
			if items := argItems(fun, written); items != nil {
				return &analysis.Completion{Replace: source.Span{URI: f.URI, Start: start, End: off}, Items: items}
			}
		}
	}
	m := reqItemRe.FindStringSubmatchIndex(line)
	if m == nil {
		return nil
	}
	indent := m[3] - m[2]
	key := enclosingKey(string(f.Text[:lineStart]), indent)
	module := ""
	if m[4] >= 0 {
		module = line[m[4]:m[5]]
	}
	replace := source.Span{URI: f.URI, Start: lineStart + m[8], End: off}
	c := &analysis.Completion{Replace: replace}
	if key == "include" {
		if module != "" {
			return nil
		}
		c.Items = s.slsItems(req)
		return c
	}
	if _, ordered := reqDirection[key]; !ordered && !unordered[key] {
		return nil
	}
	if module == "sls" {
		c.Items = s.slsItems(req)
		return c
	}
	if module == "" {
		// the whole `module: ID`
		replace.Start = lineStart + m[6]
		c.Replace = replace
	}
	c.Items = stateItems(req, module)
	if first, ok := reqDirection[key]; ok {
		c.From = req.Result.Enclosing(f.URI, lineStart)
		c.Orders = c.From != nil
		c.TargetFirst = first
	}
	return c
}

// enclosingKey finds the mapping key a list item at indent belongs to:
// the nearest line above with less indentation.
func enclosingKey(above string, indent int) (key string) {
	linesUp(above, func(l, t string, ind int) bool {
		if ind > indent || (ind == indent && strings.HasPrefix(t, "-")) {
			return false // a sibling item or inside one
		}
		// the parent (a list may sit at its key's indentation)
		if km := keyLineRe.FindStringSubmatch(l); km != nil {
			key = km[2]
		}
		return true
	})
	return key
}

// linesUp calls f with the lines of above from the last up (each with
// its text trimmed and its indentation), blank lines, comments and Jinja
// statements left out, until f says it found what it looked for.
func linesUp(above string, f func(l, t string, ind int) bool) {
	lines := strings.Split(above, "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		l := lines[i]
		t := strings.TrimSpace(l)
		if t == "" || strings.HasPrefix(t, "#") || strings.HasPrefix(t, "{%") || strings.HasPrefix(t, "{#") {
			continue
		}
		if f(l, t, len(l)-len(strings.TrimLeft(l, " "))) {
			return
		}
	}
}

// stateItems lists each state once: `module: ID` (or the ID alone when
// the module is typed), read from the declaration's words.
func stateItems(req analysis.CompletionRequest, module string) []analysis.CompletionItem {
	seen := map[string]bool{}
	var out []analysis.CompletionItem
	for _, n := range req.Result.Graph.Nodes {
		if n.Hidden || n.Kind != "state" {
			continue
		}
		mod, _, _ := strings.Cut(n.Ref, ".")
		if module != "" && module != mod && module != "id" {
			continue
		}
		id := declText(req, n.Decl)
		if id == "" {
			continue
		}
		label := id
		if module == "" {
			label = mod + ": " + id
		}
		if seen[label] {
			continue
		}
		seen[label] = true
		out = append(out, analysis.CompletionItem{Label: label, Node: n})
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Label < out[j].Label })
	return out
}

// declText is the words of a declaration (a state ID, a names: entry),
// unquoted.
func declText(req analysis.CompletionRequest, at source.Span) string {
	var text []byte
	if at.URI == req.File.URI {
		text = req.File.Text
	} else if req.Workspace != nil {
		if f := req.Workspace.Lookup(source.URIToPath(at.URI)); f != nil {
			text = f.Text
		}
	}
	if at.Start < 0 || at.End > len(text) || at.Start >= at.End {
		return ""
	}
	t := strings.TrimSpace(string(text[at.Start:at.End]))
	t = strings.TrimSuffix(t, ":")
	if len(t) >= 2 && (t[0] == '\'' || t[0] == '"') && t[len(t)-1] == t[0] {
		t = t[1 : len(t)-1]
	}
	if strings.ContainsAny(t, "{}\n") { // a templated ID: not something to type
		return ""
	}
	return t
}

// slsItems names every SLS file of the file root of the edited file.
func (s *System) slsItems(req analysis.CompletionRequest) []analysis.CompletionItem {
	s.mu.Lock()
	local := s.cfgLocal
	mounts := s.cfgMounts
	s.mu.Unlock()
	for m := range mounts {
		local = append(slices.Clip(local), m)
	}
	root := rootOf(req.Workspace, req.File.Path, req.Settings.Get("salt.fileRoot", ""), local)
	seen := map[string]bool{}
	var out []analysis.CompletionItem
	for _, u := range req.Result.Files {
		p := source.URIToPath(u)
		if !strings.HasSuffix(p, ".sls") || filepath.Base(p) == "top.sls" || p == req.File.Path {
			continue
		}
		if rel, err := filepath.Rel(root, p); err != nil || strings.HasPrefix(rel, "..") {
			continue
		}
		name, _ := slsName(root, mounts[root], p)
		if name == "" || seen[name] {
			continue
		}
		seen[name] = true
		rel, _ := filepath.Rel(root, p)
		out = append(out, analysis.CompletionItem{Label: name, Detail: filepath.ToSlash(rel)})
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Label < out[j].Label })
	return out
}
