package salt

import "bytes"

// What highlighting needs of an SLS file besides its YAML nodes: the Jinja
// syntax as the template lexer reads it, and the YAML the nodes do not
// cover (comments, and the content lines of block scalars, whose nodes end
// at their `|` or `>`).

// TemplateKind is what a piece of Jinja syntax is.
type TemplateKind uint8

const (
	TDelim   TemplateKind = iota + 1 // {{ }} {% %} and their -/+ forms
	TTag                             // a statement's first word: if, for, set, endif...
	TName                            // a name in an expression
	TString                          // a quoted string
	TNumber                          // a number
	TOp                              // an operator or punctuation: . | ( ) , = ...
	TComment                         // {# ... #}
)

// TemplateToken is one piece of Jinja syntax.
type TemplateToken struct {
	Span
	Kind TemplateKind
}

// Layout is the highlighting view of a file.
type Layout struct {
	// Shebang is the renderer line (`#!jinja|yaml`), empty when none.
	Shebang Span
	// Template is the file's Jinja syntax in source order (none when the
	// renderer has no Jinja).
	Template []TemplateToken
	// Tags are the spans of the Jinja tags (comments included) and of
	// the shebang: no YAML there.
	Tags []Span
	// Comments are the YAML comments; Blocks the content of block scalars.
	Comments, Blocks []Span
}

// Layout reads the file's Jinja syntax, comments and block scalars.
func (f *File) Layout() *Layout {
	src := f.src
	l := &Layout{}
	if bytes.HasPrefix(src, []byte("#!")) {
		e := bytes.IndexByte(src, '\n')
		if e < 0 {
			e = len(src)
		}
		l.Shebang = Span{0, e}
	}
	if f.Skipped {
		l.Tags = []Span{l.Shebang}
		return l
	}
	jinja := l.Shebang.End == 0 || bytes.Contains(src[:l.Shebang.End], []byte("jinja"))
	// what is not YAML text: Jinja tags, the shebang
	var tags []Span
	if l.Shebang.End > 0 {
		tags = append(tags, l.Shebang)
	}
	if jinja {
		l.Template, tags = templateTokens(src, tags)
	}
	// what the nodes cover, and where block scalars start
	var covered []Span
	var blockStarts []int
	var walk func(n *Node, depth int)
	walk = func(n *Node, depth int) {
		if n == nil || depth > 200 {
			return
		}
		switch n.Kind {
		case Scalar:
			if n.End > n.Start {
				covered = append(covered, Span{n.Start, n.End})
				if c := src[n.Start]; c == '|' || c == '>' {
					blockStarts = append(blockStarts, n.Start)
				}
			}
		case Map:
			for i := range n.Keys {
				walk(n.Keys[i], depth+1)
				walk(n.Vals[i], depth+1)
			}
		case Seq:
			for _, it := range n.Items {
				walk(it, depth+1)
			}
		}
	}
	for _, e := range f.Entries {
		walk(e.Key, 0)
		walk(e.Val, 0)
	}
	for _, b := range blockStarts {
		if sp, ok := blockBody(src, b); ok {
			l.Blocks = append(l.Blocks, sp)
			covered = append(covered, sp)
		}
	}
	covered = append(covered, tags...)
	l.Tags = tags
	l.Comments = yamlComments(src, covered)
	return l
}

// templateTokens lists the Jinja syntax of src, and appends each tag's
// span to tags.
func templateTokens(src []byte, tags []Span) ([]TemplateToken, []Span) {
	toks, _ := lexTemplate(src)
	var out []TemplateToken
	for i, t := range toks {
		switch t.kind {
		case 'c':
			out = append(out, TemplateToken{Span{t.start, t.end}, TComment})
			tags = append(tags, Span{t.start, t.end})
		case 'e', 's':
			out = append(out, TemplateToken{Span{t.start, t.in}, TDelim})
			for _, x := range lexInside(src, t.in, t.inEnd, nil, t.kind == 's') {
				k := TOp
				switch x.Type {
				case jtTag:
					k = TTag
				case jtName:
					k = TName
				case jtString:
					k = TString
				case jtNumber:
					k = TNumber
				}
				out = append(out, TemplateToken{Span{x.Pos.Offset, x.Pos.Offset + len(x.Value)}, k})
			}
			out = append(out, TemplateToken{Span{t.inEnd, t.end}, TDelim})
			tags = append(tags, Span{t.start, t.end})
		case 'r':
			// the {% endraw %} after a raw block is no token of its own:
			// it runs to where the next token starts
			end := len(src)
			if i+1 < len(toks) {
				end = toks[i+1].start
			}
			if end > t.end {
				out = append(out, TemplateToken{Span{t.end, end}, TDelim})
				tags = append(tags, Span{t.end, end})
			}
		}
	}
	return out, tags
}

// blockBody finds the content of the block scalar whose indicator is at
// at: the lines after it indented deeper than the line holding it (blank
// lines and lines that start with a Jinja tag go on with it).
func blockBody(src []byte, at int) (Span, bool) {
	ls := at
	for ls > 0 && src[ls-1] != '\n' {
		ls--
	}
	ind := indentOf(src, ls)
	p := bytes.IndexByte(src[at:], '\n')
	if p < 0 {
		return Span{}, false
	}
	start := at + p + 1
	end := start
	for line := start; line < len(src); {
		le := bytes.IndexByte(src[line:], '\n')
		next := len(src)
		if le >= 0 {
			next = line + le + 1
			le += line
		} else {
			le = len(src)
		}
		i := indentOf(src, line)
		rest := src[line+i : le]
		blank := len(bytes.TrimSpace(rest)) == 0
		tag := bytes.HasPrefix(rest, []byte("{%")) || bytes.HasPrefix(rest, []byte("{#"))
		if !blank && !tag && i <= ind {
			break
		}
		if !blank {
			end = le
		}
		line = next
	}
	if end <= start {
		return Span{}, false
	}
	return Span{start, end}, true
}

func indentOf(src []byte, line int) int {
	i := 0
	for line+i < len(src) && (src[line+i] == ' ' || src[line+i] == '\t') {
		i++
	}
	return i
}

// yamlComments finds the comments of the YAML text outside covered: a
// `#` at the start of a line or after a blank runs to the end of its line.
func yamlComments(src []byte, covered []Span) []Span {
	in := make([]bool, len(src)) // covered bytes (the files are small: SLS are read whole anyway)
	for _, c := range covered {
		for i := max(c.Start, 0); i < min(c.End, len(src)); i++ {
			in[i] = true
		}
	}
	var out []Span
	for i := 0; i < len(src); i++ {
		if src[i] != '#' || in[i] || i > 0 && src[i-1] != ' ' && src[i-1] != '\t' && src[i-1] != '\n' {
			continue
		}
		e := i
		for e < len(src) && src[e] != '\n' {
			e++
		}
		if e > i && src[e-1] == '\r' {
			e--
		}
		out = append(out, Span{i, e})
		i = e
	}
	return out
}
