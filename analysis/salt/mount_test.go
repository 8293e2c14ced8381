package salt

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ordering-lsp/ordering-lsp/analysis"
	"github.com/ordering-lsp/ordering-lsp/analysis/analysistest"
	"github.com/ordering-lsp/ordering-lsp/source"
	"golang.org/x/tools/txtar"
)

// analyseDir analyses the workspace dir (no entry, as the server does)
// and writes what it says relative to rel: every diagnostic in check
// format, then every run with its steps.
func analyseDir(t *testing.T, dir, rel string, settings analysis.Settings) string {
	t.Helper()
	ws := source.NewWorkspace(dir)
	sys := New()
	in := analysis.Input{Ctx: context.Background(), Workspace: ws, Settings: settings}
	res := analysis.Analyze(sys, in, analysis.Files([]analysis.System{sys}, in)[sys])
	ds := append([]analysis.Diagnostic(nil), res.Diags...)
	analysis.SortDiagnostics(ds)
	var b strings.Builder
	for _, d := range ds {
		b.WriteString(analysis.CheckLine(ws, rel, d) + "\n")
	}
	for _, r := range res.Runs {
		entry, _ := filepath.Rel(rel, source.URIToPath(r.Entry))
		fmt.Fprintf(&b, "run %s from %s alone=%v refused=%v\n", r.Name, filepath.ToSlash(entry), r.Alone, r.Refused)
		for _, st := range r.Steps {
			b.WriteString("  " + st.Label + "\n")
		}
	}
	return b.String()
}

// TestMountedRootEqualsCheckout: a repository read as mounted at the
// prefix its files use must be analysed exactly as the same files
// checked out at PREFIX/ under a file root (--file-root naming the
// folder above). Paths are written relative to the repository in both;
// the where-marks of messages are relative to the file root, so the
// prefix is taken out of both texts.
func TestMountedRootEqualsCheckout(t *testing.T) {
	ar := fixtureArchive(t, "mount_prefix_inferred.txtar")
	repo, _ := filepath.EvalSymlinks(t.TempDir())
	analysistest.WriteInputs(t, repo, ar)
	above, _ := filepath.EvalSymlinks(t.TempDir())
	analysistest.WriteInputs(t, filepath.Join(above, "states"), ar)

	mounted := analyseDir(t, repo, repo, analysis.Settings{})
	checkout := analyseDir(t, above, filepath.Join(above, "states"), analysis.Settings{"salt.fileRoot": above})
	// One difference is expected: an include of a package outside the
	// prefix (xinetd) is the enclosing root's, which the workspace holds
	// when it is given (checkout: another formula's file root?) and does
	// not when the prefix is inferred: both information, each saying how
	// to make the roots known in its own words.
	const outside = "Specified SLS xinetd"
	if !strings.Contains(mounted, "info: "+outside) || !strings.Contains(checkout, "info: "+outside) {
		t.Errorf("the include of xinetd: want information mounted and in the checkout\nmounted:\n%s\ncheckout:\n%s", mounted, checkout)
	}
	norm := func(s string) string {
		var out []string
		for _, l := range strings.Split(s, "\n") {
			if strings.Contains(l, outside) {
				l = outside
			}
			if strings.HasPrefix(l, "run state.sls states.web ") {
				// (where it may come from outside, the run goes on)
				l, _, _ = strings.Cut(l, " refused=")
			}
			out = append(out, l)
		}
		return strings.ReplaceAll(strings.Join(out, "\n"), "states/", "")
	}
	if norm(mounted) != norm(checkout) {
		t.Errorf("mounted analysis differs from the checkout's\n%s", analysistest.FirstDifference(norm(checkout), norm(mounted), "checkout", "mounted"))
	}
	// what makes the comparison worth doing: SLS names carry the prefix,
	// the template is no run of its own, and some problem is found
	for _, want := range []string{"run state.sls states.web from web/init.sls", "pkg: php-fpm", "Specified SLS xinetd"} {
		if !strings.Contains(mounted, want) {
			t.Errorf("mounted analysis lacks %q:\n%s", want, mounted)
		}
	}
	for _, not := range []string{"application", "Specified SLS states."} {
		if strings.Contains(mounted, not) {
			t.Errorf("mounted analysis has %q:\n%s", not, mounted)
		}
	}
}

// TestInferMount: the prefix is inferred for a repository whose own
// references need it, and for nothing whose references resolve as
// written.
func TestInferMount(t *testing.T) {
	withFile := func(ar *txtar.Archive, name, data string) *txtar.Archive {
		out := &txtar.Archive{Files: append([]txtar.File{{Name: name, Data: []byte(data)}}, ar.Files...)}
		return out
	}
	prefixed := fixtureArchive(t, "mount_prefix_inferred.txtar")
	var few txtar.Archive // two references only
	for _, f := range prefixed.Files {
		if f.Name == "web/init.sls" || f.Name == "logrotate/init.sls" {
			few.Files = append(few.Files, f)
		}
	}
	cases := []struct {
		name string
		ar   *txtar.Archive
		sub  string // the candidate root, under the folder written
		want string
	}{
		{"prefixed", prefixed, "", "states"},
		{"prefixed, with its own top file", withFile(prefixed, "top.sls", "base:\n  '*':\n    - states.web\n"), "", ""},
		{"prefixed, with a folder of that name", withFile(prefixed, "states/README", "x\n"), "", ""},
		{"prefixed, two references only", &few, "", ""},
		{"a salt/ folder its names use", fixtureArchive(t, "mount_prefix_not.txtar"), "", ""},
		{"a formula's package folder", fixtureArchive(t, "mount_prefix_not.txtar"), "salt", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir, _ := filepath.EvalSymlinks(t.TempDir())
			analysistest.WriteInputs(t, dir, c.ar)
			ws := source.NewWorkspace(dir)
			var files []*source.File
			_ = filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
				if err == nil && !d.IsDir() {
					if f := ws.Lookup(p); f != nil {
						files = append(files, f)
					}
				}
				return nil
			})
			if got := inferMount(ws, filepath.Join(dir, c.sub), files, nil); got != c.want {
				t.Errorf("inferMount = %q, want %q", got, c.want)
			}
		})
	}
}

// TestMountedCompletion: an include list of a mounted repository is
// completed with the names Salt serves (states.x), not the folders.
func TestMountedCompletion(t *testing.T) {
	ar := fixtureArchive(t, "mount_prefix_inferred.txtar")
	repo, _ := filepath.EvalSymlinks(t.TempDir())
	analysistest.WriteInputs(t, repo, ar)
	ws := source.NewWorkspace(repo)
	sys := New()
	in := analysis.Input{Ctx: context.Background(), Workspace: ws}
	res := analysis.Analyze(sys, in, analysis.Files([]analysis.System{sys}, in)[sys])
	f := ws.Lookup(filepath.Join(repo, "web", "init.sls"))
	off := strings.Index(string(f.Text), "states.nginx")
	c := sys.(analysis.Completer).Complete(analysis.CompletionRequest{Result: res, File: f, Offset: off, Workspace: ws, Settings: analysis.Settings{}})
	if c == nil {
		t.Fatal("no completion in the include list")
	}
	var got []string
	for _, it := range c.Items {
		got = append(got, it.Label)
	}
	want := "states.logrotate states.logrotate.templates.application states.nginx states.rsyslog states.rsyslog.conf states.web.php"
	if strings.Join(got, " ") != want {
		t.Errorf("items %q, want %q", strings.Join(got, " "), want)
	}
}

// fixtureArchive reads testdata/fixtures/name.
func fixtureArchive(t *testing.T, name string) *txtar.Archive {
	t.Helper()
	ar, err := txtar.ParseFile(filepath.Join("testdata", "fixtures", name))
	if err != nil {
		t.Fatal(err)
	}
	return ar
}
