package puppet_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ordering-lsp/ordering-lsp/analysis"
	"github.com/ordering-lsp/ordering-lsp/analysis/puppet"
	"github.com/ordering-lsp/ordering-lsp/source"
)

// genSharedClass writes a control repository where one class,
// profile::base, is included by roles roles (each a run of its own, as
// nothing declares them) beside a profile of each role's with per
// resources: the shape of operations-puppet's profile::base, which 300 of
// its 1,124 runs include (issue 25). It returns base.pp's path and text.
func genSharedClass(tb testing.TB, dir string, roles, per int) (string, []byte) {
	write := func(rel, text string) {
		p := filepath.Join(dir, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			tb.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			tb.Fatal(err)
		}
	}
	var b strings.Builder
	b.WriteString("class profile::base {\n")
	for i := range 40 {
		fmt.Fprintf(&b, "  package { 'base-%d': ensure => installed }\n", i)
		fmt.Fprintf(&b, "  file { '/etc/base/%d.conf': ensure => file, content => 'x', require => Package['base-%d'] }\n", i, i)
	}
	b.WriteString("  package { 'timing-probe': ensure => installed }\n}\n")
	base := filepath.Join(dir, "modules/profile/manifests/base.pp")
	write("modules/profile/manifests/base.pp", b.String())
	for r := range roles {
		write(fmt.Sprintf("modules/role/manifests/r%d.pp", r),
			fmt.Sprintf("class role::r%d {\n  include profile::base\n  include profile::p%d\n  Class['profile::base'] -> Class['profile::p%d']\n}\n", r, r, r))
		b.Reset()
		fmt.Fprintf(&b, "class profile::p%d {\n", r)
		for i := range per / 2 {
			fmt.Fprintf(&b, "  package { 'p%d-%d': ensure => installed }\n", r, i)
			fmt.Fprintf(&b, "  service { 'p%d-%d': ensure => running, subscribe => Package['p%d-%d'] }\n", r, i, r, i)
		}
		b.WriteString("}\n")
		write(fmt.Sprintf("modules/profile/manifests/p%d.pp", r), b.String())
	}
	text, err := os.ReadFile(base)
	if err != nil {
		tb.Fatal(err)
	}
	return base, text
}

// BenchmarkSharedClassEdit: an edit of a class 300 runs include, each
// analysed completely as the server does after a keystroke: the runs
// are patched (patchplan.go), not evaluated again. "retitle": a letter
// of a resource's title typed over (a replacement); "add": a resource
// put in and taken out again.
func BenchmarkSharedClassEdit(b *testing.B) {
	dir := b.TempDir()
	base, text := genSharedClass(b, dir, 300, 200)
	ws := source.NewWorkspace(dir)
	sys := puppet.New()
	analyze := func() {
		in := analysis.Input{Ctx: context.Background(), Workspace: ws, Settings: analysis.Settings{}}
		res := analysis.Analyze(sys, in, analysis.Files([]analysis.System{sys}, in)[sys])
		if len(res.Runs) < 300 {
			b.Fatalf("%d runs", len(res.Runs))
		}
	}
	uri := source.PathToURI(base)
	analyze()
	edits := map[string][2][]byte{
		"retitle": {text, []byte(strings.Replace(string(text), "'timing-probe'", "'timing-probf'", 1))},
		"add":     {text, []byte(strings.Replace(string(text), "\n}\n", "\n  package { 'timing-probe-2': ensure => installed }\n}\n", 1))},
	}
	for _, name := range []string{"retitle", "add"} {
		b.Run(name, func(b *testing.B) {
			versions := edits[name]
			patched := 0
			b.ReportAllocs()
			b.ResetTimer()
			c := cpuTime()
			for i := 0; i < b.N; i++ {
				ws.SetOverlay(source.NewFile(uri, base, versions[(i+1)%2]))
				analyze()
				patched += sys.(*puppet.System).Patched
			}
			reportCPU(b, c)
			b.StopTimer()
			if patched < 300*b.N {
				b.Fatalf("%d runs patched in %d edits: the edit is not patched (refused by test %v)", patched, b.N, sys.(*puppet.System).PatchRefused)
			}
			ws.SetOverlay(source.NewFile(uri, base, text))
			analyze()
		})
	}
}
