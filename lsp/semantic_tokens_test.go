package lsp_test

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ordering-lsp/ordering-lsp/lsp/lsptest"
	"github.com/ordering-lsp/ordering-lsp/source"
)

type semTokens struct {
	ResultID string   `json:"resultId"`
	Data     []uint32 `json:"data"`
	Edits    []struct {
		Start       int      `json:"start"`
		DeleteCount int      `json:"deleteCount"`
		Data        []uint32 `json:"data"`
	} `json:"edits"`
}

// readTokens decodes LSP's relative encoding into "line:col+len type.mods"
// with the legend the server announced.
func readTokens(t *testing.T, data []uint32, types, mods []string) []string {
	t.Helper()
	if len(data)%5 != 0 {
		t.Fatalf("%d integers: not a multiple of 5", len(data))
	}
	var out []string
	line, col := 0, 0
	for i := 0; i < len(data); i += 5 {
		if data[i] > 0 {
			line, col = line+int(data[i]), 0
		}
		col += int(data[i+1])
		name := types[data[i+2+1]]
		for b := 0; b < len(mods); b++ {
			if data[i+4]&(1<<b) != 0 {
				name += "." + mods[b]
			}
		}
		out = append(out, fmt.Sprintf("%d:%d+%d %s", line, col, data[i+2], name))
	}
	return out
}

func legend(t *testing.T, init map[string]any) (types, mods []string) {
	t.Helper()
	caps := init["capabilities"].(map[string]any)
	p, ok := caps["semanticTokensProvider"].(map[string]any)
	if !ok {
		t.Fatalf("no semanticTokensProvider in %v", caps)
	}
	if full, _ := p["full"].(map[string]any); full == nil || full["delta"] != true || p["range"] != true {
		t.Errorf("semanticTokensProvider = %v, want full with delta and range", p)
	}
	l := p["legend"].(map[string]any)
	for _, x := range l["tokenTypes"].([]any) {
		types = append(types, x.(string))
	}
	for _, x := range l["tokenModifiers"].([]any) {
		mods = append(mods, x.(string))
	}
	return types, mods
}

// Semantic tokens over a pipe: the whole document, then a delta after an
// edit (applied, it gives what a full request gives), a stale result id
// (a full answer), a range, and columns in UTF-16 units or in bytes as
// negotiated, with non-ASCII text before a token.
func TestSemanticTokens(t *testing.T) {
	text := "step a # first\nstep é😀x\né😀x after a\n"
	for _, tc := range []struct {
		offer []string
		want  []string
	}{
		{nil, []string{
			"0:0+4 keyword", "0:4+1 string", "0:5+1 variable.declaration", "0:6+1 string", "0:7+7 comment",
			"1:0+4 keyword", "1:4+1 string", "1:5+4 variable.declaration", // é 1 unit, 😀 2, x 1
			"2:0+4 variable", "2:5+5 operator.relation", "2:11+1 variable", // `after` after 4 units and a blank
		}},
		{[]string{"utf-8"}, []string{
			"0:0+4 keyword", "0:4+1 string", "0:5+1 variable.declaration", "0:6+1 string", "0:7+7 comment",
			"1:0+4 keyword", "1:4+1 string", "1:5+7 variable.declaration", // é 2 bytes, 😀 4, x 1
			"2:0+7 variable", "2:8+5 operator.relation", "2:14+1 variable",
		}},
	} {
		t.Run(strings.Join(append([]string{"utf-16"}, tc.offer...), ","), func(t *testing.T) {
			root := t.TempDir()
			caps := map[string]any{}
			if tc.offer != nil {
				caps["general"] = map[string]any{"positionEncodings": tc.offer}
			}
			c, _, init := start(t, root, caps)
			types, mods := legend(t, init)
			uri := source.PathToURI(filepath.Join(root, "s.toy"))
			c.Open(uri, "toy", text)
			doc := map[string]any{"textDocument": map[string]any{"uri": uri}}

			var full semTokens
			if err := c.Call("textDocument/semanticTokens/full", doc, &full); err != nil {
				t.Fatal(err)
			}
			if got := readTokens(t, full.Data, types, mods); strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
				t.Errorf("full:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tc.want, "\n"))
			}
			if full.ResultID == "" {
				t.Fatal("full result without a resultId")
			}

			// Insert a step on line 1: the delta is one edit, smaller than
			// the whole, and applied to the previous data it gives a fresh
			// full answer.
			c.Edit(uri, 2, lsptest.Range{Start: lsptest.Position{Line: 1}, End: lsptest.Position{Line: 1}}, "step zz\n")
			params := map[string]any{"textDocument": map[string]any{"uri": uri}, "previousResultId": full.ResultID}
			var delta semTokens
			if err := c.Call("textDocument/semanticTokens/full/delta", params, &delta); err != nil {
				t.Fatal(err)
			}
			if len(delta.Edits) != 1 || delta.Data != nil || delta.ResultID == "" || delta.ResultID == full.ResultID {
				t.Fatalf("delta = %+v, want one edit and a new result id", delta)
			}
			e := delta.Edits[0]
			applied := append(append(append([]uint32(nil), full.Data[:e.Start]...), e.Data...), full.Data[e.Start+e.DeleteCount:]...)
			var again semTokens
			if err := c.Call("textDocument/semanticTokens/full", doc, &again); err != nil {
				t.Fatal(err)
			}
			if fmt.Sprint(applied) != fmt.Sprint(again.Data) {
				t.Errorf("delta applied:\n%v\nfull:\n%v", applied, again.Data)
			}
			if len(e.Data) >= len(again.Data) {
				t.Errorf("delta inserts %d integers of %d: no smaller than the whole", len(e.Data), len(again.Data))
			}
			got := readTokens(t, again.Data, types, mods)
			if len(got) != len(tc.want)+3 || got[5] != "1:0+4 keyword" || got[7] != "1:5+2 variable.declaration" || got[8] != "2"+tc.want[5][1:] {
				// (tc.want[5] is line 1's keyword, now on line 2)
				t.Errorf("after the edit:\n%s", strings.Join(got, "\n"))
			}

			// A delta from a result the server does not have: the whole.
			params["previousResultId"] = "nope"
			var stale semTokens
			if err := c.Call("textDocument/semanticTokens/full/delta", params, &stale); err != nil {
				t.Fatal(err)
			}
			if stale.Edits != nil || fmt.Sprint(stale.Data) != fmt.Sprint(again.Data) {
				t.Errorf("delta from an unknown result = %+v, want the whole", stale)
			}
			// Same text, the latest id: no edit.
			params["previousResultId"] = stale.ResultID
			var same semTokens
			if err := c.Call("textDocument/semanticTokens/full/delta", params, &same); err != nil {
				t.Fatal(err)
			}
			if same.Edits == nil || len(same.Edits) != 0 {
				t.Errorf("delta of unchanged text = %+v, want no edits", same)
			}

			// Range: line 3 (the `after` line) only, relative to the top.
			rng := map[string]any{"textDocument": map[string]any{"uri": uri},
				"range": lsptest.Range{Start: lsptest.Position{Line: 3}, End: lsptest.Position{Line: 3, Character: 30}}}
			var part semTokens
			if err := c.Call("textDocument/semanticTokens/range", rng, &part); err != nil {
				t.Fatal(err)
			}
			gotRange := readTokens(t, part.Data, types, mods)
			var wantRange []string
			for _, w := range tc.want[len(tc.want)-3:] {
				wantRange = append(wantRange, "3"+w[1:])
			}
			if strings.Join(gotRange, "|") != strings.Join(wantRange, "|") {
				t.Errorf("range: %q, want %q", gotRange, wantRange)
			}

			// A document nobody tokenizes: no tokens, no error.
			other := source.PathToURI(filepath.Join(root, "x.txt"))
			c.Open(other, "plaintext", "step a\n")
			var none semTokens
			if err := c.Call("textDocument/semanticTokens/full", map[string]any{"textDocument": map[string]any{"uri": other}}, &none); err != nil || len(none.Data) != 0 {
				t.Errorf("tokens of a file no system owns: %v %v", none.Data, err)
			}
		})
	}
}
