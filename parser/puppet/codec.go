package puppet

import (
	"encoding/binary"
	"errors"
	"fmt"
	"unsafe"
)

// A chunk's syntax tree in bytes, for the chunk cache (chunkcache.go).
// Hand-written rather than encoding/gob: gob needs the interface types
// registered and allocates per value; decoding this costs what building
// the nodes costs. An encoded chunk does not depend on where the chunk
// is: offsets are relative to the chunk's start, and a string that is a
// piece of the chunk's text (names, variables, numbers: the lexer's
// tokens share the source's memory) is stored as its place in the text,
// so the decoded tree shares the new text's memory as a parsed one does.
//
// Every node is a tag byte and its fields in the order of ast.go;
// lists are their length + 1 (0: nil, so a nil list stays nil); a Loc is
// its start relative to the chunk (zigzag) and its length.

const (
	tagNil = iota
	tagStr
	tagNum
	tagBool
	tagUndef
	tagDefault
	tagName
	tagTypeRef
	tagVar
	tagRegex
	tagArray
	tagHash
	tagAccess
	tagCall
	tagMethodCall
	tagLambda
	tagBinary
	tagUnary
	tagParen
	tagSelector
	tagIf
	tagCase
	tagResource
	tagResourceBody
	tagAttr
	tagResourceDefaults
	tagResourceOverride
	tagCollector
	tagParam
	tagClassDef
	tagDefineDef
	tagNodeDef
	tagFunctionDef
	tagTypeAlias
	tagBlock
	tagLast
	// tagTypedNil + a tag: a nil pointer of that type in an interface.
	tagTypedNil = 0x80
)

type encoder struct {
	out       []byte
	src       []byte
	base, end int
}

// encodeChunk appends the encoding of a chunk's statements; the chunk is
// src[base:end].
func encodeChunk(out, src []byte, base, end int, stmts []Node) []byte {
	e := &encoder{out: out, src: src, base: base, end: end}
	e.nodes(stmts)
	return e.out
}

func (e *encoder) uint(v uint64) { e.out = binary.AppendUvarint(e.out, v) }
func (e *encoder) int(v int)     { e.out = binary.AppendVarint(e.out, int64(v)) }

func (e *encoder) flags(bs ...bool) {
	var b byte
	for i, x := range bs {
		if x {
			b |= 1 << i
		}
	}
	e.out = append(e.out, b)
}

func (e *encoder) loc(l Loc) {
	e.int(l.Pos - e.base)
	e.int(l.End - l.Pos)
}

// str stores a string that lies in the chunk's text as its place there
// (odd header), any other one as its bytes (even header).
func (e *encoder) str(s string) {
	if len(s) > 0 && e.end > e.base {
		p := uintptr(unsafe.Pointer(unsafe.StringData(s)))
		lo := uintptr(unsafe.Pointer(&e.src[e.base]))
		if p >= lo && p+uintptr(len(s)) <= lo+uintptr(e.end-e.base) {
			e.uint(uint64(len(s))<<1 | 1)
			e.uint(uint64(p - lo))
			return
		}
	}
	e.uint(uint64(len(s)) << 1)
	e.out = append(e.out, s...)
}

func (e *encoder) len(n int, isNil bool) bool {
	if isNil {
		e.uint(0)
		return false
	}
	e.uint(uint64(n) + 1)
	return true
}

func (e *encoder) nodes(ns []Node) {
	if e.len(len(ns), ns == nil) {
		for _, n := range ns {
			e.node(n)
		}
	}
}

func (e *encoder) params(ps []*Param) {
	if e.len(len(ps), ps == nil) {
		for _, p := range ps {
			e.node(p)
		}
	}
}

func (e *encoder) attrs(as []*Attr) {
	if e.len(len(as), as == nil) {
		for _, a := range as {
			e.node(a)
		}
	}
}

func (e *encoder) tag(t byte) { e.out = append(e.out, t) }

// typedNil writes the tag of a nil pointer held in an interface.
func (e *encoder) typedNil(n Node) bool {
	var t byte
	switch x := n.(type) {
	case *Lambda:
		if x == nil {
			t = tagLambda
		}
	case *TypeRef:
		if x == nil {
			t = tagTypeRef
		}
	case *Param:
		if x == nil {
			t = tagParam
		}
	case *Attr:
		if x == nil {
			t = tagAttr
		}
	case *ResourceBody:
		if x == nil {
			t = tagResourceBody
		}
	}
	if t == 0 {
		return false
	}
	e.tag(tagTypedNil | t)
	return true
}

func (e *encoder) node(n Node) {
	if n == nil {
		e.tag(tagNil)
		return
	}
	if e.typedNil(n) {
		return
	}
	switch t := n.(type) {
	case *Str:
		e.tag(tagStr)
		e.loc(t.Loc)
		e.str(t.Value)
		if e.len(len(t.Parts), t.Parts == nil) {
			for _, p := range t.Parts {
				e.str(p.Lit)
				e.node(p.Expr)
			}
		}
	case *Num:
		e.tag(tagNum)
		e.loc(t.Loc)
		e.str(t.Text)
	case *Bool:
		e.tag(tagBool)
		e.loc(t.Loc)
		e.flags(t.Value)
	case *Undef:
		e.tag(tagUndef)
		e.loc(t.Loc)
	case *Default:
		e.tag(tagDefault)
		e.loc(t.Loc)
	case *Name:
		e.tag(tagName)
		e.loc(t.Loc)
		e.str(t.Value)
	case *TypeRef:
		e.tag(tagTypeRef)
		e.loc(t.Loc)
		e.str(t.Value)
	case *Var:
		e.tag(tagVar)
		e.loc(t.Loc)
		e.str(t.Name)
	case *Regex:
		e.tag(tagRegex)
		e.loc(t.Loc)
		e.str(t.Value)
	case *Array:
		e.tag(tagArray)
		e.loc(t.Loc)
		e.nodes(t.Elems)
	case *Hash:
		e.tag(tagHash)
		e.loc(t.Loc)
		if e.len(len(t.Entries), t.Entries == nil) {
			for _, x := range t.Entries {
				e.node(x.Key)
				e.node(x.Value)
			}
		}
	case *Access:
		e.tag(tagAccess)
		e.loc(t.Loc)
		e.node(t.X)
		e.nodes(t.Args)
	case *Call:
		e.tag(tagCall)
		e.loc(t.Loc)
		e.str(t.Name)
		e.loc(t.NameLoc)
		e.nodes(t.Args)
		e.node(t.Lambda)
		e.flags(t.Parens)
	case *MethodCall:
		e.tag(tagMethodCall)
		e.loc(t.Loc)
		e.node(t.Recv)
		e.str(t.Name)
		e.loc(t.NameLoc)
		e.nodes(t.Args)
		e.node(t.Lambda)
	case *Lambda:
		e.tag(tagLambda)
		e.loc(t.Loc)
		e.params(t.Params)
		e.nodes(t.Body)
	case *Binary:
		e.tag(tagBinary)
		e.loc(t.Loc)
		e.str(t.Op)
		e.loc(t.OpLoc)
		e.node(t.Left)
		e.node(t.Right)
	case *Unary:
		e.tag(tagUnary)
		e.loc(t.Loc)
		e.str(t.Op)
		e.node(t.X)
	case *Paren:
		e.tag(tagParen)
		e.loc(t.Loc)
		e.node(t.X)
	case *Selector:
		e.tag(tagSelector)
		e.loc(t.Loc)
		e.node(t.X)
		if e.len(len(t.Cases), t.Cases == nil) {
			for _, c := range t.Cases {
				e.node(c.Match)
				e.node(c.Value)
			}
		}
	case *If:
		e.tag(tagIf)
		e.loc(t.Loc)
		e.flags(t.Unless, t.HasElse)
		e.node(t.Cond)
		e.nodes(t.Then)
		e.nodes(t.Else)
	case *Case:
		e.tag(tagCase)
		e.loc(t.Loc)
		e.node(t.X)
		if e.len(len(t.Options), t.Options == nil) {
			for _, o := range t.Options {
				e.nodes(o.Values)
				e.nodes(o.Body)
				e.loc(o.Loc)
			}
		}
	case *Resource:
		e.tag(tagResource)
		e.loc(t.Loc)
		e.str(t.Type)
		e.loc(t.TypeLoc)
		e.node(t.TypeExpr)
		e.flags(t.Virtual, t.Exported)
		if e.len(len(t.Bodies), t.Bodies == nil) {
			for _, b := range t.Bodies {
				e.node(b)
			}
		}
	case *ResourceBody:
		e.tag(tagResourceBody)
		e.loc(t.Loc)
		e.node(t.Title)
		e.attrs(t.Attrs)
	case *Attr:
		e.tag(tagAttr)
		e.loc(t.Loc)
		e.str(t.Name)
		e.loc(t.NameLoc)
		e.str(t.Op)
		e.node(t.Value)
	case *ResourceDefaults:
		e.tag(tagResourceDefaults)
		e.loc(t.Loc)
		e.node(t.Type)
		e.attrs(t.Attrs)
	case *ResourceOverride:
		e.tag(tagResourceOverride)
		e.loc(t.Loc)
		e.node(t.Ref)
		e.attrs(t.Attrs)
	case *Collector:
		e.tag(tagCollector)
		e.loc(t.Loc)
		e.node(t.Type)
		e.flags(t.Exported, t.HasAttrs)
		e.node(t.Query)
		e.attrs(t.Attrs)
	case *Param:
		e.tag(tagParam)
		e.loc(t.Loc)
		e.node(t.Type)
		e.str(t.Name)
		e.loc(t.NameLoc)
		e.node(t.Default)
		e.flags(t.Splat)
	case *ClassDef:
		e.tag(tagClassDef)
		e.loc(t.Loc)
		e.str(t.Name)
		e.loc(t.NameLoc)
		e.params(t.Params)
		e.str(t.Parent)
		// no parent: the zero Loc stays zero wherever the chunk goes
		e.flags(t.ParentLoc == Loc{})
		if t.ParentLoc != (Loc{}) {
			e.loc(t.ParentLoc)
		}
		e.nodes(t.Body)
	case *DefineDef:
		e.tag(tagDefineDef)
		e.loc(t.Loc)
		e.str(t.Name)
		e.loc(t.NameLoc)
		e.params(t.Params)
		e.nodes(t.Body)
	case *NodeDef:
		e.tag(tagNodeDef)
		e.loc(t.Loc)
		e.nodes(t.Matches)
		e.node(t.Parent)
		e.nodes(t.Body)
	case *FunctionDef:
		e.tag(tagFunctionDef)
		e.loc(t.Loc)
		e.str(t.Name)
		e.loc(t.NameLoc)
		e.params(t.Params)
		e.node(t.Return)
		e.nodes(t.Body)
	case *TypeAlias:
		e.tag(tagTypeAlias)
		e.loc(t.Loc)
		e.str(t.Name)
		e.loc(t.NameLoc)
		e.node(t.Value)
	case *Block:
		e.tag(tagBlock)
		e.loc(t.Loc)
		e.str(t.Keyword)
		e.str(t.Name)
		e.loc(t.NameLoc)
		e.params(t.Params)
		e.nodes(t.Body)
	default:
		panic(fmt.Sprintf("puppet: cannot encode a %T", n))
	}
}

// errCorrupt: the bytes are not an encoded chunk.
var errCorrupt = errors.New("puppet: corrupt encoded chunk")

type decoder struct {
	data      []byte
	i         int
	src       []byte
	base, end int
	depth     int
	al        *slabs
}

// decodeChunk decodes the statements of the chunk src[base:end]. Bytes
// that are not what encodeChunk wrote for a chunk of that length give an
// error, never a panic.
func decodeChunk(data, src []byte, base, end int) (stmts []Node, err error) {
	return decodeChunkIn(data, src, base, end, &slabs{})
}

// decodeChunkIn is decodeChunk with the nodes taken from al.
func decodeChunkIn(data, src []byte, base, end int, al *slabs) (stmts []Node, err error) {
	defer func() {
		if r := recover(); r != nil {
			if r != errCorrupt {
				panic(r)
			}
			stmts, err = nil, errCorrupt
		}
	}()
	if base < 0 || end < base || end > len(src) {
		return nil, errCorrupt
	}
	d := &decoder{data: data, src: src, base: base, end: end, al: al}
	stmts = d.nodes()
	if d.i != len(d.data) {
		return nil, errCorrupt
	}
	return stmts, nil
}

func (d *decoder) fail() { panic(errCorrupt) }

func (d *decoder) byte() byte {
	if d.i >= len(d.data) {
		d.fail()
	}
	b := d.data[d.i]
	d.i++
	return b
}

func (d *decoder) uint() uint64 {
	v, n := binary.Uvarint(d.data[d.i:])
	if n <= 0 {
		d.fail()
	}
	d.i += n
	return v
}

func (d *decoder) int() int {
	v, n := binary.Varint(d.data[d.i:])
	if n <= 0 || v > 1<<40 || v < -(1<<40) {
		d.fail()
	}
	d.i += n
	return int(v)
}

func (d *decoder) loc() Loc {
	p := d.base + d.int()
	return Loc{p, p + d.int()}
}

func (d *decoder) flag(b byte, i int) bool { return b&(1<<i) != 0 }

// interned are the strings literal in trees (operators, keywords): no
// allocation to decode them.
var interned = func() map[string]string {
	m := map[string]string{}
	for _, s := range puncts {
		m[s] = s
	}
	for _, s := range []string{"and", "or", "in", "class", "define", "node", "function", "type", "plan", "apply", "if", "unless", "case", "default", "true", "false", "undef", "inherits", "elsif", "else"} {
		m[s] = s
	}
	return m
}()

func (d *decoder) str() string {
	h := d.uint()
	n := h >> 1
	if n > uint64(len(d.data)+len(d.src)) {
		d.fail()
	}
	if h&1 == 1 {
		off := d.uint()
		if off > uint64(d.end-d.base) || n > uint64(d.end-d.base)-off {
			d.fail()
		}
		p := d.base + int(off)
		return view(d.src[p : p+int(n)])
	}
	if n > uint64(len(d.data)-d.i) {
		d.fail()
	}
	b := d.data[d.i : d.i+int(n)]
	d.i += int(n)
	if n == 0 {
		return ""
	}
	if s, ok := interned[string(b)]; ok {
		return s
	}
	return string(b)
}

// len reads a list's length (-1: nil), no more than the bytes left could
// hold.
func (d *decoder) len() int {
	v := d.uint()
	if v == 0 {
		return -1
	}
	if v-1 > uint64(len(d.data)-d.i) {
		d.fail()
	}
	return int(v - 1)
}

func (d *decoder) nodes() []Node {
	n := d.len()
	if n < 0 {
		return nil
	}
	out := list(&d.al.lists, n)
	for i := range out {
		out[i] = d.node()
	}
	return out
}

func (d *decoder) params() []*Param {
	n := d.len()
	if n < 0 {
		return nil
	}
	out := make([]*Param, n)
	for i := range out {
		out[i] = d.param()
	}
	return out
}

func (d *decoder) attrs() []*Attr {
	n := d.len()
	if n < 0 {
		return nil
	}
	out := list(&d.al.alists, n)
	for i := range out {
		out[i] = d.attr()
	}
	return out
}

// The typed decoders accept their type or nil.
func (d *decoder) param() *Param {
	switch x := d.node().(type) {
	case *Param:
		return x
	case nil:
		return nil
	}
	d.fail()
	return nil
}

func (d *decoder) attr() *Attr {
	switch x := d.node().(type) {
	case *Attr:
		return x
	case nil:
		return nil
	}
	d.fail()
	return nil
}

func (d *decoder) lambda() *Lambda {
	switch x := d.node().(type) {
	case *Lambda:
		return x
	case nil:
		return nil
	}
	d.fail()
	return nil
}

func (d *decoder) typeRef() *TypeRef {
	switch x := d.node().(type) {
	case *TypeRef:
		return x
	case nil:
		return nil
	}
	d.fail()
	return nil
}

func (d *decoder) body() *ResourceBody {
	switch x := d.node().(type) {
	case *ResourceBody:
		return x
	case nil:
		return nil
	}
	d.fail()
	return nil
}

func (d *decoder) resourceBody(t *ResourceBody) {
	t.Loc = d.loc()
	t.Title = d.node()
	t.Attrs = d.attrs()
}

// maxDecodeDepth bounds the recursion on bytes that nest without end
// (trees are at most maxDepth deep in brackets, a few nodes per level).
const maxDecodeDepth = 8 * maxDepth

func (d *decoder) node() Node {
	tag := d.byte()
	switch tag {
	case tagNil:
		return nil
	case tagTypedNil | tagLambda:
		return (*Lambda)(nil)
	case tagTypedNil | tagTypeRef:
		return (*TypeRef)(nil)
	case tagTypedNil | tagParam:
		return (*Param)(nil)
	case tagTypedNil | tagAttr:
		return (*Attr)(nil)
	case tagTypedNil | tagResourceBody:
		return (*ResourceBody)(nil)
	}
	d.depth++
	if d.depth > maxDecodeDepth {
		d.fail()
	}
	// (not deferred: a defer in a function of this many returns is not
	// open-coded, and cost a record per node; on a failure the decoder
	// is dropped)
	n := d.node1(tag)
	d.depth--
	return n
}

func (d *decoder) node1(tag byte) Node {
	switch tag {
	case tagStr:
		t := take(&d.al.strs)
		t.Loc, t.Value = d.loc(), d.str()
		if n := d.len(); n >= 0 {
			t.Parts = make([]Part, n)
			for i := range t.Parts {
				t.Parts[i].Lit = d.str()
				t.Parts[i].Expr = d.node()
			}
		}
		return t
	case tagNum:
		return &Num{Loc: d.loc(), Text: d.str()}
	case tagBool:
		t := &Bool{Loc: d.loc()}
		t.Value = d.flag(d.byte(), 0)
		return t
	case tagUndef:
		return &Undef{Loc: d.loc()}
	case tagDefault:
		return &Default{Loc: d.loc()}
	case tagName:
		t := take(&d.al.names)
		t.Loc, t.Value = d.loc(), d.str()
		return t
	case tagTypeRef:
		t := take(&d.al.types)
		t.Loc, t.Value = d.loc(), d.str()
		return t
	case tagVar:
		t := take(&d.al.vars)
		t.Loc, t.Name = d.loc(), d.str()
		return t
	case tagRegex:
		return &Regex{Loc: d.loc(), Value: d.str()}
	case tagArray:
		return &Array{Loc: d.loc(), Elems: d.nodes()}
	case tagHash:
		t := &Hash{Loc: d.loc()}
		if n := d.len(); n >= 0 {
			t.Entries = make([]HashEntry, n)
			for i := range t.Entries {
				t.Entries[i].Key = d.node()
				t.Entries[i].Value = d.node()
			}
		}
		return t
	case tagAccess:
		t := take(&d.al.access)
		t.Loc = d.loc()
		t.X = d.node()
		t.Args = d.nodes()
		return t
	case tagCall:
		t := take(&d.al.calls)
		t.Loc = d.loc()
		t.Name = d.str()
		t.NameLoc = d.loc()
		t.Args = d.nodes()
		t.Lambda = d.lambda()
		t.Parens = d.flag(d.byte(), 0)
		return t
	case tagMethodCall:
		t := &MethodCall{Loc: d.loc()}
		t.Recv = d.node()
		t.Name = d.str()
		t.NameLoc = d.loc()
		t.Args = d.nodes()
		t.Lambda = d.lambda()
		return t
	case tagLambda:
		t := &Lambda{Loc: d.loc()}
		t.Params = d.params()
		t.Body = d.nodes()
		return t
	case tagBinary:
		t := &Binary{Loc: d.loc()}
		t.Op = d.str()
		t.OpLoc = d.loc()
		t.Left = d.node()
		t.Right = d.node()
		return t
	case tagUnary:
		t := &Unary{Loc: d.loc()}
		t.Op = d.str()
		t.X = d.node()
		return t
	case tagParen:
		t := &Paren{Loc: d.loc()}
		t.X = d.node()
		return t
	case tagSelector:
		t := &Selector{Loc: d.loc()}
		t.X = d.node()
		if n := d.len(); n >= 0 {
			t.Cases = make([]SelCase, n)
			for i := range t.Cases {
				t.Cases[i].Match = d.node()
				t.Cases[i].Value = d.node()
			}
		}
		return t
	case tagIf:
		t := &If{Loc: d.loc()}
		f := d.byte()
		t.Unless, t.HasElse = d.flag(f, 0), d.flag(f, 1)
		t.Cond = d.node()
		t.Then = d.nodes()
		t.Else = d.nodes()
		return t
	case tagCase:
		t := &Case{Loc: d.loc()}
		t.X = d.node()
		if n := d.len(); n >= 0 {
			t.Options = make([]CaseOption, n)
			for i := range t.Options {
				o := &t.Options[i]
				o.Values = d.nodes()
				o.Body = d.nodes()
				o.Loc = d.loc()
			}
		}
		return t
	case tagResource:
		ra := take(&d.al.res)
		t := &ra.r
		t.Loc = d.loc()
		t.Type = d.str()
		t.TypeLoc = d.loc()
		t.TypeExpr = d.node()
		f := d.byte()
		t.Virtual, t.Exported = d.flag(f, 0), d.flag(f, 1)
		if n := d.len(); n == 1 && d.i < len(d.data) && d.data[d.i] == tagResourceBody {
			// one body, as nearly all: in the resource's allocation
			d.i++
			d.resourceBody(&ra.body)
			ra.bodies[0] = &ra.body
			t.Bodies = ra.bodies[:]
		} else if n >= 0 {
			t.Bodies = make([]*ResourceBody, n)
			for i := range t.Bodies {
				t.Bodies[i] = d.body()
			}
		}
		return t
	case tagResourceBody:
		t := &ResourceBody{}
		d.resourceBody(t)
		return t
	case tagAttr:
		t := take(&d.al.attrs)
		t.Loc = d.loc()
		t.Name = d.str()
		t.NameLoc = d.loc()
		t.Op = d.str()
		t.Value = d.node()
		return t
	case tagResourceDefaults:
		t := &ResourceDefaults{Loc: d.loc()}
		t.Type = d.typeRef()
		t.Attrs = d.attrs()
		return t
	case tagResourceOverride:
		t := &ResourceOverride{Loc: d.loc()}
		t.Ref = d.node()
		t.Attrs = d.attrs()
		return t
	case tagCollector:
		t := &Collector{Loc: d.loc()}
		t.Type = d.typeRef()
		f := d.byte()
		t.Exported, t.HasAttrs = d.flag(f, 0), d.flag(f, 1)
		t.Query = d.node()
		t.Attrs = d.attrs()
		return t
	case tagParam:
		t := &Param{Loc: d.loc()}
		t.Type = d.node()
		t.Name = d.str()
		t.NameLoc = d.loc()
		t.Default = d.node()
		t.Splat = d.flag(d.byte(), 0)
		return t
	case tagClassDef:
		t := &ClassDef{Loc: d.loc()}
		t.Name = d.str()
		t.NameLoc = d.loc()
		t.Params = d.params()
		t.Parent = d.str()
		if !d.flag(d.byte(), 0) {
			t.ParentLoc = d.loc()
		}
		t.Body = d.nodes()
		return t
	case tagDefineDef:
		t := &DefineDef{Loc: d.loc()}
		t.Name = d.str()
		t.NameLoc = d.loc()
		t.Params = d.params()
		t.Body = d.nodes()
		return t
	case tagNodeDef:
		t := &NodeDef{Loc: d.loc()}
		t.Matches = d.nodes()
		t.Parent = d.node()
		t.Body = d.nodes()
		return t
	case tagFunctionDef:
		t := &FunctionDef{Loc: d.loc()}
		t.Name = d.str()
		t.NameLoc = d.loc()
		t.Params = d.params()
		t.Return = d.node()
		t.Body = d.nodes()
		return t
	case tagTypeAlias:
		t := &TypeAlias{Loc: d.loc()}
		t.Name = d.str()
		t.NameLoc = d.loc()
		t.Value = d.node()
		return t
	case tagBlock:
		t := &Block{Loc: d.loc()}
		t.Keyword = d.str()
		t.Name = d.str()
		t.NameLoc = d.loc()
		t.Params = d.params()
		t.Body = d.nodes()
		return t
	}
	d.fail()
	return nil
}
