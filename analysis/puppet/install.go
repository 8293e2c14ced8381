package puppet

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"

	"github.com/ordering-lsp/ordering-lsp/analysis"
)

// lookPath finds an installer; tests replace it.
var lookPath = exec.LookPath

// InstallJobs offers to install each Puppetfile of the environment roots
// whose modules are not all in their folders (moduledir, or a module's
// install_path), with r10k when it is on PATH, else g10k. Both run in the
// Puppetfile's folder, as a control repository's deploy does, and read
// its moduledir themselves (r10k ignores --moduledir when the Puppetfile
// names one, g10k's -moduledir overrides it: neither flag is given).
// g10k keeps its cache in the user's cache folder rather than its default,
// /tmp/g10k, which every user of the machine may write.
func (s *System) InstallJobs(req *analysis.Request) []analysis.InstallJob {
	var out []analysis.InstallJob
	for _, root := range inferRoots(req.Workspace, req.Files) {
		f := req.Workspace.Lookup(filepath.Join(root, "Puppetfile"))
		if f == nil || f.Path == "" {
			continue
		}
		var fills []string
		seen := map[string]bool{}
		for _, m := range parsePuppetfile(f) {
			if seen[m.dir] {
				continue
			}
			seen[m.dir] = true
			if st, err := os.Stat(m.dir); err != nil || !st.IsDir() {
				fills = append(fills, m.dir)
			}
		}
		if len(fills) == 0 {
			continue
		}
		dir := filepath.Dir(f.Path)
		job := analysis.InstallJob{Declares: f.Path, Dir: dir, Fills: fills, Resolves: []string{codeNotInstalled}}
		what := fmt.Sprintf("the module %s declares", displayIn(root, f.Path))
		if len(fills) > 1 {
			what = fmt.Sprintf("the %d modules %s declares", len(fills), displayIn(root, f.Path))
		}
		if r10k, err := lookPath("r10k"); err == nil {
			job.Argv = []string{r10k, "puppetfile", "install", "--puppetfile", f.Path, "-v"}
			job.Title = fmt.Sprintf("Install %s with r10k", what)
		} else if g10k, err := lookPath("g10k"); err == nil {
			job.Argv = []string{g10k, "-puppetfile", "-puppetfilelocation", f.Path, "-info"}
			if cache, err := os.UserCacheDir(); err == nil {
				job.Argv = append(job.Argv, "-cachedir", filepath.Join(cache, "g10k"))
			}
			job.Title = fmt.Sprintf("Install %s with g10k", what)
		} else {
			job.Title = fmt.Sprintf("Install %s", what)
			job.Err = fmt.Sprintf("cannot install %s: neither r10k nor g10k is on PATH (Debian: `apt-get install r10k`)", what)
		}
		out = append(out, job)
	}
	return out
}

// displayIn is path relative to root when inside it.
func displayIn(root, path string) string {
	return analysis.Rel(root, path)
}

var _ analysis.Installer = (*System)(nil)
