package puppet

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/ordering-lsp/ordering-lsp/analysis"
	"github.com/ordering-lsp/ordering-lsp/source"
)

// snapText renders a run snapshot field by field, nodes by their
// position in the snapshot, so two snapshots of one run compare as text.
func snapText(s *runSnap) string {
	var b strings.Builder
	idx := map[*analysis.Node]int{}
	for i, sn := range s.nodes {
		idx[sn.n] = i
	}
	name := func(n *analysis.Node) string {
		if n == nil {
			return "nil"
		}
		if i, ok := idx[n]; ok {
			return fmt.Sprintf("#%d", i)
		}
		return fmt.Sprintf("def(%s %s %v)", n.Kind, n.Ref, n.Decl)
	}
	for i, sn := range s.nodes {
		n := sn.n
		fmt.Fprintf(&b, "node #%d %c %s %q decl=%v full=%v parent=%s hidden=%v facts=%v\n", i, sn.kind, n.Kind, n.Ref, n.Decl, n.Full, name(n.Parent), n.Hidden, n.Facts)
	}
	for _, f := range s.facts {
		fmt.Fprintf(&b, "facts #%d %v\n", f.i, f.facts)
	}
	for _, e := range s.edges {
		fmt.Fprintf(&b, "edge %s -> %s %v %q at=%v\n", name(e.From), name(e.To), e.Kind, e.Reason, e.At)
	}
	for _, st := range s.run.Steps {
		fmt.Fprintf(&b, "step %s %q\n", name(st.Node), st.Label)
	}
	fmt.Fprintf(&b, "run %q entry=%q alone=%v refused=%v\n", s.run.Name, s.run.Entry, s.run.Alone, s.run.Refused)
	for _, d := range s.diags {
		fmt.Fprintf(&b, "diag %v %v %s %q\n", d.At, d.Severity, d.Code, d.Message)
	}
	for _, m := range s.missing {
		fmt.Fprintf(&b, "missing %v %q\n", m.d.At, m.d.Message)
	}
	for i := range s.links.at {
		fmt.Fprintf(&b, "link %v %v\n", s.links.at[i], s.links.tgt[s.links.start[i]:s.links.start[i+1]])
	}
	for _, d := range s.defs {
		fmt.Fprintf(&b, "def %s\n", name(d))
	}
	fmt.Fprintf(&b, "declared %v\npatterns %v\nabsent=%v unknownIncludes=%v synthetic=%v\n", s.declared, s.patterns, s.absent, s.unknownIncludes, s.synthetic)
	var deps []string
	for k, v := range s.deps {
		deps = append(deps, fmt.Sprintf("%c %s = %s", k.kind, k.name, v))
	}
	sort.Strings(deps)
	fmt.Fprintf(&b, "deps %s\n", strings.Join(deps, "; "))
	return b.String()
}

func TestZZSnapDiff(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"modules/role/manifests/a.pp":       "class role::a {\n  include profile::base\n  package { 'ra': }\n}\n",
		"modules/role/manifests/b.pp":       "class role::b {\n  package { 'rb': }\n  include profile::base\n}\n",
		"modules/profile/manifests/base.pp": "class profile::base {\n  package { 'p1': }\n  file { '/tmp/x': }\n}\n",
	}
	for name, text := range files {
		p := filepath.Join(dir, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, []byte(text), 0o644)
	}
	ws := source.NewWorkspace(dir)
	analyze := func(s *System) {
		in := analysis.Input{Ctx: context.Background(), Workspace: ws, Settings: analysis.Settings{}}
		fs := analysis.Files([]analysis.System{s}, in)[s]
		analysis.Analyze(s, in, fs)
	}
	long := New().(*System)
	analyze(long)
	before := map[string]string{}
	for k, v := range long.cache {
		before[k] = snapText(v)
	}
	p := filepath.Join(dir, "modules/profile/manifests/base.pp")
	ws.SetOverlay(source.NewFile(source.PathToURI(p), p, []byte(os.Getenv("ZZ_NEW"))))
	fresh := New().(*System)
	analyze(fresh)
	for k, v := range fresh.cache {
		os.WriteFile(filepath.Join("/tmp/zz", strings.ReplaceAll(k, " ", "_")+".before"), []byte(before[k]), 0o644)
		os.WriteFile(filepath.Join("/tmp/zz", strings.ReplaceAll(k, " ", "_")+".after"), []byte(snapText(v)), 0o644)
	}
}
