package salt

import (
	"fmt"
	"sort"
	"strings"

	"github.com/ordering-lsp/ordering-lsp/analysis"
	"github.com/ordering-lsp/ordering-lsp/internal/lazyre"
	sp "github.com/ordering-lsp/ordering-lsp/parser/salt"
	"github.com/ordering-lsp/ordering-lsp/source"
)

// This file follows salt/state.py of Salt 3006/3007 (BaseHighState
// .render_state, merge_included_states, _handle_iorder; State
// .reconcile_extend, verify_high, requisite_in, apply_exclude,
// compile_high_data, order_chunks): same steps, same order, same
// messages, on the parsed files instead of rendered Python dicts.

// body is high[id]: one ID with its state declarations, as the run sees
// it (extends and _in requisites change it, so each run has its own).
type body struct {
	id           string
	sls          string
	f            *sfile
	decl         *idDecl
	states       []*hstate
	includedFrom []string
	// cond: declared in a branch of an undecidable condition, or in a
	// file included from one: it may not exist on a given machine.
	cond bool
}

func (b *body) state(mod string) *hstate {
	for _, s := range b.states {
		if s.module == mod {
			return s
		}
	}
	return nil
}

// hstate is high[id][module].
type hstate struct {
	module string
	decl   *stDecl
	funs   []string
	funAt  *sp.Node
	// args are shared with the parsed declaration until something
	// changes them (extend, use): own() copies first.
	args  []*arg
	owned bool
	// autoOrder is the order _handle_iorder appends ({"order": iorder})
	// to a state without one; 0 when none.
	autoOrder int
	null      bool
	bad       bool // not a list
}

func (h *hstate) own() {
	if !h.owned {
		h.args = append([]*arg(nil), h.args...)
		h.owned = true
	}
}

// high is the high data of one run.
type high struct {
	ids      []string
	m        map[string]*body
	extends  []*extendDecl
	excludes []*exclude
}

func newHigh() *high { return &high{m: map[string]*body{}} }

func (h *high) put(b *body) {
	if _, ok := h.m[b.id]; !ok {
		h.ids = append(h.ids, b.id)
	}
	h.m[b.id] = b
}

func (h *high) remove(id string) {
	if _, ok := h.m[id]; !ok {
		return
	}
	delete(h.m, id)
	for i, x := range h.ids {
		if x == id {
			h.ids = append(h.ids[:i], h.ids[i+1:]...)
			break
		}
	}
}

// problem is a diagnostic found while compiling a run.
type problem struct {
	at        source.Span
	sev       int // 1 error, 2 warning, 3 info
	code      string
	msg       string
	related   []relatedSpan
	members   []*analysis.Node // a cycle's states, for code lenses
	refuses   bool             // Salt refuses the run
	missing   *reqEntry
	chunk     *chunk
	maybeOK   bool // a template could produce the target: not reported
	onlyInfo  bool
	target    string // the ID an extend names
	targetMod string
}

type relatedSpan struct {
	at  source.Span
	msg string
}

// compiler renders the high data of one run.
type compiler struct {
	t        *tree
	mods     map[string]bool
	iorder   int
	auto     bool
	problems []*problem
	// generator: some file of the run may declare states nobody can name
	// in advance.
	generator bool
	files     []*sfile // files of the run, in render order
	shadowed  map[string]bool
	// shadowNames: IDs and names of alternatives hidden by another
	shadowNames map[string]bool
	// hidden: the alternatives hidden by another declaration of their
	// ID (their requisites are still checked: hiddenRequisites)
	hidden []*idDecl
	// dry: only walk the includes (which files make the run), for the
	// run cache's key
	dry bool
}

func (c *compiler) fail(p *problem) { c.problems = append(c.problems, p) }

// modKey names an SLS rendered in a run as Salt's mods list does
// ("saltenv:sls"): the same name in two saltenvs is two files.
func modKey(env, sls string) string {
	if env == "" {
		env = "base"
	}
	return env + ":" + sls
}

// renderState is BaseHighState.render_state: the file's IDs, then each
// include (rendered once per run), merged into the file's state; the
// file's own states get their auto order after its includes.
func (c *compiler) renderState(sls string, from *include, depth int, cond bool) *high {
	if depth > 64 {
		return nil
	}
	// the saltenv of this render: an include names its own, or renders
	// in the saltenv of the file including it (salt/state.py
	// render_state: env_key = saltenv)
	env := c.t.env
	if env == "" {
		env = "base"
	}
	if from != nil && from.env != "" && !strings.Contains(from.env, sp.Unknown) {
		env = from.env
	}
	c.mods[modKey(env, sls)] = true
	// another saltenv the configuration names: its own roots
	t := c.t
	if et := c.t.envTrees[env]; et != nil && env != c.t.env {
		t = et
	}
	f := t.bySLS(sls)
	if f == nil {
		// whatever the missing file declares is unknown
		c.generator = true
		if from != nil && !strings.Contains(sls, sp.Unknown) && !c.t.elsewhere(sls) {
			c.fail(c.missingInclude(t, sls, env, from, cond))
		}
		return nil
	}
	c.files = append(c.files, f)
	if f.generator {
		c.generator = true
	}
	st := newHigh()
	if !c.dry {
		for _, d := range f.ids {
			if _, dup := st.m[d.id]; dup {
				// both branches of a template condition: keep the first,
				// and what only the other declares stays a maybe
				c.shadow(d)
				continue
			}
			b := newBody(d)
			b.cond = cond || f.p.InAltNode(d.key)
			st.put(b)
		}
		st.extends = append(st.extends, f.extends...)
		st.excludes = append(st.excludes, f.excludes...)
	}
	for _, inc := range f.includes {
		name := inc.name
		if strings.Contains(name, sp.Unknown) {
			c.generator = true
			continue
		}
		if strings.HasPrefix(name, ".") {
			var ok bool
			if name, ok = relInclude(sls, f.init, name); !ok {
				c.fail(&problem{at: inc.node2spanIn(f), sev: 1, code: "missing-include", refuses: true,
					msg: fmt.Sprintf("Attempted relative include of '%s' within SLS 'base:%s' goes beyond top level package ", inc.name, sls)})
				continue
			}
		}
		targets := []string{name}
		if hasGlob(name) {
			targets = nil
			for _, a := range c.t.avail() {
				if fnmatch(a, name) {
					targets = append(targets, a)
				}
			}
			if len(targets) == 0 {
				targets = []string{name}
			}
		}
		for _, tgt := range targets {
			tenv := inc.env
			if tenv == "" || strings.Contains(tenv, sp.Unknown) {
				tenv = env
			}
			if c.mods[modKey(tenv, tgt)] {
				continue
			}
			ninc := *inc
			ninc.f = f
			if ninc.env == "" {
				ninc.env = env
			}
			nst := c.renderState(tgt, &ninc, depth+1, cond || f.p.InAltNode(inc.node))
			if nst == nil {
				continue
			}
			for _, id := range nst.ids {
				b := nst.m[id]
				b.includedFrom = append(b.includedFrom, sls)
			}
			c.merge(st, nst)
		}
	}
	if c.auto {
		for _, id := range st.ids {
			b := st.m[id]
			for _, s := range b.states {
				if s.bad || s.null {
					continue
				}
				found := false
				for _, a := range s.args {
					if a.key == "order" {
						found = true
					}
				}
				if !found && s.autoOrder == 0 {
					s.autoOrder = c.iorder
					c.iorder++
				}
			}
		}
	}
	return st
}

// missingInclude is the problem of an include (or a top file's entry)
// no file root of the tree holds. Its severity says who can know: a
// file of a package the workspace has is this repository's problem (an
// error; a warning when only some renders include it); another package
// may come from outside the workspace, and the repository's master
// configuration says from where: gitfs remotes or file roots outside
// the workspace that may serve it (information naming them, and how to
// make them known), or nothing else at all (every root is in the
// workspace, no gitfs, no other backend: an error). Without a
// configuration it is a warning: another formula's file root?
func (c *compiler) missingInclude(t *tree, sls, env string, from *include, cond bool) *problem {
	p := &problem{at: from.node2span(), sev: 1, code: "missing-include", refuses: true,
		msg: fmt.Sprintf("Specified SLS %s in saltenv %s is not available on the salt master or through a configured fileserver", sls, env)}
	if from.f != nil && (cond || from.f.p.InAltNode(from.node)) {
		p.sev = 2
		p.msg += " (" + condIncludeHint + ")"
	}
	top := strings.SplitN(sls, ".", 2)[0]
	cfg := t.cfg
	missingTop := !t.hasPkg(top)
	named, others := cfg.remotesFor(sls, !missingTop)
	knownEnv := false
	if cfg != nil {
		for _, e := range cfg.envs {
			knownEnv = knownEnv || e.name == env
		}
	}
	nothing := fmt.Sprintf("nothing named '%s' in %s", top, t.displayAll())
	switch {
	case env != "base" && from.f != nil && from.f.top && !knownEnv:
		// a top file's environment other than base: its file
		// roots are its own (a gitfs branch, another directory:
		// irtnog/salt-states keeps only top.sls on master)
		p.sev = 3
		p.msg += fmt.Sprintf(" (saltenv %s has file roots of its own, not known here: name them under file_roots: %s: in a master configuration of the repository to have them read)", env, env)
	case len(named) > 0:
		// a gitfs remote named after the package (or mounted where
		// the file would be)
		p.sev = 3
		p.msg += fmt.Sprintf(" (%s; %s)", nothing, remotesNote(named))
	case missingTop && cfg.servesOthersIn(env):
		// another formula, and the repository's master serves
		// file roots outside the workspace: it may come from one
		// of them (a missing file of a package this root has is
		// still this root's problem)
		p.sev = 3
		p.msg += fmt.Sprintf(" (%s; %s)", nothing, cfg.configNote(top))
	case len(others) > 0:
		p.sev = 3
		p.msg += fmt.Sprintf(" (%s; %s)", nothing, remotesNote(others))
	case missingTop && cfg.closed(env):
		// the configuration says all the master serves, and that
		// is in the workspace
		p.msg += fmt.Sprintf(" (%s; %s)", nothing, cfg.closedNote(env))
	case missingTop && cfg.gitOn():
		// git is on, its remotes are configured where the
		// repository does not say
		p.sev = 3
		p.msg += fmt.Sprintf(" (%s; the repository's master configuration (%s) serves gitfs remotes it does not name: it may come from one of them)", nothing, cfg.backendWhere)
	case missingTop && cfg != nil && len(cfg.others) > 0:
		p.sev = 3
		p.msg += fmt.Sprintf(" (%s; the repository's master configuration (%s) also serves files through the %s fileserver backend, which is not read here: it may come from there)", nothing, cfg.backendWhere, strings.Join(cfg.others, ", "))
	case missingTop:
		// another formula, most likely in another file root
		p.sev = 2
		p.msg += fmt.Sprintf(" (%s: %s)", nothing, anotherRootHint)
	}
	// Salt refuses the run when the SLS is nowhere; when it may come from
	// outside the workspace (information), the run goes on with states we
	// cannot see, so the order of the others is still what runs.
	p.refuses = p.sev != 3
	return p
}

// remotesNote names the gitfs remotes that may serve an SLS and how to
// make one known.
func remotesNote(rs []gitRemote) string {
	var names []string
	for _, r := range rs {
		n := r.url + " (" + r.where + ")"
		if r.mountpoint != "" {
			n = r.url + " mounted at salt://" + r.mountpoint + " (" + r.where + ")"
		}
		names = append(names, n)
	}
	which := "the gitfs remote " + names[0] + " may serve it"
	if len(names) > 1 {
		which = "one of the gitfs remotes " + strings.Join(names, ", ") + " may serve it"
	}
	return which + ", which is not in the workspace: clone it into the workspace (a folder named " + rs[0].name + ") to have it read as a file root"
}

var relRe = lazyre.New(`^(\.+)(.*)$`)

// relInclude resolves a relative include (`.x`, `..x`) written in SLS sls
// (an init.sls when init): false when it climbs above the top package.
func relInclude(sls string, init bool, name string) (string, bool) {
	m := relRe.FindStringSubmatch(name)
	levels, rest := len(m[1]), m[2]
	comps := strings.Split(sls, ".")
	if init {
		comps = append(comps, "init")
	}
	if levels > len(comps) {
		return "", false
	}
	name = strings.Join(append(append([]string{}, comps[:len(comps)-levels]...), rest), ".")
	return strings.TrimSuffix(name, "."), true
}

// anotherRootHint ends the message of an include whose package the file
// root does not have.
const anotherRootHint = "another formula's file root?"

// condIncludeHint ends the message of an include only some renders make.
const condIncludeHint = "this include is in a branch of a condition decided on the machine"

// shadow records the names a hidden alternative declaration would give
// (its ID, its name: and names: values): requisites on them are maybes.
func (c *compiler) shadow(d *idDecl) {
	c.hidden = append(c.hidden, d)
	if c.shadowNames == nil {
		c.shadowNames = map[string]bool{}
	}
	c.shadowNames[d.id] = true
	for _, sd := range d.decls {
		for _, a := range sd.args {
			switch {
			case a.key == "name" && a.val != nil && a.val.Kind == sp.Scalar:
				c.shadowNames[a.val.Value] = true
			case a.key == "names" && a.val != nil && a.val.Kind == sp.Seq:
				for _, it := range a.val.Items {
					if it.Kind == sp.Scalar {
						c.shadowNames[it.Value] = true
					} else if it.Kind == sp.Map && len(it.Keys) > 0 {
						c.shadowNames[it.Keys[0].Value] = true
					}
				}
			}
		}
	}
}

func (inc *include) node2span() source.Span {
	if inc.f == nil {
		return source.Span{}
	}
	return source.Span{URI: inc.f.file.URI, Start: inc.node.Start, End: inc.node.End}
}

func (inc *include) node2spanIn(f *sfile) source.Span {
	return source.Span{URI: f.file.URI, Start: inc.node.Start, End: inc.node.End}
}

// merge is merge_included_states: extends and excludes accumulate, IDs
// must be globally unique.
func (c *compiler) merge(into, st *high) {
	into.extends = append(into.extends, st.extends...)
	into.excludes = append(into.excludes, st.excludes...)
	for _, id := range st.ids {
		nb := st.m[id]
		if ob, ok := into.m[id]; ok && ob != nb {
			conditional := strings.Contains(id, sp.Unknown) || ob.cond || nb.cond
			if conditional && ob.decl != nb.decl && ob.cond != nb.cond && !strings.Contains(id, sp.Unknown) {
				// one declaration is in every render, the other only in
				// those that take its branch: those renders have both
				// and Salt refuses them; the others have the first. The
				// model keeps the one every render has (an extend of it
				// must find its states).
				always, maybe := ob, nb
				if ob.cond {
					always, maybe = nb, ob
				}
				msg := fmt.Sprintf("Detected conflicting IDs, SLS IDs need to be globally unique.\n    The conflicting ID is '%s' and is found in SLS 'base:%s' and SLS 'base:%s'\n%s", id, ob.sls, nb.sls, declBranchNote(maybe.decl))
				c.fail(&problem{at: maybe.f.span(maybe.decl.key), sev: 2, code: "conflicting-id", msg: msg,
					related: []relatedSpan{{always.f.span(always.decl.key), fmt.Sprintf("'%s' is also declared in SLS 'base:%s', in every render", id, always.sls)}}})
				c.shadowed[maybe.sls] = true
				c.shadow(maybe.decl)
				if always == ob {
					continue
				}
				into.put(nb)
				continue
			}
			if conditional && ob.decl != nb.decl {
				// alternatives (no render has both): the first stays in
				// this model, as the first branch of an if does in one
				// file (the including file's own state, say, over one a
				// conditional include brings); requisites on what only
				// the hidden one names, and `sls:` requisites on its
				// file, stay open
				c.shadowed[nb.sls] = true
				c.shadow(nb.decl)
				continue
			}
			if ob.decl != nb.decl && !conditional {
				msg := fmt.Sprintf("Detected conflicting IDs, SLS IDs need to be globally unique.\n    The conflicting ID is '%s' and is found in SLS 'base:%s' and SLS 'base:%s'", id, ob.sls, nb.sls)
				// reported on both declarations, each pointing at the other
				c.fail(&problem{at: nb.f.span(nb.decl.key), sev: 1, code: "conflicting-id", refuses: true, msg: msg,
					related: []relatedSpan{{ob.f.span(ob.decl.key), fmt.Sprintf("'%s' is also declared in SLS 'base:%s'", id, ob.sls)}}})
				c.fail(&problem{at: ob.f.span(ob.decl.key), sev: 1, code: "conflicting-id", refuses: true, msg: msg,
					related: []relatedSpan{{nb.f.span(nb.decl.key), fmt.Sprintf("'%s' is also declared in SLS 'base:%s'", id, nb.sls)}}})
			}
		}
		into.put(nb)
	}
}

func (f *sfile) span(n *sp.Node) source.Span {
	if n == nil {
		return source.Span{URI: f.file.URI}
	}
	return source.Span{URI: f.file.URI, Start: n.Start, End: n.End}
}

func newBody(d *idDecl) *body {
	b := &body{id: d.id, sls: d.f.sls, f: d.f, decl: d}
	for _, sd := range d.decls {
		b.states = append(b.states, newHState(sd))
	}
	return b
}

func newHState(sd *stDecl) *hstate {
	h := &hstate{module: sd.module, decl: sd, funAt: sd.funNode, null: sd.null, bad: sd.notList, args: sd.args}
	h.funs = append(h.funs, sd.funs...)
	return h
}

func cloneArg(a *arg) *arg {
	cp := *a
	cp.reqs = append([]*reqEntry(nil), a.reqs...)
	return &cp
}

// reconcileExtend is State.reconcile_extend.
func (c *compiler) reconcileExtend(h *high, exts []*extension, strict bool) {
	var sexcl []string
	for _, ex := range h.excludes {
		if ex.kind == "sls" {
			sexcl = append(sexcl, ex.name)
		}
	}
	for _, ext := range exts {
		if len(ext.states) == 0 {
			continue
		}
		name := ext.id
		stateType := ext.states[0].module
		b := h.m[name]
		if b == nil || b.state(stateType) == nil {
			ids := findName(name, stateType, h, strict)
			if len(ids) != 1 {
				if strings.Contains(name, sp.Unknown) || c.generator || couldBe(h, name, stateType) {
					continue
				}
				p := &problem{at: ext.at, sev: 1, code: "extend-missing", refuses: true, target: name, targetMod: stateType,
					msg: fmt.Sprintf("Cannot extend ID '%s' in 'base:%s'. It is not part of the high state.\nThis is likely due to a missing include statement or an incorrectly typed ID.\nEnsure that a state with an ID of '%s' is available\nin environment 'base' and to SLS '%s'", name, ext.sls, name, ext.sls)}
				if note := placeBranchNote(ext.f, ext.at.Start); note != "" && ext.at.URI == ext.f.file.URI {
					// written in a branch: only the renders that take it
					p.sev, p.refuses = 2, false
					p.msg += "\n" + note
				}
				c.fail(p)
				continue
			}
			name = ids[0]
			b = h.m[name]
		}
		excluded := false
		for _, s := range sexcl {
			if s == ext.sls {
				excluded = true
			}
		}
		if excluded {
			continue
		}
		for _, es := range ext.states {
			hs := b.state(es.module)
			if hs == nil {
				ns := &hstate{module: es.module, funs: es.funs, funAt: es.funAt, decl: es.decl}
				for _, a := range es.args {
					ns.args = append(ns.args, cloneArg(a))
				}
				b.states = append(b.states, ns)
				continue
			}
			if len(es.funs) > 0 {
				// replacing the function
				hs.funs = append([]string(nil), es.funs...)
				hs.funAt = es.funAt
			}
			hs.own()
			for _, a := range es.args {
				update := false
				for i, old := range hs.args {
					if old.key == a.key {
						if requisiteKeywords[a.key] {
							merged := cloneArg(old)
							merged.reqs = append(merged.reqs, a.reqs...)
							hs.args[i] = merged
						} else {
							na := cloneArg(a)
							hs.args[i] = na
						}
						update = true
					}
					if a.key == "name" && old.key == "names" {
						hs.args[i] = cloneArg(a)
					}
				}
				if !update {
					hs.args = append(hs.args, cloneArg(a))
				}
			}
		}
	}
}

// requisiteKeywords is STATE_REQUISITE_KEYWORDS.
var requisiteKeywords = map[string]bool{
	"onchanges": true, "onchanges_any": true, "onfail": true, "onfail_any": true, "onfail_all": true,
	"onfail_stop": true, "prereq": true, "prerequired": true, "watch": true, "watch_any": true,
	"require": true, "require_any": true, "listen": true,
}

// extension is one extend entry (from `extend:` or from an _in requisite).
type extension struct {
	id     string
	sls    string
	at     source.Span
	states []*hstate
	key    *sp.Node
	f      *sfile
}

// couldBe reports whether a templated ID or name in h could turn out to
// be name (so an extend of it may work on the machine).
func couldBe(h *high, name, state string) bool {
	if b := h.m[name]; b != nil && b.state(sp.Unknown) != nil {
		return true
	}
	for _, id := range h.ids {
		b := h.m[id]
		for _, s := range b.states {
			if s.module != state && !strings.Contains(s.module, sp.Unknown) {
				continue
			}
			if strings.Contains(id, sp.Unknown) && fnmatch(name, id) {
				return true
			}
			if na := s.argLast("name"); na != nil && na.val != nil && strings.Contains(na.val.Value, sp.Unknown) && fnmatch(name, na.val.Value) {
				return true
			}
		}
	}
	return false
}

// findName is salt.state.find_name.
func findName(name, state string, h *high, strict bool) []string {
	check2 := true
	if strict {
		check2 = h.m[name] != nil && h.m[name].state(state) != nil
	}
	if h.m[name] != nil && check2 {
		return []string{name}
	}
	var out []string
	if state == "sls" {
		for _, id := range h.ids {
			if h.m[id].sls == name {
				out = append(out, id)
			}
		}
		return out
	}
	for _, id := range h.ids {
		s := h.m[id].state(state)
		if s == nil {
			continue
		}
		for _, a := range s.args {
			if v, ok := a.val.Str(); ok && v == name && a.val.Kind == sp.Scalar {
				out = append(out, id)
			}
		}
	}
	return out
}

// verifyHigh is State.verify_high (3006/3007): structure, and the one
// recursion check Salt makes before running (two states requiring each
// other directly with the right state modules).
func (c *compiler) verifyHigh(h *high, master bool) {
	// The recursion check of verify_high: two states whose requisite
	// lists name each other with the right modules. (Salt keeps only the
	// last requisite argument of each ID while checking; we keep all.)
	type rqv struct {
		state, mod, key string
		e               *reqEntry
	}
	seen := map[[2]string]rqv{}
	for _, id := range h.ids {
		b := h.m[id]
		for _, s := range b.states {
			var at source.Span
			if s.null || s.bad || len(s.funs) != 1 {
				at = b.f.span(b.decl.key)
				if s.decl != nil && s.decl.modNode != nil {
					at = b.f.span(s.decl.modNode)
				}
			}
			if s.null {
				c.fail(&problem{at: at, sev: 1, code: "structure", refuses: true,
					msg: fmt.Sprintf("ID '%s' in SLS '%s' contains a short declaration (%s) with a trailing colon. When not passing any arguments to a state, the colon must be omitted.", id, b.sls, s.module)})
				continue
			}
			if s.bad {
				c.fail(&problem{at: at, sev: 1, code: "structure", refuses: true,
					msg: fmt.Sprintf("State '%s' in SLS '%s' is not formed as a list", id, b.sls)})
				continue
			}
			for _, a := range s.args {
				if !(a.key == "require" || a.key == "watch" || a.key == "prereq" || a.key == "onchanges") {
					continue
				}
				if a.val != nil && a.val.Kind != sp.Seq && a.via == "" && !a.val.HasUnknown() &&
					!(a.keyNode != nil && b.decl != nil && b.decl.entry != nil && opaqueIn(b.f, a.keyNode.End, b.decl.entry.End)) {
					// (template output nobody knows after the key, a
					// macro writing the list items, may well be a list)
					c.fail(&problem{at: b.f.span(a.keyNode), sev: 1, code: "structure", refuses: true,
						msg: fmt.Sprintf("The %s statement in state '%s' in SLS '%s' needs to be formed as a list", a.key, id, b.sls)})
					continue
				}
				if master {
					continue
				}
				for _, e := range a.reqs {
					if e.bad != "" || e.inFrom != nil {
						continue
					}
					if strings.Contains(id, sp.Unknown) || strings.Contains(e.target, sp.Unknown) {
						// `role_{{ loop.index }}` requiring `role_{{ loop.index - 1 }}`
						// in a loop over data nobody knows: the same text, two values
						continue
					}
					seen[[2]string{id, e.target}] = rqv{state: s.module, mod: e.mod, e: e, key: a.key}
					other, ok := seen[[2]string{e.target, id}]
					if ok && other.mod == s.module && other.state == e.mod && !exclusive(e, other.e) {
						p := &problem{at: e.span, sev: 1, code: "cycle", refuses: true,
							msg: fmt.Sprintf("A recursive requisite was found, SLS \"%s\" ID \"%s\" ID \"%s\"", b.sls, id, e.target)}
						if when := armsText(append(armsOf(e), armsOf(other.e)...)); when != "" {
							// only renders that take these branches
							p.sev, p.refuses = 2, false
							p.msg += "\nwhen " + when
						}
						p.related = append(p.related,
							relatedSpan{e.span, fmt.Sprintf("%s %s %s: %s", id, a.key, e.mod, e.target)},
							relatedSpan{other.e.span, fmt.Sprintf("%s %s %s: %s", e.target, other.key, other.mod, id)})
						c.fail(p)
					}
				}
			}
			// functions that are template output may be arguments
			nfun := 0
			var known []string
			for _, fn := range s.funs {
				if !strings.Contains(fn, sp.Unknown) {
					nfun++
					known = append(known, fn)
				}
			}
			if nfun == 0 && len(s.funs) > 0 {
				continue
			}
			if nfun == 0 && b.state(sp.Unknown) != nil {
				// an extend (or _in) of a state whose body is template
				// output: its function is in that output
				continue
			}
			if nfun == 0 {
				if s.module == "require" || s.module == "watch" {
					continue
				}
				if strings.Contains(s.module, sp.Unknown) {
					continue
				}
				c.fail(&problem{at: at, sev: 1, code: "structure", refuses: true,
					msg: fmt.Sprintf("No function declared in state '%s' in SLS '%s'", id, b.sls)})
			} else if nfun > 1 && uniq(known) > 1 {
				c.fail(&problem{at: at, sev: 1, code: "structure", refuses: true,
					msg: fmt.Sprintf("Too many functions declared in state '%s' in SLS '%s'. Please choose one of the following: %s", id, b.sls, strings.Join(known, ", "))})
			}
		}
	}
}

func uniq(ss []string) int {
	m := map[string]bool{}
	for _, s := range ss {
		m[s] = true
	}
	return len(m)
}

// requisiteIn is State.requisite_in: _in declarations become requisites of
// their targets (through a strict extend), prereq adds prerequired to its
// target, use/use_in copy arguments.
func (c *compiler) requisiteIn(h *high) {
	type extKey struct{ id string }
	var order []string
	exts := map[string]*extension{}
	getExt := func(name, mod, sls string, f *sfile, at source.Span) *hstate {
		e := exts[name]
		if e == nil {
			e = &extension{id: name, sls: sls, at: at, f: f}
			exts[name] = e
			order = append(order, name)
		}
		for _, s := range e.states {
			if s.module == mod {
				return s
			}
		}
		s := &hstate{module: mod}
		e.states = append(e.states, s)
		return s
	}
	addReq := func(s *hstate, rkey string, re *reqEntry) {
		for _, a := range s.args {
			if a.key == rkey {
				for _, x := range a.reqs {
					if x.mod == re.mod && x.target == re.target && x.inFrom != nil && re.inFrom != nil && x.inFrom.span == re.inFrom.span {
						return
					}
				}
				a.reqs = append(a.reqs, re)
				return
			}
		}
		s.args = append(s.args, &arg{key: rkey, reqs: []*reqEntry{re}, via: re.inFrom.key, f: re.f})
	}
	reqIn := map[string]bool{"require_in": true, "watch_in": true, "onfail_in": true, "onchanges_in": true,
		"use": true, "use_in": true, "prereq": true, "prereq_in": true}
	reqInAll := map[string]bool{"require": true, "watch": true, "onfail": true, "onfail_stop": true, "onchanges": true}
	for k := range reqIn {
		reqInAll[k] = true
	}
	for _, id := range h.ids {
		b := h.m[id]
		for _, s := range b.states {
			for _, a := range s.args {
				if !reqIn[a.key] {
					continue
				}
				rkey := strings.SplitN(a.key, "_", 2)[0]
				var hinges []*reqEntry
				for _, e := range a.reqs {
					if e.bad != "" {
						continue
					}
					ind := e
					if e.mod == "id" && e.bare {
						// bare name: the first state of that ID, or a state named so
						if t := h.m[e.target]; t != nil && len(t.states) > 0 {
							cp := *e
							cp.mod = t.states[0].module
							ind = &cp
						} else {
							found := false
							for _, oid := range h.ids {
								for _, os := range h.m[oid].states {
									if na := os.argLast("name"); na != nil && na.val.Value == e.target {
										cp := *e
										cp.mod, cp.target = os.module, oid
										ind = &cp
										found = true
									}
								}
							}
							if !found {
								continue
							}
						}
					}
					if strings.Contains(ind.mod, sp.Unknown) {
						// `- {{ kind }}: target`: any module of that ID
						t := h.m[ind.target]
						if t == nil || len(t.states) == 0 {
							continue
						}
						cp := *ind
						cp.mod = t.states[0].module
						ind = &cp
					}
					if ind.mod == "sls" {
						hinges = hinges[:0]
						for _, oid := range h.ids {
							if h.m[oid].sls == ind.target {
								ob := h.m[oid]
								if len(ob.states) > 0 {
									cp := *ind
									cp.mod, cp.target = ob.states[0].module, oid
									hinges = append(hinges, &cp)
								}
							}
						}
					} else {
						hinges = append(hinges, ind)
					}
					for _, hg := range hinges {
						origin := &inOrigin{key: a.key, state: s.module, id: id, span: hg.span}
						back := &reqEntry{mod: s.module, target: id, node: hg.node, span: hg.span, f: hg.f, inFrom: origin}
						switch a.key {
						case "prereq_in":
							// prerequired on the declaring state, and (no
							// continue in requisite_in) prereq on the target
							self := getExt(id, s.module, b.sls, b.f, hg.span)
							addReq(self, "prerequired", &reqEntry{mod: hg.mod, target: hg.target, node: hg.node, span: hg.span, f: hg.f, inFrom: origin})
						case "prereq":
							for _, tid := range findName(hg.target, hg.mod, h, true) {
								ts := getExt(tid, hg.mod, b.sls, b.f, hg.span)
								addReq(ts, "prerequired", back)
							}
							continue
						case "use", "use_in":
							c.applyUse(h, a.key, id, s, hg, reqInAll)
							continue
						}
						ts := getExt(hg.target, hg.mod, b.sls, b.f, hg.span)
						addReq(ts, rkey, back)
					}
				}
			}
		}
	}
	var list []*extension
	for _, name := range order {
		list = append(list, exts[name])
	}
	c.reconcileExtend(h, list, true)
}

func (s *hstate) argLast(key string) *arg {
	var out *arg
	for _, a := range s.args {
		if a.key == key {
			out = a
		}
	}
	return out
}

// applyUse copies arguments for use / use_in (never name, names or
// requisites, nor what the receiving state already sets).
func (c *compiler) applyUse(h *high, key, id string, s *hstate, hg *reqEntry, ignore map[string]bool) {
	for _, tid := range findName(hg.target, hg.mod, h, true) {
		ts := h.m[tid].state(hg.mod)
		if ts == nil {
			continue
		}
		from, to := ts, s
		if key == "use_in" {
			from, to = s, ts
		}
		to.own()
		have := map[string]bool{"order": to.autoOrder > 0}
		for _, a := range to.args {
			have[a.key] = true
		}
		for _, a := range from.args {
			if ignore[a.key] || have[a.key] || a.key == "name" || a.key == "names" || a.via == "auto" {
				continue
			}
			na := cloneArg(a)
			na.via = key
			to.args = append(to.args, na)
		}
	}
}

// applyExclude is State.apply_exclude.
func (c *compiler) applyExclude(h *high) {
	var exSLS []string
	exID := map[string]bool{}
	for _, ex := range h.excludes {
		switch ex.kind {
		case "sls":
			exSLS = append(exSLS, ex.name)
		case "id":
			exID[ex.name] = true
		}
	}
	for _, id := range h.ids {
		for _, p := range exSLS {
			if fnmatch(h.m[id].sls, p) {
				exID[id] = true
			}
		}
	}
	ids := append([]string(nil), h.ids...)
	for _, id := range ids {
		if exID[id] {
			h.remove(id)
		}
	}
}

// nameIn is the file the chunk's name node is in.
func (ch *chunk) nameIn() *sfile {
	if ch.nameFile != nil {
		return ch.nameFile
	}
	return ch.body.f
}

// orderVal is a chunk's order as written.
type orderVal struct {
	set   bool
	isInt bool
	num   float64
	str   string
	auto  bool
	arg   *arg
}

// chunk is one low chunk: what Salt executes.
type chunk struct {
	state, fun, id, name string
	sls                  string
	includedFrom         []string
	body                 *body
	hs                   *hstate
	nameNode             *sp.Node // the name:/names: entry, nil when the name is the ID
	nameFile             *sfile   // the file nameNode is in (an extend's may be another)
	nameIndex            int
	ov                   orderVal
	order                float64
	orderHow             string
	reqs                 reqSet
	watchArg             *arg // the `watch:` argument, for the watch-as-require note
	tag                  string
	tid                  int // index of the first chunk with this tag
	index                int
	prereqFlag           bool
	prerequiredFlag      bool
	watchAsRequire       []*reqEntry
	idDisp, nameDisp     string // templated ID and name as written
	node                 *analysis.Node
}

// compile is State.compile_high_data followed by order_chunks.
func (c *compiler) compile(h *high) []*chunk {
	var chunks []*chunk
	for _, id := range h.ids {
		b := h.m[id]
		for _, s := range b.states {
			if s.bad || s.null || len(s.funs) == 0 {
				continue
			}
			base := &chunk{state: s.module, id: id, name: id, sls: b.sls, includedFrom: b.includedFrom, body: b, hs: s}
			if s.autoOrder > 0 {
				base.ov = orderVal{set: true, isInt: true, num: float64(s.autoOrder), auto: true}
			}
			var names []*sp.Node
			var namesFile []*sfile
			for _, a := range s.args {
				switch a.key {
				case "names":
					if a.val != nil && a.val.Kind == sp.Seq {
						names = append(names, a.val.Items...)
						for range a.val.Items {
							namesFile = append(namesFile, a.f)
						}
					}
				case "state":
				case "name":
					if v, ok := a.val.Str(); ok && a.val.IsString() {
						base.name = v
						base.nameNode, base.nameFile = a.val, a.f
					} else {
						base.name = id
						base.nameNode, base.nameFile = nil, nil
					}
				case "order":
					base.ov = readOrder(a)
				default:
					if k, ok := reqIndex[a.key]; ok {
						prev := base.reqs.lists[k]
						if base.reqs.present&(1<<k) != 0 && len(prev) > 0 && a.f != nil && a.keyNode != nil &&
							a.f.p.InAltNode(a.keyNode) && entryInAlt(prev[0]) {
							// The same requisite in branches of a condition nobody
							// can decide: Salt keeps the last one it renders, and
							// which one that is depends on the machine; every
							// branch's entries are checked.
							base.reqs.set(k, append(append([]*reqEntry(nil), prev...), a.reqs...))
						} else {
							base.reqs.set(k, a.reqs)
						}
						if k == rqWatch {
							base.watchArg = a
						}
					}
				}
			}
			fun := s.funs[0]
			for _, fn := range s.funs {
				if !strings.Contains(fn, sp.Unknown) {
					fun = fn
					break
				}
			}
			if len(names) == 0 {
				ch := *base
				ch.fun = fun
				chunks = append(chunks, &ch)
				continue
			}
			seen := map[string]bool{}
			no := 1
			for i, n := range names {
				ch := *base
				ch.fun = fun
				ch.nameFile = namesFile[i]
				switch n.Kind {
				case sp.Scalar:
					ch.name = n.Value
					ch.nameNode = n
				case sp.Map:
					if len(n.Keys) == 0 {
						continue
					}
					ch.name = n.Keys[0].Value
					ch.nameNode = n.Keys[0]
					if n.Vals[0].Kind == sp.Seq {
						for _, it := range n.Vals[0].Items {
							if it.Kind != sp.Map {
								continue
							}
							for j, k := range it.Keys {
								a := &arg{key: k.Value, keyNode: k, val: it.Vals[j], f: b.f}
								switch {
								case requisiteKeys[a.key]:
									a.reqs = readReqs(b.f, a.val)
									// (the _in forms and use do nothing here)
									if k, ok := reqIndex[a.key]; ok {
										ch.reqs.set(k, a.reqs)
									}
									if a.key == "watch" {
										ch.watchArg = a
									}
								case a.key == "order":
									ch.ov = readOrder(a)
								}
							}
						}
					}
				default:
					continue
				}
				if seen[ch.name] {
					continue
				}
				seen[ch.name] = true
				ch.nameIndex = no
				chunks = append(chunks, &ch)
				no++
			}
		}
	}
	for _, ch := range chunks {
		ch.idDisp = dispKey(ch.body.f, ch.body.decl.key)
		ch.nameDisp = ch.idDisp
		if ch.nameNode != nil {
			ch.nameDisp = dispKey(ch.nameIn(), ch.nameNode)
		}
	}
	orderChunks(chunks)
	tids := make(map[string]int, len(chunks))
	for i, ch := range chunks {
		ch.index = i
		ch.tag = ch.state + "_|-" + ch.id + "_|-" + ch.name + "_|-" + ch.fun
		if t, ok := tids[ch.tag]; ok {
			ch.tid = t
		} else {
			tids[ch.tag] = i
			ch.tid = i
		}
	}
	return chunks
}

// The requisite keys a chunk can carry, indexes of reqKeyOrder.
const (
	rqRequire = iota
	rqRequireAny
	rqWatch
	rqWatchAny
	rqPrereq
	rqPrerequired
	rqOnfail
	rqOnfailAny
	rqOnfailAll
	rqOnfailStop
	rqOnchanges
	rqOnchangesAny
	rqListen
	rqListenIn
	nReq
)

// reqKeyOrder is every requisite key a chunk can carry, in a fixed order
// (map order would make edges and cycle paths differ between runs).
var reqKeyOrder = [nReq]string{"require", "require_any", "watch", "watch_any", "prereq", "prerequired",
	"onfail", "onfail_any", "onfail_all", "onfail_stop", "onchanges", "onchanges_any", "listen", "listen_in"}

var reqIndex = func() map[string]int {
	m := map[string]int{}
	for i, k := range reqKeyOrder {
		m[k] = i
	}
	return m
}()

// reqSet is a chunk's requisites by key (Salt's low chunk keys): a key
// may be present with an empty list.
type reqSet struct {
	lists   [nReq][]*reqEntry
	present uint16
}

func (r *reqSet) get(k int) []*reqEntry { return r.lists[k] }
func (r *reqSet) has(k int) bool        { return r.present&(1<<k) != 0 }
func (r *reqSet) set(k int, l []*reqEntry) {
	r.lists[k] = l
	r.present |= 1 << k
}
func (r *reqSet) del(k int) {
	r.lists[k] = nil
	r.present &^= 1 << k
}

func readOrder(a *arg) orderVal {
	ov := orderVal{set: true, arg: a, auto: a.via == "auto"}
	if a.val == nil {
		return ov
	}
	if n, ok := a.val.Int(); ok {
		ov.isInt, ov.num = true, float64(n)
		return ov
	}
	if f, ok := a.val.Float(); ok {
		ov.num = f
		ov.str = "float"
		return ov
	}
	ov.str = a.val.Value
	return ov
}

// orderChunks is State.order_chunks.
func orderChunks(chunks []*chunk) {
	capv := 1.0
	for _, ch := range chunks {
		if ch.ov.set && ch.ov.isInt {
			if ch.ov.num > capv-1 && ch.ov.num > 0 {
				capv = ch.ov.num + 100
			}
		}
	}
	for _, ch := range chunks {
		switch {
		case !ch.ov.set:
			ch.order = capv
			ch.orderHow = "default"
			continue
		case ch.ov.isInt || ch.ov.str == "float":
			ch.order = ch.ov.num
			ch.orderHow = "explicit"
			if ch.ov.auto {
				ch.orderHow = "auto"
			}
		case ch.ov.str == "last":
			ch.order = capv + 1000000
			ch.orderHow = "last"
		case ch.ov.str == "first":
			ch.order = 0
			ch.orderHow = "first"
		default:
			ch.order = capv
			ch.orderHow = "default"
		}
		if ch.nameIndex > 0 {
			ch.order += float64(ch.nameIndex) / 10000.0
		}
		if ch.order < 0 {
			ch.order = capv + 1000000 + ch.order
			ch.orderHow = "negative"
		}
	}
	sort.SliceStable(chunks, func(i, j int) bool {
		a, b := chunks[i], chunks[j]
		if a.order != b.order {
			return a.order < b.order
		}
		return a.state+a.name+a.fun < b.state+b.name+b.fun
	})
}
