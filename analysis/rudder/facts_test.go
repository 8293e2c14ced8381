package rudder

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ordering-lsp/ordering-lsp/analysis"
	"github.com/ordering-lsp/ordering-lsp/analysis/analysistest"
	"github.com/ordering-lsp/ordering-lsp/source"
	"golang.org/x/tools/txtar"
)

func load(t *testing.T, name string) *analysistest.Outcome {
	t.Helper()
	ar, err := txtar.ParseFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return analysistest.Load(t, New(), ar)
}

func node(t *testing.T, res *analysis.Result, kind, ref string) *analysis.Node {
	t.Helper()
	for _, n := range res.Graph.Nodes {
		if n.Kind == kind && n.Ref == ref {
			return n
		}
	}
	t.Fatalf("no %s %s", kind, ref)
	return nil
}

func fact(n *analysis.Node, label string) string {
	var out []string
	for _, f := range n.Facts {
		if f.Label == label {
			out = append(out, f.Value)
		}
	}
	return strings.Join(out, "\n")
}

// Hover on a directive of the documentation example says where its values
// go and why it ranks where it does.
func TestDirectiveFacts(t *testing.T) {
	out := load(t, "doc_example.txtar")
	b1 := node(t, out.Result, "directive", `Directive "B1"`)
	want := "through rule 'R2': values merged 2nd of 2 into the 3rd policy 'R1 / B2' (a merged policy is placed by its first rule and directive names)"
	if got := fact(b1, "policy"); got != want {
		t.Errorf("policy fact of B1:\n got %s\nwant %s", got, want)
	}
	if got := fact(b1, "rank"); !strings.Contains(got, "2nd of 2 among the directives of B/1.0") || !strings.Contains(got, "after 'B2': same priority 5, rule 'R2' vs 'R1'") {
		t.Errorf("rank fact of B1: %s", got)
	}
	c1 := node(t, out.Result, "directive", `Directive "C1"`)
	if got := fact(c1, "policy"); !strings.HasPrefix(got, "through rule 'R0': 1st of 3 in the node's policy order: R0 / C1 [merged: C1, C2]") {
		t.Errorf("policy fact of C1: %s", got)
	}
	// The run's steps point at the directives that place each policy.
	if got := out.Run.Steps[2].Node.Ref; got != `Directive "B2"` {
		t.Errorf("3rd step node = %s", got)
	}
}

// A unique technique's loser says who wins and why.
func TestDiscardedFacts(t *testing.T) {
	out := load(t, "unique_override.txtar")
	d := node(t, out.Result, "directive", `Directive "10. Baseline SSH"`)
	want := "through rule '10. Baseline': discarded, Rudder keeps '30. Hardened SSH' (rule '20. Web servers'): priority 5 is lower than 0 (0 is highest)"
	if got := fact(d, "policy"); got != want {
		t.Errorf("got %s\nwant %s", got, want)
	}
	var related bool
	for _, dg := range out.Result.Diags {
		if dg.Code == "discarded" && len(dg.Related) == 1 && dg.Related[0].Message == "the directive Rudder keeps" {
			related = true
		}
	}
	if !related {
		t.Error("discarded warning has no related winner")
	}
}

// Hover on a Generic Variable Definition variable shows the value the node
// ends up with and where it comes from.
func TestGenericVariableOverride(t *testing.T) {
	out := load(t, "gvd_override.txtar")
	var vars []*analysis.Node
	for _, n := range out.Result.Graph.Nodes {
		if n.Kind == "variable" {
			vars = append(vars, n)
		}
	}
	if len(vars) != 2 {
		t.Fatalf("%d variable nodes, want 2", len(vars))
	}
	for _, v := range vars {
		if got, want := fact(v, "value on the node"), `"last value, kept", from directive '00. Generic Variable Def #2' (rule '10. Global configuration for all nodes')`; got != want {
			t.Errorf("%s: got %s want %s", v.Parent.Ref, got, want)
		}
	}
	if got := fact(vars[0], "declared"); !strings.Contains(got, "1st of 2") || !strings.Contains(got, `"first value, overridden" is overridden`) {
		t.Errorf("first declaration: %s", got)
	}
}

// Go-to-definition: a rule's directive id leads to the directive, the
// directive's techniqueName to the technique; references come back.
func TestLinks(t *testing.T) {
	out := load(t, "separated.txtar")
	res := out.Result
	curl := node(t, res, "directive", `Directive "10. curl"`)
	if got := len(res.LinksTo(curl)); got != 2 {
		t.Errorf("%d references to 10. curl, want 2 (two rules)", got)
	}
	tech := node(t, res, "technique", "Technique packageManagement/1.3")
	if got := len(res.LinksTo(tech)); got != 3 {
		t.Errorf("%d references to the technique, want 3 directives", got)
	}
	yml := node(t, res, "technique", "Technique file_from_template/1.0")
	f := analysis.FileOf(out.WS, yml.Decl.URI)
	if got := string(f.Text[yml.Decl.Start:yml.Decl.End]); got != "File from template" {
		t.Errorf("technique.yml decl = %q", got)
	}
	for _, l := range res.Links {
		f := analysis.FileOf(out.WS, l.At.URI)
		word := string(f.Text[l.At.Start:l.At.End])
		if word != "p-vim" && word != "p-curl" && word != "f-motd" && word != "p-htop" && word != "packageManagement" && word != "file_from_template" {
			t.Errorf("link at %q", word)
		}
	}
	syms := res.Symbols(curl.Decl.URI)
	if len(syms) != 1 || syms[0].Node != curl {
		t.Errorf("symbols of p-curl.json: %v", syms)
	}
}

// FuzzAnalyze runs the whole analysis on one arbitrary JSON export: no
// input may panic (Analyze turns panics into an internal-error diagnostic).
func FuzzAnalyze(f *testing.F) {
	f.Add([]byte(`{"rules":[{"id":"r","displayName":"R","directives":["d","d","x"],"targets":["group:g"]}],"directives":[{"id":"d","displayName":"D","techniqueName":"genericVariableDefinition","parameters":{"section":{"name":"s","sections":[{"section":{"name":"Variable definition","vars":[{"var":{"name":"GENERIC_VARIABLE_NAME","value":"v"}}]}}]}}}],"groups":[{"id":"h"}]}`))
	f.Add([]byte(`[{"id":"a","techniqueName":"t","priority":-3},{"id":"b","techniqueName":"t","enabled":false},{"id":"r","targets":[{"and":["special:all",{"include":{"or":[]}}]}],"directives":["a","b"]}]`))
	f.Fuzz(func(t *testing.T, b []byte) {
		ws := source.NewWorkspace()
		file := source.NewFile("untitled:export.json", "", b)
		ws.SetOverlay(file)
		for _, groups := range []string{"", "g,h"} {
			in := analysis.Input{Ctx: context.Background(), Workspace: ws, Settings: analysis.Settings{"rudder.nodeGroups": groups}}
			res := analysis.Analyze(New(), in, []*source.File{file})
			for _, d := range res.Diags {
				if d.Code == "internal-error" {
					t.Fatal(d.Message)
				}
				if d.At.Start < 0 || d.At.End > len(b) || d.At.Start > d.At.End {
					t.Fatalf("bad span %v", d.At)
				}
			}
		}
	})
}
