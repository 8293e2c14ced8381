package lsp

import (
	"context"
	"encoding/json"
	"strconv"
	"sync"

	"go.lsp.dev/protocol"

	"github.com/ordering-lsp/ordering-lsp/analysis"
	"github.com/ordering-lsp/ordering-lsp/source"
)

func init() {
	register("textDocument/semanticTokens/full", method{call: (*Server).semanticTokensFull, async: true,
		caps: func(c *protocol.ServerCapabilities) {
			yes := true
			c.SemanticTokensProvider = &protocol.SemanticTokensOptions{
				Legend: semanticLegend(),
				Full:   &protocol.SemanticTokensFullDelta{Delta: &yes},
				Range:  protocol.Boolean(true),
			}
		}})
	register("textDocument/semanticTokens/full/delta", method{call: (*Server).semanticTokensDelta, async: true})
	register("textDocument/semanticTokens/range", method{call: (*Server).semanticTokensRange, async: true})
}

// Semantic tokens: highlighting from the systems' own parsers. The server
// knows no language: the system owning the document says what each span
// is in neutral words (analysis.Tokenizer), and this file maps those to
// the legend, flattens nested tokens, converts offsets to positions (in
// the negotiated encoding, through source) and delta-encodes them. It
// reads the document's text only: never a snapshot, so highlighting never
// waits for an analysis.

// lspTokenTypes are the legend's types, by analysis.TokenKind.
var lspTokenTypes = map[analysis.TokenKind]string{
	analysis.TokKeyword:   "keyword",
	analysis.TokType:      "type",
	analysis.TokClass:     "class",
	analysis.TokString:    "string",
	analysis.TokVariable:  "variable",
	analysis.TokProperty:  "property",
	analysis.TokFunction:  "function",
	analysis.TokOperator:  "operator",
	analysis.TokComment:   "comment",
	analysis.TokNumber:    "number",
	analysis.TokNamespace: "namespace",
	analysis.TokMacro:     "macro",
	analysis.TokParameter: "parameter",
	analysis.TokRegexp:    "regexp",
	analysis.TokSymbol:    "enumMember", // LSP has no literal-name type: Ruby symbols read as constants
}

// semanticLegend lists the types in analysis.TokenKinds order (a token's
// type is its kind's index there) and the modifiers bit by bit, as
// analysis.TokenMods has them; "relation" is ours (the words that order
// things), the others are LSP's.
func semanticLegend() protocol.SemanticTokensLegend {
	var types []string
	for _, k := range analysis.TokenKinds() {
		types = append(types, lspTokenTypes[k])
	}
	return protocol.SemanticTokensLegend{TokenTypes: types, TokenModifiers: analysis.TokenModNames()}
}

// semanticState is the last answer per document, for deltas.
type semanticState struct {
	mu   sync.Mutex
	next int
	last map[string]semanticResult
}

type semanticResult struct {
	id   string
	data []uint32
}

// remember keeps data as the document's latest result and returns its id.
func (st *semanticState) remember(u string, data []uint32) string {
	st.mu.Lock()
	defer st.mu.Unlock()
	st.next++
	id := strconv.Itoa(st.next)
	st.last[u] = semanticResult{id: id, data: data}
	return id
}

func (st *semanticState) forget(u string) {
	st.mu.Lock()
	defer st.mu.Unlock()
	delete(st.last, u)
}

func (st *semanticState) previous(u, id string) ([]uint32, bool) {
	st.mu.Lock()
	defer st.mu.Unlock()
	r, ok := st.last[u]
	if !ok || r.id != id {
		return nil, false
	}
	return r.data, true
}

func (s *Server) semanticTokensFull(ctx context.Context, raw json.RawMessage) (any, error) {
	var p protocol.SemanticTokensParams
	if err := decode(raw, &p); err != nil {
		return nil, err
	}
	u := string(p.TextDocument.URI)
	data := s.semanticData(u, nil)
	id := s.sem.remember(u, data)
	return &protocol.SemanticTokens{ResultID: &id, Data: data}, nil
}

// semanticTokensDelta answers with the edit that turns the previous
// result into the current one (the common prefix and suffix kept: a
// keystroke changes a few tokens, and the deltaLine of the one after
// the edit), or the whole result when the previous one is not ours.
func (s *Server) semanticTokensDelta(ctx context.Context, raw json.RawMessage) (any, error) {
	var p protocol.SemanticTokensDeltaParams
	if err := decode(raw, &p); err != nil {
		return nil, err
	}
	u := string(p.TextDocument.URI)
	data := s.semanticData(u, nil)
	st := s.sem
	prev, ok := st.previous(u, p.PreviousResultID)
	id := st.remember(u, data)
	if !ok {
		return &protocol.SemanticTokens{ResultID: &id, Data: data}, nil
	}
	edits := []protocol.SemanticTokensEdit{}
	if e, changed := tokenEdit(prev, data); changed {
		edits = append(edits, e)
	}
	return &protocol.SemanticTokensDelta{ResultID: &id, Edits: edits}, nil
}

// tokenEdit is the single edit from a to b, keeping their common prefix
// and suffix.
func tokenEdit(a, b []uint32) (protocol.SemanticTokensEdit, bool) {
	i := 0
	for i < len(a) && i < len(b) && a[i] == b[i] {
		i++
	}
	if i == len(a) && i == len(b) {
		return protocol.SemanticTokensEdit{}, false
	}
	j := 0
	for j < len(a)-i && j < len(b)-i && a[len(a)-1-j] == b[len(b)-1-j] {
		j++
	}
	e := protocol.SemanticTokensEdit{Start: uint32(i), DeleteCount: uint32(len(a) - i - j)}
	if ins := b[i : len(b)-j]; len(ins) > 0 {
		e.Data = append([]uint32(nil), ins...)
	}
	return e, true
}

func (s *Server) semanticTokensRange(ctx context.Context, raw json.RawMessage) (any, error) {
	var p protocol.SemanticTokensRangeParams
	if err := decode(raw, &p); err != nil {
		return nil, err
	}
	u := string(p.TextDocument.URI)
	_, lo := s.offset(u, p.Range.Start)
	_, hi := s.offset(u, p.Range.End)
	return &protocol.SemanticTokens{Data: s.semanticData(u, &[2]int{lo, hi})}, nil
}

// semanticData computes the encoded tokens of the document's current
// text, only those meeting the byte range span when it is set.
func (s *Server) semanticData(u string, span *[2]int) []uint32 {
	data := []uint32{}
	f := s.file(u)
	if f == nil {
		return data
	}
	toks := s.tokensOf(u, f)
	if len(toks) == 0 {
		return data
	}
	return encodeTokens(f, toks, s.enc(), span)
}

// encodeTokens writes flat tokens (sorted, not overlapping) in LSP's
// relative form, one token per line piece: a token spanning lines (a
// heredoc, a block comment) becomes one per line, as clients without
// multilineTokenSupport need.
func encodeTokens(f *source.File, toks []analysis.Token, enc source.Encoding, span *[2]int) []uint32 {
	data := make([]uint32, 0, 5*len(toks))
	cur := f.Cursor(enc)
	text := f.Text
	prevLine, prevCol := 0, 0
	for _, t := range toks {
		if span != nil && (t.End <= span[0] || t.Start >= span[1]) {
			continue
		}
		typ := uint32(t.Kind) - 1 // the legend omits TokNone
		mods := uint32(t.Mods)
		for a := t.Start; a < t.End; {
			start := cur.Position(a)
			lineEnd := f.LineStart(start.Line+1) - 1 // the '\n'
			if start.Line+1 >= f.LineCount() {
				lineEnd = len(text)
			}
			b := min(t.End, lineEnd)
			if b > a && text[b-1] == '\r' && b == lineEnd {
				b--
			}
			if b > a {
				end := cur.Position(b)
				if n := end.Col - start.Col; n > 0 {
					dl := start.Line - prevLine
					dc := start.Col
					if dl == 0 {
						dc -= prevCol
					}
					data = append(data, uint32(dl), uint32(dc), uint32(n), typ, mods)
					prevLine, prevCol = start.Line, start.Col
				}
			}
			a = lineEnd + 1
		}
	}
	return data
}

// owners are the systems that own the document, as markDirty finds them.
func (s *Server) owners(u string, f *source.File) []analysis.System {
	path := source.URIToPath(u)
	var out []analysis.System
	for _, sys := range s.systems {
		owns := false
		if f != nil && path == "" {
			lo, ok := sys.(analysis.LanguageOwner)
			owns = ok && f.Language != "" && lo.OwnsLanguage(f.Language)
		}
		if !owns {
			name := path
			if name == "" {
				name = u
			}
			owns = sys.Owns(name, func() []byte {
				if f != nil {
					return head(f.Text)
				}
				if g := s.ws.Lookup(path); g != nil {
					return head(g.Text)
				}
				return nil
			})
		}
		if owns {
			out = append(out, sys)
		}
	}
	return out
}
