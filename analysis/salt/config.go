package salt

import (
	"bytes"
	"hash/maphash"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/ordering-lsp/ordering-lsp/analysis"
	"github.com/ordering-lsp/ordering-lsp/internal/lazyre"
	sp "github.com/ordering-lsp/ordering-lsp/parser/salt"
	"github.com/ordering-lsp/ordering-lsp/source"
)

// A repository often carries the configuration of the master that serves
// it: a master (or minion) config file, or the pillar salt-formula turns
// into one (`salt:master:file_roots`). What it says about file_roots is
// evidence the analysis otherwise guesses: which folder of the workspace
// is a file root, and whether the master serves other file roots, outside
// the workspace (formulas installed from packages or cloned elsewhere),
// from which an include nothing in the workspace provides may come
// (openSUSE heroes-salt's pillar/role/saltmaster.sls serves /srv/salt,
// /usr/share/salt-formulas/states and /srv/formulas: 88 includes of
// formulas). Only structured configuration is read: YAML files where the
// master reads its configuration, and pillar SLS files; paths a script
// assembles (wuxxin/salt-shared's execute-saltstack.sh writes
// `$base_path/$i` in a heredoc) are not.

// cfgRoots is what the repository's configuration says about file roots.
type cfgRoots struct {
	scopes []string // the folders whose configuration counts (repoScopes)
	paths  []string // every absolute file root named, in order, once
	// local: those inside the workspace (file roots it holds);
	// external: those outside it
	local, external []string
	where           string // the first configuration naming an external root, file:line:col
	rootsWhere      string // the first file_roots of the configuration, file:line:col
	// envs: the file roots of each saltenv in the order the
	// configuration gives them (Salt looks for a file in each root of
	// the saltenv in turn: salt/fileserver/roots.py find_file), the
	// environments in the order first named
	envs []cfgEnv
	// remotes: gitfs_remotes, when the git backend may be on (see
	// gitOn)
	remotes []gitRemote
	// backends: fileserver_backend as configured (normalised: gitfs ->
	// git), nil when no configuration names it (Salt's default: roots)
	backends     []string
	backendWhere string
	// others: backends besides roots and git (hg, svn, s3, minion,
	// azure): they serve files nobody can list here
	others []string
	// deployed: external roots that are folders of the repository
	// deployed elsewhere, by their path in the workspace; submodule:
	// those whose folder is a git submodule not checked out, by the
	// submodule's path (mapDeployed)
	deployed  map[string]string
	submodule map[string]string
	// absent: external roots under the deployment prefix whose folder
	// the workspace lacks (git-ignored, generated), by that folder's
	// path relative to the repository (mapDeployed)
	absent map[string]string
	// remotesOff: gitfs_remotes are named but fileserver_backend leaves
	// git out, so Salt never loads them (salt/fileserver/gitfs.py
	// __virtual__)
	remotesOff bool
	// strategy, envOrder, defaultTop: how top files of several saltenvs
	// merge (top_file_merging_strategy, env_order, default_top; Salt's
	// defaults when unset: merge, the saltenvs' own order, base)
	strategy, defaultTop string
	envOrder             []string
	strategyWhere        string
	envOrderWhere        string
}

// cfgEnv is one saltenv of file_roots.
type cfgEnv struct {
	name  string
	roots []string // absolute, cleaned, in order
}

// gitRemote is one entry of gitfs_remotes.
type gitRemote struct {
	url        string
	name       string // the repository's name: the URL's last component without .git
	root       string // per-remote (or gitfs_root) subfolder served
	mountpoint string // per-remote (or gitfs_mountpoint) path prefix, without salt://
	where      string // file:line:col of the entry
	// local: a clone in the workspace (a folder named after the
	// repository, its root subfolder): read as a file root
	local string
}

// key identifies what the configuration says, for the run cache.
func (c *cfgRoots) key() string {
	if c == nil {
		return ""
	}
	var b strings.Builder
	b.WriteString(strings.Join(c.paths, "\x01") + "\x02" + c.where + "\x02" + c.rootsWhere + "\x02" + c.backendWhere)
	for _, e := range c.envs {
		b.WriteString("\x03" + e.name + "=" + strings.Join(e.roots, "\x01"))
	}
	for _, r := range c.remotes {
		b.WriteString("\x04" + r.url + "|" + r.root + "|" + r.mountpoint + "|" + r.where + "|" + r.local)
	}
	for k, v := range c.deployed {
		b.WriteString("\x06" + k + "=" + v)
	}
	for k, v := range c.submodule {
		b.WriteString("\x07" + k + "=" + v)
	}
	b.WriteString("\x08" + c.strategy + "|" + c.defaultTop + "|" + strings.Join(c.envOrder, ",") + "|" + c.strategyWhere + "|" + c.envOrderWhere)
	b.WriteString("\x05" + strings.Join(c.backends, ",") + "|" + strings.Join(c.others, ",") + "|" + strconv.FormatBool(c.remotesOff))
	return b.String()
}

// servesOthers reports whether the master serves file roots besides one:
// an include nothing in the workspace provides may come from another.
func (c *cfgRoots) servesOthers() bool {
	return c != nil && len(c.paths) > 1 && len(c.external) > 0
}

// servesOthersIn: as servesOthers, for the file roots of saltenv env
// (all of them when no configuration names env).
func (c *cfgRoots) servesOthersIn(env string) bool {
	if c == nil {
		return false
	}
	for _, e := range c.envs {
		if e.name == env {
			return len(e.roots) > 1 && len(c.externalOf(env)) > 0
		}
	}
	return c.servesOthers()
}

// closedNote says why an include of a package nothing in the workspace
// has fails everywhere.
func (c *cfgRoots) closedNote(env string) string {
	note := "the repository's master configuration (" + c.rootsWhere + ") serves saltenv " + env +
		" from file roots in the workspace only, without gitfs or another backend: no minion can get it"
	if c.remotesOff {
		note += " (its gitfs_remotes are not used: fileserver_backend (" + c.backendWhere + ") leaves git out)"
	}
	return note
}

// envOf finds the saltenv whose file roots hold root (base first), and
// the local file roots of that saltenv in Salt's order (root among
// them), with the local clones of gitfs remotes after them (or before,
// when fileserver_backend lists git before roots). A root no
// configuration names is a saltenv of its own: "", [root].
func (c *cfgRoots) envOf(root string) (string, []string) {
	if c == nil {
		return "", []string{root}
	}
	var env *cfgEnv
	for i := range c.envs {
		if slices.Contains(c.envs[i].roots, root) && (env == nil || c.envs[i].name == "base") {
			env = &c.envs[i]
		}
	}
	var clones []string
	for _, r := range c.remotes {
		if r.local != "" && !slices.Contains(clones, r.local) {
			clones = append(clones, r.local)
		}
	}
	if env == nil {
		if slices.Contains(clones, root) {
			// a clone of a remote: served with the roots of base
			for i := range c.envs {
				if c.envs[i].name == "base" {
					env = &c.envs[i]
				}
			}
			if env == nil {
				return "base", clones
			}
		} else {
			return "", []string{root}
		}
	}
	return env.name, c.envRoots(env.name)
}

// envRoots lists the roots of saltenv env in the workspace, in Salt's
// order: the configured ones, and the clones of gitfs remotes after
// them (or before, when fileserver_backend lists git first).
func (c *cfgRoots) envRoots(env string) []string {
	var local, clones []string
	for _, e := range c.envs {
		if e.name != env {
			continue
		}
		for _, r := range e.roots {
			if slices.Contains(c.local, r) {
				local = append(local, r)
			}
		}
	}
	for _, r := range c.remotes {
		if r.local != "" && !slices.Contains(clones, r.local) {
			clones = append(clones, r.local)
		}
	}
	if c.gitFirst() {
		return append(clones, local...)
	}
	return append(local, clones...)
}

// gitFirst: fileserver_backend lists git before roots (Salt asks the
// backends in that order, salt/fileserver/__init__.py find_file).
func (c *cfgRoots) gitFirst() bool {
	gi, ri := slices.Index(c.backends, "git"), slices.Index(c.backends, "roots")
	return gi >= 0 && (ri < 0 || gi < ri)
}

// externalOf lists the file roots of saltenv env outside the workspace.
func (c *cfgRoots) externalOf(env string) []string {
	if c == nil {
		return nil
	}
	var out []string
	for _, e := range c.envs {
		if e.name != env {
			continue
		}
		for _, r := range e.roots {
			if slices.Contains(c.external, r) {
				out = append(out, r)
			}
		}
	}
	return out
}

// closed reports whether the configuration says everything the master
// serves in saltenv env: file roots all in the workspace, no gitfs
// remote it cannot read, no other backend. An SLS none of those roots
// holds then fails on every minion.
func (c *cfgRoots) closed(env string) bool {
	if c == nil || len(c.others) > 0 || len(c.deployed) > 0 {
		return false
	}
	found := false
	for _, e := range c.envs {
		if e.name == env {
			found = true
		}
	}
	if !found || len(c.externalOf(env)) > 0 {
		return false
	}
	if c.gitOn() {
		if len(c.remotes) == 0 {
			return false // git is on, its remotes are named elsewhere
		}
		for _, r := range c.remotes {
			if r.local == "" {
				return false
			}
		}
	}
	return true
}

// gitOn: gitfs may serve files. fileserver_backend names git, or no
// configuration names fileserver_backend while gitfs_remotes are given
// (the backend list may be set where the repository does not say).
func (c *cfgRoots) gitOn() bool {
	if c == nil {
		return false
	}
	if c.backends == nil {
		return len(c.remotes) > 0
	}
	return slices.Contains(c.backends, "git")
}

// remotesFor lists the gitfs remotes not cloned in the workspace that
// may serve SLS sls: a remote with a mountpoint serves only below it;
// one without serves any path, but a package the workspace has (pkgHere)
// is taken to be the repository's own unless the remote is named after
// it (jenkins-formula for jenkins.nginx): Salt merges the roots file by
// file, yet a missing file of the repository's own package is far more
// likely a typo than a file a formula of another name adds to it.
func (c *cfgRoots) remotesFor(sls string, pkgHere bool) (named, any []gitRemote) {
	if c == nil || !c.gitOn() {
		return nil, nil
	}
	path := strings.ReplaceAll(sls, ".", "/")
	top, _, _ := strings.Cut(sls, ".")
	for _, r := range c.remotes {
		if r.local != "" {
			continue
		}
		if r.mountpoint != "" {
			if path == r.mountpoint || strings.HasPrefix(path, r.mountpoint+"/") {
				named = append(named, r)
			}
			continue
		}
		switch {
		case remoteNamedFor(r.name, top):
			named = append(named, r)
		case !pkgHere:
			any = append(any, r)
		}
	}
	return named, any
}

// remoteNamedFor: the repository's name says it holds package top
// (jenkins-formula, saltstack-sysctl-formula, salt-formula for salt).
func remoteNamedFor(name, top string) bool {
	n := strings.ToLower(name)
	if n == top || strings.TrimSuffix(n, "-formula") == top || strings.TrimSuffix(n, "_formula") == top {
		return true
	}
	for _, w := range strings.FieldsFunc(n, func(r rune) bool { return r == '-' || r == '_' || r == '.' }) {
		if w == top && w != "formula" && w != "saltstack" && w != "states" {
			return true
		}
	}
	return false
}

// repoScopes lists the folders whose configuration counts: the workspace
// folders, else (the command line) the repository holding the analysed
// files (the folder with .git above their common folder, at most 8 up),
// else the nearest folder above them whose Salt configuration serves
// them (configScope), else their common folder.
func (s *System) repoScopes(ws *source.Workspace, files []*source.File) []string {
	scopes := analysis.RepoRoots(ws, files, ".git")
	if len(ws.Roots()) > 0 || len(scopes) != 1 || ws.Exists(filepath.Join(scopes[0], ".git")) {
		return scopes
	}
	if d := s.configScope(ws, scopes[0], files); d != "" {
		return []string{d}
	}
	return scopes
}

// configScope: `order top.sls` in a copy without .git saw only the
// folder of top.sls, so the master configuration beside the state trees
// (Runbook/runbook-ops' states/base/salt/config/etc/salt/master.d/
// file_roots.conf, naming /data/salt/states/base and .../runbook) was
// never read, while `check .` at the repository's top read it. Each
// folder from the files' own upwards (at most 8) is asked whether a
// configuration under it names a file root holding one of the files;
// the climb stops at a folder too big to be one repository
// (configScopeEntries), where reading it would cost more than the
// answer is worth.
func (s *System) configScope(ws *source.Workspace, from string, files []*source.File) string {
	sig := filesSig(files)
	for d, i := from, 0; i < 8; i++ {
		if !smallFolder(d, configScopeEntries) {
			return ""
		}
		if c := s.readConfigRoots(ws, []string{d}, sig, files); c != nil && c.servesAny(files) {
			return d
		}
		p := filepath.Dir(d)
		if p == d {
			break
		}
		d = p
	}
	return ""
}

// configScopeEntries bounds the folders configScope reads: a checkout of
// the largest Salt trees seen here (openSUSE heroes-salt, salt-shared)
// holds a few thousand entries (heroes-salt 1,100, neg-serg/salt 1,500).
const configScopeEntries = 10000

// smallFolder: d holds at most max entries (the walk configFiles makes:
// hidden folders and node_modules left out).
func smallFolder(d string, max int) bool {
	n := 0
	err := filepath.WalkDir(d, func(p string, e fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if e.IsDir() && p != d && (strings.HasPrefix(e.Name(), ".") || e.Name() == "node_modules") {
			return filepath.SkipDir
		}
		if n++; n > max {
			return fs.SkipAll
		}
		return nil
	})
	return err == nil && n <= max
}

// servesAny: some file lies under a file root of some saltenv.
func (c *cfgRoots) servesAny(files []*source.File) bool {
	for _, e := range c.envs {
		for _, r := range e.roots {
			for _, f := range files {
				if f.Path != "" && strings.HasPrefix(f.Path, r+string(filepath.Separator)) {
					return true
				}
			}
		}
	}
	return false
}

// isConfigFile: where Salt reads its own configuration (master, minion,
// master.d/*.conf, minion.d/*.conf), or a pillar SLS file (salt-formula's
// pillar becomes the master's configuration).
func isConfigFile(path string) (config, pillar bool) {
	base := filepath.Base(path)
	dir := filepath.Base(filepath.Dir(path))
	switch {
	case base == "master" || base == "minion":
		return true, false
	case strings.HasSuffix(base, ".conf") && (dir == "master.d" || dir == "minion.d"):
		return true, false
	case strings.HasSuffix(base, ".sls"):
		p := filepath.ToSlash(path)
		return false, strings.Contains(p, "/pillar/") || strings.Contains(p, "/pillars/")
	}
	return false, false
}

// configFiles lists the configuration files under scope, and its
// folders (four levels down) by name, where a clone of a gitfs remote
// may be. The walk is kept while the analysed files stay the same (sig):
// an edit does not walk the repository again; a file created or deleted
// does.
func (s *System) configFiles(ws *source.Workspace, scope, sig string) cfgFileList {
	s.mu.Lock()
	c, ok := s.cfgFiles[scope]
	s.mu.Unlock()
	if ok && c.sig == sig {
		return c
	}
	var files []string
	dirs := map[string][]string{filepath.Base(scope): {scope}}
	// git submodules are other repositories: their configuration (a
	// formula's test pillar) is not this master's
	submodules := map[string]bool{}
	if gm := ws.Lookup(filepath.Join(scope, ".gitmodules")); gm != nil {
		for _, m := range gitmodulePaths(gm.Text) {
			submodules[filepath.Join(scope, m)] = true
		}
	}
	_ = filepath.WalkDir(scope, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if d.IsDir() {
			if p != scope && (strings.HasPrefix(d.Name(), ".") || d.Name() == "node_modules") {
				return filepath.SkipDir
			}
			if submodules[p] {
				dirs[d.Name()] = append(dirs[d.Name()], p)
				return filepath.SkipDir
			}
			if p != scope && strings.Count(p[len(scope):], string(filepath.Separator)) <= 4 {
				dirs[d.Name()] = append(dirs[d.Name()], p)
			}
			return nil
		}
		if cfg, pil := isConfigFile(p); cfg || pil {
			files = append(files, p)
		}
		return nil
	})
	for _, o := range ws.Overlays() {
		if cfg, pil := isConfigFile(o.Path); o.Path != "" && (cfg || pil) && strings.HasPrefix(o.Path, scope+string(filepath.Separator)) && !slices.Contains(files, o.Path) {
			files = append(files, o.Path)
		}
	}
	sort.Strings(files)
	c = cfgFileList{sig, files, dirs}
	s.mu.Lock()
	if s.cfgFiles == nil || len(s.cfgFiles) > 16 {
		s.cfgFiles = map[string]cfgFileList{}
	}
	s.cfgFiles[scope] = c
	s.mu.Unlock()
	return c
}

type cfgFileList struct {
	sig   string
	files []string
	dirs  map[string][]string
}

// filesSig identifies the set of analysed files.
func filesSig(files []*source.File) string {
	var h maphash.Hash
	h.SetSeed(seed)
	for _, f := range files {
		h.WriteString(f.URI)
		h.WriteByte(0)
	}
	return strconv.FormatUint(h.Sum64(), 16) + "/" + strconv.Itoa(len(files))
}

// cfgSource is one configuration: a file where Salt reads its own
// (options at the top level), salt-formula's pillar (salt:master,
// salt:minion), or a file a state installs as /etc/salt/master,
// /etc/salt/master.d/*.conf (or the minion's) from the repository.
type cfgSource struct {
	f     *source.File
	pf    *sp.File
	keys  []*sp.Node
	vals  []*sp.Node
	scope string
	via   string // "installed as /etc/salt/master.d/x.conf by salt/master.sls:3:1"
}

func (src *cfgSource) where(ws *source.Workspace, n *sp.Node) string {
	return analysis.WhereMark(ws, src.scope, source.Span{URI: src.f.URI, Start: n.Start, End: n.End})
}

// readConfigRoots reads the file roots and the git fileserver the
// configuration in scopes names.
func (s *System) readConfigRoots(ws *source.Workspace, scopes []string, sig string, files []*source.File) *cfgRoots {
	c := &cfgRoots{scopes: scopes}
	inside := func(p string) bool {
		for _, r := range scopes {
			if p == r || strings.HasPrefix(p, r+string(filepath.Separator)) {
				return true
			}
		}
		return false
	}
	var srcs []*cfgSource
	seenFile := map[string]bool{}
	add := func(f *source.File, scope string, cfg bool, via string) {
		if f == nil || seenFile[f.Path] || !bytes.Contains(f.Text, []byte("file_roots")) &&
			!bytes.Contains(f.Text, []byte("gitfs_remotes")) && !bytes.Contains(f.Text, []byte("fileserver_backend")) &&
			!bytes.Contains(f.Text, []byte("top_file_merging_strategy")) && !bytes.Contains(f.Text, []byte("env_order")) {
			return
		}
		seenFile[f.Path] = true
		pf := s.cache.parse(f.Text, nil)
		for _, e := range pf.Entries {
			if e.Key == nil || e.Val == nil {
				continue
			}
			if cfg {
				srcs = append(srcs, &cfgSource{f: f, pf: pf, keys: []*sp.Node{e.Key}, vals: []*sp.Node{e.Val}, scope: scope, via: via})
				continue
			}
			if e.Key.Value != "salt" {
				continue
			}
			// salt-formula: salt:master:..., salt:minion:...
			for _, which := range []string{"master", "minion"} {
				if m := mapGet(e.Val, which); m != nil && m.Kind == sp.Map {
					srcs = append(srcs, &cfgSource{f: f, pf: pf, keys: m.Keys, vals: m.Vals, scope: scope, via: via})
				}
			}
		}
	}
	for _, scope := range scopes {
		for _, p := range s.configFiles(ws, scope, sig).files {
			cfg, _ := isConfigFile(p)
			add(ws.Lookup(p), scope, cfg, "")
		}
	}
	for _, d := range s.deployedConfigs(ws, scopes, files) {
		add(ws.Lookup(d.path), d.scope, true, d.via)
	}
	// file_roots, fileserver_backend and gitfs options, in file order;
	// several configurations add up (master plus master.d/*.conf do)
	seen := map[string]bool{}
	// gitfs_root and gitfs_mountpoint are options of the master, wherever
	// its configuration says them (master.d/fileserver.conf beside
	// gitfs_remotes, one source per top-level entry): the last said of a
	// scope counts for every remote without its own
	type gitOpts struct{ root, mount string }
	scopeGit := map[string]gitOpts{}
	for _, src := range srcs {
		for i, k := range src.keys {
			o := scopeGit[src.scope]
			switch k.Value {
			case "gitfs_root":
				o.root, _ = src.vals[i].Str()
			case "gitfs_mountpoint":
				o.mount, _ = src.vals[i].Str()
			}
			scopeGit[src.scope] = o
		}
	}
	for _, src := range srcs {
		srcBase, srcBaseRead := "", false // (saltfileDir, read at the first relative root)
		gitRoot, gitMount := scopeGit[src.scope].root, scopeGit[src.scope].mount
		for i, k := range src.keys {
			v := src.vals[i]
			switch k.Value {
			case "file_roots":
				if v.Kind != sp.Map {
					continue
				}
				for j, envKey := range v.Keys {
					env := v.Vals[j]
					if env.Kind != sp.Seq || strings.Contains(envKey.Value, sp.Unknown) {
						continue
					}
					for _, it := range env.Items {
						p, ok := it.Str()
						if !ok || strings.Contains(p, sp.Unknown) {
							continue
						}
						if !filepath.IsAbs(p) {
							if !srcBaseRead {
								srcBase, srcBaseRead = s.saltfileDir(ws, src), true
							}
							base := srcBase
							if base == "" {
								continue // (relative to where Salt runs, which nothing here says)
							}
							p = filepath.Join(base, p)
						}
						p = filepath.Clean(p)
						if c.rootsWhere == "" {
							c.rootsWhere = src.where(ws, k) + src.via
						}
						c.addEnvRoot(envKey.Value, p)
						if seen[p] {
							continue
						}
						seen[p] = true
						c.paths = append(c.paths, p)
						if inside(p) && ws.Exists(p) && !emptyDir(p) {
							c.local = append(c.local, p)
							continue
						}
						// outside the workspace, or a folder of it whose
						// files are not there (a git submodule not checked out)
						if sm := submoduleOf(ws, scopes, p); sm != "" {
							if c.submodule == nil {
								c.submodule = map[string]string{}
							}
							c.submodule[p] = sm
						}
						c.external = append(c.external, p)
						if c.where == "" {
							c.where = src.where(ws, k) + src.via
						}
					}
				}
			case "top_file_merging_strategy":
				if x, ok := v.Str(); ok && !strings.Contains(x, sp.Unknown) {
					c.strategy, c.strategyWhere = x, src.where(ws, k)+src.via
				}
			case "default_top":
				if x, ok := v.Str(); ok && !strings.Contains(x, sp.Unknown) {
					c.defaultTop = x
				}
			case "env_order":
				if v.Kind != sp.Seq {
					continue
				}
				c.envOrder, c.envOrderWhere = nil, src.where(ws, k)+src.via
				for _, it := range v.Items {
					if x, ok := it.Str(); ok && !strings.Contains(x, sp.Unknown) {
						c.envOrder = append(c.envOrder, x)
					}
				}
			case "fileserver_backend":
				if v.Kind != sp.Seq {
					continue
				}
				if c.backends == nil {
					c.backends = []string{}
					c.backendWhere = src.where(ws, k) + src.via
				}
				for _, it := range v.Items {
					b, ok := it.Str()
					if !ok || strings.Contains(b, sp.Unknown) {
						continue
					}
					// salt/fileserver/__init__.py _gen_back: "gitfs" is "git"
					b = strings.TrimSuffix(strings.ToLower(b), "fs")
					if b == "root" {
						b = "roots"
					}
					if !slices.Contains(c.backends, b) {
						c.backends = append(c.backends, b)
					}
					if b != "roots" && b != "git" && !slices.Contains(c.others, b) {
						c.others = append(c.others, b)
					}
				}
			case "gitfs_remotes":
				if v.Kind != sp.Seq {
					continue
				}
				for _, it := range v.Items {
					if r, ok := readRemote(it); ok {
						if r.root == "" {
							r.root = gitRoot
						}
						if r.mountpoint == "" {
							r.mountpoint = gitMount
						}
						r.mountpoint = strings.Trim(strings.TrimPrefix(r.mountpoint, "salt://"), "/")
						r.root = strings.Trim(r.root, "/")
						r.where = src.where(ws, it) + src.via
						if !slices.ContainsFunc(c.remotes, func(o gitRemote) bool { return o.url == r.url && o.root == r.root && o.mountpoint == r.mountpoint }) {
							c.remotes = append(c.remotes, r)
						}
					}
				}
			}
		}
	}
	if c.backends != nil && !slices.Contains(c.backends, "git") && len(c.remotes) > 0 {
		c.remotesOff = true
		c.remotes = nil
	}
	c.mapDeployed(ws, scopes)
	// a clone of a remote in the workspace is read as a file root
	for i := range c.remotes {
		r := &c.remotes[i]
		for _, scope := range scopes {
			for _, d := range s.configFiles(ws, scope, sig).dirs[r.name] {
				p := d
				if r.root != "" && r.root != "." {
					p = filepath.Join(d, filepath.FromSlash(r.root))
				}
				if r.local == "" && ws.Exists(p) && r.mountpoint == "" {
					r.local = p
				}
			}
		}
		if r.local != "" && !seen[r.local] {
			seen[r.local] = true
			c.local = append(c.local, r.local)
		}
	}
	if len(c.paths) == 0 && len(c.remotes) == 0 && !c.remotesOff && len(c.others) == 0 && c.strategy == "" && c.envOrder == nil {
		return nil
	}
	return c
}

func (c *cfgRoots) addEnvRoot(env, p string) {
	for i := range c.envs {
		if c.envs[i].name == env {
			if !slices.Contains(c.envs[i].roots, p) {
				c.envs[i].roots = append(c.envs[i].roots, p)
			}
			return
		}
	}
	c.envs = append(c.envs, cfgEnv{name: env, roots: []string{p}})
}

// readRemote reads one gitfs_remotes entry: a URL, or a URL mapping to
// its per-remote options (a list of one-key mappings, as Salt's docs
// write them, or a mapping).
func readRemote(it *sp.Node) (gitRemote, bool) {
	var r gitRemote
	if u, ok := it.Str(); ok {
		r.url = u
	} else if it.Kind == sp.Map {
		opt := func(k string, v *sp.Node) {
			x, _ := v.Str()
			switch k {
			case "root":
				r.root = x
			case "mountpoint":
				r.mountpoint = x
			}
		}
		for i, k := range it.Keys {
			v := it.Vals[i]
			if r.url == "" && (strings.Contains(k.Value, "://") || strings.Contains(k.Value, "@") || strings.HasPrefix(k.Value, "/")) {
				r.url = k.Value
				switch v.Kind {
				case sp.Seq:
					for _, o := range v.Items {
						if o.Kind == sp.Map {
							for j, ok := range o.Keys {
								opt(ok.Value, o.Vals[j])
							}
						}
					}
				case sp.Map:
					for j, ok := range v.Keys {
						opt(ok.Value, v.Vals[j])
					}
				}
				continue
			}
			opt(k.Value, v) // options written beside the URL key
		}
	}
	if r.url == "" || strings.Contains(r.url, sp.Unknown) {
		return r, false
	}
	name := strings.TrimRight(r.url, "/")
	if i := strings.LastIndexAny(name, "/:"); i >= 0 {
		name = name[i+1:]
	}
	r.name = strings.TrimSuffix(name, ".git")
	return r, true
}

// deployed is a configuration file of the repository a state installs
// where Salt reads its configuration.
type deployed struct {
	path, scope, via string
}

// deployedConfigs finds files a state installs as the master's or
// minion's configuration (webplatform/salt-states: salt/master.sls
// manages /etc/salt/master.d/gitfs.conf from salt://salt/files/gitfs.conf):
// a state whose ID or name: is /etc/salt/master, /etc/salt/minion or a
// .conf file of master.d/minion.d, with a source: salt://PATH found in
// a folder at or above the state's file, within the repository.
func (s *System) deployedConfigs(ws *source.Workspace, scopes []string, files []*source.File) []deployed {
	var out []deployed
	for _, f := range files {
		if f.Path == "" || !strings.HasSuffix(f.Path, ".sls") || !bytes.Contains(f.Text, []byte("/etc/salt/m")) {
			continue
		}
		scope := ""
		for _, sc := range scopes {
			if strings.HasPrefix(f.Path, sc+string(filepath.Separator)) {
				scope = sc
			}
		}
		if scope == "" {
			continue
		}
		pf := s.cache.parse(f.Text, nil)
		for _, e := range pf.Entries {
			if e.Key == nil || e.Val == nil || e.Val.Kind != sp.Map {
				continue
			}
			name, src := e.Key.Value, ""
			for i, k := range e.Val.Keys {
				if mod, _, _ := strings.Cut(k.Value, "."); mod != "file" || e.Val.Vals[i].Kind != sp.Seq {
					continue
				}
				for _, it := range e.Val.Vals[i].Items {
					if it.Kind != sp.Map || len(it.Keys) != 1 {
						continue
					}
					v := it.Vals[0]
					switch it.Keys[0].Value {
					case "name":
						name, _ = v.Str()
					case "source":
						if v.Kind == sp.Seq && len(v.Items) > 0 {
							v = v.Items[0]
						}
						src, _ = v.Str()
					}
				}
			}
			if !configTargetRe.MatchString(name) || !strings.HasPrefix(src, "salt://") || strings.Contains(src, sp.Unknown) {
				continue
			}
			rel := filepath.FromSlash(strings.TrimPrefix(src, "salt://"))
			for d := filepath.Dir(f.Path); ; d = filepath.Dir(d) {
				if p := filepath.Join(d, rel); ws.Exists(p) {
					via := ", installed as " + name + " by " + analysis.WhereMark(ws, scope, source.Span{URI: f.URI, Start: e.Key.Start, End: e.Key.End})
					out = append(out, deployed{p, scope, via})
					break
				}
				if d == scope || !strings.HasPrefix(d, scope) {
					break
				}
			}
		}
	}
	return out
}

var configTargetRe = lazyre.New(`^/etc/salt/(master|minion)(\.d/[^/]+\.conf)?$`)

// mapGet is m[key] of a YAML mapping.
func mapGet(m *sp.Node, key string) *sp.Node {
	if m == nil || m.Kind != sp.Map {
		return nil
	}
	for i, k := range m.Keys {
		if k.Value == key {
			return m.Vals[i]
		}
	}
	return nil
}

// configNote says, in a missing include's message, where else the SLS
// may come from: the external roots named after package top, else all.
func (c *cfgRoots) configNote(top string) string {
	var named []string
	for _, r := range c.external {
		if remoteNamedFor(filepath.Base(r), top) {
			named = append(named, r)
		}
	}
	if len(named) > 0 {
		return c.rootsNote(named)
	}
	return c.rootsNote(c.external)
}

// splitRoots lists the file roots of saltenv env that may hold a file of
// package top, which the workspace has too, though their files are not
// here: Salt looks for each file in every root in turn
// (salt/fileserver/roots.py find_file), so a package may be split between
// roots. wlanslovenija/servers-salt-states keeps its own docker/init.sls
// in states/ and takes docker/base.sls from the states repository it
// checks out beside it as a git submodule (tozd-states): such a root is
// the repository's choice, its files only missing from this clone. A
// root outside the repository (a folder of formulas the master has) is
// not presumed to hold a file of the repository's own packages, nor is a
// formula's root (named after another package: it holds its own).
func (c *cfgRoots) splitRoots(env, top string) []string {
	var out []string
	for _, r := range c.externalOf(env) {
		b := strings.ToLower(filepath.Base(r))
		formula := strings.HasSuffix(b, "-formula") || strings.HasSuffix(b, "_formula")
		// a submodule not checked out, or a folder of the repository the
		// workspace lacks (petrows/saltstack-config's git-ignored
		// secrets/salt holds the *-private SLS of packages salt/ has)
		if c.submodule[r] != "" && (!formula || remoteNamedFor(b, top)) || c.submodule[r] == "" && c.absent[r] != "" && !formula {
			out = append(out, r)
		}
	}
	return out
}

// rootsNote names external file roots a missing file may come from, and
// how to make one known.
func (c *cfgRoots) rootsNote(roots []string) string {
	var out []string
	for _, r := range roots {
		shown := r
		for _, sc := range c.scopes {
			if rel, err := filepath.Rel(sc, r); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
				shown = filepath.ToSlash(rel) + "/"
				break
			}
		}
		if a := c.absent[r]; a != "" && c.submodule[r] == "" {
			shown = r + " (" + a + "/ of this repository, which the workspace does not have: git-ignored or made elsewhere)"
		}
		if sm := c.submodule[r]; sm != "" {
			if shown == sm+"/" {
				shown += " (a git submodule of this repository not checked out: `git submodule update --init " + sm + "` to have it read)"
			} else {
				shown += " (" + sm + " of this repository, a git submodule not checked out: `git submodule update --init " + sm + "` to have it read)"
			}
		}
		out = append(out, shown)
	}
	if len(out) == 1 {
		return "the repository's master configuration (" + c.where + ") serves the file root " + out[0] + ", which is not in the workspace: it may come from there"
	}
	return "the repository's master configuration (" + c.where + ") serves the file roots " +
		strings.Join(out, ", ") + ", which are not in the workspace: it may come from one of them"
}

// gitmodulePaths lists the `path = ...` entries of a .gitmodules file.
func gitmodulePaths(text []byte) []string {
	var out []string
	for _, line := range strings.Split(string(text), "\n") {
		if k, v, ok := strings.Cut(strings.TrimSpace(line), "="); ok && strings.TrimSpace(k) == "path" {
			out = append(out, filepath.Clean(filepath.FromSlash(strings.TrimSpace(v))))
		}
	}
	return out
}

// emptyDir: a folder with nothing in it (a git submodule not checked
// out).
func emptyDir(p string) bool {
	d, err := os.Open(p)
	if err != nil {
		return false
	}
	defer d.Close()
	ents, err := d.ReadDir(1) // (one entry tells: a root's folder may hold hundreds)
	return len(ents) == 0 && err == io.EOF
}

// saltfileDir is the folder a relative file root of src is read from:
// Salt keeps file_roots as written, and the fileserver joins a relative
// root to the working directory of the process (salt/fileserver/roots.py),
// which only a Saltfile tells. salt-ssh reads the Saltfile of the folder
// it runs in, whose config_dir (relative to that folder) holds the master
// configuration (wlanslovenija/servers-salt-states: `salt-ssh: config_dir:
// config`, and config/master serves ./states and ./tozd-states). "" when
// no Saltfile of the repository names src's folder.
func (s *System) saltfileDir(ws *source.Workspace, src *cfgSource) string {
	if src.via != "" || src.f.Path == "" {
		return "" // (a configuration installed elsewhere, or salt-formula's pillar)
	}
	dir := filepath.Dir(src.f.Path)
	for d := dir; d == src.scope || strings.HasPrefix(d, src.scope+string(filepath.Separator)); d = filepath.Dir(d) {
		if sf := ws.Lookup(filepath.Join(d, "Saltfile")); sf != nil {
			pf := s.cache.parse(sf.Text, nil)
			for _, e := range pf.Entries {
				if e.Val == nil || e.Val.Kind != sp.Map {
					continue
				}
				cd, ok := mapGet(e.Val, "config_dir").Str()
				if !ok || cd == "" || strings.Contains(cd, sp.Unknown) {
					continue
				}
				if !filepath.IsAbs(cd) {
					cd = filepath.Join(d, cd)
				}
				if filepath.Clean(cd) == dir {
					return d
				}
			}
		}
		if d == src.scope {
			break
		}
	}
	return ""
}

// submoduleOf is the path of the git submodule (as .gitmodules of a
// scope names it) that folder p is or lies in, "" when none.
func submoduleOf(ws *source.Workspace, scopes []string, p string) string {
	for _, sc := range scopes {
		rel, err := filepath.Rel(sc, p)
		if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			continue
		}
		gm := ws.Lookup(filepath.Join(sc, ".gitmodules"))
		if gm == nil {
			continue
		}
		for _, m := range gitmodulePaths(gm.Text) {
			if rel == m || strings.HasPrefix(rel, m+string(filepath.Separator)) {
				return filepath.ToSlash(m)
			}
		}
	}
	return ""
}

// mapDeployed recognises file roots that are the repository's own
// folders deployed elsewhere: evaryont/aethernet's pillar serves
// /srv/aethernet/salt and /srv/aethernet/formulas/*-formula, and the
// repository has salt/ and (as git submodules) formulas/*-formula. The
// first external root whose last folders name a folder of the
// workspace gives the deployment prefix (/srv/aethernet); every
// external root under it that is a folder of the workspace is read as
// a local root, and one that .gitmodules names but is not checked out
// is said to be. A configuration read this way was written for another
// machine: it never says the master serves nothing else (closed).
func (c *cfgRoots) mapDeployed(ws *source.Workspace, scopes []string) {
	prefix, scope, found := "", "", false
	var modules []string
	// corroborated: the folder holds a top file, or a second root
	// under the same prefix is a folder or a submodule of the
	// workspace too (salt-formula's test pillar names /srv/salt, where
	// kitchen copies the formula: its salt/ folder is the package, not
	// that root)
	corroborated := func(pre, sc, suffix string, mods []string) bool {
		if ws.Exists(filepath.Join(sc, suffix, "top.sls")) {
			return true
		}
		for _, q := range c.external {
			rel, ok := strings.CutPrefix(q, pre+string(filepath.Separator))
			if !ok || rel == suffix {
				continue
			}
			if ws.Exists(filepath.Join(sc, rel)) || slices.Contains(mods, rel) {
				return true
			}
		}
		return false
	}
find:
	for _, p := range c.external {
		comps := strings.Split(strings.Trim(filepath.ToSlash(p), "/"), "/")
		for k := len(comps); k >= 1; k-- {
			suffix := filepath.Join(comps[len(comps)-k:]...)
			for _, sc := range scopes {
				if !ws.Exists(filepath.Join(sc, suffix)) {
					continue
				}
				var mods []string
				if gm := ws.Lookup(filepath.Join(sc, ".gitmodules")); gm != nil {
					mods = gitmodulePaths(gm.Text)
				}
				pre := strings.TrimSuffix(p, string(filepath.Separator)+suffix)
				if corroborated(pre, sc, suffix, mods) {
					// (pre is "" where the repository holds the whole
					// path: vegcom/cozy-salt's srv/salt and provisioning/,
					// mounted at /srv/salt and /provisioning)
					prefix, scope, modules, found = pre, sc, mods, true
					break find
				}
			}
		}
	}
	if !found {
		return
	}
	var external []string
	for _, p := range c.external {
		rel, ok := strings.CutPrefix(p, prefix+string(filepath.Separator))
		if !ok {
			external = append(external, p)
			continue
		}
		local := filepath.Join(scope, rel)
		if ws.Exists(local) && !emptyDir(local) {
			if c.deployed == nil {
				c.deployed = map[string]string{}
			}
			c.deployed[p] = local
			c.local = append(c.local, local)
			for i := range c.envs {
				for j, r := range c.envs[i].roots {
					if r == p {
						c.envs[i].roots[j] = local
					}
				}
			}
			continue
		}
		external = append(external, p)
		// (under a prefix of its own only: /srv/salt-config/secrets/salt
		// is the repository's, /srv/formulas beside /srv/salt may be
		// anything)
		if strings.Count(strings.Trim(filepath.ToSlash(prefix), "/"), "/") >= 1 {
			if c.absent == nil {
				c.absent = map[string]string{}
			}
			c.absent[p] = filepath.ToSlash(rel)
		}
		for _, m := range modules {
			if rel == m || strings.HasPrefix(rel, m+string(filepath.Separator)) {
				if c.submodule == nil {
					c.submodule = map[string]string{}
				}
				c.submodule[p] = filepath.ToSlash(m)
			}
		}
	}
	c.external = external
	if len(external) == 0 {
		c.where = ""
	}
}
