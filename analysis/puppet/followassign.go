package puppet

import (
	"bytes"
	"reflect"

	pp "github.com/ordering-lsp/ordering-lsp/parser/puppet"
	"github.com/ordering-lsp/ordering-lsp/source"
)

// An assignment nobody reads, added, taken out or given another literal
// value (follow.go's dropped judgement and patchmove.go's moves, widened
// once more). A variable is typed before the code that uses it:
// `$ssl_dir = ''` is an assignment as soon as the editor pairs the quotes,
// and every key typed into its value after that is another one. Each was
// a complete analysis of every run that includes the class (operations-
// puppet's profile::base: 300 runs built again, ~5 s) that learnt only
// where things moved: what the analysis makes of an assignment is the
// variable's value in its scope, and a value nobody looks up is in no
// node, edge, step, diagnostic or link. So the result follows the edit
// when the old and new trees are the same but for places and for one
// statement of a class, define or node body that is, in the tree that has
// it (in both, for a value typed over),
//   - `$name = value`, a value whose evaluation reads values and does
//     nothing else, and cannot fail (readsOnly: a literal, a variable,
//     an element of one, a string interpolating such, arrays and hashes
//     of them; no call, no operator), name a plain local name: not
//     qualified (Puppet refuses `$a::b = 1`), not a number ($1 is a
//     match), not one Puppet sets itself ($title, $name, $facts,
//     $trusted, $server_facts, $module_name, $caller_module_name:
//     assigning them is an error);
//   - and the name, as a word, is written nowhere else in the
//     workspace's manifests (the file outside the assignment, every other
//     file the analysis read): no `$name`, `$class::name`, `"${name}"`,
//     `getvar('…::name')` or `defined('$name')` can read it, no other
//     assignment makes it a reassignment, and no parameter of the body
//     has the name. A word in a title or a comment keeps the rule from
//     applying too (it is a text search): the edit is then analysed.
// Templates are not read by the analysis (template() is a value it does
// not compute), so what an .erb or .epp file reads does not change a
// result. analysistest.CheckAssignEdits holds it to a fresh analysis,
// typing such assignments into every fixture.

// A parameter nobody reads is the same kind of binding: a class's or a
// define's parameter added, taken out, or its default typed over, whose
// name is written nowhere else in the workspace's manifests (no body
// reads it, no `class { 'x': name => ... }` or instance passes it), whose
// default is none or one that only reads values, and whose name Puppet
// does not keep for itself (builtinVars, the metaparameters): its value
// (from a declaration, Hiera's automatic lookup, or the default) is in
// no node, edge, step, diagnostic or link. The edit may then lie in the
// definition's header, touching no other parameter (untouched).

// hieraSets: some data file a parameter's automatic lookup may read has
// a key that ends in ::name (whichever class it is of: a text search), or
// the data files are not known.
func (j *followJudge) hieraSets(name string) bool {
	if j.dataFiles == nil {
		return true
	}
	for _, p := range j.dataFiles {
		f := j.ws.Lookup(p)
		if f == nil {
			continue
		}
		for _, q := range []string{":", "':", `":`, " :"} {
			if bytes.Contains(f.Text, []byte("::"+name+q)) {
				return true
			}
		}
	}
	return false
}

// plainParam is n as a parameter of a plain name a definition may have.
func plainParam(n pp.Node) (*pp.Param, string) {
	p, ok := n.(*pp.Param)
	if !ok || p.Splat || !plainVarName(p.Name) || builtinVars[p.Name] || otherMetaparams[p.Name] {
		return nil, ""
	}
	if _, meta := metaparams[p.Name]; meta {
		return nil, ""
	}
	return p, p.Name
}

// plainAssign is n as an assignment to a plain local variable (see
// above): the statement and the variable's name; nil if it is not one.
func plainAssign(n pp.Node) (*pp.Binary, string) {
	b, ok := n.(*pp.Binary)
	if !ok || b.Op != "=" {
		return nil, ""
	}
	v, ok := b.Left.(*pp.Var)
	if !ok || !plainVarName(v.Name) || builtinVars[v.Name] {
		return nil, ""
	}
	return b, v.Name
}

// plainVarName: a local variable's name Puppet lets a body assign
// (lower case letters, digits and underscores, not starting with a
// digit).
func plainVarName(s string) bool {
	if s == "" || s[0] >= '0' && s[0] <= '9' {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_') {
			return false
		}
	}
	return true
}

// paramFields finds the Params of the definitions whose parameters may
// be added, taken out or given another default (treePair.params).
var paramFields = fieldsNamed("Params", pp.ClassDef{}, pp.DefineDef{})

// params compares two definitions' parameters: the same, or (once in the
// trees) one parameter more in one of them, or one with another default
// or name (parOld, parNew).
func (w *treePair) params(a, b reflect.Value) bool {
	d := b.Len() - a.Len()
	if d == 0 {
		for i := 0; i < a.Len(); i++ {
			x, nx := plainParam(a.Index(i).Interface().(*pp.Param))
			y, ny := plainParam(b.Index(i).Interface().(*pp.Param))
			if x == nil || y == nil || sameTrees(a.Index(i), b.Index(i)) || !sameTrees(reflect.ValueOf(&x.Type).Elem(), reflect.ValueOf(&y.Type).Elem()) {
				if !w.same(a.Index(i), b.Index(i)) {
					return false
				}
				continue
			}
			// (a name typed over: the old parameter gone, the new one there)
			if w.changed() || nx == ny && !w.place(x.NameLoc, y.NameLoc, false) || !w.place(pp.Loc{Pos: x.Pos, End: x.Pos}, pp.Loc{Pos: y.Pos, End: y.Pos}, false) {
				return false
			}
			w.parOld, w.parNew = x, y
		}
		return true
	}
	return w.oneMore(a, b, func(v reflect.Value, old bool) bool {
		p, _ := plainParam(v.Interface().(*pp.Param))
		if p == nil {
			return false
		}
		if old {
			w.parOld = p
		} else {
			w.parNew = p
		}
		return true
	})
}

// oneMore compares two lists of which one is one element longer, but for
// that element, which bind takes as the binding the trees differ by (old:
// it is the old tree's) or refuses; false when the lengths differ
// otherwise, or the walk met a binding before.
func (w *treePair) oneMore(a, b reflect.Value, bind func(v reflect.Value, old bool) bool) bool {
	d := b.Len() - a.Len()
	if d != 1 && d != -1 || w.changed() {
		return false
	}
	short, long := a, b
	if d == -1 {
		short, long = b, a
	}
	k := firstUnlike(short, long)
	return bind(long.Index(k), d == -1) && w.sameBut(short, long, k, d == -1)
}

// changed: the walk met the one binding the trees may differ by.
func (w *treePair) changed() bool {
	return w.asgOld != nil || w.asgNew != nil || w.parOld != nil || w.parNew != nil
}

// bodyFields finds the Body of the definitions whose statements may gain
// or lose an assignment (treePair.stmts): the struct type -> field index.
var bodyFields = fieldsNamed("Body", pp.ClassDef{}, pp.DefineDef{}, pp.NodeDef{})

// stmts compares two bodies' statements: the same, or (once in the
// trees, with assign set) one assignment more in one of them, or one
// assignment of one name with another value (asgOld, asgNew: the
// statement in the old tree and in the new).
func (w *treePair) stmts(a, b reflect.Value) bool {
	d := b.Len() - a.Len()
	if d == 0 {
		for i := 0; i < a.Len(); i++ {
			x, y := a.Index(i).Interface().(pp.Node), b.Index(i).Interface().(pp.Node)
			bx, nx := plainAssign(x)
			by, ny := plainAssign(y)
			if bx == nil || by == nil || nx != ny || sameTrees(a.Index(i), b.Index(i)) {
				if !w.same(a.Index(i), b.Index(i)) {
					return false
				}
				continue
			}
			if w.changed() || !w.place(bx.Left.(*pp.Var).Loc, by.Left.(*pp.Var).Loc, false) {
				return false
			}
			w.asgOld, w.asgNew = bx, by
		}
		return true
	}
	return w.oneMore(a, b, func(v reflect.Value, old bool) bool {
		x, _ := plainAssign(v.Interface().(pp.Node))
		if x == nil {
			return false
		}
		if old {
			w.asgOld = x
		} else {
			w.asgNew = x
		}
		return true
	})
}

// assignFollows is the judgement of the assignment the trees differ by
// (treePair.stmts; see above): ot and nt are the texts of the old and
// new tree, uri their file's.
func (j *followJudge) assignFollows(w *treePair, uri string, ot, nt []byte) bool {
	if w.extra != nil || w.valOld != nil || j.manifests == nil {
		return false // (one change at a time; the workspace's texts not known)
	}
	// Each binding the trees differ by (the old one in the old text, the
	// new in the new: a name typed over is one of each) binds a name
	// written nowhere else: in its file but for itself, and in no other
	// manifest.
	seen := false
	for _, s := range []struct {
		n    pp.Node
		text []byte
	}{{w.asgOld, ot}, {w.asgNew, nt}, {w.parOld, ot}, {w.parNew, nt}} {
		var name string
		var value pp.Node
		switch b := s.n.(type) {
		case *pp.Binary:
			if b == nil {
				continue
			}
			_, name = plainAssign(b)
			value = b.Right
		case *pp.Param:
			if b == nil {
				continue
			}
			_, name = plainParam(b)
			value = b.Default
			if name != "" && j.hieraSets(name) {
				return false // (its class's key may have data: a link, hieralinks.go)
			}
		}
		if name == "" || value != nil && !readsOnly(value, s.text) {
			return false
		}
		at := s.n.Span()
		if wordAt(s.text[:at.Pos], name) || wordAt(s.text[at.End:], name) {
			return false
		}
		for _, f := range j.manifests {
			if f.URI != uri && wordAt(f.Text, name) {
				return false
			}
		}
		seen = true
	}
	return seen
}

// readsOnly: evaluating v (written in text) reads values and does
// nothing else: a literal (literalValue), undef, a variable, an element of one
// (`$facts['os']['family']`: keys that are literals), a string that
// interpolates such, an array or a hash of such. No call (a function may
// declare, fail, or be one nobody defines), no operator, no selector.
func readsOnly(v pp.Node, text []byte) bool {
	switch t := v.(type) {
	case *pp.Var, *pp.Undef:
		return true
	case *pp.Access:
		if _, isType := t.X.(*pp.TypeRef); isType || len(t.Args) != 1 || !literalValue(t.Args[0], text, false) {
			return false
		}
		switch t.X.(type) {
		case *pp.Var, *pp.Access:
			return readsOnly(t.X, text)
		}
		return false
	case *pp.Str:
		if !t.Interpolated() {
			return literalValue(t, text, false)
		}
		for _, p := range t.Parts {
			if p.Expr != nil && !readsOnly(p.Expr, text) {
				return false
			}
		}
		return true
	case *pp.Array:
		for _, e := range t.Elems {
			if !readsOnly(e, text) {
				return false
			}
		}
		return true
	case *pp.Hash:
		for _, e := range t.Entries {
			if !readsOnly(e.Key, text) || !readsOnly(e.Value, text) {
				return false
			}
		}
		return true
	}
	return literalValue(v, text, false)
}

// wordAt reports whether text holds w as a word: not inside a longer
// name (letters, digits, underscores around it).
func wordAt(text []byte, w string) bool {
	ident := func(c byte) bool {
		return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_'
	}
	word := []byte(w)
	for off := 0; ; {
		i := bytes.Index(text[off:], word)
		if i < 0 {
			return false
		}
		i += off
		end := i + len(w)
		if (i == 0 || !ident(text[i-1])) && (end == len(text) || !ident(text[end])) {
			return true
		}
		off = i + 1
	}
}

// manifestsOf lists the texts of the files an analysis read (nil when
// one of them was let go: not known).
func manifestsOf(order []*fileInfo) []*source.File {
	out := make([]*source.File, 0, len(order))
	for _, fi := range order {
		if fi.src == nil {
			return nil
		}
		out = append(out, fi.src)
	}
	return out
}
