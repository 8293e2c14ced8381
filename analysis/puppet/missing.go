package puppet

import (
	"fmt"
	"os"
	"strings"

	"github.com/ordering-lsp/ordering-lsp/analysis"
)

// settleMissing decides, once every run of the server is known, how bad
// each missing relationship target is. A class or define analysed alone
// refers to things its real callers declare: a target declared by any
// run of the workspace is fine there. A target that nothing in the
// workspace declares is an error, unless a module absent from the
// workspace could declare it (a hint then).
func (a *analyzer) settleMissing(runs []analysis.Run) {
	// open: the workspace does not hold every module its code uses (a run
	// included a class of a module it does not hold, or the Puppetfile
	// declares one nobody installed).
	open := a.world != nil && a.world.uninstalled(a)
	for _, r := range a.allRuns {
		open = open || r.absent
	}
	// A relationship to a class of a module the workspace does not hold
	// (`require => Class['apache::mod::shib']`) says the same as an
	// include of it: wherever the run compiles, a node declares that
	// class, and its module may declare what else the run refers to
	// (greynolds123/control-repo's shibboleth notifying Service['httpd']).
	refsAbsent := map[*run]string{}
	for _, r := range a.allRuns {
		for _, m := range r.missing {
			if mod, ok := a.absentClassModule(m.ref); ok {
				refsAbsent[r] = mod
				open = true
				break
			}
		}
	}
	a.indexDeclared()
	for _, r := range a.allRuns {
		a.curRun = r.name
		for _, m := range r.missing {
			rf := m.ref
			key := refString(rf.typ, canonTitle(rf.typ, rf.title))
			cls := rf.typ == "Class" && a.lookupClass(canonTitle("Class", rf.title)) != nil
			_, declared := a.declaredKeys[key]
			declared = declared || cls || (a.ms != nil && a.ms.isDeclared(key))
			if !declared {
				for _, p := range a.declaredPats {
					if globMatch(p, key) {
						declared = true
						break
					}
				}
			}
			d := m.d
			if debugRuns {
				d.Message += " [run " + r.name + "]"
			}
			switch {
			case declared && r.synthetic:
				continue
			case a.partial && r.synthetic:
				// What callers declare is only known once every run is:
				// the complete analysis that follows decides.
				continue
			case rf.typ == "Class" && !cls && !a.moduleKnown(canonTitle("Class", rf.title)):
				mod := canonTitle("Class", rf.title)
				if i := strings.Index(mod, "::"); i >= 0 {
					mod = mod[:i]
				}
				sev, why, rel := a.absentModule(mod)
				if sev == analysis.Hint {
					d.Severity = analysis.Hint
				}
				if a.notInstalled(mod) {
					d.Code = codeNotInstalled
				}
				d.Message += " (" + why + ")"
				d.Related = append(d.Related, rel...)
			case r.absent:
				// Something this run declares we cannot see into (a class of
				// an absent module, a site function like role()).
				d.Severity = analysis.Hint
				d.Message += " (it may be declared by code that is not in the workspace)"
			case refsAbsent[r] != "":
				d.Severity = analysis.Hint
				d.Message += fmt.Sprintf(" (module '%s', whose class this refers to, is not in the workspace and may declare it)", refsAbsent[r])
			case r.unknownIncludes:
				// classes the run includes by names only known on the
				// node (a Hiera list: `lookup('classes').include`)
				d.Severity = analysis.Hint
				d.Message += " (classes this run includes by names only known on the node may declare it)"
			case a.uninstalledNamed(rf) != nil:
				// `Service['docker-web']` beside `docker::run { 'web': }` of
				// a module the Puppetfile declares but nobody installed.
				m := a.uninstalledNamed(rf)
				d.Severity = analysis.Hint
				if m.from == "Puppetfile" {
					d.Code = codeNotInstalled
				}
				d.Message += fmt.Sprintf(" (module '%s', which %s declares but the workspace does not hold, may declare it)", m.name, a.displayPath(m.at.URI))
				d.Related = append(d.Related, analysis.Related{At: m.at, Message: fmt.Sprintf("module '%s' is declared here", m.name)})
			case r.synthetic && open:
				// A class analysed alone: its real callers declare what it
				// refers to, and some of the code they may include is not
				// in the workspace.
				d.Severity = analysis.Hint
				d.Message += " (nothing in the workspace declares it; the classes its callers include may, and some modules they use are not in the workspace)"
			}
			if d.Severity == analysis.Error && r.out < len(runs) {
				runs[r.out].Refused = true
			}
			a.addDiag(d)
		}
	}
}

// absentClassModule: rf is a class no file of the workspace defines, of
// a module it does not hold, which may be had (a hint: absentModule); the
// module's name.
func (a *analyzer) absentClassModule(rf *ref) (string, bool) {
	if rf.typ != "Class" {
		return "", false
	}
	name := canonTitle("Class", rf.title)
	if a.lookupClass(name) != nil || a.moduleKnown(name) {
		return "", false
	}
	mod, _, _ := strings.Cut(name, "::")
	if sev, _, _ := a.absentModule(mod); sev != analysis.Hint {
		return "", false
	}
	return mod, true
}

// indexDeclared puts in declaredKeys, of what the runs declare, the keys
// some run's missing target names (only they are looked up): indexing
// every declared key of operations-puppet's 1,129 runs was ~60 ms at the
// end of a check with the other core idle, to look up a few hundred.
func (a *analyzer) indexDeclared() {
	if a.declaredLater == nil {
		return
	}
	want := map[string]bool{}
	for _, r := range a.allRuns {
		for _, m := range r.missing {
			want[refString(m.ref.typ, canonTitle(m.ref.typ, m.ref.title))] = true
		}
	}
	if len(want) == 0 {
		return
	}
	for _, ks := range a.declaredLater {
		for _, k := range ks {
			if want[k] {
				a.declaredKeys[k] = k
			}
		}
	}
	a.declaredLater = nil
}

// debugRuns (ORDERING_LSP_DEBUG_RUNS=1) names the run of each missing
// target, to understand diagnostics on big workspaces.
var debugRuns = os.Getenv("ORDERING_LSP_DEBUG_RUNS") != ""
