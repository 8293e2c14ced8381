// Package puppet lowers Puppet manifests into the neutral graph: it
// simulates what the Puppet 7 compiler puts into a catalog, in the order
// it puts it there (classes at first declaration, defined-type bodies
// after the main code), then the relationship graph Puppet's transaction
// sorts (containers replaced by begin/end anchors, metaparameters, chaining
// arrows, collectors, autorequire) and its order.
package puppet

import (
	"fmt"
	"hash/maphash"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/ordering-lsp/ordering-lsp/analysis"
	pp "github.com/ordering-lsp/ordering-lsp/parser/puppet"
	"github.com/ordering-lsp/ordering-lsp/source"
)

// System is the Puppet analysis. It keeps parsed chunks between calls.
type System struct {
	mu      sync.Mutex
	parsers map[string]*pp.Parser
	parsed  map[string]*parsedFile
	// runs of the previous analysis (server mode), by run name
	cache map[string]*runSnap
	// links of the last complete analysis: the next one's links array is
	// made that size at once (grown by doubling, it was a fifth of the
	// bytes an edit of a class 300 runs include allocated)
	linksLast     int
	cacheSettings string
	// Restored counts the runs the last Analyze took from the cache.
	Restored int
	// Loaded counts the files the last Analyze parsed (lazy.go: a
	// focused first analysis parses only what its runs read).
	Loaded int
	// loadedAll: the last analysis loaded every file of its request (it
	// was complete and not canceled while loading): a focused analysis
	// after it loads everything from the parse cache (lazy.go).
	loadedAll bool
	// names: what each file may define (lazy.go), by URI
	names map[string]namesEntry
	// eager: every file is loaded even for a focused first analysis (the
	// tests compare the two).
	eager bool
	// DefineEvals and DefineReplays count the defined-type bodies the
	// last Analyze evaluated and those it replayed from another run's
	// evaluation (defmemo.go).
	DefineEvals, DefineReplays int
	// ClassEvals and ClassReplays: the same for class bodies.
	ClassEvals, ClassReplays int
	// declCache: what each top-level statement declares (scanDeclared)
	declCache map[pp.Node][]string
	// unreached: the definitions the last complete analysis analysed
	// alone because no run reached a declaration of them (unreachedSpecs),
	// by run name; a partial analysis building such a run again keeps
	// it as quiet as the complete one did.
	unreached map[string]bool
	// declKinds: the classes and types each run's declared list names
	// (unreachedSpecs), kept for the lists the next analysis restores.
	declKinds map[declID][]string
	// Workers is how many goroutines evaluate the runs of a workspace
	// (0: one per CPU). Results do not depend on it.
	Workers int
	// NoSharedEval evaluates every define body in every run instead of
	// replaying another run's evaluation (defmemo.go, replay.go): results do not
	// depend on it, which the differential tests check.
	NoSharedEval bool
	// MemoWindow: a one-shot analysis (Request.Once) forgets the shared
	// evaluations no run asked for in this many runs (memoage.go; 0: 64,
	// negative: never). Results do not depend on it.
	MemoWindow int
	// MemoForgotten counts the keys the last one-shot analysis forgot.
	MemoForgotten int
	// Released counts the files whose syntax trees the last analysis let
	// go before building its sole run (oneshot.go).
	Released int
	// Reparsed counts the class bodies the last analysis parsed again
	// after its sole run had let them go (oneshot.go, classDef).
	Reparsed int
	// Renumber: every analysis numbers what its merge shares with a new
	// table (mergeids.go), so every restored snapshot is numbered again,
	// as after a table grown stale. Results do not depend on it, which
	// TestIncrementalRandomEdits checks.
	Renumber bool
	// PoisonFreed overwrites the node and edge slabs a merged run gives
	// back (runs.go): a result that still held one would show it, which
	// TestIncrementalRandomEdits checks. Results do not depend on it.
	PoisonFreed bool
	// Patched counts the runs the last Analyze patched instead of
	// building them again (patchplan.go).
	Patched int
	// PatchRefused counts the runs the last Analyze did not patch, by
	// the test that refused them (patchrun.go's refuse).
	PatchRefused map[int]int
	// trees: the versions of files analyses read that snapshots may name;
	// typeUses: what each tree does with resource types (patchplan.go)
	trees    map[string]treeText
	typeUses map[*pp.File]*typeUses
	// ids numbers what merges share (mergeids.go); lastLive: how many
	// nodes, edges and links the last analysis that kept it had
	ids      *mergeIDs
	lastLive [3]int
	// tok: the parsers of highlighting (tokens.go)
	tok tokenParsers
	// inertTrees: the parsers of the early cutoff for values (inert.go),
	// apart from highlighting's: the two run side by side; queries: the
	// attribute names each file's collectors query, by tree (guarded by mu)
	inertTrees tokenParsers
	queries    map[*pp.File]fileQueries
}

type parsedFile struct {
	hash uint64
	size int
	ast  *pp.File
}

// New returns the Puppet system.
func New() analysis.System {
	return &System{parsers: map[string]*pp.Parser{}, parsed: map[string]*parsedFile{}}
}

func (s *System) Name() string { return "puppet" }

// Movable implements analysis.Movable: a comment or blank line changes no
// catalog, and the words that name lines are templates (where, diagLines).
func (s *System) Movable() {}

// Reads: the files besides manifests an analysis reads: what says where
// modules come from (Puppetfile, environment.conf, .fixtures.yml,
// metadata.json), Hiera's configuration and data, facts files, and the
// Ruby types a module ships.
func (s *System) Reads(path string) bool {
	switch filepath.Base(path) {
	case "Puppetfile", "environment.conf", ".fixtures.yml", "metadata.json", "hiera.yaml":
		return true
	}
	switch filepath.Ext(path) {
	case ".yaml", ".yml", ".json":
		return true
	case ".rb":
		return strings.Contains(filepath.ToSlash(path), "/lib/puppet/")
	}
	return false
}

func (s *System) Flags() []analysis.Flag {
	return []analysis.Flag{
		{Name: "modulepath", Key: "puppet.modulepath", Help: "colon-separated module directories (default: a modules/ folder next to or above the file, and the workspace roots)", Path: true},
		{Name: "certname", Key: "puppet.certname", Help: "node name used to pick a node definition, named in messages as Puppet does (\"Could not find class ::x for NAME\"); unset: node blocks are matched with the placeholder puppet-order, which no message names"},
		{Name: "ordering", Key: "puppet.ordering", Help: "manifest (default) | title-hash | random: pre-Puppet-6 orderings"},
		{Name: "facts", Key: "puppet.facts", Help: "facts of the node to compile for (facter -j/-y, puppet facts), or a folder of fact sets / a PuppetDB export (check: every node; --node picks one); decides fact-dependent branches and Hiera levels", Path: true},
		{Name: "enc", Key: "puppet.enc", Help: "an ENC's answers: a folder of <certname>.yaml (default: the environment's enc/) or one file, read for --node", Path: true},
	}
}

var hashSeed = maphash.MakeSeed()

// maxManifest is the largest manifest parsed (real ones are < 1 MB).
const maxManifest = 16 << 20

// parse returns the syntax tree of f, re-parsing only changed chunks.
// Files parse concurrently (each Parser serialises its own file).
func (s *System) parse(f *source.File) *pp.File {
	h := maphash.Bytes(hashSeed, f.Text)
	s.mu.Lock()
	if p := s.parsed[f.URI]; p != nil && p.hash == h && p.size == len(f.Text) {
		s.mu.Unlock()
		return p.ast
	}
	ps := s.parsers[f.URI]
	if ps == nil {
		ps = &pp.Parser{}
		s.parsers[f.URI] = ps
	}
	s.mu.Unlock()
	var ast *pp.File
	if binaryManifest(f.Text) {
		ast = &pp.File{} // (a SELinux policy package: owns.go)
	} else {
		ast = ps.Parse(f.Text)
	}
	s.mu.Lock()
	s.parsed[f.URI] = &parsedFile{hash: h, size: len(f.Text), ast: ast}
	s.mu.Unlock()
	return ast
}

// parseAll parses the files on every worker before the analysis loads
// them one by one (a cold workspace: thousands of files). Cancellation is
// looked at before every file: an edit made while the workspace is
// parsed waits for it (every 256 files, it waited up to half a second
// with an empty chunk cache).
func (a *analyzer) parseAll(files []*source.File) {
	workers := a.nWorkers()
	if workers <= 1 || len(files) < 2*workers {
		return
	}
	next := make(chan *source.File)
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for f := range next {
				if len(f.Text) <= maxManifest && !a.canceled() {
					a.sys.parse(f)
				}
			}
		}()
	}
	for _, f := range files {
		if a.canceled() {
			break
		}
		next <- f
	}
	close(next)
	wg.Wait()
}

// fileInfo is one parsed manifest in an analysis.
type fileInfo struct {
	uri  string
	path string
	src  *source.File
	ast  *pp.File
	// topLevel: the file has statements other than definitions.
	topLevel bool
	nodes    []*nodeInfo
	// applies: the apply blocks of the file's Bolt plans, each compiled
	// to a catalog of its own on the plan's targets.
	applies []*applyInfo
	// id names the syntax tree (the parse cache returns the same tree
	// for unchanged text): the run cache's file inputs.
	id string
	// seq is the file's place in a complete load (lazy.go): of two
	// definitions of a name, the earlier file's counts.
	seq int
	num uint32 // the URI's number for spans (span.go)
	// misplaced: the definitions the file may not hold (location.go)
	misplaced []misplacedDef
}

type classInfo struct {
	name string
	def  *pp.ClassDef
	file *fileInfo
	node *analysis.Node
	// dropped: a sole run evaluated the class and let its body go
	// (oneshot.go, classEvaluated); classDef parses it again if asked.
	dropped bool
	// misplaced: its file may not hold it (location.go): Puppet never
	// finds it there
	misplaced bool
}

type defineInfo struct {
	name string
	def  *pp.DefineDef
	file *fileInfo
	node *analysis.Node
	// misplaced: its file may not hold it (location.go)
	misplaced bool
}

type nodeInfo struct {
	def  *pp.NodeDef
	file *fileInfo
	node *analysis.Node
	name string
}

// analyzer holds one Analyze call's state.
type analyzer struct {
	partial bool       // only the runs the request's focus needs (focus.go)
	lazy    *lazyIndex // files are loaded when a run needs them (lazy.go)
	// runsMerged of about runsTotal: what Request.Progress hears
	runsMerged, runsTotal int
	sys                   *System
	req                   *analysis.Request
	ws                    *source.Workspace
	files                 map[string]*fileInfo // by path (or URI when no path)
	order                 []*fileInfo
	classes               map[string]*classInfo
	defines               map[string]*defineInfo
	graph                 analysis.Graph
	modpath               []string
	world                 *moduleWorld      // what the repository says about modules outside it
	roots                 []string          // the environments' folders (inferRoots)
	rootMods              map[string]string // module name -> module root (a module opened at its root)
	rootNamed             map[string]bool   // the module roots whose metadata names them
	certname              string            // the node name node blocks are matched with (defaultCertname unless named)
	certnamed             bool              // the user named the node (puppet.certname, ordering.node): messages say "for" it
	ordering              string
	strict                bool
	runsBuilt             int
	diagKeys              map[string]bool
	// node runs (nodeblocks.go): the run being merged, the problems each
	// node run reports
	nodeRuns      map[string]nodeRun
	exampleRuns   map[string]string // run name -> the vendored module's example it compiles (examples.go)
	curRun        string
	diagRuns      map[string]map[string]bool
	diags         []analysis.Diagnostic
	links         map[linkKey]int32 // link -> position in linkArr
	linkArr       []analysis.Link
	linksWant     int             // the last complete analysis's links (System.linksLast)
	declared      map[string]bool // classes/defines declared somewhere in the workspace
	memo          *memo
	main          *analyzer        // the analyzer a fork was made from (itself for the main one)
	varLinker     *varLinker       // what the variable links of the open documents learnt (varlinks.go)
	frozen        bool             // a fork running beside others: it must not load files
	scratch       *runScratch      // buffers of the worker building this fork's run (graph.go)
	seqScratch    *runScratch      // the main analyzer's, for runs built one at a time
	newsBuf       []*analysis.Node // merge's (cache.go)
	wantLoad      bool             // a frozen fork needed a file loaded
	lastSnap      *runSnap         // the run a fork built
	planMu        sync.Mutex
	plans         map[string]*patchPlan // by the old version's id (patchplan.go)
	attrJ         *followJudge          // what the workspace's collectors query, for plans (patchmove.go)
	refusals      map[int]int
	nPatched      atomic.Int64
	workers       int
	uniqueRuns    bool   // run names are unique: anchors need no index
	envKey        string // the files of the environment's main manifest folder
	allRuns       []*run
	edgeSlab      []analysis.Edge
	nodeSlab      []analysis.Node
	slabs         *slabSet // a fork's slabs, when they are recycled (see recycle)
	freeSlabs     slabSet  // the main analyzer's: slabs merged runs gave back (under freeMu)
	freeMu        sync.Mutex
	linkSeen      map[int32]map[*analysis.Node]bool // by index into linkArr
	ms            *mergeState                       // what merge shares, by number (mergeids.go)
	cur           *run
	loadedAll     bool                // every file of the request was loaded (System.loadedAll)
	prevCache     map[string]*runSnap // read by forks: under prevMu once runs start
	prevMu        sync.Mutex
	ownsPrev      bool // prevCache is this analysis's to empty (see merge)
	nextCache     map[string]*runSnap
	dupRuns       map[string]bool // names two runs had: not cached (nameNodeRuns)
	defNodes      map[nodeKey]*analysis.Node
	byURI         map[string]*fileInfo
	restored      int
	firstKeys     []snapNode // the nodes of the run built here, in creation order
	facts         map[string]any
	factsFile     string // the file a.facts were read from
	trustedVal    val    // $trusted of the node: every key there is
	enc           *encOutput
	encFile       string
	forNode       string // ordering.node: one node's view, classified as Puppet would
	unpicked      int    // fact sets the folder holds when no node is chosen (conditions stay open)
	factsVal      val
	declaredKeys  map[string]string // declared key -> its first string
	declaredLater [][]string        // runs' declared keys not yet in declaredKeys (mergeDiagnostics)
	declaredPats  []string
	// What the runs not analysed alone declare (speaksAlone): their
	// declared keys; of those indexed so far, the class names and the
	// resource types (true: a define of the workspace).
	realDeclared [][]string
	realIndexed  int
	realDecl     map[string]bool
	// What every run merged declared (speaksAlone), and the definitions
	// analysed alone because none reached them (unreachedSpecs).
	anyDeclared  [][]string
	unreached    map[string]bool
	realTypes    map[string]bool
	sole         bool // one run, one-shot (oneshot.go)
	filesPlanned int  // files loaded when sole was decided
	bodies       soleBodies
	gcRelease    func() // holdGC's, for a one-shot analysis of one big file (oneshot.go)
}

type nodeKey struct {
	kind byte
	ref  string
	at   source.Span
	run  string
}

type linkKey struct {
	uri        string
	start, end int
}

func (a *analyzer) canceled() bool { return a.req.Canceled() }

// diagsOnly: the caller reads only diagnostics and will not analyse again
// (check), so what only an editor shows is not made. A run cache kept for
// a next analysis must hold it all, hence Once.
func (a *analyzer) diagsOnly() bool { return a.req.DiagnosticsOnly && a.req.Once }

// hoverUnread: the caller reads no hover fact (check, order) and will
// not analyse again, so the refresh and condition facts are not written.
func (a *analyzer) hoverUnread() bool {
	return a.req.Once && (a.req.DiagnosticsOnly || a.req.OrderOnly)
}

// linksUnread: the caller follows no link (check merges runs without
// them; order prints steps and problems), so none is recorded.
func (a *analyzer) linksUnread(strict bool) bool {
	return (a.diagsOnly() && !strict) || (a.req.OrderOnly && a.req.Once)
}

// Analyze implements analysis.System.
func (s *System) Analyze(req *analysis.Request) *analysis.Result {
	a := &analyzer{
		sys: s, req: req, ws: req.Workspace, workers: s.Workers,
		files: map[string]*fileInfo{}, classes: map[string]*classInfo{}, defines: map[string]*defineInfo{},
		rootMods: map[string]string{},
		diagKeys: map[string]bool{}, links: map[linkKey]int32{}, declared: map[string]bool{},
		declaredKeys: map[string]string{}, nextCache: map[string]*runSnap{},
		defNodes: map[nodeKey]*analysis.Node{}, byURI: map[string]*fileInfo{},
		memo: newMemo(),
	}
	a.main = a
	s.Released = 0
	s.Reparsed = 0
	if a.ws == nil {
		a.ws = source.NewWorkspace()
	}
	a.certname = req.Settings.Get("puppet.certname", "")
	a.certnamed = a.certname != ""
	if !a.certnamed {
		a.certname = defaultCertname
	}
	a.ordering = req.Settings.Get("puppet.ordering", "manifest")
	a.strict = req.Entry != ""
	if req.Once && !a.strict && len(req.Files) == 1 && len(req.Files[0].Text) >= bigText {
		a.gcRelease = holdGC()
		defer a.gcRelease()
	}
	a.setupModulePath()
	a.loadFacts()
	a.loadENC()
	sk := ""
	if !a.strict {
		sk = a.settingsKey()
		if sk == s.cacheSettings {
			a.prevCache = s.cache
			a.linksWant = s.linksLast
			if !req.Once {
				// This analysis owns the snapshots now and drops each as
				// it takes the run over (merge): two generations of a
				// control repository's runs never live at once.
				s.cache, a.ownsPrev = nil, true
			}
		}
	}
	res := &analysis.Result{}

	var runs []analysis.Run
	if req.Entry != "" {
		var entry *source.File
		for _, f := range req.Files {
			if f.URI == req.Entry {
				entry = f
			}
		}
		if entry == nil {
			entry = analysis.FileOf(a.ws, req.Entry)
		}
		if entry != nil {
			fi := a.load(entry)
			a.planSole()
			runs = append(runs, a.runFile(fi, nil, filepath.Base(fi.path)))
		}
	} else {
		if !a.lazyLoad() || !a.startLazy(req.Files) {
			a.lazy = nil
			a.parseAll(req.Files)
			all := true
			for _, f := range req.Files {
				if a.canceled() { // (a file parseAll left would be parsed here)
					all = false
					break
				}
				a.load(f)
			}
			a.loadedAll = all
		}
		a.scanDeclared()
		// An environment's manifests/ folder is one main manifest.
		var envFiles []*fileInfo
		var envNodes []*nodeInfo
		for _, fi := range a.order {
			if fi.topLevel && a.envManifest(fi.path) {
				envFiles = append(envFiles, fi)
				envNodes = append(envNodes, fi.nodes...)
			}
		}
		var specs []*runSpec
		if len(envFiles) > 0 {
			sort.Slice(envFiles, func(i, j int) bool { return envFiles[i].path < envFiles[j].path })
			for _, fi := range envFiles {
				a.envKey += fi.id + "\x00"
			}
			name := analysis.Rel(a.root(), a.envManifestDir(envFiles[0].path)) + "/"
			if len(envNodes) > 1 && a.forNode == "" {
				for _, n := range envNodes {
					specs = append(specs, &runSpec{name: name + " (node " + n.name + ")", files: envFiles, sel: n, env: true})
				}
			} else {
				specs = append(specs, &runSpec{name: name, files: envFiles, env: true})
			}
		}
		for _, fi := range a.order {
			if !fi.topLevel || a.envManifest(fi.path) {
				continue
			}
			name := analysis.Rel(a.root(), fi.path)
			if fi.path == "" {
				name = fi.uri
			}
			if len(fi.nodes) > 1 && a.forNode == "" {
				for _, n := range fi.nodes {
					specs = append(specs, &runSpec{name: name + " (node " + n.name + ")", files: []*fileInfo{fi}, sel: n})
					a.noteExampleRun(name+" (node "+n.name+")", fi)
				}
			} else {
				specs = append(specs, &runSpec{name: name, files: []*fileInfo{fi}})
				a.noteExampleRun(name, fi)
			}
		}
		a.nameNodeRuns(specs)
		a.planNodeRuns(specs)
		a.uniqueRuns = true
		seen := make(map[string]bool, len(specs))
		for _, sp := range specs {
			if seen[sp.name] || strings.HasPrefix(sp.name, "class ") || strings.HasPrefix(sp.name, "define ") || strings.HasPrefix(sp.name, "apply ") {
				a.uniqueRuns = false // two runs would share anchors
			}
			seen[sp.name] = true
		}
		// about as many runs follow for what nothing declares
		a.runsTotal = len(specs)
		for n := range a.classes {
			if !a.declared[n] {
				a.runsTotal++
			}
		}
		for n := range a.defines {
			if !a.declared[n] {
				a.runsTotal++
			}
		}
		if focus := a.focusSpecs(specs); focus != nil {
			a.partial = true
			res.Partial = true
			a.unreached = s.unreached // (the last complete analysis's)
			runs = a.runAll(focus)
		} else {
			a.planSole()
			runs = a.runAll(specs)
		}
		// Classes and defines that nothing declares get a run of their own
		// (as if `include x` / `x { 'title': }` alone), so every resource
		// has a position to show.
		// (Not a class Puppet never finds: its file may not hold it.)
		var names []string
		for n, ci := range a.classes {
			if !a.declared[n] && !ci.misplaced {
				names = append(names, n)
			}
		}
		sort.Strings(names)
		specs = specs[:0]
		for _, n := range names {
			specs = append(specs, &runSpec{name: "class " + n, synth: "class", synthName: n})
		}
		names = names[:0]
		for n, d := range a.defines {
			if !a.declared[n] && !d.misplaced {
				names = append(names, n)
			}
		}
		sort.Strings(names)
		for _, n := range names {
			specs = append(specs, &runSpec{name: "define " + n, synth: "define", synthName: n})
		}
		// Bolt plans: each apply block is a catalog of its own.
		for _, fi := range a.order {
			for _, ap := range fi.applies {
				specs = append(specs, &runSpec{name: ap.name, apply: ap})
			}
		}
		if !a.canceled() && !a.partial {
			runs = append(runs, a.runAll(specs)...)
		}
		if !a.canceled() && !a.partial {
			if q := a.unreachedSpecs(); len(q) > 0 {
				a.runsTotal += len(q)
				runs = append(runs, a.runAll(q)...)
			}
			a.sys.unreached = a.unreached
		}
	}
	for i, r := range a.allRuns {
		r.out = i
	}
	if !a.strict && !req.Once {
		if a.canceled() || a.partial {
			// Runs this analysis did not reach keep their snapshots: a
			// snapshot is checked against its inputs before any reuse.
			for k, v := range a.prevCache {
				if a.nextCache[k] == nil {
					a.nextCache[k] = v
				}
			}
		}
		for name := range a.dupRuns { // (a snapshot is found by its run's name)
			delete(a.nextCache, name)
		}
		s.cache, s.cacheSettings = a.nextCache, sk
		s.Restored = a.restored - int(a.nPatched.Load())
		s.Patched = int(a.nPatched.Load())
		s.PatchRefused = a.refusals
		s.keepTrees(a, !a.canceled() && !a.partial)
		s.keepUses(a)
		a.keepMergeTable(!a.canceled() && !a.partial)
		if d := a.memo.defs; d != nil {
			s.DefineEvals, s.DefineReplays = int(d.evals.Load()), int(d.replays.Load())
			s.ClassEvals, s.ClassReplays = int(d.cevals.Load()), int(d.creplays.Load())
		} else {
			s.DefineEvals, s.DefineReplays, s.ClassEvals, s.ClassReplays = 0, 0, 0, 0
		}
	}
	s.MemoForgotten = 0
	if d := a.memo.defs; d != nil {
		s.MemoForgotten = d.age.forgotten
	}
	s.Loaded = len(a.order)
	if req.Entry == "" {
		s.loadedAll = a.loadedAll
		a.settleMissing(runs)
		a.curRun = ""
		a.settleNodeBlocks()
		a.mergeAlone()
		a.settleExamples()
		a.mergeDeclaredWhen()
		a.dropEchoes()
	}
	// Definitions their files may not hold, then the syntax errors of
	// every parsed file: last, file by file, as a result followed through
	// an edit lays them out (follow.go).
	loaded := map[source.Span]bool{} // the runs' location problems
	for _, d := range a.diags {
		if d.Code == "location" {
			loaded[d.At] = true
		}
	}
	for _, fi := range a.order {
		a.locationDiags(fi, loaded)
	}
	for _, fi := range a.order {
		for _, e := range fi.ast.Errors {
			a.addDiag(analysis.Diagnostic{At: source.Span{URI: fi.uri, Start: e.Pos, End: e.End}, Severity: analysis.Error, Code: "syntax", Message: e.Msg})
		}
	}
	vl, linker := a.varLinks() // (before the follow judge, which keeps the linker)
	a.varLinker = linker
	res.Follow = s.followJudge(a)
	res.Graph = a.graph
	res.Runs = runs
	res.Diags = a.diags
	// In the order of their places: a patched run has the links it gained
	// after its others (patchmeta.go), a built one in evaluation order.
	slices.SortFunc(a.linkArr, func(x, y analysis.Link) int {
		if c := strings.Compare(x.At.URI, y.At.URI); c != 0 {
			return c
		}
		if c := x.At.Start - y.At.Start; c != 0 {
			return c
		}
		return x.At.End - y.At.End
	})
	res.Links = a.linkArr
	fl := append(a.fileLinks(), a.hieraLinks()...)
	fl = append(fl, a.metaLinks(res.Links)...)
	fl = append(fl, vl...)
	if !a.partial && !a.canceled() && !a.hoverUnread() {
		fl = append(fl, a.absentLinks(&a.graph)...)
	}
	if len(fl) > 0 { // (after the merge table counted the runs' links)
		res.Links = append(res.Links, fl...)
		slices.SortStableFunc(res.Links, func(x, y analysis.Link) int {
			if c := strings.Compare(x.At.URI, y.At.URI); c != 0 {
				return c
			}
			return x.At.Start - y.At.Start
		})
	}
	if !a.partial && !a.canceled() {
		s.linksLast = len(res.Links) // (as s.cache: analyses of a System do not overlap)
	}
	if req.Entry == "" {
		for _, f := range req.Files {
			res.Files = append(res.Files, f.URI)
		}
	} else {
		for _, fi := range a.order {
			res.Files = append(res.Files, fi.uri)
		}
	}
	return res
}

func (a *analyzer) root() string {
	if rs := a.ws.Roots(); len(rs) > 0 {
		return rs[0]
	}
	return ""
}

// load parses a file once per analysis and indexes its definitions.
func (a *analyzer) load(f *source.File) *fileInfo {
	key := f.Path
	if key == "" {
		key = f.URI
	}
	if fi := a.files[key]; fi != nil {
		return fi
	}
	var ast *pp.File
	if len(f.Text) > maxManifest {
		// Tokens and trees cost ~20-30x the text: a huge generated file
		// must not take the server down.
		ast = &pp.File{Errors: []pp.Error{{Msg: fmt.Sprintf("ordering-lsp: file too large to analyse (%d MB; the limit is %d MB)", len(f.Text)>>20, maxManifest>>20)}}}
	} else {
		ast = a.sys.parse(f)
	}
	fi := &fileInfo{uri: f.URI, path: f.Path, src: f, ast: ast, seq: a.loadSeq(f), num: fileNum(f.URI)}
	fi.id = fi.uri + "@" + fmt.Sprintf("%p", ast)
	a.files[key] = fi
	a.byURI[f.URI] = fi
	a.order = append(a.order, fi)
	a.index(fi, fi.ast.Stmts, "", nil)
	return fi
}

func (a *analyzer) span(fi *fileInfo, l pp.Loc) source.Span {
	return source.Span{URI: fi.uri, Start: l.Pos, End: l.End}
}

// index records classes, defines and nodes (nested ones get qualified names).
func (a *analyzer) index(fi *fileInfo, stmts []pp.Node, prefix string, parent *analysis.Node) {
	for _, s := range stmts {
		switch t := s.(type) {
		case *pp.ClassDef:
			name := strings.ToLower(t.Name)
			if prefix != "" && !strings.Contains(name, "::") {
				name = prefix + "::" + name
			}
			n := a.defNode('C', &analysis.Node{Kind: "class", Ref: refString("Class", classDisplay(name)), Decl: a.span(fi, t.NameLoc), Full: a.span(fi, t.Loc), Parent: parent, Container: true})
			bad := a.noteMisplaced(fi, name, a.span(fi, t.NameLoc)) || a.unloadable(fi)
			if old, dup := a.classes[name]; !dup || preferDef(old.misplaced, old.file.seq, bad, fi.seq) {
				a.classes[name] = &classInfo{name: name, def: t, file: fi, node: n, misplaced: bad}
			}
			a.index(fi, t.Body, name, n)
		case *pp.DefineDef:
			name := strings.ToLower(t.Name)
			if prefix != "" && !strings.Contains(name, "::") {
				name = prefix + "::" + name
			}
			n := a.defNode('D', &analysis.Node{Kind: "define", Ref: capType(name), Decl: a.span(fi, t.NameLoc), Full: a.span(fi, t.Loc), Parent: parent, Container: true,
				Facts: []analysis.Fact{{Label: "defined type", Value: "each instance's body is evaluated after the main code, so its resources enter the catalog late"}}})
			bad := a.noteMisplaced(fi, name, a.span(fi, t.NameLoc)) || a.unloadable(fi)
			if old, dup := a.defines[name]; !dup || preferDef(old.misplaced, old.file.seq, bad, fi.seq) {
				a.defines[name] = &defineInfo{name: name, def: t, file: fi, node: n, misplaced: bad}
			}
			a.index(fi, t.Body, prefix, n)
		case *pp.NodeDef:
			var names []string
			for _, m := range t.Matches {
				switch mt := m.(type) {
				case *pp.Str:
					names = append(names, mt.Value)
				case *pp.Default:
					names = append(names, "default")
				case *pp.Regex:
					names = append(names, "/"+mt.Value+"/")
				}
			}
			decl := a.span(fi, t.Loc)
			if len(t.Matches) > 0 {
				decl = a.span(fi, *t.Matches[0].Span())
			}
			nm := strings.Join(names, ", ")
			n := a.defNode('N', &analysis.Node{Kind: "node", Ref: "Node[" + nm + "]", Decl: decl, Full: a.span(fi, t.Loc), Parent: parent, Container: true})
			fi.nodes = append(fi.nodes, &nodeInfo{def: t, file: fi, node: n, name: nm})
			fi.topLevel = fi.topLevel || prefix == ""
		case *pp.Block:
			if t.Keyword == "plan" {
				fi.applies = append(fi.applies, planApplies(fi, t)...)
			}
		case *pp.FunctionDef, *pp.TypeAlias:
		default:
			if prefix == "" && parent == nil {
				fi.topLevel = true
			}
		}
	}
}

// scanDeclared marks classes and defines that some code in the workspace
// declares (include/contain/require/class{}/resource of a defined type).
func (a *analyzer) scanDeclared() {
	prev := a.sys.declCache
	var next map[pp.Node][]string
	if !a.req.Once { // (nothing analyses again: no need to remember)
		next = make(map[pp.Node][]string, len(prev))
	}
	for _, fi := range a.order {
		for _, s := range fi.ast.Stmts {
			// A statement of a chunk the parser reused is the same node:
			// what it declares was found last time.
			ws, ok := prev[s]
			if !ok {
				ws = declaredBy(s)
			}
			if next != nil {
				next[s] = ws
			}
			for _, w := range ws {
				a.declared[w] = true
			}
		}
	}
	a.sys.declCache = next
}

// declaredBy lists the classes and defines a statement declares.
func declaredBy(s pp.Node) []string {
	var declared map[string]bool // once the list is long
	var out []string
	add := func(w string) {
		if declared == nil {
			if slices.Contains(out, w) {
				return
			}
			out = append(out, w)
			if len(out) > 16 {
				declared = make(map[string]bool, 2*len(out))
				for _, x := range out {
					declared[x] = true
				}
			}
			return
		}
		if !declared[w] {
			declared[w] = true
			out = append(out, w)
		}
	}
	pp.Walk(s, func(n pp.Node) bool {
		switch t := n.(type) {
		case *pp.Call:
			if t.Name == "include" || t.Name == "contain" || t.Name == "require" {
				for _, arg := range t.Args {
					for _, w := range words(arg) {
						add(w)
					}
				}
			}
		case *pp.Resource:
			if t.Type == "class" {
				for _, b := range t.Bodies {
					for _, w := range words(b.Title) {
						add(w)
					}
				}
			} else {
				add(strings.ToLower(strings.TrimPrefix(t.Type, "::")))
			}
		case *pp.ClassDef:
			if t.Parent != "" {
				add(strings.ToLower(t.Parent))
			}
		}
		return true
	})
	return out
}

func words(n pp.Node) []string {
	var out []string
	pp.Walk(n, func(x pp.Node) bool {
		switch t := x.(type) {
		case *pp.Str:
			if !t.Interpolated() {
				out = append(out, strings.ToLower(strings.TrimPrefix(t.Value, "::")))
			}
		case *pp.Name:
			out = append(out, strings.ToLower(strings.TrimPrefix(t.Value, "::")))
		}
		return true
	})
	return out
}

func (a *analyzer) displayPath(uri string) string {
	p := source.URIToPath(uri)
	if p == "" {
		return uri
	}
	if a.req.Entry != "" {
		if ep := source.URIToPath(a.req.Entry); ep != "" {
			return analysis.Rel(filepath.Dir(ep), p)
		}
	}
	for _, r := range a.roots {
		if rel := analysis.Rel(r, p); rel != p {
			return rel
		}
	}
	return p
}

func (a *analyzer) addDiag(d analysis.Diagnostic) {
	a.exampleDiag(&d)
	if name, ok := strings.CutPrefix(a.curRun, "define "); ok && d.Severity == analysis.Error && !a.ownDefine(name) {
		// A define nothing in the workspace declares fails only where
		// something else does (an ENC declares classes, never defines):
		// on some nodes at most (cmchoi2000/control-repo's set_path).
		d.Severity = analysis.Warning
		d.Message += aloneMark + capType(name) + aloneEnd
		if d.Template != "" {
			d.Template += aloneMark + capType(name) + aloneEnd
		}
	} else if name, ok := strings.CutPrefix(a.curRun, "class "); ok && d.Severity == analysis.Error && !a.ownClass(name) {
		// A class nothing in the workspace declares (a role an ENC, the
		// console or data outside the workspace classifies) is compiled
		// only on the nodes that declare it: Puppet never loads it for
		// the others, so its problems fail those nodes, not every node
		// (williancardoso/controlrepo's role::broker includes profiles
		// the repository lacks; its site.pp classifies other roles).
		d.Severity = analysis.Warning
		d.Message += aloneMark + "Class[" + capType(name) + "]" + aloneEnd
		if d.Template != "" {
			d.Template += aloneMark + "Class[" + capType(name) + "]" + aloneEnd
		}
	}
	k := diagKey(d)
	a.noteDiagRun(k)
	if a.diagKeys[k] {
		return
	}
	a.diagKeys[k] = true
	a.diags = append(a.diags, d)
}

// ownClass says whether class name is the public interface of the
// module whose repository the workspace is (as ownDefine).
func (a *analyzer) ownClass(name string) bool {
	c := a.classes[name]
	return c != nil && c.file != nil && a.world.ownModule(c.file.path)
}

// ownDefine says whether define name is the public interface of the
// module whose repository the workspace is: its users declare it, and it
// fails for each of them (puppetlabs-apache's apache::fastcgi::server).
func (a *analyzer) ownDefine(name string) bool {
	d := a.defines[name]
	return d != nil && a.world.ownModule(d.file.path)
}

func itoa(i int) string { return strconv.Itoa(i) }

// regexCache holds compiled patterns for the life of the process. Keys
// are copied: a pattern's text may share the memory of a source file,
// which must not stay alive (or change under the map) because of it.
var (
	regexCache sync.Map
	regexCount atomic.Int64
)

// maxGlobalCache bounds each process-wide cache (a user typing creates a
// new pattern or type name at every keystroke).
const maxGlobalCache = 20000

func compileRegex(s string) (*regexp.Regexp, error) {
	if v, ok := regexCache.Load(s); ok {
		return v.(*regexp.Regexp), nil
	}
	s = strings.Clone(s)
	re, err := regexp.Compile(s)
	if err != nil {
		return nil, err
	}
	if regexCount.Add(1) <= maxGlobalCache {
		regexCache.Store(s, re)
	}
	return re, nil
}

// builtinTypes are the types Puppet 7 knows without a module of the
// module path: its core types and those of the modules puppet-agent
// bundles in vendor_modules (augeas_core, cron_core, host_core,
// mount_core, scheduled_task, selinux_core, sshkeys_core, yumrepo_core,
// zfs_core, zone_core). Puppet 6 moved the others out (nagios_*,
// mailalias, maillist, k5login, computer, mcx, macauthorization, the
// network devices' interface, router, vlan): Puppet 7 says "Unknown
// resource type: 'nagios_command'" without their module (moduleTypes).
var builtinTypes = map[string]bool{
	"notify": true, "exec": true, "file": true, "package": true, "service": true, "user": true, "group": true,
	"cron": true, "host": true, "mount": true, "ssh_authorized_key": true, "sshkey": true, "tidy": true,
	"augeas": true, "schedule": true, "stage": true, "filebucket": true, "resources": true,
	"yumrepo": true, "zfs": true, "zone": true, "zpool": true,
	"selboolean": true, "selmodule": true,
	"scheduled_task": true, "whit": true, "component": true,
}

// rubyType reports whether a module on the module path ships a Ruby type
// of that name (lib/puppet/type/NAME.rb), like stdlib's file_line.
func (a *analyzer) rubyType(name string) bool {
	v := a.rubyType1(name)
	a.dep('t', name, func() string { return strconv.FormatBool(v) })
	return v
}

func (a *analyzer) rubyType1(name string) bool {
	m := a.memo
	m.mu.Lock()
	v, ok := m.rubyTypes[name]
	set := m.rubyTypeFiles
	m.mu.Unlock()
	if ok {
		return v
	}
	if set == nil {
		set = a.rubyTypeFiles()
		m.mu.Lock()
		if m.rubyTypeFiles == nil {
			m.rubyTypeFiles = set
		}
		m.mu.Unlock()
	}
	found := set[name]
	for _, r := range a.rootMods {
		if a.ws.Exists(filepath.Join(r, "lib", "puppet", "type", name+".rb")) {
			found = true
		}
	}
	m.mu.Lock()
	m.rubyTypes[name] = found
	m.mu.Unlock()
	return found
}

// rubyTypeFiles lists the types the modules of the module path define in
// Ruby, once per analysis: every resource of a type that is neither
// built in nor a define asks (a glob per type name was a tenth of the
// CPU of an edit on operations-puppet once workspaces asked too).
func (a *analyzer) rubyTypeFiles() map[string]bool {
	set := map[string]bool{}
	dirs := append([]string(nil), a.modpath...)
	for _, r := range a.rootMods {
		dirs = append(dirs, filepath.Dir(r))
	}
	dirs = append(dirs, a.moduleFoldersOffPath(dirs)...)
	// One listing per module's type folder, not a glob: filepath.Glob
	// lists every level on the way (d, d/m, d/m/lib, d/m/lib/puppet), 40
	// ms of each analysis on operations-puppet's 300 modules.
	for _, d := range dirs {
		mods, _ := os.ReadDir(d)
		for _, m := range mods {
			if !m.IsDir() && m.Type()&os.ModeSymlink == 0 {
				continue
			}
			ts, _ := os.ReadDir(filepath.Join(d, m.Name(), "lib", "puppet", "type"))
			for _, t := range ts {
				if n, ok := strings.CutSuffix(t.Name(), ".rb"); ok {
					set[n] = true
				}
			}
		}
	}
	return set
}

// moduleFoldersOffPath lists, in a workspace analysis, the folders
// holding modules whose manifests the analysis loaded where the module
// path does not reach (known is that path): their classes are found by
// name, and their Ruby types are known as well (dmzoneill's
// environments/global/modules_thirdparty, named only in a Puppet 3
// puppet.conf: stdlib's anchor there was "no module of the workspace
// defines it").
func (a *analyzer) moduleFoldersOffPath(known []string) []string {
	if a.req.Entry != "" {
		return nil
	}
	seen := map[string]bool{}
	for _, d := range known {
		seen[filepath.Clean(d)] = true
	}
	var out []string
	sep := string(filepath.Separator)
	for _, fi := range a.order {
		i := strings.LastIndex(fi.path, sep+"manifests"+sep)
		if i <= 0 || a.envManifest(fi.path) {
			continue
		}
		d := filepath.Dir(fi.path[:i])
		if !a.inWorkspace(d) {
			continue // (a module opened at its root: its folder's parent is not ours)
		}
		if !seen[d] {
			seen[d] = true
			out = append(out, d)
		}
	}
	sort.Strings(out)
	return out
}

// inWorkspace says whether folder d is a workspace root or lies below one.
func (a *analyzer) inWorkspace(d string) bool {
	for _, r := range a.ws.Roots() {
		if d == r || analysis.Rel(r, d) != d {
			return true
		}
	}
	return false
}

func (fi *fileInfo) text(n pp.Node) string {
	if fi == nil || fi.src == nil || n == nil {
		return "?"
	}
	sp := n.Span()
	if sp.Pos < 0 || sp.End > len(fi.src.Text) || sp.Pos > sp.End {
		return "?"
	}
	return oneLine(fi.src.Text[sp.Pos:sp.End])
}

// envManifest: the file lives in the manifests/ folder of an environment
// (a workspace root that is not itself a module), e.g. a control repo's
// manifests/site.pp, or in a folder below it (Puppet reads the main
// manifest's folder recursively: fuel-infra's manifests/nodes/*.pp).
func (a *analyzer) envManifest(p string) bool {
	return a.envManifestDir(p) != ""
}

// envManifestDir is the environment's manifests/ folder that holds p, or
// "". (Asked of every file of the workspace at each analysis: most paths
// hold no manifests folder and are answered without the roots.)
func (a *analyzer) envManifestDir(p string) string {
	sep := string(filepath.Separator)
	if p == "" || !strings.Contains(p, sep+"manifests"+sep) {
		return ""
	}
	for _, r := range a.ws.Roots() {
		dir := filepath.Join(r, "manifests")
		if !strings.HasPrefix(p, dir+sep) {
			continue
		}
		for _, m := range a.rootMods {
			if m == r {
				return ""
			}
		}
		return dir
	}
	return ""
}

// isModuleRoot: a module opened at its root (metadata.json, or a
// manifests/init.pp in a folder that is not a control repo).
func isModuleRoot(ws *source.Workspace, r string) bool {
	if !ws.IsDir(filepath.Join(r, "manifests")) {
		return false
	}
	// A control repository may carry a metadata.json (PDK, example42's
	// psick): environment.conf or a site.pp says it is an environment.
	for _, f := range []string{"environment.conf", filepath.Join("manifests", "site.pp")} {
		if ws.Exists(filepath.Join(r, f)) {
			return false
		}
	}
	if ws.Exists(filepath.Join(r, "metadata.json")) {
		return true
	}
	if ws.Exists(filepath.Join(r, "Puppetfile")) {
		return false
	}
	return ws.Exists(filepath.Join(r, "manifests", "init.pp"))
}

// defNode adds a definition node (class, define, node block), keyed so a
// cached run can find it again in a later analysis and a merge of
// nodes finds it (a diagnostics-only merge does not: the 100k check's
// 10,000 classes made a map of 56-byte keys nobody read).
func (a *analyzer) defNode(kind byte, n *analysis.Node) *analysis.Node {
	a.graph.Add(n)
	if a.listsUnread() {
		return n
	}
	k := nodeKey{kind: kind, ref: n.Ref, at: n.Decl}
	if a.defNodes[k] == nil {
		a.defNodes[k] = n
	}
	return n
}
