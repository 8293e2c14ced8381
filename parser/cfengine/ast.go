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
	// Broken are the blocks with a syntax error whose header (`bundle
	// agent x`, `body perms p`, `promise agent t`) was read: Kind, Type,
	// Name, Namespace and Span only. CFEngine has read their names when it
	// stops at the error, so they are defined: a reference to one is no
	// follow-on error.
	Broken []*Block
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
	// none, with a zero ContextSpan); VarContext is true for a "$(var)":: string context.
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

// shiftSet shifts a span that may be unset (zero: no class context).
func (s Span) shiftSet(d int) Span {
	if s == (Span{}) {
		return s
	}
	return s.shift(d)
}
func (w Word) shift(d int) Word { return Word{w.Text, w.Span.shift(d)} }

// shifter deep-copies trees with every span moved by d bytes, taking
// its objects from slabs sized for the block (a cached chunk reused at
// another offset: one edit shifts every block after it).
type shifter struct {
	d      int
	rvals  []Rval
	rptrs  []*Rval
	cons   []Constraint
	cptrs  []*Constraint
	proms  []Promise
	pptrs  []*Promise
	sects  []Section
	sptrs  []*Section
	params []Word
}

func countRval(r *Rval) int {
	if r == nil {
		return 0
	}
	n := 1
	for _, it := range r.Items {
		n += countRval(it)
	}
	return n
}

func (sh *shifter) rval(r *Rval) *Rval {
	if r == nil {
		return nil
	}
	n := &sh.rvals[0]
	sh.rvals = sh.rvals[1:]
	*n = *r
	n.Span = r.Span.shift(sh.d)
	n.NameSpan = r.NameSpan.shift(sh.d)
	if r.Items != nil {
		k := len(r.Items)
		n.Items = sh.rptrs[:k:k]
		sh.rptrs = sh.rptrs[k:]
		for i, it := range r.Items {
			n.Items[i] = sh.rval(it)
		}
	}
	return n
}

func (sh *shifter) shiftCons(c *Constraint) *Constraint {
	n := &sh.cons[0]
	sh.cons = sh.cons[1:]
	*n = *c
	n.Lval = c.Lval.shift(sh.d)
	n.Rval = sh.rval(c.Rval)
	n.ContextSpan = c.ContextSpan.shiftSet(sh.d)
	n.Span = c.Span.shift(sh.d)
	return n
}

func (sh *shifter) consList(cs []*Constraint) []*Constraint {
	k := len(cs)
	out := sh.cptrs[:k:k]
	sh.cptrs = sh.cptrs[k:]
	for i, c := range cs {
		out[i] = sh.shiftCons(c)
	}
	return out
}

// shifted deep-copies a block with every span moved by d bytes (a cached
// chunk reused at another offset).
func (b *Block) shifted(d int) *Block {
	var nr, nc, np int
	for _, s := range b.Sections {
		np += len(s.Promises)
		for _, p := range s.Promises {
			nr += countRval(p.Promisee)
			nc += len(p.Constraints)
			for _, c := range p.Constraints {
				nr += countRval(c.Rval)
			}
		}
	}
	nc += len(b.Attrs)
	for _, c := range b.Attrs {
		nr += countRval(c.Rval)
	}
	sh := &shifter{d: d, rvals: make([]Rval, nr), rptrs: make([]*Rval, nr), cons: make([]Constraint, nc),
		cptrs: make([]*Constraint, nc), proms: make([]Promise, np), pptrs: make([]*Promise, np),
		sects: make([]Section, len(b.Sections)), sptrs: make([]*Section, len(b.Sections)), params: make([]Word, len(b.Params))}
	n := *b
	n.Type = b.Type.shift(d)
	n.Name = b.Name.shift(d)
	n.Span = b.Span.shift(d)
	n.Open = b.Open.shift(d)
	n.Params = sh.params
	for i, p := range b.Params {
		n.Params[i] = p.shift(d)
	}
	n.Sections = sh.sptrs
	for i, s := range b.Sections {
		ns := &sh.sects[i]
		*ns = Section{Type: s.Type.shift(d), Span: s.Span.shift(d)}
		k := len(s.Promises)
		ns.Promises = sh.pptrs[:k:k]
		sh.pptrs = sh.pptrs[k:]
		for j, p := range s.Promises {
			np := &sh.proms[0]
			sh.proms = sh.proms[1:]
			*np = *p
			np.PromiserSpan = p.PromiserSpan.shift(d)
			np.Promisee = sh.rval(p.Promisee)
			np.ContextSpan = p.ContextSpan.shiftSet(d)
			np.Span = p.Span.shift(d)
			np.Constraints = sh.consList(p.Constraints)
			ns.Promises[j] = np
		}
		n.Sections[i] = ns
	}
	n.Attrs = sh.consList(b.Attrs)
	return &n
}
