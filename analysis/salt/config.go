package salt

import (
	"bytes"
	"hash/maphash"
	"io/fs"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/ordering-lsp/ordering-lsp/analysis"
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
	paths []string // every absolute file root named, in order, once
	// local: those inside the workspace (file roots it holds);
	// external: those outside it
	local, external []string
	where           string // the first configuration naming an external root, file:line:col
}

// key identifies what the configuration says, for the run cache.
func (c *cfgRoots) key() string {
	if c == nil {
		return ""
	}
	return strings.Join(c.paths, "\x01") + "\x02" + c.where
}

// servesOthers reports whether the master serves file roots besides one:
// an include nothing in the workspace provides may come from another.
func (c *cfgRoots) servesOthers() bool {
	return c != nil && len(c.paths) > 1 && len(c.external) > 0
}

// repoScopes lists the folders whose configuration counts: the workspace
// folders, else (the command line) the repository holding the analysed
// files (the folder with .git above their common folder, at most 8 up),
// else their common folder.
func repoScopes(ws *source.Workspace, files []*source.File) []string {
	if roots := ws.Roots(); len(roots) > 0 {
		return roots
	}
	common := ""
	for _, f := range files {
		if f.Path == "" {
			continue
		}
		d := filepath.Dir(f.Path)
		if common == "" {
			common = d
			continue
		}
		for common != d && !strings.HasPrefix(d, common+string(filepath.Separator)) {
			p := filepath.Dir(common)
			if p == common {
				break
			}
			common = p
		}
	}
	if common == "" {
		return nil
	}
	for d, i := common, 0; i < 8; i++ {
		if ws.Exists(filepath.Join(d, ".git")) {
			return []string{d}
		}
		p := filepath.Dir(d)
		if p == d {
			break
		}
		d = p
	}
	return []string{common}
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

// configFiles lists the configuration files under scope. The walk is
// kept while the analysed files stay the same (sig): an edit does not
// walk the repository again; a file created or deleted does.
func (s *System) configFiles(ws *source.Workspace, scope, sig string) []string {
	s.mu.Lock()
	c, ok := s.cfgFiles[scope]
	s.mu.Unlock()
	if ok && c.sig == sig {
		return c.files
	}
	var files []string
	_ = filepath.WalkDir(scope, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if d.IsDir() {
			if p != scope && (strings.HasPrefix(d.Name(), ".") || d.Name() == "node_modules") {
				return filepath.SkipDir
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
	s.mu.Lock()
	if s.cfgFiles == nil || len(s.cfgFiles) > 16 {
		s.cfgFiles = map[string]cfgFileList{}
	}
	s.cfgFiles[scope] = cfgFileList{sig, files}
	s.mu.Unlock()
	return files
}

type cfgFileList struct {
	sig   string
	files []string
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

// readConfigRoots reads the file_roots the configuration in scopes names.
func (s *System) readConfigRoots(ws *source.Workspace, scopes []string, sig string) *cfgRoots {
	c := &cfgRoots{}
	seen := map[string]bool{}
	inside := func(p string) bool {
		for _, r := range scopes {
			if p == r || strings.HasPrefix(p, r+string(filepath.Separator)) {
				return true
			}
		}
		return false
	}
	for _, scope := range scopes {
		for _, p := range s.configFiles(ws, scope, sig) {
			f := ws.Lookup(p)
			if f == nil || !bytes.Contains(f.Text, []byte("file_roots")) {
				continue
			}
			cfg, _ := isConfigFile(p)
			pf := s.cache.parse(f.Text, nil)
			for _, e := range pf.Entries {
				if e.Key == nil || e.Val == nil {
					continue
				}
				var roots *sp.Node
				if cfg && e.Key.Value == "file_roots" {
					roots = e.Val
				} else if !cfg && e.Key.Value == "salt" {
					// salt-formula: salt:master:file_roots, salt:minion:file_roots
					for _, which := range []string{"master", "minion"} {
						if r := mapGet(mapGet(e.Val, which), "file_roots"); r != nil && roots == nil {
							roots = r
						}
					}
				}
				if roots == nil || roots.Kind != sp.Map {
					continue
				}
				for _, env := range roots.Vals {
					if env.Kind != sp.Seq {
						continue
					}
					for _, it := range env.Items {
						v, ok := it.Str()
						if !ok || strings.Contains(v, sp.Unknown) || !filepath.IsAbs(v) {
							continue
						}
						v = filepath.Clean(v)
						if seen[v] {
							continue
						}
						seen[v] = true
						c.paths = append(c.paths, v)
						if inside(v) {
							c.local = append(c.local, v)
							continue
						}
						c.external = append(c.external, v)
						if c.where == "" {
							c.where = analysis.Where(ws, scope, source.Span{URI: f.URI, Start: roots.Start, End: roots.End})
							if k := keyBefore(pf, roots); k != nil {
								c.where = analysis.Where(ws, scope, source.Span{URI: f.URI, Start: k.Start, End: k.End})
							}
						}
					}
				}
			}
		}
	}
	if len(c.paths) == 0 {
		return nil
	}
	return c
}

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

// keyBefore finds the key whose value is v (the `file_roots:` words).
func keyBefore(f *sp.File, v *sp.Node) *sp.Node {
	var find func(n *sp.Node, depth int) *sp.Node
	find = func(n *sp.Node, depth int) *sp.Node {
		if n == nil || depth > 20 {
			return nil
		}
		for i, k := range n.Keys {
			if n.Vals[i] == v {
				return k
			}
			if r := find(n.Vals[i], depth+1); r != nil {
				return r
			}
		}
		for _, it := range n.Items {
			if r := find(it, depth+1); r != nil {
				return r
			}
		}
		return nil
	}
	for _, e := range f.Entries {
		if e.Val == v {
			return e.Key
		}
		if r := find(e.Val, 0); r != nil {
			return r
		}
	}
	return nil
}

// configNote says, in a missing include's message, where else the SLS
// may come from.
func (c *cfgRoots) configNote() string {
	return "the repository's master configuration (" + c.where + ") serves the file roots " +
		strings.Join(c.external, ", ") + ", which are not in the workspace: it may come from one of them"
}
