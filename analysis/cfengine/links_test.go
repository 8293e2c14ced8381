package cfengine

import (
	"strings"
	"testing"

	"github.com/ordering-lsp/ordering-lsp/analysis/analysistest"
	"golang.org/x/tools/txtar"
)

// Go-to-definition: each reference in the text links to what it names.
func TestLinks(t *testing.T) {
	ar, err := txtar.ParseFile("testdata/fixtures/inputs.txtar")
	if err != nil {
		t.Fatal(err)
	}
	out := analysistest.Load(t, New(), ar)
	res := out.Result
	got := map[string]string{}
	for _, l := range res.Links {
		f := out.WS.Lookup(strings.TrimPrefix(l.At.URI, "file://"))
		if f == nil {
			continue
		}
		words := string(f.Text[l.At.Start:l.At.End])
		var targets []string
		for _, n := range l.Nodes {
			targets = append(targets, n.Ref)
		}
		for _, s := range l.Files {
			targets = append(targets, s.URI[strings.LastIndex(s.URI, "/")+1:])
		}
		got[words] = strings.Join(targets, ",")
	}
	want := map[string]string{
		"main":                      "bundle agent main",
		"from_lib":                  "bundle agent from_lib",
		"lib/lib.cf":                "lib.cf",
		"m":                         "body perms m",
		"@(def.bundlesequence_end)": "bundle agent extra",
	}
	for w, tgt := range want {
		if got[w] != tgt {
			t.Errorf("link on %q: got %q, want %q (all: %v)", w, got[w], tgt, got)
		}
	}
}
