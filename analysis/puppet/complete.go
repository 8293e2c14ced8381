package puppet

import (
	"sort"
	"strings"

	"github.com/ordering-lsp/ordering-lsp/analysis"
	"github.com/ordering-lsp/ordering-lsp/internal/lazyre"
	"github.com/ordering-lsp/ordering-lsp/source"
)

var (
	// `Package['ngi`, `Class["foo::`, `File[/etc` (a bare word titles too)
	typeRefRe = lazyre.New(`([A-Z][A-Za-z0-9_]*(?:::[A-Za-z][A-Za-z0-9_]*)*)\[\s*(['"]?)([^'"\[\],]*)$`)
	// `include foo::`, `contain 'foo`, `require foo` (the function), `class { 'foo`
	classNameRe = lazyre.New(`(?:^|[\s;{}(])(?:(?:include|contain|require)\s+|class\s*\{\s*)(['"]?)([a-z0-9_:]*)$`)
	// the relationship metaparameter a reference is the value of
	metaparamRe = lazyre.New(`\b(require|before|notify|subscribe)\s*=>\s*\[?[^;{}=]*$`)
	bareWordRe  = lazyre.New(`^[a-z][a-z0-9_:]*$`)
)

// Complete offers, inside `Type['...`, the titles of that type's
// resources (classes for Class), and after include/contain/require or
// `class {`, the class names of the workspace.
func (s *System) Complete(req analysis.CompletionRequest) *analysis.Completion {
	r, f, off := req.Result, req.File, req.Offset
	if off < 0 || off > len(f.Text) {
		return nil
	}
	lineStart := strings.LastIndexByte(string(f.Text[:off]), '\n') + 1
	line := string(f.Text[lineStart:off])
	if i := strings.IndexByte(line, '#'); i >= 0 && !strings.ContainsAny(line[:i], `'"`) {
		return nil // in a comment
	}
	if m := typeRefRe.FindStringSubmatchIndex(line); m != nil {
		typ := capType(line[m[2]:m[3]])
		quote := line[m[4]:m[5]]
		c := &analysis.Completion{Replace: source.Span{URI: f.URI, Start: lineStart + m[6], End: off}}
		if typ == "Class" {
			c.Items = classItems(r, quote)
		} else {
			c.Items = titleItems(r, typ, quote)
		}
		s.relationship(c, r, f, lineStart+m[0])
		return c
	}
	if m := classNameRe.FindStringSubmatchIndex(line); m != nil {
		quote := line[m[2]:m[3]]
		return &analysis.Completion{Replace: source.Span{URI: f.URI, Start: lineStart + m[4], End: off}, Items: classItems(r, quote)}
	}
	if site, ok := attrSiteAt(f.Text, off); ok {
		return s.attrItems(f, site, off)
	}
	return nil
}

// relationship fills in the resource the reference is written in and the
// direction of the edge when the reference is the value of a
// relationship metaparameter.
func (s *System) relationship(c *analysis.Completion, r *analysis.Result, f *source.File, at int) {
	from := max(0, at-2000)
	m := metaparamRe.FindStringSubmatch(string(f.Text[from:at]))
	if m == nil {
		return
	}
	c.From = r.Enclosing(f.URI, at)
	if c.From == nil || c.From.Kind != "resource" {
		c.From = nil
		return
	}
	c.Orders = true
	c.TargetFirst = m[1] == "require" || m[1] == "subscribe"
}

// titleItems lists each resource of type typ once (a resource evaluated
// in many catalogs is one title).
func titleItems(r *analysis.Result, typ, quote string) []analysis.CompletionItem {
	prefix := typ + "["
	seen := map[string]bool{}
	var out []analysis.CompletionItem
	for _, n := range r.Graph.Nodes {
		if n.Hidden || n.Kind != "resource" || !strings.HasPrefix(n.Ref, prefix) || !strings.HasSuffix(n.Ref, "]") {
			continue
		}
		title := n.Ref[len(prefix) : len(n.Ref)-1]
		if seen[title] || title == "" {
			continue
		}
		seen[title] = true
		out = append(out, analysis.CompletionItem{Label: title, Insert: quoted(title, quote), Node: n})
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Label < out[j].Label })
	return out
}

// classItems lists the classes the workspace defines, by the name users
// write (lower case).
func classItems(r *analysis.Result, quote string) []analysis.CompletionItem {
	seen := map[string]bool{}
	var out []analysis.CompletionItem
	for _, n := range r.Graph.Nodes {
		if n.Kind != "class" || !strings.HasPrefix(n.Ref, "Class[") {
			continue
		}
		name := strings.ToLower(strings.TrimSuffix(strings.TrimPrefix(n.Ref, "Class["), "]"))
		if seen[name] || name == "main" || name == "settings" {
			continue
		}
		seen[name] = true
		out = append(out, analysis.CompletionItem{Label: name, Insert: quoted(name, quote), Node: n})
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Label < out[j].Label })
	return out
}

// quoted writes a title the way the reference started: inside the quote
// the user opened, or in single quotes when none was typed and the title
// is not a bare word.
func quoted(title, quote string) string {
	if quote != "" {
		return title
	}
	if bareWordRe.MatchString(title) {
		return title
	}
	return "'" + strings.ReplaceAll(title, "'", `\'`) + "'"
}
