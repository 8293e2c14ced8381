package lsp

import (
	"context"
	"encoding/json"
	"path"
	"sort"
	"strings"

	"go.lsp.dev/protocol"

	"github.com/ordering-lsp/ordering-lsp/analysis"
	"github.com/ordering-lsp/ordering-lsp/source"
)

func init() {
	register("textDocument/completion", method{call: (*Server).completion, async: true,
		caps: func(c *protocol.ServerCapabilities) {
			yes := true
			c.CompletionProvider = &protocol.CompletionOptions{TriggerCharacters: []string{"'", `"`, "[", ":", " "}, ResolveProvider: &yes}
		}})
	register("completionItem/resolve", method{call: (*Server).resolveCompletion, async: true})
}

// itemData finds a completion item's target again when the editor asks
// for its documentation (the hover text of the target): computed for the
// one item shown, not for the two hundred listed.
type itemData struct {
	Ref   string `json:"ref"`
	URI   string `json:"uri"`
	Start int    `json:"start"`
	End   int    `json:"end"`
}

func (s *Server) resolveCompletion(ctx context.Context, raw json.RawMessage) (any, error) {
	var item map[string]json.RawMessage
	if err := json.Unmarshal(raw, &item); err != nil {
		return nil, err
	}
	var d itemData
	if json.Unmarshal(item["data"], &d) != nil || d.URI == "" {
		return item, nil
	}
	// the analysis the list came from (latestFor of the target's file),
	// not the workspace's complete one, which may be seconds away
	snap := s.snap.latestFor(ctx, d.URI)
	if snap == nil {
		return item, ctx.Err()
	}
	at := source.Span{URI: d.URI, Start: d.Start, End: d.End}
	for _, r := range snap.results {
		for _, n := range r.Graph.Nodes {
			if n.Decl == at && n.Ref == d.Ref {
				doc, _ := json.Marshal(markup{Kind: "markdown", Value: analysis.Describe(r, n, s.where)})
				item["documentation"] = doc
				return item, nil
			}
		}
	}
	return item, nil
}

// maxCompletions bounds one list; the list is marked incomplete beyond it
// so the editor asks again as the user types more.
const maxCompletions = 200

// completionItem is the LSP CompletionItem subset we send.
type completionItem struct {
	Label         string            `json:"label"`
	Kind          int               `json:"kind,omitempty"`
	Detail        string            `json:"detail,omitempty"`
	Documentation *markup           `json:"documentation,omitempty"`
	SortText      string            `json:"sortText,omitempty"`
	FilterText    string            `json:"filterText,omitempty"`
	TextEdit      *textEdit         `json:"textEdit,omitempty"`
	Data          *itemData         `json:"data,omitempty"`
	LabelDetails  map[string]string `json:"labelDetails,omitempty"`
}

type markup struct {
	Kind  string `json:"kind"`
	Value string `json:"value"`
}

type textEdit struct {
	Range   protocol.Range `json:"range"`
	NewText string         `json:"newText"`
}

type completionList struct {
	IsIncomplete bool             `json:"isIncomplete"`
	Items        []completionItem `json:"items"`
}

// completion asks the document's system what the reference under the
// cursor may name, then ranks it: the same file first, then the same
// directory, then the workspace; each item says where its target runs,
// and an item that would close a dependency cycle says so and sinks.
func (s *Server) completion(ctx context.Context, raw json.RawMessage) (any, error) {
	var p protocol.CompletionParams
	if err := decode(raw, &p); err != nil {
		return nil, err
	}
	u := string(p.TextDocument.URI)
	empty := completionList{Items: []completionItem{}}
	snap := s.snap.latestFor(ctx, u)
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	f, off := s.offset(u, p.Position)
	if snap == nil || f == nil {
		return empty, nil
	}
	sys, r := s.completerFor(snap, u)
	if sys == nil {
		return empty, nil
	}
	s.mu.Lock()
	settings := s.settings
	s.mu.Unlock()
	req := analysis.CompletionRequest{Result: r, File: f, Offset: off, Workspace: s.ws, Settings: settings}
	c := sys.Complete(req)
	if c == nil {
		return empty, nil
	}
	if len(c.Items) == 0 {
		// the document may not parse while it is typed: its own
		// declarations are in the previous analysis
		s.snap.mu.Lock()
		prev := s.snap.lastGood
		s.snap.mu.Unlock()
		if prev != nil {
			if _, pr := s.completerFor(prev, u); pr != nil {
				req.Result = pr
				if pc := sys.Complete(req); pc != nil {
					pc.From, pc.Orders = nil, false // another text: no cycle check
					c, r = pc, pr
				}
			}
		}
	}
	return s.rankCompletion(ctx, r, f, off, c), nil
}

// completerFor finds the result of the system that owns uri, if that
// system can complete.
func (s *Server) completerFor(snap *snapshot, uri string) (analysis.Completer, *analysis.Result) {
	for _, r := range snap.results {
		owns := false
		for _, f := range r.Files {
			if f == uri {
				owns = true
				break
			}
		}
		if !owns {
			continue
		}
		if c, ok := s.systemNamed(r.System).(analysis.Completer); ok {
			return c, r
		}
	}
	return nil, nil
}

func (s *Server) rankCompletion(ctx context.Context, r *analysis.Result, f *source.File, off int, c *analysis.Completion) completionList {
	typed := ""
	if c.Replace.Start <= off && off <= len(f.Text) {
		typed = strings.ToLower(string(f.Text[c.Replace.Start:off]))
	}
	// nodes whose choice would close a cycle, by declaration
	type key struct {
		ref string
		at  source.Span
	}
	closes := map[key]bool{}
	if c.Orders && c.From != nil {
		// target first: From ⇝ target already means target after From
		// (From itself included: a declaration waiting for itself is a cycle)
		for n := range r.Reachable(c.From, c.TargetFirst) {
			if !n.Hidden {
				closes[key{n.Ref, n.Decl}] = true
			}
		}
	}
	dir := path.Dir(f.URI)
	// rank everything (cheap), then describe only what is sent
	type ranked struct {
		sortText string
		it       analysis.CompletionItem
		cycle    bool
	}
	var items []ranked
	for _, it := range c.Items {
		if typed != "" && !strings.Contains(strings.ToLower(it.Label), typed) {
			continue
		}
		rank, cycle := 3, false
		if n := it.Node; n != nil {
			switch {
			case n.Decl.URI == f.URI:
				rank = 0
			case path.Dir(n.Decl.URI) == dir:
				rank = 1
			default:
				rank = 2
			}
			if closes[key{n.Ref, n.Decl}] {
				rank, cycle = 4, true
			}
		}
		exact := "1"
		if strings.HasPrefix(strings.ToLower(it.Label), typed) {
			exact = "0"
		}
		items = append(items, ranked{string(rune('a'+rank)) + exact + it.Label, it, cycle})
	}
	sort.SliceStable(items, func(i, j int) bool { return items[i].sortText < items[j].sortText })
	out := completionList{Items: []completionItem{}}
	if len(items) > maxCompletions {
		items, out.IsIncomplete = items[:maxCompletions], true
	}
	where := positions(r)
	replace := s.toRange(source.Span{URI: f.URI, Start: c.Replace.Start, End: off})
	for _, x := range items {
		if ctx.Err() != nil {
			break
		}
		it := x.it
		ci := completionItem{Label: it.Label, FilterText: it.Label, SortText: x.sortText, Kind: 18 /* Reference */, Detail: it.Detail}
		insert := it.Insert
		if insert == "" {
			insert = it.Label
		}
		ci.TextEdit = &textEdit{Range: replace, NewText: insert}
		if n := it.Node; n != nil {
			if n.Container {
				ci.Kind = 7 // Class
			}
			var detail []string
			if x.cycle {
				detail = append(detail, "⚠ closes a dependency cycle with "+c.From.Ref)
			}
			if pos := where(n); pos != "" {
				detail = append(detail, pos)
			}
			detail = append(detail, s.where(n.Decl))
			ci.Detail = strings.Join(detail, " · ")
			ci.Data = &itemData{Ref: n.Ref, URI: n.Decl.URI, Start: n.Decl.Start, End: n.Decl.End}
		} else if it.Attribute {
			ci.Kind = 10 // Property
		} else {
			ci.Kind = 17 // File
		}
		out.Items = append(out.Items, ci)
	}
	return out
}

// positions says where each declaration runs ("runs 2nd of 5"), from
// whichever of its nodes has a place (a resource evaluated in several
// catalogs is one declaration). Built once per completion.
func positions(r *analysis.Result) func(*analysis.Node) string {
	type key struct {
		ref string
		at  source.Span
	}
	var by map[key]string
	return func(n *analysis.Node) string {
		if p := position(placed{r, n}); p != "" {
			return p
		}
		if by == nil {
			by = map[key]string{}
			for _, m := range r.Graph.Nodes {
				k := key{m.Ref, m.Decl}
				if _, ok := by[k]; !ok && !m.Hidden {
					if p := position(placed{r, m}); p != "" {
						by[k] = p
					}
				}
			}
		}
		return by[key{n.Ref, n.Decl}]
	}
}
