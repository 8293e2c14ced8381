// Package salt lowers Salt states (SLS files) into the neutral graph and
// computes the order Salt 3006/3007 runs them in: the steps of
// salt/state.py (render_state, reconcile_extend, verify_high,
// requisite_in, apply_exclude, compile_high_data, order_chunks,
// call_chunks, call_listen) modelled on the parsed files, without
// executing anything.
package salt

import (
	"bytes"
	"fmt"
	"hash/maphash"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/ordering-lsp/ordering-lsp/analysis"
	"github.com/ordering-lsp/ordering-lsp/internal/lazyre"
	sp "github.com/ordering-lsp/ordering-lsp/parser/salt"
	"github.com/ordering-lsp/ordering-lsp/source"
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
	for _, seg := range strings.Split(filepath.ToSlash(filepath.Dir(p)), "/") {
		if pillarFolder(seg) {
			return false
		}
	}
	return true
}

// pillarFolder: a folder of pillar data by its name: pillar/, pillars/,
// or a copy kept beside them (tony/salt-states-configs' pillar.old/,
// pillar-example/: data in SLS syntax whose lists read as malformed
// states).
func pillarFolder(name string) bool {
	for _, base := range []string{"pillar", "pillars"} {
		if rest, ok := strings.CutPrefix(name, base); ok && (rest == "" || strings.ContainsAny(rest[:1], ".-_")) {
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
		Help: "YAML/JSON file of the minion's data, {grains: {...}, pillar: {...}}: decides the Jinja conditions on them, as `order` shows that minion's run"},
		{Name: "minions", Key: "salt.minions",
			Help: "folder of minion data, DIR/<minion id>/grains.json + pillar.json (salt-call --local grains.items / pillar.items --out json) or DIR/<minion id>.json {grains, pillar}: check reports each problem with the minions it occurs on; with --node, that minion's highstate"},
		{Name: "file-root", Key: "salt.fileRoot",
			Help: "Salt file_roots folder (default: the nearest folder above the file holding top.sls, else the folder where the SLS names the file writes resolve, else above its init.sls packages, else the file's folder)"}}
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

// hasPkg reports whether some root of the tree holds package top (a
// folder or top.sls).
func (t *tree) hasPkg(top string) bool {
	if t.mount != "" {
		return top == t.mount
	}
	for _, r := range t.rootList() {
		if t.ws.Exists(filepath.Join(r, top)) || t.ws.Exists(filepath.Join(r, top+".sls")) {
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
	// the SLS names the file writes: where do their first components live?
	if f := ws.Lookup(path); f != nil {
		// Dotted names are strong evidence; single words (list items like
		// `- user`) count only when there is nothing else.
		votes := map[string]int{}
		best, bestN := "", 0
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
			d := dir
			for i := 0; i < 8; i++ {
				if ws.Exists(filepath.Join(d, rel+".sls")) || ws.Exists(filepath.Join(d, rel, "init.sls")) {
					votes[d]++
					if votes[d] > bestN || votes[d] == bestN && len(d) > len(best) {
						best, bestN = d, votes[d]
					}
					break
				}
				p := filepath.Dir(d)
				if p == d {
					break
				}
				d = p
			}
		}
		if best != "" {
			return best
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

// Analyze builds the graph, runs and diagnostics: for the minion
// ordering.node names when it is set, for every minion of salt.minions
// when only the diagnostics are wanted (check), else for a machine
// matching every target.
func (s *System) Analyze(req *analysis.Request) *analysis.Result {
	res := s.analyzeRequest(req)
	analysis.WriteLines(res, req.Workspace) // the lines its words name (where)
	return res
}

func (s *System) analyzeRequest(req *analysis.Request) *analysis.Result {
	ms := loadMinions(req)
	id := nodeSetting(req.Settings)
	if id != "" && req.Entry != "" && req.Workspace != nil {
		// `order --node web1 DIR`: the highstate of the folder's top file
		if p := source.URIToPath(req.Entry); p != "" && req.Workspace.IsDir(p) {
			if top := filepath.Join(p, "top.sls"); req.Workspace.Exists(top) {
				r := *req
				r.Entry = source.PathToURI(top)
				req = &r
			}
		}
	}
	if id == "" && ms != nil && len(ms.minions) > 0 && req.DiagnosticsOnly {
		return s.analyzeMinions(req, ms)
	}
	var node *minionData
	if id != "" {
		if ms != nil {
			node = ms.byID(id)
		}
		if node == nil {
			// no data: the id alone decides glob, list and pcre targets
			node = &minionData{minion: minion{id: id}}
		}
	}
	res := s.analyze(req, node)
	s.minionDiags(req, res, ms, id, node)
	return res
}

// analyze is one analysis, for node when it is not nil.
func (s *System) analyze(req *analysis.Request, node *minionData) *analysis.Result {
	s.mu.Lock()
	s.gen++
	s.cache.gen = s.gen
	s.mu.Unlock()
	defer s.evict()
	a := &analyzer{s: s, req: req, mu: &sync.Mutex{}, res: &analysis.Result{}, nodes: map[nodeKey]*analysis.Node{},
		edges: map[edgeKey]*analysis.Edge{}, links: map[source.Span]*linkAcc{}, diags: map[string]bool{},
		fileDiag: map[*sfile]bool{}, rootCache: map[string]string{}, dataFiles: map[*sfile]bool{}, topFrag: map[string]bool{},
		ctx: map[string]*ctxDiag{}, runFiles: map[string]int{},
		master: req.Settings.Get("salt.engine", "3007") == "master",
		auto:   req.Settings.Bool("salt.stateAutoOrder", true)}
	setting := req.Settings.Get("salt.fileRoot", "")
	a.setting = setting
	scopes := repoScopes(req.Workspace, req.Files)
	if setting == "" {
		a.cfg = s.readConfigRoots(req.Workspace, scopes, filesSig(req.Files), req.Files)
		a.mounts = mountsOf(req.Workspace, scopes, req.Files, a.cfg, &s.mountCache)
	}
	s.mu.Lock()
	s.cfgLocal = nil
	if a.cfg != nil {
		s.cfgLocal = a.cfg.local
	}
	s.cfgMounts = a.mounts
	s.mu.Unlock()
	a.minion = node
	if node != nil {
		a.nodegroups = s.readNodegroups(req, scopes)
	}
	s.facts = loadFacts(req)
	if node != nil && node.facts != "" {
		s.facts = node.facts
	}
	trees := map[string]*tree{}
	a.trees = trees
	treeOf := func(root string) *tree {
		t := trees[root]
		if t == nil {
			t = &tree{s: s, root: root, mount: a.mounts[root], ws: req.Workspace, bySlsM: map[string]*sfile{}, byPath: map[string]*sfile{}, cfg: a.cfg, scopes: scopes}
			if a.cfg != nil {
				t.env, t.roots = a.cfg.envOf(root)
				if len(t.roots) < 2 {
					t.roots = nil
				}
			}
			t.envTrees = a.envTrees
			trees[root] = t
		}
		return t
	}
	// the roots of each saltenv the configuration names in the
	// workspace: an include or top entry of another saltenv is looked
	// up there
	if a.cfg != nil {
		a.envTrees = map[string]*tree{}
		for _, e := range a.cfg.envs {
			if roots := a.cfg.envRoots(e.name); len(roots) > 0 {
				a.envTrees[e.name] = &tree{s: s, root: roots[0], roots: roots, env: e.name, ws: req.Workspace,
					bySlsM: map[string]*sfile{}, byPath: map[string]*sfile{}, cfg: a.cfg, scopes: scopes}
			}
		}
	}
	type target struct {
		t *tree
		f *sfile
	}
	// Parse in parallel first (the parse cache keeps the results).
	var paths []string
	var roots []string
	if req.Entry != "" {
		if p := source.URIToPath(req.Entry); p != "" && filepath.Base(p) == "top.sls" {
			root := a.rootOf(p)
			t := treeOf(root)
			for _, n := range t.avail() {
				for _, c := range t.slsPaths(n) {
					paths = append(paths, filepath.Join(root, c))
					roots = append(roots, root)
				}
			}
		}
	} else {
		for _, f := range req.Files {
			if f.Path != "" {
				paths = append(paths, f.Path)
				roots = append(roots, a.rootOf(f.Path))
			}
		}
	}
	preload(s, req.Workspace, paths, roots, a.mounts)
	if req.Canceled() {
		return a.res
	}
	var targets []target
	var tops []target
	if req.Entry != "" {
		var file *source.File
		for _, f := range req.Files {
			if f.URI == req.Entry {
				file = f
			}
		}
		if file == nil {
			file = analysis.FileOf(req.Workspace, req.Entry)
		}
		if file != nil {
			root := filepath.Dir(file.Path)
			if file.Path != "" {
				root = a.rootOf(file.Path)
			}
			t := treeOf(root)
			var f *sfile
			if file.Path != "" {
				f = t.load(file.Path)
			} else {
				f = s.newFile(file, root, t.mount)
			}
			if f != nil {
				if filepath.Base(file.Path) == "top.sls" && filepath.Dir(file.Path) == root {
					tops = append(tops, target{t, f})
				} else {
					targets = append(targets, target{t, f})
				}
			}
		}
	} else {
		seenTop := map[string]bool{}
		pillar := map[string]bool{}
		for _, file := range req.Files {
			if req.Canceled() {
				break
			}
			var t *tree
			var f *sfile
			if file.Path == "" {
				t = treeOf("")
				f = s.newFile(file, "", "")
			} else {
				root := a.rootOf(file.Path)
				t = treeOf(root)
				f = t.load(file.Path)
				if f == nil {
					continue
				}
				if !seenTop[root] {
					seenTop[root] = true
					if tf := t.load(filepath.Join(root, "top.sls")); tf != nil {
						if pillarTree(t, tf) {
							pillar[root] = true
						} else {
							tops = append(tops, target{t, tf})
						}
					}
				}
				if pillar[root] {
					continue
				}
				if filepath.Base(file.Path) == "top.sls" && filepath.Dir(file.Path) == root {
					continue
				}
			}
			targets = append(targets, target{t, f})
		}
	}
	// what the top files include is more top data, not states
	for _, tg := range tops {
		for _, f := range a.topIncludes(tg.t, tg.f) {
			a.topFrag[f.file.URI] = true
		}
	}
	read := make([]treeFile, 0, len(targets))
	for _, tg := range targets {
		read = append(read, treeFile{tg.t, tg.f})
	}
	a.templates = sourceTemplates(read)
	for _, tg := range targets {
		if req.Canceled() {
			break
		}
		if a.topFrag[tg.f.file.URI] || a.templates[tg.f.file.URI] {
			continue // top data, a file template: not states
		}
		if !declaresStates(tg.f) {
			a.dataFiles[tg.f] = true // reported as states only if a top or an include names it
			continue
		}
		a.runSLS(tg.t, tg.f)
	}
	for _, tg := range tops {
		if req.Canceled() {
			break
		}
		a.runTop(tg.t, tg.f)
	}
	if req.Canceled() {
		return a.res
	}
	a.runJobs()
	if req.Canceled() {
		// what was computed is cached; the caller wants nothing now
		return a.res
	}
	// per-file diagnostics of every file read
	for _, tf := range a.allFiles() {
		a.fileDiags(tf.f)
	}
	for _, tg := range targets {
		a.fileDiags(tg.f)
	}
	a.finish()
	a.dropAfterRenderErrors()
	a.oneRootPerProblem()
	return a.res
}

// oneRootPerProblem: the file root is guessed per file, and a file that
// files of several guessed roots include is rendered in each of their
// trees, so the same problem of its text (an include nothing provides,
// a state that is not a dictionary) came once per tree, worded with that
// tree's SLS names (wuxxin/salt-shared: 14 duplicates, some naming SLS
// ubuntu.audio.tools for old/desktop/ubuntu/audio/tools.sls). Salt has
// one file root. Of the problems found at one place by runs of several
// roots, those of the most plausible root stay: the root whose finding
// is most severe (an include is an error only where its package exists
// and the include is unconditional), then one where the included name's
// package exists, then a run that does not reach the file through a
// condition, then a root from which another file's include names it
// (more evidence than a guess from the file's own folders), then the
// root the file's own names point to (rootOf), then the first. An include nothing provides is reported once, by its
// most severe finding.
func (a *analyzer) oneRootPerProblem() {
	type place struct {
		uri        string
		start, end int
		code       string
	}
	roots := map[place]map[string][]int{}
	for i, d := range a.res.Diags {
		r, ok := a.diagRoot[diagKey(d)]
		if !ok {
			continue
		}
		p := place{d.At.URI, d.At.Start, d.At.End, d.Code}
		if roots[p] == nil {
			roots[p] = map[string][]int{}
		}
		roots[p][r] = append(roots[p][r], i)
	}
	drop := map[int]bool{}
	for p, byRoot := range roots {
		if len(byRoot) < 2 && p.code != "missing-include" {
			continue
		}
		home := a.rootOf(source.URIToPath(p.uri))
		best, bestRoot := -1, ""
		better := func(i int, r string) bool {
			if best < 0 {
				return true
			}
			d, b := a.res.Diags[i], a.res.Diags[best]
			if d.Severity != b.Severity {
				return d.Severity < b.Severity
			}
			if dh, bh := strings.Contains(d.Message, anotherRootHint), strings.Contains(b.Message, anotherRootHint); dh != bh {
				return !dh
			}
			if dc, bc := strings.Contains(d.Message, condIncludeHint), strings.Contains(b.Message, condIncludeHint); dc != bc {
				return !dc // the file's own run: the include itself is unconditional
			}
			if di, bi := a.namedFrom(p.uri, r), a.namedFrom(p.uri, bestRoot); di != bi {
				return di // another file's include names it from this root
			}
			if (r == home) != (bestRoot == home) {
				return r == home
			}
			return i < best
		}
		for r, is := range byRoot {
			for _, i := range is {
				if better(i, r) {
					best, bestRoot = i, r
				}
			}
		}
		for r, is := range byRoot {
			for _, i := range is {
				if r != bestRoot || p.code == "missing-include" && i != best {
					drop[i] = true
				}
			}
		}
	}
	if len(drop) == 0 {
		return
	}
	kept := a.res.Diags[:0]
	for i, d := range a.res.Diags {
		if !drop[i] {
			kept = append(kept, d)
		}
	}
	a.res.Diags = kept
}

// namedFrom reports whether a file of the tree at root includes the file
// uri by its SLS name from that root (a relative include names it from
// any root: no evidence).
func (a *analyzer) namedFrom(uri, root string) bool {
	t := a.trees[root]
	path := source.URIToPath(uri)
	if t == nil || path == "" {
		return false
	}
	sls, _ := slsName(root, t.mount, path)
	for _, f := range t.byPath {
		if f == nil || f.file.URI == uri {
			continue
		}
		for _, inc := range f.includes {
			if inc.name == sls || hasGlob(inc.name) && !strings.HasPrefix(inc.name, ".") && fnmatch(sls, inc.name) {
				return true
			}
		}
	}
	return false
}

func diagKey(d analysis.Diagnostic) string {
	msg := d.Message
	if d.Code == "conflicting-id" {
		// Salt names the two files in the order it rendered them, which
		// depends on the run; one conflict is one problem at each place.
		if m := conflictPair.FindStringSubmatchIndex(msg); m != nil {
			a, b := msg[m[2]:m[3]], msg[m[4]:m[5]]
			if b < a {
				a, b = b, a
			}
			msg = msg[:m[0]] + a + "|" + b + msg[m[1]:]
		}
	}
	return fmt.Sprintf("%s|%d|%d|%s", d.At.URI, d.At.Start, d.At.End, msg)
}

// conflictPair finds the two files of Salt's conflicting-ID message.
var conflictPair = lazyre.New(`found in SLS '([^']*)' and SLS '([^']*)'`)

// sourceTemplates finds the files used as file templates: every
// salt://<path> written in a file read (a state's `source:`, a pillar's
// `settings_xml_template_url:`) and every path a Jinja include or import
// names, resolved against that file's root (and its mount point).
// Formulas give templates the .sls name for the editor's Jinja
// highlighting (uvsmtid/common-salt-states: Vagrantfile.sls,
// credentials.xml.sls, bootstrap.ps1.sls); they are not states.
func sourceTemplates(files []treeFile) map[string]bool {
	byPath := map[string]string{}
	for _, tf := range files {
		if tf.f.file.Path != "" {
			byPath[filepath.Clean(tf.f.file.Path)] = tf.f.file.URI
		}
	}
	out := map[string]bool{}
	for _, tf := range files {
		text := tf.f.file.Text
		for {
			i := bytes.Index(text, []byte("salt://"))
			if i < 0 {
				break
			}
			text = text[i+len("salt://"):]
			end := bytes.IndexAny(text, "'\"?# \t\r\n{")
			if end < 0 {
				end = len(text)
			}
			if end < len(text) && text[end] == '{' {
				continue // templated path
			}
			rel, ok := unmount(tf.f.mount, string(text[:end]))
			if !ok {
				continue
			}
			if u, ok := byPath[filepath.Join(tf.f.root, filepath.FromSlash(rel))]; ok && u != tf.f.file.URI {
				out[u] = true
			}
		}
		// {% include 'x/y.sls' %}, {% from 'x/y.sls' import m %}: the
		// Jinja loader reads the file as a template from the file root
		// (hakoerber/salt-states' logrotate/templates/application.sls,
		// rendered inside each includer, requires what they include)
		for _, m := range jinjaPathRe.FindAllSubmatch(tf.f.file.Text, -1) {
			rel, ok := unmount(tf.f.mount, string(m[1]))
			if !ok || strings.HasPrefix(rel, ".") {
				continue
			}
			if u, ok := byPath[filepath.Join(tf.f.root, filepath.FromSlash(rel))]; ok && u != tf.f.file.URI {
				out[u] = true
			}
		}
	}
	return out
}

// named: a top file or an include names f (it is then states whatever
// else uses it).
func (a *analyzer) named(f *sfile) bool {
	if a.linkedFiles == nil {
		a.linkedFiles = map[string]bool{}
		for _, l := range a.linkList {
			for _, sp := range l.files {
				a.linkedFiles[sp.URI] = true
			}
		}
	}
	return a.linkedFiles[f.file.URI]
}

// unreachedData: f declares no state and no top.sls or include names it
// (see declaresStates): its shape is not a states file's to be wrong.
func (a *analyzer) unreachedData(f *sfile) bool {
	if !a.dataFiles[f] {
		return false
	}
	return !a.named(f)
}

// dropAfterRenderErrors: Salt stops at a file it cannot render (Jinja or
// YAML error), so what we say about the states of that file beyond the
// render error itself would be a cascade from text Salt never reads
// (wuxxin/salt-shared app/backup/restic.sls: a recursive requisite after
// an unclosed expression). One error per file, at the place it breaks.
func (a *analyzer) dropAfterRenderErrors() {
	broken := map[string]bool{}
	for _, tf := range a.allFiles() {
		for _, e := range tf.f.p.Errors {
			if e.Severity == 1 {
				broken[tf.f.file.URI] = true
			}
		}
	}
	if len(broken) == 0 {
		return
	}
	kept := a.res.Diags[:0]
	for _, d := range a.res.Diags {
		if broken[d.At.URI] && d.Code != "syntax" && d.Code != "renderer" {
			continue
		}
		kept = append(kept, d)
	}
	a.res.Diags = kept
}

// preload parses and lowers files on every core; later loads hit the
// file cache.
func preload(s *System, ws *source.Workspace, paths, roots []string, mounts map[string]string) {
	if len(paths) < 8 {
		return
	}
	workers := runtime.GOMAXPROCS(0)
	var wg sync.WaitGroup
	next := make(chan int)
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				file := ws.Lookup(paths[i])
				if file == nil {
					continue
				}
				// parsed and lowered: tree.load finds the file made
				s.newFile(file, roots[i], mounts[roots[i]])
			}
		}()
	}
	for i := range paths {
		next <- i
	}
	close(next)
	wg.Wait()
}

type ctxDiag struct {
	d      analysis.Diagnostic
	runs   int
	target string // the ID a missing requisite or extend names
	mod    string // its state module ("id" for any)
	inRun  map[string]bool
}

// contextual records a run-dependent diagnostic (once per run).
func (a *analyzer) contextual(d analysis.Diagnostic, target, mod string) {
	if a.rec != nil {
		a.rec.ctx = append(a.rec.ctx, ctxRec{d, target, mod})
		return
	}
	key := fmt.Sprintf("%s|%d|%d|%s", d.At.URI, d.At.Start, d.At.End, d.Message)
	if a.runSeen[key] {
		return
	}
	a.runSeen[key] = true
	c := a.ctx[key]
	if c == nil {
		c = &ctxDiag{d: d, target: target, mod: mod, inRun: a.curRun}
		a.ctx[key] = c
		a.ctxOrd = append(a.ctxOrd, key)
	}
	c.runs++
}

type nodeKey struct {
	decl        *idDecl
	st          *stDecl
	nameNode    *sp.Node
	state, name string // when the pointers are not enough
}

type edgeKey struct {
	from, to *analysis.Node
	e        *reqEntry
	asReq    bool
}

type linkAcc struct {
	at    source.Span
	list  []*analysis.Node
	files []source.Span
}

type analyzer struct {
	s     *System
	req   *analysis.Request
	res   *analysis.Result
	nodes map[nodeKey]*analysis.Node
	edges map[edgeKey]*analysis.Edge
	// links in the order they were made; the map indexes the first
	// linkIndexed of them (a record's links are distinct, so they are
	// indexed only when something else may meet them)
	links       map[source.Span]*linkAcc
	linkList    []*linkAcc
	linkIndexed int
	diags       map[string]bool
	lostAt      map[string]*analysis.Diagnostic
	lostOrd     []string
	foundAt     map[string]bool
	// contextual problems depend on what else the run includes (a
	// requisite or extend target in a file the run does not include, a
	// cycle made by include order): reported when every run that holds
	// the file has them.
	ctx    map[string]*ctxDiag
	ctxOrd []string
	// opaqueKeys: the top-level keys of files whose renderer is not
	// analysed, read once (opaqueDeclares)
	opaqueKeys map[*sfile][]topKey
	runFiles   map[string]int
	// slsRunFiles: the files of each file's own run (state.sls NAME), by
	// the file's URI
	slsRunFiles map[string][]string
	runSeen     map[string]bool
	curRun      map[string]bool
	fileDiag    map[*sfile]bool
	// standalone files that declare no state, and the URIs links name
	// (unreachedData)
	dataFiles   map[*sfile]bool
	linkedFiles map[string]bool
	// templates: URIs of the files states serve as `source: salt://...`
	// (a Vagrantfile.sls, credentials.xml.sls rendered by file.managed)
	templates map[string]bool
	// topFrag: URIs of the files a top file includes (top data)
	topFrag map[string]bool
	// curRoot is the file root of the run or file being reported;
	// diagRoot the root each diagnostic was reported under
	curRoot  *string
	diagRoot map[string]string
	master   bool
	auto     bool
	// mounts: the inferred mount point of each file root (inferMount)
	mounts  map[string]string
	facts   [][]analysis.Fact // by graph node index
	rec     *runRecord
	mu      *sync.Mutex // guards rootCache while runs compile in parallel
	jobs    []*runJob
	realOf  []*analysis.Node // apply: record node index -> graph node
	buf     []*analysis.Node
	inFacts []inFact
	// apply: records applied so far; the first one's nodes and edges
	// go into the maps only when a second record comes
	applied    int
	firstRec   *runRecord
	firstReal  []*analysis.Node
	firstEdges []*analysis.Edge
	nodeSlab   []analysis.Node
	whereOf    map[string]whereInfo
	filesRead  []treeFile // allFiles, once the runs are made
	trees      map[string]*tree
	setting    string
	rootCache  map[string]string
	cfg        *cfgRoots // the repository's configuration of file roots
	envTrees   map[string]*tree
	// minion: the minion whose highstate is computed (ordering.node), nil
	// for the abstract machine matching every target
	minion     *minionData
	nodegroups map[string]any
	// minionFiles: the files of the minion's highstate; topNamed: the
	// files any target of a top file names (whichever minion it is)
	minionFiles, topNamed map[string]bool
}

func sev(n int) analysis.Severity {
	switch n {
	case 2:
		return analysis.Warning
	case 3:
		return analysis.Info
	}
	return analysis.Error
}

func (a *analyzer) diag(d analysis.Diagnostic) {
	if a.rec != nil {
		a.rec.diags = append(a.rec.diags, d)
		return
	}
	key := diagKey(d)
	if a.diags[key] {
		return
	}
	a.diags[key] = true
	if a.curRoot != nil {
		if a.diagRoot == nil {
			a.diagRoot = map[string]string{}
		}
		a.diagRoot[key] = *a.curRoot
	}
	a.res.Diags = append(a.res.Diags, d)
}

func (a *analyzer) fileDiags(f *sfile) {
	if a.fileDiag[f] {
		return
	}
	a.fileDiag[f] = true
	if a.templates[f.file.URI] && !a.named(f) {
		return // a file template with an .sls name: Salt never reads it as states
	}
	a.curRoot = &f.root
	defer func() { a.curRoot = nil }()
	for _, e := range f.p.Errors {
		code := "syntax"
		if e.Severity == 3 {
			code = "renderer"
		}
		a.diag(analysis.Diagnostic{At: source.Span{URI: f.file.URI, Start: e.Start, End: e.End}, Severity: sev(e.Severity), Code: code, Message: e.Msg})
	}
	if a.topFrag[f.file.URI] {
		return // top data: what states would make wrong is not wrong here
	}
	for _, d := range f.ids {
		if d.bad != "" && !a.unreachedData(f) {
			diag := analysis.Diagnostic{At: f.span(d.key), Severity: analysis.Error, Code: "structure", Message: d.bad}
			if d.dupOf != nil {
				diag.Code = "conflicting-id"
				diag.Related = []analysis.Related{{At: f.span(d.dupOf.key), Message: "first declared here"}}
			}
			a.diag(diag)
		}
	}
}

// linkEntry is link for a requisite entry (nothing is made for an entry
// that names nothing).
func (a *analyzer) linkEntry(e *reqEntry, nodes []*analysis.Node, files []source.Span) {
	if a.rec != nil {
		a.rec.links = append(a.rec.links, linkRec{e: e, at: e.span, nodes: indices(nodes), files: files})
		return
	}
	if len(nodes) == 0 && len(files) == 0 {
		return
	}
	a.linkAt(e.span).add(nodes, files)
}

func (a *analyzer) link(at source.Span, nodes []*analysis.Node, files []source.Span) {
	if at.URI == "" {
		return
	}
	if a.rec != nil {
		a.rec.links = append(a.rec.links, linkRec{at: at, nodes: indices(nodes), files: files})
		return
	}
	a.linkAt(at).add(nodes, files)
}

func (a *analyzer) indexLinks() {
	for ; a.linkIndexed < len(a.linkList); a.linkIndexed++ {
		l := a.linkList[a.linkIndexed]
		a.links[l.at] = l
	}
}

func (a *analyzer) linkAt(at source.Span) *linkAcc {
	a.indexLinks()
	l := a.links[at]
	if l == nil {
		l = &linkAcc{at: at}
		a.links[at] = l
		a.linkList = append(a.linkList, l)
		a.linkIndexed++
	}
	return l
}

func (l *linkAcc) add(nodes []*analysis.Node, files []source.Span) {
	for _, n := range nodes {
		dup := false
		for _, m := range l.list {
			if m == n {
				dup = true
				break
			}
		}
		if !dup {
			l.list = append(l.list, n)
		}
	}
	for _, f := range files {
		dup := false
		for _, g := range l.files {
			if g == f {
				dup = true
			}
		}
		if !dup {
			l.files = append(l.files, f)
		}
	}
}

// node returns the graph node of a chunk (one per declaration, shared by
// every run).
func (a *analyzer) node(ch *chunk) *analysis.Node {
	if ch.node != nil {
		return ch.node
	}
	key := nodeKey{decl: ch.body.decl, st: ch.hs.decl, nameNode: ch.nameNode}
	if ch.hs.decl == nil || strings.Contains(ch.name, sp.Unknown) && ch.nameNode == nil {
		key.state, key.name = ch.state, ch.name
	}
	if n, ok := a.rec.tmp[key]; ok {
		ch.node = n
		return n
	}
	defer func() { ch.node = a.rec.tmp[key] }()
	f := ch.body.f
	decl := f.span(ch.body.decl.key)
	if ch.nameNode != nil && ch.nameIndex > 0 {
		decl = ch.nameIn().span(ch.nameNode)
	}
	full := source.Span{URI: f.file.URI, Start: ch.body.decl.entry.Start, End: f.stateEnd(ch.body.decl.entry.Start, ch.body.decl.entry.End)}
	if full.End < decl.End {
		full.End = decl.End
	}
	// a node of this run's record; apply() turns it into the graph's
	n := &analysis.Node{Kind: "state", Ref: label(ch, f), Decl: decl, Full: full}
	a.rec.tmp[key] = n
	n.Index = len(a.rec.keyList)
	a.rec.keyList = append(a.rec.keyList, key)
	a.rec.info = append(a.rec.info, nodeInfo{n.Ref, n.Decl, n.Full})
	a.rec.funs = append(a.rec.funs, ch.fun)
	return n
}

// label is the oracle's line: `module.function ID NAME`.
func label(ch *chunk, f *sfile) string {
	disp := func(s string, n *sp.Node, f *sfile) string {
		if !strings.Contains(s, sp.Unknown) {
			return s
		}
		if n != nil && f != nil {
			if d := f.p.Display(n); d != "" && n.Value == s {
				return d
			}
		}
		return strings.ReplaceAll(s, sp.Unknown, "*")
	}
	id := disp(ch.id, ch.body.decl.key, f)
	name := id
	if ch.name != ch.id {
		nf := f
		if ch.nameFile != nil {
			nf = ch.nameFile // an extend's name: shown from its own file
		}
		name = disp(ch.name, ch.nameNode, nf)
	}
	state := strings.ReplaceAll(ch.state, sp.Unknown, "*")
	fun := strings.ReplaceAll(ch.fun, sp.Unknown, "*")
	return state + "." + fun + " " + id + " " + name
}

func (a *analyzer) fact(n *analysis.Node, label, value string) {
	for len(a.facts) <= n.Index {
		a.facts = append(a.facts, nil)
	}
	fs := a.facts[n.Index]
	count := 0
	for _, f := range fs {
		if f.Label == label {
			if f.Value == value {
				return
			}
			count++
		}
	}
	if count < 8 {
		a.facts[n.Index] = append(fs, analysis.Fact{Label: label, Value: value})
	}
}

// where renders a span as file:line:col, the path relative to the file
// root of the file, the line a mark (analysis.WhereMark).
func (a *analyzer) where(sp source.Span) string {
	w, ok := a.whereOf[sp.URI]
	if !ok {
		// what analysis.Where computes from the URI, once per file
		w.name = sp.URI
		if p := source.URIToPath(sp.URI); p != "" {
			w.name = p
			if base := a.rootOf(p); base != "" {
				w.name = analysis.Rel(base, p)
			}
		}
		w.file = analysis.FileOf(a.req.Workspace, sp.URI)
		if a.whereOf == nil {
			a.whereOf = map[string]whereInfo{}
		}
		a.whereOf[sp.URI] = w
	}
	if w.file == nil {
		return w.name
	}
	_, c := w.file.Line1Col1(sp.Start)
	return w.name + ":" + analysis.LineMark(sp) + ":" + strconv.Itoa(c)
}

type whereInfo struct {
	name string
	file *source.File
}

func (a *analyzer) newCompiler(t *tree, dry bool) *compiler {
	return &compiler{t: t, mods: map[string]bool{}, iorder: 10000, auto: a.auto, shadowed: map[string]bool{}, dry: dry}
}

func (a *analyzer) runSLS(t *tree, f *sfile) {
	name := "state.sls " + f.sls
	build := func(dry bool) (*compiler, *high) {
		c := a.newCompiler(t, dry)
		st := c.renderState(f.sls, nil, 0, false)
		if st == nil {
			st = newHigh()
		}
		return c, st
	}
	a.cachedRun(name, f.file.URI, f.sls, build, nil)
}

// cachedRun computes a run, or replays it when the files that make it
// are the very ones (same lowered file objects) a previous analysis used:
// an edit recomputes only the runs that include the edited file.
func (a *analyzer) cachedRun(name, entry, entrySLS string, build func(dry bool) (*compiler, *high), tops []*sfile) {
	dc, _ := build(true)
	files := dc.files
	if len(tops) > 0 {
		// the top files' spans are in the record too (missing includes)
		files = append(append([]*sfile(nil), tops...), files...)
	}
	var kb strings.Builder
	fmt.Fprintf(&kb, "%s\x00%s\x00%v\x00%v\x00%s", name, entry, a.master, a.auto, a.cfg.key())
	ident := kb.String()
	for _, f := range files {
		fmt.Fprintf(&kb, "\x00%p", f)
	}
	key := kb.String()
	a.s.mu.Lock()
	rec := a.s.runs[key]
	if rec != nil {
		rec.gen = a.s.gen
		a.s.last[ident] = rec
	}
	prev := a.s.last[ident]
	a.s.mu.Unlock()
	a.jobs = append(a.jobs, &runJob{name: name, entry: entry, sls: entrySLS, build: build, key: key, ident: ident, rec: rec, prev: prev, files: files})
}

// runJob is a run to apply; rec is nil until it is computed.
type runJob struct {
	name, entry, sls string
	build            func(dry bool) (*compiler, *high)
	key, ident       string
	rec              *runRecord
	prev             *runRecord // the last record of this run, for patching
	files            []*sfile
}

// runJobs computes the runs not in the cache on every core (each into
// its own record), then applies every run in order.
func (a *analyzer) runJobs() {
	var todo []*runJob
	for _, j := range a.jobs {
		if j.rec == nil {
			todo = append(todo, j)
		}
	}
	compute := func(j *runJob) {
		rec := patchRecord(j.prev, j.files)
		if rec != nil {
			a.s.mu.Lock()
			a.s.patched++
			a.s.mu.Unlock()
		} else {
			w := *a // a worker: its own record; shared state is locked
			rec = &runRecord{tmp: map[nodeKey]*analysis.Node{}, edgeSeen: map[edgeKey]bool{}, sfiles: j.files}
			w.rec = rec
			c, h := j.build(false)
			if !w.finishRun(c, h, j.name, j.entry, j.sls) {
				return // canceled: neither cached nor applied
			}
			rec.edgeSeen = nil
			rec.tmp = nil
			rec.agg = aggregateLinks(rec.links)
			rec.links = nil
		}
		rec.gen = a.s.gen
		a.s.mu.Lock()
		a.s.runs[j.key] = rec
		a.s.last[j.ident] = rec
		a.s.mu.Unlock()
		j.rec = rec
	}
	workers := min(runtime.GOMAXPROCS(0), len(todo))
	if workers <= 1 {
		for _, j := range todo {
			if a.req.Canceled() {
				break
			}
			compute(j)
		}
	} else {
		next := make(chan *runJob)
		var wg sync.WaitGroup
		for w := 0; w < workers; w++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for j := range next {
					if !a.req.Canceled() {
						compute(j)
					}
				}
			}()
		}
		for _, j := range todo {
			if a.req.Canceled() {
				break
			}
			next <- j
		}
		close(next)
		wg.Wait()
	}
	if a.req.Canceled() {
		a.jobs = nil
		return
	}
	for _, j := range a.jobs {
		if j.rec != nil {
			a.apply(j.rec)
		}
	}
	a.jobs = nil
}

// runTop builds the highstate of a top.sls: every SLS of every target of
// every environment, in top file order (one machine matching all targets).
func (a *analyzer) runTop(t *tree, top *sfile) {
	// In the server, a top file with several targets besides '*' gives
	// one highstate per target (with the '*' states): states of targets
	// that never meet on one machine must not conflict. `order top.sls`
	// prints one highstate for a machine matching every target.
	tops := append([]*sfile{top}, a.topIncludes(t, top)...)
	var targets []string
	seen := map[string]bool{}
	for _, tt := range topTargets(tops) {
		if tt.target != "*" && !seen[tt.target] {
			seen[tt.target] = true
			targets = append(targets, tt.target)
		}
	}
	if a.minion != nil {
		a.runTopNode(t, tops, a.minion)
		return
	}
	if a.req.Entry != "" || len(targets) < 2 {
		a.runTopFor(t, tops, "", "highstate")
		return
	}
	for _, tg := range targets {
		a.runTopFor(t, tops, tg, "highstate "+strings.ReplaceAll(tg, sp.Unknown, "*"))
	}
}

// topIncludes lists the files a top file's `include:` pulls in as more
// top data (salt/state.py get_tops: each name is an fnmatch pattern over
// the environment's SLS names, each file is read once, and only the
// includes of the top file itself are followed; a name that matches
// nothing is skipped without a word).
func (a *analyzer) topIncludes(t *tree, top *sfile) []*sfile {
	var out []*sfile
	seen := map[string]bool{}
	for _, e := range top.p.Entries {
		if e.Key == nil || e.Key.Value != "include" || e.Val == nil || e.Val.Kind != sp.Seq {
			continue
		}
		for _, it := range e.Val.Items {
			name, ok := it.Str()
			if !ok || it.Kind != sp.Scalar || strings.Contains(name, sp.Unknown) {
				continue
			}
			var names []string
			if hasGlob(name) {
				for _, n := range t.avail() {
					if fnmatch(n, name) {
						names = append(names, n)
					}
				}
			} else {
				names = []string{name}
			}
			for _, n := range names {
				if seen[n] {
					continue
				}
				if f := t.bySLS(n); f != nil && f != top {
					seen[n] = true
					out = append(out, f)
				}
			}
		}
	}
	return out
}

// topTarget is one target of the merged top data.
type topTarget struct {
	env, target string
	val         *sp.Node
	f           *sfile
	// orig: the list as written when val is a merge of several
	// (top_file_merging_strategy merge_all)
	orig *sp.Node
}

// written is the target's list as the top file writes it.
func (tt topTarget) written() *sp.Node {
	if tt.orig != nil {
		return tt.orig
	}
	return tt.val
}

// topTargets merges top files as _merge_tops_merge does: targets in the
// order they first appear, a later top file's list replacing an
// earlier one's for the same environment and target.
func topTargets(tops []*sfile) []topTarget {
	idx := map[[2]string]int{}
	var out []topTarget
	for _, tf := range tops {
		for _, e := range tf.p.Entries {
			if e.Key == nil || e.Val == nil || e.Val.Kind != sp.Map {
				continue
			}
			for i, k := range e.Val.Keys {
				tt := topTarget{env: e.Key.Value, target: k.Value, val: e.Val.Vals[i], f: tf}
				key := [2]string{tt.env, tt.target}
				if j, ok := idx[key]; ok {
					out[j] = tt
					continue
				}
				idx[key] = len(out)
				out = append(out, tt)
			}
		}
	}
	return out
}

// runTopFor is the highstate of a machine matching target (and '*'); ""
// means every target. tops are the top file and the files it includes.
func (a *analyzer) runTopFor(t *tree, tops []*sfile, target, name string) {
	top := tops[0]
	build := func(dry bool) (*compiler, *high) {
		c := a.newCompiler(t, dry)
		hs := newHigh()
		if dry {
			for _, f := range tops[1:] {
				for _, e := range top.p.Entries {
					if e.Key == nil || e.Key.Value != "include" || e.Val == nil || e.Val.Kind != sp.Seq {
						continue
					}
					for _, it := range e.Val.Items {
						if n, ok := it.Str(); ok && (n == f.sls || hasGlob(n) && fnmatch(f.sls, n)) {
							a.link(top.span(it), nil, []source.Span{{URI: f.file.URI}})
						}
					}
				}
			}
		}
		for _, tt := range topTargets(tops) {
			tv := tt.val
			if tv.Kind != sp.Seq {
				continue
			}
			if target != "" && tt.target != "*" && tt.target != target {
				continue
			}
			for _, it := range tv.Items {
				name, ok := it.Str()
				if !ok || it.Kind != sp.Scalar {
					continue
				}
				if strings.Contains(name, sp.Unknown) {
					c.generator = true
					continue
				}
				var names []string
				if hasGlob(name) {
					for _, n := range t.avail() {
						if fnmatch(n, name) && n != "top" {
							names = append(names, n)
						}
					}
				} else {
					names = []string{name}
				}
				for _, n := range names {
					if tf := t.bySLS(n); tf != nil && dry {
						a.link(tt.f.span(it), nil, []source.Span{{URI: tf.file.URI}})
					}
					if c.mods[modKey(tt.env, n)] {
						continue
					}
					inc := &include{name: n, node: it, f: tt.f, env: tt.env}
					st := c.renderState(n, inc, 0, false)
					if st != nil {
						c.merge(hs, st)
					}
				}
			}
		}
		return c, hs
	}
	a.cachedRun(name, top.file.URI, "", build, tops)
}

// finishRun computes a run into a.rec; false when the request was
// canceled on the way (the record is incomplete).
func (a *analyzer) finishRun(c *compiler, h *high, name, entry, entrySLS string) bool {
	if a.req.Canceled() {
		return false
	}
	seenURI := map[string]bool{}
	for _, f := range c.files {
		if !seenURI[f.file.URI] {
			seenURI[f.file.URI] = true
			a.rec.files = append(a.rec.files, f.file.URI)
		}
	}
	// links of includes and extends
	for _, f := range c.files {
		a.fileLinks(c, f)
	}
	var exts []*extension
	for _, e := range h.extends {
		ext := &extension{id: e.id, sls: e.f.sls, at: e.f.span(e.key), key: e.key, f: e.f}
		for _, d := range e.decls {
			hs := newHState(d)
			hs.funs = nil
			for _, fn := range d.funs {
				hs.funs = append(hs.funs, fn)
			}
			ext.states = append(ext.states, hs)
		}
		exts = append(exts, ext)
	}
	// reconcile_extend is in call_high: extends first, then verify_high
	c.reconcileExtend(h, exts, false)
	c.verifyHigh(h, a.master)
	c.requisiteIn(h)
	c.applyExclude(h)
	if a.req.Canceled() {
		return false
	}
	chunks := c.compile(h)
	sm := newSim(chunks, c.generator)
	sm.shadowed = c.shadowed
	sm.shadowNames = c.shadowNames
	if a.req.Canceled() {
		return false
	}
	sm.run()
	if a.req.Canceled() {
		return false
	}

	run := analysis.Run{Name: name, Entry: entry, Alone: strings.HasPrefix(name, "state.sls ")}
	total := len(sm.order) + len(sm.listen)
	for _, ch := range sm.order {
		n := a.node(ch)
		note := ""
		r := sm.running[ch.tid]
		switch {
		case r != nil && r.lost:
			note = "fails: requisites not found"
		case r != nil && r.tied:
			note = "fails: recursive requisite (after 20 attempts; Salt gives it the next state's run number)"
		case r != nil && r.recursive:
			note = "fails: recursive requisite"
		}
		lb := n.Ref
		if a.rec.funs[n.Index] != ch.fun {
			lb = label(ch, ch.body.f)
		}
		st := analysis.Step{Node: n, Label: lb, Note: note}
		if r != nil {
			st.Seq = r.num + 1
		}
		run.Steps = append(run.Steps, st)
		a.orderFact(n, ch)
	}
	_ = total
	// call_listen runs the listeners' mod_watch chunks after every state,
	// then numbers its errors: their __run_num__ continue the run's.
	for i, l := range sm.listen {
		n := a.node(l.ch)
		lb := strings.ReplaceAll(l.ch.state, sp.Unknown, "*") + ".mod_watch listener_" + label(l.ch, l.ch.body.f)[len(l.ch.state+"."+l.ch.fun)+1:]
		run.Steps = append(run.Steps, analysis.Step{Node: n, Label: lb,
			Note: "listen: mod_watch at the end of the run, only if " + l.target.id + " reports changes",
			Seq:  sm.runNum + i + 1})
	}
	for j, le := range sm.listenErrs {
		run.Steps = append(run.Steps, analysis.Step{Node: a.node(le.ch), Label: "Listen_Error.Listen_Error listen_" + le.target + " listen_" + le.mod,
			Note: "fails: the listen names no state (" + le.mod + ": " + le.target + ")",
			Seq:  sm.runNum + len(sm.listen) + j + 1})
	}
	for _, p := range c.problems {
		if p.refuses {
			run.Refused = true
		}
	}
	if sm.crash != nil {
		run.Refused = true
	}
	// a file Salt cannot render (Jinja or YAML error) fails the whole run
	for _, f := range c.files {
		for _, e := range f.p.Errors {
			if e.Severity == 1 {
				run.Refused = true
			}
		}
		for _, d := range f.ids {
			if d.bad != "" {
				run.Refused = true
			}
		}
	}
	a.edgesAndLinks(c, h, sm, run.Name)
	a.runProblems(c, sm, entrySLS, &run)
	for _, p := range c.problems {
		d := analysis.Diagnostic{At: p.at, Severity: sev(p.sev), Code: p.code, Message: p.msg, Members: p.members}
		for _, r := range p.related {
			if p.code == "cycle" && r.at == p.at {
				continue // the diagnostic's own words: the related entries are the other edges
			}
			d.Related = append(d.Related, analysis.Related{At: r.at, Message: r.msg})
		}
		if p.code == "extend-missing" || p.code == "cycle" {
			a.contextual(d, p.target, p.targetMod)
			continue
		}
		a.diag(d)
	}
	a.rec.run = run
	a.rec.chunkNode = make([]int32, len(sm.chunks))
	a.rec.chunkOrder = make([]float64, len(sm.chunks))
	for i, ch := range sm.chunks {
		a.rec.chunkNode[i] = int32(a.node(ch).Index)
		a.rec.chunkOrder[i] = ch.order
	}
	return true
}

type inFact struct {
	n *analysis.Node
	o *inOrigin
}

func (a *analyzer) orderFact(n *analysis.Node, ch *chunk) {
	v := strconv.FormatFloat(ch.order, 'f', -1, 64)
	how := ""
	switch ch.orderHow {
	case "auto":
		how = "auto-order (state_auto_order: definition order, included files first)"
	case "explicit":
		how = "explicit `order: " + ch.ov.arg.val.Value + "`"
	case "first":
		how = "`order: first`"
	case "last":
		how = "`order: last` (after every numbered state)"
	case "negative":
		how = "negative `order: " + ch.ov.arg.val.Value + "` (counts back from the end)"
	default:
		how = "no order (state_auto_order off): sorted by module, name and function"
	}
	if ch.ov.arg != nil && ch.ov.arg.via == "use" {
		how += " (copied by use)"
	}
	a.rec.facts = append(a.rec.facts, factRec{n, "order value", v + " from " + how}, factRec{n, "SLS", ch.sls})
	// Which undecided Jinja condition the state's existence rests on (the
	// position above is that of the renders that take this branch).
	if b := ch.body; b != nil && b.decl != nil && b.decl.key != nil && b.f != nil && b.f.p != nil && b.f.p.R != nil {
		var bs []analysis.Branch
		for _, x := range b.f.p.ArmsOf(b.decl.key) {
			bs = append(bs, arm{b.f, x})
		}
		if when := armsText(bs); when != "" {
			a.rec.facts = append(a.rec.facts, factRec{n, "condition", "declared only when " + when +
				", which depends on grains, pillar or salt[...] calls the analysis does not know: a minion may not render it (set salt.facts to decide)"})
		} else if b.cond {
			a.rec.facts = append(a.rec.facts, factRec{n, "condition", "its SLS is included from a branch of a Jinja condition the analysis cannot decide: a minion may not render it (set salt.facts to decide)"})
		}
	}
}

// fileLinks links include entries to files and extend keys to states.
func (a *analyzer) fileLinks(c *compiler, f *sfile) {
	for _, inc := range f.includes {
		name := inc.name
		if strings.Contains(name, sp.Unknown) {
			continue
		}
		if strings.HasPrefix(name, ".") {
			m := relRe.FindStringSubmatch(name)
			comps := strings.Split(f.sls, ".")
			if f.init {
				comps = append(comps, "init")
			}
			if len(m[1]) > len(comps) {
				continue
			}
			name = strings.TrimSuffix(strings.Join(append(append([]string{}, comps[:len(comps)-len(m[1])]...), m[2]), "."), ".")
		}
		var files []source.Span
		if hasGlob(name) {
			for _, n := range c.t.avail() {
				if fnmatch(n, name) {
					if tf := c.t.bySLS(n); tf != nil {
						files = append(files, source.Span{URI: tf.file.URI})
					}
				}
			}
		} else if tf := c.t.bySLS(name); tf != nil {
			files = append(files, source.Span{URI: tf.file.URI})
		}
		a.link(f.span(inc.node), nil, files)
	}
}

// edgesAndLinks turns matched requisites into edges and links.
func (a *analyzer) edgesAndLinks(c *compiler, h *high, sm *sim, runName string) {
	n := 0
	for _, ch := range sm.chunks {
		for k := range ch.reqs.lists {
			n += len(ch.reqs.lists[k])
		}
	}
	if a.rec.edges == nil {
		a.rec.edges = make([]edgeRec, 0, n)
		a.rec.edgeSeen = make(map[edgeKey]bool, n)
	}
	a.rec.links = slices.Grow(a.rec.links, n)
	// extend keys -> the states of that ID
	for _, e := range h.extends {
		var nodes []*analysis.Node
		for _, ch := range sm.chunks {
			if ch.id == e.id {
				nodes = append(nodes, a.node(ch))
			}
		}
		a.link(e.f.span(e.key), nodes, nil)
	}
	for _, ch := range sm.chunks {
		n := a.node(ch)
		for ki, key := range reqKeyOrder {
			entries := ch.reqs.get(ki)
			if key == "prerequired" || key == "listen_in" {
				continue
			}
			for _, e := range entries {
				if e.bad == "null" {
					continue
				}
				m := sm.match(e)
				var targets []*analysis.Node
				var files []source.Span
				for _, t := range m.chunks {
					tn := a.node(t)
					targets = append(targets, tn)
					reason := key
					if e.inFrom != nil {
						reason = e.inFrom.key
					}
					kind := analysis.Order
					switch key {
					case "watch", "watch_any", "onchanges", "onchanges_any":
						kind = analysis.Refresh
					case "listen":
						kind = analysis.Reference
					}
					from, to := tn, n
					if key == "prereq" {
						from, to = n, tn
					}
					if len(ch.watchAsRequire) > 0 && contains2(ch.watchAsRequire, e) {
						reason = a.watchReason(ch.state)
						kind = analysis.Order
					}
					if from == to && e.mod == "sls" && ch.state != t.state {
						continue
					}
					if from == to && e.inFrom != nil {
						// an _in requisite that names its own state (by ID,
						// or by an argument find_name matches, as
						// `filename:` of a file.accumulated feeding that
						// file): Salt 3007 runs the state, no recursion
						continue
					}
					ek := edgeKey{from, to, e, kind == analysis.Order}
					if !a.rec.edgeSeen[ek] {
						a.rec.edgeSeen[ek] = true
						a.rec.edges = append(a.rec.edges, edgeRec{from: int32(from.Index), to: int32(to.Index), kind: kind, reason: reason, e: e})
					}
					if e.inFrom != nil {
						a.rec.inFacts = append(a.rec.inFacts, inFact{n, e.inFrom})
					}
				}
				if e.mod == "sls" {
					if tf := c.t.bySLS(e.target); tf != nil {
						files = append(files, source.Span{URI: tf.file.URI})
					}
				}
				for _, t := range m.maybeChunks {
					targets = append(targets, a.node(t))
				}
				if e.inFrom == nil {
					// (an _in entry links to its own target below)
					a.linkEntry(e, targets, files)
				}
			}
		}
	}
	// _in declarations in the source link to their targets too
	for _, id := range h.ids {
		b := h.m[id]
		for _, s := range b.states {
			for _, ar := range s.args {
				if !strings.HasSuffix(ar.key, "_in") && ar.key != "use" {
					continue
				}
				for _, e := range ar.reqs {
					if e.inFrom != nil || e.bad != "" {
						continue
					}
					m := sm.match(e)
					var targets []*analysis.Node
					for _, t := range m.chunks {
						targets = append(targets, a.node(t))
					}
					var files []source.Span
					if e.mod == "sls" {
						if tf := c.t.bySLS(e.target); tf != nil {
							files = append(files, source.Span{URI: tf.file.URI})
						}
					}
					a.link(e.span, targets, files)
				}
			}
		}
	}
}

func (a *analyzer) watchReason(mod string) string {
	return "watch (as require: " + mod + " has no mod_watch)"
}

func contains2(l []*reqEntry, e *reqEntry) bool {
	for _, x := range l {
		if x == e {
			return true
		}
	}
	return false
}

// runProblems reports what the simulated run found: requisites not
// found, cycles, order: last pulled earlier, watch acting as require,
// sls requisites on include-only files.
func (a *analyzer) runProblems(c *compiler, sm *sim, entrySLS string, run *analysis.Run) {
	pos := map[*chunk]int{}
	for i, ch := range sm.order {
		pos[ch] = i
	}
	// requisites not found
	var lostChunks []*chunk
	for ch := range sm.lost {
		lostChunks = append(lostChunks, ch)
	}
	sort.Slice(lostChunks, func(i, j int) bool { return lostChunks[i].index < lostChunks[j].index })
	for _, ch := range lostChunks {
		for _, l := range sm.lost[ch] {
			e := l.entry
			at := e.span
			if e.inFrom != nil {
				at = e.inFrom.span
			}
			var msg string
			if l.kind == "listen" {
				msg = fmt.Sprintf("Referenced state %s: %s does not exist", e.mod, e.target)
			} else if a.master {
				run.Refused = true
				msg = fmt.Sprintf("Referenced state does not exist for requisite [%s: (%s: %s)] in state [%s] in SLS [%s]", l.kind, e.mod, e.target, ch.name, ch.sls)
			} else {
				msg = fmt.Sprintf("The following requisites were not found:\n    %s:\n        %s: %s", l.kind, e.mod, e.target)
			}
			if hint := a.hint(c, sm, e); hint != "" {
				msg += "\n" + hint
			}
			sev := analysis.Error
			if e.f != nil && e.inFrom == nil && entryInAlt(e) {
				// Every branch of an undecidable condition is checked, but
				// only the machines that render this one fail.
				sev = analysis.Warning
				msg += "\n" + branchNote(e)
			}
			a.contextual(analysis.Diagnostic{At: at, Severity: sev, Code: "missing-requisite", Message: msg, Unresolved: true}, e.target, e.mod)
		}
	}
	a.hiddenRequisites(c, sm)
	if sm.crash != nil {
		a.crashError(sm)
	}
	// cycles (the simulation meets every cycle as a recursive requisite)
	if len(sm.recursive) > 0 {
		a.cycles(c, sm, run)
		a.onfailAll(sm)
	}
	a.runProblemsRest(c, sm, pos, run)
}

// branchNote says which renders a requisite entry exists in: the
// undecidable Jinja conditions it is written under, in the template's
// words.
func branchNote(e *reqEntry) string {
	return rendersNote(armsText(armsOf(e)))
}

// rendersNote is the words of branchNote for the conditions when ("" if
// their words are unknown).
func rendersNote(when string) string {
	if when != "" {
		return "(only where " + when + ": a Jinja condition decided on the machine by grains, pillar or salt[...]; Salt refuses the run there)"
	}
	return "(in a branch of a Jinja condition that depends on grains, pillar or salt[...]: Salt refuses the run where it renders)"
}

// placeBranchNote says which renders text of f at offset off exists in,
// as branchNote does for a requisite entry: "" when every render has it.
func placeBranchNote(f *sfile, off int) string {
	if f == nil || f.p == nil || f.p.R == nil {
		return ""
	}
	var bs []analysis.Branch
	for _, x := range f.p.R.ArmsAt(off) {
		bs = append(bs, arm{f, x})
	}
	if len(bs) == 0 {
		return ""
	}
	return rendersNote(armsText(bs))
}

// declBranchNote says which renders an ID declaration exists in (its file
// may also be included from a branch: then nothing more is known here).
func declBranchNote(d *idDecl) string {
	if d != nil && d.key != nil {
		if note := placeBranchNote(d.f, d.key.Start); note != "" {
			return note
		}
	}
	return rendersNote("")
}

// hiddenRequisites checks the requisites of alternatives the model
// hides: both branches of an undecidable condition declare one ID (or
// one state of an ID), the first stands for both in the order, and what
// only the other requires would go unchecked (`web` under `if
// grains['os_family'] == 'Debian'` and again under `else`, requiring a
// pkgrepo only there). A target no state of the run can be is a warning
// naming the branch: the machines that render it fail.
func (a *analyzer) hiddenRequisites(c *compiler, sm *sim) {
	var decls []*stDecl
	for _, d := range c.hidden {
		decls = append(decls, d.decls...)
		decls = append(decls, d.hidden...)
	}
	for _, f := range c.files {
		for _, d := range f.ids {
			decls = append(decls, d.hidden...)
		}
	}
	seen := map[*reqEntry]bool{}
	for _, sd := range decls {
		for _, ar := range sd.args {
			if !requisiteKeys[ar.key] || strings.HasSuffix(ar.key, "_in") || ar.key == "prerequired" {
				continue
			}
			for _, e := range ar.reqs {
				if e.bad != "" || seen[e] || strings.Contains(e.target, sp.Unknown) || strings.Contains(e.mod, sp.Unknown) {
					continue
				}
				seen[e] = true
				m := sm.match(e)
				if len(m.chunks) > 0 || m.maybe {
					continue
				}
				key := ar.key
				if a.master {
					key = strings.TrimSuffix(strings.TrimSuffix(key, "_any"), "_all")
				}
				msg := fmt.Sprintf("The following requisites were not found:\n    %s:\n        %s: %s", key, e.mod, e.target)
				if hint := a.hint(c, sm, e); hint != "" {
					msg += "\n" + hint
				}
				if entryInAlt(e) {
					msg += "\n" + branchNote(e)
				} else {
					msg += "\n(in a declaration of '" + sd.module + "' only some renders make, which another declaration of its ID stands for here: Salt refuses the run where it renders)"
				}
				a.contextual(analysis.Diagnostic{At: e.span, Severity: analysis.Warning, Code: "missing-requisite", Message: msg, Unresolved: true}, e.target, e.mod)
			}
		}
	}
}

// crashError reports where salt-call dies with a Python exception, so
// the run ends with a traceback instead of results.
func (a *analyzer) crashError(sm *sim) {
	cr := sm.crash
	d := analysis.Diagnostic{Severity: analysis.Error, Code: "salt-crash", At: a.node(cr.at).Decl}
	switch cr.kind {
	case "recursion":
		loopFrom := -1
		for i, ch := range cr.stack {
			if ch == cr.at {
				loopFrom = i
				break
			}
		}
		if loopFrom < 0 {
			first := cr.stack[0]
			d.At = a.node(first).Decl
			d.Message = fmt.Sprintf("Salt stops with RecursionError: maximum recursion depth exceeded: running %s runs a chain of %d states, each waiting for the next, deeper than Python's recursion limit allows (Salt 3007 survives %d)", first.id, len(cr.stack)+1, pythonDepth)
			d.Related = append(d.Related, analysis.Related{At: a.node(cr.at).Decl, Message: cr.at.id + " is where the limit is reached"})
			break
		}
		var ids []string
		seen := map[*chunk]bool{}
		prereqTarget := ""
		for _, ch := range cr.stack[loopFrom:] {
			if seen[ch] {
				break
			}
			seen[ch] = true
			ids = append(ids, ch.id)
			if prereqTarget == "" && len(ch.reqs.get(rqPrerequired)) > 0 {
				prereqTarget = ch.id
			}
			if ch != cr.at {
				d.Related = append(d.Related, analysis.Related{At: a.node(ch).Decl, Message: ch.id + " is on the loop"})
			}
		}
		d.Message = fmt.Sprintf("Salt never finishes this run: running %s runs its requisites first, and they lead back to it (%s -> %s) without end", cr.at.id, strings.Join(ids, " -> "), cr.at.id)
		if prereqTarget != "" {
			d.Message += fmt.Sprintf("; Salt's check for recursive requisites skips %s because a prereq watches it", prereqTarget)
		}
		d.Message += ". salt-call stops with RecursionError: maximum recursion depth exceeded"
	case "unbound":
		d.Message = fmt.Sprintf("Salt crashes on %s: an onfail_all target has not run yet, and %s has no other requisite that Salt runs first (call_chunk does not pull onfail_all), so call_chunk fails with UnboundLocalError: cannot access local variable 'chunk' (salt-call prints a traceback instead of results). Put the onfail_all targets earlier (order, or a require on them)", cr.at.id, cr.at.id)
	case "listen_in":
		d.At = cr.entry.span
		d.Message = fmt.Sprintf("Salt crashes at the end of the run: a listen_in item must name a module (`- <module>: %s`); call_listen fails with AttributeError: 'str' object has no attribute 'items'", cr.entry.target)
	}
	a.diag(d)
}

// onfailAll explains a Salt 3006/3007 trap: check_requisite waits for
// onfail_all targets, but call_chunk's list of requisites to run first
// has no onfail_all, so a state whose onfail_all target comes later is
// re-checked twenty times and fails with "Recursive requisite found".
func (a *analyzer) onfailAll(sm *sim) {
	var rec []*chunk
	for ch := range sm.recursive {
		rec = append(rec, ch)
	}
	sort.Slice(rec, func(i, j int) bool { return rec[i].index < rec[j].index })
	for _, ch := range rec {
		for _, e := range ch.reqs.get(rqOnfailAll) {
			m := sm.match(e)
			for _, t := range m.chunks {
				r := sm.running[t.tid]
				mine := sm.running[ch.tid]
				if r == nil || mine == nil || r.num >= mine.num {
					a.diag(analysis.Diagnostic{At: e.span, Severity: analysis.Warning, Code: "onfail-all-later",
						Message: fmt.Sprintf("Recursive requisite found: %s runs after %s, and Salt does not run onfail_all requisites first (call_chunk pulls require, watch, prereq, onfail, onchanges and their _any forms, not onfail_all); %s fails after 20 attempts. Put %s earlier (order, or a require on it)", t.id, ch.id, ch.id, t.id)})
					break
				}
			}
		}
	}
}

func (a *analyzer) cycles(c *compiler, sm *sim, run *analysis.Run) {
	var nodes []*analysis.Node
	nodeChunk := map[*analysis.Node]*chunk{}
	for _, ch := range sm.chunks {
		n := a.node(ch)
		if _, ok := nodeChunk[n]; !ok {
			nodes = append(nodes, n)
			nodeChunk[n] = ch
		}
	}
	inRun := map[*analysis.Node]bool{}
	for _, n := range nodes {
		inRun[n] = true
	}
	byIndex := make([]*analysis.Node, len(a.rec.keyList))
	for n := range nodeChunk {
		byIndex[n.Index] = n
	}
	var edges []*analysis.Edge
	entry := map[*analysis.Edge]*reqEntry{}
	for _, r := range a.rec.edges {
		from, to := byIndex[r.from], byIndex[r.to]
		if from != nil && to != nil && inRun[from] && inRun[to] && r.kind.Orders() {
			e := &analysis.Edge{From: from, To: to, Kind: r.kind, Reason: r.reason, At: r.e.span}
			entry[e] = r.e
			edges = append(edges, e)
		}
	}
	idx := map[*analysis.Node]int{}
	for _, ch := range sm.chunks {
		n := a.node(ch)
		if _, ok := idx[n]; !ok {
			idx[n] = ch.index
		}
	}
	less := func(x, y *analysis.Node) bool { return idx[x] < idx[y] }
	reported := map[string]bool{}
	for _, p := range c.problems {
		if p.code == "cycle" {
			reported[p.msg] = true
		}
	}
	// Only cycles one render can have (requisites in branches of Jinja
	// conditions that exclude each other make none).
	for _, cc := range analysis.FeasibleCycles(nodes, edges, less, func(e *analysis.Edge) []analysis.Branch { return armsOf(entry[e]) }) {
		cyc := cc.Path
		ns := analysis.CycleNodes(cyc)
		ns = ns[:len(ns)-1]
		var ids []string
		for i := len(ns) - 1; i >= 0; i-- {
			ids = append(ids, fmt.Sprintf("ID \"%s\"", nodeChunk[ns[i]].id))
		}
		first := nodeChunk[ns[len(ns)-1]]
		var msg string
		if a.master {
			var parts []string
			for _, e := range cyc {
				parts = append(parts, fmt.Sprintf("(%s, '%s', %s)", chunkStr(nodeChunk[e.To]), strings.SplitN(e.Reason, " ", 2)[0], chunkStr(nodeChunk[e.From])))
			}
			msg = "Recursive requisites were found: " + strings.Join(parts, ", ")
			run.Refused = true
		} else {
			msg = fmt.Sprintf("A recursive requisite was found, SLS \"%s\" %s", first.sls, strings.Join(ids, " "))
		}
		dup := false
		if !a.master && len(ns) <= 2 {
			// verify_high reports this pair (in one of the two orders),
			// or a state requiring itself (ID "x" ID "x")
			for m := range reported {
				if strings.Contains(m, fmt.Sprintf("ID \"%s\"", nodeChunk[ns[0]].id)) && strings.Contains(m, fmt.Sprintf("ID \"%s\"", nodeChunk[ns[len(ns)-1]].id)) {
					dup = true
				}
			}
		}
		if dup {
			// give the verify_high diagnostic every edge
			for _, p := range c.problems {
				if p.code == "cycle" && len(p.related) < len(cyc) {
					p.related, p.members = nil, ns
					for _, e := range cyc {
						p.related = append(p.related, relatedSpan{e.At, fmt.Sprintf("%s %s %s", nodeChunk[e.To].id, e.Reason, nodeChunk[e.From].id)})
					}
				}
			}
			continue
		}
		d := analysis.Diagnostic{At: cyc[len(cyc)-1].At, Severity: analysis.Error, Code: "cycle", Message: msg}
		if len(cc.When) > 0 {
			// Only renders that take these Jinja branches have it.
			d.Severity = analysis.Warning
			if when := armsText(cc.When); when != "" {
				d.Message += "\nwhen " + when
			}
		}
		for _, e := range cyc[:len(cyc)-1] { // the last edge is the diagnostic's own
			d.Related = append(d.Related, analysis.Related{At: e.At, Message: fmt.Sprintf("%s %s %s", nodeChunk[e.To].id, e.Reason, nodeChunk[e.From].id)})
		}
		d.Members = ns
		a.contextual(d, "", "")
	}
}

func (a *analyzer) runProblemsRest(c *compiler, sm *sim, pos map[*chunk]int, run *analysis.Run) {
	// order: last pulled earlier by a requisite
	pulled := make([]*chunk, 0, len(sm.pulledBy))
	for ch := range sm.pulledBy {
		pulled = append(pulled, ch)
	}
	sort.Slice(pulled, func(i, j int) bool { return pulled[i].index < pulled[j].index })
	for _, ch := range pulled {
		by := sm.pulledBy[ch]
		if ch.orderHow != "last" || by.order >= ch.order || ch.ov.arg == nil || ch.ov.arg.keyNode == nil {
			continue
		}
		f := ch.ov.arg.f
		a.diag(analysis.Diagnostic{At: source.Span{URI: f.file.URI, Start: ch.ov.arg.keyNode.Start, End: ch.ov.arg.val.End},
			Severity: analysis.Info, Code: "order-last-pulled",
			Message: fmt.Sprintf("%s has order: last, but %s (order %s) requires it: Salt runs it before %s, at position %d of %d in %s, not last",
				ch.id, by.id, strconv.FormatFloat(by.order, 'f', -1, 64), by.id, pos[ch]+1, len(sm.order), run.Name)})
	}
	// watch on a state without mod_watch
	for _, ch := range sm.chunks {
		if len(ch.watchAsRequire) == 0 {
			continue
		}
		if ar := ch.watchArg; ar != nil && ar.keyNode != nil && ar.f != nil {
			a.diag(analysis.Diagnostic{At: ar.f.span(ar.keyNode), Severity: analysis.Info, Code: "watch-as-require",
				Message: fmt.Sprintf("watch on a %s state: the %s module has no mod_watch, so Salt treats this watch as require (ordering only, nothing is refreshed)", ch.state, ch.state)})
		}
		for _, e := range ch.watchAsRequire {
			if e.inFrom != nil {
				a.diag(analysis.Diagnostic{At: e.inFrom.span, Severity: analysis.Info, Code: "watch-as-require",
					Message: fmt.Sprintf("watch_in on a %s state: the %s module has no mod_watch, so Salt treats this as require (ordering only, nothing is refreshed)", ch.state, ch.state)})
			}
		}
	}
	// sls requisites on an SLS that only includes others
	for _, ch := range sm.chunks {
		for ki, key := range reqKeyOrder {
			entries := ch.reqs.get(ki)
			for _, e := range entries {
				if e.mod != "sls" || hasGlob(e.target) || e.inFrom != nil {
					continue
				}
				tf := c.t.bySLS(e.target)
				if tf == nil || len(tf.ids) > 0 || len(tf.includes) == 0 || tf.generator {
					continue
				}
				m := sm.match(e)
				if len(m.chunks) == 0 {
					continue
				}
				direct := map[string]bool{}
				for _, x := range m.chunks {
					direct[x.sls] = true
				}
				var names []string
				for n := range direct {
					names = append(names, n)
				}
				sort.Strings(names)
				a.diag(analysis.Diagnostic{At: e.span, Severity: analysis.Info, Code: "sls-include-only",
					Message: fmt.Sprintf("%s: sls: %s declares no states; Salt matches the states of the SLS files it includes itself and rendered first (%s), not those included deeper or already included elsewhere",
						key, e.target, strings.Join(names, ", "))})
			}
		}
	}
}

// chunkStr is DependencyGraph._chunk_str of the newer engine.
func chunkStr(ch *chunk) string {
	if ch.id != ch.name {
		return fmt.Sprintf("{'SLS': '%s', 'ID': '%s', 'NAME': '%s'}", ch.sls, ch.id, ch.name)
	}
	return fmt.Sprintf("{'SLS': '%s', 'ID': '%s'}", ch.sls, ch.id)
}

// hint explains a missing requisite when the target exists under another
// module or with another case, or when an sls target only includes others.
func (a *analyzer) hint(c *compiler, sm *sim, e *reqEntry) string {
	if e.mod == "sls" {
		if tf := c.t.bySLS(e.target); tf != nil && len(tf.ids) == 0 && len(tf.includes) > 0 && !tf.generator {
			return fmt.Sprintf("SLS '%s' only includes other SLS files, and their states were already included from elsewhere first, so none counts as included from '%s'", e.target, e.target)
		}
		return ""
	}
	var mods []string
	seen := map[string]bool{}
	for _, ch := range append(append([]*chunk(nil), sm.byID[e.target]...), sm.byName[e.target]...) {
		if ch.state != e.mod && !seen[ch.state] {
			seen[ch.state] = true
			mods = append(mods, ch.state)
		}
	}
	if len(mods) > 0 {
		return fmt.Sprintf("'%s' is a %s state, not %s: write `- %s: %s`", e.target, strings.Join(mods, "/"), e.mod, mods[0], e.target)
	}
	low := strings.ToLower(e.target)
	for _, ch := range sm.chunks {
		if (strings.ToLower(ch.id) == low || strings.ToLower(ch.name) == low) && (e.mod == "id" || ch.state == e.mod) {
			other := ch.id
			if strings.ToLower(ch.id) != low {
				other = ch.name
			}
			return fmt.Sprintf("IDs and names are case-sensitive: did you mean '%s'?", other)
		}
	}
	return ""
}

// declaredElsewhere finds a file read (of any file root), not part of
// the run, that declares the target of c: by its ID or a name, with the
// requisite's module. exact: written as is; otherwise a template pattern
// may make it (`user_{{ u }}` in a loop over pillar data), disp is how
// the template writes it. A literal declaration wins over a pattern.
func (a *analyzer) declaredElsewhere(c *ctxDiag) (where string, exact bool, disp string, in *sfile) {
	// only files an include of this SLS could name: under a file root
	// of its saltenv
	var roots []string
	if of := a.fileOf(c.d.At.URI); of != nil {
		roots = []string{of.root}
		if t := a.trees[of.root]; t != nil {
			roots = t.rootList()
		}
	}
	for _, tf := range a.allFiles() {
		t, f := tf.t, tf.f
		if c.inRun[f.file.URI] {
			continue
		}
		if roots != nil && !slices.ContainsFunc(roots, func(r string) bool { return strings.HasPrefix(f.file.Path, r+string(filepath.Separator)) }) {
			continue
		}
		for _, d := range f.ids {
			ex, pat, n := declares(d, c.target, c.mod)
			if ex {
				return analysis.WhereMark(a.req.Workspace, t.root, f.span(n)), true, "", f
			}
			if pat && where == "" {
				where, disp, in = analysis.WhereMark(a.req.Workspace, t.root, f.span(n)), f.p.Display(n), f
			}
		}
		if f.p.Skipped && where == "" {
			if sp, key, ok := a.opaqueDeclares(f, c.target); ok {
				where, disp, in = analysis.WhereMark(a.req.Workspace, t.root, source.Span{URI: f.file.URI, Start: sp, End: sp + len(key)}), key, f
			}
		}
	}
	return where, false, disp, in
}

// opaqueDeclares looks into the text of a file whose renderer is not
// analysed (`#!stateconf`, `#!py`) for what may declare target: a
// top-level key that is the target or a template of it
// (`rsyslog-{{ file.tag }}:` in hakoerber/salt-states' stateconf file),
// or the target written as a string. Its offset and words. The keys are
// read once per file and analysis (every missing target asks each file).
func (a *analyzer) opaqueDeclares(f *sfile, target string) (int, string, bool) {
	keys, ok := a.opaqueKeys[f]
	if !ok {
		keys = topKeys(f.file.Text)
		if a.opaqueKeys == nil {
			a.opaqueKeys = map[*sfile][]topKey{}
		}
		a.opaqueKeys[f] = keys
	}
	for _, k := range keys {
		if k.key == target || k.pat != k.key && strings.Trim(k.pat, sp.Unknown) != "" && fnmatch(target, k.pat) {
			return k.off, k.key, true
		}
	}
	text := string(f.file.Text)
	for _, q := range []string{`"`, `'`} {
		if i := strings.Index(text, q+target+q); i >= 0 {
			return i + 1, target, true
		}
	}
	return 0, "", false
}

// topKey is a top-level `key:` of a text, with its template holes as
// unknown output (pat).
type topKey struct {
	off      int
	key, pat string
}

func topKeys(text []byte) []topKey {
	var out []topKey
	off := 0
	for _, line := range strings.SplitAfter(string(text), "\n") {
		start := off
		off += len(line)
		if line == "" || line[0] == ' ' || line[0] == '\t' || line[0] == '#' {
			continue
		}
		key, _, ok := strings.Cut(strings.TrimRight(line, "\r\n"), ":")
		if !ok || key == "" {
			continue
		}
		out = append(out, topKey{start, key, templateHoles.ReplaceAllString(key, sp.Unknown)})
	}
	return out
}

// templateHoles: the Jinja expressions of a line, output nobody knows.
var templateHoles = lazyre.New(`{{.*?}}`)

// declares reports whether declaration d is (exact) or may be (pat: a
// template pattern) the state a requisite on (mod, target) names, and
// the node that says so (the ID, a name: or names: entry). Salt matches
// a requisite by ID or by name (salt/state.py find_name).
func declares(d *idDecl, target, mod string) (exact, pat bool, at *sp.Node) {
	if d.bad != "" {
		return false, false, nil
	}
	modOK := mod == "" || mod == "id"
	for _, sd := range d.decls {
		if sd.module == mod || strings.Contains(sd.module, sp.Unknown) {
			modOK = true
		}
	}
	if !modOK {
		return false, false, nil
	}
	check := func(v string, n *sp.Node) bool {
		switch {
		case v == target:
			exact, at = true, n
			return true
		case !pat && strings.Contains(v, sp.Unknown) && strings.Trim(v, sp.Unknown) != "" && fnmatch(target, v):
			// (a pattern with some text of its own: one made of
			// template output alone, `{{ package.name }}`, matches
			// every name and says nothing about this one)
			pat, at = true, n
		}
		return false
	}
	if check(d.id, d.key) {
		return true, false, d.key
	}
	for _, sd := range d.decls {
		if mod != "" && mod != "id" && sd.module != mod && !strings.Contains(sd.module, sp.Unknown) {
			continue
		}
		for _, ar := range sd.args {
			switch {
			case ar.key == "name" && ar.val != nil && ar.val.Kind == sp.Scalar:
				if check(ar.val.Value, ar.val) {
					return true, false, at
				}
			case ar.key == "names" && ar.val != nil && ar.val.Kind == sp.Seq:
				for _, it := range ar.val.Items {
					n := it
					if it.Kind == sp.Map && len(it.Keys) > 0 {
						n = it.Keys[0]
					}
					if n.Kind == sp.Scalar && check(n.Value, n) {
						return true, false, at
					}
				}
			}
		}
	}
	return false, pat, at
}

// templatedIncluder finds a file whose templated include may name f
// (users/init.sls: `- .{{ username }}` in a loop over pillar users,
// webplatform/salt-states): nothing links them, but where pillar says
// so, f is applied with everything that file's own run holds.
func (a *analyzer) templatedIncluder(f *sfile) (*sfile, *include) {
	for _, tf := range a.allFiles() {
		if tf.f == f || tf.f.root != f.root && !slices.Contains(tf.t.rootList(), f.root) {
			continue
		}
		for _, inc := range tf.f.includes {
			name := inc.name
			if !strings.Contains(name, sp.Unknown) {
				continue
			}
			if strings.HasPrefix(name, ".") {
				var ok bool
				if name, ok = relInclude(tf.f.sls, tf.f.init, name); !ok {
					continue
				}
			}
			if fnmatch(f.sls, name) {
				return tf.f, inc
			}
		}
	}
	return nil, nil
}

// elsewhereNote weighs a missing requisite or extend target against the
// rest of the workspace. Declared (or, by a template pattern such as a
// loop over pillar data, maybe declared) in a file this SLS's runs do not
// include: the SLS alone lacks it, applied with that file it works.
// When nothing in the repository includes this SLS or targets it from a
// top file (a file is analysed as if applied alone, `state.sls NAME`),
// how it is applied is outside the workspace (a command line, an
// include whose name pillar decides): information saying where the
// target is and how to make it known. When something includes it, the
// runs the repository makes all lack the target: a warning. A target
// nothing declares and no template could make stays an error.
func (a *analyzer) elsewhereNote(c *ctxDiag) {
	where, exact, disp, declFile := a.declaredElsewhere(c)
	if where == "" {
		return
	}
	what := "'" + c.target + "' is declared in " + where
	if !exact {
		what = "'" + c.target + "' may be declared by `" + disp + "` at " + where + " (a template whose data the machine decides)"
		if declFile != nil && declFile.p.Skipped {
			what = "'" + c.target + "' may be declared by `" + disp + "` at " + where + " (its renderer, " + declFile.p.Renderer + ", is not analysed)"
		}
	}
	f := a.fileOf(c.d.At.URI)
	if a.req.Entry != "" || f == nil || a.named(f) {
		c.d.Severity = analysis.Warning
		c.d.Message += "\n(" + what + ", which this SLS does not include: include it, or apply both together from top.sls)"
		return
	}
	c.d.Severity = analysis.Info
	if inc, ii := a.templatedIncluder(f); inc != nil && slices.Contains(a.slsRunFiles[inc.file.URI], declFile.file.URI) {
		c.d.Message += "\n(" + what + ", which the run of " + inc.sls + " holds; its include `" + inc.p.Display(ii.node) + "` (" +
			a.where(source.Span{URI: inc.file.URI, Start: ii.node.Start, End: ii.node.End}) +
			") may name this SLS, as the minion's pillar or grains decide: give them (--salt-facts, setting salt.facts) to have it checked)"
		return
	}
	c.d.Message += "\n(" + what + ". Nothing in the repository includes this SLS or targets it from a top file, so it was analysed as applied alone (state.sls " + f.sls +
		"); whatever applies it may bring that state: include it here, or target both from a top file, to have it checked)"
}

// fileOf finds a file read by its URI.
func (a *analyzer) fileOf(uri string) *sfile {
	for _, tf := range a.allFiles() {
		if tf.f.file.URI == uri {
			return tf.f
		}
	}
	return nil
}

type treeFile struct {
	t *tree
	f *sfile
}

// allFiles lists every file read, by root and path (map order would make
// the order of diagnostics, and which of two declarations a hint names,
// differ between analyses).
func (a *analyzer) allFiles() []treeFile {
	if a.filesRead != nil {
		return a.filesRead
	}
	roots := make([]string, 0, len(a.trees))
	for r := range a.trees {
		roots = append(roots, r)
	}
	sort.Strings(roots)
	out := []treeFile{}
	for _, r := range roots {
		t := a.trees[r]
		paths := make([]string, 0, len(t.byPath))
		for p, f := range t.byPath {
			if f != nil {
				paths = append(paths, p)
			}
		}
		sort.Strings(paths)
		for _, p := range paths {
			out = append(out, treeFile{t, t.byPath[p]})
		}
	}
	a.filesRead = out
	return out
}

func (a *analyzer) finish() {
	for _, k := range a.ctxOrd {
		c := a.ctx[k]
		if c.runs < a.runFiles[c.d.At.URI] {
			continue
		}
		if a.minion != nil && a.topNamed[c.d.At.URI] && !a.minionFiles[c.d.At.URI] {
			continue // another minion's SLS: its analysis reports it
		}
		switch {
		case c.target != "" && a.minion != nil && a.minionFiles[c.d.At.URI]:
			a.minionNote(c)
		case c.target != "":
			a.elsewhereNote(c)
		}
		a.diag(c.d)
	}
	for _, l := range a.linkList {
		if len(l.list) == 0 && len(l.files) == 0 {
			continue
		}
		a.res.Links = append(a.res.Links, analysis.Link{At: l.at, Nodes: l.list, Files: l.files})
	}
	for _, r := range a.inFacts {
		a.fact(r.n, "declared by "+r.o.key, fmt.Sprintf("%s: %s (%s)", r.o.state, r.o.id, a.where(r.o.span)))
	}
	// one line per label, values of several runs joined
	for i, fs := range a.facts {
		if len(fs) == 0 {
			continue
		}
		n := a.res.Graph.Nodes[i]
		if len(fs) <= 2 && (len(fs) < 2 || fs[0].Label != fs[1].Label) {
			n.Facts = append(n.Facts, fs...)
			continue
		}
		done := make([]bool, len(fs))
		for i, f := range fs {
			if done[i] {
				continue
			}
			v := f.Value
			for j := i + 1; j < len(fs); j++ {
				if !done[j] && fs[j].Label == f.Label {
					v += "; " + fs[j].Value
					done[j] = true
				}
			}
			n.Facts = append(n.Facts, analysis.Fact{Label: f.Label, Value: v})
		}
	}
	_ = os.Getenv
}
