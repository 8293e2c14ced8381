package puppet

import (
	"bytes"
	"path"
	"reflect"
	"strconv"
	"strings"

	"github.com/ordering-lsp/ordering-lsp/analysis"
	pp "github.com/ordering-lsp/ordering-lsp/parser/puppet"
	"github.com/ordering-lsp/ordering-lsp/source"
)

// Patching a run instead of building it again (issue 25; README "The
// patch at the snapshot level"). When the only input of a run that
// changed is one class's file, and the change is one resource
// declaration added to the class's body (or taken out of it: patchout.go)
// that nothing else of the workspace can see (judged here on the syntax,
// once per analysis), the run's new snapshot is its last one with that
// resource's node and its two containment edges put in (or taken out),
// the places after the edit moved, and its order computed again
// (patchrun.go). The merge then takes the snapshot
// as it takes a restored one, and it is the next analysis's cache.
//
// What "nothing else can see" means, from what buildRun and evaluation
// read of a resource: its type neither requires nor is required by
// anything by itself (autorequire.go), nobody collects it, no resource
// default of its type exists, no reference or string anywhere names its
// type with its title (or with a title we cannot read), its attributes
// are literals no rule reads (readAttrs, as inert.go), and in each run it
// is not a duplicate (the run's declared keys and aliases, namevars
// included). Where the
// resource goes in a run is where the declaration before it went: that
// statement must be a plain declaration of a built-in type, found in the
// run's snapshot by its title's place, not speculative there (no facts).

// treeText is a version of a file an analysis read, by its tree's id
// (fileInfo.id): what a snapshot's inputs name. Its text only is kept:
// the parser reuses the chunks of a text that did not change in the next
// version and moves their places in place (parser/puppet shiftChunk), so
// the analysis's tree of an old version may hold a newer version's
// places (a class followed by another in its file was never patched); a
// plan parses the old text again (makePlan), once per analysis.
type treeText struct {
	uri  string
	ast  *pp.File
	text []byte
}

// keepTrees records the versions of files this analysis read. A complete
// analysis rebuilds or restores every run, so afterwards every snapshot
// names a current version; a partial one (focused, canceled) leaves
// snapshots naming older versions, which stay.
func (s *System) keepTrees(a *analyzer, complete bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if complete || s.trees == nil {
		s.trees = map[string]treeText{}
	}
	for _, fi := range a.order {
		if fi.ast != nil && fi.src != nil && fi.id != "" {
			s.trees[fi.id] = treeText{uri: fi.uri, text: fi.src.Text}
		}
	}
}

func (s *System) tree(id string) (treeText, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	t, ok := s.trees[id]
	return t, ok
}

// typeUses is what one file's code does with resource types that could
// see a resource added elsewhere (lower-case type names).
type typeUses struct {
	defaults  map[string]bool // Type { } (a default with a computed type: "*")
	refs      map[string]bool // "type\x00title"; title "*": one we cannot read; "*\x00*": Resource[...]
	named     map[string]bool // a string holds `Type[`
	functions bool            // the file defines functions (their bodies are no run's input)
	// owners: for a type whose defaults here set only literals no rule
	// reads but a file's owner and group (which are not in defaults),
	// the users and groups they name ("User[x]", "Group[x]")
	owners map[string][]string
}

// typesInString calls f with each name a string writes before `[`, as
// the regular expression `([A-Za-z_:][A-Za-z0-9_:]*)\s*\[` finds them
// (leftmost, not overlapping): a run of [A-Za-z0-9_:] but its leading
// digits, followed by blanks and `[`. Scanned by hand: the regular
// expression, run over every string of every file the first time an edit
// is patched, was 160 of the ~350 CPU-ms of operations-puppet's first
// focused analysis after an edit in profile::base.
func typesInString(s string, f func(string)) {
	for i := 0; i < len(s); {
		if !typeNameByte(s[i]) {
			i++
			continue
		}
		j := i
		for j < len(s) && typeNameByte(s[j]) {
			j++
		}
		k := j
		for k < len(s) && (s[k] == ' ' || s[k] == '\t' || s[k] == '\n' || s[k] == '\f' || s[k] == '\r') {
			k++
		}
		if k < len(s) && s[k] == '[' {
			p := i
			for p < j && s[p] >= '0' && s[p] <= '9' {
				p++
			}
			if p < j {
				f(s[p:j])
			}
		}
		i = j
	}
}

func typeNameByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == ':'
}

func usesOf(f *pp.File, text []byte) *typeUses {
	u := &typeUses{} // (maps made when first written: most files use no type so)
	set := func(m *map[string]bool, k string) {
		if *m == nil {
			*m = map[string]bool{}
		}
		(*m)[k] = true
	}
	low := func(s string) string { return strings.ToLower(strings.TrimPrefix(s, "::")) }
	str := func(s string) {
		typesInString(s, func(name string) { set(&u.named, low(name)) })
	}
	// A metaparameter's value: a reference in it with a title we cannot
	// read draws no edge (buildRun: a pattern target is skipped), one we
	// can read is a missing target's diagnostic in the runs without it
	// (which patchSnap reads), and a string in it is a reference or
	// nothing. Only references it writes whole are kept, as elsewhere.
	var meta func(n pp.Node) bool
	meta = func(n pp.Node) bool {
		if t, ok := n.(*pp.Access); ok {
			if tr, ok := t.X.(*pp.TypeRef); ok {
				typ := low(tr.Value)
				if typ == "resource" {
					set(&u.refs, "*\x00*")
				}
				for _, arg := range t.Args {
					if v, ok := arg.(*pp.Str); ok && !v.Interpolated() {
						set(&u.refs, typ+"\x00"+v.Value)
					}
				}
			}
		}
		switch n.(type) {
		case *pp.Access, *pp.Array, *pp.Str, *pp.Paren:
			return true
		}
		return false // anything else (a call, a selector...): as elsewhere
	}
	for _, st := range f.Stmts {
		if _, ok := st.(*pp.FunctionDef); ok {
			u.functions = true
		}
		var walk func(n pp.Node) bool
		walk = func(n pp.Node) bool {
			switch t := n.(type) {
			case *pp.Attr:
				if _, ok := metaparams[t.Name]; ok && t.Value != nil && plainMeta(t.Value) {
					pp.Walk(t.Value, meta)
					return false
				}
			case *pp.ResourceDefaults:
				switch {
				case t.Type == nil:
					set(&u.defaults, "*")
				case !literalDefaults(u, low(t.Type.Value), t.Attrs, text):
					set(&u.defaults, low(t.Type.Value))
				}
			case *pp.Access:
				tr, ok := t.X.(*pp.TypeRef)
				if !ok {
					break
				}
				typ := low(tr.Value)
				if typ == "resource" {
					set(&u.refs, "*\x00*")
					break
				}
				for _, arg := range t.Args {
					switch v := arg.(type) {
					case *pp.Str:
						if !v.Interpolated() {
							set(&u.refs, typ+"\x00"+v.Value)
							continue
						}
					case *pp.Name:
						set(&u.refs, typ+"\x00"+v.Value)
						continue
					}
					set(&u.refs, typ+"\x00*")
				}
			case *pp.Str:
				if t.Interpolated() {
					var b strings.Builder
					for _, p := range t.Parts {
						if p.Expr == nil {
							b.WriteString(p.Lit)
						} else {
							b.WriteString("x")
						}
					}
					str(b.String())
				} else {
					str(t.Value)
				}
			}
			return true
		}
		pp.Walk(st, walk)
	}
	return u
}

// literalDefaults: whether the defaults attrs of type typ set only literal
// values no rule reads, or a file's owner and group (then kept in
// u.owners: a resource they apply to may require those by itself).
func literalDefaults(u *typeUses, typ string, attrs []*pp.Attr, text []byte) bool {
	var owners []string
	for _, at := range attrs {
		if at.Op != "=>" || at.Name == "*" || !literalValue(at.Value, text, false) {
			return false
		}
		if !readAttrs[at.Name] {
			continue
		}
		s, isStr := at.Value.(*pp.Str)
		if typ != "file" || at.Name != "owner" && at.Name != "group" || !isStr || s.Value == "" {
			return false
		}
		owners = append(owners, ownerKey(at.Name, s.Value))
	}
	if len(owners) > 0 {
		if u.owners == nil {
			u.owners = map[string][]string{}
		}
		u.owners[typ] = append(u.owners[typ], owners...)
	}
	return true
}

// ownerKey is the key a file's owner or group attribute (name) looks for.
func ownerKey(name, value string) string {
	if name == "group" {
		return refString("Group", value)
	}
	return refString("User", value)
}

// plainMeta: a metaparameter's value made only of references, strings
// and arrays of them (what meta reads alone).
func plainMeta(n pp.Node) bool {
	ok := true
	pp.Walk(n, func(x pp.Node) bool {
		switch t := x.(type) {
		case *pp.Access:
			if _, isType := t.X.(*pp.TypeRef); !isType {
				ok = false
			}
		case *pp.Array, *pp.Str, *pp.TypeRef, *pp.Paren, *pp.Name, *pp.Var, *pp.Num:
		default:
			ok = false
		}
		return ok
	})
	return ok
}

// autorequiring: the built-in types whose own autorequires (autorequire.go)
// or generated files read attributes a patch does not follow. A file,
// a user or a group is found by others' autorequires (what they looked
// for in vain: runSnap.probes) and a file finds its parent directories,
// owner and group (patchPlan.ownProbes).
var autorequiring = map[string]bool{"exec": true, "cron": true, "ssh_authorized_key": true, "concat_file": true}

// patchPlan is how the runs reading one old version of a file are patched.
type patchPlan struct {
	uri                 string
	oldID, newID        string
	pre, oldEnd, newEnd int // the text [pre, oldEnd) of the old version is [pre, newEnd) now
	typ, title          string
	display, key        string
	decl, full          source.Span // the new resource's, now (removed: the old one's, then)
	removed             bool        // the resource was taken out (decl, full: its places in the old text)
	then                *patchPlan  // removed: the resource put in its place (replaced), through no move
	at                  int         // its statement's place in the class's body (the longer one)
	atEnd               bool        // it ends the class's body
	prevDecl            source.Span // else the declaration before it: its title, in the old text
	prevDisplay         string
	prevKey             string
	next                bool // prev* name the declaration after it instead (placeAfter)
	classDisplay        string
	ownProbes           []string        // the keys it looks for by itself (a file's parent directories, owner, group)
	mentions            map[string]bool // data files (by path): whether they name `Type[`
	seenIn              map[string]bool // the files (by URI) whose code may see it
	metas               []planMeta      // its relationship metaparameters' targets (patchmeta.go)
	incl                *inclEdit       // not a resource: an include of a class nobody defines (patchincl.go)
	arm                 *armEdit        // in an arm of a conditional of the body (patcharm.go; at: the conditional's place)
	vals                map[string]val  // its attributes' values (judge: literals; unknown, any other)
	behind              []string        // after includes (patchbehind.go): their classes' Ref, in the order written; prev*: the declaration before them, when one is
	// before: an edit elsewhere in the file that moved places only, from
	// the version the runs read to the one the plan starts from (its
	// places are that version's); nil: none
	before *analysis.Shift
	// moveOnly: the edit moves places only, but for one attribute no
	// rule reads (patchmove.go); ends, beforeEnds: the new spans of the
	// resource bodies whose end the edit (before) moves past itself
	// (treePair.ends), by their old ones
	moveOnly         bool
	ends, beforeEnds map[source.Span]source.Span
}

// shift is the edit as analysis.Shift moves places through it.
// uniq is the key the plan's resource holds besides its title (a
// package's name and provider: addAliases), "" when none: what it
// answers to is a plain declaration's, with no name and no provider.
func (p *patchPlan) uniq() string {
	if p.typ != "package" {
		return ""
	}
	return uniqKey(p.title, "nil")
}

func (p *patchPlan) shift() analysis.Shift {
	return analysis.Shift{URI: p.uri, Pre: p.pre, OldEnd: p.oldEnd, CurEnd: p.newEnd}
}

// planFor returns the plan for runs that read version oldID of a file
// whose version is newID now (nil: such runs are built again). Made
// once per analysis and old version.
func (a *analyzer) planFor(oldID, newID string) *patchPlan {
	m := a.main
	m.planMu.Lock()
	defer m.planMu.Unlock()
	if p, ok := m.plans[oldID]; ok {
		return p
	}
	if m.plans == nil {
		m.plans = map[string]*patchPlan{}
	}
	p := a.makePlan(oldID, newID)
	m.plans[oldID] = p
	return p
}

func (a *analyzer) makePlan(oldID, newID string) *patchPlan {
	if a.ordering != "manifest" || a.strict || a.req.Once || a.diagsOnly() || a.hoverUnread() {
		return a.noPlan(1)
	}
	old, ok := a.sys.tree(oldID)
	if !ok {
		return a.noPlan(2)
	}
	old.ast = pp.Parse(old.text) // (see treeText)
	fi := a.byURI[old.uri]
	if fi == nil || fi.id != newID || fi.ast == nil || fi.src == nil || fi.topLevel {
		return a.noPlan(3)
	}
	if p := a.planFrom(old, fi, oldID, newID); p != nil {
		return p
	}
	if p := a.movePlan(old, fi, oldID, newID); p != nil {
		return p
	}
	// The file changed elsewhere too, in a way that moves places only (a
	// comment typed, followed without an analysis: lsp/layout_cutoff.go):
	// the runs are moved first (patchmove.go), then patched from there.
	mid, m, ends, ok := a.midVersion(old, fi)
	if !ok {
		return nil
	}
	p := a.planFrom(mid, fi, oldID, newID)
	if p != nil {
		p.before, p.beforeEnds = &m, ends
	}
	return p
}

// planFrom is makePlan's plan from the version old of the file to fi's.
func (a *analyzer) planFrom(old treeText, fi *fileInfo, oldID, newID string) *patchPlan {
	t0, t1 := old.ast, fi.ast
	if len(t0.Errors) > 0 || len(t1.Errors) > 0 || len(t0.Stmts) != len(t1.Stmts) {
		return a.noPlan(4)
	}
	p := &patchPlan{uri: old.uri, oldID: oldID, newID: newID}
	// One class whose body gained or lost one statement, or (none such)
	// had one replaced.
	var b0, b1 *pp.ClassDef
	for i := range t0.Stmts {
		c0, ok0 := t0.Stmts[i].(*pp.ClassDef)
		c1, ok1 := t1.Stmts[i].(*pp.ClassDef)
		if ok0 && ok1 && (len(c1.Body) == len(c0.Body)+1 || len(c1.Body)+1 == len(c0.Body)) {
			if b0 != nil {
				return a.noPlan(5)
			}
			b0, b1 = c0, c1
		}
	}
	ot, nt := old.text, fi.src.Text
	if b0 == nil {
		return a.replacedPlan(p, t0, t1, ot, nt)
	}
	// (an include of a class nobody defines: patchincl.go)
	longer, shorter := b1.Body, b0.Body
	if len(b0.Body) > len(b1.Body) {
		longer, shorter = b0.Body, b1.Body
	}
	if k := firstDiff(shorter, longer); k < len(longer) {
		if _, _, _, ok := classCall(longer[k]); ok {
			return a.inclPlan(p, t0, t1, b0, b1, k, ot, nt)
		}
	}
	var r *pp.Resource
	if p.removed = len(b0.Body) > len(b1.Body); p.removed {
		if r = a.removedPlan(p, b0.Body, b1.Body, b0.Loc.End-1, b1.Loc.End-1, ot, nt); r == nil {
			return nil
		}
	} else if r = a.addedPlan(p, b0.Body, b1.Body, b0.Loc.End-1, b1.Loc.End-1, ot, nt); r == nil {
		return nil
	}
	// The rest the same, at the places the edit moves them to.
	if !a.sameRest(p, t0, t1, b0, b1, func(i int) int {
		if i < p.at {
			return i
		}
		if p.removed {
			return i - 1 // (the old body's statement i is the new one's i-1)
		}
		return i + 1
	}) {
		return nil
	}
	return a.judged(p, r, ot, nt, b1)
}

// judged is p once judge accepts the resource r it puts in (the new text
// holds it) or takes out (the old one does).
func (a *analyzer) judged(p *patchPlan, r *pp.Resource, ot, nt []byte, b1 *pp.ClassDef) *patchPlan {
	text := nt
	if p.removed {
		text = ot
	}
	if !a.judge(p, r, text, b1) {
		return nil
	}
	return p
}

// sameRest: every statement of the file but the class, its header, and
// every statement of its body but the one at p.at, the same at the places
// the edit moves them to; newAt is where the old body's statement i is in
// the new one.
func (a *analyzer) sameRest(p *patchPlan, t0, t1 *pp.File, b0, b1 *pp.ClassDef, newAt func(int) int) bool {
	for i := range t0.Stmts {
		if t0.Stmts[i] == pp.Node(b0) {
			continue
		}
		if !p.sameMoved(t0.Stmts[i], t1.Stmts[i]) {
			a.noPlan(9)
			return false
		}
	}
	if b0.Name != b1.Name || !p.sameMoved(&pp.ClassDef{Loc: b0.Loc, Name: b0.Name, NameLoc: b0.NameLoc, Params: b0.Params, Parent: b0.Parent, ParentLoc: b0.ParentLoc},
		&pp.ClassDef{Loc: b1.Loc, Name: b1.Name, NameLoc: b1.NameLoc, Params: b1.Params, Parent: b1.Parent, ParentLoc: b1.ParentLoc}) {
		a.noPlan(10)
		return false
	}
	for i := range b0.Body {
		if i == p.at && p.arm != nil { // (patcharm.go)
			if !p.sameArm(p.arm, b0.Body[i], b1.Body[i]) {
				a.noPlan(11)
				return false
			}
			continue
		}
		if i == p.at && (p.removed || p.then != nil || p.incl != nil && p.incl.oldName != "") {
			continue // (taken out, or replaced)
		}
		if j := newAt(i); j < 0 || j >= len(b1.Body) || !p.sameMoved(b0.Body[i], b1.Body[j]) {
			a.noPlan(11)
			return false
		}
	}
	return true
}

// judge: the resource r (written in text, in the class b1) is one of a
// type nobody reads, with literal values no rule reads, and no file
// whose code could see it defines functions; it fills in what patches
// ask of it.
func (a *analyzer) judge(p *patchPlan, r *pp.Resource, text []byte, b1 *pp.ClassDef) bool {
	typ, title, ok := plainDecl(r)
	if !ok || autorequiring[typ] || !inertType(typ) {
		a.noPlan(13)
		return false
	}
	ct := capType(typ)
	names := map[string]bool{}
	p.metas, p.vals = nil, map[string]val{}
	for _, at := range r.Bodies[0].Attrs {
		if known, ok := coreAttr(typ, at.Name); known && !ok && at.Name != "*" {
			a.noPlan(60) // an attribute Puppet refuses: the runs report it (attrcheck.go)
			return false
		}
		p.vals[at.Name] = litVal(at.Value) // (what a collector's query reads: patchcols.go)
		if metaPatched[at.Name] && at.Op == "=>" && !names[at.Name] {
			ms, ok := metaRefs(p.uri, at.Name, at.Value)
			if !ok {
				a.noPlan(20)
				return false
			}
			p.metas = append(p.metas, ms...)
			names[at.Name] = true
			continue
		}
		if at.Op != "=>" || at.Name == "*" || names[at.Name] || !literalValue(at.Value, text, false) && (readAttrs[at.Name] || !contentCall(at.Value, text)) {
			a.noPlan(14)
			return false
		}
		if readAttrs[at.Name] {
			// (a file's owner and group: what it requires by itself, below)
			s, isStr := at.Value.(*pp.Str)
			if ct != "File" || at.Name != "owner" && at.Name != "group" || !isStr || s.Value == "" {
				a.noPlan(14)
				return false
			}
			p.ownProbes = append(p.ownProbes, ownerKey(at.Name, s.Value))
		}
		names[at.Name] = true
	}
	// What it requires by itself (autorequire.go): a file, the nearest
	// of its parent directories the run declares, its owner, its group.
	// A run that declares one of them is built again (patchSnap).
	if ct == "File" && strings.HasPrefix(title, "/") {
		for d := path.Dir(path.Clean(title)); ; d = path.Dir(d) {
			p.ownProbes = append(p.ownProbes, refString("File", d))
			if d == "/" || d == "." {
				break
			}
		}
	}
	// Nothing else a run evaluates may see it (or have seen it): the
	// files whose code could are named, and a run that read one is built
	// again (patched); a file of functions may be read by any run.
	p.seenIn = map[string]bool{}
	for _, f := range a.order {
		var text []byte // (none: its defaults are judged unread)
		if f.src != nil {
			text = f.src.Text
		}
		u := a.sys.uses(f.ast, text)
		p.ownProbes = append(p.ownProbes, u.owners[typ]...) // (where its defaults apply)
		if u.defaults[typ] || u.defaults["*"] || u.refs["*\x00*"] || u.refs[typ+"\x00"+title] ||
			u.named[typ] {
			if u.functions {
				a.noPlan(17)
				return false
			}
			p.seenIn[f.uri] = true
		}
	}
	p.typ, p.title = typ, title
	p.key = refString(ct, canonTitle(ct, title))
	for _, mr := range p.metas {
		if mr.key == p.key {
			a.noPlan(20) // (a relationship with itself: a cycle)
			return false
		}
	}
	p.display = refString(ct, title)
	if canonTitle(ct, title) == title {
		p.display = p.key
	}
	p.decl = source.Span{URI: p.uri, Start: r.Bodies[0].Title.Span().Pos, End: r.Bodies[0].Title.Span().End}
	p.full = source.Span{URI: p.uri, Start: r.Bodies[0].Loc.Pos, End: r.Bodies[0].Loc.End}
	p.classDisplay = refString("Class", classDisplay(b1.Name))
	p.mentions = map[string]bool{}
	return true
}

// addedPlan reads where the statement added to b1's body is, and where
// its resource goes (after the declaration before it, or at the body's
// end); nil when it cannot be patched in.
func (a *analyzer) addedPlan(p *patchPlan, body0, body1 []pp.Node, close0, close1 int, ot, nt []byte) *pp.Resource {
	k := firstDiff(body0, body1)
	var prev pp.Node
	switch {
	case k >= 1:
		prev = body0[k-1]
		p.pre = prev.Span().End
	case p.arm != nil && len(body0) > 0: // (first in an arm: before the declaration after it)
		p.pre = openingBrace(ot, body0[0].Span().Pos) + 1
	default:
		a.noPlan(7) // first in the body: where it goes is not one declaration's place
		return nil
	}
	p.at = k
	// The edit: the text between the statement before (or the arm's
	// opening brace) and the one after (or the closing brace); the texts
	// before and after it are the same in both versions.
	if k < len(body0) {
		p.oldEnd, p.newEnd = body0[k].Span().Pos, body1[k+1].Span().Pos
	} else {
		p.oldEnd, p.newEnd = close0, close1
	}
	if p.pre <= 0 || p.pre > p.oldEnd || p.oldEnd > len(ot) || p.newEnd > len(nt) || p.pre > len(nt) || p.newEnd-p.pre <= p.oldEnd-p.pre ||
		!bytes.Equal(ot[:p.pre], nt[:p.pre]) || !bytes.Equal(ot[p.oldEnd:], nt[p.newEnd:]) {
		a.noPlan(8)
		return nil
	}
	r, ok := body1[k].(*pp.Resource)
	if !ok || r.Loc.Pos < p.pre || r.Loc.End > p.newEnd {
		a.noPlan(12)
		return nil
	}
	var next pp.Node // (the statement after it, in the old text: the snapshots' places)
	if k < len(body0) {
		next = body0[k]
	}
	if !a.placeAfter(p, prev, next, k == len(body0) && p.arm == nil) && (p.arm != nil || k == 0 || !a.placeBehind(p, body0[:k])) {
		return nil
	}
	return r
}

// placeAfter says where the resource added goes: after the declaration
// prev before it, or after what the body made (atEnd; patchSnap); or,
// when prev is no plain declaration (an include, a class, a define
// instance: what it made is not known), before the declaration next
// after it (p.next), as nothing is evaluated between the two.
func (a *analyzer) placeAfter(p *patchPlan, prev, next pp.Node, atEnd bool) bool {
	if atEnd {
		p.atEnd = true
		return true
	}
	var typ, title string
	var at *pp.Loc
	ok := false
	if r, isRes := prev.(*pp.Resource); isRes {
		typ, title, at, ok = lastDecl(r)
	}
	if !ok || typ == "concat_file" || typ == "stage" {
		r, isRes := next.(*pp.Resource)
		if !isRes {
			a.noPlan(15)
			return false
		}
		if typ, title, at, ok = firstDecl(r); !ok || typ == "concat_file" || typ == "stage" {
			a.noPlan(16)
			return false
		}
		p.next = true
	}
	ct := capType(typ)
	p.prevKey = refString(ct, canonTitle(ct, title))
	p.prevDisplay = refString(ct, title)
	if canonTitle(ct, title) == title {
		p.prevDisplay = p.prevKey
	}
	p.prevDecl = source.Span{URI: p.uri, Start: at.Pos, End: at.End}
	return true
}

// replacedPlan: one statement of one class's body replaced by another (a
// title or a value typed over): the old resource taken out (p), then the
// new one put in its place (p.then, whose edit moves nothing: by then the
// places are the new text's). Nil when it cannot be patched.
func (a *analyzer) replacedPlan(p *patchPlan, t0, t1 *pp.File, ot, nt []byte) *patchPlan {
	var b0, b1 *pp.ClassDef
	for i := range t0.Stmts {
		c0, ok0 := t0.Stmts[i].(*pp.ClassDef)
		c1, ok1 := t1.Stmts[i].(*pp.ClassDef)
		if ok0 && ok1 && len(c0.Body) == len(c1.Body) && firstDiff(c0.Body, c1.Body) < len(c0.Body) {
			if b0 != nil {
				return a.noPlan(5)
			}
			b0, b1 = c0, c1
		}
	}
	if b0 == nil {
		return a.noPlan(6)
	}
	k := firstDiff(b0.Body, b1.Body)
	_, _, _, in0 := classCall(b0.Body[k])
	if _, _, _, in1 := classCall(b1.Body[k]); in0 && in1 {
		return a.inclPlan(p, t0, t1, b0, b1, k, ot, nt)
	}
	switch b0.Body[k].(type) {
	case *pp.If, *pp.Case:
		return a.armPlan(p, t0, t1, b0, b1, k, ot, nt)
	}
	r0, ok0 := b0.Body[k].(*pp.Resource)
	r1, ok1 := b1.Body[k].(*pp.Resource)
	if !ok0 || !ok1 || k < 1 {
		return a.noPlan(18) // (first in the body: see addedPlan)
	}
	if !replacedRegion(p, r0, r1, ot, nt) {
		return a.noPlan(8)
	}
	in := &patchPlan{uri: p.uri, oldID: p.oldID, newID: p.newID, at: k}
	p.removed, p.at, p.then = true, k, in
	if !a.sameRest(p, t0, t1, b0, b1, func(i int) int { return i }) || !a.judge(p, r0, ot, b1) || !a.judge(in, r1, nt, b1) ||
		!a.placeAfter(in, b1.Body[k-1], nextOf(b1.Body, k), k == len(b1.Body)-1) && !a.placeBehind(in, b1.Body[:k]) {
		return nil
	}
	return p
}

// replacedRegion sets p's edit for the resource r0 replaced by r1: the
// texts' common prefix and suffix, widened to both statements (an offset
// of the new text past the edit is the old one's plus delta); false when
// the texts differ outside it.
func replacedRegion(p *patchPlan, r0, r1 *pp.Resource, ot, nt []byte) bool {
	d := analysis.NewShift(p.uri, ot, nt)
	delta := len(nt) - len(ot)
	p.pre = min(d.Pre, r0.Loc.Pos, r1.Loc.Pos)
	p.oldEnd = max(d.OldEnd, r0.Loc.End, r1.Loc.End-delta)
	p.newEnd = p.oldEnd + delta
	return p.pre >= 0 && p.oldEnd <= len(ot) && p.newEnd <= len(nt) && bytes.Equal(ot[:p.pre], nt[:p.pre]) && bytes.Equal(ot[p.oldEnd:], nt[p.newEnd:])
}

// firstDiff is the place of the first statement of short that long does
// not have there (len(short): none).
func firstDiff(short, long []pp.Node) int {
	for i := range short {
		if !sameTrees(reflect.ValueOf(short[i]), reflect.ValueOf(long[i])) {
			return i
		}
	}
	return len(short)
}

// removedPlan reads which statement of b0's body b1 lost and the text
// the edit took with it (the longest texts the versions share before it
// and after it); nil when it cannot be patched out.
func (a *analyzer) removedPlan(p *patchPlan, body0, body1 []pp.Node, close0, close1 int, ot, nt []byte) *pp.Resource {
	k := firstDiff(body1, body0)
	p.at = k
	r, ok := body0[k].(*pp.Resource)
	if !ok {
		a.noPlan(12)
		return nil
	}
	// The text between the statements around it, when the versions
	// share what is before and after that: the shortest edit may lie
	// elsewhere (taking `p { 'a': x => 1 }\n  p { 'b': }` out of
	// `p { 'a': x => 1 }\n  p { 'b': }\n  p { 'b': }` is, by the texts alone,
	// the same as taking `a': x => 1 }\n  p { 'b` out), and then a place
	// the next statement holds would lie in it.
	if k > 0 {
		p.pre, p.oldEnd, p.newEnd = body0[k-1].Span().End, close0, close1 // (the last: up to the closing brace)
		if k < len(body1) {
			p.oldEnd, p.newEnd = body0[k+1].Span().Pos, body1[k].Span().Pos
		}
		if p.pre <= p.newEnd && p.newEnd <= p.oldEnd && p.oldEnd <= len(ot) && p.newEnd <= len(nt) && len(ot)-p.oldEnd == len(nt)-p.newEnd &&
			bytes.Equal(ot[:p.pre], nt[:p.pre]) && bytes.Equal(ot[p.oldEnd:], nt[p.newEnd:]) {
			return r
		}
	}
	d := analysis.NewShift(p.uri, ot, nt)
	p.pre, p.oldEnd = min(d.Pre, r.Loc.Pos), max(d.OldEnd, r.Loc.End)
	p.newEnd = p.oldEnd - (len(ot) - len(nt))
	if p.newEnd < p.pre || p.oldEnd > len(ot) || !bytes.Equal(ot[:p.pre], nt[:p.pre]) || !bytes.Equal(ot[p.oldEnd:], nt[p.newEnd:]) {
		a.noPlan(8)
		return nil
	}
	return r
}

// litVal is the value of a literal (one judge accepts: literalValue) as
// the evaluator makes it; unknown for anything else.
func litVal(v pp.Node) val {
	switch t := v.(type) {
	case *pp.Str:
		if !t.Interpolated() {
			return str(t.Value, source.Span{})
		}
	case *pp.Name:
		return str(t.Value, source.Span{})
	case *pp.Num:
		return val{k: vNum, s: t.Text}
	case *pp.Bool:
		return val{k: vBool, s: strconv.FormatBool(t.Value)}
	}
	return val{k: vUnknown}
}

// contentCall: a file's content read by a function of Puppet's that
// reads nothing of the catalog or the scope (template, epp, file) from
// literal paths. Evaluation gives an unknown string and no diagnostic,
// and no rule reads the attribute.
func contentCall(v pp.Node, text []byte) bool {
	c, ok := v.(*pp.Call)
	if !ok || c.Lambda != nil || len(c.Args) == 0 {
		return false
	}
	switch c.Name {
	case "template", "epp", "file":
	default:
		return false
	}
	for _, a := range c.Args {
		if _, isStr := a.(*pp.Str); !isStr || !literalValue(a, text, false) {
			return false
		}
	}
	return true
}

// plainDecl: a declaration of one resource of a built-in type with a
// title written as one string, neither virtual nor exported.
func plainDecl(r *pp.Resource) (typ, title string, ok bool) {
	if r.TypeExpr != nil || r.Virtual || r.Exported || len(r.Bodies) != 1 {
		return "", "", false
	}
	typ = strings.ToLower(r.Type)
	if typ == "class" || !builtinTypes[typ] {
		return "", "", false
	}
	s, ok := r.Bodies[0].Title.(*pp.Str)
	if !ok || s.Interpolated() || s.Value == "" || strings.ContainsAny(s.Value, "*$") {
		return "", "", false
	}
	return typ, s.Value, true
}

// nextOf is the statement after body[k], nil when none.
func nextOf(body []pp.Node, k int) pp.Node {
	if k+1 < len(body) {
		return body[k+1]
	}
	return nil
}

// declTitles: the resources a plain declaration of a built-in type
// makes (plainDecl, or titles written as an array of strings: one
// resource each, in order, each declared at its own title): its type and
// their titles.
func declTitles(r *pp.Resource) (typ string, titles []*pp.Str, ok bool) {
	if typ, _, ok = plainDecl(r); ok {
		return typ, []*pp.Str{r.Bodies[0].Title.(*pp.Str)}, true
	}
	if r.TypeExpr != nil || r.Virtual || r.Exported || len(r.Bodies) != 1 {
		return "", nil, false
	}
	arr, isArr := r.Bodies[0].Title.(*pp.Array)
	if typ = strings.ToLower(r.Type); !isArr || len(arr.Elems) == 0 || typ == "class" || !builtinTypes[typ] {
		return "", nil, false
	}
	for _, e := range arr.Elems {
		s, isStr := e.(*pp.Str)
		if !isStr || s.Interpolated() || s.Value == "" || strings.ContainsAny(s.Value, "*$") {
			return "", nil, false
		}
		titles = append(titles, s)
	}
	return typ, titles, true
}

// firstDecl is the first resource a plain declaration of a built-in type
// makes (declTitles), and where its title is written.
func firstDecl(r *pp.Resource) (typ, title string, at *pp.Loc, ok bool) {
	typ, ts, ok := declTitles(r)
	if !ok {
		return "", "", nil, false
	}
	return typ, ts[0].Value, &ts[0].Loc, true
}

// lastDecl is firstDecl's last resource.
func lastDecl(r *pp.Resource) (typ, title string, at *pp.Loc, ok bool) {
	typ, ts, ok := declTitles(r)
	if !ok {
		return "", "", nil, false
	}
	t := ts[len(ts)-1]
	return typ, t.Value, &t.Loc, true
}

// sameMoved: two trees that are the same but for their places, each
// place of the old one moved by the edit to the new one's (follow.go's
// treePair, no body allowed to end elsewhere).
func (p *patchPlan) sameMoved(a, b pp.Node) bool {
	w := &treePair{m: p.shift()}
	return w.same(reflect.ValueOf(a), reflect.ValueOf(b)) && len(w.ends) == 0
}

// uses is usesOf, kept by tree (an unchanged file's tree is the same).
func (s *System) uses(f *pp.File, text []byte) *typeUses {
	s.mu.Lock()
	u := s.typeUses[f]
	s.mu.Unlock()
	if u != nil {
		return u
	}
	u = usesOf(f, text)
	s.mu.Lock()
	if s.typeUses == nil {
		s.typeUses = map[*pp.File]*typeUses{}
	}
	s.typeUses[f] = u
	s.mu.Unlock()
	return u
}

// keepUses drops what files no longer read hold.
func (s *System) keepUses(a *analyzer) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.typeUses) == 0 {
		return
	}
	next := make(map[*pp.File]*typeUses, len(s.typeUses))
	for _, fi := range a.order {
		if u := s.typeUses[fi.ast]; u != nil {
			next[fi.ast] = u
		}
	}
	s.typeUses = next
}

// dataMentions: whether a data file a run read names `Type[` (a lookup
// may hand a relationship its target as a string).
func (a *analyzer) dataMentions(p *patchPlan, path string) bool {
	a.main.planMu.Lock()
	defer a.main.planMu.Unlock()
	if p.mentions == nil {
		return false // (no resource added: nothing a data file may name)
	}
	if v, ok := p.mentions[path]; ok {
		return v
	}
	v := false // (a data file that is not there names nothing)
	if f := a.ws.Lookup(path); f != nil {
		v = bytes.Contains(bytes.ToLower(f.Text), []byte(p.typ+"["))
	}
	p.mentions[path] = v
	return v
}

// noPlan counts why no plan was made (System.PatchRefused, as 100 + the
// number of the test that refused it).
func (a *analyzer) noPlan(why int) *patchPlan {
	m := a.main
	if m.refusals == nil {
		m.refusals = map[int]int{}
	}
	m.refusals[100+why]++ // (under planMu: planFor holds it)
	return nil
}
