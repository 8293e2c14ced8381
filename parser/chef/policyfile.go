package chef

import (
	"errors"
	"fmt"
	"regexp"
	"runtime"
	"strings"
	"sync"

	"github.com/alecthomas/participle/v2"

	"github.com/ordering-lsp/ordering-lsp/internal/lazyre"
)

// Severity of a parser diagnostic (same numbering as analysis.Severity).
type Severity uint8

const (
	Error Severity = 1 + iota
	Warning
	Info
)

// Diag is a problem found while reading a file; offsets are bytes.
type Diag struct {
	Start, End int
	Severity   Severity
	Code       string
	Message    string
}

// Statement is one top-level statement of a Policyfile.
type Statement struct {
	Start, End int
	Call       *Call
	Assign     *Assign
	// Skipped is Ruby that is not Policyfile DSL (or DSL guarded by a
	// modifier condition): it is not evaluated.
	Skipped bool
}

// File is a parsed Policyfile.
type File struct {
	Stmts []*Statement
	Diags []Diag
	// HiddenDSL lists the DSL words used inside skipped Ruby (a run_list
	// set in an `if`): what the file declares there is unknown, not absent.
	HiddenDSL map[string]bool
}

// dslWords are the Policyfile DSL methods (chef-cli's Policyfile::DSL).
var dslWords = map[string]bool{
	"name": true, "default_source": true, "run_list": true, "named_run_list": true,
	"cookbook": true, "include_policy": true, "default": true, "override": true, "metadata": true,
}

// Parser parses Policyfiles, caching each statement's syntax tree by its
// text so an edit re-parses only the statements it touched. Safe for
// concurrent use.
type Parser struct {
	mu    sync.Mutex
	cache map[string]*cached
}

type cached struct {
	stmt *gStmt
	err  error
}

// NewParser returns a parser with an empty cache.
func NewParser() *Parser { return &Parser{cache: map[string]*cached{}} }

var defaultParser = NewParser()

// Parse reads a Policyfile with the package's shared cache.
func Parse(src []byte) *File { return defaultParser.Parse(src) }

const maxCache = 20000

func (p *Parser) parseChunk(text []byte) (*gStmt, error) {
	key := string(text)
	p.mu.Lock()
	c, ok := p.cache[key]
	p.mu.Unlock()
	if ok {
		return c.stmt, c.err
	}
	toks := fold(text, Scan(text))
	st, err := safeParse(text, toks)
	p.mu.Lock()
	if len(p.cache) >= maxCache {
		p.cache = map[string]*cached{}
	}
	p.cache[key] = &cached{st, err}
	p.mu.Unlock()
	return st, err
}

func safeParse(text []byte, toks []Tok) (st *gStmt, err error) {
	defer func() {
		if r := recover(); r != nil {
			st, err = nil, fmt.Errorf("internal parser error: %v", r)
		}
	}()
	return parseStatement(text, toks)
}

// Parse reads a Policyfile.
func (p *Parser) Parse(src []byte) *File {
	f := &File{}
	toks := Scan(src)
	for _, t := range toks {
		if t.Err != "" {
			f.Diags = append(f.Diags, Diag{Start: t.Start, End: t.End, Severity: Error, Code: "syntax", Message: "syntax error: " + t.Err})
		}
	}
	chunks := splitRecover(src, toks)
	p.warm(src, toks, chunks)
	defer func() {
		for i, st := range f.Stmts {
			if !st.Skipped {
				continue
			}
			for _, t := range toks[chunks[i].From:chunks[i].To] {
				if t.Kind == KIdent && dslWords[t.Text(src)] {
					if f.HiddenDSL == nil {
						f.HiddenDSL = map[string]bool{}
					}
					f.HiddenDSL[t.Text(src)] = true
				}
			}
		}
	}()
	for _, c := range chunks {
		st := &Statement{Start: c.Start, End: c.End}
		f.Stmts = append(f.Stmts, st)
		first := toks[c.From]
		word := first.Text(src)
		if c.Unbalanced != "" {
			st.Skipped = true
			f.Diags = append(f.Diags, Diag{Start: first.Start, End: first.End, Severity: Error, Code: "syntax",
				Message: "syntax error: " + c.Unbalanced})
			continue
		}
		if first.Kind == KError {
			st.Skipped = true
			continue // already reported
		}
		if i, word, ok := rubySyntaxError(src, toks[c.From:c.To]); ok {
			// not Ruby at all: chef-cli's instance_eval raises SyntaxError
			st.Skipped = true
			t := toks[c.From+i]
			msg := fmt.Sprintf("syntax error, unexpected %s: `%s` follows `%s` with no comma or operator between them", word, t.Text(src), toks[c.From+i-1].Text(src))
			if word == "=>" {
				msg = "syntax error, unexpected =>: `=>` has no key before it"
			}
			f.Diags = append(f.Diags, Diag{Start: t.Start, End: t.End, Severity: Error, Code: "syntax", Message: msg})
			continue
		}
		if first.Kind != KIdent || !dslWords[word] || isLocalAssign(src, toks, c) {
			st.Skipped = true
			f.Diags = append(f.Diags, Diag{Start: c.Start, End: lineEnd(src, c.Start, c.End), Severity: Info, Code: "ruby-skipped",
				Message: "Ruby that is not Policyfile DSL is not evaluated: " + firstLine(src[c.Start:c.End])})
			continue
		}
		if d := nesting(src, toks[c.From:c.To]); d > maxNesting {
			st.Skipped = true
			f.Diags = append(f.Diags, Diag{Start: c.Start, End: lineEnd(src, c.Start, c.End), Severity: Warning, Code: "unsupported",
				Message: fmt.Sprintf("this `%s` statement nests brackets %d deep; it is skipped", word, d)})
			continue
		}
		g, err := p.parseChunk(src[c.Start:c.End])
		if err != nil || g == nil {
			st.Skipped = true
			msg := "this `" + word + "` statement is Ruby the Policyfile reader does not understand; it is skipped"
			reported := false
			for _, t := range toks[c.From:c.To] {
				if t.Err != "" {
					reported = true // the scanner's error already says why
				}
			}
			if reported {
				continue
			}
			start, end := c.Start, lineEnd(src, c.Start, c.End)
			var pe participle.Error
			if errors.As(err, &pe) {
				// point at the token the grammar stopped on
				if off := c.Start + pe.Position().Offset; off > c.Start && off < c.End {
					start = off
					end = off
					for _, t := range toks[c.From:c.To] {
						if t.Start == off {
							end = t.End
						}
					}
					msg = fmt.Sprintf("this `%s` statement is Ruby the Policyfile reader does not understand (stopped at `%s`); it is skipped", word, src[start:end])
				}
			}
			// An attribute's value the reader cannot read (valid Ruby:
			// tdg5/chef-repo's `default[...] = vols.map { |v| ... }`) changes
			// no order: the reader's limit, information. A skipped
			// run_list, include_policy or cookbook may change the order
			// shown: a warning.
			sev := Warning
			if word == "default" || word == "override" {
				sev = Info
			}
			f.Diags = append(f.Diags, Diag{Start: start, End: end, Severity: sev, Code: "unsupported", Message: msg})
			continue
		}
		cv := &conv{src: src[c.Start:c.End], base: c.Start}
		if g.Modifier != nil {
			st.Skipped = true
			f.Diags = append(f.Diags, Diag{Start: c.Start, End: lineEnd(src, c.Start, c.End), Severity: Info, Code: "ruby-skipped",
				Message: "`" + word + "` guarded by a Ruby condition is not evaluated: " + firstLine(src[c.Start:c.End])})
			continue
		}
		if g.Assign != nil {
			st.Assign = cv.assign(g.Assign)
		} else if g.Call != nil {
			st.Call = cv.call(g.Call)
		}
	}
	return f
}

// warm parses the DSL statements that are not cached yet, in parallel
// (a cold workspace: every statement is new).
func (p *Parser) warm(src []byte, toks []Tok, chunks []Chunk) {
	var todo [][]byte
	p.mu.Lock()
	for _, c := range chunks {
		first := toks[c.From]
		if c.Unbalanced != "" || first.Kind != KIdent || !dslWords[first.Text(src)] {
			continue
		}
		if _, ok := p.cache[string(src[c.Start:c.End])]; !ok {
			todo = append(todo, src[c.Start:c.End])
		}
	}
	p.mu.Unlock()
	workers := runtime.GOMAXPROCS(0)
	if len(todo) < 16 || workers < 2 {
		return // not worth the goroutines; Parse fills the cache as it goes
	}
	var wg sync.WaitGroup
	next := make(chan []byte)
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for text := range next {
				p.parseChunk(text)
			}
		}()
	}
	for _, t := range todo {
		next <- t
	}
	close(next)
	wg.Wait()
}

// splitRecover splits statements; a statement that never closes (an open
// bracket, a missing `end`) is cut before the next line that starts in
// column 0 with a DSL word, and splitting resumes there, so one syntax
// error costs one statement, not the rest of the file.
func splitRecover(src []byte, toks []Tok) []Chunk {
	var out []Chunk
	base := 0
	for guard := 0; guard < len(toks)+1; guard++ {
		chunks := Split(src, toks[base:])
		for i := range chunks {
			chunks[i].From += base
			chunks[i].To += base
		}
		if len(chunks) == 0 || chunks[len(chunks)-1].Unbalanced == "" {
			return append(out, chunks...)
		}
		last := chunks[len(chunks)-1]
		cut := -1
		for j := last.From + 1; j < last.To; j++ {
			t := toks[j]
			if t.Kind == KIdent && (t.Start == 0 || src[t.Start-1] == '\n') && dslWords[t.Text(src)] {
				cut = j
				break
			}
		}
		if cut < 0 {
			return append(out, chunks...)
		}
		end := prevSig(toks, cut)
		for end > last.From && toks[end].Kind == KNewline {
			end = prevSig(toks, end)
		}
		last.To = end + 1
		last.End = toks[end].End
		out = append(out, chunks[:len(chunks)-1]...)
		out = append(out, last)
		base = cut
	}
	return out
}

const maxNesting = 100

// nesting is the deepest bracket nesting of a statement.
func nesting(src []byte, toks []Tok) int {
	d, m := 0, 0
	for _, t := range toks {
		if t.Kind != KPunct && t.Kind != KLIndex && t.Kind != KLCall {
			continue
		}
		switch src[t.Start] {
		case '(', '[', '{':
			d++
			if d > m {
				m = d
			}
		case ')', ']', '}':
			d--
		}
	}
	return m
}

// isLocalAssign catches `name = "x"`: a local variable that shadows a DSL word.
func isLocalAssign(src []byte, toks []Tok, c Chunk) bool {
	if c.To-c.From < 2 {
		return false
	}
	n := nextSig(toks, c.From)
	if n < 0 || n >= c.To {
		return false
	}
	t := toks[n]
	s := t.Text(src)
	return (t.Kind == KPunct && s == "=") || (t.Kind == KOp && strings.HasSuffix(s, "=") && s != "==" && s != "!=" && s != "<=" && s != ">=")
}

func lineEnd(src []byte, start, end int) int {
	for i := start; i < end; i++ {
		if src[i] == '\n' {
			return i
		}
	}
	return end
}

func firstLine(b []byte) string {
	s := string(b)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i] + " ..."
	}
	if len(s) > 80 {
		s = s[:77] + "..."
	}
	return s
}

// ---- the Policyfile model ----

// RunItem is one run-list entry.
type RunItem struct {
	// Raw is the entry as written: "nginx", "recipe[nginx::default]".
	Raw string
	// Type is "recipe" or "role".
	Type string
	// Name is the item name as chef compares it: "nginx" and
	// "nginx::default" are different names to Chef::RunList.
	Name string
	// Version is the @version suffix, if any.
	Version string
	// Label is the lock-file notation: recipe[nginx::default].
	Label            string
	Cookbook, Recipe string
	Start, End       int
	// Unknown entries are Ruby expressions; Pattern ones are interpolated.
	Unknown, Pattern bool
}

// Key is the identity chef-cli deduplicates on (type, name, version).
func (r *RunItem) Key() string { return r.Type + "[" + r.Name + "@" + r.Version + "]" }

var (
	qualifiedRE = lazyre.New(`^(recipe|role)\[([^\]@]+)(@([0-9]+(\.[0-9]+){1,2}))?\]$`)
	versionedRE = lazyre.New(`^(.+)@(\d+\.\d+(\.\d+)?)$`)
)

// ParseRunItem reads a run-list string the way Chef::RunList::RunListItem does.
func ParseRunItem(raw string) *RunItem {
	it := &RunItem{Raw: raw, Type: "recipe", Name: raw}
	if m := qualifiedRE.FindStringSubmatch(raw); m != nil {
		it.Type, it.Name, it.Version = m[1], m[2], m[4]
	} else if m := versionedRE.FindStringSubmatch(raw); m != nil {
		it.Name, it.Version = m[1], m[2]
	}
	cb, rc, found := strings.Cut(it.Name, "::")
	if !found {
		rc = "default"
	}
	it.Cookbook, it.Recipe = cb, rc
	it.Label = "recipe[" + cb + "::" + rc + "]"
	return it
}

// RunList is a run_list or named_run_list statement.
type RunList struct {
	Call  *Call
	Name  string // named run lists only
	Items []*RunItem
	// Unknown is set when part of the list is computed by Ruby.
	Unknown bool
}

// Source is a default_source statement.
type Source struct {
	Call *Call
	Type string // supermarket, community, chef_server, chef_repo, artifactory, delivery_supermarket
	Arg  *Value
	// Preferred are the cookbooks named by preferred_for in its block.
	Preferred []string
}

// Cookbook is a `cookbook` statement.
type Cookbook struct {
	Call       *Call
	Name       *Value
	Constraint *Value // nil when none
	// Options: path git github chef_server branch tag ref rel revision...
	Opts map[string]*Value
}

// Include is an include_policy statement.
type Include struct {
	Call *Call
	Name *Value
	Opts map[string]*Value
}

// Policy is what a Policyfile declares.
type Policy struct {
	Name          *Value
	NameCall      *Call
	Sources       []*Source
	RunList       *RunList
	NamedRunLists []*RunList
	Cookbooks     []*Cookbook
	Includes      []*Include
	Attrs         []*Assign
	Metadata      *Call
	Diags         []Diag
}

var componentRE = lazyre.New(`^[.\pL\pN_-]+$`)

// Read builds the Policy model from a parsed file, with chef-cli's DSL
// checks (its messages) as diagnostics.
func Read(src []byte, f *File) *Policy {
	p := &Policy{}
	cookbooks := map[string]*Cookbook{}
	includes := map[string]*Include{}
	errf := func(start, end int, code, msg string) {
		p.Diags = append(p.Diags, Diag{Start: start, End: end, Severity: Error, Code: code, Message: msg})
	}
	for _, st := range f.Stmts {
		if st.Assign != nil {
			if st.Assign.Level != "default" && st.Assign.Level != "override" {
				p.Diags = append(p.Diags, Diag{Start: st.Start, End: lineEnd(src, st.Start, st.End), Severity: Info, Code: "ruby-skipped",
					Message: "Ruby that is not Policyfile DSL is not evaluated: " + firstLine(src[st.Start:st.End])})
				continue
			}
			p.Attrs = append(p.Attrs, st.Assign)
			continue
		}
		c := st.Call
		if c == nil {
			continue
		}
		switch c.Name {
		case "name":
			if len(c.Args) > 0 {
				p.Name, p.NameCall = c.Args[0], c
			}
		case "run_list", "named_run_list":
			rl := &RunList{Call: c}
			args := c.Args
			if c.Name == "named_run_list" {
				if len(args) == 0 {
					errf(c.Start, c.End, "dsl", "named_run_list needs a name")
					continue
				}
				rl.Name = args[0].Text
				args = args[1:]
			}
			rl.Items, rl.Unknown = runItems(args)
			if len(c.Opts) > 0 {
				rl.Unknown = true
			}
			desc := func(it *RunItem) string {
				if rl.Name != "" {
					return fmt.Sprintf("Named Run List '%s' Item '%s'", rl.Name, it.Raw)
				}
				return fmt.Sprintf("Run List Item '%s'", it.Raw)
			}
			for _, it := range rl.Items {
				if it.Unknown || it.Pattern {
					continue
				}
				if !componentRE.MatchString(it.Cookbook) {
					msg := fmt.Sprintf("%s has invalid cookbook name '%s'.\nCookbook names can only contain alphanumerics, hyphens, and underscores.", desc(it), it.Cookbook)
					if regexp.MustCompile(`[^:]:[^:]`).MatchString(it.Cookbook) {
						msg += fmt.Sprintf("\nDid you mean '%s'?", strings.Replace(it.Raw, ":", "::", 1))
					}
					errf(it.Start, it.End, "invalid-run-list-item", msg)
				} else if strings.Contains(it.Name, "::") && !componentRE.MatchString(it.Recipe) {
					errf(it.Start, it.End, "invalid-run-list-item", fmt.Sprintf("%s has invalid recipe name '%s'.\nRecipe names can only contain alphanumerics, hyphens, and underscores.", desc(it), it.Recipe))
				}
			}
			if len(rl.Items) == 0 && !rl.Unknown {
				continue // chef-cli ignores an empty call
			}
			if rl.Name == "" {
				p.RunList = rl // a later run_list replaces an earlier one
			} else {
				replaced := false
				for i, o := range p.NamedRunLists {
					if o.Name == rl.Name {
						p.NamedRunLists[i] = rl
						replaced = true
					}
				}
				if !replaced {
					p.NamedRunLists = append(p.NamedRunLists, rl)
				}
			}
		case "default_source":
			if len(c.Args) == 0 {
				continue
			}
			s := &Source{Call: c, Type: c.Args[0].Text}
			if c.Args[0].Kind != VSymbol {
				s.Type = c.Args[0].Text
			}
			if len(c.Args) > 1 {
				s.Arg = c.Args[1]
			}
			if c.BlockEnd > c.BlockStart {
				s.Preferred = preferredFor(src[c.BlockStart:c.BlockEnd])
			}
			switch s.Type {
			case "community", "supermarket", "delivery_supermarket", "chef_server", "chef_repo", "artifactory":
			default:
				errf(c.Args[0].Start, c.Args[0].End, "dsl", fmt.Sprintf("Invalid default_source type '%s'", c.Args[0].String()))
				continue
			}
			if s.Arg == nil {
				switch s.Type {
				case "delivery_supermarket", "chef_server", "artifactory":
					errf(c.Start, c.End, "dsl", fmt.Sprintf("You must specify the server's URI when using a default_source :%s", s.Type))
				case "chef_repo":
					errf(c.Start, c.End, "dsl", "You must specify the path to the chef-repo when using a default_source :chef_repo")
				}
			}
			p.Sources = append(p.Sources, s)
		case "cookbook":
			if len(c.Args) == 0 {
				continue
			}
			cb := &Cookbook{Call: c, Name: c.Args[0], Opts: opts(c)}
			if len(cb.Opts) > 0 {
				known := false
				for _, k := range []string{"git", "github", "path", "artifactserver", "chef_server", "chef_server_artifact", "artifactory"} {
					if cb.Opts[k] != nil {
						known = true
					}
				}
				if !known {
					// CookbookOmnifetch finds no location for these options
					errf(c.Start, c.End, "dsl", fmt.Sprintf("Cookbook `%s' has invalid source options `%s'", cb.Name.Text, optsString(c)))
				}
			}
			if len(c.Args) > 1 {
				cb.Constraint = c.Args[1]
			}
			if o := cookbooks[cb.Name.Text]; o != nil && cb.Name.Kind != VUnknown {
				errf(c.Start, c.End, "conflicting-sources", fmt.Sprintf("Cookbook '%s' assigned to conflicting sources\n\nPrevious source: %s\nConflicts with: %s", cb.Name.Text, optsString(o.Call), optsString(c)))
			} else {
				cookbooks[cb.Name.Text] = cb
			}
			p.Cookbooks = append(p.Cookbooks, cb)
		case "include_policy":
			if len(c.Args) == 0 {
				continue
			}
			in := &Include{Call: c, Name: c.Args[0], Opts: opts(c)}
			if o := includes[in.Name.Text]; o != nil {
				errf(in.Name.Start, in.Name.End, "include-conflict", fmt.Sprintf("Included policy '%s' assigned conflicting locations or was already specified\n\nPrevious source: %s\nConflicts with: %s", in.Name.Text, optsString(o.Call), optsString(c)))
			} else {
				includes[in.Name.Text] = in
				p.Includes = append(p.Includes, in)
			}
		case "metadata":
			p.Metadata = c
		case "default", "override":
			// default["a"].tap do |x| x["b"] = 1 end is read; other Ruby
			// (default.merge!(...)) is not
			if as, ok := tapAssigns(src, c, c.Name, nil, 0); ok {
				p.Attrs = append(p.Attrs, as...)
				continue
			}
			p.Diags = append(p.Diags, Diag{Start: c.Start, End: lineEnd(src, c.Start, c.End), Severity: Info, Code: "ruby-skipped",
				Message: "attributes set through Ruby (not `" + c.Name + "[...] = value`) are not evaluated; conflicts with included policies are not checked for them"})
		}
	}
	return p
}

func runItems(args []*Value) (items []*RunItem, unknown bool) {
	var walk func(v *Value, depth int)
	walk = func(v *Value, depth int) {
		if depth > 50 {
			unknown = true
			return
		}
		switch v.Kind {
		case VArray:
			for _, it := range v.Items {
				walk(it, depth+1)
			}
		case VString, VSymbol:
			it := ParseRunItem(v.Text)
			it.Start, it.End = v.Start, v.End
			it.Pattern = v.Pattern
			items = append(items, it)
		default:
			unknown = true
			items = append(items, &RunItem{Raw: v.Text, Label: v.Text, Unknown: true, Start: v.Start, End: v.End})
		}
	}
	for _, a := range args {
		walk(a, 0)
	}
	return
}

func opts(c *Call) map[string]*Value {
	m := map[string]*Value{}
	for _, p := range c.Opts {
		if p.Key != nil {
			m[p.Key.Text] = p.Value
		}
	}
	return m
}

// optsString renders call options the way Ruby's Hash#inspect shows them
// in chef-cli messages: {:path=>"x"}.
func optsString(c *Call) string {
	parts := []string{}
	for _, p := range c.Opts {
		parts = append(parts, ":"+p.Key.Text+"=>"+p.Value.String())
	}
	return "{" + strings.Join(parts, ", ") + "}"
}

// preferredFor finds `x.preferred_for "a", "b"` in a default_source block.
func preferredFor(block []byte) []string {
	toks := Scan(block)
	var out []string
	for i := 0; i < len(toks); i++ {
		if toks[i].Kind == KIdent && toks[i].Text(block) == "preferred_for" {
			for j := i + 1; j < len(toks) && toks[j].Kind != KNewline; j++ {
				if toks[j].Kind == KString || toks[j].Kind == KSymbol {
					s, _ := decodeString(toks[j].Text(block))
					if toks[j].Kind == KSymbol {
						s = strings.TrimPrefix(toks[j].Text(block), ":")
					}
					out = append(out, s)
				} else if toks[j].Kind == KWords {
					w := toks[j].Text(block)
					if len(w) > 4 {
						out = append(out, strings.Fields(w[3:len(w)-1])...)
					}
				}
			}
		}
	}
	return out
}

// tapAssigns reads `LEVEL[k]...[k].tap do |x| x[k2] = v; x[k3].tap ... end`
// (the receiver keys given by prefix for nested taps) as assignments.
func tapAssigns(src []byte, c *Call, level string, prefix []*Value, depth int) ([]*Assign, bool) {
	if depth > 20 || len(c.Args) != 1 || c.Args[0].Kind != VUnknown || c.BlockEnd <= c.BlockStart {
		return nil, false
	}
	// the receiver: ['a'][:b].tap
	recv := c.Args[0]
	rt := Scan(src[recv.Start:recv.End])
	keys := append([]*Value(nil), prefix...)
	i := 0
	for i+2 < len(rt) && (rt[i].Kind == KLIndex || rt[i].Kind == KPunct) && src[recv.Start+rt[i].Start] == '[' {
		k := rt[i+1]
		if (k.Kind != KString && k.Kind != KSymbol) || rt[i+2].Kind != KPunct || src[recv.Start+rt[i+2].Start] != ']' {
			return nil, false
		}
		text := k.Text(src[recv.Start:])
		v := &Value{Kind: VString, Start: recv.Start + k.Start, End: recv.Start + k.End}
		if k.Kind == KSymbol {
			v.Kind, v.Text = VSymbol, strings.TrimPrefix(text, ":")
		} else {
			v.Text, v.Pattern = decodeString(text)
		}
		keys = append(keys, v)
		i += 3
	}
	if i+2 != len(rt) || rt[i].Kind != KPunct || rt[i].Text(src[recv.Start:]) != "." || rt[i+1].Text(src[recv.Start:]) != "tap" || len(keys) == len(prefix) {
		return nil, false
	}
	// the block: do |x| BODY end  or  { |x| BODY }
	base := c.BlockStart
	bt := Scan(src[c.BlockStart:c.BlockEnd])
	for j := range bt {
		bt[j].Start += base
		bt[j].End += base
	}
	if len(bt) < 5 || bt[1].Kind != KPunct || src[bt[1].Start] != '|' || bt[2].Kind != KIdent || bt[3].Kind != KPunct || src[bt[3].Start] != '|' {
		return nil, false
	}
	param := bt[2].Text(src)
	body := bt[4 : len(bt)-1]
	var out []*Assign
	for _, ch := range Split(src, body) {
		first := body[ch.From]
		if first.Kind == KComment || first.Kind == KNewline {
			continue
		}
		if first.Kind != KIdent || first.Text(src) != param || ch.Unbalanced != "" {
			return nil, false
		}
		g, err := defaultParser.parseChunk(src[ch.Start:ch.End])
		if err != nil || g == nil || g.Modifier != nil {
			return nil, false
		}
		cv := &conv{src: src[ch.Start:ch.End], base: ch.Start}
		switch {
		case g.Assign != nil && g.Assign.Level == param:
			a := cv.assign(g.Assign)
			a.Level = level
			a.Keys = append(append([]*Value(nil), keys...), a.Keys...)
			out = append(out, a)
		case g.Call != nil && g.Call.Name == param:
			inner := cv.call(g.Call)
			as, ok := tapAssigns(src, inner, level, keys, depth+1)
			if !ok {
				return nil, false
			}
			out = append(out, as...)
		default:
			return nil, false
		}
	}
	return out, true
}
