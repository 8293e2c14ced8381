package puppet

import (
	"path/filepath"
	"slices"
	"strings"

	"github.com/ordering-lsp/ordering-lsp/analysis"
)

// A module's example manifests (examples/, tests/, any folder of a module
// outside manifests/) are compiled as `puppet apply FILE` would compile
// them: the file alone, with the module path. In a module's own
// repository that is what they are for, and their failures are errors.
// In a control repository that vendors the module (dmzoneill's
// modules_thirdparty/apache/tests/php.pp, sidgs's
// modules/mysql/examples/java.pp) no node compiles them: a problem only
// such a run reports fails nowhere but in that command, so it is a
// warning naming it, and one a node's run also reports is that run's.

// What settleExamples adds to a problem an example's run reports:
// exampleMark + the file + exampleEnd.
const (
	exampleMark = " (only in `puppet apply "
	exampleEnd  = "`: a module's example, which no node of the workspace compiles)"
)

// noteExampleRun records that the run named name compiles fi, when fi is
// an example of a module whose repository the workspace is not.
func (a *analyzer) noteExampleRun(name string, fi *fileInfo) {
	mod, ok := a.moduleOutsideManifests(fi)
	if !ok {
		mod, ok = a.exampleFolder(fi)
	}
	if !ok || a.ownRoot(mod) {
		return
	}
	if a.exampleRuns == nil {
		a.exampleRuns = map[string]string{}
	}
	a.exampleRuns[name] = a.displayPath(fi.uri)
}

// exampleFolder finds the module of a file under a module's examples/
// or tests/ folder where the module path we know does not reach
// (dmzoneill's environments/global/modules_thirdparty, named only in a
// puppet.conf): a folder with manifests/ beside that one, and no
// environment.
func (a *analyzer) exampleFolder(fi *fileInfo) (string, bool) {
	sep := string(filepath.Separator)
	if fi.path == "" || !strings.Contains(fi.path, sep+"examples"+sep) && !strings.Contains(fi.path, sep+"tests"+sep) {
		return "", false
	}
	if fi.uri == a.req.Entry || a.envManifest(fi.path) {
		return "", false
	}
	for d := filepath.Dir(fi.path); ; {
		parent := filepath.Dir(d)
		if parent == d || !strings.HasPrefix(d, a.root()) {
			return "", false
		}
		if b := filepath.Base(d); (b == "examples" || b == "tests") && a.ws.IsDir(filepath.Join(parent, "manifests")) {
			for _, env := range []string{"environment.conf", "modules", filepath.Join("manifests", "site.pp")} {
				if a.ws.Exists(filepath.Join(parent, env)) {
					return "", false
				}
			}
			return parent, true
		}
		d = parent
	}
}

// ownRoot says whether dir is a module opened at its root, the
// module's own repository (metadata.json, or an old one's Modulefile and
// manifests/init.pp: nvalentine-puppetlabs/puppet-site).
func (a *analyzer) ownRoot(dir string) bool {
	dir = filepath.Clean(dir)
	for _, r := range a.rootMods {
		if filepath.Clean(r) == dir {
			return true
		}
	}
	return a.world != nil && slices.Contains(a.world.moduleRoots, dir)
}

// exampleDiag marks a problem of the run being merged when it is an
// example's: an error becomes a warning; both name the example.
func (a *analyzer) exampleDiag(d *analysis.Diagnostic) {
	file, ok := a.exampleRuns[a.curRun]
	if !ok || d.Severity != analysis.Error && d.Severity != analysis.Warning {
		return
	}
	d.Severity = analysis.Warning
	tail := exampleMark + file + exampleEnd
	d.Message += tail
	if d.Template != "" {
		d.Template += tail
	}
}

// settleExamples drops an example's problem that another run reports
// at the same place (a node's run, a class's checked alone: that report
// says where it fails), and makes one warning of those several examples
// report, naming the first and how many more.
func (a *analyzer) settleExamples() {
	if len(a.exampleRuns) == 0 {
		return
	}
	others := map[markedKey]bool{}
	for _, d := range a.diags {
		if _, _, ok := splitMarked(d.Message, exampleMark, exampleEnd); ok {
			continue
		}
		others[markedKey{d.At, d.Code, d.Message}] = true
		for _, mark := range []string{nodesMark, aloneMark} {
			if i := strings.LastIndex(d.Message, mark); i >= 0 && strings.HasSuffix(d.Message, ")") {
				others[markedKey{d.At, d.Code, d.Message[:i]}] = true
			}
		}
	}
	out, files, first := foldMarked(a.diags, exampleMark, exampleEnd, func(analysis.Diagnostic) bool { return true }, others)
	for k, fs := range files {
		if len(fs) < 2 {
			continue
		}
		tail := exampleMark + fs[0] + "` and in that of " + itoa(len(fs)-1) + " other examples, which no node of the workspace compiles)"
		d := &out[first[k]]
		d.Message = k.base + tail
		if tb, _, ok := splitMarked(d.Template, exampleMark, exampleEnd); ok {
			d.Template = tb + tail
		}
	}
	a.diags = out
}
