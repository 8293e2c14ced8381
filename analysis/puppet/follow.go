package puppet

import (
	"reflect"
	"strings"
	"sync"

	"github.com/ordering-lsp/ordering-lsp/analysis"
	pp "github.com/ordering-lsp/ordering-lsp/parser/puppet"
	"github.com/ordering-lsp/ordering-lsp/source"
)

// How a result follows an edit of code without an analysis
// (analysis.Result.Follow): a value nobody reads (inert.go), text the
// parser drops, or an attribute line nobody reads (followattr.go).
//
// Text the parser drops: while a statement is typed into a class it does
// not parse, and the parser keeps the body's statements that do, and of
// a statement being typed into, all but the line being typed (parser/puppet
// recoverBody, recoverStatement): the class reads as it did before the
// line was begun, with a syntax error. Each keystroke until the
// statement parses changes only that text: the syntax tree is the one
// the last analysis read, modulo positions, and a fresh analysis differs
// from the last result by where things are and by the file's syntax
// errors. So when
//   - the old and new trees are the same but for positions (and errors),
//     and every place of the old tree, moved through the edit, is the
//     new tree's (treePair): a result's spans are moved so; but for the
//     end of a resource body (a node's full span), which ends at its last
//     attribute, so that a comma typed after it moves its end past the
//     edit: the new end is given to the move (analysis.ShiftResultFull),
//   - the edit touches no node of either tree whose text a result may
//     quote (only text between the statements kept, within a definition's
//     body around them, or between the words of a resource declaration),
//     and
//   - the file's runs refuse or run as before (a file with code of its own
//     refuses its run on a syntax error: errors must not come or go),
// the result moves through the edit and its syntax errors of the file
// are read again. analysistest.CheckDroppedEdits holds it to a fresh
// analysis, typing half statements into every fixture.

// follow is Result.Follow for a Puppet result.
func (j *followJudge) follow(r *analysis.Result, old, cur *source.File, m analysis.Shift, line func(string, int) int) (*analysis.Result, bool) {
	if ok, ends := j.inert(old, cur, m); ok {
		return analysis.ShiftResultFull(r, m, line, ends) // (a literal: no variable read changes)
	}
	return j.dropped(r, old, cur, m, line)
}

// followJudge is what one complete analysis read that decides how its
// result follows an edit: the attribute names its workspace's collectors
// query (inert.go), and its files' order and kinds.
type followJudge struct {
	sys     *System
	queried map[string]bool
	anyAttr bool // a query names an attribute we cannot read
	// order: each file's place in the analysis's load (its syntax errors
	// are reported in that order); topLevel: the files with code besides
	// definitions or a plan's apply blocks (their own runs refuse to run
	// on a syntax error), and those a run read whole (a file dependency:
	// where Puppet looks for a name nothing defines, whose syntax error
	// the run's "Could not find class" names)
	order    map[string]int
	topLevel map[string]bool
	// manifests: the texts of the files the analysis read, where a
	// variable may be read (followassign.go); nil: not known
	manifests []*source.File
	// dataFiles: the Hiera data a class parameter's automatic lookup may
	// read (hieraSets), in ws
	dataFiles []string
	ws        *source.Workspace
	// vars: what the analysis's variable links learnt (varlinks.go)
	vars *varLinker
	// the tree of the text the result read, kept between keystrokes
	mu      sync.Mutex
	oldFile *source.File
	oldTree *pp.File
}

// followJudge returns how the result of a follows an edit (follow.go), or
// nil when a did not read the whole workspace (a focused or canceled
// analysis, or one of a single entry file).
func (s *System) followJudge(a *analyzer) func(*analysis.Result, *source.File, *source.File, analysis.Shift, func(string, int) int) (*analysis.Result, bool) {
	if a.strict || a.req.Once || a.partial || !a.loadedAll || a.canceled() {
		return nil
	}
	j := &followJudge{sys: s, queried: map[string]bool{}, order: make(map[string]int, len(a.order)), topLevel: map[string]bool{},
		manifests: manifestsOf(a.order), dataFiles: a.hieraDataFiles(), ws: a.ws, vars: a.varLinker}
	for i, fi := range a.order {
		j.order[fi.uri] = i
		if fi.topLevel || len(fi.applies) > 0 {
			// (a plan's apply blocks are runs of its file too)
			j.topLevel[fi.uri] = true
		}
	}
	for _, sn := range a.nextCache {
		for k := range sn.deps {
			if k.kind == 'f' {
				j.topLevel[k.name] = true
			}
		}
	}
	s.mu.Lock()
	prev := s.queries
	next := make(map[*pp.File]fileQueries, len(a.order))
	for _, fi := range a.order {
		if fi.ast == nil {
			s.mu.Unlock()
			return nil // let go (a one-shot analysis): not known
		}
		q, ok := prev[fi.ast]
		if !ok {
			q = queriesOf(fi.ast)
		}
		next[fi.ast] = q
		for _, n := range q.names {
			j.queried[n] = true
		}
		j.anyAttr = j.anyAttr || q.any
	}
	s.queries = next
	s.mu.Unlock()
	return j.follow
}

// fileQueries are the attribute names one file's collectors query.
type fileQueries struct {
	names []string
	any   bool
}

func queriesOf(f *pp.File) fileQueries {
	var q fileQueries
	var query func(n pp.Node)
	query = func(n pp.Node) {
		switch t := n.(type) {
		case nil:
		case *pp.Paren:
			query(t.X)
		case *pp.Binary:
			switch t.Op {
			case "and", "or":
				query(t.Left)
				query(t.Right)
			default:
				switch l := t.Left.(type) {
				case *pp.Name:
					q.names = append(q.names, l.Value)
				case *pp.Str:
					if l.Interpolated() {
						q.any = true
					} else {
						q.names = append(q.names, l.Value)
					}
				default:
					q.any = true
				}
			}
		default:
			q.any = true
		}
	}
	for _, s := range f.Stmts {
		pp.Walk(s, func(n pp.Node) bool {
			if c, ok := n.(*pp.Collector); ok {
				query(c.Query)
			}
			return true
		})
	}
	return q
}

// tree parses f, keeping the tree of the text the result read (old: the
// same while the user types) for the next keystroke.
func (j *followJudge) tree(f *source.File) *pp.File {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.oldFile == f {
		return j.oldTree
	}
	t := pp.Parse(f.Text)
	j.oldFile, j.oldTree = f, t
	return t
}

// dropped moves r through an edit of text the parser drops (see above),
// or of one attribute line nobody reads (followattr.go).
func (j *followJudge) dropped(r *analysis.Result, old, cur *source.File, m analysis.Shift, line func(string, int) int) (*analysis.Result, bool) {
	uri := cur.URI
	at := j.order[uri]
	w, cf := j.droppedTrees(old, cur, m)
	if w == nil {
		return nil, false
	}
	m = w.m // (perhaps slid to its line's start)
	// The file's syntax errors are read again: a fresh analysis reports
	// every file's after all its other diagnostics, file by file in load
	// order (Analyze). A result laid out otherwise is analysed.
	rest := make([]analysis.Diagnostic, 0, len(r.Diags))
	var syntax []analysis.Diagnostic
	last := -1
	for _, d := range r.Diags {
		if d.Code != "syntax" {
			if syntax != nil {
				return nil, false
			}
			rest = append(rest, d)
			continue
		}
		i, ok := j.order[d.At.URI]
		if !ok || i < last {
			return nil, false
		}
		last = i
		if d.At.URI != uri {
			syntax = append(syntax, d)
		} else if syntax == nil {
			syntax = []analysis.Diagnostic{}
		}
	}
	base := &analysis.Result{System: r.System, Graph: r.Graph, Runs: r.Runs, Diags: append(rest, syntax...), Links: r.Links,
		Files: r.Files, Nodes: r.Nodes, Partial: r.Partial, Follow: r.Follow}
	moved, ok := analysis.ShiftResultFull(base, m, line, w.ends)
	if !ok {
		return nil, false
	}
	ds := moved.Diags[:len(rest):len(rest)]
	others := moved.Diags[len(rest):]
	k := 0
	for k < len(others) && j.order[others[k].At.URI] < at {
		k++
	}
	ds = append(ds, others[:k]...)
	for _, e := range cf.Errors {
		ds = append(ds, analysis.Diagnostic{At: source.Span{URI: uri, Start: e.Pos, End: e.End}, Severity: analysis.Error, Code: "syntax", Message: e.Msg, Source: "puppet"})
	}
	moved.Diags = append(ds, others[k:]...)
	if j.vars != nil {
		// the variables the edited document reads, linked as a fresh
		// analysis would (a typed assignment's value reads some)
		return j.vars.relink(moved, cur, cf)
	}
	return moved, true
}

// droppedTrees judges the trees of the texts before and after the edit m
// (see above and followattr.go): the pair walked (with the spans of
// resource bodies that do not move as m says, the attribute or binding
// added or taken, and the edit, m or m slid to its line's start:
// lineStart) and the new tree, or nil when only an analysis knows. The
// new text is parsed once for both.
func (j *followJudge) droppedTrees(old, cur *source.File, m analysis.Shift) (*treePair, *pp.File) {
	uri := cur.URI
	if !strings.HasSuffix(cur.Path, ".pp") && !strings.HasSuffix(uri, ".pp") {
		return nil, nil
	}
	if _, known := j.order[uri]; !known || len(cur.Text) > maxManifest || len(old.Text) > maxManifest {
		return nil, nil
	}
	of := j.tree(old)
	var cf *pp.File
	edits := []analysis.Shift{m}
	if l := lineStart(m, old.Text, cur.Text); l != m {
		edits = append(edits, l)
	}
	for _, m := range edits {
		if !untouched(of.Stmts, m.Pre, m.OldEnd, j.mayTouch) {
			continue // before the new text is parsed: most edits end here
		}
		if cf == nil {
			cf = pp.Parse(cur.Text)
			if j.topLevel[uri] && (len(of.Errors) > 0) != (len(cf.Errors) > 0) {
				return nil, nil
			}
		}
		if w := j.treesFollow(of, cf, old, cur, m); w != nil {
			return w, cf
		}
	}
	return nil, nil
}

// treesFollow is droppedTrees' judgement of the trees through the edit m:
// the same but for places, or for one attribute (followattr.go) or one
// binding (followassign.go) that follows.
func (j *followJudge) treesFollow(of, cf *pp.File, old, cur *source.File, m analysis.Shift) *treePair {
	w := &treePair{m: m, attr: true, assign: true}
	if !w.same(reflect.ValueOf(of.Stmts), reflect.ValueOf(cf.Stmts)) {
		return nil
	}
	if w.changed() && !j.assignFollows(w, cur.URI, old.Text, cur.Text) {
		return nil
	}
	if w.extra != nil {
		text := old.Text
		if w.added {
			text = cur.Text
		}
		if !j.attrFollows(w, text) {
			return nil
		}
	}
	skip := w.isChange
	if !untouched(of.Stmts, m.Pre, m.OldEnd, skip) || !untouched(cf.Stmts, m.Pre, m.CurEnd, skip) {
		return nil
	}
	return w
}

// untouched reports whether the edit [from, to] touches no node of the
// statements whose text a result may quote: it lies between them, inside
// a definition's body between the statements kept there, or inside a
// resource declaration between its words (`file{}` typed `file { }`, a
// comma after the last attribute).
//
// skip names the attributes and statements the edit may touch (the one
// added, taken or typed over: followattr.go, followassign.go).
func untouched(stmts []pp.Node, from, to int, skip func(pp.Node) bool) bool {
	// an edit that only touches a node's ends leaves its text as it was:
	// what it adds or takes there is outside it, or the tree differs
	off := func(l pp.Loc) bool { return to <= l.Pos || from >= l.End }
	for _, s := range stmts {
		l := s.Span()
		if off(*l) || skip != nil && skip(s) {
			continue
		}
		var body []pp.Node
		head := l.Pos
		switch d := s.(type) {
		case *pp.Resource:
			if d.TypeExpr != nil || !off(d.TypeLoc) || from <= l.Pos || to >= l.End {
				return false
			}
			for _, b := range d.Bodies {
				if b.Title != nil && !off(*b.Title.Span()) {
					return false
				}
				for _, a := range b.Attrs {
					if skip != nil && skip(a) {
						continue // the one attribute added or taken (followattr.go)
					}
					if !off(a.NameLoc) || a.Value != nil && !off(*a.Value.Span()) {
						return false
					}
				}
			}
			continue
		case *pp.ClassDef:
			body, head = d.Body, max(d.NameLoc.End, d.ParentLoc.End)
			h, ok := paramsHead(d.Params, head, from, to, skip)
			if !ok {
				return false
			}
			head = h
		case *pp.DefineDef:
			body, head = d.Body, d.NameLoc.End
			h, ok := paramsHead(d.Params, head, from, to, skip)
			if !ok {
				return false
			}
			head = h
		case *pp.NodeDef:
			body = d.Body
			for _, mt := range d.Matches {
				head = max(head, mt.Span().End)
			}
			if d.Parent != nil {
				head = max(head, d.Parent.Span().End)
			}
		default:
			return false
		}
		// inside the braces: after the header, before the closing one
		if from <= head || to >= l.End || !untouched(body, from, to, skip) {
			return false
		}
	}
	return true
}

// paramsHead is where a definition's header ends for untouched: after
// its name and parent (head) and its parameters. An edit between or of
// parameters touching none but the one skip names (followassign.go) is
// inside the definition: head is then where the name ends. False: it
// touches the name, the parent or another parameter.
func paramsHead(params []*pp.Param, head, from, to int, skip func(pp.Node) bool) (int, bool) {
	end := head
	for _, p := range params {
		end = max(end, p.End)
	}
	if from > end || from <= head {
		return end, true // (after the header, or on the name: as before)
	}
	for _, p := range params {
		if !(to <= p.Pos || from >= p.End) && (skip == nil || !skip(p)) {
			return head, false
		}
	}
	return head, true
}

var locType = reflect.TypeOf(pp.Loc{})

// sameTrees reports whether two syntax trees are the same but for where
// their nodes are (every pp.Loc is skipped).
func sameTrees(a, b reflect.Value) bool {
	if a.Kind() != b.Kind() || a.Type() != b.Type() {
		return false
	}
	switch a.Kind() {
	case reflect.Interface, reflect.Pointer:
		if a.IsNil() || b.IsNil() {
			return a.IsNil() == b.IsNil()
		}
		return sameTrees(a.Elem(), b.Elem())
	case reflect.Struct:
		if a.Type() == locType {
			return true
		}
		for i := 0; i < a.NumField(); i++ {
			if a.Type().Field(i).Type != locType && !sameTrees(a.Field(i), b.Field(i)) {
				return false
			}
		}
		return true
	case reflect.Slice:
		if a.Len() != b.Len() {
			return false
		}
		for i := 0; i < a.Len(); i++ {
			if !sameTrees(a.Index(i), b.Index(i)) {
				return false
			}
		}
		return true
	case reflect.String:
		return a.String() == b.String()
	case reflect.Bool:
		return a.Bool() == b.Bool()
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return a.Int() == b.Int()
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return a.Uint() == b.Uint()
	case reflect.Float32, reflect.Float64:
		return a.Float() == b.Float()
	}
	return false // maps, functions, channels: not in a syntax tree
}
