package puppet_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ordering-lsp/ordering-lsp/analysis"
	"github.com/ordering-lsp/ordering-lsp/analysis/puppet"
	"github.com/ordering-lsp/ordering-lsp/source"
)

// TestMessagesNameOnlyANamedNode: Puppet says "Could not find class ::x
// for NODE" and "Could not find node statement with name 'default' or
// 'NODE'" about the node it compiles. When the user names that node
// (setting puppet.certname, --certname; or picks one: ordering.node,
// --node) our messages are Puppet's words for it. When nobody named one,
// node blocks are still matched with the placeholder puppet-order, but no
// message names it: the class is missing for every node, and the only
// node block that could apply is `node default`.
func TestMessagesNameOnlyANamedNode(t *testing.T) {
	// A control repository whose classification data names a class no
	// module defines (the os level makes the list depend on facts, so the
	// name is reported where it is written: classify.go), and a class that
	// includes a missing class and a family of names none matches.
	control := map[string]string{
		"environment.conf":    "modulepath = site:$basemodulepath\n",
		"hiera.yaml":          "version: 5\nhierarchy:\n  - name: os\n    path: \"os/%{facts.os.family}.yaml\"\n  - name: common\n    path: common.yaml\n",
		"data/common.yaml":    "classes:\n  - base\n  - base::typo\n",
		"data/os/RedHat.yaml": "classes: []\n",
		"manifests/site.pp":   "lookup('classes', Array[String], 'unique', []).include\n",
		"site/base/manifests/init.pp": `class base {
  include base::missing
  include "base::nothere::${facts['os']['family']}"
}
`,
	}
	// A manifest whose only node block is another node's.
	nodeOnly := map[string]string{
		"site.pp": "node 'web01.example.com' { notify { 'web': } }\n",
	}
	for _, c := range []struct {
		name     string
		files    map[string]string
		entry    string // `puppet apply ENTRY`; "" analyses the folder as the server does
		settings analysis.Settings
		want     string
	}{
		{
			name:  "no node named: the words name none",
			files: control,
			want: `data/common.yaml:3:5: error: Could not find class ::base::typo (listed under 'classes' in data/common.yaml, every node reads)
site/base/manifests/init.pp:2:11: error: Could not find class ::base::missing
site/base/manifests/init.pp:3:11: error: Could not find class ::base::nothere::* (no class of module 'base' matches base::nothere::*, whatever the facts)
`,
		},
		{
			name:     "puppet.certname set: Puppet's words for that node",
			files:    control,
			settings: analysis.Settings{"puppet.certname": "web01.example.com"},
			want: `data/common.yaml:3:5: error: Could not find class ::base::typo for web01.example.com (listed under 'classes' in data/common.yaml, every node reads)
site/base/manifests/init.pp:2:11: error: Could not find class ::base::missing for web01.example.com
site/base/manifests/init.pp:3:11: error: Could not find class ::base::nothere::* for web01.example.com (no class of module 'base' matches base::nothere::*, whatever the facts)
`,
		},
		{
			name:     "a node picked (ordering.node, --node): Puppet's words for it",
			files:    control,
			settings: analysis.Settings{analysis.NodeSetting: "db01.example.com"},
			want: `data/common.yaml:3:5: error: Could not find class ::base::typo for db01.example.com (listed under 'classes' in data/common.yaml, every node reads)
site/base/manifests/init.pp:2:11: error: Could not find class ::base::missing for db01.example.com
site/base/manifests/init.pp:3:11: error: Could not find class ::base::nothere::* for db01.example.com (no class of module 'base' matches base::nothere::*, whatever the facts)
`,
		},
		{
			name:  "puppet apply, no node named, no node block for it: only 'default' could apply",
			files: nodeOnly, entry: "site.pp",
			want: "site.pp:1:1: error: Could not find node statement with name 'default'\n",
		},
		{
			name:  "puppet apply --certname db02.example.com: Puppet's words for that node",
			files: nodeOnly, entry: "site.pp",
			settings: analysis.Settings{"puppet.certname": "db02.example.com"},
			want:     "site.pp:1:1: error: Could not find node statement with name 'default' or 'db02.example.com'\n",
		},
		{
			name:  "puppet apply --certname web01.example.com: its node block applies",
			files: nodeOnly, entry: "site.pp",
			settings: analysis.Settings{"puppet.certname": "web01.example.com"},
			want:     "",
		},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			dir, _ = filepath.EvalSymlinks(dir)
			for name, text := range c.files {
				p := filepath.Join(dir, filepath.FromSlash(name))
				os.MkdirAll(filepath.Dir(p), 0o755)
				if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			settings := c.settings
			if settings == nil {
				settings = analysis.Settings{}
			}
			ws := source.NewWorkspace(dir)
			in := analysis.Input{Ctx: context.Background(), Workspace: ws, Settings: settings}
			if c.entry != "" {
				in.Entry = source.PathToURI(filepath.Join(dir, c.entry))
			}
			sys := puppet.New()
			res := analysis.Analyze(sys, in, analysis.Files([]analysis.System{sys}, in)[sys])
			diags := append([]analysis.Diagnostic(nil), res.Diags...)
			analysis.SortDiagnostics(diags)
			var got []string
			for _, d := range diags {
				if strings.HasPrefix(d.Message, "Could not find") {
					got = append(got, analysis.CheckLine(ws, dir, d))
				}
			}
			if g := joinLines(got); g != c.want {
				t.Errorf("--- want\n%s--- got\n%s", c.want, g)
			}
		})
	}
}
