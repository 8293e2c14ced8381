package puppet

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/ordering-lsp/ordering-lsp/source"
)

// Where `include x` finds x: the module path (puppet.modulepath, a
// modules/ folder beside or above the entry file, the environment's
// modulepath, the workspace roots) and Puppet's autoload layout
// (x::y in x/manifests/y.pp), loading what the workspace had not.

// setupModulePath lists the folders modules are looked up in, in order.
func (a *analyzer) setupModulePath() {
	seen := map[string]bool{}
	addDir := func(d string) {
		if d == "" || seen[d] {
			return
		}
		seen[d] = true
		a.modpath = append(a.modpath, d)
	}
	base := a.root()
	roots := inferRoots(a.ws, a.req.Files)
	a.roots = roots
	a.world = readWorld(a.ws, roots)
	if mp := a.req.Settings.Get("puppet.modulepath", ""); mp != "" {
		for _, d := range filepath.SplitList(mp) {
			if !filepath.IsAbs(d) {
				if a.req.Entry != "" && base == "" {
					if p := source.URIToPath(a.req.Entry); p != "" {
						base = filepath.Dir(p)
					}
				}
				d = filepath.Join(base, d)
			}
			addDir(filepath.Clean(d))
		}
	}
	// A modules/ folder next to or above the entry file.
	if p := source.URIToPath(a.req.Entry); p != "" {
		for d := filepath.Dir(p); ; d = filepath.Dir(d) {
			if a.ws.IsDir(filepath.Join(d, "modules")) {
				addDir(filepath.Join(d, "modules"))
				break
			}
			if filepath.Dir(d) == d {
				break
			}
		}
	}
	// The environment's own modulepath (environment.conf), then the
	// usual folders.
	for _, d := range a.world.envPath {
		if a.ws.IsDir(d) {
			addDir(d)
		}
	}
	for _, r := range roots {
		for _, sub := range []string{"modules", "site", "site-modules"} {
			if a.ws.IsDir(filepath.Join(r, sub)) {
				addDir(filepath.Join(r, sub))
			}
		}
		addDir(r)
		// A folder of environments (Puppet's environmentpath layout,
		// VanAndelInstitute/Puppet-Environment's environments/win_test):
		// each environment's module folders, after the root's own, so
		// that a Ruby type a module of one ships (registry_value) is
		// known; classes are found by name in any loaded file already.
		if envs := filepath.Join(r, "environments"); a.ws.IsDir(envs) {
			ents, _ := os.ReadDir(envs)
			for _, e := range ents {
				if !e.IsDir() || strings.HasPrefix(e.Name(), ".") {
					continue
				}
				for _, sub := range []string{"modules", "site", "site-modules"} {
					if d := filepath.Join(envs, e.Name(), sub); a.ws.IsDir(d) {
						addDir(d)
					}
				}
			}
		}
		// A module opened at its root.
		if isModuleRoot(a.ws, r) {
			name, named := moduleName(r)
			a.rootMods[name] = r
			if named {
				if a.rootNamed == nil {
					a.rootNamed = map[string]bool{}
				}
				a.rootNamed[r] = true
			}
		}
	}
	mods := moduleDirs(a.modpath)
	a.world.readModuleDeps(a.ws, mods)
	a.world.readCustomFacts(a.ws, mods)
}

// moduleName is the name of the module at root: its metadata's (named),
// else its folder's. The name a module is installed under is the
// installer's (a Puppetfile's `mod 'profile', git: ...`, r10k's folder),
// not its metadata's: a repository with no definition under the
// metadata's name and most of them under one other (treydock's
// umd_hepcms_puppet_profiles: 48 classes profile::..., one osg::cvmfs)
// is installed under that name, and goes by it.
func moduleName(root string) (name string, named bool) {
	if b, err := os.ReadFile(filepath.Join(root, "metadata.json")); err == nil {
		var m struct {
			Name string `json:"name"`
		}
		if json.Unmarshal(b, &m) == nil && m.Name != "" {
			n := m.Name
			if i := strings.LastIndexAny(n, "-/"); i >= 0 {
				n = n[i+1:]
			}
			n = strings.ToLower(n)
			if tops, all := definedTops(filepath.Join(root, "manifests")); tops[n] == 0 {
				for t, c := range tops {
					if 2*c > all {
						n = t
					}
				}
			}
			return n, true
		}
	}
	return strings.ToLower(filepath.Base(root)), false
}

// defLine finds a class or define at the start of a line, and its name's
// first segment.
var defLine = regexp.MustCompile(`(?m)^[ \t]*(?:class|define)[ \t]+(?:::)?([a-z][a-z0-9_]*)(?:::|[ \t{(]|$)`)

// definedTops counts the first segments of the names the .pp files
// under dir define, and all the definitions (a quick look for
// moduleName, a few hundred files at most: a module's manifests/).
func definedTops(dir string) (map[string]int, int) {
	tops, all := map[string]int{}, 0
	n := 0
	_ = filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || n > 500 {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(p, ".pp") {
			return nil
		}
		n++
		if b, err := os.ReadFile(p); err == nil {
			for _, m := range defLine.FindAllSubmatch(b, -1) {
				tops[string(m[1])]++
				all++
			}
		}
		return nil
	})
	return tops, all
}

// autoloadPaths lists where Puppet would look for a class or define.
func (a *analyzer) autoloadPaths(name string) []string {
	mod, rel := autoloadRel(name)
	var out []string
	if r, ok := a.rootMods[mod]; ok {
		out = append(out, filepath.Join(r, "manifests", rel))
	}
	for _, d := range a.modpath {
		out = append(out, filepath.Join(d, mod, "manifests", rel))
	}
	return out
}

func (a *analyzer) autoload(name string) {
	m := a.memo
	m.mu.Lock()
	miss := m.noAutoload[name]
	m.mu.Unlock()
	if miss {
		return
	}
	for _, p := range a.autoloadPaths(name) {
		if a.files[p] != nil {
			continue
		}
		if f := a.ws.Lookup(p); f != nil {
			if a.frozen {
				a.wantLoad = true
				return
			}
			a.main.load(f)
			return
		}
	}
	// Nothing to load now; loading other files never creates one.
	m.mu.Lock()
	m.noAutoload[name] = true
	m.mu.Unlock()
}

// brokenAutoload is the file Puppet would load class name from, when
// the workspace holds it and it has a syntax error (nil otherwise); the
// run depends on its tree from then on.
func (a *analyzer) brokenAutoload(name string) *fileInfo {
	for _, p := range a.autoloadPaths(name) {
		if fi := a.files[p]; fi != nil {
			a.dep('f', fi.uri, func() string { return astID(fi) })
			if len(fi.ast.Errors) > 0 {
				return fi
			}
			return nil
		}
	}
	return nil
}

func (a *analyzer) classFor(r *run, name string) *classInfo {
	ci := a.lookupClass(name)
	if ci == nil {
		a.autoload(name)
		ci = a.classes[name]
	}
	if ci != nil {
		a.dep('c', name, func() string { return astID(ci.file) })
		if ci.misplaced && !r.ownsFile(ci.file) {
			return nil // Puppet never finds it there (location.go; classMissing says where it is)
		}
		if r != nil && len(ci.file.misplaced) > 0 && !r.ownsFile(ci.file) {
			r.loadedFile(ci.file, nil)
		}
	} else {
		a.dep('c', name, func() string { return "" })
	}
	return ci
}

func (a *analyzer) defineFor(r *run, name string) *defineInfo {
	if builtinTypes[name] {
		return nil
	}
	d := a.lookupDefine(name)
	if d == nil {
		a.autoload(name)
		d = a.defines[name]
	}
	if d != nil {
		a.dep('d', name, func() string { return astID(d.file) })
		if d.misplaced && !r.ownsFile(d.file) {
			return nil // Puppet never finds it there (location.go)
		}
		if r != nil && len(d.file.misplaced) > 0 && !r.ownsFile(d.file) {
			r.loadedFile(d.file, nil)
		}
	} else {
		a.dep('d', name, func() string { return "" })
	}
	return d
}

// classFamily lists the classes of the workspace whose names match a
// pattern (a name built from unknown values), sorted.
func (a *analyzer) classFamily(pat string) []string {
	a.dep('g', pat, func() string { return strings.Join(a.classFamily1(pat), ",") })
	return a.classFamily1(pat)
}

func (a *analyzer) classFamily1(pat string) []string {
	m := a.memo
	m.mu.Lock()
	out, ok := m.families[pat]
	m.mu.Unlock()
	if ok {
		return out
	}
	a.needAll()
	for n := range a.classes {
		if globMatch(pat, n) {
			out = append(out, n)
		}
	}
	sort.Strings(out)
	m.mu.Lock()
	m.families[pat] = out
	m.mu.Unlock()
	return out
}

// moduleKnown: the workspace holds the module a class name belongs to,
// so a missing class is a real error rather than an absent dependency.
func (a *analyzer) moduleKnown(name string) bool {
	k := a.moduleKnown1(name)
	a.dep('m', name, func() string { return strconv.FormatBool(k) })
	return k
}

func (a *analyzer) moduleKnown1(name string) bool {
	mod := name
	if i := strings.Index(mod, "::"); i >= 0 {
		mod = mod[:i]
	}
	if _, ok := a.rootMods[mod]; ok {
		return true
	}
	if a.lookupClass(mod) != nil {
		return true
	}
	return a.modDirKnown(mod)
}
