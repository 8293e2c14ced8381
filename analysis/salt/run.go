package salt

import (
	"sort"
	"strings"

	sp "github.com/ordering-lsp/ordering-lsp/parser/salt"
)

// This file follows State.call_chunks / call_chunk / check_requisite /
// call_listen of salt/state.py (3006/3007): chunks are visited in sorted
// order; a chunk whose requisites have not run pulls them first (depth
// first, in the order require, require_any, watch, watch_any, prereq,
// onfail, onfail_any, onchanges, onchanges_any, prerequired); each state
// that gets a result takes the next run number. Nothing is executed: a
// state's result is the one it reports under test=True (funResult: the test
// module's states are known; any other state is taken to report changes
// with result None, "would change"). Results move positions only through
// prereq, which runs its target in test mode first and orders by what that
// reports (random differential test against Salt 3007: TestDifferential).

// checkOrder is check_requisite's requisite order.
var checkOrder = []int{rqRequire, rqRequireAny, rqWatch, rqWatchAny, rqPrereq, rqOnfail, rqOnfailAny, rqOnfailAll, rqOnchanges, rqOnchangesAny}

// pullOrder is call_chunk's requisite order (no onfail_all).
var pullOrder = []int{rqRequire, rqRequireAny, rqWatch, rqWatchAny, rqPrereq, rqOnfail, rqOnfailAny, rqOnchanges, rqOnchangesAny}

var (
	checkOrderPre = append(append([]int(nil), checkOrder...), rqPrerequired)
	pullOrderPre  = append(append([]int(nil), pullOrder...), rqPrerequired)
	// checkMask: the keys whose presence makes check_requisite look
	checkMask = func() uint16 {
		m := uint16(1 << rqPrerequired)
		for _, k := range checkOrder {
			m |= 1 << k
		}
		return m
	}()
)

type simResult struct {
	num int
	// res is the state's result: resTrue, resNone (test mode: would
	// change) or resFalse; changes whether it reports changes; notRun a
	// result Salt marks __state_ran__ False (onchanges/onfail not met).
	res       int8
	changes   bool
	notRun    bool
	recursive bool
	tied      bool // shares its run number with the next state
	lost      bool
	listener  *chunk // for mod_watch steps of listen
}

type lostReq struct {
	kind  string // requisite key as Salt reports it (watch may read require)
	entry *reqEntry
}

type match struct {
	chunks []*chunk
	// maybeChunks could be the target once templates are rendered on the
	// machine: linked, never ordered.
	maybeChunks []*chunk
	maybe       bool // a template could produce the target
	// patternOnly: a literal target nothing declares, which only states
	// whose ID or name is template output (maybeChunks) could be
	patternOnly bool
}

type sim struct {
	chunks      []*chunk
	byID        map[string][]*chunk
	byName      map[string][]*chunk
	bySLS       map[string][]*chunk
	byInc       map[string][]*chunk
	patterns    []*chunk
	generator   bool
	shadowed    map[string]bool // SLS whose states conditional alternatives hid
	shadowNames map[string]bool // IDs and names only hidden alternatives declare

	// by tag (chunk.tid): Salt's running and pre dicts, the active set
	// (a generation number: reset after each top-level chunk)
	running   []*simResult
	pre       []*simResult // Salt's pre dict: results of prereq test runs
	activeGen []int
	gen       int
	runNum    int
	order     []*chunk // by run number
	listen    []*listenStep

	pulledBy    map[*chunk]*chunk
	lost        map[*chunk][]lostReq
	recursive   map[*chunk]bool
	matchCache  map[string]*match
	sortedIDs   []*chunk
	sortedNames []*chunk
	byEntry     map[*reqEntry]*match
	converted   map[*chunk]bool
	steps       int

	// stack holds the states whose call_chunk is under way, innermost
	// last (Salt's Python call stack, for RecursionError).
	stack []*chunk
	// crash is set when salt-call would die with a Python exception:
	// nothing runs after it and salt-call prints a traceback.
	crash *simCrash
	// listenErrs are call_listen's Listen_Error entries, after the
	// mod_watch steps.
	listenErrs []*listenErr
}

// simCrash is where and why salt-call dies.
type simCrash struct {
	kind  string // "recursion", "unbound", "listen_in"
	at    *chunk
	stack []*chunk  // recursion: the call_chunk stack at that point
	entry *reqEntry // listen_in: the item Salt cannot read
}

type listenErr struct {
	ch          *chunk // the state whose listen (or listen_in) names it
	mod, target string
}

// pythonDepth is the deepest call_chunk nesting Salt 3007 survives under
// CPython's default recursion limit of 1000, measured with the oracle: a
// chain of 967 states each requiring the next runs, 968 dies.
const pythonDepth = 967

type listenStep struct {
	ch     *chunk // the listening state
	target *chunk
	entry  *reqEntry
}

func newSim(chunks []*chunk, generator bool) *sim {
	s := &sim{chunks: chunks, byID: map[string][]*chunk{}, byName: map[string][]*chunk{},
		bySLS: map[string][]*chunk{}, byInc: map[string][]*chunk{}, generator: generator,
		running: make([]*simResult, len(chunks)), pre: make([]*simResult, len(chunks)), activeGen: make([]int, len(chunks)), gen: 1,
		pulledBy: map[*chunk]*chunk{}, lost: map[*chunk][]lostReq{}, recursive: map[*chunk]bool{},
		matchCache: map[string]*match{}, byEntry: map[*reqEntry]*match{}, converted: map[*chunk]bool{}}
	for _, ch := range chunks {
		s.byID[ch.id] = append(s.byID[ch.id], ch)
		if ch.name != ch.id {
			s.byName[ch.name] = append(s.byName[ch.name], ch)
		}
		s.bySLS[ch.sls] = append(s.bySLS[ch.sls], ch)
		for _, inc := range ch.includedFrom {
			s.byInc[inc] = append(s.byInc[inc], ch)
		}
		if strings.Contains(ch.id, sp.Unknown) || strings.Contains(ch.name, sp.Unknown) || strings.Contains(ch.state, sp.Unknown) || ch.argsOut != nil {
			s.patterns = append(s.patterns, ch)
		}
	}
	return s
}

// modMatches: the requisite's module names a state of module state (an
// ID requisite names any; a module the template chooses,
// `- {% if a %}file{% else %}ini{% endif %}: x`, may be any it could be).
func (e *reqEntry) modMatches(state string) bool {
	return e.mod == "id" || state == e.mod || strings.Contains(e.mod, sp.Unknown) && fnmatch(state, e.mod)
}

// match finds the chunks a requisite entry names, in chunk order.
func (s *sim) match(e *reqEntry) *match {
	if m, ok := s.byEntry[e]; ok {
		return m
	}
	key := e.mod + "\x00" + e.target + "\x00" + e.disp
	if m, ok := s.matchCache[key]; ok {
		s.byEntry[e] = m
		return m
	}
	defer func() { s.byEntry[e] = s.matchCache[key] }()
	m := &match{}
	val := e.target
	unknown := strings.Contains(val, sp.Unknown)
	if e.mod == "sls" {
		if unknown {
			// a templated SLS name: links to what it could be, no order
			for _, ch := range s.chunks {
				if len(m.maybeChunks) < 50 && fnmatch(ch.sls, val) {
					m.maybeChunks = append(m.maybeChunks, ch)
				}
			}
		} else if hasGlob(val) {
			for _, ch := range s.chunks {
				if fnmatch(ch.sls, val) || contains(ch.includedFrom, val) {
					m.chunks = append(m.chunks, ch)
				}
			}
		} else {
			m.chunks = append(m.chunks, s.bySLS[val]...)
			m.chunks = append(m.chunks, s.byInc[val]...)
			m.chunks = uniqSorted(m.chunks)
		}
	} else if unknown {
		// A templated target: the same template text names the same
		// state (`pkg_{{ s }}` in the loop that declares it); anything
		// else it could match is a maybe.
		for _, ch := range s.chunks {
			same := e.disp != "" && (ch.nameDisp == e.disp || ch.idDisp == e.disp)
			if same && (ch.name == val || ch.id == val) && e.modMatches(ch.state) {
				m.chunks = append(m.chunks, ch)
			}
		}
	} else if hasGlob(val) {
		for _, ch := range s.globCandidates(val) {
			if (fnmatch(ch.name, val) || fnmatch(ch.id, val)) && e.modMatches(ch.state) {
				m.chunks = append(m.chunks, ch)
			}
		}
		m.chunks = uniqSorted(m.chunks)
	} else {
		for _, ch := range s.byID[val] {
			if e.modMatches(ch.state) {
				m.chunks = append(m.chunks, ch)
			}
		}
		for _, ch := range s.byName[val] {
			if e.modMatches(ch.state) {
				m.chunks = append(m.chunks, ch)
			}
		}
		m.chunks = uniqSorted(m.chunks)
	}
	if len(m.chunks) == 0 && unknown && e.mod != "sls" {
		for _, ch := range s.chunks {
			if len(m.maybeChunks) >= 50 {
				break
			}
			if (fnmatch(ch.name, val) || fnmatch(ch.id, val)) && e.modMatches(ch.state) {
				m.maybeChunks = append(m.maybeChunks, ch)
			}
		}
	}
	if len(m.chunks) == 0 {
		if unknown || s.generator || e.mod == "sls" && s.shadowed[val] || e.mod != "sls" && s.shadowNames[val] {
			m.maybe = true
		}
		for _, ch := range s.patterns {
			if e.mod == "sls" {
				continue
			}
			if (fnmatch(ch.name, val) || fnmatch(ch.id, val) || ch.argsOut != nil) && (e.modMatches(ch.state) || strings.Contains(ch.state, sp.Unknown)) {
				m.maybeChunks = append(m.maybeChunks, ch)
			}
		}
		if len(m.maybeChunks) > 0 {
			m.maybe = true
			m.patternOnly = !unknown && e.mod != "sls" && !s.generator && !s.shadowNames[val]
		}
	}
	s.matchCache[key] = m
	return m
}

// globCandidates narrows a glob to the chunks whose ID or name starts
// with its literal prefix (binary search in sorted lists), plus templated
// ones; a glob without a literal prefix gets every chunk.
func (s *sim) globCandidates(pat string) []*chunk {
	i := strings.IndexAny(pat, "*?["+sp.Unknown)
	if i <= 0 {
		return s.chunks
	}
	prefix := pat[:i]
	if s.sortedIDs == nil {
		s.sortedIDs = append([]*chunk(nil), s.chunks...)
		sort.Slice(s.sortedIDs, func(a, b int) bool { return s.sortedIDs[a].id < s.sortedIDs[b].id })
		s.sortedNames = append([]*chunk(nil), s.chunks...)
		sort.Slice(s.sortedNames, func(a, b int) bool { return s.sortedNames[a].name < s.sortedNames[b].name })
	}
	var out []*chunk
	lo := sort.Search(len(s.sortedIDs), func(k int) bool { return s.sortedIDs[k].id >= prefix })
	for k := lo; k < len(s.sortedIDs) && strings.HasPrefix(s.sortedIDs[k].id, prefix); k++ {
		out = append(out, s.sortedIDs[k])
	}
	lo = sort.Search(len(s.sortedNames), func(k int) bool { return s.sortedNames[k].name >= prefix })
	for k := lo; k < len(s.sortedNames) && strings.HasPrefix(s.sortedNames[k].name, prefix); k++ {
		out = append(out, s.sortedNames[k])
	}
	return append(out, s.patterns...)
}

func contains(l []string, s string) bool {
	for _, x := range l {
		if x == s {
			return true
		}
	}
	return false
}

func uniqSorted(l []*chunk) []*chunk {
	if len(l) < 2 {
		return l
	}
	sort.Slice(l, func(i, j int) bool { return l[i].index < l[j].index })
	out := l[:1]
	for _, c := range l[1:] {
		if c != out[len(out)-1] {
			out = append(out, c)
		}
	}
	return out
}

// convertWatch is the start of check_requisite: a watch on a state module
// without mod_watch becomes a require (appended to it).
func (s *sim) convertWatch(low *chunk) {
	if s.converted[low] {
		return
	}
	s.converted[low] = true
	if strings.Contains(low.state, sp.Unknown) || modWatch[low.state] {
		return
	}
	r := &low.reqs
	if r.has(rqWatch) {
		w := r.get(rqWatch)
		r.set(rqRequire, append(append([]*reqEntry(nil), r.get(rqRequire)...), w...))
		low.watchAsRequire = w
		r.del(rqWatch)
	}
	if r.has(rqWatchAny) {
		w := r.get(rqWatchAny)
		r.set(rqRequireAny, append(append([]*reqEntry(nil), r.get(rqRequireAny)...), w...))
		r.del(rqWatchAny)
	}
}

// Results, as Salt's ret["result"].
const (
	resTrue  int8 = 1
	resNone  int8 = 0
	resFalse int8 = -1
)

// funResult is what a state reports under test=True (salt/states/test.py
// for the test module); any other state is taken to report changes with
// result None.
func funResult(c *chunk) *simResult {
	if c.state == "test" {
		switch c.fun {
		case "nop", "succeed_without_changes", "show_notification":
			return &simResult{res: resTrue}
		case "fail_without_changes":
			return &simResult{res: resFalse}
		}
	}
	return &simResult{res: resNone, changes: true}
}

// Statuses of check_requisite.
const (
	stMet = iota
	stUnmet
	stFail
	stPre
	stOnfail
	stOnchanges
	stChange
)

// Requisite stats of check_requisite, as bits.
const (
	rsUnmet = 1 << iota
	rsOnfail
	rsFail
	rsOnchanges
	rsOnchangesmet
	rsChange
	rsPremet
	rsPren
	rsMet
)

// Requisite families, as check_requisite tells them apart by the key's
// prefix and suffix.
func isOnfail(k int) bool {
	return k == rqOnfail || k == rqOnfailAny || k == rqOnfailAll || k == rqOnfailStop
}
func isOnchanges(k int) bool { return k == rqOnchanges || k == rqOnchangesAny }
func isWatch(k int) bool     { return k == rqWatch || k == rqWatchAny }
func isAny(k int) bool {
	return k == rqRequireAny || k == rqWatchAny || k == rqOnfailAny || k == rqOnchangesAny
}

// reqStat is what one requisite target's result (nil: not run yet) adds
// to check_requisite's stats for requisite k.
func reqStat(r *simResult, k int) int {
	if r == nil {
		return rsUnmet
	}
	if isOnfail(k) {
		if r.res == resTrue {
			return rsOnfail
		}
	} else if r.res == resFalse {
		return rsFail
	}
	if isOnchanges(k) {
		if r.changes {
			return rsOnchangesmet
		}
		return rsOnchanges
	}
	if isWatch(k) && r.changes {
		return rsChange
	}
	st := 0
	if k == rqPrereq && r.res == resNone {
		st |= rsPremet
	}
	if (k == rqPrereq || k == rqPrerequired) && r.res != resNone {
		if k == rqPrereq {
			st |= rsPren
		}
	} else if !r.notRun {
		st |= rsMet
	}
	return st
}

// status is check_requisite: what the state's requisites say now.
func (s *sim) status(low *chunk, pre bool) int {
	s.convertWatch(low)
	if low.reqs.present&checkMask == 0 {
		return stMet
	}
	keys := checkOrder
	if pre {
		keys = checkOrderPre
	}
	fun := 0
	for _, k := range keys {
		entries := low.reqs.get(k)
		if len(entries) == 0 {
			continue
		}
		runDict := s.running
		if k == rqPrereq {
			runDict = s.pre
		}
		st := 0
		for _, e := range entries {
			if e.bad == "null" {
				continue
			}
			m := s.match(e)
			if len(m.chunks) == 0 {
				if m.maybe {
					continue
				}
				return stUnmet // a requisite naming nothing: unmet, whatever else says
			}
			for _, ch := range m.chunks {
				st |= reqStat(runDict[ch.tid], k)
			}
		}
		if isAny(k) || k == rqOnfail {
			if st&(rsMet|rsChange) != 0 {
				st &^= rsFail
			}
			if st&rsOnchangesmet != 0 {
				st &^= rsOnchanges | rsFail
			}
			if st&rsOnfail != 0 && st&rsMet != 0 {
				st &^= rsOnfail
			}
		}
		if k == rqOnfailAll && st&rsOnfail != 0 {
			st &^= rsMet
		}
		fun |= st
	}
	switch {
	case fun&rsUnmet != 0:
		return stUnmet
	case fun&rsFail != 0:
		return stFail
	case fun&rsPren != 0:
		if fun&rsPremet != 0 {
			return stMet
		}
		return stPre
	case fun&rsOnfail != 0 && fun&rsOnchangesmet == 0:
		return stOnfail
	case fun&rsOnchanges != 0 && fun&rsOnchangesmet == 0:
		return stOnchanges
	case fun&rsChange != 0:
		return stChange
	case fun&rsOnfail != 0:
		return stOnfail
	}
	return stMet
}

func (s *sim) record(low *chunk, r *simResult) {
	r.num = s.runNum
	s.runNum++
	s.put(low, r)
}

// put files a result under the state's tag. Salt's results are a dict by
// tag: a state given a second result (a prereq test run that fails it,
// then its own turn) keeps only the later one, at its later run number.
func (s *sim) put(low *chunk, r *simResult) {
	if s.running[low.tid] != nil {
		for i := len(s.order) - 1; i >= 0; i-- {
			if s.order[i] == low {
				s.order = append(s.order[:i], s.order[i+1:]...)
				break
			}
		}
	}
	s.running[low.tid] = r
	s.order = append(s.order, low)
}

// call is State.call: a chunk flagged __prereq__ runs in test mode and
// loses the flag (its result, returned, goes to the pre dict; no run
// number); any other gets the next run number.
func (s *sim) call(low *chunk) *simResult {
	r := funResult(low)
	if low.prereqFlag {
		low.prereqFlag = false
		return r
	}
	s.record(low, r)
	return r
}

func (s *sim) callChunk(low *chunk, depth int) {
	s.steps++
	if s.steps > 5_000_000 || s.crash != nil {
		return
	}
	if len(s.stack) >= pythonDepth {
		// Salt's call_chunk recursion went past CPython's limit: a chain
		// of requisites too deep, or a loop through a prereq target,
		// which Salt does not mark active, so its check for recursive
		// requisites never sees it.
		s.crash = &simCrash{kind: "recursion", at: low, stack: append([]*chunk(nil), s.stack...)}
		return
	}
	s.stack = append(s.stack, low)
	defer func() { s.stack = s.stack[:len(s.stack)-1] }()
	if len(low.reqs.get(rqPrerequired)) == 0 {
		s.activeGen[low.tid] = s.gen
	}
	keys := pullOrder
	pre := !low.prereqFlag
	if pre {
		keys = pullOrderPre
	}
	switch s.status(low, pre) {
	case stUnmet:
	case stFail:
		// failed by a requisite: the result of its prereq test run if it
		// had one, else "One or more requisite failed"; a run number even
		// in a prereq test run
		r := s.pre[low.tid]
		if r == nil {
			r = &simResult{res: resFalse}
			s.pre[low.tid] = r
		}
		cp := *r
		cp.changes = false // Salt drops the test run's changes
		s.record(low, &cp)
		return
	case stPre:
		// "No changes detected": what it prereqs would not change
		r := &simResult{res: resTrue}
		s.record(low, r)
		s.pre[low.tid] = r
		return
	case stOnfail, stOnchanges:
		s.record(low, &simResult{res: resTrue, notRun: true})
		return
	case stChange:
		if !low.prereqFlag {
			if r := s.call(low); !r.changes {
				// no changes of its own: Salt calls mod_watch, whose
				// result replaces it ("Watch statement fired.")
				r.res, r.changes = resTrue, true
			}
			return
		}
		s.pre[low.tid] = s.call(low)
		return
	default:
		if low.prereqFlag {
			s.pre[low.tid] = s.call(low)
		} else {
			s.call(low)
		}
		return
	}
	var lost []lostReq
	var reqs []*chunk
	for _, k := range keys {
		for _, e := range low.reqs.get(k) {
			if e.bad == "null" {
				continue
			}
			m := s.match(e)
			if len(m.chunks) == 0 {
				if !m.maybe {
					lost = append(lost, lostReq{reqKeyOrder[k], e})
				}
				continue
			}
			for _, ch := range m.chunks {
				if k == rqPrereq {
					ch.prereqFlag = true
				} else if k == rqPrerequired {
					ch.prerequiredFlag = true
				}
				reqs = append(reqs, ch)
			}
		}
	}
	if len(lost) > 0 {
		s.lost[low] = lost
		if low.prereqFlag {
			s.runNum++
			s.pre[low.tid] = &simResult{res: resFalse, lost: true}
			return
		}
		s.record(low, &simResult{res: resFalse, lost: true})
		return
	}
	for _, ch := range reqs {
		if s.running[ch.tid] != nil {
			continue
		}
		if s.activeGen[ch.tid] == s.gen {
			if ch.prerequiredFlag {
				if s.pre[low.tid] == nil {
					// Salt files this state's test run under the
					// prerequired state's tag
					low.prereqFlag = true
					s.pre[ch.tid] = s.call(low)
				}
				return
			}
			s.recursive[low] = true
			s.record(low, &simResult{res: resFalse, recursive: true})
			return
		}
		if _, ok := s.pulledBy[ch]; !ok {
			s.pulledBy[ch] = low
		}
		s.callChunk(ch, 0)
		if s.crash != nil {
			return
		}
	}
	// call_chunk ends this branch with check_failhard(chunk, ...), chunk
	// being the variable of its loops over the requisites it pulls: a
	// state with none of them (its unmet requisites are all onfail_all)
	// never bound it, and Salt dies with UnboundLocalError.
	bound := false
	for _, k := range keys {
		if len(low.reqs.get(k)) > 0 {
			bound = true
			break
		}
	}
	if !bound {
		s.crash = &simCrash{kind: "unbound", at: low}
		return
	}
	if low.prereqFlag {
		st := s.status(low, false)
		r := s.call(low)
		if !r.changes && st == stChange {
			r.changes, r.res = true, resNone
		}
		s.pre[low.tid] = r
		return
	}
	depth++
	if depth >= 20 {
		s.recursive[low] = true
		// no run number of its own: Salt does not count this one, so it
		// shares the next state's __run_num__
		s.put(low, &simResult{res: resFalse, recursive: true, tied: true, num: s.runNum})
		return
	}
	s.callChunk(low, depth)
}

// run is call_chunks then call_listen.
func (s *sim) run() {
	for _, low := range s.chunks {
		if s.running[low.tid] == nil {
			s.callChunk(low, 0)
		}
		if s.crash != nil {
			return // the traceback ends the run: no listeners
		}
		s.gen++
	}
	s.callListen()
}

// callListen is call_listen: each listen (and listen_in) adds a mod_watch
// of the listening state at the end of the run, when the state it listens
// to reported changes. A listen naming no state (a glob, `sls:`, `id:`:
// call_listen matches module and exact ID or name only) adds Salt's
// Listen_Error entry after them.
func (s *sim) callListen() {
	inCref := func(ch *chunk, v string) bool { return ch.state == v || ch.id == v || ch.name == v }
	seenErr := map[string]bool{}
	listenErr := func(ch *chunk, mod, target string) {
		if k := mod + "\x00" + target; !seenErr[k] {
			seenErr[k] = true
			s.listenErrs = append(s.listenErrs, &listenErr{ch: ch, mod: mod, target: target})
		}
	}
	for _, ch := range s.chunks {
		for _, e := range ch.reqs.get(rqListen) {
			target := e
			if e.mod == "id" && e.bare {
				var found *chunk
				for _, c := range s.chunks {
					if c.id == e.target || c.name == e.target {
						found = c
					}
				}
				if found == nil {
					continue
				}
				target = &reqEntry{mod: found.state, target: found.id}
			}
			var tos []*chunk
			for _, c := range s.chunks {
				if c.state == target.mod && inCref(c, target.target) {
					tos = append(tos, c)
				}
			}
			if len(tos) == 0 {
				if strings.Contains(target.target, sp.Unknown) || s.generator {
					continue
				}
				s.lost[ch] = append(s.lost[ch], lostReq{"listen", e})
				listenErr(ch, target.mod, target.target)
				continue
			}
			for _, to := range tos {
				if r := s.running[to.tid]; r == nil || !r.changes {
					continue
				}
				s.listen = append(s.listen, &listenStep{ch: ch, target: to, entry: e})
			}
		}
		for _, e := range ch.reqs.get(rqListenIn) {
			if e.bare {
				// call_listen reads each listen_in item as a dict
				s.crash = &simCrash{kind: "listen_in", at: ch, entry: e}
				s.listen = nil
				return
			}
			// the listening states are those matching (mod, target)
			found := false
			for _, l := range s.chunks {
				if l.state == e.mod && inCref(l, e.target) {
					found = true
					if r := s.running[ch.tid]; r != nil && r.changes {
						s.listen = append(s.listen, &listenStep{ch: l, target: ch, entry: e})
					}
				}
			}
			if !found && !strings.Contains(e.target, sp.Unknown) && !s.generator {
				s.lost[ch] = append(s.lost[ch], lostReq{"listen", e})
				if r := s.running[ch.tid]; r != nil && r.changes {
					listenErr(ch, e.mod, e.target)
				}
			}
		}
	}
	seen := map[string]bool{}
	var out []*listenStep
	for _, l := range s.listen {
		t := l.ch.tag
		if seen[t] {
			continue
		}
		if l.ch.prereqFlag {
			// A state still flagged __prereq__ (a prereq pulled it and its
			// requisites failed it before a test run cleared the flag):
			// the mod_watch copy inherits the flag and its result goes to
			// the pre dict, never to the run's results.
			continue
		}
		seen[t] = true
		out = append(out, l)
	}
	s.listen = out
}
