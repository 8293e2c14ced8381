package cfengine

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/ordering-lsp/ordering-lsp/analysis"
	"github.com/ordering-lsp/ordering-lsp/source"
)

// siblingInput finds, for an input v written relative to the entry's
// folder and missing there, the same relative path under another policy
// folder of the workspace: one holding its own promises.cf. Repositories
// that keep a common policy and per-site policies side by side deploy them
// merged into one inputs directory (buckelij/CFEngine-TJC: deploy.sh runs
// `cp -rf common/masterfiles/* /var/cfengine/inputs/` and then the site's
// masterfiles), so cf-promises finds there what the site's promises.cf
// names beside it. "" when no such file exists.
func (a *analyzer) siblingInput(v, entryDir string) string {
	rel := filepath.Clean(v)
	if filepath.IsAbs(rel) || rel == "." || strings.HasPrefix(rel, "..") || strings.Contains(rel, "$(") || strings.Contains(rel, "${") {
		return ""
	}
	sep := string(filepath.Separator)
	have := map[string]bool{}
	for _, f := range a.req.Files {
		have[f.Path] = true
	}
	best, bestTail := "", -1
	for _, f := range a.req.Files {
		if !strings.HasSuffix(f.Path, sep+rel) {
			continue
		}
		base := strings.TrimSuffix(f.Path, rel)
		if filepath.Clean(base) == filepath.Clean(entryDir) || !have[base+"promises.cf"] {
			continue
		}
		// the folder most like the entry's (masterfiles_updates/3_7_5
		// is laid over masterfiles/3_7_5, not 3_7_4: Webhuis/CFEngine-Roadshow)
		tail := sameTail(filepath.Clean(base), filepath.Clean(entryDir))
		if tail > bestTail || tail == bestTail && f.Path < best {
			best, bestTail = f.Path, tail
		}
	}
	return best
}

// sameTail counts the last folder names two paths share.
func sameTail(a, b string) int {
	x, y := strings.Split(a, string(filepath.Separator)), strings.Split(b, string(filepath.Separator))
	n := 0
	for n < len(x) && n < len(y) && x[len(x)-1-n] == y[len(y)-1-n] {
		n++
	}
	return n
}

// siblingInputNote is the information given instead of "Can't stat file"
// when siblingInput found the file in another policy folder.
func (a *analyzer) siblingInputNote(at source.Span, name, found, entryDir string) analysis.Diagnostic {
	other := filepath.Dir(strings.TrimSuffix(found, filepath.Clean(name)))
	return analysis.Diagnostic{At: at, Severity: analysis.Info, Code: "deployed-input",
		Message: fmt.Sprintf("'%s' is not beside this policy, but %s is, in another policy folder (%s, with its own promises.cf): cf-promises finds it where a deployment copies both folders into one inputs directory, and fails (\"Can't stat file\") where this folder is deployed alone (copy the file here, or name it relative to this policy, to have it checked)",
			name, a.relPath(found, entryDir), a.relPath(other, entryDir))}
}
