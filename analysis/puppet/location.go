package puppet

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/ordering-lsp/ordering-lsp/analysis"
	"github.com/ordering-lsp/ordering-lsp/source"
)

// Where a definition may live. Puppet checks every class and define of a
// module's manifests/ file against the file's place when it parses the
// file in its environment (checker4_0.rb, internal_check_file_namespace):
// a definition in M/manifests/a/b.pp must have a name that starts with
// "m::a::b" ("m" in M/manifests/init.pp), else the file does not parse:
// "Unacceptable location. The name 'x' is unacceptable in file '...'".
// Such a class is never found either: autoloading it looks in its own
// name's files (m/manifests/a/b.pp, then m/manifests/a.pp, then
// m/manifests/init.pp), and loading the file that holds it fails. A
// class renamed without its file (or the file without its class) is the
// usual cause: `puppet parser validate` with the module path says so, a
// compile says "Could not find class".

// misplacedDef is a definition whose name its file may not hold.
type misplacedDef struct {
	name string
	at   source.Span
	ns   string // what the file's names must start with
}

// fileNamespace is what the names a file defines must start with (ok:
// the file is a module's manifests/ file on the module path; the main
// manifest, the entry file of a one-file analysis and any other file
// are not judged). The first folder of the module path that holds the
// file counts, as in Puppet; a module opened at its root goes by its
// metadata's name.
func (a *analyzer) fileNamespace(fi *fileInfo) (string, bool) {
	p := fi.path
	sep := string(filepath.Separator)
	if p == "" || !strings.HasSuffix(p, ".pp") || !strings.Contains(p, sep+"manifests"+sep) || fi.uri == a.req.Entry || a.envManifest(p) {
		return "", false
	}
	rel := ""
	for mod, r := range a.rootMods {
		if strings.HasPrefix(p, r+sep) {
			if !a.rootNamed[r] {
				return "", false // its folder's name may be any: a clone, a test's
			}
			rel = mod + sep + p[len(r)+1:]
			break
		}
	}
	if rel == "" {
		for _, d := range a.modpath {
			if strings.HasPrefix(p, d+sep) {
				rel = p[len(d)+1:]
				break
			}
		}
	}
	parts := strings.Split(strings.ToLower(rel), sep)
	if len(parts) < 3 || parts[1] != "manifests" {
		return "", false
	}
	names := append([]string{parts[0]}, parts[2:len(parts)-1]...)
	if file := strings.TrimSuffix(parts[len(parts)-1], ".pp"); len(parts) != 3 || file != "init" {
		names = append(names, file)
	}
	return strings.Join(names, "::"), true
}

// unloadable says whether fi lies in a module folder of the module path
// outside the module's manifests/ folder (files/, templates/, a Vagrant
// environment of its own under the module: miraheze's
// mattermost/vagrant/puppet/environments/dev/site/modules): Puppet
// autoloads nothing from there, so what the file defines is found only by
// a compile of that file itself (`puppet apply examples/x.pp`: ownsFile),
// never by a lookup from elsewhere, and gets no run of its own.
func (a *analyzer) unloadable(fi *fileInfo) bool {
	_, ok := a.moduleOutsideManifests(fi)
	return ok
}

// moduleOutsideManifests is unloadable's answer with the module folder
// fi lies in.
func (a *analyzer) moduleOutsideManifests(fi *fileInfo) (string, bool) {
	p := fi.path
	sep := string(filepath.Separator)
	if p == "" || !strings.HasSuffix(p, ".pp") || fi.uri == a.req.Entry || a.envManifest(p) {
		return "", false
	}
	mod, rel := "", ""
	for _, r := range a.rootMods {
		if strings.HasPrefix(p, r+sep) {
			mod, rel = r, p[len(r)+1:]
			break
		}
	}
	if rel == "" {
		for _, d := range a.modpath {
			if strings.HasPrefix(p, d+sep) {
				rel = p[len(d)+1:]
				first, _, _ := strings.Cut(rel, sep)
				mod, rel = filepath.Join(d, first), rel[len(first):]
				rel = strings.TrimPrefix(rel, sep)
				break
			}
		}
	}
	parts := strings.Split(rel, sep)
	if mod == "" || len(parts) < 2 || parts[0] == "manifests" {
		return "", false
	}
	// (a folder of the module path that is a module: it has manifests/,
	// and is no environment: jpazdyga's development/ beside production/,
	// each with its modules/ and manifests/site.pp, under a root read as
	// a module folder)
	if !a.ws.IsDir(filepath.Join(mod, "manifests")) {
		return "", false
	}
	for _, env := range []string{"environment.conf", "modules", filepath.Join("manifests", "site.pp")} {
		if a.ws.Exists(filepath.Join(mod, env)) {
			return "", false
		}
	}
	return mod, true
}

// misplaced says whether a definition named name may not live in fi,
// and the namespace fi requires.
func (a *analyzer) misplaced(fi *fileInfo, name string) (string, bool) {
	ns, ok := a.fileNamespace(fi)
	if !ok || strings.HasPrefix(name, ns) { // (a string prefix, as Puppet's start_with?)
		return "", false
	}
	return ns, true
}

// noteMisplaced records a definition its file may not hold, for
// locationDiags.
func (a *analyzer) noteMisplaced(fi *fileInfo, name string, at source.Span) bool {
	ns, bad := a.misplaced(fi, name)
	if bad {
		fi.misplaced = append(fi.misplaced, misplacedDef{name: name, at: at, ns: ns})
	}
	return bad
}

// locationDiags are Puppet's errors for the definitions a file may not
// hold, with where it would look for each: for every file, after the
// runs. A run that loads the file reported them first (loadedFile), so
// that only some node blocks' runs doing so makes them warnings naming
// those blocks (settleNodeBlocks); a file no run loads keeps the error,
// as a class body's problem in a class nothing declares does.
//
// A file no run loads fails no compile of the workspace: only a compile
// that looks for a name whose file it is (an ENC's class) loads it, so
// it is a warning saying so, unless classes of its namespace live in
// other files (the runs that load it on the way do not record it).
func (a *analyzer) locationDiags(fi *fileInfo, loaded map[source.Span]bool) {
	if len(fi.misplaced) == 0 {
		return
	}
	quiet := !a.nsElsewhere(fi)
	for _, m := range fi.misplaced {
		if loaded[m.at] {
			continue
		}
		d := a.locationDiag(fi, m)
		if quiet {
			d.Severity = analysis.Warning
			d.Message += fmt.Sprintf(" (only where a compile looks for %s: nothing in the workspace does)", m.ns)
		}
		a.addDiag(d)
	}
}

func (a *analyzer) locationDiag(fi *fileInfo, m misplacedDef) analysis.Diagnostic {
	return analysis.Diagnostic{At: m.at, Severity: analysis.Error, Code: "location",
		Message: fmt.Sprintf("Unacceptable location. The name '%s' is unacceptable in file '%s' (this file may only define names under %s; Puppet looks for %s in %s)",
			m.name, a.displayPath(fi.uri), m.ns, m.name, autoloadFile(m.name))}
}

// loadedFile notes that run r made Puppet load fi, where it found a
// definition it looked for: Puppet validates the whole file then, and
// each definition fi may not hold fails r's compile (catlee's
// perl::module::install, loaded only by node centos). Not deduplicated:
// a class body's recording (defmemo.go) must hold the diagnostics its
// replays add, and the merge keeps one of each.
//
// Looking for a class a::b::c, Puppet loads a's init.pp and a/b.pp on
// the way (a lookup of foo::bar failed on foo/manifests/init.pp's
// misplaced class), which the runs do not record: a file whose
// namespace has classes in other files may be loaded by runs that never
// looked for what it defines, and keeps the error for every node.
//
// e is the place that made the lookup when it is a declaration (nil: a
// lookup made elsewhere): under a branch nobody decides, the compile
// fails only where the branch is taken, a warning saying when.
func (r *run) loadedFile(fi *fileInfo, e *env) {
	if r.a.nsElsewhere(fi) {
		return
	}
	for _, m := range fi.misplaced {
		d := r.a.locationDiag(fi, m)
		if e != nil && e.spec && !r.strict {
			d.Severity = analysis.Warning
			d.Message += " (" + r.specWhen(e) + ")"
		}
		r.diag(d.At, d.Severity, d.Code, d.Message)
	}
}

// nsElsewhere says whether classes of fi's namespace live in other
// files: runs may load fi on the way to them without recording it.
func (a *analyzer) nsElsewhere(fi *fileInfo) bool {
	for _, c := range a.classFamily(fi.misplaced[0].ns + "::*") {
		if ci := a.classes[c]; ci != nil && ci.file != fi {
			return true
		}
	}
	return false
}

// missedAutoload notes what a declaration of a class or type name that
// nothing defines loads: Puppet still reads the file where it looks for
// the name, and if that file holds definitions it may not (relayd's
// freebsd.pp defining ospfd::freebsd), validating it fails the compile
// there (faust64/puppet, on the FreeBSD nodes only).
func (r *run) missedAutoload(name string, e *env) {
	for _, p := range r.a.autoloadPaths(name) {
		if fi := r.a.files[p]; fi != nil {
			r.a.dep('f', fi.uri, func() string { return astID(fi) })
			if len(fi.misplaced) > 0 && !r.ownsFile(fi) {
				r.loadedFile(fi, e)
			}
			return
		}
	}
}

// ownsFile says whether fi is r's main manifest (`puppet apply FILE` of a
// module file with code outside its definitions, jsh's users/init.pp):
// Puppet registers every definition of the main manifest, whatever its
// name, and validates no file namespace there.
// A body recorded while the answer was so is not replayed elsewhere.
func (r *run) ownsFile(fi *fileInfo) bool {
	if r == nil || r.entry == "" || fi.uri != r.entry {
		return false
	}
	r.recFail()
	return true
}

// autoloadRel is where Puppet first looks for a class or define: its
// module, and the file relative to the module's manifests/ folder.
func autoloadRel(name string) (mod, rel string) {
	parts := strings.Split(name, "::")
	if len(parts) == 1 {
		return parts[0], "init.pp"
	}
	return parts[0], filepath.Join(parts[1:]...) + ".pp"
}

// autoloadFile is that file relative to the module path.
func autoloadFile(name string) string {
	mod, rel := autoloadRel(name)
	return filepath.Join(mod, "manifests", rel)
}

// notFoundThere is what a "Could not find class" or an "Unknown resource
// type" adds for a definition its file may not hold, and the place it
// points at.
func (a *analyzer) notFoundThere(name string, file *fileInfo, decl source.Span) (string, analysis.Related) {
	return fmt.Sprintf(" (it is defined in %s, where Puppet does not look for it: it loads %s from %s)", a.displayPath(file.uri), name, autoloadFile(name)),
		analysis.Related{At: decl, Message: "defined here, in a file that may not hold it"}
}

// preferDef says whether a definition (misplaced: bad, in a file loaded
// at seq) replaces the one indexed under its name: one where Puppet
// finds it wins, then the earlier file.
func preferDef(oldBad bool, oldSeq int, bad bool, seq int) bool {
	return oldBad && !bad || oldBad == bad && seq < oldSeq
}

// misplacedDefine is Puppet's error for a resource of a defined type
// whose file may not hold it: nothing else defines the type, so Puppet
// does not know it ("Unknown resource type"), on the nodes that reach
// the declaration.
func (r *run) misplacedDefine(e *env, d *defineInfo, at source.Span) {
	note, rel := r.a.notFoundThere(d.name, d.file, d.node.Decl)
	msg := fmt.Sprintf("Unknown resource type: '%s'", d.name) + note
	sev := analysis.Error
	if e.spec && !r.strict {
		msg += " (" + r.specWhen(e) + ")"
		sev = analysis.Warning
	}
	r.diag(at, sev, "unknown-type", msg, rel)
}

// misplacedAutoload is the file Puppet loads name from when it holds
// definitions it may not (and not name: a lookup that found nothing).
func (a *analyzer) misplacedAutoload(name string) *fileInfo {
	for _, p := range a.autoloadPaths(name) {
		if fi := a.files[p]; fi != nil {
			if len(fi.misplaced) > 0 && !a.nsElsewhere(fi) {
				return fi
			}
			return nil
		}
	}
	return nil
}

// missedType is missedAutoload for a resource type nothing defines; true.
func (r *run) missedType(e *env, name string) bool {
	r.missedAutoload(name, e)
	return true
}
