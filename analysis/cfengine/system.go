// Package cfengine lowers CFEngine 3 policy into the neutral graph and
// computes the static schedule cf-agent follows: the bundlesequence,
// normal ordering of promise types, up to three passes per bundle, nested
// bundles via methods, depends_on and class guards.
package cfengine

import (
	"bytes"
	"fmt"
	"hash/maphash"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/ordering-lsp/ordering-lsp/analysis"
	"github.com/ordering-lsp/ordering-lsp/internal/lazyre"
	cfp "github.com/ordering-lsp/ordering-lsp/parser/cfengine"
	"github.com/ordering-lsp/ordering-lsp/source"
)

// System is the CFEngine analysis. It keeps a parser whose chunk cache
// lives as long as the server.
type System struct {
	parser *cfp.Parser
	// lowered file templates by URI, path, @if version and content; only
	// those the last analysis used are kept.
	lowered map[fileKey]*fileInfo
	gen     uint64
	// last are the sizes of the last result (to size the next one)
	last sizes
	// version: parser.Version as the last analysis set it, for
	// highlighting (tokens.go), which runs beside analyses
	verMu   sync.Mutex
	version string
}

type sizes struct{ nodes, edges, links int }

type fileKey struct {
	uri, path, version string
	hash               uint64
	size               int
}

var hashSeed = maphash.MakeSeed()

// New returns the CFEngine system.
func New() analysis.System { return &System{parser: cfp.NewParser(), lowered: map[fileKey]*fileInfo{}} }

// lower returns the template of a file, from the cache when its content
// was seen before.
func (s *System) lower(f *source.File) *fileInfo {
	k := fileKey{uri: f.URI, path: f.Path, version: s.parser.Version, hash: maphash.Bytes(hashSeed, f.Text), size: len(f.Text)}
	if t := s.lowered[k]; t != nil && bytes.Equal(t.src.Text, f.Text) {
		t.used = s.gen
		return t
	}
	t := lowerFile(f, s.parser.Parse(f.Text))
	t.used = s.gen
	s.lowered[k] = t
	return t
}

// evict drops the templates the last analysis did not use.
func (s *System) evict() {
	for k, t := range s.lowered {
		if t.used != s.gen {
			delete(s.lowered, k)
		}
	}
}

func (*System) Name() string { return "cfengine" }

// Movable implements analysis.Movable: no word of CFEngine's names a
// line, and a comment or blank line changes no promise.
func (*System) Movable() {}

// Owns claims *.cf policy files and *.cf.in templates (masterfiles ships
// promises.cf.in and update.cf.in, which configure only stamps a
// version into). `.cf` is also the extension of other programs' config
// (SpamAssassin's local.cf, Postfix's main.cf): a file inside a Puppet
// module's templates/ or files/ is data that module installs, and a file
// with neither a bundle/body/promise header nor a block is not policy,
// nor a template (Salt's files/*.cf with Jinja) without a header.
// Empty files are claimed: that is how a new policy file starts.
func (*System) Owns(path string, head func() []byte) bool {
	if !strings.HasSuffix(path, ".cf") && !strings.HasSuffix(path, ".cf.in") {
		return false
	}
	if inModuleData(path) {
		return false
	}
	h := head()
	if len(bytes.TrimSpace(h)) == 0 || policyHeader.Match(h) {
		return true
	}
	// A block without a header is policy with an error in it, unless the
	// braces are a template's ({{ }}, {% %} of a Salt file, ERB's <% %>)
	// or a variable's (`${nexthop}` in postfix's master.cf).
	if bytes.Contains(h, []byte("{{")) || bytes.Contains(h, []byte("{%")) || bytes.Contains(h, []byte("<%")) {
		return false
	}
	for i, c := range h {
		if c == '{' && (i == 0 || h[i-1] != '$') {
			return true
		}
	}
	return false
}

// policyHeader is how a CFEngine file's first block starts: `bundle agent
// main`, `body common control`, `promise agent git`. (SpamAssassin's
// `body RULE /regex/` is not: a body type is followed by a name.)
var policyHeader = lazyre.New(`(?m)^[ \t]*(bundle[ \t]+[A-Za-z_]\w*[ \t]+[A-Za-z_][\w.:]*|body[ \t]+[A-Za-z_]\w*[ \t]+[A-Za-z_][\w.:]*[ \t]*(\(|\{|#|\r?$)|promise[ \t]+agent[ \t]+\w+)`)

// inModuleData: the path is under templates/ or files/ of a folder that
// has a manifests/ folder (a Puppet module).
func inModuleData(path string) bool {
	dir := filepath.Dir(path)
	for d := dir; ; {
		base, parent := filepath.Base(d), filepath.Dir(d)
		if (base == "templates" || base == "files") && isDir(filepath.Join(parent, "manifests")) {
			return true
		}
		if parent == d {
			return false
		}
		d = parent
	}
}

func isDir(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.IsDir()
}

func (*System) Flags() []analysis.Flag {
	return []analysis.Flag{
		{Name: "bundlesequence", Key: "cfengine.bundlesequence", Help: "comma-separated bundles to run instead of the policy's bundlesequence (like cf-agent -b)"},
		{Name: "evaluation-order", Key: "cfengine.evaluationOrder", Help: "classic (normal ordering) or top_down, overriding the policy"},
		{Name: "cfengine-version", Key: "cfengine.version", Help: "CFEngine version @if macros are evaluated for (default " + cfp.DefaultVersion + ")"},
	}
}

type analyzer struct {
	sys      *System
	req      *analysis.Request
	graph    *analysis.Graph
	files    map[string]*fileInfo // by path (or URI for editor-only documents)
	order    []*fileInfo
	diags    []analysis.Diagnostic
	seenDiag map[diagKey]bool
	links    []analysis.Link
	seenLink map[source.Span]bool
	res      *analysis.Result
	nProm    int // promises instantiated (promiseInfo.idx)
	canceled bool
	seenEdge map[edgeKey]bool
	nodeSlab []*analysis.Node
	// vars promises of the loaded files by key (see varHits)
	varIndex, arrIndex map[string][]varHit
	varIndexed         int
	// built caches what each directory's Makefile.am says the build
	// creates (see builtBy)
	built map[string]*builtList
}

type edgeKey struct {
	from, to *analysis.Node
	at       source.Span
}

type diagKey struct {
	at  source.Span
	msg string
}

func (a *analyzer) span(fi *fileInfo, s cfp.Span) source.Span {
	return source.Span{URI: fi.src.URI, Start: s.Start, End: s.End}
}

func (a *analyzer) diag(d analysis.Diagnostic) {
	k := diagKey{d.At, d.Message}
	if a.seenDiag[k] {
		return
	}
	a.seenDiag[k] = true
	a.diags = append(a.diags, d)
}

// linkTo links the words at to one node.
func (a *analyzer) linkTo(at source.Span, n *analysis.Node) {
	if a.seenLink[at] {
		return
	}
	if len(a.nodeSlab) == 0 {
		a.nodeSlab = make([]*analysis.Node, 1024)
	}
	one := a.nodeSlab[:1:1]
	a.nodeSlab = a.nodeSlab[1:]
	one[0] = n
	a.link(analysis.Link{At: at, Nodes: one})
}

func (a *analyzer) link(l analysis.Link) {
	k := l.At
	if a.seenLink[k] {
		return
	}
	a.seenLink[k] = true
	a.links = append(a.links, l)
}

// load parses the file at path (open document or disk), once.
func (a *analyzer) load(path string) *fileInfo {
	if fi, ok := a.files[path]; ok {
		return fi
	}
	f := lookupRegular(a.req.Workspace, path)
	if f == nil {
		a.files[path] = nil
		return nil
	}
	return a.add(path, f)
}

// lookupRegular reads a file the policy names (an input, def.json): an
// open document, else a regular file on disk. Devices and pipes
// (inputs => { "/dev/zero" }) would never finish reading.
func lookupRegular(ws *source.Workspace, path string) *source.File {
	if f := ws.OverlayAt(path); f != nil {
		return f
	}
	if st, err := os.Stat(path); err != nil || !st.Mode().IsRegular() {
		return nil
	}
	return ws.Lookup(path)
}

func (a *analyzer) add(key string, f *source.File) *fileInfo {
	fi := a.instantiate(a.sys.lower(f), f)
	a.files[key] = fi
	a.order = append(a.order, fi)
	for _, e := range fi.parsed.Errors {
		a.diag(analysis.Diagnostic{At: a.span(fi, e.Span), Severity: analysis.Error, Code: "syntax", Message: e.Message})
	}
	return fi
}

func (s *System) Analyze(req *analysis.Request) *analysis.Result {
	if req.Workspace == nil {
		req.Workspace = source.NewWorkspace()
	}
	s.parser.Version = req.Settings.Get("cfengine.version", cfp.DefaultVersion)
	s.verMu.Lock()
	s.version = s.parser.Version
	s.verMu.Unlock()
	s.gen++
	a := &analyzer{sys: s, req: req, graph: &analysis.Graph{Nodes: make([]*analysis.Node, 0, s.last.nodes), Edges: make([]*analysis.Edge, 0, s.last.edges)},
		files: map[string]*fileInfo{}, seenDiag: map[diagKey]bool{}, seenLink: make(map[source.Span]bool, s.last.links),
		links: make([]analysis.Link, 0, s.last.links), seenEdge: make(map[edgeKey]bool, s.last.edges),
		varIndex: map[string][]varHit{}, arrIndex: map[string][]varHit{}}
	res := &analysis.Result{}
	a.res = res
	defer func() {
		// a canceled analysis keeps every cached file (the next one will
		// want them); a finished one drops those it did not use
		if !a.canceled {
			s.evict()
			s.last = sizes{len(a.graph.Nodes), len(a.graph.Edges), len(a.links)}
		}
		res.Graph = *a.graph
		res.Diags = a.diags
		res.Links = a.links
	}()
	for i, f := range req.Files {
		if i%16 == 0 && a.stop() {
			return res
		}
		key := f.Path
		if key == "" {
			key = f.URI
		}
		if _, ok := a.files[key]; !ok {
			a.add(key, f)
		}
	}
	var entryFile *fileInfo
	if req.Entry != "" {
		if p := source.URIToPath(req.Entry); p != "" {
			entryFile = a.load(p)
		}
		if entryFile == nil {
			for _, fi := range a.order {
				if fi.src.URI == req.Entry {
					entryFile = fi
				}
			}
		}
	}
	// Entries: the asked-for file, else every file with a body common
	// control, else files defining bundle main that no entry loads.
	var entries []*fileInfo
	if entryFile != nil {
		entries = append(entries, entryFile)
	}
	files := append([]*fileInfo(nil), a.order...)
	for _, fi := range files {
		if fi != entryFile && hasCommonControl(fi) {
			entries = append(entries, fi)
		}
	}
	var policies []*policy
	covered := map[*fileInfo]bool{}
	for _, e := range entries {
		if a.stop() {
			return res
		}
		pol := a.loadPolicy(e)
		policies = append(policies, pol)
		for _, fi := range pol.files {
			covered[fi] = true
		}
	}
	for _, fi := range files {
		if !covered[fi] && definesMain(fi) {
			if a.stop() {
				return res
			}
			pol := a.loadPolicy(fi)
			policies = append(policies, pol)
			for _, f := range pol.files {
				covered[f] = true
			}
		}
	}
	// Files no policy loads: checked alone, without missing-definition
	// diagnostics (they may be loaded by a policy outside the workspace).
	for _, fi := range files {
		if !covered[fi] {
			if a.stop() {
				return res
			}
			pol := a.loadPolicy(fi)
			pol.unresolved = true
			a.checkPolicy(pol, nil, false)
			if len(entries) == 0 && hasAgentBundle(fi) {
				a.diag(analysis.Diagnostic{At: source.Span{URI: fi.src.URI}, Severity: analysis.Warning, Code: "no-bundlesequence",
					Message: "no body common control and no bundle main: run alone, cf-agent says Bundle 'main' listed in the bundlesequence is not a defined bundle"})
			}
		}
	}
	for i, pol := range policies {
		if a.stop() {
			return res
		}
		run, sched := a.schedule(pol)
		if a.stop() {
			return res
		}
		a.checkPolicy(pol, sched, true)
		if i == 0 || pol.entry == entryFile {
			a.facts(pol, sched)
		}
		res.Runs = append(res.Runs, *run)
	}
	return res
}

// stop reports (and remembers) that the caller gave up on the analysis:
// the server cancels an analysis a newer edit made stale. What was
// computed so far is returned; nobody will look at it.
func (a *analyzer) stop() bool {
	if !a.canceled && a.req.Canceled() {
		a.canceled = true
	}
	return a.canceled
}

func hasCommonControl(fi *fileInfo) bool { return fi.hasControl }
func hasAgentBundle(fi *fileInfo) bool   { return fi.hasAgent }
func definesMain(fi *fileInfo) bool      { return fi.hasMain }

// seqItem is one bundlesequence entry: the bundle, its arguments and the
// words that named it.
type seqItem struct {
	name string
	args []string
	at   source.Span
	ok   bool // statically known
	// expanded items come from a list variable (over-approximated: the
	// union of every class branch), so repeats are not reported.
	expanded bool
}

func (a *analyzer) bundlesequence(pol *policy, ev *evaluator) ([]seqItem, bool) {
	if bs := a.req.Settings.Get("cfengine.bundlesequence", ""); bs != "" {
		var out []seqItem
		for _, n := range strings.Split(bs, ",") {
			if n = strings.TrimSpace(n); n != "" {
				out = append(out, seqItem{name: n, ok: true})
			}
		}
		return out, true
	}
	if pol.control == nil && pol.brokenControl {
		return nil, true // unknown: its body common control did not parse
	}
	if pol.control != nil {
		fi := pol.controlF
		for _, at := range pol.control.Attrs {
			if at.Lval.Text != "bundlesequence" || at.Rval == nil {
				continue
			}
			items := at.Rval.Items
			if at.Rval.Kind != cfp.List {
				items = []*cfp.Rval{at.Rval}
			}
			var out []seqItem
			sc := scope{dir: fi.dir}
			for _, it := range items {
				sp := a.span(fi, it.NameSpan)
				if it.Kind == cfp.String {
					sp = source.Span{URI: sp.URI, Start: it.Span.Start + 1, End: it.Span.End - 1}
				}
				switch it.Kind {
				case cfp.Call:
					var args []string
					for _, x := range it.Items {
						vs := ev.rval(x, sc)
						args = append(args, strings.Join(vs.vals, ","))
					}
					out = append(out, seqItem{name: it.Value, args: args, at: sp, ok: true})
				default:
					vs := ev.rval(it, sc)
					if !vs.resolved {
						out = append(out, seqItem{name: it.Value, at: sp})
						continue
					}
					for _, v := range vs.vals {
						out = append(out, seqItem{name: v, at: sp, ok: true, expanded: it.Kind == cfp.NakedVar})
					}
				}
			}
			return out, true
		}
	}
	return []seqItem{{name: "main", ok: true}}, false
}

// schedule computes the Run of one policy.
func (a *analyzer) schedule(pol *policy) (*analysis.Run, *scheduler) {
	ev := pol.ev
	if ev == nil {
		ev = newEvaluator(pol)
	}
	s := newScheduler(a, pol, ev)
	mode := a.req.Settings.Get("cfengine.evaluationOrder", "")
	commonOrder, agentOrder := "", ""
	for _, f := range pol.files {
		for _, bo := range f.bodies {
			b := bo.block
			if b.Kind != "body" || b.Name.Text != "control" {
				continue
			}
			for _, at := range b.Attrs {
				if at.Lval.Text == "evaluation_order" && at.Rval != nil && at.Rval.Kind == cfp.String {
					switch b.Type.Text {
					case "common":
						commonOrder = at.Rval.Value
					case "agent":
						agentOrder = at.Rval.Value
					}
				}
			}
		}
	}
	s.topDown = func(b *bundleInfo) bool {
		if mode != "" {
			return mode == "top_down"
		}
		if b.block.EvalOrder != "" {
			return b.block.EvalOrder == "top_down"
		}
		if agentOrder != "" {
			return agentOrder == "top_down"
		}
		return commonOrder == "top_down"
	}
	s.preEvaluate()
	seq, explicit := a.bundlesequence(pol, ev)
	s.seqLen = len(seq)
	run := &analysis.Run{Name: filepath.Base(pol.entry.src.Path), Entry: pol.entry.src.URI}
	if run.Name == "." || run.Name == "" {
		run.Name = pol.entry.src.URI
	}
	for i, it := range seq {
		if i%32 == 31 && a.stop() {
			break
		}
		if !it.ok {
			continue
		}
		b := pol.bundle(it.name, "default")
		if b == nil {
			if !pol.unresolved || !explicit {
				at := it.at
				if at.IsZero() {
					at = source.Span{URI: pol.entry.src.URI, Start: 0, End: 0}
				}
				a.diag(analysis.Diagnostic{At: at, Severity: analysis.Error, Code: "missing-target",
					Message: fmt.Sprintf("Bundle '%s' listed in the bundlesequence is not a defined bundle", it.name)})
				run.Refused = true
			}
			continue
		}
		if !it.at.IsZero() {
			a.linkTo(it.at, b.node)
		}
		if _, ok := s.seqPos[b]; !ok {
			s.seqPos[b] = i + 1
		}
		at := it.at
		if it.expanded {
			at = source.Span{}
		}
		s.runBundle(b, it.args, at)
	}
	run.Steps = s.steps
	for _, r := range s.repeats {
		a.diag(analysis.Diagnostic{At: r[0], Severity: analysis.Info, Code: "repeated-call",
			Message: "this bundle was already evaluated with the same arguments in this run: this call only recomputes its variables, its other promises do nothing",
			Related: []analysis.Related{{At: r[1], Message: "first evaluated here"}}})
	}
	return run, s
}

// bodyLvals are the promise attributes whose value names a body of the
// same type (libpromises/mod_*.c: CF_DATA_TYPE_BODY constraints).
var bodyLvals = map[string]bool{
	"action": true, "classes": true, "contain": true, "copy_from": true, "perms": true, "edit_defaults": true,
	"delete": true, "depth_search": true, "file_select": true, "link_from": true, "changes": true, "rename": true,
	"acl": true, "select_region": true, "insert_select": true, "edit_field": true, "replace_with": true,
	"match_value": true, "service_method": true, "package_method": true, "package_module": true,
	"process_select": true, "process_count": true, "database_server": true, "environment_resources": true,
	"environment_interface": true, "volume": true, "mount": true, "location": true, "password": true,
	"select_xpath": true, "module": false, "when": true,
}

// bundleLvals name a bundle: lval -> bundle type ("" = agent or common).
var bundleLvals = map[string]string{"usebundle": "", "edit_line": "edit_line", "edit_xml": "edit_xml", "home_bundle": "", "then": ""}

// checkPolicy reports what cf-promises (and cf-agent) would say about one
// policy, and what they silently skip.
func (a *analyzer) checkPolicy(pol *policy, s *scheduler, complete bool) {
	missingOK := pol.unresolved
	for _, l := range pol.inputLinks {
		a.link(l)
	}
	// duplicate bundles and bodies
	seen := map[string]*bundleInfo{}
	for _, b := range pol.bundles {
		k := b.tkey
		if b.broken {
			continue // only its syntax error is reported
		}
		if first, ok := seen[k]; ok {
			a.diag(analysis.Diagnostic{At: a.span(b.file, b.block.Name.Span), Severity: analysis.Error, Code: "duplicate",
				Message: fmt.Sprintf("Duplicate definition of bundle %s with type %s", b.block.Name.Text, b.block.Type.Text),
				Related: []analysis.Related{{At: first.node.Decl, Message: "first defined here"}}})
			continue
		}
		seen[k] = b
	}
	seenBody := map[string]*bodyInfo{}
	for _, k := range pol.bodyKeys {
		for _, bo := range pol.bodies[k] {
			if bo.block.Type.Text == "file" && bo.block.Name.Text == "control" || bo.broken {
				continue
			}
			if first, ok := seenBody[k]; ok {
				a.diag(analysis.Diagnostic{At: a.span(bo.file, bo.block.Name.Span), Severity: analysis.Error, Code: "duplicate",
					Message: fmt.Sprintf("Duplicate definition of body %s with type %s", bo.block.Name.Text, bo.block.Type.Text),
					Related: []analysis.Related{{At: first.node.Decl, Message: "first defined here"}}})
				continue
			}
			seenBody[k] = bo
		}
	}
	// duplicate handles (same context), promise types not allowed
	handles := map[string]*promiseInfo{}
	for _, b := range pol.bundles {
		for _, sec := range b.block.Sections {
			t := sec.Type.Text
			if b.file.checked {
				break
			}
			if !cfp.BuiltinPromiseTypes[t] && !pol.unresolved && pol.customType(t) == nil {
				a.diag(analysis.Diagnostic{At: a.span(b.file, sec.Type.Span), Severity: analysis.Error, Code: "missing-target",
					Message: fmt.Sprintf("Undefined promise type '%s'", t)})
			}
			if cfp.BuiltinPromiseTypes[t] && !cfp.TypeAllowed(b.block.Type.Text, t) {
				a.diag(analysis.Diagnostic{At: a.span(b.file, sec.Type.Span), Severity: analysis.Error, Code: "type-not-allowed",
					Message: fmt.Sprintf("Promise type '%s' not supported by '%s' bundle type", t, b.block.Type.Text)})
			}
		}
		for _, p := range b.promises {
			if p.handle == "" || strings.Contains(p.handle, "$(") || strings.Contains(p.handle, "${") {
				continue
			}
			if first, ok := handles[p.handle]; ok {
				if first.p.Context == p.p.Context {
					h := p.p.Get("handle")
					a.diag(analysis.Diagnostic{At: a.span(b.file, h.Rval.Span), Severity: analysis.Error, Code: "duplicate",
						Message: fmt.Sprintf("Duplicate promise handle %s found", p.handle),
						Related: []analysis.Related{{At: a.span(first.bundle.file, first.p.Get("handle").Rval.Span), Message: "first used here"}}})
				}
				continue
			}
			handles[p.handle] = p
		}
	}
	for _, fi := range pol.files {
		fi.checked = true
	}
	// references: bodies, bundles, handles. A file shared by several
	// policies is resolved in each; what resolves as before is not
	// emitted again.
	for _, b := range pol.bundles {
		ns := b.block.Namespace
		for _, p := range b.promises {
			if p.emitted == nil && len(p.refs) > 0 {
				p.emitted = make([]*analysis.Node, len(p.refs))
			}
			for i := range p.refs {
				a.checkRef(pol, s, p, i, ns, missingOK)
			}
			if p.dependsOn != nil {
				a.checkDependsOn(pol, s, p, p.dependsOn)
			}
			if len(p.varRefs) > 0 {
				a.varLinks(pol, p)
			}
		}
	}
}

// missingNode marks a reference already reported as missing.
var missingNode = &analysis.Node{}

// checkRef resolves one body or bundle reference of a promise in a
// policy: a link and an edge, or a missing-target error.
func (a *analyzer) checkRef(pol *policy, s *scheduler, p *promiseInfo, i int, ns string, missingOK bool) {
	ref := &p.refs[i]
	r := ref.c.Rval
	lv := ref.c.Lval.Text
	b := p.bundle
	if ref.body {
		var target *analysis.Node
		if bo := pol.body(lv, r.Value, ns); bo != nil {
			target = bo.node
		} else if !missingOK && !(lv == "package_module" && r.Kind == cfp.Ident && strings.Contains(r.Value, "$")) {
			target = missingNode
		}
		if target == nil || p.emitted[i] == target {
			return
		}
		p.emitted[i] = target
		at := a.span(b.file, r.NameSpan)
		if target == missingNode {
			a.diag(analysis.Diagnostic{At: at, Severity: analysis.Error, Code: "missing-target",
				Message: fmt.Sprintf("Undefined body %s with type %s", strings.TrimPrefix(r.Value, "default:"), lv)})
			return
		}
		a.linkTo(at, target)
		a.graph.Connect(&analysis.Edge{From: p.node, To: target, Kind: analysis.Reference, Reason: lv, At: at})
		return
	}
	bt := bundleLvals[lv]
	tb := pol.bundle(r.Value, ns)
	if tb != nil && bt != "" && tb.block.Type.Text != bt {
		tb = nil
		for _, cand := range pol.byKey[qualify(ns, r.Value)] {
			if cand.block.Type.Text == bt {
				tb = cand
			}
		}
	}
	var target *analysis.Node
	switch {
	case tb != nil:
		target = tb.node
	case !missingOK:
		target = missingNode
	}
	// a missing bundle is judged again in each policy (its schedule says
	// whether the promise runs there)
	if target == nil || p.emitted[i] == target && target != missingNode {
		return
	}
	p.emitted[i] = target
	sp := a.span(b.file, r.NameSpan)
	if r.Kind == cfp.String {
		sp = source.Span{URI: sp.URI, Start: r.Span.Start + 1, End: r.Span.End - 1}
	}
	if target == missingNode {
		// cf-promises accepts both; cf-agent looks the bundle up only
		// when it evaluates the promise, and stops there
		msg := fmt.Sprintf("A method attempted to use a bundle '%s' that was apparently not defined", r.Value)
		says := "says this and aborts the run"
		if lv != "usebundle" && lv != "then" {
			msg = fmt.Sprintf("Did not find bundle '%s' for edit operation", r.Value)
			says = "says this"
		}
		switch a.refRuns(s, p) {
		case triTrue:
			a.diag(analysis.Diagnostic{At: sp, Severity: analysis.Error, Code: "missing-target", Message: msg})
		case triMaybe:
			a.diag(analysis.Diagnostic{At: sp, Severity: analysis.Warning, Code: "missing-target",
				Message: fmt.Sprintf("%s: cf-agent %s on hosts where this promise's guard (%s) holds; elsewhere it skips the promise", msg, says, guardWords(b.file, p))})
		case triFalse:
			// skipped everywhere: cf-agent never looks the bundle up.
			// An unquoted name is still expanded (and complained
			// about) when only if/unless hold the promise back.
			if r.Kind == cfp.Ident && s.ifFalse[p.idx] {
				a.diag(analysis.Diagnostic{At: sp, Severity: analysis.Warning, Code: "missing-target",
					Message: fmt.Sprintf("Apparent bundle '%s' was undeclared, but used in a promise (possible unquoted literal value): cf-agent logs this error in every pass and goes on; the promise itself is skipped (its guard (%s) is false)", r.Value, guardWords(b.file, p))})
			}
		}
		return
	}
	a.linkTo(sp, target)
	a.graph.Connect(&analysis.Edge{From: p.node, To: target, Kind: analysis.Call, Reason: lv, At: sp})
}

// refRuns tells whether a promise that names a bundle is evaluated,
// so that cf-agent looks the bundle up: true when it is unguarded or its
// guard held when the schedule reached it, maybe when its guard may or
// may not hold, false when the schedule reached it only with its guard
// false. A promise the schedule did not reach counts as unguarded when
// it has no guard, else as maybe.
func (a *analyzer) refRuns(s *scheduler, p *promiseInfo) tri {
	if s == nil {
		return triTrue
	}
	if g := s.evalGuard[p.idx]; g > 0 {
		return g - 1
	}
	if _, reached := s.guardFalse[p.idx]; reached {
		return triFalse
	}
	if p.p.Context == "any" && len(p.guards) == 0 {
		return triTrue
	}
	return triMaybe
}

// guardWords quotes a promise's guard as written: its class context,
// its if/ifvarclass/unless attributes.
func guardWords(fi *fileInfo, p *promiseInfo) string {
	var parts []string
	if p.p.Context != "any" {
		parts = append(parts, "'"+p.p.Context+"::'")
	}
	for _, c := range p.guards {
		if c.Rval != nil && c.Rval.Span.End <= len(fi.src.Text) {
			parts = append(parts, c.Lval.Text+" => "+string(fi.src.Text[c.Rval.Span.Start:c.Rval.Span.End]))
		}
	}
	return strings.Join(parts, ", ")
}

// checkDependsOn links each handle of a depends_on and warns about the
// ones that keep the promise from ever running.
func (a *analyzer) checkDependsOn(pol *policy, s *scheduler, p *promiseInfo, c *cfp.Constraint) {
	for _, h := range p.depends {
		sp := a.span(p.bundle.file, h.Span)
		sp = source.Span{URI: sp.URI, Start: sp.Start + 1, End: sp.End - 1}
		targets := pol.handles[h.Value]
		var nodes []*analysis.Node
		for _, t := range targets {
			nodes = append(nodes, t.node)
			if k := (edgeKey{t.node, p.node, sp}); !a.seenEdge[k] {
				a.seenEdge[k] = true
				a.graph.Connect(&analysis.Edge{From: t.node, To: p.node, Kind: analysis.Order, Reason: "depends_on", At: sp})
			}
		}
		if len(nodes) > 0 {
			a.link(analysis.Link{At: sp, Nodes: nodes})
		}
		if pol.unresolved || strings.ContainsAny(h.Value, "$@") {
			continue
		}
		if len(targets) == 0 {
			a.diag(analysis.Diagnostic{At: sp, Severity: analysis.Warning, Code: "never-runs", NeverRuns: true, Unresolved: true,
				Message: fmt.Sprintf("depends_on '%s': no promise has this handle, so this promise silently never runs (cf-agent reports nothing)", h.Value)})
			continue
		}
		t := targets[0]
		if fails(t) {
			a.diag(analysis.Diagnostic{At: sp, Severity: analysis.Warning, Code: "never-runs", NeverRuns: true,
				Message: fmt.Sprintf("depends_on '%s': that promise (%s) always fails (NOT_KEPT), so this promise silently never runs", h.Value, t.node.Ref),
				Related: []analysis.Related{{At: t.node.Decl, Message: "the promise with handle '" + h.Value + "'"}}})
			continue
		}
		if s == nil {
			continue
		}
		if cyc := a.dependsCycle(pol, p, h.Value); cyc != nil {
			// One warning per cycle, on the handle that closes it (the last
			// one written); every member finds the same cycle and only the
			// owner of that handle reports it.
			at := make([]source.Span, len(cyc))
			closing := 0
			for i, q := range cyc {
				at[i] = sp
				if i > 0 {
					at[i] = a.dependsSpan(q, cyc[(i+1)%len(cyc)].handle)
				}
				if at[i].URI > at[closing].URI || at[i].URI == at[closing].URI && at[i].Start > at[closing].Start {
					closing = i
				}
			}
			if closing != 0 {
				continue
			}
			var rel []analysis.Related
			var members []*analysis.Node
			names := []string{}
			for i, q := range cyc {
				members = append(members, q.node)
				names = append(names, q.handle)
				if i > 0 && !at[i].IsZero() {
					rel = append(rel, analysis.Related{At: at[i], Message: fmt.Sprintf("%s depends on '%s'", q.node.Ref, cyc[(i+1)%len(cyc)].handle)})
				}
			}
			a.diag(analysis.Diagnostic{At: sp, Severity: analysis.Warning, Code: "never-runs", NeverRuns: true,
				Message: fmt.Sprintf("depends_on cycle (%s): these promises silently never run", strings.Join(append(names, names[0]), " -> ")),
				Related: rel, Members: members})
			continue
		}
		if !s.ran(p) && s.ran(t) && t.bundle != p.bundle {
			a.diag(analysis.Diagnostic{At: sp, Severity: analysis.Warning, Code: "never-runs", NeverRuns: true,
				Message: fmt.Sprintf("depends_on '%s': that promise is in bundle '%s', which runs after this promise's bundle '%s' has finished, so this promise silently never runs", h.Value, t.bundle.label, p.bundle.label),
				Related: []analysis.Related{{At: t.node.Decl, Message: "the promise with handle '" + h.Value + "'"}}})
		}
	}
}

// dependsSpan is the words of q's depends_on entry naming handle h (the
// quotes left out), or a zero span.
func (a *analyzer) dependsSpan(q *promiseInfo, h string) source.Span {
	for _, d := range q.depends {
		if d.Value == h {
			sp := a.span(q.bundle.file, d.Span)
			return source.Span{URI: sp.URI, Start: sp.Start + 1, End: sp.End - 1}
		}
	}
	return source.Span{}
}

// dependsCycle returns the promises of a depends_on cycle through p (via
// handle h), or nil.
func (a *analyzer) dependsCycle(pol *policy, p *promiseInfo, h string) []*promiseInfo {
	if p.handle == "" {
		return nil
	}
	// BFS from the promise named h back to p
	type item struct {
		q    *promiseInfo
		path []*promiseInfo
	}
	start := pol.handles[h]
	if len(start) == 0 {
		return nil
	}
	queue := []item{{start[0], []*promiseInfo{p, start[0]}}}
	seen := map[*promiseInfo]bool{start[0]: true}
	for len(queue) > 0 && len(seen) < 10000 {
		it := queue[0]
		queue = queue[1:]
		if it.q == p {
			return it.path[:len(it.path)-1]
		}
		d := it.q.p.Get("depends_on")
		if d == nil {
			continue
		}
		for _, x := range d.Rval.Scalars() {
			for _, nq := range pol.handles[x.Value] {
				if nq == p {
					return it.path
				}
				if !seen[nq] {
					seen[nq] = true
					queue = append(queue, item{nq, append(append([]*promiseInfo(nil), it.path...), nq)})
				}
			}
		}
	}
	return nil
}

// varLinks links $(bundle.var) and $(var) references in a promise's
// strings to the vars promises defining them (or the bundle parameter).
func (a *analyzer) varLinks(pol *policy, p *promiseInfo) {
	own := p.varsLinked
	p.varsLinked = true
	for _, r := range p.varRefs {
		if r.bundle == "" && own {
			continue // linked in an earlier policy: same bundle
		}
		b := p.bundle
		if r.bundle != "" {
			b = pol.bundle(r.bundle, p.bundle.block.Namespace)
		}
		if b == nil {
			continue
		}
		if r.bundle == "" {
			if at := a.span(p.bundle.file, r.at); !a.seenLink[at] {
				for _, prm := range b.block.Params {
					if prm.Text == r.name {
						a.link(analysis.Link{At: at, Files: []source.Span{a.span(b.file, prm.Span)}})
					}
				}
			}
		}
		idx := b.vars[r.name]
		if len(idx) == 0 {
			continue
		}
		nodes := make([]*analysis.Node, len(idx))
		for i, k := range idx {
			nodes[i] = b.promises[k].node
		}
		a.link(analysis.Link{At: a.span(p.bundle.file, r.at), Nodes: nodes})
	}
}

// scanVarRefs finds the $(bundle.var) and $(var) references in a
// promise's promiser and values.
func scanVarRefs(text []byte, p *cfp.Promise) []varRef {
	var out []varRef
	check := func(s string, base int) {
		for i := 0; i+1 < len(s); i++ {
			if (s[i] != '$' && s[i] != '@') || (s[i+1] != '(' && s[i+1] != '{') {
				continue
			}
			end := matchClose(s, i+1)
			if end < 0 {
				return
			}
			name := s[i+2 : end]
			if name == "" || strings.ContainsAny(name, "$()[]{} ") {
				continue
			}
			bname, vname, qualified := strings.Cut(name, ".")
			if !qualified {
				bname, vname = "", name // this bundle's variable or parameter
			}
			out = append(out, varRef{at: cfp.Span{Start: base + i + 2, End: base + end}, bundle: bname, name: vname})
		}
	}
	quoted := func(sp cfp.Span) {
		if sp.End-sp.Start >= 2 && sp.End <= len(text) {
			raw := text[sp.Start+1 : sp.End-1]
			if bytes.IndexByte(raw, '$') >= 0 || bytes.IndexByte(raw, '@') >= 0 {
				check(string(raw), sp.Start+1)
			}
		}
	}
	var visit func(r *cfp.Rval)
	visit = func(r *cfp.Rval) {
		if r == nil {
			return
		}
		switch r.Kind {
		case cfp.String:
			quoted(r.Span)
		case cfp.NakedVar:
			check(r.Value, r.Span.Start)
		}
		for _, it := range r.Items {
			visit(it)
		}
	}
	quoted(p.PromiserSpan)
	for _, c := range p.Constraints {
		visit(c.Rval)
	}
	return out
}

// facts fills the hover lines of bundles and promises from one policy's
// schedule.
// passList spells a set of passes (bit 0 = pass 1).
var passList = [8]string{"", "1", "2", "1, 2", "3", "1, 3", "2, 3", "1, 2, 3"}

func (a *analyzer) facts(pol *policy, s *scheduler) {
	var slab []analysis.Fact
	for _, b := range pol.bundles {
		where := b.label
		if pos, ok := s.seqPos[b]; ok {
			seq := fmt.Sprintf("%s of %d", analysis.Ordinal(pos), s.seqLen)
			b.node.Facts = append(b.node.Facts, analysis.Fact{Label: "bundlesequence", Value: seq})
			where += " (" + seq + " in the bundlesequence)"
		} else if c := s.calledBy[b]; c != nil {
			call := fmt.Sprintf("%s in bundle %s", c.node.Ref, c.bundle.label)
			b.node.Facts = append(b.node.Facts, analysis.Fact{Label: "called by", Value: call})
			where += " (called by " + call + ")"
		}
		var editor string
		if e := s.editedBy[b]; e != nil {
			editor = fmt.Sprintf("%s in bundle %s (%s => %s)", e.node.Ref, e.bundle.label, b.block.Type.Text, b.block.Name.Text)
			b.node.Facts = append(b.node.Facts, analysis.Fact{Label: "edits for", Value: editor})
		}
		td := s.topDown != nil && s.topDown(b)
		for _, p := range b.promises {
			n := p.node
			if len(slab) < 3 {
				slab = make([]analysis.Fact, 3*64)
			}
			n.Facts = slab[:0:3]
			slab = slab[3:]
			n.Facts = append(n.Facts, analysis.Fact{Label: "bundle", Value: where})
			if td {
				n.Facts = append(n.Facts, analysis.Fact{Label: "order", Value: p.topDownFact})
			} else {
				n.Facts = append(n.Facts, analysis.Fact{Label: "order", Value: p.orderFact})
			}
			ps := s.passes[p.idx]
			why := s.why[p.idx]
			switch {
			case ps == 0 && editor != "":
				n.Facts = append(n.Facts, analysis.Fact{Label: "pass", Value: "in the edit's own passes, when " + editor + " edits its file"})
			case ps == 0:
				if why == "" {
					why = "its bundle is not reached from the bundlesequence"
				}
				n.Facts = append(n.Facts, analysis.Fact{Label: "pass", Value: "never evaluated: " + why})
			default:
				v := passList[ps>>1&7]
				if ps&2 == 0 && why != "" {
					v += " (not earlier: " + why + ")"
				}
				n.Facts = append(n.Facts, analysis.Fact{Label: "pass", Value: v})
			}
		}
	}
}
