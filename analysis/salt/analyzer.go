package salt

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/ordering-lsp/ordering-lsp/analysis"
	sp "github.com/ordering-lsp/ordering-lsp/parser/salt"
	"github.com/ordering-lsp/ordering-lsp/source"
)

// The analyzer's state: the graph's nodes and edges, links, facts and
// diagnostics as one request builds them.

type ctxDiag struct {
	d      analysis.Diagnostic
	runs   int
	target string // the ID a missing requisite or extend names
	mod    string // its state module ("id" for any)
	inRun  map[string]bool
	// maybeRuns: runs where only states with a templated ID or name
	// could be the target (patternRequisites); cands names them
	maybeRuns int
	cands     []reqCand
}

// contextual records a run-dependent diagnostic (once per run).
func (a *analyzer) contextual(d analysis.Diagnostic, target, mod string) {
	a.contextualRec(ctxRec{d: d, target: target, mod: mod})
}

// contextualMaybe records a requisite not found in a run where states
// whose ID or name the machine's data decides (cands) may be it.
func (a *analyzer) contextualMaybe(d analysis.Diagnostic, target, mod string, cands []reqCand) {
	a.contextualRec(ctxRec{d: d, target: target, mod: mod, maybe: true, cands: cands})
}

func (a *analyzer) contextualRec(r ctxRec) {
	if a.rec != nil {
		a.rec.ctx = append(a.rec.ctx, r)
		return
	}
	d := r.d
	key := fmt.Sprintf("%s|%d|%d|%s", d.At.URI, d.At.Start, d.At.End, d.Message)
	if a.runSeen[key] {
		return
	}
	a.runSeen[key] = true
	c := a.ctx[key]
	if c == nil {
		c = &ctxDiag{d: d, target: r.target, mod: r.mod, inRun: a.curRun}
		a.ctx[key] = c
		a.ctxOrd = append(a.ctxOrd, key)
	}
	c.runs++
	if r.maybe {
		c.maybeRuns++
		for _, x := range r.cands {
			if !slices.Contains(c.cands, x) {
				c.cands = append(c.cands, x)
			}
		}
	}
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
	sourceLinks []analysis.Link // salt://path to the files of its root (sourcelinks.go)
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
	pillarRoots map[string]bool // roots whose top.sls is a pillar top (pillarTree)
	// aloneFails: where the render of an SLS nothing names first fails
	// on every render (an undefined name, information), by URI
	aloneFails  map[string]int
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
		msg := e.Msg
		// the parser knows no SLS name: Salt's words carry it
		// (salt-order: "Rendering SLS 'base:Prueba' failed: could not
		// find expected ':'")
		if rest, ok := strings.CutPrefix(msg, "Rendering SLS failed: "); ok {
			msg = a.renderFailure(f, rest)
		} else if strings.HasPrefix(msg, "Jinja syntax error") {
			// (salt-order: "Rendering SLS 'base:f' failed: Jinja syntax
			// error: expected token ...")
			msg = a.renderFailure(f, msg)
		} else if msg == "SLS does not render to a dictionary" {
			msg = "SLS " + f.sls + " does not render to a dictionary"
		}
		a.diag(analysis.Diagnostic{At: source.Span{URI: f.file.URI, Start: e.Start, End: e.End}, Severity: sev(e.Severity), Code: code, Message: msg})
	}
	if f.p.R != nil && !a.templates[f.file.URI] {
		// (a template another file includes or imports may print what
		// its includer binds)
		named := a.named(f)
		// Salt's render failures the Jinja reader found: a name nothing
		// binds, Python 2's dict methods (Salt 3000+ runs on Python 3).
		// In an SLS applied alone only, information (jgmize/salt-states'
		// docsim.sls, "included by user's extended state" elsewhere).
		render := func(errs []sp.Error, code, alone string) {
			for _, e := range errs {
				d := analysis.Diagnostic{At: source.Span{URI: f.file.URI, Start: e.Start, End: e.End}, Severity: sev(e.Severity), Code: code,
					Message: a.renderFailure(f, e.Msg)}
				if !named {
					if e.Severity == 1 && code == "undefined-variable" {
						// applied alone it fails there, and what
						// follows is never read (dropAfterRenderErrors)
						if old, ok := a.aloneFails[f.file.URI]; !ok || e.Start < old {
							a.aloneFails[f.file.URI] = e.Start
						}
					}
					d.Severity = analysis.Info
					d.Message += " (applied alone; nothing in the repository includes this SLS or targets it from a top file" + alone + ")"
				}
				a.diag(d)
			}
		}
		render(f.p.R.Undefined, "undefined-variable", ", and what renders it may bind that name")
		render(f.p.R.Py2, "python2-method", "")
	}
	if a.topFrag[f.file.URI] {
		return // top data: what states would make wrong is not wrong here
	}
	for _, k := range ignoredReqKeys(f) {
		a.diag(analysis.Diagnostic{At: f.span(k), Severity: analysis.Info, Code: "requisite-ignored",
			Message: "Salt reads only the first key of a requisite item: this key is ignored and requires nothing (make it a list item of its own)"})
	}
	for _, d := range f.ids {
		if d.bad != "" && !a.unreachedData(f) {
			diag := analysis.Diagnostic{At: f.span(d.key), Severity: analysis.Error, Code: "structure", Message: d.bad}
			if d.dupOf != nil || d.dupKey != nil {
				diag.Message = a.renderFailure(f, d.bad) // the YAML loader refused the file
			}
			if note := placeBranchNote(f, d.key.Start); note != "" && d.dupOf == nil && d.dupKey == nil {
				// an ID written only in a branch of an undecided
				// condition fails only the renders that take it (plus3it/
				// ash-linux-formula: `Why Skip (...):` with no body in the
				// else of `if salt.file.directory_exists('/sys/firmware/efi')`)
				diag.Severity = analysis.Warning
				diag.Message += "\n" + note
			}
			if d.dupOf != nil {
				diag.Code = "conflicting-id"
				diag.Related = []analysis.Related{{At: f.span(d.dupOf.key), Message: "first declared here"}}
			}
			if d.dupKey != nil && d.dupOf == nil {
				diag.At = f.span(d.dupKey)
				diag.Code = "conflicting-id"
				diag.Related = []analysis.Related{{At: f.span(d.firstKey), Message: "first declared here"}}
			}
			a.diag(diag)
		}
	}
}

// renderFailure is Salt's message for an SLS it cannot render
// (salt/state.py render_state: "Rendering SLS '{saltenv}:{sls}' failed:
// {exc}"), in the saltenv whose file roots hold f: runbook-ops' runbook
// SLS fail as 'runbook:runbook.monitors.control', not 'base:...'.
func (a *analyzer) renderFailure(f *sfile, msg string) string {
	return fmt.Sprintf("Rendering SLS '%s' failed: %s", modKey(a.envOfRoot(f.root), f.sls), msg)
}

// envOfRoot is the saltenv a file root serves: the one the
// configuration gives it (base first), base where none does.
func (a *analyzer) envOfRoot(root string) string {
	if a.cfg == nil {
		return "base"
	}
	env, _ := a.cfg.envOf(root)
	return env
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
// shortRef is a state's label (`module.function ID name`, as salt-order
// and order print it) as hovers write it: `module.function ID` when the
// name is the ID, which it is for most states (`pkg.installed nginx
// nginx` read as a mistake in every hover of heroes-salt and
// SEJeff/salt-states).
func shortRef(ref string) string {
	fun, rest, ok := strings.Cut(ref, " ")
	if !ok || !strings.Contains(fun, ".") {
		return ref
	}
	if n := len(rest); n%2 == 1 && rest[n/2] == ' ' && rest[:n/2] == rest[n/2+1:] {
		return fun + " " + rest[:n/2]
	}
	return ref
}

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
