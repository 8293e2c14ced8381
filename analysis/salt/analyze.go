package salt

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"

	"github.com/ordering-lsp/ordering-lsp/analysis"
	"github.com/ordering-lsp/ordering-lsp/internal/lazyre"
	sp "github.com/ordering-lsp/ordering-lsp/parser/salt"
	"github.com/ordering-lsp/ordering-lsp/source"
)

// The analysis of one request: the trees and roots of the workspace,
// the runs it makes, and the diagnostics it keeps (what each file says,
// once, where the user can act on it).

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
	a := &analyzer{s: s, req: req, mu: &sync.Mutex{}, res: &analysis.Result{ShowRef: shortRef}, nodes: map[nodeKey]*analysis.Node{},
		edges: map[edgeKey]*analysis.Edge{}, links: map[source.Span]*linkAcc{}, diags: map[string]bool{},
		fileDiag: map[*sfile]bool{}, rootCache: map[string]string{}, dataFiles: map[*sfile]bool{}, pillarRoots: map[string]bool{}, aloneFails: map[string]int{}, topFrag: map[string]bool{},
		ctx: map[string]*ctxDiag{}, runFiles: map[string]int{},
		master: req.Settings.Get("salt.engine", "3007") == "master",
		auto:   req.Settings.Bool("salt.stateAutoOrder", true)}
	setting := req.Settings.Get("salt.fileRoot", "")
	a.setting = setting
	scopes := s.repoScopes(req.Workspace, req.Files)
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
		pillar := a.pillarRoots
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
	a.sourceLinks = sourceLinks(read)
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
// pyobjectsImport: the salt:// path at start follows `from` or `import`
// on its line, a #!pyobjects/#!objects import of another SLS module
// (Rudd-O/saltstack-automation's `from salt://lib/qubes.sls import
// dom0`), not a file served to minions.
func pyobjectsImport(text []byte, start int) bool {
	ls := bytes.LastIndexByte(text[:start], '\n') + 1
	before := strings.TrimSpace(string(text[ls:start]))
	return before == "from" || before == "import"
}

func sourceTemplates(files []treeFile) map[string]bool {
	byPath := map[string]string{}
	for _, tf := range files {
		if tf.f.file.Path != "" {
			byPath[filepath.Clean(tf.f.file.Path)] = tf.f.file.URI
		}
	}
	out := map[string]bool{}
	// folders a salt:// path names (file.recurse's source): what they
	// hold is served to minions as files
	var dirs map[string]bool
	for _, tf := range files {
		text := tf.f.file.Text
		saltURLs(text, func(start, end int, p string) {
			rel, ok := unmount(tf.f.mount, p)
			if !ok || pyobjectsImport(text, start) {
				return
			}
			// the first root of the saltenv holding the path serves it
			// (roots.py find_file: vegcom/cozy-salt's srv/salt/_macros
			// read salt://packages.sls, package data kept in its second
			// root provisioning/)
			full := filepath.Join(tf.f.root, filepath.FromSlash(rel))
			u, ok := byPath[full]
			if !ok && tf.t != nil {
				for _, r := range tf.t.rootList() {
					if u, ok = byPath[filepath.Join(r, filepath.FromSlash(rel))]; ok {
						break
					}
				}
			}
			if ok {
				if u != tf.f.file.URI {
					out[u] = true
				}
			} else if r := strings.Trim(rel, "/"); r != "" && r != "." && !strings.Contains(r, sp.Unknown) && !strings.HasSuffix(r, ".sls") && sourceValue(text, start, end) {
				if dirs == nil {
					dirs = map[string]bool{}
				}
				dirs[full] = true
			}
		})
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
	// a file under a folder a salt:// path names is one of the files
	// file.recurse copies (openSUSE/salt-formulas' infrastructure
	// salt/files/srv/reactor/update_fileserver.sls, a Jinja template of
	// a reactor SLS installed into /srv/reactor by
	// `file.recurse: source: salt://infrastructure/salt/files/srv/reactor`)
	if len(dirs) > 0 {
		for p, u := range byPath {
			for d := filepath.Dir(p); ; {
				if dirs[d] {
					out[u] = true
					break
				}
				up := filepath.Dir(d)
				if up == d {
					break
				}
				d = up
			}
		}
	}
	return out
}

// sourceValue: the salt:// URL at text[start:end] is the whole value of
// a `source:` on its line (`- source: salt://x/files`, quoted or not), as
// file.recurse names a folder; not a prefix some code completes
// (uvsmtid/common-salt-states' #!py check_content.sls writes
// 'salt://common/webserver/depository_role/' + script_name).
func sourceValue(text []byte, start, end int) bool {
	ls := bytes.LastIndexByte(text[:start], '\n') + 1
	le := bytes.IndexByte(text[end:], '\n')
	if le < 0 {
		le = len(text) - end
	}
	before := bytes.TrimRight(text[ls:start], " '\"")
	after := bytes.Trim(text[end:end+le], " '\"\r")
	return bytes.HasSuffix(before, []byte("source:")) && len(after) == 0
}

// named: a top file or an include names f (it is then states whatever
// else uses it).
func (a *analyzer) named(f *sfile) bool {
	if a.linkedFiles == nil {
		a.linkedFiles = map[string]bool{}
		byURI := map[string]*sfile{}
		for _, tf := range a.allFiles() {
			if byURI[tf.f.file.URI] == nil {
				byURI[tf.f.file.URI] = tf.f
			}
		}
		for _, l := range a.linkList {
			if len(l.files) > 0 && a.applies(byURI[l.at.URI], l.at) {
				for _, sp := range l.files {
					a.linkedFiles[sp.URI] = true
				}
			}
		}
	}
	return a.linkedFiles[f.file.URI]
}

// applies: the words at `at` apply the files they link to, as an include
// or a top file's entry does. An `sls:` requisite only names its SLS:
// whatever applies the requiring file must bring it, but nothing in the
// repository is seen to (sabard/salt-states: licorice's `sls: pyenv`,
// pyenv included and targeted nowhere, made pyenv's own missing
// requisite a warning instead of information about how it is applied).
func (a *analyzer) applies(sf *sfile, at source.Span) bool {
	if sf == nil || sf.top || a.topFrag[at.URI] {
		return true
	}
	for _, inc := range sf.includes {
		if sf.span(inc.node) == at {
			return true
		}
	}
	return false
}

// unreachedData: f declares no state, or lies in a pillar tree (judging
// whether that tree is one reads its files), and no top.sls or include
// names it (see declaresStates): its shape is not a states file's to be
// wrong.
func (a *analyzer) unreachedData(f *sfile) bool {
	if !a.dataFiles[f] && !a.pillarRoots[f.root] {
		return false
	}
	return !a.named(f)
}

// dropAfterRenderErrors: Salt stops at a file it cannot render (Jinja or
// YAML error), so what we say about the states of that file beyond the
// render error itself would be a cascade from text Salt never reads
// (wuxxin/salt-shared app/backup/restic.sls: a recursive requisite after
// an unclosed expression). One error per file, at the place it breaks.
// Salt renders the Jinja before it reads the YAML: where the template
// itself parses, what fails its render (an undefined name, a Python 2
// method) stays, and where one fails every render the YAML error goes,
// Salt never reads that text (alekrain/salt_states' gitrepos/init.sls:
// `repos.iteritems()` fails before the YAML its `-%}` breaks).
//
// The same holds for the failures of a template that parses: Jinja stops
// at the first name it cannot print, so of the failures on every render
// the first in the text is Salt's, and what follows it (later failures,
// the YAML loader's conflicting IDs, the file's states) is never read
// (salt-order: "Jinja variable 'foo' is undefined" only, for a file
// that also fails on 'bar' and gives an ID twice). A file the YAML
// loader refuses for an ID or key given twice fails at the first
// construct_mapping meets: the top-level mapping first (the first key
// repeated), then the IDs' own mappings (salt-order: jcbolling/salt-states
// database-rds/init.sls gives three IDs twice, Salt names the first).
// A file that fails on every render brings no state into the run, so an
// ID it shares with another file is no conflict (abhi-kr07/salt-states:
// sample_test_pillar.sls, an `elif` without `if`, and os_check_from_pillar
// declare apache; salt-order names the Jinja error only).
func (a *analyzer) dropAfterRenderErrors() {
	broken := map[string]bool{}
	jinjaBroken := map[string]bool{} // the template does not parse: nothing renders
	byURI := map[string]*sfile{}
	for _, tf := range a.allFiles() {
		byURI[tf.f.file.URI] = tf.f
		for _, e := range tf.f.p.Errors {
			if e.Severity == 1 {
				broken[tf.f.file.URI] = true
				if !yamlFailure(e.Msg) {
					jinjaBroken[tf.f.file.URI] = true
				}
			}
		}
	}
	// the first failure of the Jinja on every render: an undefined name
	// judged an error, a Python 2 method outside any branch (also in an
	// SLS nothing names, information only: applied, it fails there)
	jinjaFails := map[string]int{}
	fail := func(uri string, at int) {
		if old, ok := jinjaFails[uri]; !ok || at < old {
			jinjaFails[uri] = at
		}
	}
	for _, d := range a.res.Diags {
		if d.Code == "undefined-variable" && d.Severity == analysis.Error {
			fail(d.At.URI, d.At.Start)
		}
	}
	// also where an SLS nothing names fails (information): applied
	// alone, Salt reports that and nothing after it (Ivan-7777's
	// import_part.sls: `{{ zabbix_db_root }}` unbound, then a requisite
	// on a state no file declares; salt-order: the undefined name only)
	for uri, at := range a.aloneFails {
		fail(uri, at)
	}
	// IDs given twice at the top level of a file (the others are keys
	// twice in one ID's mapping)
	rootDup := map[string]map[int]bool{}
	for _, tf := range a.allFiles() {
		uri := tf.f.file.URI
		for _, d := range tf.f.ids {
			if d.dupOf != nil && d.dupKey == nil && d.key != nil {
				if rootDup[uri] == nil {
					rootDup[uri] = map[int]bool{}
				}
				rootDup[uri][d.key.Start] = true
			}
		}
		if tf.f.p.R == nil {
			continue
		}
		for _, e := range tf.f.p.R.Py2 {
			if e.Severity == 1 {
				fail(uri, e.Start)
			}
		}
	}
	// the conflicting ID the YAML loader names, per file
	dupFail := map[string]int{} // index in a.res.Diags
	dupRank := func(d analysis.Diagnostic) [2]int {
		if rootDup[d.At.URI][d.At.Start] {
			return [2]int{0, d.At.Start}
		}
		return [2]int{1, d.At.Start}
	}
	for i, d := range a.res.Diags {
		if d.Code != "conflicting-id" || d.Severity != analysis.Error || !strings.Contains(d.Message, "failed: found conflicting ID") {
			continue
		}
		if j, ok := dupFail[d.At.URI]; ok {
			r, o := dupRank(d), dupRank(a.res.Diags[j])
			if r[0] > o[0] || r[0] == o[0] && r[1] >= o[1] {
				continue
			}
		}
		dupFail[d.At.URI] = i
	}
	if len(broken) == 0 && len(jinjaFails) == 0 && len(dupFail) == 0 && !anyRenderFailure(a.res.Diags) {
		return
	}
	failing := func(uri string) bool {
		_, j := jinjaFails[uri]
		_, k := dupFail[uri]
		return broken[uri] || j || k
	}
	// a YAML error in the text only renders that first fail in Jinja
	// produce: the same branches (or loop bodies) hold a render failure
	// before it (saltstack-formulas/prometheus-formula config/clean.sls:
	// in the body of a loop over the formula's components, `{{ d.div }}`
	// names nothing, and the YAML that body breaks is never read)
	// Jinja renders the whole template before the YAML is read, so for a
	// YAML error a failure anywhere in those renders counts, also one
	// further down (bahazero901/saltstack's apache_test/init.sls: a key
	// without its ':' on line 15, `{{ aoache_conf_source }}` on line 37;
	// salt-order: "Jinja variable 'aoache_conf_source' is undefined")
	masked := func(uri string, at int, yaml bool) bool {
		f := byURI[uri]
		if f == nil || f.p.R == nil {
			return false
		}
		ya := f.p.R.ArmsAt(at)
		for _, errs := range [][]sp.Error{f.p.R.Undefined, f.p.R.Py2} {
			for _, e := range errs {
				if !yaml && e.Start >= at {
					continue
				}
				inside := true
				for _, w := range f.p.R.ArmsAt(e.Start) {
					found := false
					for _, y := range ya {
						found = found || y.Point == w.Point && y.Arm == w.Arm
					}
					inside = inside && found
				}
				if inside {
					return true
				}
			}
		}
		return false
	}
	kept := a.res.Diags[:0]
	for i, d := range a.res.Diags {
		u := d.At.URI
		first, jf := jinjaFails[u]
		if renderFailure(d.Code) && masked(u, d.At.Start, false) {
			// an earlier failure of the same renders: Jinja stops there
			// (saltstack-formulas/kubernetes-formula client/binary/
			// install.sls: `p[tool]` fails on p, tool is never looked up)
			continue
		}
		switch {
		case broken[u]:
			switch {
			case d.Code == "syntax" || d.Code == "renderer":
				if jf && !jinjaBroken[u] && yamlFailure(d.Message) {
					continue
				}
				if !jinjaBroken[u] && yamlFailure(d.Message) && masked(u, d.At.Start, true) {
					continue
				}
			case renderFailure(d.Code) && !jinjaBroken[u]:
				if jf && d.At.Start > first {
					continue
				}
			default:
				continue
			}
		case jf:
			// the template parses and fails on every render at first
			if !renderFailure(d.Code) || d.At.Start > first {
				continue
			}
		case failing(u):
			if j := dupFail[u]; j != i && d.Code != "syntax" && d.Code != "renderer" && !renderFailure(d.Code) {
				continue
			}
		default:
			if d.Code == "conflicting-id" || d.Code == "cycle" {
				// a conflict or a loop with states of a file that fails
				// to render: that file brings none
				other := false
				for _, r := range d.Related {
					other = other || r.At.URI != u && failing(r.At.URI)
				}
				if other {
					continue
				}
			}
		}
		kept = append(kept, d)
	}
	a.res.Diags = kept
}

// anyRenderFailure: some diagnostic is a failure of a Jinja render.
func anyRenderFailure(ds []analysis.Diagnostic) bool {
	for _, d := range ds {
		if renderFailure(d.Code) {
			return true
		}
	}
	return false
}

// renderFailure: a diagnostic code for what fails the Jinja render of a
// template that parses.
func renderFailure(code string) bool { return code == "undefined-variable" || code == "python2-method" }

// yamlFailure: an error message of reading the rendered YAML
// (parser/salt), as the parser words it or as a diagnostic names the
// SLS (fileDiags); callers look only at syntax errors, so Jinja's
// "Rendering SLS 'x' failed" (other codes) is never taken for one.
func yamlFailure(msg string) bool {
	if strings.HasPrefix(msg, "Rendering SLS ") {
		return !strings.Contains(msg, " failed: Jinja syntax error")
	}
	return strings.HasSuffix(msg, "does not render to a dictionary")
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
		if c.maybeRuns > 0 && c.maybeRuns == c.runs {
			// every run holding the file has a state whose templated
			// name or ID may be the target: the usual way a formula
			// requires its own `name: {{ pkg.name }}`, not reported
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
		if c.maybeRuns > 0 {
			a.patternNote(c)
		}
		a.diag(c.d)
	}
	for _, l := range a.linkList {
		if len(l.list) == 0 && len(l.files) == 0 {
			continue
		}
		a.res.Links = append(a.res.Links, analysis.Link{At: l.at, Nodes: l.list, Files: l.files})
	}
	a.res.Links = append(a.res.Links, a.sourceLinks...)
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
			vs := []string{f.Value}
			for j := i + 1; j < len(fs); j++ {
				if !done[j] && fs[j].Label == f.Label {
					vs = append(vs, fs[j].Value)
					done[j] = true
				}
			}
			n.Facts = append(n.Facts, analysis.Fact{Label: f.Label, Value: joinRunValues(vs)})
		}
	}
	_ = os.Getenv
}

// joinRunValues joins the values several runs give one fact: "10010,
// 10012 from auto-order (...)" when they differ only before the same
// " from ..." (a state a role includes: its order value in the profile's
// run and in the role's), else each in full, separated by "; ".
func joinRunValues(vs []string) string {
	_, from, ok := strings.Cut(vs[0], " from ")
	for _, v := range vs[1:] {
		if _, f, ok2 := strings.Cut(v, " from "); !ok2 || f != from {
			ok = false
		}
	}
	if !ok {
		return strings.Join(vs, "; ")
	}
	heads := make([]string, len(vs))
	for i, v := range vs {
		heads[i], _, _ = strings.Cut(v, " from ")
	}
	return strings.Join(heads, ", ") + " from " + from
}

// patternNote makes a requisite that some runs holding its file lose,
// and the others may find only through states whose ID or name is
// template output (a name merged from pillar), information: whether the
// target exists depends on the machine's data, which the workspace does
// not hold. The note names those states and how to have it checked.
func (a *analyzer) patternNote(c *ctxDiag) {
	if c.d.Severity < analysis.Info {
		c.d.Severity = analysis.Info
	}
	var names []string
	for _, r := range c.cands {
		names = append(names, r.what)
		if len(names) == 3 {
			break
		}
	}
	more, which := "", "that template"
	if len(c.cands) > 1 {
		which = "one of those templates"
	}
	if n := len(c.cands) - len(names); n > 0 {
		more = fmt.Sprintf(" (and %d more)", n)
	}
	argsOnly := true
	for _, r := range c.cands {
		argsOnly = argsOnly && r.argsOut
	}
	if argsOnly {
		// a macro writes the state's arguments: what it writes was not
		// computed, whatever data it reads
		which = "that template's output"
		if len(c.cands) > 1 {
			which = "one of those templates' outputs"
		}
		c.d.Message += fmt.Sprintf("\n(where this SLS is applied with %s%s, the requisite is met only if %s gives the state the name '%s'; else Salt fails with the error above. The output was not computed here: write that state's name: outside the template, or require it by its ID, to have it checked)",
			strings.Join(names, "; "), more, which, c.target)
	} else {
		c.d.Message += fmt.Sprintf("\n(where this SLS is applied with %s%s, the requisite is met only if the minion's pillar or grains make %s '%s'; else Salt fails with the error above. Give them (--salt-facts FILE, setting salt.facts, or --minions DIR) to have it checked)",
			strings.Join(names, "; "), more, which, c.target)
	}
	for _, r := range c.cands {
		c.d.Related = append(c.d.Related, r.rel)
	}
}
