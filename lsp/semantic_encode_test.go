package lsp

import (
	"math/rand"
	"strings"
	"testing"
	"unicode/utf16"

	"github.com/ordering-lsp/ordering-lsp/analysis"
	"github.com/ordering-lsp/ordering-lsp/source"
)

// Property: whatever the tokens and the text (multi-byte characters,
// CRLF, tokens across lines), the encoded tokens are in order, do not
// overlap, are not empty and lie within their line, in UTF-16 units and in
// bytes.
func TestEncodeTokensProperty(t *testing.T) {
	rng := rand.New(rand.NewSource(7))
	pieces := []string{"a", "bc", " ", "\n", "\r\n", "é", "😀", "\t", "xyz", "\n\n"}
	for iter := 0; iter < 2000; iter++ {
		var b strings.Builder
		for i := rng.Intn(30); i >= 0; i-- {
			b.WriteString(pieces[rng.Intn(len(pieces))])
		}
		text := []byte(b.String())
		var raw []analysis.Token
		for i := rng.Intn(10); i >= 0; i-- {
			a := rng.Intn(len(text) + 1)
			raw = append(raw, analysis.Token{Start: a, End: a + rng.Intn(12), Kind: analysis.TokenKind(1 + rng.Intn(5))})
		}
		f := source.NewFile("file:///p", "", text)
		lines := strings.Split(string(text), "\n")
		for _, enc := range []source.Encoding{source.UTF16, source.UTF8} {
			width := func(s string) int {
				s = strings.TrimSuffix(s, "\r")
				if enc == source.UTF8 {
					return len(s)
				}
				return len(utf16.Encode([]rune(s)))
			}
			data := encodeTokens(f, analysis.FlattenTokens(raw, text), enc, nil)
			line, col, end := 0, 0, -1
			for i := 0; i < len(data); i += 5 {
				if data[i] > 0 {
					line, col, end = line+int(data[i]), 0, -1
				}
				col += int(data[i+1])
				n := int(data[i+2])
				if n == 0 || col < end || line >= len(lines) || col+n > width(lines[line]) {
					t.Fatalf("enc %d, text %q, tokens %v: token %d at %d:%d+%d (line width %d, previous end %d)",
						enc, text, raw, i/5, line, col, n, width(lines[min(line, len(lines)-1)]), end)
				}
				end = col + n
			}
		}
	}
}
