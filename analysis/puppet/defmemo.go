package puppet

import (
	"fmt"
	"strconv"
	"strings"
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
	flags                                                      [4]bool
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
	flags    [4]bool
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
		flags: [4]bool{r.absent, r.classByUnknownName, r.unknownIncludes, r.compileErr}, outer: r.rec, maxDepth: r.maxDepth}
	r.absent, r.classByUnknownName, r.unknownIncludes, r.compileErr = false, false, false, false
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
	flags := [4]bool{r.absent, r.classByUnknownName, r.unknownIncludes, r.compileErr}
	r.absent = r.absent || rc.flags[0]
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
	for _, s := range en.scopesOf() {
		en.tscopes[s] = true
		en.plainScope[s] = plainVars(&s.vars) && plainDefaults(s.defaults)
	}
	return en
}

// copier copies the objects a body made, mapping pointers between them;
// an object of the run outside the body (but the instance, its scope,
// its condition and the top scope, kept as they are) makes it bad.
type copier struct {
	from           map[*res]*res
	scopes         map[*scope]*scope
	conds          map[*cond]*cond
	brs            map[*branch]*branch
	cols           map[*collector]*collector
	internalScopes map[*scope]bool
	internalRes    map[*res]bool
	keepRes        map[*res]bool
	keepScopes     map[*scope]bool
	keepCond       *cond
	bad            bool
	// replay: what kept objects become; values, attributes and
	// variables that hold none of the body's objects are shared (nothing
	// changes them once the body is over)
	replay   bool
	subjAddr map[string]int // recording: a body scope's address -> its placeholder (-1: none yet)
	subjOrig []*scope       // recording: the scopes of the placeholders
	en       *defEntry
	news     []*res // the copies of en.res
	res1     *res
	scope1   map[*scope]*scope
	cond1    *cond
	dprio    int
	dpoint   int32
}

func (cp *copier) resPtr(x *res) *res {
	if x == nil {
		return nil
	}
	if cp.en != nil {
		if i, ok := cp.en.resIdx[x]; ok {
			return cp.news[i]
		}
	} else if y, ok := cp.from[x]; ok {
		return y
	}
	if cp.keepRes[x] {
		return cp.res1
	}
	cp.bad = true
	return nil
}

// copyRes copies x into y; i is x's index among a replayed entry's
// templates (-1 recording).
func (cp *copier) copyRes(y, x *res, i int) {
	*y = *x
	y.prio = x.prio + cp.dprio
	y.cond = cp.cond(x.cond)
	plain := false
	if i >= 0 {
		plain = cp.en.plainRes[i]
	}
	if plain && len(x.attrs) == cap(x.attrs) {
		y.attrs = x.attrs
	} else {
		y.attrs = cp.attrs1(x.attrs)
	}
	y.scope = cp.scope(x.scope)
	if i >= 0 && cp.en.contIdx[i] >= 0 {
		y.container = cp.news[cp.en.contIdx[i]]
	} else {
		y.container = cp.resPtr(x.container)
	}
	y.inner = cp.scope(x.inner) // a class declared by the body
	if x.node != nil || x.begin != nil || x.end != nil || x.realized || x.hasChild {
		cp.bad = true
	}
	if x.resMore != nil {
		m := *x.resMore
		m.sites = nil
		for _, c := range x.sites {
			m.sites = append(m.sites, cp.cond(c))
		}
		m.also = nil
		for _, o := range x.also {
			m.also = append(m.also, cp.resPtr(o))
		}
		m.alts = nil
		for _, c := range x.alts {
			m.alts = append(m.alts, cp.cond(c))
		}
		if plain && len(x.params) == cap(x.params) {
			m.params = x.params
		} else {
			m.params = cp.attrs1(x.params)
		}
		y.resMore = &m
	}
}

func (cp *copier) attrs(as []attr) []attr {
	if as == nil {
		return nil
	}
	if cp.replay && len(as) == cap(as) && plainAttrs(as) {
		return as
	}
	return cp.attrs1(as)
}

func (cp *copier) attrs1(as []attr) []attr {
	out := make([]attr, len(as))
	for i, a := range as {
		out[i] = a
		out[i].v = cp.val(a.v)
	}
	return out
}

// val copies a value that holds the body's resources or collectors (the
// others are never changed once made, and are shared).
func (cp *copier) val(v val) val {
	if !holdsRun(v) {
		return v
	}
	w := v
	if v.arr != nil {
		w.arr = make([]val, len(v.arr))
		for i, e := range v.arr {
			w.arr[i] = cp.val(e)
		}
	}
	if v.x != nil {
		x := *v.x
		if v.x.keys != nil {
			x.keys = make([]val, len(v.x.keys))
			for i, k := range v.x.keys {
				x.keys[i] = cp.val(k)
			}
		}
		if v.x.res != nil {
			x.res = make([]*res, len(v.x.res))
			for i, r := range v.x.res {
				x.res[i] = cp.resPtr(r)
			}
		}
		if v.x.col != nil {
			c, ok := cp.cols[v.x.col]
			if !ok {
				cp.bad = true
			}
			x.col = c
		}
		w.x = &x
	}
	return w
}

func plainAttrs(as []attr) bool {
	for i := range as {
		if holdsRun(as[i].v) {
			return false
		}
	}
	return true
}

func plainVars(vs *varMap) bool {
	for k := range vs.m {
		if holdsRun(vs.m[k]) {
			return false
		}
	}
	for i := range vs.list {
		if holdsRun(vs.list[i].v) {
			return false
		}
	}
	return true
}

func plainDefaults(d map[string][]attr) bool {
	for _, as := range d {
		for i := range as {
			if holdsRun(as[i].v) {
				return false
			}
		}
	}
	return true
}

func holdsRun(v val) bool {
	if v.x != nil {
		if len(v.x.res) > 0 || v.x.col != nil {
			return true
		}
		for _, k := range v.x.keys {
			if holdsRun(k) {
				return true
			}
		}
	}
	for _, e := range v.arr {
		if holdsRun(e) {
			return true
		}
	}
	return false
}

func (cp *copier) scope(s *scope) *scope {
	if s == nil {
		return nil
	}
	if y, ok := cp.scopes[s]; ok {
		return y
	}
	if cp.keepScopes[s] {
		return cp.scope1[s]
	}
	if !cp.internalScopes[s] || len(s.under) > 0 {
		cp.bad = true
		return nil
	}
	y := &scope{name: s.name}
	cp.scopes[s] = y
	y.parent = cp.scope(s.parent)
	y.dyn = cp.scope(s.dyn)
	y.owner = cp.resPtr(s.owner)
	// the same representation, in the same order
	plain := cp.en != nil && cp.en.plainScope[s]
	if plain {
		y.vars = s.vars
	} else if s.vars.m != nil {
		y.vars.m = make(map[string]val, len(s.vars.m))
		for k, v := range s.vars.m {
			y.vars.m[k] = cp.val(v)
		}
	} else if s.vars.list != nil {
		y.vars.list = make([]varEntry, len(s.vars.list), cap(s.vars.list))
		for i, e := range s.vars.list {
			y.vars.list[i] = varEntry{e.name, cp.val(e.v)}
		}
	}
	if s.defaults != nil && plain {
		y.defaults = s.defaults
	} else if s.defaults != nil {
		y.defaults = make(map[string][]attr, len(s.defaults))
		for k, as := range s.defaults {
			y.defaults[k] = cp.attrs(as)
		}
	}
	return y
}

func (cp *copier) cond(c *cond) *cond {
	if c == nil {
		return nil
	}
	if c == cp.keepCond {
		return cp.cond1
	}
	if y, ok := cp.conds[c]; ok {
		return y
	}
	y := &cond{}
	cp.conds[c] = y
	y.root = cp.resPtr(c.root) // a class body's chain
	y.br = cp.branch(c.br)
	if c.parent == nil && c.root == nil && cp.keepCond != nil {
		cp.bad = true // a chain that ends neither where the body began nor at a class
	}
	y.parent = cp.cond(c.parent)
	return y
}

func (cp *copier) branch(b *branch) *branch {
	if b == nil {
		return nil
	}
	if y, ok := cp.brs[b]; ok {
		return y
	}
	y := &branch{point: b.point + cp.dpoint, arm: b.arm, tests: b.tests, text: b.text, cond: b.cond, f: b.f, neg: b.neg, desc: b.desc}
	y.owner = cp.resPtr(b.owner)
	cp.brs[b] = y
	for i, t := range b.tests {
		if strings.Contains(t.subj, "$0x") || strings.Contains(t.subj, "$\x00") {
			if i == 0 || &y.tests[0] == &b.tests[0] {
				y.tests = append([]test(nil), b.tests...)
			}
			y.tests[i].subj = cp.subject(t.subj)
		}
	}
	return y
}

// subject rewrites the scope addresses a test's subject names: recording,
// the body's scopes' addresses become placeholders; replaying, the
// placeholders become the copies' addresses.
func (cp *copier) subject(s string) string {
	var b strings.Builder
	for {
		i := strings.Index(s, "$0x")
		j := strings.Index(s, "$\x00")
		if cp.replay {
			i = j
		} else if j >= 0 {
			cp.bad = true
			return s
		}
		if i < 0 {
			b.WriteString(s)
			return b.String()
		}
		k := strings.Index(s[i:], "::")
		if k < 0 {
			cp.bad = true
			return s
		}
		b.WriteString(s[:i])
		tok := s[i+1 : i+k]
		if cp.replay {
			n, err := strconv.Atoi(strings.Trim(tok, "\x00"))
			if err != nil || n >= len(cp.en.subjScopes) {
				cp.bad = true
				return s
			}
			fmt.Fprintf(&b, "$%p", cp.scope(cp.en.subjScopes[n]))
		} else {
			n, ok := cp.subjAddr[tok]
			if !ok {
				cp.bad = true // a scope of the run outside the body
				return s
			}
			if n < 0 {
				n = len(cp.subjOrig)
				cp.subjAddr[tok] = n
				cp.subjOrig = append(cp.subjOrig, cp.scopeByAddr(tok))
			}
			fmt.Fprintf(&b, "$\x00%d\x00", n)
		}
		s = s[i+k:]
	}
}

// scopeByAddr is the body's scope at address tok.
func (cp *copier) scopeByAddr(tok string) *scope {
	for s := range cp.internalScopes {
		if fmt.Sprintf("%p", s) == tok {
			return s
		}
	}
	return nil
}

func (cp *copier) env(e *env) *env {
	if e == nil {
		return nil
	}
	return &env{sc: cp.scope(e.sc), f: e.f, sym: e.sym, spec: e.spec, cond: cp.cond(e.cond)}
}

func (cp *copier) copyCollector(y, c *collector) {
	if c.matched != nil || c.scanned != 0 || c.done || c.values != nil {
		cp.bad = true
	}
	*y = collector{typ: c.typ, exported: c.exported, query: c.query, env: cp.env(c.env), attrs: cp.attrs(c.attrs), at: c.at}
	if c.fixed != nil {
		y.fixed = make([]val, len(c.fixed))
		for i, v := range c.fixed {
			y.fixed[i] = cp.val(v)
		}
	}
}

// ---- replay ----

// matches: the run as it is now gives the entry's answers to every input.
func (en *defEntry) matches(r *run) bool {
	if r.depth+en.depth > maxEvalDepth || len(r.a.main.order) != en.loaded ||
		r.steps+en.dsteps > maxIter*100 || len(r.resources)+len(en.res) > maxResources {
		return false
	}
	for _, rd := range en.reads {
		var v val
		var ok bool
		if rd.cls == "" {
			v, ok = r.top.get(rd.name)
		} else if c := r.classes[rd.cls]; c != nil && c.inner != nil {
			v, ok = c.inner.get(rd.name)
		}
		if ok != rd.ok || ok && !sameVal(v, rd.v, true) {
			return false
		}
	}
	for _, o := range en.obs {
		var present bool
		switch o.m {
		case 'k':
			present = r.byKey[o.key] != nil
		case 'a':
			present = r.aliases[o.key] != nil
		case 'c':
			present = r.classes[o.key] != nil
		case 's':
			prev := r.byKey[o.key]
			if prev == nil {
				prev = r.aliases[o.key]
			}
			if prev == nil || prev.decl != *o.decl {
				return false
			}
			present = prev.spec
		case 'p':
			for _, x := range r.patterns {
				if x.typ == o.key && globMatch(x.title, o.title) {
					present = true
					break
				}
			}
		}
		if present != o.present {
			return false
		}
	}
	return true
}

// replay does to r what evaluating a body did to the recording run: x
// is the define instance (nil: a class body), sc and c the scope and
// condition its effects may name (x's, or where the class is declared).
// It returns the copies of the resources the body declared.
func (r *run) replay(x *res, sc *scope, c *cond, en *defEntry) []*res {
	cp := r.replayCopier()
	*cp = copier{replay: true, en: en, scopes: cp.scopes, conds: cp.conds, brs: cp.brs,
		cols: cp.cols, internalScopes: en.tscopes, keepRes: cp.keepRes,
		keepScopes: cp.keepScopes, keepCond: en.oldCond,
		res1: x, scope1: cp.scope1, cond1: c,
		dprio: r.prio - en.prio0, dpoint: r.points - en.points0}
	cp.keepScopes[en.oldTop], cp.keepScopes[en.oldScope] = true, true
	cp.scope1[en.oldTop], cp.scope1[en.oldScope] = r.top, sc
	if en.oldX != nil {
		cp.keepRes[en.oldX] = true
	}
	if r.rec != nil {
		r.replayInputs(en)
	}
	slab := r.a.resSlab(len(en.res))
	cp.news = make([]*res, len(en.res))
	for i := range slab {
		cp.news[i] = &slab[i]
	}
	for _, c := range en.cols {
		cp.cols[c] = &collector{}
	}
	for i, y := range en.res {
		z := cp.news[i]
		cp.copyRes(z, y, i)
		r.resources = append(r.resources, z)
		r.byKey[z.key] = z
	}
	if x != nil {
		x.inner = cp.scope(en.inner)
	}
	for _, w := range en.classes {
		r.classes[w.name] = cp.news[en.resIdx[w.x]]
	}
	for _, w := range en.aliases {
		r.aliases[w.key] = cp.news[en.resIdx[w.x]]
	}
	for _, i := range en.pend {
		r.pending = append(r.pending, cp.news[i])
	}
	for _, i := range en.pats {
		r.patterns = append(r.patterns, cp.news[i])
	}
	for _, c := range en.cols {
		cp.copyCollector(cp.cols[c], c)
		r.cols = append(r.cols, cp.cols[c])
	}
	for _, o := range en.overs {
		r.overrides = append(r.overrides, &override{target: cp.val(o.target), attrs: cp.attrs(o.attrs), env: cp.env(o.env), at: o.at})
	}
	for _, rl := range en.rels {
		n := *rl
		n.left, n.right, n.cond = cp.val(rl.left), cp.val(rl.right), cp.cond(rl.cond)
		r.rels = append(r.rels, &n)
	}
	for _, s := range en.sites {
		c := r.classes[s.class]
		n := siteEff{class: s.class, cond: cp.cond(s.cond), also: cp.resPtr(s.also)}
		c.sites = append(c.sites, n.cond)
		if n.also != nil {
			c.more().also = append(c.extraContainers(), n.also)
		}
		if r.rec != nil {
			r.recSite(c, n)
		}
	}
	for _, al := range en.alts {
		prev := r.byKey[al.key]
		if prev == nil {
			prev = r.aliases[al.key]
		}
		c := cp.cond(al.cond)
		prev.more().alts = append(prev.alternatives(), c)
		if r.rec != nil {
			r.recAlt(prev, al.key, c)
		}
	}
	r.diags = append(r.diags, en.diags...)
	if len(en.links) > 0 && !r.a.linksUnread(r.strict) {
		r.links = append(r.links, en.links...)
	}
	if r.deps != nil {
		for _, d := range en.deps {
			if _, ok := r.deps[d.k]; !ok {
				r.deps[d.k] = d.v
			}
		}
	}
	for _, h := range en.hkeys {
		if r.hieraKeys == nil {
			r.hieraKeys = map[source.Span]string{}
		}
		r.hieraKeys[h.at] = h.key
	}
	r.absent = r.absent || en.flags[0]
	r.classByUnknownName = r.classByUnknownName || en.flags[1]
	r.unknownIncludes = r.unknownIncludes || en.flags[2]
	r.compileErr = r.compileErr || en.flags[3]
	r.prio += en.dprio
	r.points += en.dpoints
	r.steps += en.dsteps
	r.maxDepth = max(r.maxDepth, r.depth+en.depth)
	if r.rec != nil {
		r.replayed(en, cp)
	}
	return cp.news
}

// replayCopier is the run's copier for replay with its maps empty: a run
// replays thousands of bodies one after the other (never one inside
// another), and making seven maps for each was a third of what replaying
// allocated. A map a big body grew is dropped rather than cleared (clear
// costs what the map once held).
func (r *run) replayCopier() *copier {
	cp := r.replayCp
	if cp == nil {
		cp = &copier{}
		r.replayCp = cp
	}
	cp.scopes = reuseMap(cp.scopes)
	cp.conds = reuseMap(cp.conds)
	cp.brs = reuseMap(cp.brs)
	cp.cols = reuseMap(cp.cols)
	cp.keepRes = reuseMap(cp.keepRes)
	cp.keepScopes = reuseMap(cp.keepScopes)
	cp.scope1 = reuseMap(cp.scope1)
	return cp
}

func reuseMap[K comparable, V any](m map[K]V) map[K]V {
	if m == nil || len(m) > 64 {
		return map[K]V{}
	}
	clear(m)
	return m
}

// scopesOf lists the template scopes (the inner scope and those reached
// from it or from the templates).
func (en *defEntry) scopesOf() []*scope {
	seen := map[*scope]bool{}
	var out []*scope
	var walk func(s *scope)
	walk = func(s *scope) {
		if s == nil || seen[s] || s == en.oldTop || s == en.oldScope {
			return
		}
		seen[s] = true
		out = append(out, s)
		walk(s.parent)
		walk(s.dyn)
	}
	walk(en.inner)
	for _, s := range en.subjScopes {
		walk(s)
	}
	for _, y := range en.res {
		walk(y.scope)
		walk(y.inner)
	}
	for _, c := range en.cols {
		if c.env != nil {
			walk(c.env.sc)
		}
	}
	for _, o := range en.overs {
		if o.env != nil {
			walk(o.env.sc)
		}
	}
	return out
}

// evalDefineShared evaluates x's body, or replays a recording of the same
// instance whose inputs this run answers the same way.
func (r *run) evalDefineShared(x *res) {
	if r.rec != nil || r.a.memo == nil || r.a.sys == nil || r.a.sys.NoSharedEval || r.a.soleRun() {
		r.evalDefine(x)
		return
	}
	dm := r.a.defs()
	key := instanceKey(r, x)
	dm.mu.Lock()
	sl, seen := slotOf(dm.entries, key, dm.age.runs)
	list := sl.list
	dm.mu.Unlock()
	for _, en := range list {
		if sameParams(x.params, en.params) && en.matches(r) {
			dm.replays.Add(1)
			r.replay(x, x.scope, x.cond, en)
			return
		}
	}
	dm.evals.Add(1)
	if !seen || len(list) >= maxDefEntries {
		r.evalDefine(x)
		return
	}
	rc := r.startRec(x, x.scope, x.cond)
	rc.params = x.params
	r.evalDefine(x)
	if en := r.endRec(rc, nil); en != nil {
		dm.mu.Lock()
		if len(sl.list) < maxDefEntries {
			sl.list = append(sl.list, en)
		}
		dm.mu.Unlock()
	}
}

// lookup2Rec is lookup2 noting what the catalog answered (r.kbuf holds
// the key).
func (r *run) lookup2Rec(typ, ct string) *res {
	k := string(r.kbuf)
	x := r.byKey[k]
	r.observe('k', k, x)
	if x != nil {
		return x
	}
	x = r.aliases[k]
	r.observe('a', k, x)
	if x != nil {
		return x
	}
	if typ == "Class" {
		c := r.classes[ct]
		r.observe('c', ct, c)
		return c
	}
	return nil
}

func (en *defEntry) resIdx0(y *res, all []*res) int32 {
	for i, z := range all {
		if z == y {
			return int32(i)
		}
	}
	return -1
}

// newClassShared evaluates a class's body at its first declaration, or
// replays a recording of the same declaration whose inputs this run
// answers the same way.
func (r *run) newClassShared(e *env, ci *classInfo, name string, at source.Span, how string, params []attr) *res {
	if r.a.memo == nil || r.a.sys == nil || r.a.sys.NoSharedEval || r.a.soleRun() {
		return r.newClass(e, ci, name, at, how, params)
	}
	dm := r.a.defs()
	key := classKey{ci: ci, name: name, how: how, at: at, spec: e.spec, noCond: e.cond == nil, strict: r.strict,
		synthetic: r.synthetic, loaded: len(r.a.main.order), atTop: e.sc == r.top}
	if o := e.sc.owner; o != nil && o.kind == "class" {
		key.ownerKind, key.ownerStage = o.kind, o.stage // its stage is the class's (newClass)
	}
	dm.mu.Lock()
	sl, seen := slotOf(dm.classes, key, dm.age.runs)
	list := sl.list
	dm.mu.Unlock()
	for _, en := range list {
		if sameParams(params, en.params) && en.matches(r) {
			dm.creplays.Add(1)
			news := r.replay(nil, e.sc, e.cond, en)
			if en.result < 0 {
				return nil
			}
			return news[en.result]
		}
	}
	dm.cevals.Add(1)
	if !seen || len(list) >= maxDefEntries {
		return r.newClass(e, ci, name, at, how, params)
	}
	rc := r.startRec(nil, e.sc, e.cond)
	rc.params = params
	c := r.newClass(e, ci, name, at, how, params)
	if en := r.endRec(rc, c); en != nil {
		dm.mu.Lock()
		if len(sl.list) < maxDefEntries {
			sl.list = append(sl.list, en)
		}
		dm.mu.Unlock()
	}
	return c
}

// replayInputs tells the recordings under way what the replayed body
// read, as the run answers now (before its effects).
func (r *run) replayInputs(en *defEntry) {
	for _, o := range en.obs {
		var x *res
		present := false
		switch o.m {
		case 'k':
			x = r.byKey[o.key]
		case 'a':
			x = r.aliases[o.key]
		case 'c':
			x = r.classes[o.key]
		case 'p':
			for _, y := range r.patterns {
				if y.typ == o.key && globMatch(y.title, o.title) {
					x = y
					break
				}
			}
		case 's':
			x = r.byKey[o.key]
			if x == nil {
				x = r.aliases[o.key]
			}
			present = x != nil && x.spec
			r.observe1(o, x, present)
			continue
		}
		r.observe1(o, x, x != nil)
	}
	for _, rd := range en.reads {
		if rd.cls == "" {
			for rc := r.rec; rc != nil; rc = rc.outer {
				rc.read(rd)
			}
			continue
		}
		r.readClassVar(r.classes[rd.cls], rd)
	}
	for _, d := range en.deps {
		r.recDep(d.k, d.v)
	}
	for _, h := range en.hkeys {
		r.recHKey(h.at, h.key)
	}
}

// replayed tells the recordings under way what the replay made.
func (r *run) replayed(en *defEntry, cp *copier) {
	for _, y := range cp.news {
		r.recAdd(y)
	}
	for _, s := range cp.scopes {
		r.recScope(s)
	}
	for _, w := range en.classes {
		r.recClass(w.name, cp.news[en.resIdx[w.x]])
	}
	for _, w := range en.aliases {
		r.recAlias(w.key, cp.news[en.resIdx[w.x]])
	}
}
