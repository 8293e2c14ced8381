// Package cfengine parses CFEngine 3 policy files (bundles, bodies and
// custom promise blocks) into syntax trees with byte offsets.
//
// A fast scanner splits a file into top-level blocks (chunks); each chunk
// is tokenised by a hand-written lexer that follows cf3lex.l and parsed by
// a participle grammar that follows cf3parse.y. Chunk trees are cached by
// content, so an edit re-parses one block, and a syntax error costs one
// block, never the file. `@if minimum_version(...)`-style macros are
// evaluated for a configurable CFEngine version before chunking.
package cfengine

// Span is a half-open byte range [Start, End) in the file.
type Span struct{ Start, End int }

// Word is a name as written with its span.
type Word struct {
	Text string
	Span Span
}

// File is one parsed policy file.
type File struct {
	Blocks []*Block
	Errors []Error
	// Ignored lists the byte ranges left out by @if/@else/@endif macros
	// (including the macro lines themselves).
	Ignored []Span
}

// Error is a syntax error with the span of the offending words.
type Error struct {
	Span    Span
	Message string
}

// Block is a bundle, a body or a custom promise block.
type Block struct {
	Kind   string // "bundle", "body", "promise"
	Type   Word   // agent, common, edit_line, ...; for bodies: classes, perms, common, file, ...
	Name   Word   // may be namespaced (ns:name) as written
	Params []Word
	// Namespace is the namespace in force (from `body file control`
	// namespace => "x" earlier in the file), "default" otherwise.
	Namespace string
	// EvalOrder is the `evaluation_order` of the `body file control` in
	// force for this block ("" when none).
	EvalOrder string
	// Sections are the promise-type sections of a bundle as written (two
	// `reports:` sections stay two sections here).
	Sections []*Section
	// Attrs are the attributes of a body or promise block, with their
	// class contexts.
	Attrs []*Constraint
	Span  Span
	// Open is the span of the opening brace.
	Open Span
}

// Section is one `type:` section of a bundle.
type Section struct {
	Type     Word // without the colon
	Promises []*Promise
	Span     Span
}

// Promise is one promise of a bundle.
type Promise struct {
	Promiser     string // decoded
	PromiserSpan Span   // the quoted string
	Promisee     *Rval
	// Context is the class expression guarding the promise ("any" when
	// none); VarContext is true for a "$(var)":: string context.
	Context     string
	ContextSpan Span
	VarContext  bool
	Constraints []*Constraint
	Span        Span
}

// Constraint is `lval => rval` in a promise or a body.
type Constraint struct {
	Lval Word
	Rval *Rval
	// Context is the class guard of a body attribute ("any" when none).
	Context     string
	ContextSpan Span
	VarContext  bool
	Span        Span
}

// RvalKind tells what an Rval is.
type RvalKind uint8

const (
	String   RvalKind = iota // "quoted", 'quoted', `quoted`
	Ident                    // bare identifier (a body or bundle name)
	NakedVar                 // $(x) or @(x) outside quotes
	List                     // { ... }
	Call                     // f(...)
)

// Rval is a right-hand value.
type Rval struct {
	Kind RvalKind
	// Value is the decoded string, the identifier, the variable as written
	// ($(x)), or the function name.
	Value string
	// Items are a list's items or a call's arguments.
	Items []*Rval
	Span  Span
	// NameSpan is the function name of a Call (else the whole value).
	NameSpan Span
}

// Get returns the constraint with the given lval, or nil.
func (p *Promise) Get(lval string) *Constraint {
	for _, c := range p.Constraints {
		if c.Lval.Text == lval {
			return c
		}
	}
	return nil
}

// Scalars flattens an rval into its scalar strings (lists expanded one
// level); calls and nested lists are left out.
func (r *Rval) Scalars() []*Rval {
	if r == nil {
		return nil
	}
	switch r.Kind {
	case List:
		var out []*Rval
		for _, it := range r.Items {
			if it.Kind != List && it.Kind != Call {
				out = append(out, it)
			}
		}
		return out
	case Call:
		return nil
	}
	return []*Rval{r}
}

func (s Span) shift(d int) Span { return Span{s.Start + d, s.End + d} }
func (w Word) shift(d int) Word { return Word{w.Text, w.Span.shift(d)} }

func (r *Rval) shift(d int) *Rval {
	if r == nil {
		return nil
	}
	n := *r
	n.Span = r.Span.shift(d)
	n.NameSpan = r.NameSpan.shift(d)
	if r.Items != nil {
		n.Items = make([]*Rval, len(r.Items))
		for i, it := range r.Items {
			n.Items[i] = it.shift(d)
		}
	}
	return &n
}

func (c *Constraint) shift(d int) *Constraint {
	n := *c
	n.Lval = c.Lval.shift(d)
	n.Rval = c.Rval.shift(d)
	n.ContextSpan = c.ContextSpan.shift(d)
	n.Span = c.Span.shift(d)
	return &n
}

// shifted deep-copies a block with every span moved by d bytes (a cached
// chunk reused at another offset).
func (b *Block) shifted(d int) *Block {
	n := *b
	n.Type = b.Type.shift(d)
	n.Name = b.Name.shift(d)
	n.Span = b.Span.shift(d)
	n.Open = b.Open.shift(d)
	n.Params = make([]Word, len(b.Params))
	for i, p := range b.Params {
		n.Params[i] = p.shift(d)
	}
	n.Sections = make([]*Section, len(b.Sections))
	for i, s := range b.Sections {
		ns := &Section{Type: s.Type.shift(d), Span: s.Span.shift(d), Promises: make([]*Promise, len(s.Promises))}
		for j, p := range s.Promises {
			np := *p
			np.PromiserSpan = p.PromiserSpan.shift(d)
			np.Promisee = p.Promisee.shift(d)
			np.ContextSpan = p.ContextSpan.shift(d)
			np.Span = p.Span.shift(d)
			np.Constraints = make([]*Constraint, len(p.Constraints))
			for k, c := range p.Constraints {
				np.Constraints[k] = c.shift(d)
			}
			ns.Promises[j] = &np
		}
		n.Sections[i] = ns
	}
	n.Attrs = make([]*Constraint, len(b.Attrs))
	for i, c := range b.Attrs {
		n.Attrs[i] = c.shift(d)
	}
	return &n
}
