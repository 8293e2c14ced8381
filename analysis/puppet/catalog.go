package puppet

import (
	"fmt"
	"hash/maphash"
	"strings"
	"unique"

	"github.com/ordering-lsp/ordering-lsp/analysis"
	pp "github.com/ordering-lsp/ordering-lsp/parser/puppet"
	"github.com/ordering-lsp/ordering-lsp/source"
)

// A run's catalog: resource declarations evaluated into it (declare:
// duplicates, aliases, ensure_resource), and references resolved against
// it (by key, by alias, by a title pattern).

// resource evaluates `type { title: attrs; ... }`.
func (r *run) resource(e *env, t *pp.Resource, at source.Span) val {
	unused := r.unused // (not for a resource in an attribute's value)
	r.unused = false
	out := val{k: vRes, at: at}
	if !unused {
		out.x = &valX{}
	}
	typName := strings.TrimPrefix(strings.ToLower(t.Type), "::")
	if t.TypeExpr != nil {
		v := r.eval(e, t.TypeExpr)
		s, ok := v.text()
		if v.k == vTypeName { // Resource[Notify] { ... }
			s, ok = v.s, true
		}
		if !ok || (v.k != vStr && v.k != vTypeName) {
			return out // a type we cannot know: nothing to order
		}
		typName = strings.TrimPrefix(strings.ToLower(s), "::")
	}
	if typName != "class" {
		if def := r.a.defineFor(r, typName); def != nil {
			r.link(linkRec{at: r.span(e.f, t.TypeLoc), def: def.name})
		} else if r.strict && !builtinTypes[typName] && !r.a.rubyType(typName) {
			r.diag(r.span(e.f, t.TypeLoc), analysis.Error, "unknown-type", fmt.Sprintf("Unknown resource type: '%s'", typName))
			return out
		}
	}
	// Per-type defaults in the statement: a body titled `default`.
	var bodyDefaults []attr
	for _, b := range t.Bodies {
		if _, ok := b.Title.(*pp.Default); ok {
			bodyDefaults = r.attrs(e, b.Attrs, written)
		}
	}
	for _, b := range t.Bodies {
		if _, ok := b.Title.(*pp.Default); ok {
			continue
		}
		titles := r.eval(e, b.Title)
		attrs := r.attrs(e, b.Attrs, written)
		if len(bodyDefaults) > 0 {
			attrs = append(append([]attr(nil), bodyDefaults...), attrs...)
		}
		decl := r.span(e.f, *b.Title.Span())
		full := e.f.span(b.Loc)
		_, literal := b.Title.(*pp.Array)
		titles.each(func(tv val) {
			// each title of `file { ['/a', '/b']: }` declares its own
			// resource: hover, highlight and hints point at that title
			d := decl
			if at := tv.at; literal && at.URI == decl.URI && at.Start >= decl.Start && at.End <= decl.End && at.Start < at.End {
				d = at
			}
			if x := r.declare(e, typName, tv, attrs, d, full, t.Virtual, t.Exported, false); x != nil && !unused {
				out.x.res = append(out.x.res, x)
			}
		})
	}
	return out
}

// declare puts one resource (or define instance, or class) into the
// catalog. quiet: an existing one is fine (ensure_resource).
func (r *run) declare(e *env, typName string, tv val, attrs []attr, decl source.Span, full span, virtual, exported, quiet bool) *res {
	title, ok := tv.text()
	if tv.k == vUnknown {
		title = "*"
	}
	if typName == "class" {
		if !ok {
			r.classByUnknownName = true
			return nil
		}
		how := "class"
		if quiet {
			how = "ensure_resource"
		}
		return r.declareClass(e, title, decl, how, attrs)
	}
	def := r.a.defineFor(r, typName)
	typ := capType(typName)
	x := r.newRes(typ, title, "resource", decl)
	if !ok {
		// A title built from what nobody knows here is shown as written
		// (`File[$confd_dir]`), not as the pattern it matches by
		// (`File[*]`): many such resources would all read the same.
		if w := writtenTitle(e.f, decl); w != "" {
			x.display = refString(typ, w)
		}
	}
	x.full = full
	x.attrs = attrs[:len(attrs):len(attrs)] // titles of one body share attrs: appends must not
	x.virtual = virtual
	x.exported = exported
	x.scope = e.sc
	x.container = e.sc.owner
	x.spec = e.spec
	x.cond = e.cond
	x.parentSym = e.sym
	x.pat = !ok
	if typ == "Stage" {
		x.kind = "stage"
		r.stages[title] = x
		if r.rec != nil {
			r.recFail()
		}
	}
	if def != nil {
		x.kind = "define"
		x.define = def
		x.more().params = attrs
	}
	prev := r.byKey[x.key]
	if r.rec != nil {
		r.observe1(obs{m: 'k', key: x.key, dup: true}, prev, prev != nil)
	}
	if prev == nil {
		prev = r.aliases[x.key]
		if r.rec != nil {
			r.observe('a', x.key, prev)
		}
	}
	if prev != nil && r.probing {
		r.probes = append(r.probes, probeHash(x.key)) // (as lookup2: ensure_resource found it)
	}
	if prev != nil && r.rec != nil {
		// The catalog had it before the body: one more site of it, and
		// the duplicate's message reads where it was first declared.
		r.recAlt(prev, x.key, e.cond)
		if ok && !x.spec && !quiet {
			d := prev.decl
			r.observe1(obs{m: 's', key: x.key, decl: &d}, prev, prev.spec)
		}
	}
	if prev != nil {
		// It exists in the runs that take either place.
		prev.more().alts = append(prev.alternatives(), e.cond)
		if ok && !x.spec && !prev.spec && !quiet {
			r.diagLines(decl, analysis.Error, "duplicate",
				fmt.Sprintf("Duplicate declaration: %s is already declared at (file: %s, line: %s); cannot redeclare (file: %s, line: %s)",
					x.display, r.a.displayPath(prev.decl.URI), analysis.LineMark(prev.decl), r.a.displayPath(decl.URI), analysis.LineMark(decl)),
				analysis.Related{At: prev.decl, Message: "first declared here"})
		}
		r.prio--
		if quiet {
			return prev
		}
		return nil
	}
	if len(r.resources) > maxResources {
		r.prio--
		return nil
	}
	for _, a := range attrs {
		if a.name == "stage" && typ != "Stage" {
			r.diag(a.nameAt.Span(), analysis.Error, "evaluation", fmt.Sprintf("Only classes can set 'stage'; normal resources like %s cannot change run stage", x.display))
		}
	}
	r.add(x)
	r.addAliases(x)
	if !ok {
		r.patterns = append(r.patterns, x)
	}
	if def != nil && !x.virtual {
		r.pending = append(r.pending, x)
	}
	return x
}

// namevars by type: a resource can also be referenced by its namevar.
var namevar = map[string]string{"File": "path", "Exec": "command", "Package": "name", "Service": "name", "User": "name", "Group": "name", "Host": "name", "Mount": "name", "Cron": "name"}

func (r *run) addAliases(x *res) {
	nv := namevar[x.typ]
	for _, a := range x.attrs {
		if a.name == "alias" || (nv != "" && a.name == nv && x.typ != "Exec") {
			var lbuf [1]val
			for _, v := range a.v.items(&lbuf) {
				if s, ok := v.text(); ok && s != "" {
					k := refString(x.typ, canonTitle(x.typ, s))
					if k != x.key {
						r.aliases[k] = x
						if r.rec != nil {
							r.recAlias(k, x)
						}
					}
				}
			}
		}
	}
}

// resolve finds the catalog resource a reference names; a resource
// whose title is a pattern that may match counts too (no edge is drawn
// to it, but the reference is not missing).
func (r *run) resolve(rf *ref) *res {
	x, _ := r.resolveBoth(rf)
	return x
}

func (r *run) resolveBoth(rf *ref) (*res, bool) {
	x := r.lookupRef(rf)
	if x != nil {
		return x, true
	}
	for _, x := range r.patterns {
		if x.typ == rf.typ && globMatch(x.title, rf.title) {
			if r.rec != nil {
				r.observe1(obs{m: 'p', key: rf.typ, title: rf.title}, x, true)
			}
			return x, false
		}
	}
	if r.rec != nil {
		r.observe1(obs{m: 'p', key: rf.typ, title: rf.title}, nil, false)
	}
	return nil, false
}

func (r *run) lookupRef(rf *ref) *res {
	return r.lookup2(rf.typ, rf.title)
}

// lookup2 finds Type[title] by key or alias (the key is built in a
// reused buffer: map lookups with string(bytes) do not allocate).
//
// The keys asked for are kept for patches (run.probes): a resource of a
// key looked for in vain, added later, would have been found, and one
// found while the catalog was evaluated (defined(), a function, the
// duplicate check) and taken out later would not. (What the graph finds
// draws an edge, which a patch reads.)
func (r *run) lookup2(typ, title string) *res {
	x := r.lookup2Key(typ, title)
	if r.probing && (x == nil || !r.building) {
		r.probes = append(r.probes, uint32(maphash.Bytes(keySeed, r.kbuf)))
	}
	return x
}

func (r *run) lookup2Key(typ, title string) *res {
	ct := canonTitle(typ, title)
	r.kbuf = append(append(append(append(r.kbuf[:0], typ...), '['), ct...), ']')
	if r.rec != nil {
		return r.lookup2Rec(typ, ct)
	}
	if x := r.byKey[string(r.kbuf)]; x != nil {
		return x
	}
	if x := r.aliases[string(r.kbuf)]; x != nil {
		return x
	}
	if typ == "Class" {
		return r.classes[ct]
	}
	return nil
}

// resolvePattern lists the catalog resources a pattern reference may
// name (for go-to-definition). A pattern that is nothing but unknown
// names nothing useful; at most 50 targets are listed. It is asked once
// the catalog is complete, for every link of the run: a define's
// `File[$path]` comes back once per instance (operations-puppet's role
// runs matched each against all their files), so each pattern is
// matched once per run.
func (r *run) resolvePattern(rf *ref) []*res {
	if strings.Trim(rf.title, "*") == "" {
		return nil
	}
	k := [2]string{rf.typ, rf.title}
	if out, ok := r.byPattern[k]; ok {
		return out
	}
	if r.byPattern == nil {
		r.byPattern = map[[2]string][]*res{}
	}
	out := r.matchPattern(rf)
	r.byPattern[k] = out
	if r.probing {
		r.patRefs = append(r.patRefs, unique.Make(refString(rf.typ, rf.title)).Value()) // (runs share them)
	}
	return out
}

func (r *run) matchPattern(rf *ref) []*res {
	if r.byType == nil {
		r.byType = map[string][]*res{}
		for _, x := range r.resources {
			r.byType[x.typ] = append(r.byType[x.typ], x)
		}
	}
	var out []*res
	for _, x := range r.byType[rf.typ] {
		if globMatch(rf.title, x.title) {
			out = append(out, x)
			if len(out) >= 50 {
				break
			}
		}
	}
	return out
}

// writtenTitle is the text of a title's words with their quotes, or ""
// when the span is not one line of the file.
func writtenTitle(f *fileInfo, at source.Span) string {
	if f == nil || f.src == nil || at.URI != f.uri || at.Start < 0 || at.End > len(f.src.Text) || at.Start >= at.End {
		return ""
	}
	w := string(f.src.Text[at.Start:at.End])
	if strings.ContainsAny(w, "\n[]") {
		return ""
	}
	if len(w) >= 2 && (w[0] == '"' || w[0] == '\'') && w[len(w)-1] == w[0] {
		w = w[1 : len(w)-1]
	}
	return w
}
