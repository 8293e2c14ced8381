package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/ordering-lsp/ordering-lsp/analysis"
	"github.com/ordering-lsp/ordering-lsp/source"
)

// The caret lines up under the words: tabs are kept, wide characters take
// two columns; a problem several places report is printed once; --quiet
// keeps only the errors' first lines; no colour unless asked.
func TestTextOutput(t *testing.T) {
	ws := source.NewWorkspace()
	text := "\tnotify { '日本': require => File['x'] }\nnotify { 'b': }\n"
	f := source.NewFile("file:///w/site.pp", "/w/site.pp", []byte(text))
	ws.SetOverlay(f)
	at := strings.Index(text, "File['x']")
	d := analysis.Diagnostic{At: source.Span{URI: f.URI, Start: at, End: at + len("File['x']")}, Severity: analysis.Error, Code: "missing", Message: "Could not find resource 'File[x]'"}
	b2 := strings.Index(text, "'b'")
	c1 := analysis.Diagnostic{At: source.Span{URI: f.URI, Start: 1, End: 7}, Severity: analysis.Warning, Code: "cycle", Message: "a cycle",
		Related: []analysis.Related{{At: source.Span{URI: f.URI, Start: b2, End: b2 + 3}, Message: "an edge"}}}
	c2 := c1
	c2.At = source.Span{URI: f.URI, Start: b2, End: b2 + 3}
	var out bytes.Buffer
	writeText(&out, ws, "/w", []analysis.Diagnostic{d, c1, c2}, 1, textOpts{})
	// 10 columns for "notify { '", 4 for the two wide characters, 14 for
	// "': require => ": 28 under the text after the tab.
	want := "site.pp:1:32: error: Could not find resource 'File[x]'\n" +
		" 1 | \tnotify { '日本': require => File['x'] }\n" +
		"   | \t" + strings.Repeat(" ", 28) + "^^^^^^^^^\n" +
		"\n" +
		"site.pp:1:2: warning: a cycle\n" +
		" 1 | \tnotify { '日本': require => File['x'] }\n" +
		"   | \t^^^^^^\n" +
		"  also reported at site.pp:2:10\n" +
		"  site.pp:2:10 an edge\n" +
		"\n" +
		"1 error, 1 warning in 1 file\n"
	if out.String() != want {
		t.Errorf("got:\n%s\nwant:\n%s", out.String(), want)
	}
	out.Reset()
	d2 := d
	d2.At = c2.At
	writeText(&out, ws, "/w", []analysis.Diagnostic{d, d2}, 1, textOpts{})
	if !strings.HasSuffix(out.String(), "2 errors in 1 file\n") {
		t.Errorf("the same message at two places without related places is two problems:\n%s", out.String())
	}
	out.Reset()
	writeText(&out, ws, "/w", []analysis.Diagnostic{d, c1, c2}, 1, textOpts{quiet: true})
	if out.String() != "site.pp:1:32: error: Could not find resource 'File[x]'\n" {
		t.Errorf("--quiet: %q", out.String())
	}
	out.Reset()
	writeText(&out, ws, "/w", nil, 3, textOpts{color: true})
	if out.String() != "no problems in 3 files\n" {
		t.Errorf("clean: %q", out.String())
	}
	t.Setenv("NO_COLOR", "1")
	if useColor(&out) {
		t.Error("colour on a buffer with NO_COLOR")
	}
}
