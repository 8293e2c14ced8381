package puppet_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ordering-lsp/ordering-lsp/analysis"
	"github.com/ordering-lsp/ordering-lsp/analysis/puppet"
	"github.com/ordering-lsp/ordering-lsp/source"
)

// dump renders a Result strictly: every run's steps in order, every
// diagnostic with its related entries (by place, as clients are given
// them: the order runs emitted them in is no answer), every link in order with
// its targets, every node of the graph in order with its facts and
// parent, every edge in order. Two analyses that dump the same text gave
// the client the same answers.
func dump(res *analysis.Result) string {
	var b strings.Builder
	sp := func(s source.Span) string { return fmt.Sprintf("%s:%d-%d", s.URI, s.Start, s.End) }
	nref := func(n *analysis.Node) string {
		if n == nil {
			return "-"
		}
		return n.Ref + "@" + sp(n.Decl)
	}
	for _, r := range res.Runs {
		fmt.Fprintf(&b, "run %q entry=%s refused=%v steps=%d\n", r.Name, r.Entry, r.Refused, len(r.Steps))
		for _, s := range r.Steps {
			fmt.Fprintf(&b, "  %s %s %s\n", s.Label, nref(s.Node), s.Note)
		}
	}
	diags := slices.Clone(res.Diags)
	analysis.SortDiagnostics(diags)
	for _, d := range diags {
		fmt.Fprintf(&b, "diag %s %s %s %q\n", sp(d.At), d.Severity, d.Code, d.Message)
		for _, r := range d.Related {
			fmt.Fprintf(&b, "  rel %s %q\n", sp(r.At), r.Message)
		}
		for _, m := range d.Members {
			fmt.Fprintf(&b, "  member %s\n", nref(m))
		}
	}
	for _, l := range res.Links {
		fmt.Fprintf(&b, "link %s", sp(l.At))
		for _, n := range l.Nodes {
			fmt.Fprintf(&b, " %s", nref(n))
		}
		for _, f := range l.Files {
			fmt.Fprintf(&b, " file:%s", sp(f))
		}
		b.WriteString("\n")
	}
	for i, n := range res.Graph.Nodes {
		if n.Index != i {
			fmt.Fprintf(&b, "BAD INDEX %d %d\n", i, n.Index)
		}
		fmt.Fprintf(&b, "node %s %s full=%s parent=%s hidden=%v container=%v\n", n.Kind, nref(n), sp(n.Full), nref(n.Parent), n.Hidden, n.Container)
		for _, f := range n.Facts {
			fmt.Fprintf(&b, "  fact %s: %s\n", f.Label, f.Value)
		}
	}
	for _, e := range res.Graph.Edges {
		fmt.Fprintf(&b, "edge %s -> %s %s %s %s\n", nref(e.From), nref(e.To), e.Kind, e.Reason, sp(e.At))
	}
	for _, f := range res.Files {
		fmt.Fprintf(&b, "file %s\n", f)
	}
	return b.String()
}

// TestDumpCorpus writes the strict dump of every repository of
// $ORDERING_CORPUS, analysed as the language server does, into
// $PUPPET_DUMP/<repo>.txt: run it before and after a change to the
// analysis and diff the folders (a speed change must not change a byte).
// PUPPET_DUMP_NOSHARE=1 has every run evaluate its own class and define
// bodies (System.NoSharedEval): diffed with a dump that shares them, it
// is the shared evaluation's differential test on real repositories.
func TestDumpCorpus(t *testing.T) {
	root, out := os.Getenv("ORDERING_CORPUS"), os.Getenv("PUPPET_DUMP")
	if root == "" || out == "" {
		t.Skip("set ORDERING_CORPUS and PUPPET_DUMP")
	}
	only := os.Getenv("PUPPET_DUMP_ONLY")
	os.MkdirAll(out, 0o755)
	repos, _ := os.ReadDir(root)
	for _, r := range repos {
		if !r.IsDir() || (only != "" && !strings.Contains(only, r.Name())) {
			continue
		}
		dir, _ := filepath.EvalSymlinks(filepath.Join(root, r.Name()))
		ws := source.NewWorkspace(dir)
		sys := puppet.New()
		sys.(*puppet.System).NoSharedEval = os.Getenv("PUPPET_DUMP_NOSHARE") != ""
		// the memory of every merged run's nodes and edges is overwritten
		// before it is reused: a result holding one differs
		sys.(*puppet.System).PoisonFreed = true
		in := analysis.Input{Ctx: context.Background(), Workspace: ws, Settings: analysis.Settings{}}
		files := analysis.Files([]analysis.System{sys}, in)[sys]
		t0, c0 := time.Now(), cpuTime()
		res := analysis.Analyze(sys, in, files)
		took, cpu := time.Since(t0), cpuTime()-c0
		os.WriteFile(filepath.Join(out, r.Name()+".txt"), []byte(dump(res)), 0o644)
		t.Logf("%s: %d runs, %d nodes, analysis %v wall %v cpu", r.Name(), len(res.Runs), len(res.Graph.Nodes), took.Round(time.Millisecond), cpu.Round(time.Millisecond))
	}
}
