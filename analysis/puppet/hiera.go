package puppet

import (
	"fmt"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/ordering-lsp/ordering-lsp/analysis"
	"github.com/ordering-lsp/ordering-lsp/internal/lazyre"
	"github.com/ordering-lsp/ordering-lsp/source"
	"gopkg.in/yaml.v3"
)

// Facts and Hiera data, so that a manifest can be seen as a given node
// would compile it: `puppet.facts` names a YAML or JSON file of facts (the
// output of `facter -y` or `puppet facts`); class parameters not given
// explicitly are looked up in the environment's and the class's module
// data (hiera.yaml v5, datadir data/, yaml_data), following the
// hierarchy levels whose %{...} interpolations the facts can fill.
// Without facts only the levels that need none (common.yaml) are used.

// loadFacts reads the facts the settings name, once per analysis:
// `puppet.facts` is one file or a folder of fact sets, and
// `ordering.node` picks a node among them (its name is then the certname
// node blocks match). A single file with one node is that node's facts
// whatever the node setting; a folder or a multi-node export without a
// node gives no facts (every node at once: branches stay undecided).
func (a *analyzer) loadFacts() {
	node := a.req.Settings.Get(analysis.NodeSetting, "")
	if node != "" {
		a.certname, a.forNode, a.certnamed = node, node, true
	}
	p := a.factsPath()
	if p == "" {
		return
	}
	sets, errs, dir := readFactSets(p, a.readText)
	for _, e := range errs {
		msg := fmt.Sprintf("%s is not a fact set (facter -j, puppet facts, onceover factset or a PuppetDB export): %s", filepath.Base(e.path), e.msg)
		if e.unreadable {
			msg = fmt.Sprintf("cannot read the facts (setting puppet.facts, --facts): %s", e.msg)
		}
		a.addDiag(analysis.Diagnostic{At: source.Span{URI: source.PathToURI(e.path)}, Severity: analysis.Warning, Code: "facts", Message: msg})
	}
	var fs *factSet
	switch {
	case node != "":
		fs = pickFactSet(sets, node)
	case !dir && len(sets) == 1:
		fs = sets[0]
	}
	if fs == nil {
		a.unpicked = len(sets)
		return
	}
	m := fs.values
	if _, ok := m["trusted"]; !ok && node != "" {
		// What the server knows of an agent whose certificate carries no
		// extensions: `$trusted` is never unknown on a real node.
		host, domain, _ := strings.Cut(node, ".")
		m = make(map[string]any, len(fs.values)+1)
		for k, v := range fs.values {
			m[k] = v
		}
		m["trusted"] = map[string]any{"authenticated": "remote", "certname": node, "hostname": host, "domain": domain, "extensions": map[string]any{}}
	}
	a.facts, a.factsFile = m, fs.path
	a.factsVal = toVal(m, source.Span{})
	if tr, ok := m["trusted"].(map[string]any); ok {
		a.trustedVal = toVal(tr, source.Span{})
		closeHashes(&a.trustedVal)
	}
}

// factsPath is the absolute path `puppet.facts` names ("" when unset).
func (a *analyzer) factsPath() string {
	p := a.req.Settings.Get("puppet.facts", "")
	if p == "" {
		return ""
	}
	return absFacts(a.root(), p)
}

// absFacts resolves the setting against the workspace root (the current
// folder on the command line, which has none).
func absFacts(root, p string) string {
	if !filepath.IsAbs(p) {
		p = filepath.Join(root, p)
	}
	if ap, err := filepath.Abs(p); err == nil {
		p = ap
	}
	return p
}

// readText reads a file as the workspace has it (an open buffer wins).
func (a *analyzer) readText(p string) ([]byte, error) {
	if f := a.ws.Lookup(p); f != nil {
		return f.Text, nil
	}
	return nil, fmt.Errorf("cannot read %s", p)
}

// toVal converts decoded YAML/JSON into a value.
func toVal(x any, at source.Span) val {
	switch t := x.(type) {
	case nil:
		return val{k: vUndef, at: at}
	case string:
		return str(t, at)
	case bool:
		return val{k: vBool, s: fmt.Sprint(t), at: at}
	case int:
		return val{k: vNum, s: fmt.Sprint(t), at: at}
	case int64:
		return val{k: vNum, s: fmt.Sprint(t), at: at}
	case float64:
		return val{k: vNum, s: fmtNum(t), at: at}
	case []any:
		v := val{k: vArr, at: at}
		for _, e := range t {
			v.arr = append(v.arr, toVal(e, at))
		}
		return v
	case map[string]any:
		v := val{k: vHash, at: at, x: &valX{}}
		keys := make([]string, 0, len(t))
		for k := range t {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			v.x.keys = append(v.x.keys, str(k, at))
			v.arr = append(v.arr, toVal(t[k], at))
		}
		return v
	}
	return unknown(at)
}

// fact returns a fact by dotted path (os.family), or nil.
func (a *analyzer) fact(path string) (any, bool) {
	if a.facts == nil {
		return nil, false
	}
	var cur any = a.facts
	for _, p := range strings.Split(path, ".") {
		m, ok := cur.(map[string]any)
		if !ok {
			return nil, false
		}
		cur, ok = m[p]
		if !ok {
			return nil, false
		}
	}
	return cur, true
}

type hieraLayer struct {
	files []string // data files, in priority order
}

var interp = lazyre.New(`%\{([^}]*)\}`)

// unfilled marks a data file of a hierarchy level hieraFiles could not
// fill (one of the files it names for some value of what we do not know).
const unfilled = "\x00unfilled:"

// hieraFile splits an entry of hieraFiles: the data file, whether its
// level needs what we do not know, and which path of the hierarchy it is
// a file of (two files of one path are exclusive: a node reads one).
func hieraFile(p string) (path string, partial bool, level string) {
	rest, partial := strings.CutPrefix(p, unfilled)
	if !partial {
		return p, false, ""
	}
	level, path, _ = strings.Cut(rest, "\x00")
	return path, true, level
}

// hieraFiles lists, in priority order, the data files of the hiera.yaml
// in dir whose paths the facts can fill, and (marked unfilled) those a
// level the facts cannot fill may name: globbed once per analysis.
func (a *analyzer) hieraFiles(dir string) []string {
	hy := filepath.Join(dir, "hiera.yaml")
	a.dep('p', hy, func() string { return a.contentID(hy) })
	envs, _ := a.envRoots()
	m := a.memo
	m.mu.Lock()
	defer m.mu.Unlock()
	if v, ok := m.hieraCache[dir]; ok {
		return v
	}
	var out []string
	f := a.ws.Lookup(filepath.Join(dir, "hiera.yaml"))
	if f != nil {
		var cfg struct {
			Version  int `yaml:"version"`
			Defaults struct {
				Datadir string `yaml:"datadir"`
			} `yaml:"defaults"`
			Hierarchy []struct {
				Path    string   `yaml:"path"`
				Paths   []string `yaml:"paths"`
				Datadir string   `yaml:"datadir"`
			} `yaml:"hierarchy"`
		}
		if yaml.Unmarshal(f.Text, &cfg) == nil && cfg.Version == 5 {
			dd := cfg.Defaults.Datadir
			if dd == "" {
				dd = "data"
			}
			for _, h := range cfg.Hierarchy {
				d := dd
				if h.Datadir != "" {
					d = h.Datadir
				}
				paths := h.Paths
				if h.Path != "" {
					paths = append([]string{h.Path}, paths...)
				}
				for _, p := range paths {
					out = a.hieraLevel(out, dir, d, p)
				}
			}
		} else if dd, levels, ok := hieraV3(f.Text); ok && slices.Contains(envs, dir) && a.ws.IsDir(filepath.Join(dir, dd)) {
			for _, p := range levels {
				out = a.hieraLevel(out, dir, dd, p+".yaml")
			}
		}
	} else if a.ws.IsDir(filepath.Join(dir, "data")) {
		out = []string{filepath.Join(dir, "data", "common.yaml")}
	}
	m.hieraCache[dir] = out
	return out
}

// hieraLevel adds the data files of one hierarchy path (relative to the
// datadir d of the hiera.yaml in dir) to out: the file, when the facts
// fill the path; else, marked unfilled, every file it may name.
func (a *analyzer) hieraLevel(out []string, dir, d, p string) []string {
	m := a.memo // (its lock is held: hieraFiles)
	ok := true
	filled := interp.ReplaceAllStringFunc(p, func(m string) string {
		key := strings.TrimSpace(m[2 : len(m)-1])
		key = strings.TrimPrefix(key, "::")
		key = strings.TrimPrefix(key, "facts.")
		key = strings.TrimPrefix(key, "trusted.")
		v, found := a.fact(key)
		if !found {
			ok = false
			return ""
		}
		return fmt.Sprint(v)
	})
	if ok {
		return append(out, filepath.Join(dir, d, filled))
	}
	m.hieraIncomplete[dir] = true
	// the level's files for every value of what we do not know: one of
	// them may hold the key (a node's own classes under
	// nodes/%{trusted.hostname}.yaml)
	glob := filepath.Join(dir, d, interp.ReplaceAllString(p, "*"))
	matches, _ := filepath.Glob(glob)
	for _, mp := range matches {
		out = append(out, unfilled+glob+"\x00"+mp)
	}
	return out
}

// hieraV3 reads a Hiera 3 configuration (`:backends:`, `:hierarchy:`,
// `:yaml: :datadir:`): Puppet 7 ignores one at an environment's root
// ("hiera.yaml version 3 found at the environment root was ignored") and
// reads it only as the server's global hiera.yaml, which such a
// repository keeps a copy of (smbambling/r2_puppet_control: "needs to be
// kept in sync with /etc/puppetlabs/puppet/hiera.yaml"). Its datadir is a
// path on the server (/etc/puppetlabs/code/environments/%{environment}/
// hieradata); its last folder is taken as the repository's own: dd. A
// YAML backend only; the levels, without their .yaml.
func hieraV3(text []byte) (dd string, levels []string, ok bool) {
	var cfg struct {
		Backends  any      `yaml:":backends"`
		Hierarchy []string `yaml:":hierarchy"`
		YAML      struct {
			Datadir string `yaml:":datadir"`
		} `yaml:":yaml"`
	}
	if yaml.Unmarshal(text, &cfg) != nil || len(cfg.Hierarchy) == 0 {
		return "", nil, false
	}
	switch b := cfg.Backends.(type) {
	case nil:
	case string:
		if b != "yaml" {
			return "", nil, false
		}
	case []any:
		if !slices.Contains(b, any("yaml")) {
			return "", nil, false
		}
	default:
		return "", nil, false
	}
	dd = "hieradata"
	if d := strings.TrimRight(cfg.YAML.Datadir, "/"); d != "" {
		dd = filepath.Base(d)
	}
	if strings.Contains(dd, "%{") || dd == "." || dd == "/" {
		return "", nil, false
	}
	return dd, cfg.Hierarchy, true
}

func (a *analyzer) dataFile(p string) map[string]any {
	a.dep('p', p, func() string { return a.contentID(p) })
	mm := a.memo
	mm.mu.Lock()
	defer mm.mu.Unlock()
	if m, ok := mm.dataCache[p]; ok {
		return m
	}
	var m map[string]any
	if f := a.ws.Lookup(p); f != nil {
		if yaml.Unmarshal(f.Text, &m) != nil {
			m = nil
		}
	}
	mm.dataCache[p] = m
	return m
}

// hieraLookup finds key in the environment data, then in the data of
// the module the key belongs to (Puppet's lookup order).
func (a *analyzer) hieraLookup(key string, at source.Span) (val, bool) {
	v, ok, _ := a.hieraLookup3(key, at)
	return v, ok
}

// hieraDirs are the folders whose hiera.yaml a lookup of key reads, in
// Puppet's order: the environments', then the module the key belongs to;
// certain as envRoots says.
func (a *analyzer) hieraDirs(key string) ([]string, bool) {
	dirs, certain := a.envRoots()
	if i := strings.Index(key, "::"); i > 0 {
		if root := a.moduleRoot(key[:i]); root != "" {
			dirs = append(dirs[:len(dirs):len(dirs)], root)
		}
	}
	return dirs, certain
}

// hieraLookup3 also says whether a miss is certain: false when a level of
// a hierarchy that could hold the key needs facts we do not have.
func (a *analyzer) hieraLookup3(key string, at source.Span) (val, bool, bool) {
	key = strings.TrimPrefix(key, "::")
	dirs, certain := a.hieraDirs(key)
	for _, d := range dirs {
		for _, p := range a.hieraFiles(d) {
			if mp, ok, _ := hieraFile(p); ok {
				// a file of a level we cannot fill: if it holds the key,
				// which value this node gets is unknown
				if m := a.dataFile(mp); m != nil {
					if _, ok := m[key]; ok {
						return unknown(at), true, false
					}
				}
				continue
			}
			if m := a.dataFile(p); m != nil {
				if v, ok := m[key]; ok {
					return toVal(v, at), true, true
				}
			}
		}
		a.memo.mu.Lock()
		inc := a.memo.hieraIncomplete[d]
		a.memo.mu.Unlock()
		if inc {
			certain = false
		}
	}
	return val{}, false, certain
}

// hieraUnique is a unique-merge lookup (lookup(key, type, 'unique'),
// hiera_array): the values of every level that holds the key, in
// priority order, each once; unknown when a level the facts cannot fill
// holds it.
func (a *analyzer) hieraUnique(key string, at source.Span) val {
	key = strings.TrimPrefix(key, "::")
	dirs, _ := a.hieraDirs(key)
	out := val{k: vArr, at: at}
	seen := map[string]bool{}
	for _, d := range dirs {
		for _, p := range a.hieraFiles(d) {
			mp, partial, _ := hieraFile(p)
			m := a.dataFile(mp)
			x, ok := m[key]
			if !ok {
				continue
			}
			if partial {
				return unknown(at)
			}
			v := toVal(x, at)
			items := []val{v}
			if v.k == vArr {
				items = v.arr
			}
			for _, it := range items {
				s, ok := it.text()
				if !ok {
					return unknown(at)
				}
				if !seen[s] {
					seen[s] = true
					out.arr = append(out.arr, it)
				}
			}
		}
	}
	return out
}

// closeHashes marks a value's hashes, nested ones too, as complete.
func closeHashes(v *val) {
	if v.k != vHash || v.x == nil {
		return
	}
	v.x.closed = true
	for i := range v.arr {
		closeHashes(&v.arr[i])
	}
}
