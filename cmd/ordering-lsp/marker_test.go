package main

// Marker tests, after gopls's: each fixture in testdata/markers is a txtar
// workspace whose files carry their expectations in trailing comments, on
// the line they are about:
//
//	require => Package['nginx'], #@def("nginx", pkg) @hover("nginx", "Runs 1st")
//
// A marker's first argument is a regular expression matched on the code
// part of its line (before the marker comment); the position it names is
// the start of the match, or of its first group. The markers:
//
//	@loc(name, "re")               names the span of the match
//	@hover("re", "text"...)        the hover there contains every text
//	@nohover("re")                 no hover there
//	@def("re", loc...)             definition lands exactly on the locs
//	@refs("re", loc...)            references (declaration excluded)
//	@highlight("re", loc...)       document highlights (any kind)
//	@doclink("re", "path")         a document link covers exactly the match,
//	                               opens the workspace file at path and says
//	                               "Open path"
//	@nodoclink("re")               no document link meets the match
//	@diag("re", "text")            a diagnostic starts at the match, ends at
//	                               its end, and contains text; every diagnostic
//	                               of a file with markers must be expected
//	@related("re", loc...)         the diagnostic starting at the match has
//	                               related information at exactly the locs
//	@complete("re", "label"...)    completion with the cursor at the END of
//	                               the match: the first labels, in order
//	@itemdetail("re", "label", "text"[, kind])  that completion item's
//	                               detail contains text (and its kind is
//	                               kind, LSP's number: 10 property, 17 file)
//	@fix("re", "title", "line")   a quick fix for the problem at the match
//	                               has that title; applied, this line's code
//	                               reads "line"
//	@nofix("re")                   no quick fix there
//	@nolightbulb("re")             no code action when the editor asks by
//	                               itself (triggerKind Automatic: the
//	                               lightbulb), though some when invoked
//	@rename("re", "new", loc...)  renaming there edits exactly the locs
//	@norename("re", "text")        renaming there is refused, saying text
//	@symbol("query", "name"...)    workspace symbols for query include names
//	@lens("re", "text")            a code lens on this line contains text
//	@incoming("re", "ref"...)      call hierarchy: what depends on the item
//	@outgoing("re", "ref"...)      call hierarchy: what the item waits for
//	@tok("re", "type.mod...")      a semantic token covers exactly the match,
//	                               with that type and exactly those modifiers
//	                               ("string.declaration"; legend names)
//	@notok("re")                   no semantic token meets the match
//	@nodes("re", "node: text"...)  the "all nodes" view (ordering/nodeMatrix)
//	                               of the declaration there: one entry per
//	                               node, in order, each "name: summary"
//	                               containing its text
//
// In a fixture with @tok markers, every type and modifier set the server
// gives the files with markers must be expected by one @tok at least: the
// fixture specifies all its highlighting.
//
// A file that cannot hold comments (JSON) has its markers in a section
// named after it with ".markers" added, line for line: the markers on line
// N of NAME.markers are about line N of NAME.
//
// A fixture whose comment holds the line `-ignore_extra_diags` checks only
// the diagnostics it expects (half-typed references make others). Lines
// `setting: key=value` are the client's settings (the "ordering" section,
// sent as workspace/didChangeConfiguration before any file is opened):
// `setting: node=NAME` is the node picker's choice.
//
// Run one fixture: go test ./cmd/ordering-lsp -run TestMarkers/NAME.

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
	"unicode/utf16"

	"golang.org/x/tools/txtar"

	"github.com/ordering-lsp/ordering-lsp/lsp/lsptest"
	"github.com/ordering-lsp/ordering-lsp/source"
)

func TestMarkers(t *testing.T) {
	files, err := filepath.Glob("testdata/markers/*.txtar")
	if err != nil || len(files) == 0 {
		t.Fatalf("no marker fixtures: %v", err)
	}
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".txtar")
		t.Run(name, func(t *testing.T) { runMarkers(t, f) })
	}
}

// marker is one parsed @name(args) with the line it sits on.
type marker struct {
	name string
	args []string // string literals unquoted; identifiers as written
	uri  string
	file string // archive name, for messages
	line int    // 0-based
	code string // the line before the marker comment
}

func (m marker) String() string { return fmt.Sprintf("%s:%d: @%s%q", m.file, m.line+1, m.name, m.args) }

// span resolves the marker's first argument on its line: LSP positions of
// the match (or first group), in UTF-16 code units.
func (m marker) span(t *testing.T, re string) lsptest.Range {
	t.Helper()
	rx, err := regexp.Compile(re)
	if err != nil {
		t.Fatalf("%v: bad pattern: %v", m, err)
	}
	loc := rx.FindStringSubmatchIndex(m.code)
	if loc == nil {
		t.Fatalf("%v: %q does not match %q", m, re, m.code)
	}
	s, e := loc[0], loc[1]
	if len(loc) >= 4 && loc[2] >= 0 {
		s, e = loc[2], loc[3]
	}
	col := func(b int) int { return len(utf16.Encode([]rune(m.code[:b]))) }
	return lsptest.Range{Start: lsptest.Position{Line: m.line, Character: col(s)}, End: lsptest.Position{Line: m.line, Character: col(e)}}
}

var markerRe = regexp.MustCompile(`@([a-z]+)\(`)

// parseMarkers finds the `#@...` comment of each line and the markers in it.
func parseMarkers(t *testing.T, file, uri, text string) []marker {
	var out []marker
	for i, line := range strings.Split(text, "\n") {
		at := strings.Index(line, "#@")
		if at < 0 {
			continue
		}
		code, rest := line[:at], line[at+1:]
		for rest = strings.TrimSpace(rest); rest != ""; rest = strings.TrimSpace(rest) {
			m := markerRe.FindStringSubmatchIndex(rest)
			if m == nil || m[0] != 0 {
				t.Fatalf("%s:%d: cannot read marker %q", file, i+1, rest)
			}
			args, n, err := markerArgs(rest[m[1]:])
			if err != nil {
				t.Fatalf("%s:%d: %v in %q", file, i+1, err, rest)
			}
			out = append(out, marker{name: rest[m[2]:m[3]], args: args, uri: uri, file: file, line: i, code: code})
			rest = rest[m[1]+n:]
		}
	}
	return out
}

// markerArgs reads `"a", name, "b")` and returns the arguments and the
// bytes consumed, the closing parenthesis included.
func markerArgs(s string) ([]string, int, error) {
	var args []string
	i := 0
	for {
		for i < len(s) && (s[i] == ' ' || s[i] == ',') {
			i++
		}
		if i >= len(s) {
			return nil, 0, fmt.Errorf("unclosed marker")
		}
		switch c := s[i]; {
		case c == ')':
			return args, i + 1, nil
		case c == '"' || c == '`':
			q, err := strconv.QuotedPrefix(s[i:])
			if err != nil {
				return nil, 0, err
			}
			v, _ := strconv.Unquote(q)
			args = append(args, v)
			i += len(q)
		default:
			j := i
			for j < len(s) && (s[j] == '_' || s[j] == '-' || s[j] == '.' || 'a' <= s[j] && s[j] <= 'z' || 'A' <= s[j] && s[j] <= 'Z' || '0' <= s[j] && s[j] <= '9') {
				j++
			}
			if j == i {
				return nil, 0, fmt.Errorf("unexpected %q", c)
			}
			args = append(args, s[i:j])
			i = j
		}
	}
}

func languageID(name string) string {
	switch filepath.Ext(name) {
	case ".pp":
		return "puppet"
	case ".sls":
		return "salt"
	case ".cf":
		return "cfengine"
	case ".rb":
		return "ruby"
	}
	return "plaintext"
}

// settle waits for the complete analysis of the newest state: ordering/order
// answers from it (about a file no run touches, so the answer is small).
func settle(t testing.TB, c *lsptest.Client) {
	t.Helper()
	if err := c.Call("ordering/order", map[string]any{"uri": "file:///ordering-markers/settle.pp"}, nil); err != nil {
		t.Fatal(err)
	}
}

func runMarkers(t *testing.T, fixture string) {
	ar, err := txtar.ParseFile(fixture)
	if err != nil {
		t.Fatal(err)
	}
	root := t.TempDir()
	var markers []marker
	texts := map[string]string{}
	golden := map[string]map[string]string{} // "@name/file" sections: files after a fix
	sidecars := map[string]string{}          // NAME -> text of NAME.markers
	for _, f := range ar.Files {
		if strings.HasSuffix(f.Name, ".markers") {
			sidecars[strings.TrimSuffix(f.Name, ".markers")] = string(f.Data)
			continue
		}
		if name, file, ok := strings.Cut(f.Name, "/"); ok && strings.HasPrefix(name, "@") {
			u := source.PathToURI(filepath.Join(root, filepath.FromSlash(file)))
			if golden[name[1:]] == nil {
				golden[name[1:]] = map[string]string{}
			}
			golden[name[1:]][u] = string(f.Data)
			continue
		}
		p := filepath.Join(root, filepath.FromSlash(f.Name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, f.Data, 0o644); err != nil {
			t.Fatal(err)
		}
		uri := source.PathToURI(p)
		texts[uri] = string(f.Data)
		markers = append(markers, parseMarkers(t, f.Name, uri, string(f.Data))...)
	}
	for name, side := range sidecars {
		uri := source.PathToURI(filepath.Join(root, filepath.FromSlash(name)))
		text, ok := texts[uri]
		if !ok {
			t.Fatalf("%s.markers: no file %s", name, name)
		}
		code := strings.Split(text, "\n")
		for _, m := range parseMarkers(t, name+".markers", uri, side) {
			if m.line >= len(code) {
				t.Fatalf("%v: %s has %d lines", m, name, len(code))
			}
			m.file, m.code = name, code[m.line]
			markers = append(markers, m)
		}
	}
	// capabilities as VS Code has them: code actions resolved when picked,
	// edits with change annotations (the order a quick fix produces)
	caps := map[string]any{
		"textDocument": map[string]any{"codeAction": map[string]any{"resolveSupport": map[string]any{"properties": []string{"edit"}}}},
		"workspace":    map[string]any{"workspaceEdit": map[string]any{"changeAnnotationSupport": map[string]any{}}},
	}
	c, init := lsptest.StartFresh(t, newSystems, root, caps)
	settings := map[string]any{}
	for _, line := range strings.Split(string(ar.Comment), "\n") {
		if kv, ok := strings.CutPrefix(strings.TrimSpace(line), "setting:"); ok {
			k, v, _ := strings.Cut(strings.TrimSpace(kv), "=")
			settings[strings.TrimSpace(k)] = strings.TrimSpace(v)
		}
	}
	if len(settings) > 0 {
		c.Notify("workspace/didChangeConfiguration", map[string]any{"settings": map[string]any{"ordering": settings}})
	}
	withMarkers := map[string]bool{}
	for _, m := range markers {
		if !withMarkers[m.uri] {
			withMarkers[m.uri] = true
			c.Open(m.uri, languageID(m.file), texts[m.uri])
		}
	}
	// Markers state what the settled workspace answers: wait for the
	// complete analysis (requests before it may answer from the focused
	// analysis of the opened documents, which holds only some runs).
	settle(t, c)
	locs := map[string]lsptest.Location{}
	for _, m := range markers {
		if m.name == "loc" {
			if len(m.args) != 2 {
				t.Fatalf("%v: want @loc(name, \"re\")", m)
			}
			locs[m.args[0]] = lsptest.Location{URI: m.uri, Range: m.span(t, m.args[1])}
		}
	}
	named := func(m marker, names []string) []lsptest.Location {
		var out []lsptest.Location
		for _, n := range names {
			l, ok := locs[n]
			if !ok {
				t.Fatalf("%v: no @loc named %q", m, n)
			}
			out = append(out, l)
		}
		return out
	}
	r := &markerRun{t: t, c: c, root: root, texts: texts, golden: golden, extraDiags: strings.Contains(string(ar.Comment), "-ignore_extra_diags"), init: init}
	for _, m := range markers {
		if m.name == "loc" {
			continue
		}
		if len(m.args) == 0 {
			t.Errorf("%v: no arguments", m)
			continue
		}
		switch m.name {
		case "hover":
			r.hover(m, m.args[1:])
		case "nohover":
			r.hover(m, nil)
		case "doclink", "nodoclink":
			r.docLink(m)
		case "def":
			r.locations(m, "textDocument/definition", nil, named(m, m.args[1:]))
		case "refs":
			r.locations(m, "textDocument/references", map[string]any{"context": map[string]any{"includeDeclaration": false}}, named(m, m.args[1:]))
		case "highlight":
			r.highlight(m, named(m, m.args[1:]))
		case "complete":
			r.complete(m, m.args[1:])
		case "itemdetail":
			r.itemDetail(m)
		case "fix", "nofix":
			r.fix(m)
		case "fixes":
			r.fixes(m)
		case "nolightbulb":
			r.noLightbulb(m)
		case "rename":
			r.rename(m, m.args[1], named(m, m.args[2:]))
		case "norename":
			r.rename(m, "renamed", nil)
		case "symbol":
			r.symbol(m, m.args[0], m.args[1:])
		case "lens":
			r.lens(m, m.args[1:])
		case "inlay":
			r.inlay(m, m.args[1:])
		case "incoming", "outgoing":
			r.calls(m, m.name, m.args[1:])
		case "tok", "notok":
			r.tok(m)
		case "related":
			r.related(m, named(m, m.args[1:]))
		case "nodes":
			r.nodes(m, m.args[1:])
		case "diag":
		default:
			t.Errorf("%v: unknown marker", m)
		}
	}
	r.diagnostics(markers, withMarkers)
	r.tokenCoverage(markers)
}

type markerRun struct {
	t          *testing.T
	c          *lsptest.Client
	root       string
	extraDiags bool                         // unexpected diagnostics are allowed
	texts      map[string]string            // by URI, as written
	golden     map[string]map[string]string // @fixes results: name -> URI -> text
	init       map[string]any               // the initialize result
	tokens     map[string][]semToken        // semantic tokens by URI, asked once
	tokSeen    map[string]bool              // "type.mods" a @tok expects
}

func (r *markerRun) pos(m marker, end bool) map[string]any {
	sp := m.span(r.t, m.args[0])
	p := sp.Start
	if end {
		p = sp.End
	}
	return lsptest.Pos(m.uri, p.Line, p.Character)
}

func (r *markerRun) rel(l lsptest.Location) string {
	p := source.URIToPath(l.URI)
	if rel, err := filepath.Rel(r.root, p); err == nil {
		p = filepath.ToSlash(rel)
	}
	return fmt.Sprintf("%s:%d:%d-%d:%d", p, l.Range.Start.Line+1, l.Range.Start.Character+1, l.Range.End.Line+1, l.Range.End.Character+1)
}

func (r *markerRun) sameLocations(m marker, what string, got, want []lsptest.Location) {
	r.t.Helper()
	g, w := make([]string, len(got)), make([]string, len(want))
	for i, l := range got {
		g[i] = r.rel(l)
	}
	for i, l := range want {
		w[i] = r.rel(l)
	}
	sort.Strings(g)
	sort.Strings(w)
	if strings.Join(g, " ") != strings.Join(w, " ") {
		r.t.Errorf("%v: %s\n got: %s\nwant: %s", m, what, strings.Join(g, " "), strings.Join(w, " "))
	}
}

func (r *markerRun) hover(m marker, want []string) {
	var h *struct {
		Contents struct{ Value string }
	}
	if err := r.c.Call("textDocument/hover", r.pos(m, false), &h); err != nil {
		r.t.Errorf("%v: %v", m, err)
		return
	}
	if want == nil {
		if h != nil {
			r.t.Errorf("%v: want no hover, got\n%s", m, h.Contents.Value)
		}
		return
	}
	if h == nil {
		r.t.Errorf("%v: no hover", m)
		return
	}
	for _, w := range want {
		if !strings.Contains(h.Contents.Value, w) {
			r.t.Errorf("%v: hover lacks %q:\n%s", m, w, h.Contents.Value)
		}
	}
}

func (r *markerRun) locations(m marker, method string, extra map[string]any, want []lsptest.Location) {
	params := r.pos(m, false)
	for k, v := range extra {
		params[k] = v
	}
	var got []lsptest.Location
	if err := r.c.Call(method, params, &got); err != nil {
		r.t.Errorf("%v: %v", m, err)
		return
	}
	r.sameLocations(m, method, got, want)
}

// docLink checks @doclink and @nodoclink against the document's links
// (asked every time: a fixture has few).
func (r *markerRun) docLink(m marker) {
	var links []struct {
		Range   lsptest.Range `json:"range"`
		Target  string        `json:"target"`
		Tooltip string        `json:"tooltip"`
	}
	if err := r.c.Call("textDocument/documentLink", map[string]any{"textDocument": map[string]any{"uri": m.uri}}, &links); err != nil {
		r.t.Errorf("%v: %v", m, err)
		return
	}
	want := m.span(r.t, m.args[0])
	for _, l := range links {
		switch {
		case m.name == "nodoclink" && l.Range.Start.Line == want.Start.Line && l.Range.Start.Character < want.End.Character && want.Start.Character < l.Range.End.Character:
			r.t.Errorf("%v: a document link to %s meets the match", m, l.Target)
			return
		case m.name == "doclink" && l.Range == want:
			if len(m.args) < 2 || l.Target != source.PathToURI(filepath.Join(r.root, filepath.FromSlash(m.args[1]))) {
				r.t.Errorf("%v: the link opens %s", m, l.Target)
			} else if want := "Open " + m.args[1]; l.Tooltip != want {
				r.t.Errorf("%v: the link says %q, want %q", m, l.Tooltip, want)
			}
			return
		}
	}
	if m.name == "doclink" {
		r.t.Errorf("%v: no document link covers the match; the document's: %+v", m, links)
	}
}

func (r *markerRun) highlight(m marker, want []lsptest.Location) {
	var hs []struct {
		Range lsptest.Range `json:"range"`
	}
	if err := r.c.Call("textDocument/documentHighlight", r.pos(m, false), &hs); err != nil {
		r.t.Errorf("%v: %v", m, err)
		return
	}
	got := make([]lsptest.Location, len(hs))
	for i, h := range hs {
		got[i] = lsptest.Location{URI: m.uri, Range: h.Range}
	}
	r.sameLocations(m, "highlights", got, want)
}

func (r *markerRun) complete(m marker, want []string) {
	var list struct {
		Items []struct {
			Label  string `json:"label"`
			Detail string `json:"detail"`
		} `json:"items"`
	}
	if err := r.c.Call("textDocument/completion", r.pos(m, true), &list); err != nil {
		r.t.Errorf("%v: %v", m, err)
		return
	}
	var got []string
	for _, it := range list.Items {
		got = append(got, it.Label)
	}
	if len(got) < len(want) || strings.Join(got[:len(want)], "|") != strings.Join(want, "|") {
		r.t.Errorf("%v: completion\n got: %q\nwant first: %q", m, got, want)
	}
}

func (r *markerRun) itemDetail(m marker) {
	if len(m.args) != 3 && len(m.args) != 4 {
		r.t.Fatalf("%v: want @itemdetail(\"re\", \"label\", \"text\"[, kind])", m)
	}
	var list struct {
		Items []struct {
			Label  string `json:"label"`
			Detail string `json:"detail"`
			Kind   int    `json:"kind"`
		} `json:"items"`
	}
	if err := r.c.Call("textDocument/completion", r.pos(m, true), &list); err != nil {
		r.t.Errorf("%v: %v", m, err)
		return
	}
	for _, it := range list.Items {
		if it.Label == m.args[1] {
			if !strings.Contains(it.Detail, m.args[2]) {
				r.t.Errorf("%v: detail of %q is %q", m, it.Label, it.Detail)
			}
			if len(m.args) == 4 && strconv.Itoa(it.Kind) != m.args[3] {
				r.t.Errorf("%v: kind of %q is %d", m, it.Label, it.Kind)
			}
			return
		}
	}
	r.t.Errorf("%v: no item %q", m, m.args[1])
}

// lspEdit is a TextEdit or an AnnotatedTextEdit.
type lspEdit struct {
	Range        lsptest.Range `json:"range"`
	NewText      string        `json:"newText"`
	AnnotationID string        `json:"annotationId"`
}

type lspAction struct {
	Title string `json:"title"`
	Edit  *struct {
		Changes         map[string][]lspEdit `json:"changes"`
		DocumentChanges []struct {
			TextDocument struct {
				URI string `json:"uri"`
			} `json:"textDocument"`
			Edits []lspEdit `json:"edits"`
		} `json:"documentChanges"`
		ChangeAnnotations map[string]struct {
			Label       string `json:"label"`
			Description string `json:"description"`
		} `json:"changeAnnotations"`
	} `json:"edit"`
	Data json.RawMessage `json:"data"`
	raw  []byte
}

// edits are the action's edits by URI, in either shape.
func (a lspAction) edits() map[string][]lspEdit {
	out := map[string][]lspEdit{}
	if a.Edit == nil {
		return out
	}
	for u, es := range a.Edit.Changes {
		out[u] = append(out[u], es...)
	}
	for _, dc := range a.Edit.DocumentChanges {
		out[dc.TextDocument.URI] = append(out[dc.TextDocument.URI], dc.Edits...)
	}
	return out
}

// actions asks for the code actions on the marker's match and resolves
// each one that comes without its edit, as VS Code does when one is picked.
func (r *markerRun) actions(m marker) ([]lspAction, []string) {
	sp := m.span(r.t, m.args[0])
	var raw []json.RawMessage
	params := map[string]any{"textDocument": map[string]any{"uri": m.uri}, "range": sp, "context": map[string]any{"diagnostics": []any{}}}
	if err := r.c.Call("textDocument/codeAction", params, &raw); err != nil {
		r.t.Errorf("%v: %v", m, err)
		return nil, nil
	}
	var out []lspAction
	var titles []string
	for _, x := range raw {
		var a lspAction
		if err := json.Unmarshal(x, &a); err != nil {
			r.t.Fatalf("%v: %v", m, err)
		}
		a.raw = x
		titles = append(titles, a.Title)
		out = append(out, a)
	}
	return out, titles
}

func (r *markerRun) noLightbulb(m marker) {
	sp := m.span(r.t, m.args[0])
	var auto, invoked []json.RawMessage
	params := map[string]any{"textDocument": map[string]any{"uri": m.uri}, "range": sp, "context": map[string]any{"diagnostics": []any{}, "triggerKind": 2}}
	if err := r.c.Call("textDocument/codeAction", params, &auto); err != nil {
		r.t.Fatalf("%v: %v", m, err)
	}
	params["context"] = map[string]any{"diagnostics": []any{}, "triggerKind": 1}
	if err := r.c.Call("textDocument/codeAction", params, &invoked); err != nil {
		r.t.Fatalf("%v: %v", m, err)
	}
	if len(auto) != 0 || len(invoked) == 0 {
		r.t.Errorf("%v: %d actions asked automatically (want none), %d when invoked (want some)", m, len(auto), len(invoked))
	}
}

func (r *markerRun) resolve(m marker, a lspAction) lspAction {
	if a.Edit != nil || a.Data == nil {
		return a
	}
	var got lspAction
	// the whole action goes back, as clients send it
	if err := r.c.Call("codeAction/resolve", json.RawMessage(a.raw), &got); err != nil {
		r.t.Errorf("%v: resolve %q: %v", m, a.Title, err)
	}
	return got
}

// pick is the action titled as the marker's second argument, resolved.
func (r *markerRun) pick(m marker, actions []lspAction, titles []string) (lspAction, bool) {
	for _, a := range actions {
		if a.Title == m.args[1] {
			return r.resolve(m, a), true
		}
	}
	r.t.Errorf("%v: no quick fix %q among %q", m, m.args[1], titles)
	return lspAction{}, false
}

func (r *markerRun) fix(m marker) {
	actions, titles := r.actions(m)
	if m.name == "nofix" {
		if len(actions) > 0 {
			r.t.Errorf("%v: want no quick fix, got %q", m, titles)
		}
		return
	}
	if len(m.args) != 3 {
		r.t.Fatalf("%v: want @fix(\"re\", \"title\", \"line\")", m)
	}
	a, ok := r.pick(m, actions, titles)
	if !ok {
		return
	}
	line := m.code
	edits := a.edits()[m.uri]
	// apply right to left so earlier columns stay valid (UTF-16 = bytes here: ASCII fixtures)
	for i := len(edits) - 1; i >= 0; i-- {
		e := edits[i]
		if e.Range.Start.Line != m.line || e.Range.End.Line != m.line {
			r.t.Errorf("%v: edit outside this line: %+v", m, e.Range)
			return
		}
		line = line[:e.Range.Start.Character] + e.NewText + line[e.Range.End.Character:]
	}
	if strings.TrimRight(line, " ") != m.args[2] {
		r.t.Errorf("%v: after the fix the line reads\n%q\nwant\n%q", m, strings.TrimRight(line, " "), m.args[2])
	}
}

var markerComment = regexp.MustCompile(`[ \t]*#@.*`)

// fixes checks @fixes("re", "title", "golden"[, "preview"]): the action's
// whole edit, applied, gives the archive's "@golden/<file>" sections (every
// other file unchanged; marker comments ignored), and its preview (change
// annotation label and description) contains "preview".
func (r *markerRun) fixes(m marker) {
	if len(m.args) != 3 && len(m.args) != 4 {
		r.t.Fatalf("%v: want @fixes(\"re\", \"title\", golden[, \"preview\"])", m)
	}
	actions, titles := r.actions(m)
	a, ok := r.pick(m, actions, titles)
	if !ok {
		return
	}
	byURI := a.edits()
	if len(byURI) == 0 {
		r.t.Errorf("%v: %q has no edit", m, a.Title)
	}
	golden := r.golden[m.args[2]]
	if golden == nil {
		r.t.Fatalf("%v: no @%s/ sections", m, m.args[2])
	}
	for u, text := range r.texts {
		want, ok := golden[u]
		if !ok {
			want = text
		}
		got := applyLSPEdits(text, byURI[u])
		strip := func(s string) string { return markerComment.ReplaceAllString(s, "") }
		if strip(got) != strip(want) {
			r.t.Errorf("%v: after %q, %s reads\n%s\nwant\n%s", m, a.Title, u[strings.LastIndex(u, "/")+1:], strip(got), strip(want))
		}
	}
	if len(m.args) == 4 {
		var preview []string
		if a.Edit != nil {
			for _, an := range a.Edit.ChangeAnnotations {
				preview = append(preview, an.Label+": "+an.Description)
			}
		}
		if p := strings.Join(preview, "\n"); !strings.Contains(p, m.args[3]) {
			r.t.Errorf("%v: preview of %q is %q, want it to contain %q", m, a.Title, p, m.args[3])
		}
	}
}

// applyLSPEdits applies edits given in line/character positions (ASCII
// fixtures: characters are bytes).
func applyLSPEdits(text string, edits []lspEdit) string {
	off := func(p lsptest.Position) int {
		o := 0
		for l := 0; l < int(p.Line); l++ {
			i := strings.IndexByte(text[o:], '\n')
			if i < 0 {
				return len(text)
			}
			o += i + 1
		}
		return min(o+int(p.Character), len(text))
	}
	es := append([]lspEdit(nil), edits...)
	sort.SliceStable(es, func(i, j int) bool { return off(es[i].Range.Start) > off(es[j].Range.Start) })
	for _, e := range es {
		s, t := off(e.Range.Start), off(e.Range.End)
		text = text[:s] + e.NewText + text[t:]
	}
	return text
}

func (r *markerRun) rename(m marker, name string, want []lsptest.Location) {
	params := r.pos(m, false)
	params["newName"] = name
	var edit struct {
		Changes map[string][]struct {
			Range   lsptest.Range `json:"range"`
			NewText string        `json:"newText"`
		} `json:"changes"`
	}
	err := r.c.Call("textDocument/rename", params, &edit)
	if m.name == "norename" {
		if err == nil || !strings.Contains(err.Error(), m.args[1]) {
			r.t.Errorf("%v: want a refusal saying %q, got %v %+v", m, m.args[1], err, edit)
		}
		return
	}
	if err != nil {
		r.t.Errorf("%v: %v", m, err)
		return
	}
	var got []lsptest.Location
	for u, es := range edit.Changes {
		for _, e := range es {
			if e.NewText != name {
				r.t.Errorf("%v: edit writes %q", m, e.NewText)
			}
			got = append(got, lsptest.Location{URI: u, Range: e.Range})
		}
	}
	r.sameLocations(m, "rename edits", got, want)
}

func (r *markerRun) symbol(m marker, query string, want []string) {
	var syms []struct {
		Name string `json:"name"`
	}
	if err := r.c.Call("workspace/symbol", map[string]any{"query": query}, &syms); err != nil {
		r.t.Errorf("%v: %v", m, err)
		return
	}
	have := map[string]bool{}
	var names []string
	for _, s := range syms {
		have[s.Name] = true
		names = append(names, s.Name)
	}
	for _, w := range want {
		if !have[w] {
			r.t.Errorf("%v: workspace symbols for %q lack %q: %q", m, query, w, names)
		}
	}
}

// nodes: @nodes("re", "name: text"...): where the declaration at the
// match runs on each node, as the "all nodes" view lists it.
func (r *markerRun) nodes(m marker, want []string) {
	var got struct {
		Subject string
		Nodes   []struct{ Name, Summary string }
		Message string
	}
	if err := r.c.Call("ordering/nodeMatrix", r.pos(m, false), &got); err != nil {
		r.t.Errorf("%v: %v", m, err)
		return
	}
	lines := make([]string, len(got.Nodes))
	for i, n := range got.Nodes {
		lines[i] = n.Name + ": " + n.Summary
	}
	ok := len(lines) == len(want)
	for i := 0; ok && i < len(want); i++ {
		name, _, _ := strings.Cut(want[i], ": ")
		ok = strings.HasPrefix(lines[i], name+": ") && strings.Contains(lines[i], want[i][len(name)+2:])
	}
	if !ok {
		r.t.Errorf("%v: nodes of %s (%s)\n got: %s\nwant: %s", m, got.Subject, got.Message, strings.Join(lines, "\n      "), strings.Join(want, "\n      "))
	}
}

func (r *markerRun) lens(m marker, want []string) {
	var lenses []struct {
		Range   lsptest.Range `json:"range"`
		Command *struct {
			Title string `json:"title"`
		} `json:"command"`
	}
	if err := r.c.Call("textDocument/codeLens", map[string]any{"textDocument": map[string]any{"uri": m.uri}}, &lenses); err != nil {
		r.t.Errorf("%v: %v", m, err)
		return
	}
	var titles []string
	for _, l := range lenses {
		if l.Range.Start.Line == m.line && l.Command != nil {
			titles = append(titles, l.Command.Title)
		}
	}
	all := strings.Join(titles, " | ")
	for _, w := range want {
		if !strings.Contains(all, w) {
			r.t.Errorf("%v: code lens on this line lacks %q: %q", m, w, titles)
		}
	}
}

// inlay: @inlay("re", "label"...): the inlay hints at the end of the
// match hold each label.
func (r *markerRun) inlay(m marker, want []string) {
	var hints []struct {
		Position lsptest.Position `json:"position"`
		Label    string           `json:"label"`
	}
	whole := lsptest.Range{End: lsptest.Position{Line: len(strings.Split(r.texts[m.uri], "\n"))}}
	if err := r.c.Call("textDocument/inlayHint", map[string]any{"textDocument": map[string]any{"uri": m.uri}, "range": whole}, &hints); err != nil {
		r.t.Errorf("%v: %v", m, err)
		return
	}
	at := m.span(r.t, m.args[0]).End
	var labels []string
	for _, h := range hints {
		if h.Position == at {
			labels = append(labels, h.Label)
		}
	}
	all := strings.Join(labels, " | ")
	for _, w := range want {
		if !strings.Contains(all, w) {
			r.t.Errorf("%v: inlay hints at %d:%d lack %q: %q", m, at.Line, at.Character, w, labels)
		}
	}
}

func (r *markerRun) calls(m marker, dir string, want []string) {
	var items []map[string]any
	if err := r.c.Call("textDocument/prepareCallHierarchy", r.pos(m, false), &items); err != nil || len(items) == 0 {
		r.t.Errorf("%v: prepareCallHierarchy: %v, %d items", m, err, len(items))
		return
	}
	var calls []struct {
		From *struct{ Name string } `json:"from"`
		To   *struct{ Name string } `json:"to"`
	}
	if err := r.c.Call("callHierarchy/"+dir+"Calls", map[string]any{"item": items[0]}, &calls); err != nil {
		r.t.Errorf("%v: %v", m, err)
		return
	}
	var got []string
	for _, c := range calls {
		if c.From != nil {
			got = append(got, c.From.Name)
		} else if c.To != nil {
			got = append(got, c.To.Name)
		}
	}
	sort.Strings(got)
	w := append([]string(nil), want...)
	sort.Strings(w)
	if strings.Join(got, "|") != strings.Join(w, "|") {
		r.t.Errorf("%v: %s calls\n got: %q\nwant: %q", m, dir, got, w)
	}
}

// diagnostics checks that each file with markers has exactly the expected
// diagnostics, each on its exact range.
func (r *markerRun) diagnostics(markers []marker, files map[string]bool) {
	want := map[string][]marker{}
	for _, m := range markers {
		if m.name == "diag" {
			want[m.uri] = append(want[m.uri], m)
		}
	}
	for uri := range files {
		// the server publishes a version's diagnostics before the
		// complete analysis of that version answers requests
		settle(r.t, r.c)
		ds := r.c.Diagnostics(uri)
		used := make([]bool, len(ds))
		for _, m := range want[uri] {
			if len(m.args) != 2 {
				r.t.Errorf("%v: want @diag(\"re\", \"text\")", m)
				continue
			}
			sp := m.span(r.t, m.args[0])
			found := false
			for i, d := range ds {
				if !used[i] && d.Range == sp && strings.Contains(d.Message, m.args[1]) {
					used[i], found = true, true
					break
				}
			}
			if !found {
				r.t.Errorf("%v: no diagnostic at %d:%d-%d:%d containing %q; have %s", m, sp.Start.Line+1, sp.Start.Character+1, sp.End.Line+1, sp.End.Character+1, m.args[1], r.diagList(ds))
			}
		}
		for i, d := range ds {
			if !used[i] && !r.extraDiags {
				r.t.Errorf("unexpected diagnostic in %s at %d:%d: %s", filepath.Base(uri), d.Range.Start.Line+1, d.Range.Start.Character+1, d.Message)
			}
		}
	}
}

// related checks @related("re", loc...): the diagnostics starting at the
// match point, between them, at exactly the locs (any order).
func (r *markerRun) related(m marker, want []lsptest.Location) {
	var h any
	if err := r.c.Call("textDocument/hover", lsptest.Pos(m.uri, 0, 0), &h); err != nil { // diagnostics barrier
		r.t.Fatal(err)
	}
	sp := m.span(r.t, m.args[0])
	var got []string
	found := false
	for _, d := range r.c.Diagnostics(m.uri) {
		if d.Range.Start != sp.Start {
			continue
		}
		found = true
		for _, rel := range d.Related {
			got = append(got, fmt.Sprintf("%s:%d:%d-%d:%d", filepath.Base(rel.Location.URI), rel.Location.Range.Start.Line+1, rel.Location.Range.Start.Character+1, rel.Location.Range.End.Line+1, rel.Location.Range.End.Character+1))
		}
	}
	if !found {
		r.t.Errorf("%v: no diagnostic starts there", m)
		return
	}
	var exp []string
	for _, l := range want {
		exp = append(exp, fmt.Sprintf("%s:%d:%d-%d:%d", filepath.Base(l.URI), l.Range.Start.Line+1, l.Range.Start.Character+1, l.Range.End.Line+1, l.Range.End.Character+1))
	}
	sort.Strings(got)
	sort.Strings(exp)
	if strings.Join(got, " ") != strings.Join(exp, " ") {
		r.t.Errorf("%v: related information at %q, want %q", m, got, exp)
	}
}

func (r *markerRun) diagList(ds []lsptest.Diagnostic) string {
	var b strings.Builder
	for _, d := range ds {
		fmt.Fprintf(&b, "\n  %d:%d-%d:%d %s", d.Range.Start.Line+1, d.Range.Start.Character+1, d.Range.End.Line+1, d.Range.End.Character+1, d.Message)
	}
	return b.String()
}

// semToken is one decoded semantic token: its line, UTF-16 columns and
// "type.mod..." name.
type semToken struct {
	line, start, end int
	name             string
}

func (r *markerRun) semanticTokens(uri string) []semToken {
	if toks, ok := r.tokens[uri]; ok {
		return toks
	}
	caps := r.init["capabilities"].(map[string]any)
	prov, ok := caps["semanticTokensProvider"].(map[string]any)
	if !ok {
		r.t.Fatalf("no semanticTokensProvider")
	}
	legend := prov["legend"].(map[string]any)
	var types, mods []string
	for _, x := range legend["tokenTypes"].([]any) {
		types = append(types, x.(string))
	}
	for _, x := range legend["tokenModifiers"].([]any) {
		mods = append(mods, x.(string))
	}
	var res struct {
		Data []int `json:"data"`
	}
	if err := r.c.Call("textDocument/semanticTokens/full", map[string]any{"textDocument": map[string]any{"uri": uri}}, &res); err != nil {
		r.t.Fatalf("semanticTokens/full: %v", err)
	}
	var out []semToken
	line, col := 0, 0
	for i := 0; i+4 < len(res.Data); i += 5 {
		d := res.Data[i : i+5]
		if d[0] > 0 {
			line, col = line+d[0], 0
		}
		col += d[1]
		name := types[d[3]]
		for b := range mods {
			if d[4]&(1<<b) != 0 {
				name += "." + mods[b]
			}
		}
		out = append(out, semToken{line, col, col + d[2], name})
	}
	if r.tokens == nil {
		r.tokens = map[string][]semToken{}
	}
	r.tokens[uri] = out
	return out
}

func (r *markerRun) tok(m marker) {
	sp := m.span(r.t, m.args[0])
	var at []semToken
	for _, tk := range r.semanticTokens(m.uri) {
		if tk.line == m.line && tk.start < sp.End.Character && sp.Start.Character < tk.end {
			at = append(at, tk)
		}
	}
	show := func(ts []semToken) string {
		var b []string
		for _, tk := range ts {
			b = append(b, fmt.Sprintf("%q %s", m.code[min(utf16Byte(m.code, tk.start), len(m.code)):min(utf16Byte(m.code, tk.end), len(m.code))], tk.name))
		}
		return strings.Join(b, ", ")
	}
	if m.name == "notok" {
		if len(at) > 0 {
			r.t.Errorf("%v: want no token, have %s", m, show(at))
		}
		return
	}
	if len(m.args) != 2 {
		r.t.Fatalf("%v: want @tok(\"re\", \"type.mods\")", m)
	}
	if r.tokSeen == nil {
		r.tokSeen = map[string]bool{}
	}
	r.tokSeen[m.args[1]] = true
	// a comment runs to the end of its line, the marker comment included:
	// a match that ends where the code does may stand for it
	toEnd := sp.End.Character == len(utf16.Encode([]rune(m.code))) && len(at) == 1 && at[0].end > sp.End.Character
	if len(at) != 1 || at[0].start != sp.Start.Character || (at[0].end != sp.End.Character && !toEnd) || at[0].name != m.args[1] {
		r.t.Errorf("%v: want one %s token on %q, have %s", m, m.args[1], m.code[utf16Byte(m.code, sp.Start.Character):utf16Byte(m.code, sp.End.Character)], show(at))
	}
}

// utf16Byte is the byte offset in s of UTF-16 column col.
func utf16Byte(s string, col int) int {
	n := 0
	for i, r := range s {
		if n >= col {
			return i
		}
		n += len(utf16.Encode([]rune{r}))
	}
	return len(s)
}

// tokenCoverage: in a fixture that expects tokens, every kind of token the
// server gives its files with markers is expected somewhere.
func (r *markerRun) tokenCoverage(markers []marker) {
	if len(r.tokSeen) == 0 {
		return
	}
	have := map[string]string{} // kind -> an example
	for _, m := range markers {
		for _, tk := range r.semanticTokens(m.uri) {
			if _, ok := have[tk.name]; !ok {
				code := strings.Split(r.texts[m.uri], "\n")[tk.line]
				have[tk.name] = fmt.Sprintf("%s:%d %q", filepath.Base(source.URIToPath(m.uri)), tk.line+1, code[utf16Byte(code, tk.start):utf16Byte(code, tk.end)])
			}
		}
	}
	var missing []string
	for k, ex := range have {
		if !r.tokSeen[k] {
			missing = append(missing, k+" (e.g. "+ex+")")
		}
	}
	sort.Strings(missing)
	for _, k := range missing {
		r.t.Errorf("no @tok expects %s", k)
	}
}
