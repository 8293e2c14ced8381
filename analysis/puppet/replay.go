package puppet

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/ordering-lsp/ordering-lsp/source"
)

// Replaying a recorded body (defmemo.go) into another run: the copier
// that makes the run's own objects from a recording's templates, the
// test that a run answers every input the way the recording's run did,
// and the entry points evaluation calls instead of evaluating a define
// or class body.

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

// indexTemplates numbers the templates in the objects themselves: a
// replay looked each one up in the entry's maps (resIdx, tscopes,
// plainScope), whose memory no other replay of the run had touched,
// ~2% of a check of operations-puppet. Only when every template is new
// to numbering and listed once (a template of two lists would carry one
// index) does the entry use the numbers; otherwise its maps.
func (en *defEntry) indexTemplates() {
	for _, y := range en.res {
		if y.tmpl != 0 {
			return
		}
		y.tmpl = -1
	}
	for _, s := range en.tscopeList {
		if s.tmpl != 0 {
			return
		}
		s.tmpl = -1
	}
	for i, y := range en.res {
		y.tmpl = int32(i + 1)
	}
	for i, s := range en.tscopeList {
		s.tmpl = int32(i + 1)
	}
	en.tmplIdx = true
}

// templateRes is x's index among a replayed entry's templates.
func (cp *copier) templateRes(x *res) (int32, bool) {
	en := cp.en
	if en.tmplIdx {
		i := x.tmpl - 1
		if i >= 0 && int(i) < len(en.res) && en.res[i] == x {
			return i, true
		}
		return 0, false
	}
	i, ok := en.resIdx[x]
	return i, ok
}

// tmplOf is templateRes's index, 0 when x is none (as resIdx[x]).
func (cp *copier) tmplOf(x *res) int32 {
	i, _ := cp.templateRes(x)
	return i
}

// internalScope: s is one of the body's scopes (a replay: a template),
// and whether its variables and defaults hold none of the body's objects.
func (cp *copier) internalScope(s *scope) (internal, plain bool) {
	if en := cp.en; en != nil && en.tmplIdx {
		i := s.tmpl - 1
		if i >= 0 && int(i) < len(en.tscopeList) && en.tscopeList[i] == s {
			return true, en.plainScopes[i]
		}
		return false, false
	}
	return cp.internalScopes[s], cp.en != nil && cp.en.plainScope[s]
}

func (cp *copier) resPtr(x *res) *res {
	if x == nil {
		return nil
	}
	if cp.en != nil {
		if i, ok := cp.templateRes(x); ok {
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
	y.tmpl = 0
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
		m.tags = bodyTags{} // y is another body (bodyTags.stamp says so too)
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
		if m.bodyEnd != 0 {
			m.bodyEnd += cp.dprio
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
	internal, plain := cp.internalScope(s)
	if !internal || len(s.under) > 0 {
		cp.bad = true
		return nil
	}
	y := &scope{name: s.name}
	cp.scopes[s] = y
	y.parent = cp.scope(s.parent)
	y.dyn = cp.scope(s.dyn)
	y.owner = cp.resPtr(s.owner)
	// the same representation, in the same order
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
	if s.defaults != nil && plain && cp.dprio == 0 {
		y.defaults = s.defaults
	} else if s.defaults != nil {
		// a default's seq is a catalog position, as a resource's prio
		// is: the replay moves both by dprio (defaultsOf compares them)
		y.defaults = make(map[string][]attr, len(s.defaults))
		for k, as := range s.defaults {
			as = cp.attrs(as)
			if cp.dprio != 0 {
				as = slices.Clone(as)
				for i := range as {
					as[i].seq += int32(cp.dprio)
				}
			}
			y.defaults[k] = as
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
		if r.probing && (o.m == 'k' && (!o.dup || o.present) || o.m == 'a' || o.m == 's') {
			// (as lookup2 and declare would: a declaration of a key not
			// taken is the run's declared key, not a lookup)
			r.probes = append(r.probes, probeHash(o.key))
		}
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
		r.classes[w.name] = cp.news[cp.tmplOf(w.x)]
	}
	for _, w := range en.aliases {
		r.aliases[w.key] = cp.news[cp.tmplOf(w.x)]
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
	r.absentElse = r.absentElse || en.flags[4]
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
	// Its resource defaults are parameters as written ones are (they
	// are part of what a recording of the body is keyed on).
	x.params = defaultsOf(x.typ, x.scope, x.prio, x.params)
	if r.rec != nil || r.a.memo == nil || r.a.sys == nil || r.a.sys.NoSharedEval || r.a.soleRun() || r.enclosing(x.scope) != r.top {
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
		r.recClass(w.name, cp.news[cp.tmplOf(w.x)])
	}
	for _, w := range en.aliases {
		r.recAlias(w.key, cp.news[cp.tmplOf(w.x)])
	}
}
