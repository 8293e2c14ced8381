package salt

import (
	"fmt"
	"slices"
	"strings"

	"github.com/ordering-lsp/ordering-lsp/analysis"
	"github.com/ordering-lsp/ordering-lsp/internal/lazyre"
	"github.com/ordering-lsp/ordering-lsp/source"
)

// The fixes edit block-style SLS text line by line: a requisite item is
// one `- mod: target` line under a `- require:` line. Flow style
// (`- require: [...]`) and items Jinja writes are left alone.
var (
	itemLine   = lazyre.New(`^(\s*)-\s+(\S[^:]*):\s*(.*?)\s*$`)
	reqKeyLine = lazyre.New(`^(\s*)-\s+([a-z_]+):\s*$`)
	funcLine   = lazyre.New(`^(\s+)([A-Za-z0-9_]+)(\.[A-Za-z0-9_]+)?:\s*(\[\])?\s*$`)
	idLine     = lazyre.New(`^([^\s#{%-][^:]*):\s*$`)
)

// RelationFixes edits a requisite: remove it, reverse it (require <->
// require_in, watch <-> watch_in... on the same state), or state it from
// the other side (`a: require_in: b` becomes `b: require: a`).
func (s *System) RelationFixes(req analysis.FixRequest, e *analysis.Edge) []analysis.Fix {
	f, text := req.File, req.Words(e)
	if text == nil {
		return nil
	}
	lines := splitLines(text)
	li := lineAt(lines, e.At.Start)
	m := itemLine.FindStringSubmatch(lines[li].text)
	if m == nil || strings.Contains(lines[li].text, "{{") {
		return nil
	}
	itemIndent := len(m[1])
	// the `- require:` line above, and the items under it
	pi := li - 1
	for pi >= 0 && (blank(lines[pi].text) || indentOf(lines[pi].text) >= itemIndent) {
		pi--
	}
	if pi < 0 {
		return nil
	}
	pm := reqKeyLine.FindStringSubmatch(lines[pi].text)
	if pm == nil || !requisiteKeys[pm[2]] {
		return nil
	}
	key, pIndent := pm[2], len(pm[1])
	end := pi + 1 // one past the block's last line
	items := 0
	for end < len(lines) && (blank(lines[end].text) || indentOf(lines[end].text) > pIndent) {
		if strings.Contains(lines[end].text, "{%") {
			return nil // a list Jinja writes: not ours to edit
		}
		if !blank(lines[end].text) {
			items++
		}
		end++
	}
	span := func(a, b int) source.Span { return source.Span{URI: f.URI, Start: a, End: b} }
	lineSpan := func(a, b int) source.Span { return span(lines[a].start, lines[b-1].end) }
	opp := strings.TrimSuffix(key, "_in")
	if opp == key {
		opp = key + "_in"
	}
	item := lines[li].text[itemIndent:]
	if i := strings.Index(item, " #"); i >= 0 {
		item = item[:i] // a YAML comment
	}
	item = strings.TrimSpace(item)
	item = strings.TrimSpace(strings.TrimPrefix(item, "-"))
	var removeItem analysis.TextEdit
	if items == 1 {
		removeItem = analysis.TextEdit{At: lineSpan(pi, end)}
	} else {
		removeItem = analysis.TextEdit{At: lineSpan(li, li+1)}
	}
	remove := append([]analysis.TextEdit{removeItem}, emptyArgs(lines, pi, end, items, span)...)
	fixes := []analysis.Fix{{Title: fmt.Sprintf("Remove %s: %s", key, item), Kind: "remove", Edits: remove}}
	rev := analysis.Fix{Title: fmt.Sprintf("Reverse it: %s: %s", opp, item), Kind: "reverse"}
	if items == 1 {
		ks := lines[pi].start + strings.Index(lines[pi].text, key)
		rev.Edits = []analysis.TextEdit{{At: span(ks, ks+len(key)), NewText: opp}}
	} else {
		block := fmt.Sprintf("%s- %s:\n%s- %s\n", strings.Repeat(" ", pIndent), opp, strings.Repeat(" ", itemIndent), item)
		rev.Edits = []analysis.TextEdit{removeItem, {At: span(lines[end-1].end, lines[end-1].end), NewText: block}}
	}
	fixes = append(fixes, rev)
	if mv := moveFix(req, f, lines, li, e, key, remove); mv != nil {
		fixes = append(fixes, *mv)
	}
	return fixes
}

// moveFix writes the requisite on the other state instead: the state
// holding the item and the state it names trade places, and the key
// gains or loses its _in.
func moveFix(req analysis.FixRequest, f *source.File, lines []line, li int, e *analysis.Edge, key string, remove []analysis.TextEdit) *analysis.Fix {
	// the holder is the state whose ID line is the nearest above the item
	hi := li
	for hi >= 0 && !idLine.MatchString(lines[hi].text) {
		hi--
	}
	if hi < 0 {
		return nil
	}
	holderID := strings.TrimSuffix(strings.TrimSpace(lines[hi].text), ":")
	holderMod := stateModule(lines, hi)
	other := e.From
	if other.Decl.URI == f.URI && lines[lineAt(lines, min(other.Decl.Start, len(f.Text)-1))].start == lines[hi].start {
		other = e.To
	}
	if holderMod == "" || other == nil || other.Decl.IsZero() {
		return nil
	}
	of := f
	if other.Decl.URI != f.URI {
		of = analysis.FileOf(req.Workspace, other.Decl.URI)
	}
	if of == nil || other.Decl.End > len(of.Text) {
		return nil
	}
	olines := lines
	if of != f {
		olines = splitLines(of.Text)
	}
	oi := lineAt(olines, other.Decl.Start)
	if !idLine.MatchString(olines[oi].text) {
		return nil
	}
	// the function line of the other state and the end of its arguments
	fi := oi + 1
	for fi < len(olines) && blank(olines[fi].text) {
		fi++
	}
	if fi >= len(olines) {
		return nil
	}
	fm := funcLine.FindStringSubmatch(olines[fi].text)
	if fm == nil {
		return nil
	}
	fIndent := len(fm[1])
	argIndent := strings.Repeat(" ", fIndent+2)
	end := fi + 1
	for end < len(olines) && (blank(olines[end].text) || indentOf(olines[end].text) > fIndent) {
		if strings.Contains(olines[end].text, "{%") {
			return nil
		}
		end++
	}
	for end > fi+1 && blank(olines[end-1].text) {
		end--
	}
	newKey := strings.TrimSuffix(key, "_in")
	if newKey == key {
		newKey = key + "_in"
	}
	entry := fmt.Sprintf("%s  - %s: %s\n", argIndent, holderMod, holderID)
	oSpan := func(a int) source.Span { return source.Span{URI: of.URI, Start: a, End: a} }
	var add analysis.TextEdit
	for k := fi + 1; k < end; k++ {
		if pm := reqKeyLine.FindStringSubmatch(olines[k].text); pm != nil && pm[2] == newKey && len(pm[1]) == len(argIndent) {
			// append to the list the state already has
			last := k
			for last+1 < end && indentOf(olines[last+1].text) > len(argIndent) {
				last++
			}
			add = analysis.TextEdit{At: oSpan(olines[last].end), NewText: entry}
		}
	}
	if add.At.URI == "" {
		block := fmt.Sprintf("%s- %s:\n%s", argIndent, newKey, entry)
		if fm[4] != "" {
			// `pkg.installed: []` gets a block list instead
			bs := olines[fi].start + strings.LastIndex(olines[fi].text, "[]")
			add = analysis.TextEdit{At: source.Span{URI: of.URI, Start: bs - 1, End: olines[fi].end}, NewText: "\n" + block}
		} else {
			add = analysis.TextEdit{At: oSpan(olines[end-1].end), NewText: block}
		}
	}
	otherID := strings.TrimSuffix(strings.TrimSpace(olines[oi].text), ":")
	return &analysis.Fix{
		Title: fmt.Sprintf("Write it on %s: %s: %s: %s", otherID, newKey, holderMod, holderID),
		Kind:  "move",
		Edits: append(slices.Clip(remove), add),
	}
}

// emptyArgs: removing lines [pi, end), a requisite block of `items`
// items, may leave its function with no argument at all (`mod.fn:` over
// nothing, a null Salt does not take as an argument list); then the
// function line gets `[]`, as a state without arguments is written.
func emptyArgs(lines []line, pi, end, items int, span func(a, b int) source.Span) []analysis.TextEdit {
	if items != 1 {
		return nil
	}
	pIndent := indentOf(lines[pi].text)
	fi := pi - 1
	for fi >= 0 && (blank(lines[fi].text) || indentOf(lines[fi].text) >= pIndent) {
		fi--
	}
	if fi < 0 {
		return nil
	}
	fm := funcLine.FindStringSubmatch(lines[fi].text)
	if fm == nil || fm[4] != "" {
		return nil
	}
	for k := fi + 1; k < len(lines); k++ {
		if (k >= pi && k < end) || blank(lines[k].text) {
			continue
		}
		if indentOf(lines[k].text) > len(fm[1]) {
			return nil // another argument stays
		}
		break
	}
	c := lines[fi].start + strings.LastIndex(lines[fi].text, ":") + 1
	return []analysis.TextEdit{{At: span(c, lines[fi].start+len(lines[fi].text)), NewText: " []"}}
}

// stateModule is the module of the state whose ID is on line i:
// `pkg` for `  pkg.installed:` or `  pkg:`.
func stateModule(lines []line, i int) string {
	for k := i + 1; k < len(lines); k++ {
		if blank(lines[k].text) {
			continue
		}
		if m := funcLine.FindStringSubmatch(lines[k].text); m != nil {
			return m[2]
		}
		return ""
	}
	return ""
}

type line struct {
	text       string // without the newline
	start, end int    // end: after the newline
}

func splitLines(b []byte) []line {
	var out []line
	start := 0
	for i := 0; i <= len(b); i++ {
		if i == len(b) || b[i] == '\n' {
			end := i
			if i < len(b) {
				end = i + 1
			}
			if i == len(b) && start == len(b) {
				break
			}
			out = append(out, line{text: strings.TrimRight(string(b[start:i]), "\r"), start: start, end: end})
			start = i + 1
		}
	}
	return out
}

func lineAt(ls []line, off int) int {
	for i, l := range ls {
		if off < l.end {
			return i
		}
	}
	return len(ls) - 1
}

func blank(s string) bool {
	t := strings.TrimSpace(s)
	return t == "" || strings.HasPrefix(t, "#")
}

func indentOf(s string) int { return len(s) - len(strings.TrimLeft(s, " \t")) }

// declareFunc is the function a declared state gets for a module: the one
// a state of that module is most often written with. A requisite on a
// module not listed here gets no declaration (cmd.run would run the ID).
var declareFunc = map[string]string{
	"pkg": "installed", "service": "running", "file": "managed", "test": "nop",
	"user": "present", "group": "present", "pip": "installed", "git": "latest",
}

var (
	reqTarget = lazyre.New(`^([a-z_][a-z0-9_]*)\s*:\s*([A-Za-z0-9_./@+][A-Za-z0-9_./@+-]*)$`)
)

// DeclareFixes declares the state a missing `- mod: target` requisite
// names (`target:` with the module's usual function, no arguments: the ID
// is the name), above the state holding the requisite. A bare target, an
// `sls:` requisite, a glob or a module without a usual function get none.
func (s *System) DeclareFixes(req analysis.FixRequest, d analysis.Diagnostic) []analysis.Fix {
	f := req.File
	if f == nil || d.At.URI != f.URI || d.At.Start < 0 || d.At.End > len(f.Text) || d.At.Start >= d.At.End {
		return nil
	}
	m := reqTarget.FindSubmatch(f.Text[d.At.Start:d.At.End])
	if m == nil {
		return nil
	}
	mod, target := string(m[1]), string(m[2])
	fn, ok := declareFunc[mod]
	if !ok {
		return nil
	}
	at := -1
	if req.Result != nil {
		for _, n := range req.Result.Graph.Nodes {
			if n.Kind == "state" && n.Full.URI == f.URI && n.Full.Start <= d.At.Start && d.At.End <= n.Full.End {
				at = max(at, n.Full.Start)
			}
		}
	}
	if at < 0 {
		return nil
	}
	start, end := analysis.LineBounds(f.Text, at)
	if !idLine.Match(bytesTrimEOL(f.Text[start:end])) {
		return nil // the state's ID is not a line of its own (Jinja, flow style)
	}
	indent := analysis.Indent(f.Text, at)
	decl := fmt.Sprintf("%s%s:\n%s  %s.%s: []\n", indent, target, indent, mod, fn)
	return []analysis.Fix{{
		Title: fmt.Sprintf("Declare %s: %s.%s", target, mod, fn),
		Kind:  "declare",
		Edits: []analysis.TextEdit{{At: source.Span{URI: f.URI, Start: start, End: start}, NewText: decl}},
	}}
}

func bytesTrimEOL(b []byte) []byte {
	for len(b) > 0 && (b[len(b)-1] == '\n' || b[len(b)-1] == '\r') {
		b = b[:len(b)-1]
	}
	return b
}
