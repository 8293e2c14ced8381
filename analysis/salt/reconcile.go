package salt

import (
	"fmt"
	"slices"
	"strings"

	"github.com/ordering-lsp/ordering-lsp/analysis"

	sp "github.com/ordering-lsp/ordering-lsp/parser/salt"
	"github.com/ordering-lsp/ordering-lsp/source"
)

// State.reconcile_extend, verify_high, requisite_in and apply_exclude of
// salt/state.py: extends and _in requisites rewrite the high data, then it
// is checked as Salt checks it (see high.go).

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
					msg: fmt.Sprintf("Cannot extend ID '%s' in '%s'. It is not part of the high state.\nThis is likely due to a missing include statement or an incorrectly typed ID.\nEnsure that a state with an ID of '%s' is available\nin environment '%s' and to SLS '%s'", name, modKey(ext.env, ext.sls), name, envName(ext.env), ext.sls)}
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
	env    string // the saltenv of the file that wrote it (__env__)
	at     source.Span
	states []*hstate
	key    *sp.Node
	f      *sfile
}

// emptyOnlyWhere: every item after `module.function:` is written in a
// branch of an undecidable if without an else, so a render taking none of
// them leaves the colon with nothing after it, which Salt refuses ("...
// contains a short declaration (pkg.installed) with a trailing colon").
// bahazero901/saltstack's docker-client gives its name under `if
// os_family == 'RedHat'` and under `if ... == 'Debian'`; salt-order with
// os_family Suse refuses the run so. It returns the words for those
// renders, "" when every render has an item, or when nobody can say
// (a loop, an else, two tests that cannot both fail).
func emptyOnlyWhere(f *sfile, d *stDecl) string {
	if f == nil || f.p == nil || f.p.R == nil || d == nil || d.fun == "" || d.modNode == nil || d.val == nil || d.val.Kind != sp.Seq || len(d.val.Items) == 0 {
		return ""
	}
	keyArms := f.p.R.ArmsAt(d.modNode.Start)
	inKey := func(a sp.Arm) bool {
		return slices.ContainsFunc(keyArms, func(k sp.Arm) bool { return k.Point == a.Point && k.Arm == a.Arm })
	}
	var covering []sp.Arm
	for _, it := range d.val.Items {
		var own []sp.Arm
		if it == nil {
			return ""
		}
		// (the branches it is written in: a loop inside it, over a
		// `watch:` list, is no condition on the item)
		for _, a := range f.p.R.ArmsAt(it.Start) {
			if !inKey(a) {
				own = append(own, a)
			}
		}
		if len(own) == 0 {
			return "" // an item every render of the key has
		}
		for _, a := range own {
			if a.Loop || a.Text == "" {
				return ""
			}
		}
		// the item renders where its innermost branch does; none of
		// that if's branches must be taken for it to go
		a := own[len(own)-1]
		if !slices.ContainsFunc(covering, func(c sp.Arm) bool { return c.Point == a.Point && c.Arm == a.Arm }) {
			covering = append(covering, a)
		}
	}
	for _, a := range covering {
		// an if with an else always takes a branch
		for _, o := range f.p.R.Arms {
			if o.Point == a.Point && int(o.Arm) == len(o.Tests) && o.Arm > 0 {
				return ""
			}
		}
	}
	for i, a := range covering {
		for _, b := range covering[i+1:] {
			for _, t := range a.Tests {
				for _, u := range b.Tests {
					if t.Subj == u.Subj && t.Pos != u.Pos {
						return "" // one of them holds: some item renders
					}
				}
			}
		}
	}
	// `if 'purge' in user or 'force' in user` around the key, an item
	// under each: one always renders (saltstack-formulas' users-formula
	// user.absent, copied by fpco and tony)
	for _, k := range keyArms {
		for _, t := range k.Tests {
			if !t.Pos {
				continue
			}
			parts := orParts(t.Subj)
			all := len(parts) > 1
			for _, p := range parts {
				all = all && slices.ContainsFunc(covering, func(c sp.Arm) bool {
					return len(c.Tests) > 0 && c.Tests[len(c.Tests)-1].Pos && c.Tests[len(c.Tests)-1].Subj == p
				})
			}
			if all {
				return ""
			}
		}
	}
	var words []string
	if len(keyArms) > 0 {
		var bs []analysis.Branch
		for _, a := range keyArms {
			bs = append(bs, arm{f, a})
		}
		if w := armsText(bs); w != "" {
			words = append(words, w)
		}
	}
	for _, a := range covering {
		w := "not (" + strings.Join(strings.Fields(a.Text), " ") + ")"
		if !slices.Contains(words, w) {
			words = append(words, w)
		}
	}
	return strings.Join(words, " and ")
}

// orParts splits an expression at its top-level `or`s (outside brackets
// and quotes), each part with blanks normalised.
func orParts(x string) []string {
	var out []string
	depth, start := 0, 0
	var quote byte
	for i := 0; i < len(x); i++ {
		c := x[i]
		switch {
		case quote != 0:
			if c == '\\' {
				i++
			} else if c == quote {
				quote = 0
			}
		case c == '\'' || c == '"':
			quote = c
		case c == '(' || c == '[' || c == '{':
			depth++
		case c == ')' || c == ']' || c == '}':
			depth--
		case depth == 0 && strings.HasPrefix(x[i:], " or "):
			out = append(out, strings.Join(strings.Fields(x[start:i]), " "))
			start = i + 4
			i += 3
		}
	}
	return append(out, strings.Join(strings.Fields(x[start:]), " "))
}

// fewerArms: the branches text at a lies in are some of those b lies in,
// not all (a renders wherever b does, and in more renders).
func fewerArms(f *sfile, a, b source.Span) bool {
	if f == nil || f.p == nil || f.p.R == nil || a.URI != f.file.URI || b.URI != f.file.URI {
		return false
	}
	aa, bb := f.p.R.ArmsAt(a.Start), f.p.R.ArmsAt(b.Start)
	if len(aa) >= len(bb) {
		return false
	}
	for _, x := range aa {
		if !slices.ContainsFunc(bb, func(y sp.Arm) bool { return x.Point == y.Point && x.Arm == y.Arm }) {
			return false
		}
	}
	return true
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
	failed := map[*sfile]bool{}
	for _, id := range h.ids {
		b := h.m[id]
		if b.f != nil {
			refused, known := failed[b.f]
			if !known {
				refused = yamlRefused(b.f)
				failed[b.f] = refused
			}
			if refused {
				continue
			}
		}
		sid := id // the ID in messages: a templated one as written
		if strings.Contains(id, sp.Unknown) && b.decl != nil && b.decl.key != nil {
			if w := shownAsWritten(b.f, b.decl.key); w != "" {
				sid = w
			}
		}
		for _, s := range b.states {
			var at source.Span
			if s.null || s.bad || len(s.funs) != 1 {
				at = b.f.span(b.decl.key)
				if s.decl != nil && s.decl.modNode != nil {
					at = b.f.span(s.decl.modNode)
				}
			}
			if s.null {
				// Salt names the key as written (`test.nop`): a null
				// value is never split into module and function
				key := s.module
				if s.decl != nil && s.decl.modNode != nil && s.decl.modNode.Value != "" {
					key = s.decl.modNode.Value
				}
				c.structureFail(b.f, at, fmt.Sprintf("ID '%s' in SLS '%s' contains a short declaration (%s) with a trailing colon. When not passing any arguments to a state, the colon must be omitted.", sid, b.sls, key))
				continue
			}
			if s.bad {
				c.structureFail(b.f, at, fmt.Sprintf("State '%s' in SLS '%s' is not formed as a list", sid, b.sls))
				continue
			}
			if when := emptyOnlyWhere(b.f, s.decl); when != "" {
				key := s.decl.modNode.Value
				c.fail(&problem{at: b.f.span(s.decl.modNode), sev: 2, code: "structure",
					msg: fmt.Sprintf("ID '%s' in SLS '%s' contains a short declaration (%s) with a trailing colon. When not passing any arguments to a state, the colon must be omitted.", sid, b.sls, key) + "\n" + rendersNote(when)})
			}
			for _, a := range s.args {
				if a.key == "names" && a.via == "" {
					c.namesList(b, a, sid)
				}
			}
			for _, a := range s.args {
				if !(a.key == "require" || a.key == "watch" || a.key == "prereq" || a.key == "onchanges") {
					continue
				}
				if a.val != nil && a.val.Kind != sp.Seq && a.via == "" && !a.val.HasUnknown() &&
					!(a.keyNode != nil && b.decl != nil && b.decl.entry != nil && opaqueIn(b.f, a.keyNode.End, b.decl.entry.End)) {
					// (template output nobody knows after the key, a
					// macro writing the list items, may well be a list)
					c.structureFail(b.f, b.f.span(a.keyNode), fmt.Sprintf("The %s statement in state '%s' in SLS '%s' needs to be formed as a list", a.key, sid, b.sls))
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
				c.structureFail(b.f, at, fmt.Sprintf("No function declared in state '%s' in SLS '%s'", sid, b.sls))
			} else if nfun > 1 && uniq(known) > 1 {
				c.structureFail(b.f, at, fmt.Sprintf("Too many functions declared in state '%s' in SLS '%s'. Please choose one of the following: %s", sid, b.sls, strings.Join(known, ", ")))
			}
		}
	}
}

// namesList is verify_high's check that `names` is a list: a key left
// empty (`- names:`) or given a mapping or a plain value Salt refuses
// ("The 'names' argument in state 'a' in SLS 'a' needs to be formed as a
// list"). Items only a loop over unknown data (or an undecided if)
// writes leave the key empty where that branch does not render: there
// Salt refuses it, a warning naming the condition (Vlot-Ltd/homelab-
// saltstack's common/debug.sls over an empty mine; a loop with an else
// writing `[]` is its alternative, irtnog's trac/init.sls). Not judged:
// template output after the key.
func (c *compiler) namesList(b *body, a *arg, sid string) {
	v := a.val
	if a.keyNode == nil || b.decl == nil || b.decl.entry == nil || opaqueIn(b.f, a.keyNode.End, b.decl.entry.End) {
		return
	}
	msg := fmt.Sprintf("The 'names' argument in state '%s' in SLS '%s' needs to be formed as a list", sid, b.sls)
	if v != nil && v.Kind == sp.Seq {
		if when := itemsOnlyWhere(b.f, a.keyNode.Start, v); when != "" {
			c.fail(&problem{at: b.f.span(a.keyNode), sev: 2, code: "structure", msg: msg + "\n" + rendersNote(when)})
		}
		return
	}
	if v != nil && v.HasUnknown() {
		return
	}
	c.structureFail(b.f, b.f.span(a.keyNode), msg)
}

// iterSubject: a mapping is truthy where its items(), keys() or values()
// have items.
func iterSubject(s string) string {
	s = strings.TrimSpace(s)
	for _, m := range []string{".items()", ".keys()", ".values()", ".iteritems()"} {
		s = strings.TrimSuffix(s, m)
	}
	return s
}

func sameArm(a, b sp.Arm) bool { return a.Point == b.Point && a.Arm == b.Arm && a.Span == b.Span }

// itemsOnlyWhere: every item of sequence v lies in the same branches of
// undecided conditions (loop bodies over unknown data included) beyond
// those its key at keyOff lies in; it returns where none is written (the
// key's own branches first), "" when some item is always written or
// items lie in different branches (not judged).
func itemsOnlyWhere(f *sfile, keyOff int, v *sp.Node) string {
	if f == nil || f.p == nil || f.p.R == nil || len(v.Items) == 0 {
		return ""
	}
	outer := f.p.R.ArmsAt(keyOff)
	var inner []sp.Arm
	for i, it := range v.Items {
		var extra []sp.Arm
		for _, x := range f.p.R.ArmsAt(it.Start) {
			if !slices.ContainsFunc(outer, func(o sp.Arm) bool { return sameArm(o, x) }) {
				extra = append(extra, x)
			}
		}
		if len(extra) == 0 || i > 0 && !slices.EqualFunc(extra, inner, sameArm) || slices.ContainsFunc(extra, func(x sp.Arm) bool { return x.FromCode }) {
			return ""
		}
		inner = extra
	}
	// a loop whose iterable the key's own condition tests (`{% if files
	// %}` around `{% for f in files %}`) has items wherever the key is
	// written (openSUSE/heroes-salt's profile/sysctl)
	held := map[string]bool{}
	for _, x := range outer {
		for _, t := range x.Tests {
			if t.Pos && !sp.OrOutside(t.Subj) {
				for _, w := range strings.Split(t.Subj, " and ") {
					held[iterSubject(w)] = true
				}
			}
		}
	}
	inner = slices.DeleteFunc(inner, func(x sp.Arm) bool {
		return len(x.Tests) > 0 && !slices.ContainsFunc(x.Tests, func(t sp.ArmTest) bool { return !t.Pos || !held[iterSubject(t.Subj)] })
	})
	if len(inner) == 0 {
		return ""
	}
	for _, x := range f.p.R.Arms {
		// an else (a loop's, or an if's) may write the items instead
		if slices.ContainsFunc(inner, func(o sp.Arm) bool { return o.Point == x.Point && o.Arm != x.Arm }) {
			return ""
		}
	}
	var bs []analysis.Branch
	for _, x := range outer {
		bs = append(bs, arm{f, x})
	}
	var ins []analysis.Branch
	for _, x := range inner {
		ins = append(ins, arm{f, x})
	}
	// (the outer conditions' words first: a loop among them whose
	// variables the inner ones test scopes them)
	return armsText(bs, "not ("+armsText(ins)+")")
}

// yamlRefused: Salt's YAML loader refuses the file (a key given twice in
// a mapping every render has), so its render fails and verify_high never
// sees its states: blacs30/saltstack-config's raspberry/init.sls, where
// salt-order says only "found conflicting ID 'cups'", drew a second error
// for the short declaration above it.
func yamlRefused(f *sfile) bool {
	for _, d := range f.ids {
		if d.dupOf != nil || d.dupKey != nil {
			return true
		}
	}
	return false
}

// structureFail reports a structure error of verify_high. Salt refuses
// only the renders that write the faulty text: one written in a branch of
// an undecidable condition, or in the body of a loop over data nobody
// knows, is a warning naming the condition (gluster.org_salt_states'
// nfs/server.sls, all of it under `{% if salt['pillar.get'](...) %}`:
// salt-order runs it where the pillar is empty, refuses it where not).
func (c *compiler) structureFail(f *sfile, at source.Span, msg string) {
	p := &problem{at: at, sev: 1, code: "structure", refuses: true, msg: msg}
	if f != nil && f.file != nil && at.URI == f.file.URI {
		if note := placeBranchNote(f, at.Start); note != "" {
			p.sev, p.refuses = 2, false
			p.msg += "\n" + note
		}
	}
	c.fail(p)
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
			e = &extension{id: name, sls: sls, env: c.fileEnv[f], at: at, f: f}
			exts[name] = e
			order = append(order, name)
		} else if f == e.f && fewerArms(f, at, e.at) {
			// Salt fails the merged extend wherever any of its _in
			// entries renders: the least conditional one says where
			// (jsatt/saltstates openvpn/init.sls: `watch_in: service:
			// openvpn` under `if client.user_pass` and again in the
			// loop's body; salt-order fails with user_pass empty)
			e.at = at
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
