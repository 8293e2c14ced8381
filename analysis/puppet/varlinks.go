package puppet

import (
	"sort"
	"strings"

	"github.com/ordering-lsp/ordering-lsp/analysis"
	pp "github.com/ordering-lsp/ordering-lsp/parser/puppet"
	"github.com/ordering-lsp/ordering-lsp/source"
)

// Variables of the open documents as links (Puppet 7's scoping, checked
// with `puppet apply`): a `$name` read in a class, define or node body
// leads to what sets it there, found as Puppet looks a name up:
//   - the local scope: an assignment above the use in the same body (an
//     if, unless, case or selector arm opens no scope), or a parameter of
//     the class or define; a lambda is a scope of its own inside the one
//     it is written in, whose parameters are set in it; what a lambda
//     assigns is not seen after it;
//   - the class the body's class inherits (all it sets: a parent class is
//     evaluated before its child), and its parent in turn;
//   - the node scope: a node body's assignments, for code in that body;
//   - the top scope: what the environment's main manifests (manifests/,
//     outside a class, define or node) assign.
// A read before its body's assignment is the outer scope's (`notice($x)
// $x = 1` prints the top scope's $x). `$a::b::c` is class a::b's
// parameter or assignment c, `$::c` the top scope's c. Facts (`$facts`,
// `$::osfamily` nothing assigns), `$trusted` and the compiler's own
// variables lead nowhere and say so; a name nothing in the workspace sets
// says it comes from outside (a fact, an ENC) or is undef.
//
// Each use is a link to the places that set it (Files), with what each
// is (Notes); each such place that some use reads is a link to itself,
// so references and highlights find the uses from the definition. A
// place nobody reads is no link (the follow judge lets an assignment
// nobody reads be typed without an analysis: followassign.go). Only open
// documents, as fileLinks: the uses of a class's parameter in files not
// open are not found.
//
// A relationship metaparameter's name (`require =>`, `notify =>`...) is
// a link to the resources its value names (the links of its value), with
// a line on what it does to the order; `stage`, `tag` and `schedule` say
// what they do.

// nodeVars is what a node body assigns, and the classes and defines it
// declares (declaredBy).
type nodeVars struct {
	vars     map[string][]varDef
	declares map[string]bool
}

// varDef is one place that sets a variable.
type varDef struct {
	at   source.Span
	note string
}

// varScope is one scope of a walk over a document: a body (class,
// define, node, function or plan, or the top scope) or a lambda in one.
type varScope struct {
	kind   byte   // 't' top, 'c' class, 'd' define, 'n' node, 'f' function or plan, 'l' lambda
	name   string // the class's or define's name; the node's names
	parent *varScope
	vars   map[string][]varDef
}

func (s *varScope) set(name string, d varDef) {
	if s.vars == nil {
		s.vars = map[string][]varDef{}
	}
	s.vars[name] = append(s.vars[name], d)
}

// varLinker makes the variable links of an analysis's open documents.
// Once the analysis is over it is frozen (a == nil) and kept by the
// follow judge: what it learnt of the workspace (the top scope, the
// classes it read, their parents) lets a result followed through an edit
// have the links a fresh analysis would give the edited document
// (relink); a name it did not learn (missed) makes the edit analysed.
type varLinker struct {
	a       *analyzer // nil: frozen
	out     []analysis.Link
	used    map[source.Span]varDef // definitions some use reads
	top     map[string][]varDef    // the top scope's assignments; nil: not read yet
	nodes   []nodeVars             // the node bodies of the main manifests (with top)
	classes map[string]*varScope   // a class's whole body, by name (nil: not in the workspace)
	parents map[string]string      // the class a class inherits ("" none)
	open    map[string]bool        // the open documents' URIs
	missed  bool                   // frozen, it was asked what it did not learn
}

// Titles of the variable links: a use's says the name; a definition's
// (which a follow cannot name: relink) is selfTitle.
const selfTitle = "Variable, set here:"

func isVarLink(l *analysis.Link) bool {
	return l.Title == selfTitle || strings.HasPrefix(l.Title, "`$")
}

// varLinks returns the variable links of the open documents, and the
// linker, frozen (nil when no document is open).
func (a *analyzer) varLinks() ([]analysis.Link, *varLinker) {
	var l *varLinker
	for _, doc := range a.ws.Overlays() {
		fi := a.byURI[doc.URI]
		if fi == nil || fi.ast == nil || fi.src == nil {
			continue
		}
		if l == nil {
			l = &varLinker{a: a, used: map[source.Span]varDef{}, classes: map[string]*varScope{}, parents: map[string]string{}, open: map[string]bool{}}
			for _, d := range a.ws.Overlays() {
				l.open[d.URI] = true
			}
		}
		l.body(fi, fi.ast.Stmts, &varScope{kind: 't'}, true)
	}
	if l == nil {
		return nil, nil
	}
	out := l.withDefs(l.out)
	l.a, l.out, l.used = nil, nil, nil
	return out, l
}

// withDefs adds to uses a link on each definition they lead to in an open
// document, leading to itself.
func (l *varLinker) withDefs(uses []analysis.Link) []analysis.Link {
	defs := make([]source.Span, 0, len(l.used))
	for sp := range l.used {
		if l.open[sp.URI] {
			defs = append(defs, sp)
		}
	}
	sort.Slice(defs, func(i, j int) bool {
		if defs[i].URI != defs[j].URI {
			return defs[i].URI < defs[j].URI
		}
		return defs[i].Start < defs[j].Start
	})
	for _, sp := range defs {
		uses = append(uses, analysis.Link{At: sp, Files: []source.Span{sp}, Notes: []string{l.used[sp].note}, Title: selfTitle})
	}
	return uses
}

// relink gives r, a result just moved through an edit of document cur
// (whose syntax tree is tree), the variable links a fresh analysis would:
// the edited document's uses found again, the other documents' kept, and
// the definitions' links made again from all of them. False when the
// frozen linker does not know enough: the edit must be analysed.
func (l *varLinker) relink(r *analysis.Result, cur *source.File, tree *pp.File) (*analysis.Result, bool) {
	if !l.open[cur.URI] || tree == nil {
		return r, true
	}
	w := &varLinker{used: map[source.Span]varDef{}, top: l.top, nodes: l.nodes, classes: l.classes, parents: l.parents, open: l.open}
	w.body(&fileInfo{uri: cur.URI, path: cur.Path, src: cur, ast: tree}, tree.Stmts, &varScope{kind: 't'}, true)
	if w.missed {
		return nil, false
	}
	links := make([]analysis.Link, 0, len(r.Links)+len(w.out))
	for i := range r.Links {
		k := &r.Links[i]
		switch {
		case !isVarLink(k):
		case k.Title == selfTitle || k.At.URI == cur.URI:
			continue
		default: // a use in another document: its definitions stay read
			for j, f := range k.Files {
				if j < len(k.Notes) {
					w.used[f] = varDef{at: f, note: k.Notes[j]}
				}
			}
		}
		links = append(links, *k)
	}
	links = append(links, w.withDefs(w.out)...)
	sort.SliceStable(links, func(i, j int) bool {
		if links[i].At.URI != links[j].At.URI {
			return links[i].At.URI < links[j].At.URI
		}
		return links[i].At.Start < links[j].At.Start
	})
	r.Links = links // (a moved result owns its links: analysis.ShiftResult)
	return r, true
}

// body walks statements in the order Puppet evaluates them, links the
// variables they read and records what they set in sc. links: make
// links (false: only record, for a class read for its variables).
func (l *varLinker) body(fi *fileInfo, stmts []pp.Node, sc *varScope, links bool) {
	for _, st := range stmts {
		l.visit(fi, st, sc, links)
	}
}

func (l *varLinker) visit(fi *fileInfo, n pp.Node, sc *varScope, links bool) {
	if n == nil {
		return
	}
	span := func(loc pp.Loc) source.Span { return source.Span{URI: fi.uri, Start: loc.Pos, End: loc.End} }
	switch t := n.(type) {
	case *pp.Var:
		if links {
			l.use(fi, t, sc)
		}
		return
	case *pp.Binary:
		if t.Op == "=" {
			l.visit(fi, t.Right, sc, links)
			l.assign(fi, t.Left, sc)
			return
		}
	case *pp.Lambda:
		inner := &varScope{kind: 'l', name: sc.name, parent: sc}
		for _, p := range t.Params {
			l.visit(fi, p.Default, inner, links)
			if p.Name != "" {
				inner.set(p.Name, varDef{at: span(p.NameLoc), note: "parameter of the lambda"})
			}
		}
		l.body(fi, t.Body, inner, links)
		return
	case *pp.ClassDef:
		name := strings.ToLower(strings.TrimPrefix(t.Name, "::"))
		if sc.kind == 'c' && !strings.Contains(name, "::") {
			name = sc.name + "::" + name
		}
		inner := &varScope{kind: 'c', name: name}
		l.params(fi, t.Params, inner, "class `"+name+"`", links)
		l.body(fi, t.Body, inner, links)
		return
	case *pp.DefineDef:
		name := strings.ToLower(strings.TrimPrefix(t.Name, "::"))
		inner := &varScope{kind: 'd', name: name}
		l.params(fi, t.Params, inner, "defined type `"+name+"`", links)
		l.body(fi, t.Body, inner, links)
		return
	case *pp.NodeDef:
		inner := &varScope{kind: 'n', name: nodeNames(t), parent: sc}
		l.body(fi, t.Body, inner, links)
		return
	case *pp.FunctionDef:
		inner := &varScope{kind: 'f'}
		l.params(fi, t.Params, inner, "function `"+t.Name+"`", links)
		l.body(fi, t.Body, inner, links)
		return
	case *pp.Block:
		inner := &varScope{kind: 'f'}
		l.params(fi, t.Params, inner, t.Keyword+" `"+t.Name+"`", links)
		l.body(fi, t.Body, inner, links)
		return
	}
	pp.Walk(n, func(m pp.Node) bool {
		if m == n {
			return true
		}
		l.visit(fi, m, sc, links)
		return false
	})
}

// params sets a definition's parameters in sc, in order (a default may
// read the parameters before it).
func (l *varLinker) params(fi *fileInfo, ps []*pp.Param, sc *varScope, of string, links bool) {
	for _, p := range ps {
		l.visit(fi, p.Default, sc, links)
		if p.Name == "" {
			continue
		}
		note := "parameter of " + of
		if p.Default != nil {
			note += ", default `" + shortText(fi, p.Default) + "`"
		}
		sc.set(p.Name, varDef{at: source.Span{URI: fi.uri, Start: p.NameLoc.Pos, End: p.NameLoc.End}, note: note})
	}
}

// shortText is a node's text on one line, cut short.
func shortText(fi *fileInfo, n pp.Node) string {
	sp := n.Span()
	if fi.src == nil || sp.Pos < 0 || sp.End > len(fi.src.Text) || sp.Pos > sp.End {
		return "?"
	}
	s := strings.Join(strings.Fields(string(fi.src.Text[sp.Pos:sp.End])), " ")
	if r := []rune(s); len(r) > 60 {
		s = string(r[:59]) + "…"
	}
	return strings.ReplaceAll(s, "`", "'")
}

// assign records what an assignment's left side sets: a variable, or
// each variable of an array (`[$a, $b] = ...`).
func (l *varLinker) assign(fi *fileInfo, lhs pp.Node, sc *varScope) {
	switch t := lhs.(type) {
	case *pp.Var:
		name := strings.TrimPrefix(t.Name, "$")
		if name == "" || strings.Contains(name, "::") {
			return
		}
		note := "assigned in the top scope"
		switch sc.kind {
		case 'c':
			note = "assigned in class `" + sc.name + "`"
		case 'd':
			note = "assigned in defined type `" + sc.name + "`"
		case 'n':
			note = "assigned in node " + sc.name
		case 'l':
			note = "assigned in the lambda"
		case 'f':
			note = "assigned here"
		}
		sc.set(name, varDef{at: source.Span{URI: fi.uri, Start: t.Pos, End: t.End}, note: note})
	case *pp.Array:
		for _, e := range t.Elems {
			l.assign(fi, e, sc)
		}
	}
}

// factVars are the variables Puppet sets for every catalog, and what
// they hold.
var factVars = map[string]string{
	"facts":              "the node's facts (Facter, on the agent): not set in the workspace",
	"trusted":            "the node's trusted data (its certificate's name and extensions): not set in the workspace",
	"server_facts":       "the primary server's facts: not set in the workspace",
	"settings":           "Puppet's settings namespace",
	"environment":        "the node's environment, set by Puppet",
	"module_name":        "the name of the module this code is in, set by Puppet",
	"caller_module_name": "the module of the code that declared this class or defined type, set by Puppet",
}

// use links the variable a Var reads in scope sc.
func (l *varLinker) use(fi *fileInfo, v *pp.Var, sc *varScope) {
	name := strings.TrimPrefix(v.Name, "$")
	if name == "" || name[0] >= '0' && name[0] <= '9' {
		return // ($0, $1: the last regular expression match)
	}
	at := source.Span{URI: fi.uri, Start: v.Pos, End: v.End}
	shown := "`$" + name + "`"
	link := func(defs []varDef) {
		lk := analysis.Link{At: at, Title: shown + ", set at:"}
		for _, d := range defs {
			lk.Files = append(lk.Files, d.at)
			lk.Notes = append(lk.Notes, d.note)
			l.used[d.at] = d
		}
		l.out = append(l.out, lk)
	}
	say := func(what string) { l.out = append(l.out, analysis.Link{At: at, Title: shown + ": " + what}) }
	if q, ok := strings.CutPrefix(name, "::"); ok {
		if strings.Contains(q, "::") {
			name = q // ($::a::b is $a::b)
		} else {
			if defs := l.topScope()[q]; len(defs) > 0 {
				link(defs)
			} else {
				say("a top-scope variable nothing in the workspace sets: a fact of the node (Facter), or set by a node classifier; undef otherwise")
			}
			return
		}
	}
	if i := strings.LastIndex(name, "::"); i >= 0 {
		class, vn := strings.ToLower(name[:i]), name[i+2:]
		cs := l.class(class)
		switch {
		case cs == nil:
			say("variable `" + vn + "` of class `" + class + "`, which the workspace does not define")
		case len(cs.vars[vn]) > 0:
			link(cs.vars[vn])
		default:
			say("class `" + class + "` neither has a parameter `" + vn + "` nor assigns it (undef)")
		}
		return
	}
	if what, ok := factVars[name]; ok {
		say(what)
		return
	}
	// local scope, then the lambdas' enclosing bodies
	body := sc
	for s := sc; s != nil; s = s.parent {
		if defs := s.vars[name]; len(defs) > 0 {
			link(defs)
			return
		}
		body = s
		if s.kind != 'l' {
			break
		}
	}
	switch body.kind {
	case 'd':
		if name == "title" || name == "name" {
			say("the title of this instance of `" + body.name + "`")
			return
		}
	case 'c':
		if name == "title" || name == "name" {
			say("the name of the class, `" + body.name + "`")
			return
		}
		// the inherited classes
		seen := map[string]bool{body.name: true}
		for parent := l.parentOf(body.name); parent != "" && !seen[parent]; parent = l.parentOf(parent) {
			seen[parent] = true
			cs := l.class(parent)
			if cs == nil {
				break
			}
			if defs := cs.vars[name]; len(defs) > 0 {
				var out []varDef
				for _, d := range defs {
					out = append(out, varDef{at: d.at, note: d.note + ", which this class inherits"})
				}
				link(out)
				return
			}
		}
	case 'f':
		say("not set in this scope (undef)")
		return
	}
	var defs []varDef
	if body.kind == 'c' || body.kind == 'd' {
		// the node scope, for the classes and defines a node declares
		// (where Puppet evaluates them: their enclosing scope)
		top := l.topScope()
		for _, n := range l.nodes {
			if n.declares[body.name] {
				for _, d := range n.vars[name] {
					defs = append(defs, varDef{at: d.at, note: d.note + ", which declares it"})
				}
			}
		}
		if len(defs) > 0 && top != nil {
			defs = append(defs, top[name]...) // (the other nodes read the top scope's)
			link(defs)
			return
		}
	}
	for _, d := range l.topScope()[name] {
		if body.kind != 't' || d.at.URI != fi.uri { // (the top scope reads its own file's in order: above)
			defs = append(defs, d)
		}
	}
	if len(defs) > 0 {
		link(defs)
		return
	}
	if body.kind == 'c' || body.kind == 'd' {
		say("not set in this scope nor the top scope of the workspace: a fact of the node (Facter), a variable of the node scope that declares it, or set by a node classifier; undef otherwise")
		return
	}
	say("nothing in the workspace sets it: a fact of the node (Facter), or set by a node classifier; undef otherwise")
}

// parentOf is the class a class inherits, "" when none.
func (l *varLinker) parentOf(class string) string {
	if p, ok := l.parents[class]; ok {
		return p
	}
	if l.a == nil {
		l.missed = true
		return ""
	}
	p := ""
	if ci := l.a.classes[class]; ci != nil && ci.def != nil {
		p = ci.def.Parent
	} else if def, _ := l.peekClass(class); def != nil {
		p = def.Parent
	}
	p = strings.ToLower(strings.TrimPrefix(p, "::"))
	l.parents[class] = p
	return p
}

// class is what a class's body sets, whatever runs it (nil when the
// workspace does not define it): its parameters and the assignments of
// its body outside lambdas, if arms included.
func (l *varLinker) class(name string) *varScope {
	if cs, ok := l.classes[name]; ok {
		return cs
	}
	if l.a == nil {
		l.missed = true
		return nil
	}
	l.classes[name] = nil
	def, fi := l.peekClass(name)
	if def == nil {
		return nil
	}
	cs := &varScope{kind: 'c', name: name}
	l.params(fi, def.Params, cs, "class `"+name+"`", false)
	l.body(fi, def.Body, cs, false)
	l.classes[name] = cs
	return cs
}

// peekClass finds a class's definition without loading its file into
// the analysis (a lazy one has not read every file): the loaded one, or
// the first file that may define it, parsed (from the parse cache).
func (l *varLinker) peekClass(name string) (*pp.ClassDef, *fileInfo) {
	a := l.a
	if ci := a.classes[name]; ci != nil && ci.def != nil && ci.file != nil && ci.file.src != nil {
		return a.classDef(ci), ci.file
	}
	lz := a.main.lazy
	if lz == nil || a.sys == nil {
		return nil, nil
	}
	for _, i := range lz.byName[name] {
		f := lz.files[i]
		if len(f.Text) > maxManifest {
			continue
		}
		ast := a.sys.parse(f)
		fi := &fileInfo{uri: f.URI, path: f.Path, src: f, ast: ast}
		if def := findClass(ast.Stmts, name, ""); def != nil {
			return def, fi
		}
	}
	return nil, nil
}

// findClass finds class name among statements (nested ones by their
// qualified names).
func findClass(stmts []pp.Node, name, prefix string) *pp.ClassDef {
	for _, st := range stmts {
		c, ok := st.(*pp.ClassDef)
		if !ok {
			continue
		}
		n := strings.ToLower(strings.TrimPrefix(c.Name, "::"))
		if prefix != "" && !strings.Contains(n, "::") {
			n = prefix + "::" + n
		}
		if n == name {
			return c
		}
		if d := findClass(c.Body, name, n); d != nil {
			return d
		}
	}
	return nil
}

// topScope is what the environment's main manifests assign outside
// classes, defines and nodes.
func (l *varLinker) topScope() map[string][]varDef {
	if l.top != nil {
		return l.top
	}
	if l.a == nil {
		l.missed = true
		return nil
	}
	l.top = map[string][]varDef{}
	a := l.a
	seen := map[string]bool{}
	read := func(fi *fileInfo) {
		if seen[fi.uri] || !a.envManifest(fi.path) || fi.ast == nil || fi.src == nil {
			return
		}
		seen[fi.uri] = true
		sc := &varScope{kind: 't'}
		for _, st := range fi.ast.Stmts {
			switch t := st.(type) {
			case *pp.NodeDef:
				ns := &varScope{kind: 'n', name: nodeNames(t)}
				l.body(fi, t.Body, ns, false)
				if len(ns.vars) > 0 {
					nv := nodeVars{vars: ns.vars, declares: map[string]bool{}}
					for _, w := range declaredBy(t) {
						nv.declares[w] = true
					}
					l.nodes = append(l.nodes, nv)
				}
				continue
			case *pp.ClassDef, *pp.DefineDef, *pp.FunctionDef, *pp.Block, *pp.TypeAlias:
				continue
			}
			l.visit(fi, st, sc, false)
		}
		for k, v := range sc.vars {
			l.top[k] = append(l.top[k], v...)
		}
	}
	for _, fi := range a.order {
		read(fi)
	}
	if lz := a.main.lazy; lz != nil && a.sys != nil {
		for _, f := range lz.files {
			if !seen[f.URI] && a.envManifest(f.Path) && !a.loaded(f) && len(f.Text) <= maxManifest {
				read(&fileInfo{uri: f.URI, path: f.Path, src: f, ast: a.sys.parse(f)})
			}
		}
	}
	return l.top
}

// nodeNames is how a node definition is named in a note.
func nodeNames(t *pp.NodeDef) string {
	var names []string
	for _, m := range t.Matches {
		switch mt := m.(type) {
		case *pp.Str:
			names = append(names, "'"+mt.Value+"'")
		case *pp.Name:
			names = append(names, mt.Value)
		case *pp.Default:
			names = append(names, "default")
		case *pp.Regex:
			names = append(names, "/"+mt.Value+"/")
		}
	}
	return strings.Join(names, ", ")
}

// metaWords says, for each metaparameter whose name is a link, what it
// does to the order.
var metaWords = map[string]string{
	"before":    "`before`: this resource runs before the targets",
	"require":   "`require`: this resource runs after the targets",
	"notify":    "`notify`: this resource runs before the targets, and a change to it refreshes them",
	"subscribe": "`subscribe`: this resource runs after the targets, and a change to any of them refreshes it",
	"stage":     "`stage`: the class runs with the resources of that run stage, in the stages' order (classes only)",
	"tag":       "`tag`: adds tags; it does not change the order (tags select what `--tags` runs and what collectors realize)",
	"schedule":  "`schedule`: Puppet applies the resource only in that schedule's time window, and skips it otherwise; the order does not change",
}

// metaLinks makes the names of the metaparameters of the open documents'
// resources links: to the resources the value names (the targets of the
// run links within it, sorted by place: links), with metaWords.
func (a *analyzer) metaLinks(links []analysis.Link) []analysis.Link {
	var out []analysis.Link
	for _, doc := range a.ws.Overlays() {
		fi := a.byURI[doc.URI]
		if fi == nil || fi.ast == nil {
			continue
		}
		for _, st := range fi.ast.Stmts {
			pp.Walk(st, func(n pp.Node) bool {
				at, ok := n.(*pp.Attr)
				if !ok || at.Value == nil {
					return true
				}
				words, ok := metaWords[at.Name]
				if !ok {
					return true
				}
				l := analysis.Link{At: source.Span{URI: fi.uri, Start: at.NameLoc.Pos, End: at.NameLoc.End}, Title: words, Gathers: true}
				v := at.Value.Span()
				i := sort.Search(len(links), func(i int) bool {
					if links[i].At.URI != fi.uri {
						return links[i].At.URI > fi.uri
					}
					return links[i].At.Start >= v.Pos
				})
				seen := map[*analysis.Node]bool{}
				for ; i < len(links) && links[i].At.URI == fi.uri && links[i].At.Start < v.End; i++ {
					if links[i].At.End > v.End {
						continue
					}
					for _, t := range links[i].Nodes {
						if !seen[t] {
							seen[t] = true
							l.Nodes = append(l.Nodes, t)
						}
					}
				}
				out = append(out, l)
				return true
			})
		}
	}
	return out
}
