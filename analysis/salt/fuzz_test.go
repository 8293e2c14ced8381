package salt

import (
	"context"
	"testing"
	"time"

	"github.com/ordering-lsp/ordering-lsp/analysis"
	"github.com/ordering-lsp/ordering-lsp/source"
)

// FuzzAnalyze runs the whole Salt analysis (both engines' wording, auto
// order on and off) on one arbitrary editor buffer: no panic (Analyze's
// recover would turn one into an internal-error diagnostic, which fails
// here), no hang, spans inside the text.
func FuzzAnalyze(f *testing.F) {
	seeds := []string{
		"a:\n  test.nop:\n    - require:\n      - test: b\nb:\n  test.nop:\n    - require:\n      - a\n",
		"{% for s in ['x','y'] %}\n{{ s }}:\n  pkg.installed:\n    - names: [a, b]\n    - watch_in:\n      - service: svc\n{% endfor %}\nsvc:\n  service.running\n",
		"include:\n  - .nope\nextend:\n  ghost:\n    file:\n      - managed\n",
		"a:\n  cmd.run:\n    - order: last\n    - prereq:\n      - cmd: b\n    - listen:\n      - cmd: b\nb:\n  cmd.run:\n    - onfail_all:\n      - cmd: a\n    - use:\n      - cmd: a\n",
		"#!py\ndef run(): pass\n",
		"exclude:\n  - sls: x\n  - id: y\nx: test.nop\n",
	}
	for _, s := range seeds {
		f.Add([]byte(s), uint8(0))
	}
	sys := New()
	f.Fuzz(func(t *testing.T, text []byte, mode uint8) {
		ws := source.NewWorkspace()
		uri := "untitled:fuzz.sls"
		ws.SetOverlay(source.NewFile(uri, "", text))
		settings := analysis.Settings{}
		if mode&1 != 0 {
			settings["salt.engine"] = "master"
		}
		if mode&2 != 0 {
			settings["salt.stateAutoOrder"] = "false"
		}
		in := analysis.Input{Ctx: context.Background(), Workspace: ws, Settings: settings}
		start := time.Now()
		res := analysis.Analyze(sys, in, []*source.File{ws.Overlay(uri)})
		if d := time.Since(start); d > slowLimit {
			t.Fatalf("analysis took %v", d)
		}
		for _, d := range res.Diags {
			if d.Code == "internal-error" {
				t.Fatalf("panic: %s", d.Message)
			}
			if d.At.URI == uri && (d.At.Start < 0 || d.At.End < d.At.Start || d.At.End > len(text)) {
				t.Fatalf("diagnostic span %+v outside %d bytes: %s", d.At, len(text), d.Message)
			}
		}
		for _, n := range res.Graph.Nodes {
			if n.Decl.URI == uri && (n.Decl.Start < 0 || n.Decl.End < n.Decl.Start || n.Decl.End > len(text)) {
				t.Fatalf("node %s span %+v outside the text", n.Ref, n.Decl)
			}
		}
	})
}

// slowLimit fails an input that takes this long (shared machines are slow:
// keep it generous).
var slowLimit = 3 * time.Second
