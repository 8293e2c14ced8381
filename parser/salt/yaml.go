package salt

import (
	"bytes"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"gopkg.in/yaml.v3"

	"github.com/ordering-lsp/ordering-lsp/internal/lazyre"
)

// NodeKind is the YAML shape of a node.
type NodeKind uint8

const (
	Scalar NodeKind = iota
	Map
	Seq
)

// Node is a YAML node with positions in the source (not the rendered
// text). Keys and Vals are parallel for maps; Items holds sequences.
type Node struct {
	Kind   NodeKind
	Tag    string // !!str !!int !!float !!bool !!null ...
	Value  string // scalar value as YAML reads it; may contain Unknown
	Start  int    // source offsets
	End    int
	RStart int // rendered offsets
	REnd   int
	Keys   []*Node
	Vals   []*Node
	Items  []*Node
	r      *Rendered // the rendering the R offsets refer to
}

// Str returns the scalar value and whether the node is a string-like
// scalar (not a map or sequence, not null).
func (n *Node) Str() (string, bool) {
	if n == nil || n.Kind != Scalar || n.Tag == "!!null" {
		return "", false
	}
	return n.Value, true
}

// IsString reports whether the scalar is a YAML string (not an int, a
// bool, a float or null).
func (n *Node) IsString() bool {
	return n != nil && n.Kind == Scalar && (n.Tag == "!!str" || n.Tag == "" || n.Tag == "!")
}

// Int returns an integer scalar.
func (n *Node) Int() (int, bool) {
	if n == nil || n.Kind != Scalar || n.Tag != "!!int" {
		return 0, false
	}
	v, err := strconv.ParseInt(strings.ReplaceAll(n.Value, "_", ""), 0, 64)
	if err != nil {
		return 0, false
	}
	return int(v), true
}

// Float returns a float scalar.
func (n *Node) Float() (float64, bool) {
	if n == nil || n.Kind != Scalar || n.Tag != "!!float" {
		return 0, false
	}
	v, err := strconv.ParseFloat(n.Value, 64)
	return v, err == nil
}

// HasUnknown reports whether a scalar holds template output nobody knows.
func (n *Node) HasUnknown() bool {
	return n != nil && n.Kind == Scalar && strings.Contains(n.Value, Unknown)
}

// Entry is one top-level key of an SLS file and its value.
type Entry struct {
	Key, Val *Node
	// Start, End cover the whole chunk in the source.
	Start, End int
	// Opaque: the chunk is template output nobody can know (a macro call
	// on its own line).
	Opaque bool
}

// File is one parsed SLS file.
type File struct {
	Renderer string // the pipeline, "jinja|yaml" by default
	// Skipped is set when the renderer is not one we read (py, pydsl,
	// mako...): the file's states are unknown.
	Skipped bool
	R       *Rendered
	Entries []*Entry
	Errors  []Error
	// Opaque spans: template output that may produce any states.
	Opaque []Span
	// Display renders a node's value for people (unknown parts shown as
	// the template text that makes them).
	src []byte
}

// Display returns how a scalar reads for people: the rendered value with
// unknown parts replaced by the template expressions that produce them.
func (f *File) Display(n *Node) string {
	if n == nil {
		return ""
	}
	if !strings.Contains(n.Value, Unknown) {
		return n.Value
	}
	r := n.r
	if r == nil {
		r = f.R
	}
	d := r.Display(f.src, n.RStart, n.REnd)
	d = strings.Trim(d, "'\"")
	if d == "" || strings.ContainsAny(d, "\n") {
		// (a branch chosen among several lines: the template reads worse
		// than the value with a star)
		return strings.ReplaceAll(n.Value, Unknown, "*")
	}
	return d
}

// ArmsOf lists the undecidable branches a node depends on: those its
// text is written in, and those of the values it is rendered from (an
// item a `do x.append()` added in a branch, printed elsewhere).
func (f *File) ArmsOf(n *Node) []Arm {
	if n == nil || f.R == nil {
		return nil
	}
	out := f.R.ArmsAt(n.Start)
	r := n.r
	if r == nil {
		r = f.R
	}
	return append(out, r.CondArms(n.RStart, n.REnd)...)
}

// InAltNode reports whether a node exists only in some renders: written
// in a branch of an undecidable condition, or rendered from a value only
// such a branch adds.
func (f *File) InAltNode(n *Node) bool {
	if n == nil || f.R == nil {
		return false
	}
	if f.R.InAlt(n.Start) {
		return true
	}
	r := n.r
	if r == nil {
		r = f.R
	}
	return len(r.CondArms(n.RStart, n.REnd)) > 0
}

// Cache keeps parsed YAML chunks by content so that an edit re-parses one
// chunk. Safe for concurrent use.
type Cache struct {
	mu sync.Mutex
	m  map[string]*cached
	n  int
}

type cached struct {
	fast *raw
	node *yaml.Node
	err  error
	gen  int
}

// NewCache makes an empty chunk cache.
func NewCache() *Cache { return &Cache{m: map[string]*cached{}} }

const cacheMax = 20000

func (c *Cache) parse(text string) (*raw, *yaml.Node, error) {
	if c != nil {
		c.mu.Lock()
		c.n++
		if e, ok := c.m[text]; ok {
			e.gen = c.n
			c.mu.Unlock()
			return e.fast, e.node, e.err
		}
		c.mu.Unlock()
	}
	var root *yaml.Node
	var err error
	fast := fastParse(text)
	if fast == nil {
		var doc yaml.Node
		err = safeUnmarshal([]byte(text), &doc)
		if err == nil {
			root = &doc
		}
	}
	if c != nil && fast == nil {
		// Only what yaml.v3 read is kept: the fast reader re-reads a chunk
		// quicker than a cache lookup is worth in memory.
		c.mu.Lock()
		if len(c.m) >= cacheMax {
			// drop the older half
			for k, e := range c.m {
				if e.gen < c.n-cacheMax/2 {
					delete(c.m, k)
				}
			}
			if len(c.m) >= cacheMax {
				c.m = map[string]*cached{}
			}
		}
		c.m[text] = &cached{fast: fast, node: root, err: err, gen: c.n}
		c.mu.Unlock()
	}
	return fast, root, err
}

// unknownLayout lays out the unknown template output of a chunk that does
// not parse as it could come out, keeping every byte offset: output glued
// to a key's colon (`archive.extracted:{{- macro(x) }}`, a macro writing
// the state's argument lines) as a line break, any other as blanks. It
// returns the chunk that parses, or nil.
func unknownLayout(body string) ([]byte, *yaml.Node) {
	// first only the output glued to a colon, as a line break: the other
	// unknown values stay what they are (blanks would make `- names:
	// {{ x|json }}` empty: saltstack-formulas/kubernetes-formula
	// client/archive/install.sls, whose `archive.extracted:{{-
	// format_kwargs(...) }}` needs the line break, got a false "The
	// 'names' argument ... needs to be formed as a list")
	if alt := layGlued(body); alt != nil {
		var n yaml.Node
		if safeUnmarshal(alt, &n) == nil && n.Kind == yaml.DocumentNode && len(n.Content) > 0 && n.Content[0].Kind == yaml.MappingNode {
			return alt, &n
		}
	}
	for _, lineBreak := range []bool{true, false} {
		alt := layUnknown(body, lineBreak)
		var n yaml.Node
		if safeUnmarshal(alt, &n) == nil && n.Kind == yaml.DocumentNode && len(n.Content) > 0 && n.Content[0].Kind == yaml.MappingNode {
			return alt, &n
		}
	}
	return nil, nil
}

// layGlued writes each Unknown that follows a colon as a line break and
// blanks, and leaves the others; nil when there is none such.
func layGlued(text string) []byte {
	u := len(Unknown)
	brk := "\n" + strings.Repeat(" ", u-1)
	var b strings.Builder
	glued := false
	for {
		i := strings.Index(text, Unknown)
		if i < 0 {
			b.WriteString(text)
			break
		}
		b.WriteString(text[:i])
		if i > 0 && text[i-1] == ':' {
			b.WriteString(brk)
			glued = true
		} else {
			b.WriteString(Unknown)
		}
		text = text[i+u:]
	}
	if !glued {
		return nil
	}
	return []byte(b.String())
}

// layUnknown writes each Unknown of text as blanks of its length, or where
// it follows a colon and lineBreak is set, as a line break and blanks.
// Output that begins a line's text and runs on into it (`{{ x }}-a:`, a
// key or scalar the template prefixes) is laid out as letters: blanks
// there would indent what follows, a layout no output makes (the empty
// one leaves the key where it is), and yaml.v3, unlike Salt's PyYAML,
// reads a top-level mapping indented past the next line's key
// (gaganpreet/salt-states project2/init.sls: `{{ pillar["p"] }}-djangouser:`
// hid the trailing colon of line 130, "mapping values are not allowed").
func layUnknown(text string, lineBreak bool) []byte {
	u := len(Unknown)
	blank := strings.Repeat(" ", u)
	letters := strings.Repeat("x", u)
	brk := blank
	if lineBreak {
		brk = "\n" + blank[1:]
	}
	var b strings.Builder
	lineStart := true // only blanks since the last line break written
	for {
		i := strings.Index(text, Unknown)
		if i < 0 {
			b.WriteString(text)
			return []byte(b.String())
		}
		b.WriteString(text[:i])
		for _, c := range []byte(text[:i]) {
			switch c {
			case '\n':
				lineStart = true
			case ' ', '\t':
			default:
				lineStart = false
			}
		}
		rest := text[i+u:]
		switch {
		case i > 0 && text[i-1] == ':':
			b.WriteString(brk)
			lineStart = false
		case lineStart && runsOn(rest):
			b.WriteString(letters)
			lineStart = false
		default:
			b.WriteString(blank)
		}
		text = rest
	}
}

// runsOn: text (after an Unknown) goes on with the same token: not a
// blank, a line end, the end, or a sequence entry's `- `.
func runsOn(text string) bool {
	if text == "" {
		return false
	}
	switch text[0] {
	case ' ', '\t', '\n', '\r', '#':
		return false
	case '-':
		return len(text) > 1 && text[1] != ' ' && text[1] != '\n'
	}
	return true
}

// safeDecode reads the first document of b as Salt's loader does, which
// wants the stream to hold one: yaml.Unmarshal stops after the document
// and never sees what cannot follow it; a Decoder's second call reads on
// to the next document's start (a note saved as .sls, plain lines with comment lines
// between them, ends its document at the first comment: uvsmtid/
// common-salt-states' doxyfile.sls, "did not find expected <document
// start>" on line 35, where Unmarshal read the scalar of line 27 only).
func safeDecode(b []byte, n *yaml.Node) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%v", r)
		}
	}()
	d := yaml.NewDecoder(bytes.NewReader(b))
	if err = d.Decode(n); err != nil {
		if err == io.EOF {
			err = nil // an empty document
		}
		return err
	}
	var next yaml.Node
	if err = d.Decode(&next); err == io.EOF {
		err = nil
	} else if err == nil {
		// a second document (`---`): not judged here
		return nil
	}
	return err
}

func safeUnmarshal(b []byte, n *yaml.Node) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%v", r)
		}
	}()
	return yaml.Unmarshal(b, n)
}

var shebangOK = map[string]bool{"jinja": true, "yaml": true, "yamlex": true, "gpg": true}

// Parse reads an SLS file: the shebang renderer, Jinja (expanding what is
// knowable with vars), then YAML chunk by chunk.
func Parse(src []byte, vars map[string]string, cache *Cache) *File {
	f := &File{Renderer: "jinja|yaml", src: src}
	if bytes.HasPrefix(src, []byte("#!")) {
		line := src
		if i := bytes.IndexByte(src, '\n'); i >= 0 {
			line = src[:i]
		}
		spec := strings.TrimSpace(string(line[2:]))
		if i := strings.IndexAny(spec, " \t"); i >= 0 {
			spec = spec[:i]
		}
		f.Renderer = spec
		parts := strings.Split(spec, "|")
		hasYAML := false
		for _, p := range parts {
			if !shebangOK[p] {
				f.Skipped = true
			}
			if p == "yaml" || p == "yamlex" {
				hasYAML = true
			}
		}
		if !hasYAML {
			f.Skipped = true
		}
		if f.Skipped {
			f.R = Identity(src)
			f.Errors = append(f.Errors, Error{Span: Span{0, len(line)}, Severity: 3,
				Msg: fmt.Sprintf("renderer %q is not analysed: the states of this file are unknown to ordering-lsp", spec)})
			f.Opaque = append(f.Opaque, Span{0, len(line)})
			return f
		}
		if parts[0] != "jinja" {
			f.R = Identity(src)
		}
	}
	if f.R == nil {
		f.R = RenderJinja(src, vars)
		f.Errors = append(f.Errors, f.R.Errors...)
		f.Opaque = append(f.Opaque, f.R.Opaque...)
		f.readYAML(cache)
		if f.R.IfAlts() && f.yamlErrors() > 0 { // (a loop's body renders once: nothing to retry)
			f.retryBranches(src, vars, cache)
		}
	} else {
		f.readYAML(cache)
	}
	f.firstRenderError()
	for _, e := range f.Entries {
		e.Start = min(max(e.Start, 0), len(src))
		e.End = min(max(e.End, e.Start), len(src))
	}
	for i := range f.Errors {
		e := &f.Errors[i]
		e.Start = min(max(e.Start, 0), len(src))
		e.End = min(max(e.End, e.Start), len(src))
	}
	return f
}

// chunk boundaries: lines starting at column 0 with a key.
func splitChunks(text []byte) [][2]int {
	var out [][2]int
	start := -1
	i := 0
	for i < len(text) {
		j := bytes.IndexByte(text[i:], '\n')
		end := len(text)
		if j >= 0 {
			end = i + j + 1
		}
		line := text[i:end]
		// a line at column 0 starts the next top-level key, except the
		// value of an explicit key (`? long key` then `:`) and the close
		// of a flow collection
		top := len(line) > 0 && !isSpace(line[0]) && line[0] != '#' && line[0] != ':' && line[0] != ']' && line[0] != '}'
		// nor an item of a sequence at its key's indentation (YAML's
		// indentless sequence: `include:` then `- .mta` at column 0)
		if top && start >= 0 && line[0] == '-' && (len(line) == 1 || isSpace(line[1])) {
			top = false
		}
		if top && (bytes.HasPrefix(line, []byte("---")) || bytes.HasPrefix(line, []byte("..."))) {
			if start >= 0 {
				out = append(out, [2]int{start, i})
			}
			start = -1
			i = end
			continue
		}
		if top {
			if start >= 0 {
				out = append(out, [2]int{start, i})
			}
			start = i
		}
		i = end
	}
	if start >= 0 {
		out = append(out, [2]int{start, len(text)})
	}
	return out
}

var lineRe = lazyre.New(`line (\d+)`)

func (f *File) readYAML(cache *Cache) {
	text := f.R.Text
	notDict := false
	for _, ch := range splitChunks(text) {
		a, b := ch[0], ch[1]
		body := string(text[a:b])
		entry := &Entry{Start: f.R.Src(a), End: f.R.SrcEnd(trimRight(text, a, b))}
		if strings.TrimSpace(strings.ReplaceAll(body, Unknown, "")) == "" || strings.HasPrefix(body, Unknown) && !strings.Contains(firstLine(body), ":") {
			entry.Opaque = true
			f.Entries = append(f.Entries, entry)
			continue
		}
		fast, root, err := cache.parse(body)
		ctext := text // the text the YAML nodes were read from
		if err != nil && strings.Contains(body, Unknown) {
			// Template output nobody knows may be laid out so that the
			// chunk parses: then it is no certain error.
			if alt, altRoot := unknownLayout(body); altRoot != nil {
				ctext = append(append(append([]byte(nil), text[:a]...), alt...), text[b:]...)
				root, err = altRoot, nil
			}
		}
		from := a // where the text the YAML nodes were read from starts
		if err != nil && a > 0 && strings.Contains(err.Error(), "unknown anchor") {
			// an alias of an anchor an earlier chunk defines: Salt reads
			// one document, so read this chunk with all before it
			prefix := ctext[:b]
			if bytes.Contains(prefix, []byte(Unknown)) {
				prefix = layUnknown(string(prefix), true)
			}
			var doc yaml.Node
			if safeUnmarshal(prefix, &doc) == nil && doc.Kind == yaml.DocumentNode && len(doc.Content) > 0 && doc.Content[0].Kind == yaml.MappingNode {
				ctext = append(append([]byte(nil), prefix...), ctext[b:]...)
				root, err, from = &doc, nil, 0
			}
		}
		if fast != nil {
			if fast.kind != Map {
				if strings.Contains(body, Unknown) {
					entry.Opaque = true
					f.Entries = append(f.Entries, entry)
					continue
				}
				if !notDict {
					notDict = true
					f.Errors = append(f.Errors, Error{Span: Span{f.R.Src(a), f.R.SrcEnd(trimRight(text, a, b))}, Severity: 1,
						Msg: "SLS does not render to a dictionary"})
				}
				continue
			}
			for i := range fast.keys {
				k := f.fromRaw(fast.keys[i], a, 0)
				v := f.fromRaw(fast.vals[i], a, 0)
				e := *entry
				e.Key, e.Val = k, v
				if i > 0 {
					e.Start = k.Start
				}
				f.Entries = append(f.Entries, &e)
			}
			continue
		}
		if err != nil {
			msg := err.Error()
			msg = strings.TrimPrefix(msg, "yaml: ")
			line := 0
			if m := lineRe.FindStringSubmatch(msg); m != nil {
				line, _ = strconv.Atoi(m[1])
				// the diagnostic's position says where; the chunk's own
				// line number would only mislead
				msg = strings.TrimSpace(strings.Replace(msg, m[0]+":", "", 1))
			}
			at := a
			if off, ok := yamlProblem(text[a:b], msg, line); ok {
				at = a + off // (PyYAML's problem mark, what Salt names)
			} else if line > 0 {
				at = lineOffset(text, a, b, line)
			}
			lineEnd := at
			for lineEnd < b && text[lineEnd] != '\n' {
				lineEnd++
			}
			if macroShadow(text, a, lineEnd) {
				// the macro's output, which the render does not know,
				// may be what those lines continue
				entry.Opaque = true
				f.Entries = append(f.Entries, entry)
				continue
			}
			es := f.R.Src(at)
			if at >= b {
				es = f.R.SrcEnd(at)
			}
			f.Errors = append(f.Errors, Error{Span: Span{es, f.R.SrcEnd(lineEnd)}, Severity: 1,
				Msg: "Rendering SLS failed: " + msg})
			continue
		}
		conv := &converter{f: f, text: ctext, base: from, end: b}
		conv.lines = lineStarts(ctext, from, b)
		var n *yaml.Node = root
		if n.Kind == yaml.DocumentNode && len(n.Content) > 0 {
			n = n.Content[0]
		}
		if n.Kind != yaml.MappingNode {
			if strings.Contains(body, Unknown) {
				entry.Opaque = true
				f.Entries = append(f.Entries, entry)
				continue
			}
			if !notDict {
				// Salt says it once for the file
				notDict = true
				f.Errors = append(f.Errors, Error{Span: Span{f.R.Src(a), f.R.SrcEnd(trimRight(text, a, b))}, Severity: 1,
					Msg: "SLS does not render to a dictionary"})
			}
			continue
		}
		first := true
		for i := 0; i+1 < len(n.Content); i += 2 {
			if from < a && conv.offset(n.Content[i].Line, n.Content[i].Column) < a {
				continue // an earlier chunk's, read for its anchors
			}
			k := conv.node(n.Content[i], 0)
			v := conv.node(n.Content[i+1], 0)
			if u := conv.unknownAfterColon(k, n.Content[i+1]); u != nil {
				v = u
			}
			e := *entry
			e.Key, e.Val = k, v
			if !first {
				e.Start = k.Start
			}
			first = false
			f.Entries = append(f.Entries, &e)
		}
	}
}

// firstRenderError keeps, of the errors that stop Salt rendering the file,
// the one Salt reports: a template that does not compile is never read as
// YAML (the first Jinja error, in source order, as jinja2's parser meets
// it), and PyYAML stops at the first YAML error of the document. The
// chunked reader finds one error per broken chunk and reads on (the
// states of the other chunks stay for hovers and order); only the first
// is Salt's, the rest would be cascades (wuxxin/salt-shared
// old/audit/forensic-treat.sls: 8 errors for one file Salt cannot read;
// old/desktop/ubuntu/writing/sphinx.sls: a YAML error after the unclosed
// {{ that stops Jinja). When the whole render is what Salt reads (no
// branch of an undecidable condition), the document is parsed whole once
// so the error is the one of the whole document, not of a chunk
// (embedded/openwrt/imagebuilder.sls: the mapping error on line 3, not
// "does not render to a dictionary" for the note on line 1).
func (f *File) firstRenderError() {
	firstJinja, firstYAML := -1, -1
	for i, e := range f.Errors {
		if e.Severity != 1 {
			continue
		}
		if isYAMLError(e.Msg) {
			if firstYAML < 0 || e.Start < f.Errors[firstYAML].Start {
				firstYAML = i
			}
		} else if firstJinja < 0 || e.Start < f.Errors[firstJinja].Start {
			firstJinja = i
		}
	}
	if firstJinja < 0 && firstYAML < 0 {
		return
	}
	keep := firstJinja
	if keep < 0 {
		keep = firstYAML
		if !f.R.IfAlts() {
			if e, ok := f.wholeDocError(); ok {
				f.Errors[keep] = e
			}
		}
	}
	out := f.Errors[:0:0]
	for i, e := range f.Errors {
		if e.Severity != 1 || i == keep {
			out = append(out, e)
		}
	}
	f.Errors = out
}

// wholeDocError parses the rendered text as one YAML document (as Salt
// does) and returns its error, at the start of the line it names.
func (f *File) wholeDocError() (Error, bool) {
	text := f.R.Text
	doc := text
	if bytes.Contains(text, []byte(Unknown)) {
		doc = layUnknown(string(text), true) // as the chunks were read
	}
	var n yaml.Node
	err := safeDecode(doc, &n)
	if err == nil {
		return Error{}, false
	}
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	line := 0
	if m := lineRe.FindStringSubmatch(msg); m != nil {
		line, _ = strconv.Atoi(m[1])
		msg = strings.TrimSpace(strings.Replace(msg, m[0]+":", "", 1))
	}
	if msg == "did not find expected <document start>" {
		// a parser error: yaml.v3 counts the problem's line from 0
		// (the next document's first token: PyYAML's line 35, column 1
		// for doxyfile.sls, yaml.v3's 34)
		line++
	}
	at := 0
	if off, ok := yamlProblem(doc, msg, line); ok && len(doc) == len(text) {
		at = off // (PyYAML's problem mark, what Salt names)
	} else if line > 0 {
		at = lineOffset(text, 0, len(text), line)
	} else {
		return Error{}, false
	}
	lineEnd := at
	for lineEnd < len(text) && text[lineEnd] != '\n' {
		lineEnd++
	}
	if macroShadow(text, 0, lineEnd) {
		return Error{}, false
	}
	es := f.R.Src(at)
	if at >= len(text) {
		es = f.R.SrcEnd(at)
	}
	return Error{Span: Span{es, f.R.SrcEnd(lineEnd)}, Severity: 1, Msg: "Rendering SLS failed: " + msg}, true
}

// macroShadow: in the rendered text[a:end], a line that template output
// nobody knows took whole (a macro call on its own indented line, read
// as a comment) is followed, before the YAML problem, by a line indented
// deeper than it. YAML reads such a line as the continuation of the
// macro's output (creativecommons/sre-salt-prime's `{{ tags(ident) }}`
// then `        Routing: Internet Gateway`, which continues the macro's
// `- tags:` mapping): the error may be only ours. Salt renders the file
// (salt-order, the macro's data given).
func macroShadow(text []byte, a, end int) bool {
	marker := []byte("#" + Unknown)
	m := -1 // indentation of the last macro line
	for i := a; i < end && i < len(text); {
		j := bytes.IndexByte(text[i:], '\n')
		le := len(text)
		if j >= 0 {
			le = i + j
		}
		line := text[i:le]
		t := bytes.TrimLeft(line, " ")
		ind := len(line) - len(t)
		switch {
		case bytes.HasPrefix(t, marker):
			m = ind
		case len(bytes.TrimSpace(t)) == 0 || t[0] == '#':
		case m >= 0 && ind > m:
			return true
		default:
			m = -1
		}
		i = le + 1
	}
	return false
}

func isYAMLError(msg string) bool {
	return strings.HasPrefix(msg, "Rendering SLS failed") || msg == "SLS does not render to a dictionary"
}

func (f *File) yamlErrors() int {
	n := 0
	for _, e := range f.Errors {
		if strings.HasPrefix(e.Msg, "Rendering SLS failed") || e.Msg == "SLS does not render to a dictionary" {
			n++
		}
	}
	return n
}

// retryBranches handles templates whose undecidable branches only make
// sense one at a time (an else that continues the list before the if):
// it renders only the first branches, then only the else branches, and
// keeps every entry that parses, with the errors of the better attempt.
func (f *File) retryBranches(src []byte, vars map[string]string, cache *Cache) {
	keep := f.Errors[:0:0]
	for _, e := range f.Errors {
		if !strings.HasPrefix(e.Msg, "Rendering SLS failed") && e.Msg != "SLS does not render to a dictionary" {
			keep = append(keep, e)
		}
	}
	best := -1
	var bestErrs []Error
	seen := map[string]bool{}
	var entries []*Entry
	add := func(es []*Entry) {
		for _, e := range es {
			k := ""
			if e.Key != nil {
				k = fmt.Sprintf("%d|%s", e.Key.Start, e.Key.Value)
			} else {
				k = fmt.Sprintf("opaque|%d", e.Start)
			}
			if !seen[k] {
				seen[k] = true
				entries = append(entries, e)
			}
		}
	}
	for _, mode := range []int{modeFirst, modeLast} {
		g := &File{Renderer: f.Renderer, src: f.src, R: renderJinja(src, vars, mode)}
		g.readYAML(cache)
		n := g.yamlErrors()
		add(g.Entries)
		if best < 0 || n < best {
			best = n
			bestErrs = nil
			for _, e := range g.Errors {
				if strings.HasPrefix(e.Msg, "Rendering SLS failed") || e.Msg == "SLS does not render to a dictionary" {
					bestErrs = append(bestErrs, e)
				}
			}
		}
	}
	// the all-branches entries that parsed come last (they may repeat)
	add(f.Entries)
	f.Entries = entries
	f.Errors = append(keep, bestErrs...)
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

func trimRight(text []byte, a, b int) int {
	for b > a && isSpace(text[b-1]) {
		b--
	}
	return b
}

func lineStarts(text []byte, a, b int) []int {
	ls := []int{a}
	for i := a; i < b; i++ {
		if text[i] == '\n' {
			ls = append(ls, i+1)
		}
	}
	return ls
}

func lineOffset(text []byte, a, b, line int) int {
	ls := lineStarts(text, a, b)
	if line-1 < len(ls) && line >= 1 {
		return ls[line-1]
	}
	return a
}

// fromRaw turns a fast-parsed tree into Nodes, base being the chunk's
// offset in the rendered text. The nodes and their child lists come from
// two blocks allocated at once (a file's trees live and die together).
func (f *File) fromRaw(r *raw, base, depth int) *Node {
	nodes, ptrs := countRaw(r, depth)
	b := &nodeBlock{nodes: make([]Node, nodes), ptrs: make([]*Node, ptrs)}
	return f.fromRawIn(b, r, base, depth)
}

type nodeBlock struct {
	nodes []Node
	ptrs  []*Node
}

func (b *nodeBlock) list(n int) []*Node {
	l := b.ptrs[:n:n]
	b.ptrs = b.ptrs[n:]
	return l
}

// countRaw counts the nodes and child pointers fromRawIn will make.
func countRaw(r *raw, depth int) (nodes, ptrs int) {
	nodes = 1
	if depth >= 200 {
		return
	}
	ptrs = len(r.keys) + len(r.vals) + len(r.items)
	for i := range r.keys {
		a, b := countRaw(r.keys[i], depth+1)
		nodes, ptrs = nodes+a, ptrs+b
		a, b = countRaw(r.vals[i], depth+1)
		nodes, ptrs = nodes+a, ptrs+b
	}
	for _, it := range r.items {
		a, b := countRaw(it, depth+1)
		nodes, ptrs = nodes+a, ptrs+b
	}
	return
}

func (f *File) fromRawIn(b *nodeBlock, r *raw, base, depth int) *Node {
	n := &b.nodes[0]
	b.nodes = b.nodes[1:]
	*n = Node{Kind: r.kind, Tag: r.tag, Value: r.value, RStart: base + r.start, REnd: base + r.end, r: f.R}
	if depth < 200 {
		if len(r.keys) > 0 {
			n.Keys = b.list(len(r.keys))
			n.Vals = b.list(len(r.vals))
			for i := range r.keys {
				n.Keys[i] = f.fromRawIn(b, r.keys[i], base, depth+1)
				n.Vals[i] = f.fromRawIn(b, r.vals[i], base, depth+1)
			}
		}
		if len(r.items) > 0 {
			n.Items = b.list(len(r.items))
			for i, it := range r.items {
				n.Items[i] = f.fromRawIn(b, it, base, depth+1)
			}
		}
	}
	if n.REnd < n.RStart {
		n.REnd = n.RStart
	}
	n.Start = f.R.Src(n.RStart)
	n.End = f.R.SrcEnd(n.REnd)
	if n.End < n.Start {
		n.End = n.Start
	}
	return n
}

type converter struct {
	f     *File
	text  []byte
	base  int
	end   int
	lines []int
	count int
}

// offset converts a yaml.v3 line/column (1-based, columns in runes) to a
// rendered byte offset.
func (c *converter) offset(line, col int) int {
	if line < 1 || line > len(c.lines) {
		return c.base
	}
	off := c.lines[line-1]
	for i := 1; i < col && off < c.end; i++ {
		if c.text[off] == '\n' {
			break
		}
		_, size := utf8.DecodeRune(c.text[off:c.end])
		off += size
	}
	return off
}

func (c *converter) node(y *yaml.Node, depth int) *Node {
	c.count++
	if depth > 200 || c.count > 2000000 {
		return &Node{Kind: Scalar, Tag: "!!null"}
	}
	if y.Kind == yaml.AliasNode && y.Alias != nil {
		n := c.node(y.Alias, depth+1)
		// the alias itself is where the user looks
		s := c.offset(y.Line, y.Column)
		cp := *n
		cp.RStart, cp.REnd = s, c.scalarEnd(s, "*"+y.Value, 0)
		cp.Start, cp.End = c.f.R.Src(cp.RStart), c.f.R.SrcEnd(cp.REnd)
		return &cp
	}
	if y.Kind == yaml.DocumentNode && len(y.Content) > 0 {
		return c.node(y.Content[0], depth+1)
	}
	start := c.offset(y.Line, y.Column)
	n := &Node{Tag: y.ShortTag(), RStart: start, r: c.f.R}
	switch y.Kind {
	case yaml.MappingNode:
		n.Kind = Map
		n.REnd = start + 1
		for i := 0; i+1 < len(y.Content); i += 2 {
			k := c.node(y.Content[i], depth+1)
			v := c.node(y.Content[i+1], depth+1)
			if u := c.unknownAfterColon(k, y.Content[i+1]); u != nil {
				v = u
			}
			n.Keys = append(n.Keys, k)
			n.Vals = append(n.Vals, v)
			n.REnd = max(n.REnd, k.REnd, v.REnd)
		}
	case yaml.SequenceNode:
		n.Kind = Seq
		n.REnd = start + 1
		for _, it := range y.Content {
			x := c.node(it, depth+1)
			n.Items = append(n.Items, x)
			n.REnd = max(n.REnd, x.REnd)
		}
	default:
		n.Kind = Scalar
		n.Value = y.Value
		n.REnd = c.scalarEnd(start, y.Value, y.Style)
	}
	n.Start = c.f.R.Src(n.RStart)
	n.End = c.f.R.SrcEnd(n.REnd)
	if n.End < n.Start {
		n.End = n.Start
	}
	return n
}

// unknownAfterColon returns, for a key whose value YAML reads as an implicit
// null, the unknown template output glued to the key's colon in the
// rendered text (`pkgrepo.managed:{{- format_kwargs(x) }}`), which
// unknownLayout laid out as a line break so that a sibling key after it
// parses. That output is the value (a macro writing the state's argument
// lines), not a null: Salt renders it and runs the state
// (Whyrl35/saltstack firezone/install.sls). Nil when the value is no such
// null.
func (c *converter) unknownAfterColon(k *Node, v *yaml.Node) *Node {
	if v.Kind != yaml.ScalarNode || v.ShortTag() != "!!null" || v.Value != "" || k.Kind != Scalar {
		return nil
	}
	t := c.f.R.Text
	at := k.REnd
	if at >= len(t) || t[at] != ':' || !bytes.HasPrefix(t[at+1:], []byte(Unknown)) {
		return nil
	}
	n := &Node{Kind: Scalar, Tag: "!!str", Value: Unknown, RStart: at + 1, REnd: at + 1 + len(Unknown), r: c.f.R}
	n.Start, n.End = c.f.R.Src(n.RStart), c.f.R.SrcEnd(n.REnd)
	if n.End < n.Start {
		n.End = n.Start
	}
	return n
}

// scalarEnd finds where a scalar starting at off ends in the rendered text.
func (c *converter) scalarEnd(off int, value string, style yaml.Style) int {
	t := c.text
	if off >= c.end {
		return off
	}
	switch {
	case style&yaml.DoubleQuotedStyle != 0 || (off < c.end && t[off] == '"'):
		for i := off + 1; i < c.end; i++ {
			if t[i] == '\\' {
				i++
				continue
			}
			if t[i] == '"' {
				return i + 1
			}
		}
		return c.end
	case style&yaml.SingleQuotedStyle != 0 || (off < c.end && t[off] == '\''):
		for i := off + 1; i < c.end; i++ {
			if t[i] == '\'' {
				if i+1 < c.end && t[i+1] == '\'' {
					i++
					continue
				}
				return i + 1
			}
		}
		return c.end
	case style&(yaml.LiteralStyle|yaml.FoldedStyle) != 0:
		e := off
		for e < c.end && t[e] != '\n' {
			e++
		}
		return e
	}
	if off+len(value) <= c.end && string(t[off:off+len(value)]) == value {
		return off + len(value)
	}
	// multi-line plain scalar or a tag: up to the end of the line
	e := off
	for e < c.end && t[e] != '\n' {
		if t[e] == ' ' && e+1 < c.end && t[e+1] == '#' {
			break
		}
		e++
	}
	for e > off && (t[e-1] == ' ' || t[e-1] == '\r') {
		e--
	}
	return e
}
