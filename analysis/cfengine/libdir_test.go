package cfengine

import (
	"strings"
	"testing"

	"github.com/ordering-lsp/ordering-lsp/analysis/analysistest"
	"golang.org/x/tools/txtar"
)

// With a lib/ beside the policy, $(sys.libdir) is the workspace's lib/,
// and a file missing from it is reported as cf-promises reports it (the
// message holds the absolute path, so this is not a txtar fixture).
func TestLibdirInWorkspaceMissing(t *testing.T) {
	ar := txtar.Parse([]byte(`-- promises.cf --
body common control
{
  bundlesequence => { "main" };
  inputs => { "$(sys.libdir)/stdlib.cf", "$(sys.libdir)/nosuch.cf" };
}

bundle agent main
{
  methods:
    "lib" usebundle => lib_bundle;
}
-- lib/stdlib.cf --
bundle agent lib_bundle
{
  reports:
    "from the library";
}
`))
	out := analysistest.Load(t, New(), ar)
	got := strings.ReplaceAll(strings.Join(out.Diags, "\n"), out.Dir, "DIR")
	want := "promises.cf:4:43: warning: Can't stat file 'DIR/lib/nosuch.cf' for parsing"
	if got != want {
		t.Errorf("diagnostics:\n%s\nwant\n%s", got, want)
	}
}
