package cfengine

import (
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/ordering-lsp/ordering-lsp/internal/lazyre"
)

// Inputs the build creates. An acceptance test may load a file that the
// test harness's build copies in before the tests run: masterfiles'
// tests/acceptance/Makefile.am copies core's *.sub.cf beside the tests
// (`make check`) and says so in its CLEANFILES. A missing input that the
// automake file of its own directory declares as built (listed in a
// *CLEANFILES or BUILT_SOURCES variable, automake's lists of the files a
// make target creates) is not missing where the policy runs.

// buildLists matches an automake assignment to one of the lists of
// generated files (`CLEANFILES += a b`).
var buildLists = lazyre.New(`^\s*([A-Z_]*CLEANFILES|BUILT_SOURCES)\s*\+?=(.*)$`)

// builtList is what one Makefile.am declares as built: file name patterns
// and the variable each came from.
type builtList struct {
	makefile string
	names    []string
	lists    []string
}

// builtBy returns the Makefile.am beside path that declares path as a
// file the build creates, and the variable that lists it ("" when none
// does, or when something exists at path).
func (a *analyzer) builtBy(path string) (makefile, list string) {
	if _, err := os.Stat(path); err == nil {
		return "", ""
	}
	dir, base := filepath.Dir(path), filepath.Base(path)
	if a.built == nil {
		a.built = map[string]*builtList{}
	}
	bl, ok := a.built[dir]
	if !ok {
		bl = readBuiltList(a, filepath.Join(dir, "Makefile.am"))
		a.built[dir] = bl
	}
	if bl == nil {
		return "", ""
	}
	for i, n := range bl.names {
		if ok, _ := filepath.Match(n, base); ok {
			return bl.makefile, bl.lists[i]
		}
	}
	return "", ""
}

func readBuiltList(a *analyzer, path string) *builtList {
	f := lookupRegular(a.req.Workspace, path)
	if f == nil {
		return nil
	}
	bl := &builtList{makefile: path}
	text := strings.ReplaceAll(string(f.Text), "\\\r\n", " ")
	text = strings.ReplaceAll(text, "\\\n", " ")
	for _, line := range strings.Split(text, "\n") {
		if i := strings.IndexByte(line, '#'); i >= 0 {
			line = line[:i]
		}
		m := buildLists.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		for _, w := range strings.Fields(m[2]) {
			// $(VAR) references and paths into other directories are
			// left out: only names of this directory's files count
			if strings.ContainsAny(w, "$/") {
				continue
			}
			bl.names = append(bl.names, w)
			bl.lists = append(bl.lists, m[1])
		}
	}
	return bl
}

// configuredBy returns the configure.ac, in path's folder or above it in
// the workspace, whose AC_CONFIG_FILES lists path, when path.in exists
// (configure writes path from it: masterfiles' controls/update_def.cf,
// update.cf, promises.cf); "" when none does or something is at path.
func (a *analyzer) configuredBy(path string) string {
	if _, err := os.Stat(path); err == nil {
		return ""
	}
	if lookupRegular(a.req.Workspace, path+".in") == nil {
		return ""
	}
	roots := a.req.Workspace.Roots()
	for d := filepath.Dir(path); ; d = filepath.Dir(d) {
		if f := lookupRegular(a.req.Workspace, filepath.Join(d, "configure.ac")); f != nil {
			rel, err := filepath.Rel(d, path)
			if err == nil && configFiles(string(f.Text))[filepath.ToSlash(rel)] {
				return f.Path
			}
		}
		if slices.Contains(roots, d) || filepath.Dir(d) == d {
			return ""
		}
	}
}

// configFiles are the files AC_CONFIG_FILES([a b ...]) calls name in a
// configure.ac.
func configFiles(text string) map[string]bool {
	out := map[string]bool{}
	for {
		i := strings.Index(text, "AC_CONFIG_FILES(")
		if i < 0 {
			return out
		}
		text = text[i+len("AC_CONFIG_FILES("):]
		end := strings.IndexAny(text, "])")
		if end < 0 {
			end = len(text)
		}
		for _, w := range strings.Fields(strings.TrimPrefix(strings.TrimSpace(text[:end]), "[")) {
			out[strings.TrimSuffix(w, ":")] = true
		}
		text = text[end:]
	}
}
