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
	"slices"
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

// Reads names the files a policy's analysis reads beside its own: the
// augments (def.json: inputs, classes, variables), a cfbs module's
// cfbs.json, and the Makefile.am and configure.ac that say which files a
// build makes. Editing one analyses the policies again.
func (*System) Reads(path string) bool {
	switch filepath.Base(path) {
	case "def.json", "cfbs.json", "Makefile.am", "configure.ac":
		return true
	}
	return false
}

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
		{Name: "cfengine-version", Key: "cfengine.version", Help: "CFEngine version @if macros are evaluated for and attribute names are checked against (default " + cfp.DefaultVersion + ")"},
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
	// hostLibNotes are the notes that an input from $(sys.libdir) comes
	// from the host, given once every policy is loaded to the words no
	// policy with a lib/ beside its entry read (libHere): one input, one
	// diagnostic
	hostLibNotes []analysis.Diagnostic
	libHere      map[source.Span]bool
	// cubes: condCubes' results, by the policy's classDefs and the
	// conditions
	cubes map[string]cubeResult
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
		varIndex: map[string][]varHit{}, arrIndex: map[string][]varHit{}, libHere: map[source.Span]bool{}, cubes: map[string]cubeResult{}}
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
	linked := linkTargets(files)
	for _, fi := range files {
		if fi != entryFile && hasCommonControl(fi) && linked[fi] == nil {
			entries = append(entries, fi)
		}
	}
	var policies []*policy
	covered := map[*fileInfo]bool{}
	// A file read through a link a policy loads is that policy's; a link
	// no policy loads is its target's text, checked once under the
	// target's own name.
	isLink := map[*fileInfo]bool{}
	throughLinks := func() {
		for target, link := range linked {
			isLink[link] = true
			if covered[link] {
				covered[target] = true
			}
		}
	}
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
	throughLinks()
	for _, fi := range files {
		if !covered[fi] && definesMain(fi) {
			if a.stop() {
				return res
			}
			pol := a.loadPolicy(fi)
			pol.layered = a.cfbsOf(fi)
			policies = append(policies, pol)
			for _, f := range pol.files {
				covered[f] = true
			}
		}
	}
	throughLinks()
	// Files no policy loads: checked alone, without missing-definition
	// diagnostics (they may be loaded by a policy outside the workspace).
	for _, fi := range files {
		if !covered[fi] && !isLink[fi] {
			if a.stop() {
				return res
			}
			pol := a.loadPolicy(fi)
			pol.unresolved = true
			a.checkPolicy(pol, nil, false)
			if len(entries) == 0 && hasAgentBundle(fi) {
				// A library, a service file, a cfbs module: the policy that
				// loads it is elsewhere (masterfiles' promises.cf, a
				// project's def.json), and only run alone does it fail.
				said := "cf-promises says Bundle 'main' listed in the bundlesequence is not a defined bundle"
				if fi.nsMain != "" {
					said = fmt.Sprintf("cf-agent says Bundle 'main' listed in the bundlesequence was not found (this file's main is %s:main)", fi.nsMain)
				}
				a.diag(analysis.Diagnostic{At: source.Span{URI: fi.src.URI}, Severity: analysis.Info, Code: "no-bundlesequence",
					Message: "no body common control and no bundle main in the workspace: the policy that loads this file is elsewhere (open it with this folder to analyse them together); run alone, " + said})
			}
		}
	}
	for _, d := range a.hostLibNotes {
		if !a.libHere[d.At] {
			a.diag(d)
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

// linkTargets maps each workspace file that a symbolic link of the
// workspace points to, to that link. cf-agent runs a policy from the
// inputs folder it is deployed to: websupport-sk/ocf's promises.cf is a
// link to common/promises.cf, and its relative inputs ("common/def.cf")
// are read from the link's folder; run as common/promises.cf the same text
// would look for common/common/def.cf, which nobody does. The target is
// the link's text, analysed at the link's place only.
func linkTargets(files []*fileInfo) map[*fileInfo]*fileInfo {
	byPath := map[string]*fileInfo{}
	for _, fi := range files {
		if fi.src.Path != "" {
			byPath[filepath.Clean(fi.src.Path)] = fi
		}
	}
	out := map[*fileInfo]*fileInfo{}
	for _, fi := range files {
		if fi.src.Path == "" {
			continue
		}
		st, err := os.Lstat(fi.src.Path)
		if err != nil || st.Mode()&os.ModeSymlink == 0 {
			continue
		}
		real, err := filepath.EvalSymlinks(fi.src.Path)
		if err != nil {
			continue
		}
		if t := byPath[filepath.Clean(real)]; t != nil && t != fi {
			out[t] = fi
		}
	}
	return out
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

// cfbsOf is the cfbs.json (relative to its root) in fi's folder or
// above it in the workspace, or "".
func (a *analyzer) cfbsOf(fi *fileInfo) string {
	if fi.src.Path == "" {
		return ""
	}
	roots := a.req.Workspace.Roots()
	for d := filepath.Dir(fi.src.Path); ; d = filepath.Dir(d) {
		if f := lookupRegular(a.req.Workspace, filepath.Join(d, "cfbs.json")); f != nil {
			for _, r := range roots {
				if rel, err := filepath.Rel(r, f.Path); err == nil && !strings.HasPrefix(rel, "..") {
					return filepath.ToSlash(rel)
				}
			}
			return f.Path
		}
		if slices.Contains(roots, d) || filepath.Dir(d) == d {
			return ""
		}
	}
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
				d := analysis.Diagnostic{At: at, Severity: analysis.Error, Code: "missing-target",
					Message: fmt.Sprintf("Bundle '%s' listed in the bundlesequence is not a defined bundle", it.name)}
				if pol.unresolved {
					// the default main, with inputs the workspace cannot
					// give: one of them may define it (cfengine/documentation's
					// tutorials/file_compare_test.cf loads a
					// libraries/cfengine_stdlib.cf it does not hold;
					// cf-promises fails there on the input, "Can't stat file")
					d.Severity = analysis.Info
					d.Message += " (unless an input the workspace does not hold defines it: cf-promises fails first on that input; put it in the workspace to have this checked)"
				}
				a.diag(d)
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
					// a library's bundle is called by policies elsewhere
					why = "no bundlesequence or methods promise of a policy in this workspace reaches its bundle"
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
