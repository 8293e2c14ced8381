// Package salt lowers Salt states (SLS files) into the neutral graph and
// computes the order Salt 3006/3007 runs them in: the steps of
// salt/state.py (render_state, reconcile_extend, verify_high,
// requisite_in, apply_exclude, compile_high_data, order_chunks,
// call_chunks, call_listen) modelled on the parsed files, without
// executing anything.
package salt

import (
	"hash/maphash"
	"io/fs"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/ordering-lsp/ordering-lsp/analysis"
	"github.com/ordering-lsp/ordering-lsp/internal/lazyre"
	sp "github.com/ordering-lsp/ordering-lsp/parser/salt"
	"github.com/ordering-lsp/ordering-lsp/source"
	"gopkg.in/yaml.v3"
)

// System is the Salt system. It keeps parsed files between calls.
type System struct {
	cache *parseCache
	mu    sync.Mutex
	files map[sfileKey]*sfile
	runs  map[string]*runRecord
	// gen counts analyses; what the last two did not use is dropped, so
	// a long editing session keeps one workspace's worth of caches
	gen     int
	fileGen map[sfileKey]int
	// last is the latest record of each run (by name, entry and
	// settings), the base an edit's record is patched from
	last map[string]*runRecord
	// patched counts runs patched instead of computed (for tests)
	patched int
	// facts: the minion's grains and pillar (salt.facts), as JSON for the
	// renderer; "" when not given (they are unknown)
	facts string
	// cfgLocal: the file roots in the workspace the repository's
	// configuration names (last analysis), for completion
	cfgLocal []string
	// cfgMounts: the inferred mount points of file roots (inferMount)
	cfgMounts  map[string]string
	mountCache mountCache
	// cfgFiles: the configuration files found under each repository
	// folder, and for which set of analysed files
	cfgFiles map[string]cfgFileList
	// views: the last texts parsed for tokens and layout edits (viewParse)
	views []viewEntry
}

// evict drops cached files, parses and runs the last two analyses did
// not use.
func (s *System) evict() {
	s.mu.Lock()
	for k, g := range s.fileGen {
		if g < s.gen-1 {
			delete(s.fileGen, k)
			delete(s.files, k)
		}
	}
	for k, r := range s.runs {
		if r.gen < s.gen-1 {
			delete(s.runs, k)
		}
	}
	for k, r := range s.last {
		if r.gen < s.gen-1 {
			delete(s.last, k)
		}
	}
	s.mu.Unlock()
	s.cache.evict(s.gen)
}

// New makes the Salt system.
func New() analysis.System {
	return &System{cache: newParseCache(), files: map[sfileKey]*sfile{}, runs: map[string]*runRecord{}, fileGen: map[sfileKey]int{}, last: map[string]*runRecord{}}
}

func (s *System) Name() string { return "salt" }

// Owns claims *.sls files, except pillar trees (pillar SLS files hold
// data, not states).
func (s *System) Owns(path string, head func() []byte) bool {
	if !strings.HasSuffix(path, ".sls") {
		return false
	}
	p := filepath.ToSlash(path)
	segs := strings.Split(filepath.ToSlash(filepath.Dir(p)), "/")
	for _, seg := range segs {
		if pillarFolder(seg) {
			return false
		}
	}
	// a formula's test pillar (openSUSE/salt-formulas' */tests/pillar.sls,
	// read by the tests' conftest.py: `grains: {treats: [chocolate,
	// candy]}` read as a malformed grains state)
	if d := segs[len(segs)-1]; filepath.Base(p) == "pillar.sls" && (d == "test" || d == "tests") {
		return false
	}
	return true
}

// pillarFolder: a folder of pillar data by its name: pillar/, pillars/,
// or a copy kept beside them (tony/salt-states-configs' pillar.old/,
// pillar-example/, ffho's example-pillar/: data in SLS syntax whose
// lists read as malformed states).
func pillarFolder(name string) bool {
	for _, base := range []string{"pillar", "pillars"} {
		if rest, ok := strings.CutPrefix(name, base); ok && (rest == "" || strings.ContainsAny(rest[:1], ".-_")) {
			return true
		}
		// or after them: FreifunkHochstift/ffho-salt-public's
		// Documentation/example-pillar/ (a pillar top.sls and data
		// whose mappings read as 28 malformed states)
		if rest, ok := strings.CutSuffix(name, base); ok && rest != "" && strings.ContainsAny(rest[len(rest)-1:], ".-_") {
			return true
		}
	}
	return false
}

// Reads: the files besides states an analysis reads: Jinja imports and
// data (map.jinja, defaults.yaml), pillar SLS, the master's and minion's
// configuration (file roots, gitfs), a minion data file.
func (s *System) Reads(path string) bool {
	p := filepath.ToSlash(path)
	switch filepath.Ext(p) {
	case ".sls", ".jinja", ".j2", ".yaml", ".yml", ".json":
		return true
	case ".conf":
		return strings.Contains(p, "/master.d/") || strings.Contains(p, "/minion.d/")
	}
	b := filepath.Base(p)
	return b == "master" || b == "minion"
}

func (s *System) Flags() []analysis.Flag {
	return []analysis.Flag{{Name: "salt-facts", Key: "salt.facts",
		Help: "YAML/JSON file of the minion's data, {grains: {...}, pillar: {...}}: decides the Jinja conditions on them, as `order` shows that minion's run", Path: true},
		{Name: "minions", Key: "salt.minions",
			Help: "folder of minion data, DIR/<minion id>/grains.json + pillar.json (salt-call --local grains.items / pillar.items --out json) or DIR/<minion id>.json {grains, pillar}: check reports each problem with the minions it occurs on; with --node, that minion's highstate", Path: true},
		{Name: "file-root", Key: "salt.fileRoot",
			Help: "Salt file_roots folder (default: the nearest folder above the file holding top.sls, else the folder where the SLS names the file writes resolve, else above its init.sls packages, else the file's folder)", Path: true}}
}

// tree is one file root.
type tree struct {
	mu   sync.Mutex // runs compile in parallel
	s    *System
	root string
	// roots: the file roots of root's saltenv, root among them, in the
	// order Salt looks a file up in them (salt/fileserver/roots.py
	// find_file: the first root holding the file wins; the fileclient's
	// get_state asks for x.sls in every root before x/init.sls): the
	// roots are merged file by file, a folder in one hides nothing in
	// another. [root] unless the configuration names several.
	roots []string
	// mount: the folder root is served as (inferMount): its SLS names,
	// Jinja paths and salt:// paths all begin with it
	mount string
	env   string // the saltenv of the roots, "" when no configuration names it
	// envTrees: the roots of every saltenv the configuration names in
	// the workspace (shared, read-only while runs compile)
	envTrees map[string]*tree
	cfg      *cfgRoots // the repository's configuration of file roots
	scopes   []string  // the repository folders (for display)
	ws       *source.Workspace
	bySlsM   map[string]*sfile
	byPath   map[string]*sfile
	avails   []string
	availOK  bool
}

// display names the file root for messages: its folder in the repository
// ("salt/", "./" for the repository's own folder), else its path.
func (t *tree) display() string {
	for _, sc := range t.scopes {
		if t.root == sc {
			return "./"
		}
		if rel, err := filepath.Rel(sc, t.root); err == nil && !strings.HasPrefix(rel, "..") {
			return filepath.ToSlash(rel) + "/"
		}
	}
	return t.root
}

func (t *tree) bySLS(name string) *sfile {
	t.mu.Lock()
	defer t.mu.Unlock()
	if f, ok := t.bySlsM[name]; ok {
		return f
	}
	var f *sfile
	if name != "" && !strings.Contains(name, sp.Unknown) && !strings.Contains(name, "..") && !strings.HasPrefix(name, "/") {
	find:
		for _, p := range t.slsPaths(name) {
			for _, r := range t.rootList() {
				if f = t.loadIn(filepath.Join(r, p), r); f != nil {
					break find
				}
			}
		}
	}
	t.bySlsM[name] = f
	return f
}

// slsPaths: where SLS name may live, relative to a root of the tree
// (NAME.sls before NAME/init.sls); a mounted root serves only names under
// its mount point (the mount point itself is its init.sls).
func (t *tree) slsPaths(name string) []string {
	if t.mount != "" {
		if name == t.mount {
			return []string{"init.sls"}
		}
		rest, ok := strings.CutPrefix(name, t.mount+".")
		if !ok {
			return nil
		}
		name = rest
	}
	rel := filepath.FromSlash(strings.ReplaceAll(name, ".", "/"))
	return []string{rel + ".sls", filepath.Join(rel, "init.sls")}
}

func (t *tree) rootList() []string {
	if len(t.roots) == 0 {
		return []string{t.root}
	}
	return t.roots
}

// ownsPkg reports whether a root holds package top's own SLS (top.sls
// or top/init.sls), not only files under its folder.
func (t *tree) ownsPkg(top string) bool {
	if t.mount != "" {
		return top == t.mount
	}
	for _, p := range t.slsPaths(top) {
		for _, r := range t.rootList() {
			if t.ws.Exists(filepath.Join(r, p)) {
				return true
			}
		}
	}
	return false
}

// hasFolder reports whether some root of the tree has a folder top.
func (t *tree) hasFolder(top string) bool {
	for _, r := range t.rootList() {
		if t.ws.Exists(filepath.Join(r, top)) {
			return true
		}
	}
	return false
}

// hasPkg reports whether some root of the tree holds package top (top.sls,
// or a folder holding SLS files).
func (t *tree) hasPkg(top string) bool {
	if t.mount != "" {
		return top == t.mount
	}
	if t.ownsPkg(top) {
		return true
	}
	if !t.hasFolder(top) {
		return false
	}
	// a folder of the root is a package when it holds SLS files; one of
	// files only (certificates, a salt/files/minion.d/ that states serve
	// from salt://) is not: ugns/salt-states has cert/ and salt/ so, and
	// its top file's cert and salt.minion come from other roots
	for _, n := range t.avail() {
		if n == top || strings.HasPrefix(n, top+".") {
			return true
		}
	}
	return false
}

// displayAll names every root of the tree.
func (t *tree) displayAll() string {
	if len(t.roots) < 2 {
		return t.display()
	}
	var out []string
	for _, r := range t.roots {
		out = append(out, (&tree{root: r, scopes: t.scopes}).display())
	}
	return strings.Join(out, ", ")
}

func (t *tree) load(path string) *sfile {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.loadLocked(path)
}

func (t *tree) loadLocked(path string) *sfile {
	root := t.root
	for _, r := range t.roots {
		if strings.HasPrefix(path, r+string(filepath.Separator)) && len(r) > len(root) {
			root = r // a file of another root of the saltenv
		}
	}
	return t.loadIn(path, root)
}

// loadIn loads a file of root (one of the tree's roots).
func (t *tree) loadIn(path, root string) *sfile {
	if f, ok := t.byPath[path]; ok {
		return f
	}
	var sf *sfile
	if file := t.ws.Lookup(path); file != nil {
		sf = t.s.newFile(file, root, t.mount)
	}
	t.byPath[path] = sf
	return sf
}

func (s *System) newFile(file *source.File, root, mount string) *sfile {
	sls, init := slsName(root, mount, file.Path)
	if file.Path == "" {
		sls = strings.TrimSuffix(filepath.Base(file.URI), ".sls")
	}
	// A file read before with the same text and root is reused whole:
	// an edit lowers one file, not the tree.
	key := sfileKey{file.URI, root, mount, maphash.Bytes(seed, file.Text), len(file.Text), s.facts}
	s.mu.Lock()
	if f, ok := s.files[key]; ok {
		s.fileGen[key] = s.gen
		s.mu.Unlock()
		return f
	}
	s.mu.Unlock()
	f := &sfile{file: file, root: root, mount: mount, sls: sls, init: init, comments: &commentSpans{}}
	vars := templateVars(root, mount, file.Path, sls)
	if s.facts != "" {
		vars[sp.FactsVar] = s.facts
	}
	f.p = s.cache.parse(file.Text, vars)
	s.read(f)
	s.mu.Lock()
	s.files[key] = f
	s.fileGen[key] = s.gen
	s.mu.Unlock()
	return f
}

type sfileKey struct {
	uri, root, mount string
	h                uint64
	n                int
	facts            string
}

// avail lists the SLS names under the root (for include and sls globs).
func (t *tree) avail() []string {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.availOK {
		return t.avails
	}
	t.availOK = true
	seen := map[string]bool{}
	for _, root := range t.rootList() {
		_ = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return nil
			}
			if d.IsDir() {
				if p != root && strings.HasPrefix(d.Name(), ".") {
					return filepath.SkipDir
				}
				return nil
			}
			if strings.HasSuffix(p, ".sls") {
				n, _ := slsName(root, t.mount, p)
				seen[n] = true
			}
			return nil
		})
		for _, o := range t.ws.Overlays() {
			if o.Path != "" && strings.HasPrefix(o.Path, root+string(filepath.Separator)) && strings.HasSuffix(o.Path, ".sls") {
				n, _ := slsName(root, t.mount, o.Path)
				seen[n] = true
			}
		}
	}
	for n := range seen {
		t.avails = append(t.avails, n)
	}
	sort.Strings(t.avails)
	return t.avails
}

// elsewhere reports whether an SLS this tree lacks exists under another
// plausible file root: a folder above this root, up to a workspace root
// (wuxxin/salt-shared's old/ tree includes code.python, which lives at
// the repository root). The file root is inferred, so a name found there
// is not reported missing; what it declares stays unknown.
func (t *tree) elsewhere(sls string) bool {
	if t.root == "" {
		return false
	}
	rel := filepath.FromSlash(strings.ReplaceAll(sls, ".", "/"))
	roots := t.ws.Roots()
	within := func(d string) bool {
		for _, r := range roots {
			if d == r || strings.HasPrefix(d, r+string(filepath.Separator)) {
				return true
			}
		}
		return false
	}
	// Without workspace folders (the command line), up to the repository
	// root (the folder holding .git), at most 8 folders up.
	d := filepath.Dir(t.root)
	for i := 0; i < 8 && (len(roots) == 0 || within(d)); i++ {
		if t.ws.Exists(filepath.Join(d, rel+".sls")) || t.ws.Exists(filepath.Join(d, rel, "init.sls")) {
			return true
		}
		p := filepath.Dir(d)
		if p == d || (len(roots) == 0 && t.ws.Exists(filepath.Join(d, ".git"))) {
			break
		}
		d = p
	}
	return false
}

// rootOf finds the file root of a path: the setting, else the nearest
// folder holding top.sls, else the folder from which the SLS names the
// file itself writes (includes, sls: requisites) resolve, else the parent
// of the outermost chain of folders holding init.sls (a formula's
// package), else the file's folder.
func (a *analyzer) rootOf(path string) string {
	a.mu.Lock()
	r, ok := a.rootCache[path]
	a.mu.Unlock()
	if ok {
		return r
	}
	var local []string
	if a.cfg != nil {
		local = a.cfg.local
	}
	for m := range a.mounts {
		local = append(slices.Clip(local), m)
	}
	r = rootOf(a.req.Workspace, path, a.setting, local)
	a.mu.Lock()
	a.rootCache[path] = r
	a.mu.Unlock()
	return r
}

var slsNameRe = lazyre.New(`(?m)^\s*-\s+(?:sls:\s*)?([A-Za-z0-9_][\w\-]*(?:\.[\w\-]+)*)\s*$`)

// formulaRoot is the nearest folder X-formula above dir (or dir itself)
// whose X/ holds dir, or "".
func formulaRoot(dir string) string {
	for d := dir; ; {
		p := filepath.Dir(d)
		if p == d {
			return ""
		}
		if name, ok := strings.CutSuffix(filepath.Base(p), "-formula"); ok && name != "" && filepath.Base(d) == name {
			return p
		}
		d = p
	}
}

// namesHere: an SLS name (`- bind_mounts`) or a Jinja path the text
// writes resolves from dir, so dir serves it whatever salt:// paths say
// (neg-serg/salt's states/mpd.sls includes bind_mounts beside it and
// serves salt://dotfiles/..., a second root's: the repository's).
func namesHere(ws *source.Workspace, dir, path string, text []byte) bool {
	for _, m := range slsNameRe.FindAllSubmatch(text, 64) {
		rel := filepath.FromSlash(strings.ReplaceAll(string(m[1]), ".", "/"))
		if f1, f2 := filepath.Join(dir, rel+".sls"), filepath.Join(dir, rel, "init.sls"); f1 != path && ws.Exists(f1) || f2 != path && ws.Exists(f2) {
			return true
		}
	}
	for _, m := range jinjaPathRe.FindAllSubmatch(text, 64) {
		if ws.Exists(filepath.Join(dir, filepath.FromSlash(string(m[1])))) {
			return true
		}
	}
	return false
}

// servedFrom is the folder at or above dir from which most of the
// salt:// paths text writes resolve to a file or folder of the
// workspace (several folders: the one more paths name; a tie: the
// nearest), or "".
func servedFrom(ws *source.Workspace, dir string, text []byte) string {
	var votes rootVotes
	for _, m := range saltURLRe.FindAllSubmatch(text, 64) {
		rel := filepath.FromSlash(strings.TrimSuffix(string(m[1]), "/"))
		if rel == "" || strings.HasPrefix(rel, "..") {
			continue
		}
		votes.climb(dir, func(d string) bool { return ws.Exists(filepath.Join(d, rel)) })
	}
	return votes.best
}

// rootVotes counts, per folder, the names a file writes that resolve
// there (servedFrom's salt:// paths, the SLS names rootOf reads).
type rootVotes struct {
	n     map[string]int
	best  string // the most voted; of several, the nearest the file
	bestN int
}

// climb votes for the first folder from dir up (8 at most) where found
// holds.
func (v *rootVotes) climb(dir string, found func(d string) bool) {
	for d, i := dir, 0; i < 8; i++ {
		if found(d) {
			if v.n == nil {
				v.n = map[string]int{}
			}
			v.n[d]++
			if v.n[d] > v.bestN || v.n[d] == v.bestN && len(d) > len(v.best) {
				v.best, v.bestN = d, v.n[d]
			}
			return
		}
		p := filepath.Dir(d)
		if p == d {
			return
		}
		d = p
	}
}

// spmRoot is the nearest folder above dir (or dir itself) holding a
// FORMULA file (SPM's formula metadata) whose top_level_dir (else its
// name) is the folder dir lies in, or "": the formula is served from
// there. lkubb/salt-tool-macos-formula names top_level_dir tool_macos;
// its tool_macos/settings/touch/multi_helper/pinch/init.sls, whose
// includes are all template output (`{{ tplroot }}._onchanges`), was
// read with multi_helper/ as the root and its includes as
// pinch._onchanges. Metadata beats the votes of the names a file
// writes: settings-todo/safari/autofill/clean.sls includes
// address-book.clean, which only autofill/ as the root would serve.
func spmRoot(ws *source.Workspace, dir string) string {
	for d, i := dir, 0; i < 8; i++ {
		p := filepath.Dir(d)
		if p == d {
			return ""
		}
		if f := ws.Lookup(filepath.Join(p, "FORMULA")); f != nil {
			var meta struct {
				Name        string `yaml:"name"`
				TopLevelDir string `yaml:"top_level_dir"`
			}
			if yaml.Unmarshal(f.Text, &meta) != nil {
				return ""
			}
			top := meta.TopLevelDir
			if top == "" {
				top = meta.Name
			}
			if top != "" && filepath.Base(d) == top {
				return p
			}
			return ""
		}
		d = p
	}
	return ""
}

func rootOf(ws *source.Workspace, path string, setting string, configured []string) string {
	if setting != "" {
		if abs, err := filepath.Abs(setting); err == nil {
			return abs
		}
		return setting
	}
	dir := filepath.Dir(path)
	// a file root the repository's own configuration names (the deepest
	// holding the file)
	best := ""
	for _, r := range configured {
		if (dir == r || strings.HasPrefix(dir, r+string(filepath.Separator))) && len(r) > len(best) {
			best = r
		}
	}
	if best != "" {
		return best
	}
	for d := dir; ; {
		if ws.Exists(filepath.Join(d, "top.sls")) {
			return d
		}
		p := filepath.Dir(d)
		if p == d {
			break
		}
		d = p
	}
	// the formula's own metadata says where it is served from
	if r := spmRoot(ws, dir); r != "" {
		return r
	}
	// the SLS names the file writes: where do their first components live?
	if f := ws.Lookup(path); f != nil {
		// Dotted names are strong evidence; single words (list items like
		// `- user`) count only when there is nothing else.
		var votes rootVotes
		seen := map[string]bool{}
		var names []string
		for _, m := range slsNameRe.FindAllSubmatch(f.Text, 64) {
			if n := string(m[1]); strings.Contains(n, ".") && !seen[n] {
				seen[n] = true
				names = append(names, n)
			}
		}
		for _, n := range names {
			rel := filepath.FromSlash(strings.ReplaceAll(n, ".", "/"))
			// a name that resolves to the file itself is no evidence
			// (openSUSE/salt-formulas' infrastructure/salt/minion.sls
			// includes salt.minion, salt-formula's)
			votes.climb(dir, func(d string) bool {
				f1, f2 := filepath.Join(d, rel+".sls"), filepath.Join(d, rel, "init.sls")
				return f1 != path && ws.Exists(f1) || f2 != path && ws.Exists(f2)
			})
		}
		if votes.best != "" {
			return votes.best
		}
		// the saltstack-formulas layout X-formula/X/...: the formula's
		// folder is the root its package is served from
		// (openSUSE/salt-formulas' infrastructure-formula/infrastructure/salt/podman.sls
		// is infrastructure.salt.podman: taken for the root, its own
		// folder made it 'podman' and its include of podman.containers,
		// another formula's, a missing file of its own package)
		if r := formulaRoot(dir); r != "" {
			return r
		}

		// dotted names that resolve nowhere, but start with the name of
		// a folder the file is in: that folder is a package of the
		// root above it (microdevops-com/microdevops-formula's
		// vim/vim.sls includes vim, vim.salt and vim.nerdtree, none
		// there: taken for the root, vim/ made the file 'vim' and
		// its include of 'vim' itself, which Salt refuses)
		for _, m := range slsNameRe.FindAllSubmatch(f.Text, 64) {
			first, _, dotted := strings.Cut(string(m[1]), ".")
			for d := dir; dotted; {
				if filepath.Base(d) == first && !ws.Exists(filepath.Join(d, "init.sls")) {
					return filepath.Dir(d)
				}
				p := filepath.Dir(d)
				if p == d {
					break
				}
				d = p
			}
		}
	}
	// the files it serves: `source: salt://graylog2/graylog2.jinja2` in
	// hvnsweeting/saltstates' graylog2/server.sls lies under the folder
	// above graylog2/, which it is served from (it was read as SLS
	// 'server', with graylog2/ as the root)
	if f := ws.Lookup(path); f != nil && !namesHere(ws, dir, path, f.Text) {
		if r := servedFrom(ws, dir, f.Text); r != "" {
			return r
		}
	}
	d := dir
	for i := 0; i < 32 && ws.Exists(filepath.Join(d, "init.sls")); i++ {
		p := filepath.Dir(d)
		if p == d {
			break
		}
		d = p
	}
	return d
}
