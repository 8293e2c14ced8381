package rudder

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/ordering-lsp/ordering-lsp/analysis"
	"github.com/ordering-lsp/ordering-lsp/source"
)

// Normation/rudder's WriteTechniquesTest "A CFEngine node, with 500
// directives based on the same technique" gives one rule
// (90-copy-git-file) 500 directives of the separated technique copyGitFile,
// all named "Copy git file". Its expected rudder-directives.cf
// (expected-share/node-cfe-with-500-directives) runs them in the order of
// PolicyId.getRudderUniqueId, compared as text: copyGitFile1, 10, 100, 101,
// ..., 109, 11, 110, ... We rebuild the input as an export and check the
// same order.
func TestOracle500Directives(t *testing.T) {
	var b strings.Builder
	b.WriteString(`{"rules":[{"id":"rulecopyGitFile","displayName":"90-copy-git-file","targets":["special:all"],"enabled":true,"directives":[`)
	var ids []string
	for i := 1; i <= 500; i++ {
		if i > 1 {
			b.WriteByte(',')
		}
		id := fmt.Sprintf("directive-copyGitFile%d", i)
		ids = append(ids, id)
		fmt.Fprintf(&b, "%q", id)
	}
	b.WriteString(`]}],"directives":[`)
	for i, id := range ids {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"id":%q,"displayName":"Copy git file","techniqueName":"copyGitFile","techniqueVersion":"2.3","enabled":true}`, id)
	}
	b.WriteString(`]}`)
	file := source.NewFile("untitled:export.json", "", []byte(b.String()))
	res := analysis.Analyze(New(), analysis.Input{Ctx: context.Background(), Workspace: source.NewWorkspace()}, []*source.File{file})
	steps := res.Runs[0].Steps
	if len(steps) != 500 {
		t.Fatalf("%d policies, want 500", len(steps))
	}
	want := append([]string(nil), ids...)
	sort.Strings(want) // the upstream file's order: 1, 10, 100, 101, ...
	for i, st := range steps {
		text := string(file.Text[st.Node.Full.Start:st.Node.Full.End])
		if !strings.Contains(text, `"id":"`+want[i]+`"`) {
			t.Fatalf("step %d is %s, want %s", i+1, text[:40], want[i])
		}
		if st.Label != "90-copy-git-file / Copy git file" {
			t.Fatalf("label %q", st.Label)
		}
	}
	if want[1] != "directive-copyGitFile10" || want[2] != "directive-copyGitFile100" {
		t.Fatalf("expected order starts %v", want[:3])
	}
}
