package puppet

import (
	"reflect"
	"strings"

	"github.com/ordering-lsp/ordering-lsp/analysis"
	pp "github.com/ordering-lsp/ordering-lsp/parser/puppet"
	"github.com/ordering-lsp/ordering-lsp/source"
)

// An attribute line nobody reads, added or taken (follow.go's dropped
// judgement, widened). In an editor that pairs quotes, `mode => ` typed
// into a resource is text the parser drops, and the keystroke of the
// quotes, `mode => ''`, makes it an attribute: the tree gains one, and
// an analysis of every run that includes the class would learn only
// where things moved. Taking a line out is the same edit the other way.
// The old and new trees are the same but for positions and for one
// attribute of one resource body, and the result follows the edit when
//   - the resource is a plain declaration (no computed type) of a
//     built-in type whose attribute values the cutoff for values may
//     skip (inertType): a defined type's or a class's attributes are
//     parameters its body reads;
//   - no rule reads the attribute: not readAttrs, not a name a collector
//     of the workspace queries, no collector querying what we cannot
//     read; written `name => value` (not `+>`, not the `*` splat);
//   - no other attribute of its body has its name, and the body has no
//     splat: Puppet refuses the resource then ("The attribute 'mode' has
//     already been set", Puppet 7.23), which no analysis reports today
//     but one may, and a follow must not keep it from saying so;
//   - its value is a literal that reads nothing (oneLiteral: a quoted
//     string that interpolates nothing, a bare word that is no keyword, a
//     number, a boolean), or an array of such literals: evaluating them
//     asks nothing of the catalog, the scope or the workspace;
//   - the edit touches no other node a result quotes (untouched, with
//     that attribute left out: the added attribute's name usually lies
//     before the edit, typed while the line was dropped), and the file's
//     syntax errors come and go as follow.go's rule allows.
// What the analysis computes from such an attribute is the attribute
// itself, kept with the resource and read by no rule: every node, edge,
// step, diagnostic and link is the old one moved, but the span of the
// resource's body (a node's full span), which ends at its last
// attribute: treePair records the new end where it is not the old one
// moved (analysis.ShiftResultFull). analysistest.CheckAttrEdits holds it
// to a fresh analysis, typing attribute lines into every fixture.

// treePair walks an old and a new syntax tree side by side: they must be
// the same but for where their nodes are, and every place of the old
// must be the new one's moved through the edit m (which is what a moved
// result's spans are), but the ends of resource bodies (ends). With
// attr set, it lets one resource body of one tree hold one attribute
// more than the other's (extra).
type treePair struct {
	m    analysis.Shift
	ends map[source.Span]source.Span // a body's old span -> its new one, where not the old one moved
	attr bool                        // one attribute more or fewer is allowed
	// the attribute one tree has more, in the new tree (added) or the
	// old, with its resource and body there
	extra      *pp.Attr
	added      bool
	res        *pp.Resource
	body       *pp.ResourceBody
	resA, resB *pp.Resource // the resources being walked in each tree
	// vals: one attribute may have another value in the new tree (the
	// same name and operator; patchmove.go judges it): valOld, valNew,
	// with valRes, the new tree's resource
	vals           bool
	valOld, valNew *pp.Attr
	valRes         *pp.Resource
	// assign: a body may hold one assignment more than the other's, or
	// one of another value (followassign.go): asgOld, asgNew, the
	// statement in each tree that has it
	assign         bool
	asgOld, asgNew *pp.Binary
	parOld, parNew *pp.Param // (a parameter, likewise)
}

var (
	bodyType    = reflect.TypeOf(pp.ResourceBody{})
	resPtrType  = reflect.TypeOf(&pp.Resource{})
	attrsType   = reflect.TypeOf([]*pp.Attr{})
	attrsField  = fieldIndex(bodyType, "Attrs")
	bodyLocType = fieldIndex(bodyType, "Loc")
)

// fieldsNamed maps each of the types of structs to the index of its field
// name.
func fieldsNamed(name string, structs ...any) map[reflect.Type]int {
	m := make(map[reflect.Type]int, len(structs))
	for _, x := range structs {
		t := reflect.TypeOf(x)
		m[t] = fieldIndex(t, name)
	}
	return m
}

func fieldIndex(t reflect.Type, name string) int {
	f, ok := t.FieldByName(name)
	if !ok || len(f.Index) != 1 {
		panic("puppet: no field " + name + " in " + t.String())
	}
	return f.Index[0]
}

// place reports whether the old place a moved through the edit is the new
// place b; a body's (isBody) may end elsewhere, which ends records.
func (w *treePair) place(a, b pp.Loc, isBody bool) bool {
	if a == (pp.Loc{}) && b == (pp.Loc{}) {
		return true // no place: an element the text does not have
	}
	old := source.Span{URI: w.m.URI, Start: a.Pos, End: a.End}
	moved, ok := w.m.Span(old)
	if ok && moved.Start == b.Pos && moved.End == b.End {
		return true
	}
	if !isBody || a.Pos >= w.m.Pre || b.Pos != a.Pos {
		return false // only the end of a body that starts before the edit
	}
	if w.ends == nil {
		w.ends = map[source.Span]source.Span{}
	}
	w.ends[old] = source.Span{URI: w.m.URI, Start: b.Pos, End: b.End}
	return true
}

// same is sameTrees with places (above).
func (w *treePair) same(a, b reflect.Value) bool {
	if a.Kind() != b.Kind() || a.Type() != b.Type() {
		return false
	}
	switch a.Kind() {
	case reflect.Interface, reflect.Pointer:
		if a.IsNil() || b.IsNil() {
			return a.IsNil() == b.IsNil()
		}
		if a.Type() == resPtrType {
			ra, rb := w.resA, w.resB
			w.resA, w.resB = a.Interface().(*pp.Resource), b.Interface().(*pp.Resource)
			defer func() { w.resA, w.resB = ra, rb }()
		}
		return w.same(a.Elem(), b.Elem())
	case reflect.Struct:
		if a.Type() == locType {
			return w.place(a.Interface().(pp.Loc), b.Interface().(pp.Loc), false)
		}
		isBody := a.Type() == bodyType
		stmts, hasStmts := bodyFields[a.Type()]
		params, hasParams := paramFields[a.Type()]
		for i := 0; i < a.NumField(); i++ {
			switch {
			case w.assign && hasStmts && i == stmts:
				if !w.stmts(a.Field(i), b.Field(i)) {
					return false
				}
			case w.assign && hasParams && i == params:
				if !w.params(a.Field(i), b.Field(i)) {
					return false
				}
			case isBody && i == bodyLocType:
				if !w.place(a.Field(i).Interface().(pp.Loc), b.Field(i).Interface().(pp.Loc), true) {
					return false
				}
			case isBody && i == attrsField:
				if !w.attrs(a.Field(i), b.Field(i), a.Addr().Interface().(*pp.ResourceBody), b.Addr().Interface().(*pp.ResourceBody)) {
					return false
				}
			case !w.same(a.Field(i), b.Field(i)):
				return false
			}
		}
		return true
	case reflect.Slice:
		if a.Len() != b.Len() {
			return false
		}
		for i := 0; i < a.Len(); i++ {
			if !w.same(a.Index(i), b.Index(i)) {
				return false
			}
		}
		return true
	}
	return sameTrees(a, b)
}

// attrs compares the attributes of two resource bodies (ba, bb): the
// same, or (once in the trees) one more in one of them.
func (w *treePair) attrs(a, b reflect.Value, ba, bb *pp.ResourceBody) bool {
	d := b.Len() - a.Len()
	if d == 0 && !w.vals {
		return w.same(a, b)
	}
	if d == 0 {
		for i := 0; i < a.Len(); i++ {
			if w.same(a.Index(i), b.Index(i)) {
				continue
			}
			x, y := a.Index(i).Interface().(*pp.Attr), b.Index(i).Interface().(*pp.Attr)
			if w.valOld != nil || w.extra != nil || w.resB == nil || x.Name != y.Name || x.Op != y.Op ||
				!w.place(x.NameLoc, y.NameLoc, false) {
				return false
			}
			w.valOld, w.valNew, w.valRes = x, y, w.resB
		}
		return true
	}
	if !w.attr || w.extra != nil || d != 1 && d != -1 || w.resA == nil {
		return false
	}
	short, long := a, b
	w.added, w.res, w.body = d == 1, w.resB, bb
	if d == -1 {
		short, long = b, a
		w.res, w.body = w.resA, ba
	}
	k := firstUnlike(short, long) // the extra one
	w.extra = long.Index(k).Interface().(*pp.Attr)
	return w.sameBut(short, long, k, d == -1)
}

// firstUnlike is the first element of short (a list one shorter than
// long) that is not long's at the same index, but for places.
func firstUnlike(short, long reflect.Value) int {
	k := 0
	for k < short.Len() && sameTrees(short.Index(k), long.Index(k)) {
		k++
	}
	return k
}

// sameBut compares short with long but for long's element k (w.same);
// old says long is the old tree's.
func (w *treePair) sameBut(short, long reflect.Value, k int, old bool) bool {
	for i := 0; i < short.Len(); i++ {
		j := i
		if i >= k {
			j = i + 1
		}
		x, y := short.Index(i), long.Index(j)
		if old {
			x, y = y, x
		}
		if !w.same(x, y) {
			return false
		}
	}
	return true
}

// isChange: n is the attribute or the assignment the trees differ by.
func (w *treePair) isChange(n pp.Node) bool {
	switch t := n.(type) {
	case *pp.Attr:
		return t == w.extra
	case *pp.Binary:
		return t == w.asgOld || t == w.asgNew
	case *pp.Param:
		return t == w.parOld || t == w.parNew
	}
	return false
}

// attrFollows is the judgement of the attribute one tree has more (see
// above); text is the text of the tree that has it.
func (j *followJudge) attrFollows(w *treePair, text []byte) bool {
	a, r := w.extra, w.res
	if a == nil || r == nil || r.TypeExpr != nil || !inertType(strings.ToLower(r.Type)) {
		return false
	}
	if a.Op != "=>" || a.Name == "*" || readAttrs[a.Name] || j.queried[a.Name] || j.anyAttr {
		return false
	}
	if known, ok := coreAttr(strings.ToLower(r.Type), a.Name); known && !ok {
		return false // an attribute Puppet refuses is the analysis's to report (attrcheck.go)
	}
	for _, o := range w.body.Attrs {
		if o != a && (o.Name == a.Name || o.Name == "*") {
			return false
		}
	}
	return literalValue(a.Value, text, true)
}

// literalValue reports whether v, written in text, is a literal that
// reads nothing (oneLiteral), or (array) an array of them.
func literalValue(v pp.Node, text []byte, array bool) bool {
	switch t := v.(type) {
	case *pp.Str:
		if t.Interpolated() {
			return false
		}
	case *pp.Name, *pp.Num, *pp.Bool:
	case *pp.Array:
		if !array {
			return false
		}
		for _, e := range t.Elems {
			if !literalValue(e, text, false) {
				return false
			}
		}
		return true
	default:
		return false
	}
	l := v.Span()
	return l.Pos >= 0 && l.Pos < l.End && l.End <= len(text) && oneLiteral(text[l.Pos:l.End])
}

// mayTouch is mayTake for the nodes untouched meets: an attribute, or a
// statement that may be an assignment nobody reads (followassign.go).
func (j *followJudge) mayTouch(n pp.Node) bool {
	if a, ok := n.(*pp.Attr); ok {
		return j.mayTake(a)
	}
	if b, _ := plainAssign(n); b != nil {
		return true
	}
	p, _ := plainParam(n)
	return p != nil
}

// mayTake reports whether a may be the attribute an edit takes (its
// name not read, its value written as a literal): the quick look at the
// old tree, before the new text is parsed (an edit of a value a rule
// reads ends there, as before attributes were followed).
func (j *followJudge) mayTake(a *pp.Attr) bool {
	if a.Name == "*" || readAttrs[a.Name] || j.queried[a.Name] || j.anyAttr {
		return false
	}
	switch a.Value.(type) {
	case *pp.Str, *pp.Name, *pp.Num, *pp.Bool, *pp.Array:
		return true
	}
	return false
}
