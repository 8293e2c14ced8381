package puppet_test

import (
	"context"
	"testing"

	"github.com/ordering-lsp/ordering-lsp/analysis"
	"github.com/ordering-lsp/ordering-lsp/analysis/puppet"
	"github.com/ordering-lsp/ordering-lsp/source"
)

// A compiled SELinux policy package is a .pp file too, and binary: no
// manifest (alekrain/salt_states' redis/custom_redis-sentinel.pp drew a
// false "Syntax error at '|'"); a file with a NUL byte neither. A
// manifest beside them is analysed as ever.
func TestBinaryManifestSaysNothing(t *testing.T) {
	ws := source.NewWorkspace()
	var files []*source.File
	for _, f := range []struct{ name, text string }{
		{"redis/custom_redis-sentinel.pp", "\x8f\xff\x7c\xf9\x02\x00\x00\x00|}{"},
		{"blob.pp", "notify { 'a': }\x00\x01 {{{"},
		{"site.pp", "notify { 'b': require => Notify['nosuch'] }\n"},
	} {
		sf := source.NewFile("file:///w/"+f.name, "/w/"+f.name, []byte(f.text))
		ws.SetOverlay(sf)
		files = append(files, sf)
	}
	sys := puppet.New()
	res := analysis.Analyze(sys, analysis.Input{Ctx: context.Background(), Workspace: ws}, files)
	n := 0
	for _, d := range res.Diags {
		if d.At.URI != "file:///w/site.pp" {
			t.Errorf("%s: %s", d.At.URI, d.Message)
		}
		n++
	}
	if n != 1 {
		t.Errorf("%d diagnostics, want the missing Notify[nosuch] alone", n)
	}
}
