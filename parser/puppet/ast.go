package puppet

// Loc is a half-open byte range [Pos, End) in the source.
type Loc struct{ Pos, End int }

// Span returns the node's range.
func (l *Loc) Span() *Loc { return l }

// Node is any syntax tree node.
type Node interface{ Span() *Loc }

// ---- expressions ----

// Str is a string literal ('...', "..." or a heredoc). Parts is set for
// interpolated strings: literal pieces and expressions.
type Str struct {
	Loc
	Value string // for non-interpolated strings
	Parts []Part
}

// Part is a piece of an interpolated string.
type Part struct {
	Lit  string
	Expr Node // nil for a literal piece
}

// Interpolated reports whether the string has ${...} or $var pieces.
func (s *Str) Interpolated() bool { return s.Parts != nil }

type Num struct {
	Loc
	Text string
}
type Bool struct {
	Loc
	Value bool
}
type Undef struct{ Loc }
type Default struct{ Loc }

// Name is a bare lower-case word (function name, type name, bare string).
type Name struct {
	Loc
	Value string
}

// TypeRef is a capitalised name: a resource type or data type reference.
type TypeRef struct {
	Loc
	Value string
}

type Var struct {
	Loc
	Name string
}

type Regex struct {
	Loc
	Value string
}

type Array struct {
	Loc
	Elems []Node
}

type Hash struct {
	Loc
	Entries []HashEntry
}

type HashEntry struct {
	Key, Value Node
}

// Access is X[args]: `File['/x']`, `$a[0]`, `Optional[String]`.
type Access struct {
	Loc
	X    Node
	Args []Node
}

// Call is a function call: `foo(1)`, `include a, b`, with an optional lambda.
type Call struct {
	Loc
	Name    string
	NameLoc Loc
	Args    []Node
	Lambda  *Lambda
	Parens  bool
}

// MethodCall is `recv.name(args) |params| { }`.
type MethodCall struct {
	Loc
	Recv    Node
	Name    string
	NameLoc Loc
	Args    []Node
	Lambda  *Lambda
}

type Lambda struct {
	Loc
	Params []*Param
	Body   []Node
}

// Binary covers arithmetic, comparison, logic, matching, `in`,
// assignment (=, +=, -=) and the chaining arrows (->, ~>, <-, <~).
type Binary struct {
	Loc
	Op    string
	OpLoc Loc
	Left  Node
	Right Node
}

// Unary is -x, !x or *x (splat).
type Unary struct {
	Loc
	Op string
	X  Node
}

type Paren struct {
	Loc
	X Node
}

type Selector struct {
	Loc
	X     Node
	Cases []SelCase
}

type SelCase struct {
	Match, Value Node
}

// ---- statements (they are expressions in Puppet, too) ----

type If struct {
	Loc
	Unless  bool
	Cond    Node
	Then    []Node
	Else    []Node // an elsif is an Else holding one *If
	HasElse bool
}

type Case struct {
	Loc
	X       Node
	Options []CaseOption
}

type CaseOption struct {
	Values []Node
	Body   []Node
	Loc    Loc
}

// Resource is `type { title: attrs; title2: attrs }`, possibly virtual
// (@) or exported (@@). Type is lower-case, or "class" for
// resource-like class declarations.
type Resource struct {
	Loc
	Type     string
	TypeLoc  Loc
	TypeExpr Node // $type { ... }: Type is "" and the type is computed
	Virtual  bool
	Exported bool
	Bodies   []*ResourceBody
}

type ResourceBody struct {
	Loc
	Title Node
	Attrs []*Attr
}

// Attr is `name => value`, `name +> value` or `* => hash`.
type Attr struct {
	Loc
	Name    string
	NameLoc Loc
	Op      string
	Value   Node
}

// ResourceDefaults is `File { attrs }`.
type ResourceDefaults struct {
	Loc
	Type  *TypeRef
	Attrs []*Attr
}

// ResourceOverride is `File['x'] { attrs }` (Ref is an Access) or a
// collector with a block, see Collector.
type ResourceOverride struct {
	Loc
	Ref   Node
	Attrs []*Attr
}

// Collector is `Type <| query |>` or `Type <<| query |>>`, with an
// optional override block.
type Collector struct {
	Loc
	Type     *TypeRef
	Exported bool
	Query    Node // nil: everything
	Attrs    []*Attr
	HasAttrs bool
}

type Param struct {
	Loc
	Type    Node
	Name    string
	NameLoc Loc
	Default Node
	Splat   bool
}

type ClassDef struct {
	Loc
	Name      string
	NameLoc   Loc
	Params    []*Param
	Parent    string
	ParentLoc Loc
	Body      []Node
}

type DefineDef struct {
	Loc
	Name    string
	NameLoc Loc
	Params  []*Param
	Body    []Node
}

type NodeDef struct {
	Loc
	Matches []Node // Str, Name, Regex or Default
	Parent  Node
	Body    []Node
}

type FunctionDef struct {
	Loc
	Name    string
	NameLoc Loc
	Params  []*Param
	Return  Node
	Body    []Node
}

type TypeAlias struct {
	Loc
	Name    string
	NameLoc Loc
	Value   Node
}

// Block is a bare `{ ... }` statement list (plans, apply blocks).
type Block struct {
	Loc
	Keyword string
	Name    string
	NameLoc Loc
	Params  []*Param
	Body    []Node
}

// Walk calls fn for n and then every node below it, depth first, in
// source order, while fn returns true.
func Walk(n Node, fn func(Node) bool) {
	walk(n, fn, 0)
}

func walkList(ns []Node, fn func(Node) bool, d int) {
	for _, x := range ns {
		walk(x, fn, d)
	}
}

func walkParams(ps []*Param, fn func(Node) bool, d int) {
	for _, p := range ps {
		walk(p, fn, d)
	}
}

func walkAttrs(as []*Attr, fn func(Node) bool, d int) {
	for _, a := range as {
		walk(a, fn, d)
	}
}

func walk(n Node, fn func(Node) bool, d int) {
	if n == nil || isNilNode(n) || d > maxDepth*2 || !fn(n) {
		return
	}
	d++
	switch t := n.(type) {
	case *Str:
		for _, p := range t.Parts {
			if p.Expr != nil {
				walk(p.Expr, fn, d)
			}
		}
	case *Array:
		walkList(t.Elems, fn, d)
	case *Hash:
		for _, e := range t.Entries {
			walk(e.Key, fn, d)
			walk(e.Value, fn, d)
		}
	case *Access:
		walk(t.X, fn, d)
		walkList(t.Args, fn, d)
	case *Call:
		walkList(t.Args, fn, d)
		if t.Lambda != nil {
			walk(t.Lambda, fn, d)
		}
	case *MethodCall:
		walk(t.Recv, fn, d)
		walkList(t.Args, fn, d)
		if t.Lambda != nil {
			walk(t.Lambda, fn, d)
		}
	case *Lambda:
		walkParams(t.Params, fn, d)
		walkList(t.Body, fn, d)
	case *Binary:
		walk(t.Left, fn, d)
		walk(t.Right, fn, d)
	case *Unary:
		walk(t.X, fn, d)
	case *Paren:
		walk(t.X, fn, d)
	case *Selector:
		walk(t.X, fn, d)
		for _, c := range t.Cases {
			walk(c.Match, fn, d)
			walk(c.Value, fn, d)
		}
	case *If:
		walk(t.Cond, fn, d)
		walkList(t.Then, fn, d)
		walkList(t.Else, fn, d)
	case *Case:
		walk(t.X, fn, d)
		for _, o := range t.Options {
			walkList(o.Values, fn, d)
			walkList(o.Body, fn, d)
		}
	case *Resource:
		walk(t.TypeExpr, fn, d)
		for _, b := range t.Bodies {
			walk(b, fn, d)
		}
	case *ResourceBody:
		walk(t.Title, fn, d)
		walkAttrs(t.Attrs, fn, d)
	case *Attr:
		walk(t.Value, fn, d)
	case *ResourceDefaults:
		walk(t.Type, fn, d)
		walkAttrs(t.Attrs, fn, d)
	case *ResourceOverride:
		walk(t.Ref, fn, d)
		walkAttrs(t.Attrs, fn, d)
	case *Collector:
		walk(t.Type, fn, d)
		walk(t.Query, fn, d)
		walkAttrs(t.Attrs, fn, d)
	case *Param:
		walk(t.Type, fn, d)
		walk(t.Default, fn, d)
	case *ClassDef:
		walkParams(t.Params, fn, d)
		walkList(t.Body, fn, d)
	case *DefineDef:
		walkParams(t.Params, fn, d)
		walkList(t.Body, fn, d)
	case *NodeDef:
		walkList(t.Matches, fn, d)
		walk(t.Parent, fn, d)
		walkList(t.Body, fn, d)
	case *FunctionDef:
		walkParams(t.Params, fn, d)
		walk(t.Return, fn, d)
		walkList(t.Body, fn, d)
	case *TypeAlias:
		walk(t.Value, fn, d)
	case *Block:
		walkParams(t.Params, fn, d)
		walkList(t.Body, fn, d)
	}
}

func isNilNode(n Node) bool {
	switch t := n.(type) {
	case *Lambda:
		return t == nil
	case *TypeRef:
		return t == nil
	case *Param:
		return t == nil
	case *Attr:
		return t == nil
	case *ResourceBody:
		return t == nil
	}
	return false
}
