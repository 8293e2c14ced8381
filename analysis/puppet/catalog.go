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
	core := false // a type Puppet defines (its attributes: attrcheck.go)
	if typName != "class" {
		if def := r.a.defineFor(r, typName); def != nil {
			r.link(linkRec{at: r.span(e.f, t.TypeLoc), def: def.name})
		} else if d := r.a.defines[typName]; d != nil && d.misplaced {
			r.misplacedDefine(e, d, r.span(e.f, t.TypeLoc))
			return out
		} else if !builtinTypes[typName] && !r.a.rubyType(typName) && r.missedType(e, typName) && r.unknownType(e, typName, r.span(e.f, t.TypeLoc)) {
			return out
		} else {
			core = builtinTypes[typName]
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
		if core {
			r.coreAttrs(e, typName, b.Attrs)
		}
		if _, ok := b.Title.(*pp.Default); ok {
			continue
		}
		titles := r.eval(e, b.Title)
		attrs := r.attrs(e, b.Attrs, written)
		r.sameAttrTwice(e, b.Attrs)
		checked := core // (a define's or a class's parameters: at its first title)
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
			x := r.declare(e, typName, tv, attrs, d, full, t.Virtual, t.Exported, false)
			if x != nil && !checked {
				checked = true
				switch {
				case x.define != nil:
					r.paramAttrs(e, x.display, x.define.def.Params, b.Attrs)
				case x.class != nil && x.kind == "class":
					r.paramAttrs(e, x.display, r.a.classDef(x.class).Params, b.Attrs)
				}
			}
			if x != nil && !unused {
				out.x.res = append(out.x.res, x)
			}
		})
	}
	return out
}

// sameAttrTwice: an attribute written twice in one body is Puppet's
// evaluation error (nefarioustim/puppet-manifests: two ensure), here at
// the second.
func (r *run) sameAttrTwice(e *env, as []*pp.Attr) {
	for i, a := range as {
		if a.Name == "*" {
			continue
		}
		for _, b := range as[:i] {
			if b.Name == a.Name {
				r.diag(r.span(e.f, a.NameLoc), analysis.Error, "evaluation", fmt.Sprintf("The attribute '%s' has already been set", a.Name))
				break
			}
		}
	}
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
	if prev != nil && prev.spec && !x.spec && ok && !quiet && def == nil && prev.kind == "resource" && !prev.pat &&
		!prev.virtual && !virtual && prev.container != nil && r.byKey[x.key] == prev {
		return r.redeclared(prev, x, e.cond)
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

// addAliases makes x answer to its other names, as Puppet's catalog does
// when it adds a resource: its explicit aliases, and its namevar where
// that is all its uniqueness key. A package's key is its name and its
// provider (gem's rspec-puppet and pip's may both be declared), apart
// from titles: operations-puppet's package 'logstash' named logstash-oss
// and package 'logstash-old-name' named logstash are both fine. No
// reference names that key (uniqKey): Package['name'] never finds a
// package titled otherwise (puppet-order: "Could not find resource" with
// a provider, "Could not find dependency" when applying without). A key
// another resource already holds is Puppet's "Cannot alias" error.
func (r *run) addAliases(x *res) {
	nv := namevar[x.typ]
	for _, a := range x.attrs {
		explicit := a.name == "alias"
		if !explicit && (nv == "" || a.name != nv || x.typ == "Exec" || x.typ == "Package") {
			continue
		}
		var lbuf [1]val
		for _, v := range a.v.items(&lbuf) {
			if s, ok := v.text(); ok && s != "" {
				c := canonTitle(x.typ, s)
				if k := refString(x.typ, c); k != x.key {
					r.alias(x, k, r.holder(k), func() (string, string) {
						shown := rubyInspect(c)
						if !explicit {
							shown = "[" + shown + "]"
						}
						return shown, `["` + x.typ + `", ` + rubyInspect(c) + `]`
					})
				}
			}
		}
	}
	if x.typ == "Package" {
		r.packageKey(x)
	}
}

// packageKey gives x the key of a package: its name and its provider. A
// plain package (no name, no provider: most of them) holds it by its
// title, as its own key, and is not entered again: a named one looks for
// it there.
func (r *run) packageKey(x *res) {
	name, ok, plain := x.title, !x.pat, true
	provider := "nil"
	for _, a := range x.attrs {
		switch a.name {
		case "name":
			var known bool
			name, known = a.v.text()
			ok, plain = ok && known, false
		case "provider":
			p, known := a.v.text()
			ok, plain = ok && known, false
			provider = rubyInspect(p)
		}
	}
	if !ok || name == "" {
		return
	}
	if plain && r.rec == nil {
		// (most packages: asked without a string of their own)
		r.kbuf = append(append(append(r.kbuf[:0], "Package\x00"...), name...), "\x00nil"...)
		if r.aliases[string(r.kbuf)] == nil {
			return
		}
	}
	k := uniqKey(name, provider)
	prev := r.holder(k)
	if prev == nil && provider == "nil" {
		// a plain package titled so holds it
		if p := r.byKey[refString("Package", name)]; p != nil && p != x && plainPackage(p) {
			prev = p
			if r.rec != nil {
				d := p.decl
				r.observe1(obs{m: 's', key: p.key, decl: &d}, p, p.spec)
			}
		}
	}
	if plain && prev == nil {
		return
	}
	r.alias(x, k, prev, func() (string, string) {
		return pkgKeyShown(name, provider), `["Package", nil, ` + rubyInspect(name) + ", " + provider + "]"
	})
}

// plainPackage: a package with neither a name nor a provider, whose key
// is its title.
func plainPackage(p *res) bool {
	for _, a := range p.attrs {
		if a.name == "name" || a.name == "provider" {
			return false
		}
	}
	return true
}

// namedPackage is the package named as rf titles one, when rf is a
// reference to a package no package is titled so: why it is missing;
// provider: it has one (else Puppet finds it while compiling, and fails
// when applying).
func (r *run) namedPackage(rf *ref) (_ *res, provider bool) {
	if rf.typ != "Package" {
		return nil, false
	}
	if x := r.aliases[uniqKey(rf.title, "nil")]; x != nil {
		return x, false
	}
	prefix := uniqKey(rf.title, "")
	var first *res // (the first declared of those with a provider)
	for k, x := range r.aliases {
		if strings.HasPrefix(k, prefix) && !strings.HasSuffix(k, "\x00!") && (first == nil || x.prio < first.prio) {
			first = x
		}
	}
	return first, true
}

// uniqKey is the key a package answers to by its name and provider (as
// Ruby prints it, "nil" for none), which no reference names.
func uniqKey(name, provider string) string {
	return "Package\x00" + name + "\x00" + provider
}

// contested marks a key k a second resource asked for (and was refused:
// "Cannot alias"), so that a patch taking out the first builds the run
// again (patchout.go).
func contested(k string) string { return k + "\x00!" }

// pkgKeyShown is a package's uniqueness key as Puppet's messages print it.
func pkgKeyShown(name, provider string) string {
	return "[nil, " + rubyInspect(name) + ", " + provider + "]"
}

// holder is the resource that answers to k already, by its title or as
// an alias (nil: none), noted for the class evaluation being recorded.
func (r *run) holder(k string) *res {
	prev := r.byKey[k]
	if r.rec != nil {
		r.observe('k', k, prev)
	}
	if prev == nil {
		prev = r.aliases[k]
		if r.rec != nil {
			r.observe('a', k, prev)
		}
	}
	return prev
}

// alias makes x answer to k, unless prev (its holder) is another
// resource: then the catalog refuses x, in Puppet's words (words: the key
// as Ruby prints it, and the catalog's key).
func (r *run) alias(x *res, k string, prev *res, words func() (shown, ref string)) {
	if prev == nil || prev == x {
		r.aliases[k] = x
		if r.rec != nil {
			r.recAlias(k, x)
		}
		return
	}
	r.aliases[contested(k)] = x
	if r.rec != nil {
		r.recAlias(contested(k), x)
		d := prev.decl
		r.observe1(obs{m: 's', key: k, decl: &d}, prev, prev.spec)
	}
	if !x.spec && !prev.spec {
		shown, ref := words()
		r.diagLines(x.decl, analysis.Error, "duplicate",
			fmt.Sprintf("Cannot alias %s to %s at (file: %s, line: %s); resource %s already declared (file: %s, line: %s)",
				x.display, shown, r.a.displayPath(x.decl.URI), analysis.LineMark(x.decl), ref, r.a.displayPath(prev.decl.URI), analysis.LineMark(prev.decl)),
			analysis.Related{At: prev.decl, Message: "first declared here"})
	}
}

// rubyInspect is s as Ruby's String#inspect prints it, for the printable
// names resources have.
func rubyInspect(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, c := range s {
		switch c {
		case '"', '\\':
			b.WriteByte('\\')
			b.WriteRune(c)
		case '\n':
			b.WriteString(`\n`)
		case '\t':
			b.WriteString(`\t`)
		default:
			b.WriteRune(c)
		}
	}
	b.WriteByte('"')
	return b.String()
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
	title := rf.title
	if len(r.patterns) > 0 {
		title = canonTitle(rf.typ, title)
	}
	for _, x := range r.patterns {
		if x.typ == rf.typ && globMatch(patTitle(x.typ, x.title), title) {
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

// redeclared: a plain resource declared for certain after a branch we
// could not decide declared it first. On the nodes that take that branch
// Puppet stops at this declaration ("Duplicate declaration": a warning
// naming the branch, as Puppet 7.23 says without the fact); on every
// other node this one is the resource. So it is this one: its attributes,
// its container, its place in the source; the branch's declaration is
// an alternative. Before, the branch's kept its container and its
// relationships, and the class around it closed cycles no node has
// (IsaacElenbaas's moosefs.service: absent in profile::base::moosefs
// unless the node is a server, a file of profile::server::moosefs,
// which requires the base class). The catalog position stays the
// first declaration's.
func (r *run) redeclared(prev, x *res, c *cond) *res {
	if r.rec != nil {
		r.recFail() // a resource made before the body changes: not replayable
	}
	old := prev.cond
	// Where the branch is taken, Puppet stops here: a warning saying when.
	r.diagLines(x.decl, analysis.Warning, "duplicate",
		fmt.Sprintf("Duplicate declaration: %s is already declared at (file: %s, line: %s); cannot redeclare (file: %s, line: %s) (%s)",
			x.display, r.a.displayPath(prev.decl.URI), analysis.LineMark(prev.decl), r.a.displayPath(x.decl.URI), analysis.LineMark(x.decl), r.specWhen(&env{cond: old})),
		analysis.Related{At: prev.decl, Message: "first declared here, on those nodes"})
	prev.attrs, prev.scope, prev.container, prev.parentSym = x.attrs, x.scope, x.container, x.parentSym
	prev.decl, prev.full, prev.spec, prev.cond = x.decl, x.full, false, c
	prev.display = x.display
	prev.more().alts = append(prev.alternatives(), old)
	prev.tagAttr = false
	for i := range prev.attrs {
		if prev.attrs[i].name == "tag" && prev.attrs[i].from == written {
			prev.tagAttr = true
			break
		}
	}
	r.prio--
	return prev
}
