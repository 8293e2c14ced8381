package puppet

import (
	"bytes"
	"encoding/json"
	"fmt"
	"hash/maphash"
	"os"
	"path/filepath"
	"strings"

	"github.com/ordering-lsp/ordering-lsp/analysis"
	"github.com/ordering-lsp/ordering-lsp/source"
	"gopkg.in/yaml.v3"
)

// A control repository is not the whole world: its modules come from a
// Puppetfile (installed by r10k or g10k into `moduledir`), its module path
// from environment.conf, a module's test dependencies from .fixtures.yml
// and metadata.json. What those files say decides how bad a class nobody
// in the workspace defines is:
//   - its module is in the module path: Puppet fails (error);
//   - a Puppetfile (or fixtures, or metadata.json) declares the module but
//     it is not installed here: we cannot know (hint naming the line that
//     declares it, and how to install it);
//   - the repository declares its modules (a Puppetfile) and none of them
//     is that module: Puppet fails on every node that includes it (error);
//   - nothing declares modules: we cannot know (hint).

// declaredModule is one module the repository says it uses.
type declaredModule struct {
	name    string      // the module's name as classes use it: "stdlib"
	full    string      // as written: "puppetlabs/stdlib", "puppet-logrotate"
	version string      // a forge version, or the git ref
	git     string      // a git source
	from    string      // "Puppetfile", ".fixtures.yml", "metadata.json"
	at      source.Span // the name as written in that file
	dir     string      // where the installer puts it (Puppetfile), the linked folder (.fixtures.yml symlinks)
}

// moduleWorld is what the workspace says about modules outside it.
type moduleWorld struct {
	declared map[string]*declaredModule // by module name, the first declaration
	// puppetfile: some root holds a Puppetfile, so the repository
	// declares its modules (a module it does not declare is not there).
	puppetfile string   // the first Puppetfile's path
	envPath    []string // module dirs environment.conf names, absolute
	// basemodulepath: environment.conf ends its modulepath with the
	// server's base module path (modules installed outside the repository).
	basemodulepath bool
	// modulepathSet: some environment.conf sets modulepath. Without it
	// Puppet's default, `modules:$basemodulepath`, reads the base path too.
	modulepathSet bool
	// external: absolute folders of the modulepath (a private module tree
	// on the server: operations-puppet's /etc/puppet/private/modules);
	// those the workspace does not hold may hold any module.
	external []string
	key      string // the contents read, for the run cache's settings key
	// moduleRoots: the roots that are a module's own repository (a
	// metadata.json beside the code): its classes and defines are its
	// users' to declare
	moduleRoots []string
	// customFacts: the facts the modules' lib/facter and facts.d add
	// (customfacts.go)
	customFacts map[string]bool
}

// ownModule says whether path is a manifest of a module whose own
// repository the workspace is (a control repository may have a
// metadata.json too: its modules are in folders of their own).
func (w *moduleWorld) ownModule(path string) bool {
	if w == nil {
		return false
	}
	for _, r := range w.moduleRoots {
		if strings.HasPrefix(path, filepath.Join(r, "manifests")+string(filepath.Separator)) {
			return true
		}
	}
	return false
}

// readWorld reads the Puppetfile, environment.conf, .fixtures.yml and
// metadata.json of each environment root.
func readWorld(ws *source.Workspace, roots []string) *moduleWorld {
	w := &moduleWorld{declared: map[string]*declaredModule{}}
	var key strings.Builder
	read := func(p string) *source.File {
		f := ws.Lookup(p)
		if f != nil {
			fmt.Fprintf(&key, "%s=%d:%x\x00", p, len(f.Text), maphash.Bytes(contentSeed, f.Text))
		}
		return f
	}
	for _, r := range roots {
		if f := read(filepath.Join(r, "environment.conf")); f != nil {
			w.readEnvironmentConf(r, f.Text)
		}
		if f := read(filepath.Join(r, "Puppetfile")); f != nil {
			if w.puppetfile == "" {
				w.puppetfile = f.Path
			}
			for _, m := range parsePuppetfile(f) {
				w.add(m)
			}
		}
		if f := read(filepath.Join(r, ".fixtures.yml")); f != nil {
			for _, m := range parseFixtures(f) {
				w.add(m)
			}
		}
		if f := read(filepath.Join(r, "metadata.json")); f != nil {
			for _, m := range parseMetadataDeps(f) {
				w.add(m)
			}
			w.moduleRoots = append(w.moduleRoots, r)
		}
	}
	w.key = key.String()
	return w
}

// readModuleDeps adds the dependencies the metadata.json of each module
// in the module path declares, when no Puppetfile lists the modules: a
// repository that vendors its modules (greynolds123/control-repo: a
// module path of module folders, no Puppetfile) gets the ones it does not
// hold from elsewhere (the base module path), and what a module expects
// of them (sbadia-gitlab notifies Service['nginx'] of the jfryman/nginx
// it depends on) may be there. With a Puppetfile, what it does not list
// is not installed: r10k does not follow dependencies.
func (w *moduleWorld) readModuleDeps(ws *source.Workspace, mods []string) {
	if w.puppetfile != "" {
		return
	}
	var key strings.Builder
	for _, mod := range mods {
		f := ws.Lookup(filepath.Join(mod, "metadata.json"))
		if f == nil {
			continue
		}
		deps := parseMetadataDeps(f)
		if len(deps) == 0 {
			continue
		}
		fmt.Fprintf(&key, "%s=%d:%x\x00", f.Path, len(f.Text), maphash.Bytes(contentSeed, f.Text))
		for _, m := range deps {
			w.add(m)
		}
	}
	w.key += key.String()
}

// moduleDirs lists the module folders of the module path (one ReadDir
// of each of its folders, shared by what reads the modules' files).
func moduleDirs(modpath []string) []string {
	var out []string
	for _, d := range modpath {
		ents, err := os.ReadDir(d)
		if err != nil {
			continue
		}
		for _, e := range ents {
			if e.IsDir() && !strings.HasPrefix(e.Name(), ".") {
				out = append(out, filepath.Join(d, e.Name()))
			}
		}
	}
	return out
}

func (w *moduleWorld) add(m *declaredModule) {
	if m.name == "" {
		return
	}
	if _, ok := w.declared[m.name]; !ok {
		w.declared[m.name] = m
	}
}

// readEnvironmentConf takes the modulepath setting: its relative folders
// are relative to the environment; `$basemodulepath` is the server's.
func (w *moduleWorld) readEnvironmentConf(root string, text []byte) {
	for _, line := range strings.Split(string(text), "\n") {
		line = strings.TrimSpace(line)
		if strings.HasPrefix(line, "#") {
			continue
		}
		k, v, ok := strings.Cut(line, "=")
		if !ok || strings.TrimSpace(k) != "modulepath" {
			continue
		}
		v = strings.Trim(strings.TrimSpace(v), `"'`)
		w.modulepathSet = true
		for _, d := range strings.Split(v, ":") {
			d = strings.TrimSpace(d)
			switch {
			case d == "":
			case strings.HasPrefix(d, "$"):
				w.basemodulepath = true
			case filepath.IsAbs(d):
				w.envPath = append(w.envPath, filepath.Clean(d))
				w.external = append(w.external, filepath.Clean(d))
			default:
				w.envPath = append(w.envPath, filepath.Join(root, d))
			}
		}
	}
}

// moduleShortName: "puppetlabs/stdlib", "puppetlabs-stdlib" -> "stdlib".
func moduleShortName(full string) string {
	n := full
	if i := strings.LastIndexAny(n, "/-"); i >= 0 {
		n = n[i+1:]
	}
	return strings.ToLower(n)
}

// parsePuppetfile reads the module declarations of a Puppetfile, a Ruby
// file r10k and g10k evaluate: `moduledir 'path'`, `mod 'author/name',
// 'version'` and `mod 'name', :git => 'url', :ref => 'x'` (also the
// `git:` keyword form and `:install_path`). Only literal strings are read.
func parsePuppetfile(f *source.File) []*declaredModule {
	text := f.Text
	moduledir := "modules"
	var out []*declaredModule
	for _, st := range rubyStatements(text) {
		words := st.args
		switch st.name {
		case "moduledir":
			if len(words) > 0 && words[0].str {
				moduledir = words[0].text
			}
		case "mod":
			if len(words) == 0 || !words[0].str {
				continue
			}
			m := &declaredModule{full: words[0].text, name: moduleShortName(words[0].text), from: "Puppetfile",
				at: source.Span{URI: f.URI, Start: words[0].start, End: words[0].end}}
			install := ""
			for i := 1; i < len(words); i++ {
				w := words[i]
				if w.key == "" && w.str && i == 1 {
					m.version = w.text
					continue
				}
				switch w.key {
				case "git", "github_tarball":
					m.git = w.text
				case "ref", "tag", "branch", "commit", "version", "default_branch":
					if m.version == "" {
						m.version = w.text
					}
				case "install_path":
					install = w.text
				}
			}
			m.dir = install
			out = append(out, m)
		}
	}
	base := filepath.Dir(f.Path)
	for _, m := range out {
		d := moduledir
		if m.dir != "" {
			d = m.dir
		}
		if !filepath.IsAbs(d) {
			d = filepath.Join(base, d)
		}
		m.dir = filepath.Join(d, m.name)
	}
	return out
}

// rubyArg is one argument of a Ruby call: a string literal, or a
// `key => value` / `key: value` pair whose value is a string literal.
type rubyArg struct {
	key        string
	text       string
	str        bool
	start, end int // the string literal's bytes, quotes included
}

type rubyStmt struct {
	name string
	args []rubyArg
}

// rubyStatements splits Ruby text into calls `name arg, arg` (optionally
// parenthesised) at the start of a line; a statement goes on while a line
// ends with a comma or a backslash, or a parenthesis is open. Comments
// and anything but string literals and hash keys are skipped.
func rubyStatements(text []byte) []rubyStmt {
	var out []rubyStmt
	i, n := 0, len(text)
	for i < n {
		// start of a line
		for i < n && (text[i] == ' ' || text[i] == '\t') {
			i++
		}
		j := i
		for j < n && (isWordByte(text[j])) {
			j++
		}
		name := string(text[i:j])
		if name == "" || j >= n || (text[j] != ' ' && text[j] != '\t' && text[j] != '(') {
			i = nextLine(text, i)
			continue
		}
		st := rubyStmt{name: name}
		i = j
		depth, pendingKey, lastComma := 0, "", false
	args:
		for i < n {
			c := text[i]
			switch {
			case c == '#':
				for i < n && text[i] != '\n' {
					i++
				}
			case c == '\n':
				if depth > 0 || lastComma {
					i++
					continue
				}
				i++
				break args
			case c == '\\' && i+1 < n && text[i+1] == '\n':
				i += 2
			case c == '(' || c == '[' || c == '{':
				depth++
				i++
			case c == ')' || c == ']' || c == '}':
				depth--
				i++
			case c == '\'' || c == '"':
				s, e, val := rubyString(text, i)
				st.args = append(st.args, rubyArg{key: pendingKey, text: val, str: true, start: s, end: e})
				pendingKey = ""
				i = e
				lastComma = false
				continue
			case c == ':' && i+1 < n && isWordByte(text[i+1]):
				// :symbol (a key when `=>` follows)
				k := i + 1
				for k < n && isWordByte(text[k]) {
					k++
				}
				pendingKey = string(text[i+1 : k])
				i = k
			case isWordByte(c):
				k := i
				for k < n && isWordByte(text[k]) {
					k++
				}
				if k < n && text[k] == ':' && (k+1 >= n || text[k+1] != ':') {
					pendingKey = string(text[i:k])
					k++
				}
				i = k
			case c == ',':
				lastComma = true
				i++
				continue
			default:
				i++
			}
			if c != ' ' && c != '\t' && c != '#' {
				lastComma = false
			}
		}
		out = append(out, st)
	}
	return out
}

func nextLine(text []byte, i int) int {
	if k := bytes.IndexByte(text[i:], '\n'); k >= 0 {
		return i + k + 1
	}
	return len(text)
}

func isWordByte(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// rubyString reads a quoted literal at i: its span and its value (escapes
// of the quote and the backslash undone; interpolation kept as written).
func rubyString(text []byte, i int) (start, end int, val string) {
	q := text[i]
	var b strings.Builder
	k := i + 1
	for k < len(text) && text[k] != q {
		if text[k] == '\\' && k+1 < len(text) {
			k++
		}
		b.WriteByte(text[k])
		k++
	}
	if k < len(text) {
		k++
	}
	return i, k, b.String()
}

// parseFixtures reads the modules a .fixtures.yml brings for tests
// (forge_modules, repositories, symlinks: the keys are module names).
func parseFixtures(f *source.File) []*declaredModule {
	var doc yaml.Node
	if yaml.Unmarshal(f.Text, &doc) != nil || len(doc.Content) == 0 {
		return nil
	}
	lines := lineStarts(f.Text)
	var out []*declaredModule
	fx := mapValue(doc.Content[0], "fixtures")
	for _, sec := range []string{"forge_modules", "repositories", "symlinks"} {
		m := mapValue(fx, sec)
		if m == nil || m.Kind != yaml.MappingNode {
			continue
		}
		for i := 0; i+1 < len(m.Content); i += 2 {
			k, v := m.Content[i], m.Content[i+1]
			d := &declaredModule{name: strings.ToLower(k.Value), full: k.Value, from: ".fixtures.yml"}
			if k.Line-1 < len(lines) {
				s := lines[k.Line-1] + k.Column - 1
				d.at = source.Span{URI: f.URI, Start: s, End: min(s+len(k.Value), len(f.Text))}
			}
			// forge_modules name a forge module ("puppetlabs/apt"),
			// repositories a git URL; both as the value or its repo:.
			src, ref := v.Value, ""
			if v.Kind == yaml.MappingNode {
				src = ""
				if r := mapValue(v, "repo"); r != nil {
					src = r.Value
				}
				if r := mapValue(v, "ref"); r != nil {
					ref = r.Value
				}
			}
			switch sec {
			case "forge_modules":
				if src != "" {
					d.full = src
				}
				d.version = ref
			case "repositories":
				d.git, d.version = src, ref
			default:
				d.dir = src
			}
			out = append(out, d)
		}
	}
	return out
}

func mapValue(n *yaml.Node, key string) *yaml.Node {
	if n == nil || n.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			return n.Content[i+1]
		}
	}
	return nil
}

func lineStarts(b []byte) []int {
	out := []int{0}
	for i, c := range b {
		if c == '\n' {
			out = append(out, i+1)
		}
	}
	return out
}

// parseMetadataDeps reads a module's metadata.json dependencies.
func parseMetadataDeps(f *source.File) []*declaredModule {
	var md struct {
		Dependencies []struct {
			Name    string `json:"name"`
			Version string `json:"version_requirement"`
		} `json:"dependencies"`
	}
	if json.Unmarshal(f.Text, &md) != nil {
		return nil
	}
	deps := bytes.Index(f.Text, []byte(`"dependencies"`))
	var out []*declaredModule
	for _, d := range md.Dependencies {
		m := &declaredModule{full: d.Name, name: moduleShortName(d.Name), version: d.Version, from: "metadata.json"}
		if deps >= 0 {
			if k := bytes.Index(f.Text[deps:], []byte(`"`+d.Name+`"`)); k >= 0 {
				m.at = source.Span{URI: f.URI, Start: deps + k, End: deps + k + len(d.Name) + 2}
			}
		}
		out = append(out, m)
	}
	return out
}

// codeNotInstalled marks a diagnostic that installing what the
// Puppetfile declares resolves (the Installer's job, offered as its
// quick fix).
const codeNotInstalled = "module-not-installed"

// notInstalled: mod is declared by a Puppetfile, so installing the
// Puppetfile (r10k, g10k) brings it.
func (a *analyzer) notInstalled(mod string) bool {
	if a.world == nil {
		return false
	}
	m := a.world.declared[mod]
	return m != nil && m.from == "Puppetfile"
}

// absentModule words what is known of a module the workspace does not
// hold, for a message about a class of it: the severity the promise
// allows, the words to append, and where the module is declared.
func (a *analyzer) absentModule(mod string) (analysis.Severity, string, []analysis.Related) {
	if strings.Contains(mod, "-") {
		// Puppet 7 loads no module whose name is not a word: installed
		// (librarian-puppet puts hoccer/backuppc-client in
		// modules/backuppc-client), `include backuppc-client` still fails
		// with "Could not find class" (puppet apply --modulepath)
		return analysis.Error, fmt.Sprintf("'%s' is not a module name Puppet loads: a module's name has only lowercase letters, digits and '_'", mod), nil
	}
	w := a.world
	if w == nil {
		return analysis.Hint, fmt.Sprintf("module '%s' is not in the workspace", mod), nil
	}
	if m := w.declared[mod]; m != nil {
		src := m.full
		if m.version != "" {
			src += " " + m.version
		}
		if m.git != "" {
			src += " from " + m.git
		}
		msg := fmt.Sprintf("module '%s' is in %s (%s) but not installed", mod, a.displayPath(m.at.URI), src)
		rel := []analysis.Related{{At: m.at, Message: fmt.Sprintf("module '%s' is declared here", mod)}}
		switch m.from {
		case "Puppetfile":
			msg += fmt.Sprintf(": `r10k puppetfile install` or `g10k -puppetfile` puts it in %s", a.displayDir(filepath.Dir(m.dir)))
		case ".fixtures.yml":
			msg += ": `rake spec_prep` puts it in spec/fixtures/modules/; add that to the module path (puppet.modulepath) to analyse it"
		default:
			msg += ": add the folder that holds it to the module path (puppet.modulepath) to analyse it"
		}
		if m.at.URI == "" {
			rel = nil
		}
		return analysis.Hint, msg, rel
	}
	if dir := a.offPathModule(mod); dir != "" {
		return analysis.Hint, fmt.Sprintf("module '%s' is in the workspace (%s) but not in the module path: add %s to the module path (puppet.modulepath, --modulepath) to analyse it", mod, a.displayDir(dir), a.displayDir(filepath.Dir(dir))), nil
	}
	var outside []string
	for _, d := range w.external {
		if !a.ws.IsDir(d) {
			outside = append(outside, d)
		}
	}
	if len(outside) > 0 {
		return analysis.Hint, fmt.Sprintf("module '%s' is not in the workspace; the modulepath of environment.conf also reads %s, which it does not hold", mod, strings.Join(outside, ", ")), nil
	}
	if enterpriseModule(mod) && (w.basemodulepath || !w.modulepathSet) {
		return analysis.Hint, fmt.Sprintf("module '%s' is not in the workspace; Puppet Enterprise installs its own modules (pe_*, puppet_enterprise) in /opt/puppetlabs/puppet/modules, which the modulepath reads through $basemodulepath: add that folder to the module path (puppet.modulepath) to analyse it", mod), nil
	}
	if w.puppetfile != "" {
		return analysis.Error, fmt.Sprintf("no module '%s' in the module path, and %s does not declare it", mod, a.displayPath(source.PathToURI(w.puppetfile))), nil
	}
	return analysis.Hint, fmt.Sprintf("module '%s' is not in the workspace", mod), nil
}

// offPathModule: a folder of the workspace holding module mod (mod/
// with a manifests/ folder) where the module path does not reach, when
// a single file is analysed (check FILE: only what it loads is read; a
// workspace analysis reads every manifest and finds the class anyway).
// edf-hpc/puppet-hpc keeps its roles and profiles in
// puppet-config/cluster/, which its servers add to the module path:
// `check puppet-config/manifests/cluster.pp` said module 'roles' "is not
// in the workspace". It looks beside the folders above the files, up to
// the workspace root: a few folder listings, once per module name, and
// only for a module the module path lacks.
func (a *analyzer) offPathModule(mod string) string {
	if mod == "" || len(a.req.Files) > 8 {
		return ""
	}
	m := a.memo
	m.mu.Lock()
	dir, ok := m.offPath[mod]
	m.mu.Unlock()
	if ok {
		return dir
	}
	dir = a.findOffPath(mod)
	m.mu.Lock()
	m.offPath[mod] = dir
	m.mu.Unlock()
	return dir
}

func (a *analyzer) findOffPath(mod string) string {
	for _, f := range a.req.Files {
		if p := source.URIToPath(f.URI); p != "" {
			if d := a.findOffPathFrom(mod, p); d != "" {
				return d
			}
		}
	}
	return ""
}

func (a *analyzer) findOffPathFrom(mod, p string) string {
	top := ""
	for _, r := range append(a.ws.Roots(), a.roots...) {
		if rel := analysis.Rel(r, p); rel != p && (top == "" || len(r) < len(top)) {
			top = r
		}
	}
	onPath := map[string]bool{}
	for _, d := range a.modpath {
		onPath[filepath.Clean(d)] = true
	}
	holds := func(parent string) string {
		if onPath[filepath.Clean(parent)] {
			return ""
		}
		if d := filepath.Join(parent, mod); a.ws.IsDir(filepath.Join(d, "manifests")) {
			return d
		}
		return ""
	}
	for d, n := filepath.Dir(p), 0; n < 8; d, n = filepath.Dir(d), n+1 {
		if found := holds(d); found != "" {
			return found
		}
		entries, _ := os.ReadDir(d)
		for i, e := range entries {
			if i >= 200 {
				break
			}
			if !e.IsDir() || strings.HasPrefix(e.Name(), ".") {
				continue
			}
			if found := holds(filepath.Join(d, e.Name())); found != "" {
				return found
			}
		}
		if top == "" || d == top || filepath.Dir(d) == d {
			break
		}
	}
	return ""
}

// enterpriseModule: a module Puppet Enterprise ships on its primary
// server in /opt/puppetlabs/puppet/modules, the last folder of the
// default base module path (PE 2019.8's built-in pe_patch, pe_repo,
// pe_r10k, pe_nginx, puppet_enterprise, ...): a control repository does
// not declare them in its Puppetfile, and they are there on every PE
// server whose environments read $basemodulepath (which PE requires).
func enterpriseModule(mod string) bool {
	return mod == "puppet_enterprise" || strings.HasPrefix(mod, "pe_")
}

// uninstalled: some module the repository declares is not in the module
// path.
func (w *moduleWorld) uninstalled(a *analyzer) bool {
	for name := range w.declared {
		if !a.modDirKnown(name) && a.rootMods[name] == "" {
			return true
		}
	}
	return false
}

// uninstalledNamed: a module the repository declares, that the module
// path does not hold, and whose name is in the reference's type or title
// (Service['docker-web'], Package[nginx], Concat::Fragment[...]): its
// absent code may well declare the resource.
func (a *analyzer) uninstalledNamed(rf *ref) *declaredModule {
	if a.world == nil || len(a.world.declared) == 0 {
		return nil
	}
	typ, title := strings.ToLower(rf.typ), strings.ToLower(rf.title)
	mod, _, _ := strings.Cut(typ, "::")
	if m := a.world.declared[mod]; m != nil && !a.modDirKnown(mod) {
		return m
	}
	var best *declaredModule
	for name, m := range a.world.declared {
		if len(name) < 3 || !containsWord(title, name) || a.modDirKnown(name) {
			continue
		}
		if best == nil || len(name) > len(best.name) || len(name) == len(best.name) && name < best.name {
			best = m
		}
	}
	return best
}

// containsWord: w is in s between non-letters (nginx in /etc/nginx/x,
// docker in docker-web; not ntp in ntpdate).
func containsWord(s, w string) bool {
	for i := 0; ; {
		k := strings.Index(s[i:], w)
		if k < 0 {
			return false
		}
		k += i
		end := k + len(w)
		if (k == 0 || !isLetter(s[k-1])) && (end == len(s) || !isLetter(s[end])) {
			return true
		}
		i = k + 1
	}
}

func isLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

// displayDir is displayPath for a folder, with a trailing slash.
func (a *analyzer) displayDir(d string) string {
	p := a.displayPath(source.PathToURI(d))
	if p == "" || p == "." {
		return "./"
	}
	return strings.TrimSuffix(p, "/") + "/"
}

// inferRoots are the folders whose environment settings count: the
// workspace folders, or (the command line, which has none) the folder
// above the analysed files that holds environment.conf, a Puppetfile or
// .git (at most 8 up), else their common folder.
func inferRoots(ws *source.Workspace, files []*source.File) []string {
	return analysis.RepoRoots(ws, files, "environment.conf", "Puppetfile", ".git")
}
