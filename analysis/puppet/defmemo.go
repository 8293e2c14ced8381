package puppet

import (
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/ordering-lsp/ordering-lsp/analysis"
	"github.com/ordering-lsp/ordering-lsp/source"
)

// Shared evaluation of defined-type bodies (issue 25).
//
// A control repository evaluates the same define instance (same title,
// same parameters) in hundreds of runs: operations-puppet's 300 runs that
// include profile::base evaluate 191,168 bodies of 13,935 distinct
// instances. A body's evaluation is recorded once per analysis with
// everything of its run it read (the inputs) and everything it did to its
// run (the effects); another run whose state gives the same answers to
// every input gets the effects replayed instead of evaluating the body.
//
// Inputs: the instance (define, title, declaration site, parameters,
// speculative or not), the top-scope variables and other classes'
// variables it read, which catalog keys (resources, aliases, classes) and
// pattern resources it found or did not find, the number of files
// loaded. Effects: the resources it declared (with their positions in
// the catalog relative to where the body started), their scopes, the
// branches of undecided conditions (numbered relative to the body's
// start), defines queued, collectors, overrides, relationships,
// diagnostics, links, run-cache inputs, Hiera keys, the run's flags, the
// classes it included again (their sites) and existing resources it
// declared again with ensure_resource (their alternative sites).
//
// A body that does anything else (declares a class for the first time,
// declares a stage, reads conditions it did not make, finds a
// resource the catalog held before with a plain declaration, includes
// an unknown list...) is not recorded: its evaluation is never shared.
// Replaying builds new objects for every run, so runs share nothing
// they could change.

// defMemo holds the recorded bodies of one analysis (shared by its forks).
type defMemo struct {
	mu       sync.Mutex
	entries  map[defKey]*memoSlot
	classes  map[classKey]*memoSlot
	cevals   atomic.Int64 // class bodies evaluated
	creplays atomic.Int64 // class bodies replayed
	evals    atomic.Int64 // bodies evaluated
	replays  atomic.Int64 // bodies replayed
	age      memoAge      // a one-shot analysis forgets what runs stopped using (memoage.go)
}

// memoSlot is what one key holds: its recordings, and whether it was
// evaluated once already. A body is recorded the second time its key
// comes (a role's own class, declared only by its run, is never recorded:
// the template of a whole catalog that no other run replays cost a
// `check` of operations-puppet 170 MB). One map lookup a body: hashing
// the key (strings, a span) for two maps was 5% of a synthetic run.
type memoSlot struct {
	list []*defEntry
	seen bool
	last int32 // memoAge.runs when the key last came
}

// slot returns the key's slot, made on first use, and whether the key
// was seen before this call (the caller holds dm.mu).
func slotOf[K comparable](m map[K]*memoSlot, k K, now int32) (*memoSlot, bool) {
	sl := m[k]
	if sl == nil {
		sl = &memoSlot{}
		m[k] = sl
	}
	seen := sl.seen
	sl.seen, sl.last = true, now
	return sl, seen
}

// defKey is the instance but its parameters (compared one by one).
type defKey struct {
	d                    *defineInfo
	typ, title, display  string
	decl                 source.Span
	spec, strict, noCond bool
	atTop                bool // declared in the top scope
	synthetic            bool
	depth, loaded        int
}

// maxDefEntries bounds the recordings kept for one instance key (one per
// distinct set of inputs).
const maxDefEntries = 4

// obs is one answer of the run's catalog the body read: whether a map
// held the key (byKey 'k', aliases 'a', classes 'c'), a pattern
// resource matched (patterns 'p': key is type, title), or the resource
// a declaration found was speculative and where it was declared ('s').
type obs struct {
	decl    *source.Span // 's': where the resource was declared
	m       byte
	key     string
	title   string
	present bool
	dup     bool // 'k': a declaration asking whether its key was taken (not a lookup)
}

type varRead struct {
	cls, name string // cls "": the top scope
	v         val
	ok        bool
}

type siteEff struct {
	class string
	cond  *cond
	also  *res // contain: an extra container of the class
}

type altEff struct {
	key  string
	cond *cond
}

type aliasW struct {
	key string
	x   *res
}

// classW: the body declared a class (classes[name] = x).
type classW struct {
	name string
	x    *res
}

type depRec struct {
	k depKey
	v string
}

type hieraKeyW struct {
	at  source.Span
	key string
}

// defRec records one body's evaluation.
type defRec struct {
	seenObs  map[obsKey]struct{}
	seenDeps map[depKey]struct{}
	outer    *defRec // the recording this one is inside of
	maxDepth int     // the run's deepest evaluation before this one began
	params   []attr
	x        *res   // the define instance (nil: a class body)
	sc       *scope // the scope the body's effects may name besides its own and the top scope
	cond     *cond  // the condition its conditions end at
	classes  []classW
	bad      bool
	internal map[*res]bool
	scopes   map[*scope]bool
	obs      []obs
	reads    []varRead
	sites    []siteEff
	alts     []altEff
	aliases  []aliasW
	deps     []depRec
	hkeys    []hieraKeyW
	// the run's counters and list lengths when the body started
	prio, points, steps, depth                                 int
	nres, npend, npat, ndiag, nlink, ncol, nover, nrel, loaded int
	flags                                                      [5]bool
}

// defEntry is a recorded body: what it read and a template of what it did.
type defEntry struct {
	// subjScopes: the template scopes whose addresses conditions name a
	// variable by (varIdentity: `$0xc000...::x`); a replay names its own
	// copies (placeholders "$\x00<n>\x00::" in the templates)
	subjScopes []*scope
	result     int      // a class body: its class (index into res)
	classes    []classW // classes declared (templates)
	params     []attr   // the instance's
	obs        []obs
	reads      []varRead
	// stand-ins for what the effects refer to outside the body: the top
	// scope, the scope it was declared in, the define instance, the
	// condition it was declared under (the recording run's own are not
	// kept: an entry must not hold a whole run)
	oldTop   *scope
	oldScope *scope
	oldX     *res
	oldCond  *cond
	res      []*res // templates (copied at the end of the body)
	pend     []int  // indexes into res, in queue order
	pats     []int
	aliases  []aliasW
	scopes   []*scope // templates, inner first
	inner    *scope
	cols     []*collector
	overs    []*override
	rels     []*relation
	diags    []analysis.Diagnostic
	links    []linkRec
	deps     []depRec
	hkeys    []hieraKeyW
	sites    []siteEff
	alts     []altEff
	flags    [5]bool
	dprio    int
	dpoints  int32
	dsteps   int
	depth    int // how much deeper than its start the body's evaluation went
	loaded   int
	points0  int32
	prio0    int
	// made once for every replay: the templates' indexes, the template
	// scopes, which hold none of the body's objects
	resIdx     map[*res]int32
	tscopes    map[*scope]bool
	plainScope map[*scope]bool
	plainRes   []bool  // attributes and parameters
	contIdx    []int32 // the template's container among the templates (-1: another)
	// tmplIdx: every template res and scope carries its index (res.tmpl,
	// scope.tmpl), so a replay finds it without the maps above
	tmplIdx     bool
	tscopeList  []*scope
	plainScopes []bool
}

func (a *analyzer) defs() *defMemo {
	m := a.memo
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.defs == nil {
		m.defs = &defMemo{entries: map[defKey]*memoSlot{}, classes: map[classKey]*memoSlot{}}
	}
	return m.defs
}

// classKey is a class's first declaration but its parameters.
type classKey struct {
	ci                              *classInfo
	name, how                       string
	at                              source.Span
	spec, noCond, strict, synthetic bool
	atTop                           bool // declared in the top scope
	ownerKind, ownerStage           string
	depth, loaded                   int
}

func instanceKey(r *run, x *res) defKey {
	return defKey{d: x.define, typ: x.typ, title: x.title, display: x.display, decl: x.decl, spec: x.spec, strict: r.strict,
		noCond: x.cond == nil, synthetic: x.synthetic, loaded: len(r.a.main.order), atTop: x.scope == r.top}
}

// sameParams: the parameters given are the same in every field.
func sameParams(a, b []attr) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		p, q := &a[i], &b[i]
		if p.name != q.name || p.nameAt != q.nameAt || p.at != q.at || p.plus != q.plus || p.from != q.from || p.v.at != q.v.at || !sameVal(p.v, q.v, true) {
			return false
		}
	}
	return true
}

// sameVal: a and b are the same value in every field (top: but where
// it was read, which the reader replaces).
func sameVal(a, b val, top bool) bool {
	if a.k != b.k || a.pat != b.pat || a.s != b.s || len(a.arr) != len(b.arr) {
		return false
	}
	if !top && a.at != b.at {
		return false
	}
	if (a.ref == nil) != (b.ref == nil) || a.ref != nil && *a.ref != *b.ref {
		return false
	}
	for i := range a.arr {
		if !sameVal(a.arr[i], b.arr[i], false) {
			return false
		}
	}
	if (a.x == nil) != (b.x == nil) {
		return false
	}
	if a.x != nil {
		if a.x.closed != b.x.closed || len(a.x.keys) != len(b.x.keys) || a.x.col != b.x.col || len(a.x.res) != len(b.x.res) {
			return false
		}
		for i := range a.x.res {
			if a.x.res[i] != b.x.res[i] {
				return false
			}
		}
		for i := range a.x.keys {
			if !sameVal(a.x.keys[i], b.x.keys[i], false) {
				return false
			}
		}
	}
	return true
}

// ---- recording hooks (each a no-op unless a body is being recorded) ----

// Recordings nest (a class body declares another class): every hook
// tells every recording under way, each judging by what it made itself.

// recFail: what the bodies being recorded do cannot be shared.
func (r *run) recFail() {
	for rc := r.rec; rc != nil; rc = rc.outer {
		rc.bad = true
	}
}

// recNames: what the body does depends on the words of branches bs (a
// message names the innermost, an include looks for `defined()` in all of
// them). A recording that made every one of them replays the same words
// (a branch's words are its source text and its body's owner); one that
// did not (a define's branches reach into its caller's, a class's
// classification branch is the node's) cannot be shared.
func (r *run) recNames(bs []*branch) {
	for rc := r.rec; rc != nil; rc = rc.outer {
		for _, b := range bs {
			if int(b.point) <= rc.points { // (points count up: the body's own are past rc.points)
				rc.bad = true
				break
			}
		}
	}
}

// readScope notes a variable read that reached scope s.
func (r *run) readScope(s *scope, name string, v val, ok bool) {
	for rc := r.rec; rc != nil; rc = rc.outer {
		if rc.scopes[s] {
			continue
		}
		if s != r.top {
			rc.bad = true
			continue
		}
		rc.read(varRead{name: name, v: v, ok: ok})
	}
}

// read notes a variable read once: the body changes neither the top
// scope nor another class's variables, so a second read answers the same.
// A value holding the run's resources is compared by their addresses,
// which a later run's resources may take (runs reuse the memory,
// resArena): such a body is not shared.
func (rc *defRec) read(rd varRead) {
	if holdsRun(rd.v) {
		rc.bad = true
		return
	}
	k := obsKey{m: 'v', key: rd.cls, title: rd.name}
	if _, ok := rc.seenObs[k]; ok {
		return
	}
	if rc.seenObs == nil {
		rc.seenObs = map[obsKey]struct{}{}
	}
	rc.seenObs[k] = struct{}{}
	rc.reads = append(rc.reads, rd)
}

// readClassVar notes a read of class cls's variable (c: the class).
func (r *run) readClassVar(c *res, rd varRead) {
	for rc := r.rec; rc != nil; rc = rc.outer {
		if c == nil || !rc.internal[c] {
			rc.read(rd)
		}
	}
}

// observe notes the answer of a catalog map for key (x: what it held).
func (r *run) observe(m byte, key string, x *res) {
	r.observe1(obs{m: m, key: key}, x, x != nil)
}

// observe1 notes o, whose answer present came from x (nil: none).
func (r *run) observe1(o obs, x *res, present bool) {
	for rc := r.rec; rc != nil; rc = rc.outer {
		if x != nil && rc.internal[x] {
			continue
		}
		if x != nil && x == rc.x {
			rc.bad = true
			continue
		}
		o.present = present
		k := obsKey{o.m, o.key, o.title}
		if _, ok := rc.seenObs[k]; ok {
			continue // the same question, the same answer (nothing the body did changed it)
		}
		if rc.seenObs == nil {
			rc.seenObs = map[obsKey]struct{}{}
		}
		rc.seenObs[k] = struct{}{}
		rc.obs = append(rc.obs, o)
	}
}

func (r *run) recAdd(x *res) {
	for rc := r.rec; rc != nil; rc = rc.outer {
		rc.internal[x] = true
	}
}

func (r *run) recScope(s *scope) {
	for rc := r.rec; rc != nil; rc = rc.outer {
		rc.scopes[s] = true
	}
}

func (r *run) recClass(name string, c *res) {
	for rc := r.rec; rc != nil; rc = rc.outer {
		rc.classes = append(rc.classes, classW{name, c})
	}
}

func (r *run) recAlias(k string, x *res) {
	for rc := r.rec; rc != nil; rc = rc.outer {
		rc.aliases = append(rc.aliases, aliasW{k, x})
	}
}

// recSite: class c got one more site (and maybe a container).
func (r *run) recSite(c *res, s siteEff) {
	for rc := r.rec; rc != nil; rc = rc.outer {
		if !rc.internal[c] {
			rc.sites = append(rc.sites, s)
		}
	}
}

// recAlt: prev, declared before, was declared again at cond.
func (r *run) recAlt(prev *res, key string, c *cond) {
	for rc := r.rec; rc != nil; rc = rc.outer {
		if !rc.internal[prev] {
			rc.alts = append(rc.alts, altEff{key: key, cond: c})
		}
	}
}

func (r *run) recHKey(at source.Span, key string) {
	for rc := r.rec; rc != nil; rc = rc.outer {
		rc.hkeys = append(rc.hkeys, hieraKeyW{at, key})
	}
}

func (r *run) recDep(k depKey, v string) {
	for rc := r.rec; rc != nil; rc = rc.outer {
		if _, ok := rc.seenDeps[k]; ok {
			continue
		}
		if rc.seenDeps == nil {
			rc.seenDeps = map[depKey]struct{}{}
		}
		rc.seenDeps[k] = struct{}{}
		rc.deps = append(rc.deps, depRec{k, v})
	}
}

// obsKey is a question an observation answers.
type obsKey struct {
	m          byte
	key, title string
}

// inDefine: a define body is being recorded.
func (r *run) inDefine() bool {
	for rc := r.rec; rc != nil; rc = rc.outer {
		if rc.x != nil {
			return true
		}
	}
	return false
}

// ---- record ----

func (r *run) startRec(x *res, sc *scope, c *cond) *defRec {
	rc := &defRec{x: x, sc: sc, cond: c, internal: map[*res]bool{}, scopes: map[*scope]bool{},
		prio: r.prio, points: int(r.points), steps: r.steps, depth: r.depth,
		nres: len(r.resources), npend: len(r.pending), npat: len(r.patterns), ndiag: len(r.diags), nlink: len(r.links),
		ncol: len(r.cols), nover: len(r.overrides), nrel: len(r.rels), loaded: len(r.a.main.order),
		flags: [5]bool{r.absent, r.classByUnknownName, r.unknownIncludes, r.compileErr, r.absentElse}, outer: r.rec, maxDepth: r.maxDepth}
	r.absent, r.classByUnknownName, r.unknownIncludes, r.compileErr, r.absentElse = false, false, false, false, false
	r.maxDepth = r.depth
	r.rec = rc
	return rc
}

// endRec stops recording and makes the entry (nil: not shareable); ret
// is what a class body returns.
func (r *run) endRec(rc *defRec, ret *res) *defEntry {
	r.rec = rc.outer
	reached := r.maxDepth
	r.maxDepth = max(r.maxDepth, rc.maxDepth)
	flags := [5]bool{r.absent, r.classByUnknownName, r.unknownIncludes, r.compileErr, r.absentElse}
	r.absent = r.absent || rc.flags[0]
	r.absentElse = r.absentElse || rc.flags[4]
	r.classByUnknownName = r.classByUnknownName || rc.flags[1]
	r.unknownIncludes = r.unknownIncludes || rc.flags[2]
	r.compileErr = r.compileErr || rc.flags[3]
	if rc.bad || r.a.canceled() || r.a.wantLoad || len(r.a.main.order) != rc.loaded || reached > maxEvalDepth ||
		r.steps > maxIter*100 || len(r.resources) > maxResources || len(r.pending) < rc.npend {
		return nil
	}
	x := rc.x
	params := rc.params
	for _, p := range params {
		if holdsRun(p.v) {
			return nil
		}
	}
	sTop, sSc := &scope{}, &scope{}
	if rc.sc == r.top {
		sSc = sTop
	}
	var sX *res
	if x != nil {
		sX = &res{}
	}
	var sCond *cond
	if rc.cond != nil {
		sCond = &cond{}
	}
	en := &defEntry{params: params, obs: rc.obs, reads: rc.reads, oldTop: sTop, oldScope: sSc, oldX: sX, oldCond: sCond,
		aliases: rc.aliases, deps: rc.deps, hkeys: rc.hkeys, sites: rc.sites, alts: rc.alts, flags: flags,
		dprio: r.prio - rc.prio, dpoints: r.points - int32(rc.points), dsteps: r.steps - rc.steps, depth: reached - rc.depth,
		loaded: rc.loaded, points0: int32(rc.points), prio0: rc.prio}
	// Templates: copies of what the body made, as it is now (the rest of
	// the run goes on changing the originals).
	cp := &copier{from: map[*res]*res{}, scopes: map[*scope]*scope{}, conds: map[*cond]*cond{}, brs: map[*branch]*branch{},
		cols: map[*collector]*collector{}, internalScopes: rc.scopes, internalRes: rc.internal,
		keepRes: map[*res]bool{}, keepScopes: map[*scope]bool{r.top: true, rc.sc: true}, keepCond: rc.cond,
		res1: sX, scope1: map[*scope]*scope{r.top: sTop, rc.sc: sSc}, cond1: sCond, subjAddr: map[string]int{}}
	if x != nil {
		cp.keepRes[x] = true
	}
	for s := range rc.scopes {
		cp.subjAddr[fmt.Sprintf("%p", s)] = -1
	}
	newRes := r.resources[rc.nres:]
	for _, y := range newRes {
		cp.from[y] = &res{}
	}
	for _, c := range r.cols[rc.ncol:] {
		cp.cols[c] = &collector{}
	}
	index := map[*res]int{}
	for i, y := range newRes {
		index[y] = i
		en.res = append(en.res, cp.from[y])
	}
	for i, y := range newRes {
		cp.copyRes(en.res[i], y, -1)
	}
	for _, y := range r.pending[rc.npend:] {
		i, ok := index[y]
		if !ok {
			return nil
		}
		en.pend = append(en.pend, i)
	}
	for _, y := range r.patterns[rc.npat:] {
		i, ok := index[y]
		if !ok {
			return nil
		}
		en.pats = append(en.pats, i)
	}
	for i, w := range en.aliases {
		y, ok := cp.from[w.x]
		if !ok {
			return nil
		}
		en.aliases[i].x = y
	}
	en.result = -1
	if ret != nil {
		y, ok := cp.from[ret]
		if !ok {
			return nil
		}
		en.result = int(en.resIdx0(y, en.res))
	}
	for _, w := range rc.classes {
		y, ok := cp.from[w.x]
		if !ok {
			return nil
		}
		en.classes = append(en.classes, classW{w.name, y})
	}
	if x != nil {
		if x.inner == nil || !rc.scopes[x.inner] {
			return nil
		}
		en.inner = cp.scope(x.inner)
	}
	for _, c := range r.cols[rc.ncol:] {
		cp.copyCollector(cp.cols[c], c)
	}
	for _, o := range r.overrides[rc.nover:] {
		en.overs = append(en.overs, &override{target: cp.val(o.target), attrs: cp.attrs(o.attrs), env: cp.env(o.env), at: o.at})
	}
	for _, rl := range r.rels[rc.nrel:] {
		n := *rl
		n.left, n.right, n.cond = cp.val(rl.left), cp.val(rl.right), cp.cond(rl.cond)
		en.rels = append(en.rels, &n)
	}
	for i := range en.sites {
		en.sites[i].cond = cp.cond(en.sites[i].cond)
		en.sites[i].also = cp.resPtr(en.sites[i].also)
	}
	for i := range en.alts {
		en.alts[i].cond = cp.cond(en.alts[i].cond)
	}
	for _, c := range r.cols[rc.ncol:] {
		en.cols = append(en.cols, cp.cols[c])
	}
	for _, s := range cp.subjOrig {
		if s == nil {
			cp.bad = true
			continue
		}
		en.subjScopes = append(en.subjScopes, cp.scope(s))
	}
	en.diags = append([]analysis.Diagnostic(nil), r.diags[rc.ndiag:]...)
	en.links = append([]linkRec(nil), r.links[rc.nlink:]...)
	if cp.bad {
		return nil
	}
	en.resIdx = make(map[*res]int32, len(en.res))
	en.plainRes = make([]bool, len(en.res))
	for i, y := range en.res {
		en.resIdx[y] = int32(i)
		en.plainRes[i] = plainAttrs(y.attrs) && (y.resMore == nil || plainAttrs(y.params))
	}
	en.contIdx = make([]int32, len(en.res))
	for i, y := range en.res {
		en.contIdx[i] = -1
		if j, ok := en.resIdx[y.container]; ok && y.container != nil {
			en.contIdx[i] = j
		}
	}
	en.tscopes, en.plainScope = map[*scope]bool{}, map[*scope]bool{}
	en.tscopeList = en.scopesOf()
	en.plainScopes = make([]bool, len(en.tscopeList))
	for i, s := range en.tscopeList {
		en.tscopes[s] = true
		en.plainScope[s] = plainVars(&s.vars) && plainDefaults(s.defaults)
		en.plainScopes[i] = en.plainScope[s]
	}
	en.indexTemplates()
	return en
}
