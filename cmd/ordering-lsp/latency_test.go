package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ordering-lsp/ordering-lsp/internal/controlrepo"
	"github.com/ordering-lsp/ordering-lsp/source"
)

// TestLatency measures what a user of a big control repository feels,
// from outside the server, as an editor sees it: the real binary over
// stdio, one file opened, then one-line edits. Opt-in:
//
//	ORDERING_LATENCY=generated go test -run TestLatency -v ./cmd/ordering-lsp/
//	ORDERING_LATENCY=/work/corpus/puppet/operations-puppet \
//	  ORDERING_LATENCY_FILE=modules/profile/manifests/base.pp \
//	  go test -run TestLatency -v -timeout 30m ./cmd/ordering-lsp/
//	ORDERING_LATENCY=/work/corpus/salt/openSUSE-heroes-salt \
//	  ORDERING_LATENCY_FILE=salt/profile/web/init.sls ... (an SLS file: the
//	  probe is a state at its end that requires itself)
//
// (ORDERING_LATENCY_EDITS: number of edits, default 20; ORDERING_LATENCY_COMMENTS:
// comment lines typed at the top, default 12; ORDERING_LATENCY_RESOURCES:
// resources added one by one, default 6 (resourceEdits); ORDERING_LATENCY_BIN:
// a binary to measure instead of this tree's; ORDERING_LATENCY_DURING:
// an interval, see editsDuring; ORDERING_LATENCY_ATTR=name => 'value': only
// that attribute line typed, see attrTyping.) The file is opened
// with one line more, an include of a class no module defines, and every
// edit changes that line, so every version has diagnostics to publish
// (the server publishes only what changed; a reference to a file proved
// nothing on operations-puppet, where a File[*] pattern some run declares
// may be it, and the probe passed only while two differently worded hints
// of one place happened to alternate). For
// the open and
// for each edit it reports the time to the first publishDiagnostics of
// that document version (the edited file's diagnostics, from a focused
// analysis) and to the complete analysis (an ordering/order request, which
// waits for the snapshot of the newest state), and the server's resident
// memory (VmRSS, and VmHWM at the end) from /proc. Figures go in the
// README; nothing here is timed against a target.
func TestLatency(t *testing.T) {
	where := os.Getenv("ORDERING_LATENCY")
	if where == "" {
		t.Skip("set ORDERING_LATENCY=generated or to a workspace folder")
	}
	dir, rel := where, os.Getenv("ORDERING_LATENCY_FILE")
	if where == "generated" {
		dir = t.TempDir()
		p, err := controlrepo.Write(dir, controlrepo.Large)
		if err != nil {
			t.Fatal(err)
		}
		rel, _ = filepath.Rel(dir, p)
	}
	edits, _ := strconv.Atoi(os.Getenv("ORDERING_LATENCY_EDITS"))
	if edits <= 0 {
		edits = 20
	}
	path := filepath.Join(dir, rel)
	text, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	uri := source.PathToURI(path)

	srv := startServer(t)
	defer srv.stop()
	srv.call(t, "initialize", map[string]any{
		"rootUri":          source.PathToURI(dir),
		"workspaceFolders": []map[string]any{{"uri": source.PathToURI(dir), "name": "ws"}},
		"capabilities": map[string]any{
			"textDocument": map[string]any{"publishDiagnostics": map[string]any{"versionSupport": true},
				"codeAction": map[string]any{"resolveSupport": map[string]any{"properties": []string{"edit"}}}},
			"workspace": map[string]any{"workspaceEdit": map[string]any{"changeAnnotationSupport": map[string]any{}}},
		},
	})
	srv.notify("initialized", map[string]any{})

	i := bytes.LastIndexByte(text, '}')
	if i < 0 {
		i = len(text)
	}
	withProbe := func(k string) string {
		return string(text[:i]) + fmt.Sprintf("  include latency_probe_%s\n", k) + string(text[i:])
	}
	lang, salt := "puppet", strings.HasSuffix(rel, ".sls")
	if salt { // the probe: a state at the end that requires itself
		lang = "sls"
		withProbe = func(k string) string {
			return string(text) + fmt.Sprintf("\nlatency_probe_%s:\n  test.nop:\n    - require:\n      - test: latency_probe_%s\n", k, k)
		}
	}
	t0 := time.Now()
	srv.notify("textDocument/didOpen", map[string]any{"textDocument": map[string]any{"uri": uri, "languageId": lang, "version": 1, "text": withProbe("open")}})
	// what the editor asks for at once: the file's lenses, a hover
	var asked sync.WaitGroup
	var lensAt, hoverAt time.Duration
	asked.Add(2)
	go func() {
		defer asked.Done()
		srv.call(t, "textDocument/codeLens", map[string]any{"textDocument": map[string]any{"uri": uri}})
		lensAt = time.Since(t0)
	}()
	go func() {
		defer asked.Done()
		srv.call(t, "textDocument/hover", hoverAt0(uri, withProbe("open")))
		hoverAt = time.Since(t0)
	}()
	first := srv.waitPublish(t, uri, 1)
	asked.Wait()
	if d, _ := time.ParseDuration(os.Getenv("ORDERING_LATENCY_DURING")); d > 0 {
		editsDuring(t, srv, uri, withProbe, edits, d)
		return
	}
	if a := os.Getenv("ORDERING_LATENCY_ASSIGN"); a != "" {
		waitComplete(t, srv)
		t.Logf("open %s: complete analysis %v", rel, time.Since(t0).Round(time.Millisecond))
		assignTyping(t, srv, uri, withProbe("open"), a)
		return
	}
	if a := os.Getenv("ORDERING_LATENCY_ATTR"); a != "" {
		waitComplete(t, srv)
		t.Logf("open %s: complete analysis %v", rel, time.Since(t0).Round(time.Millisecond))
		attrTyping(t, srv, uri, withProbe("open"), a)
		return
	}
	t.Logf("open: code lens after %v, hover after %v", lensAt.Round(time.Millisecond), hoverAt.Round(time.Millisecond))
	waitComplete(t, srv)
	complete := time.Since(t0)
	rss0, _ := srv.memory()
	t.Logf("open %s: first diagnostics %v, complete analysis %v, RSS %d MB", rel, first.Sub(t0).Round(time.Millisecond), complete.Round(time.Millisecond), rss0>>20)

	var firsts, completes []time.Duration
	var rss []int64
	for k := 0; k < edits; k++ {
		edited := withProbe(strconv.Itoa(k))
		v := k + 2
		t0 := time.Now()
		srv.change(uri, v, edited)
		at := srv.waitPublish(t, uri, v)
		waitComplete(t, srv)
		firsts = append(firsts, at.Sub(t0))
		completes = append(completes, time.Since(t0))
		t.Logf("edit %d: first diagnostics %v, complete analysis %v", k+1, at.Sub(t0).Round(time.Millisecond), time.Since(t0).Round(time.Millisecond))
		r, _ := srv.memory()
		rss = append(rss, r)
	}
	// settled: no change for longer than the server waits before it
	// gives free memory back
	time.Sleep(3 * time.Second)
	settled, _ := srv.memory()
	anon, file := srv.memoryParts()
	t.Logf("RSS settled (3 s after the last complete analysis): %d MB (anonymous %d MB, files mapped %d MB)", settled>>20, anon>>20, file>>20)
	_, hwm := srv.memory()
	t.Logf("%d edits: first diagnostics p50 %v p95 %v max %v; complete analysis p50 %v p95 %v max %v",
		edits, pct(firsts, 50), pct(firsts, 95), pct(firsts, 100), pct(completes, 50), pct(completes, 95), pct(completes, 100))
	t.Logf("RSS after open %d MB, after the first edit %d MB, after the last %d MB; peak (VmHWM) %d MB",
		rss0>>20, rss[0]>>20, rss[len(rss)-1]>>20, hwm>>20)
	editorRequests(t, srv, uri, withProbe(strconv.Itoa(edits-1)))
	typingBurst(t, srv, uri, withProbe)
	if !salt {
		resourceEdits(t, srv, uri, withProbe("res"))
	}

	if salt { // the cycle below is Puppet's
		last := withProbe("last")
		srv.change(uri, edits+2, last)
		srv.waitPublish(t, uri, edits+2)
		waitComplete(t, srv)
		commentEdits(t, srv, uri, last)
		return
	}
	// a cycle typed into the file: the quick fixes offered on it, and the
	// preview of the order one produces (codeAction/resolve)
	cyc := string(text[:i]) + "  notify { 'cycle-a': require => Notify['cycle-b'] }\n  notify { 'cycle-b': require => Notify['cycle-a'] }\n" + string(text[i:])
	v := edits + 2
	srv.change(uri, v, cyc)
	srv.waitPublish(t, uri, v)
	waitComplete(t, srv)
	// the cycle's problem sits on the relationship that closes it: the
	// last one written
	at := strings.LastIndex(cyc, "Notify['cycle-a']")
	line := strings.Count(cyc[:at], "\n")
	col := at - (strings.LastIndexByte(cyc[:at], '\n') + 1)
	p := map[string]any{"line": line, "character": col}
	t0 = time.Now()
	raw := srv.call(t, "textDocument/codeAction", map[string]any{"textDocument": map[string]any{"uri": uri},
		"range": map[string]any{"start": p, "end": p}, "context": map[string]any{"diagnostics": []any{}}})
	var acts []map[string]any
	_ = json.Unmarshal(raw, &acts)
	t.Logf("%-28s %8v  %6d bytes, %d actions", "codeAction (cycle)", time.Since(t0).Round(time.Millisecond), len(raw), len(acts))
	for _, a := range acts {
		if a["data"] != nil {
			t0 = time.Now()
			r := srv.call(t, "codeAction/resolve", a)
			t.Logf("%-28s %8v  %6d bytes: %s", "codeAction/resolve", time.Since(t0).Round(time.Millisecond), len(r), r)
			break
		}
	}
	commentEdits(t, srv, uri, cyc)
	valueEdits(t, srv, uri, cyc)
	resourceTyping(t, srv, uri, cyc)
}

// typedResource is a resource typed as an editor sends it, keystroke by
// keystroke, with brackets and quotes closed for the user: each state of
// the line.
func typedResource() []string {
	var states []string
	add := func(prefix, word, suffix string) {
		for i := 1; i <= len(word); i++ {
			states = append(states, prefix+word[:i]+suffix)
		}
	}
	add("  ", "file", "")
	states = append(states, "  file ", "  file {}", "  file { }", "  file {  }", "  file { '' }")
	add("  file { '", "/tmp/typed", "' }")
	states = append(states, "  file { '/tmp/typed': }", "  file { '/tmp/typed':  }")
	add("  file { '/tmp/typed': ", "ensure", " }")
	add("  file { '/tmp/typed': ensure", " => ", " }")
	add("  file { '/tmp/typed': ensure => ", "file", " }")
	return states
}

// resourceTyping types a resource into the class, keystroke by keystroke
// 120 ms apart, on a new line before its closing brace, with a hover
// after each: the hover's latency, the server's CPU per keystroke, and
// the time from the last keystroke to the complete analysis. While the
// resource does not parse, the class reads as before (the parser keeps
// the statements that do) and the last result follows the keystroke.
func resourceTyping(t *testing.T, srv *lspProc, uri, text string) {
	end := strings.LastIndex(text, "\n}")
	if end < 0 {
		t.Logf("no closing brace on a line of its own: no resource typed")
		return
	}
	states := typedResource()
	cpu0 := srv.cpu()
	var hovers []time.Duration
	var each []string
	for k, line := range states {
		edited := text[:end+1] + line + "\n" + text[end+1:]
		c0 := srv.cpu()
		srv.change(uri, 4000+k, edited)
		t0 := time.Now()
		srv.call(t, "textDocument/hover", hoverAt0(uri, edited))
		hovers = append(hovers, time.Since(t0))
		time.Sleep(120 * time.Millisecond)
		each = append(each, fmt.Sprintf("%q %v", strings.TrimSpace(line), (srv.cpu()-c0).Round(10*time.Millisecond)))
	}
	t.Logf("server CPU after each keystroke (to the next): %s", strings.Join(each, ", "))
	typing := srv.cpu() - cpu0
	t0 := time.Now()
	waitComplete(t, srv)
	settle := time.Since(t0)
	cpu := srv.cpu() - cpu0
	t.Logf("a resource typed, %d keystrokes: hover p50 %v p95 %v max %v; settled %v after the last; server CPU while typing %v (%v per keystroke), with the complete analysis after it %v",
		len(states), pct(hovers, 50), pct(hovers, 95), pct(hovers, 100), settle.Round(time.Millisecond), typing, typing/time.Duration(len(states)), cpu)
}

// attrLineAt is an attribute line ending in a comma (1: its indentation).
var attrLineAt = regexp.MustCompile(`(?m)^([ \t]*)[a-z_]+[ \t]*=>[^\n]*,[ \t]*$`)

// attrTyping (ORDERING_LATENCY_ATTR=`name => 'value'`) types an attribute
// line after the first attribute line of the file that ends in a comma
// (with ORDERING_LATENCY_ATTR_AT=last, the first that is its body's last:
// there the paired quotes make the line parse, elsewhere the comma), as
// an editor that pairs quotes sends it: Enter and the indentation,
// the name and " => " a character at a time, the quotes with their pair,
// the value inside them, the comma; then takes the line out whole. For
// each keystroke, the time to the complete analysis of that version and
// the server's CPU until then (an attribute nobody reads is followed,
// not analysed: analysis/puppet/followattr.go).
func attrTyping(t *testing.T, srv *lspProc, uri, text, line string) {
	m := attrLineAt.FindStringSubmatchIndex(text)
	if os.Getenv("ORDERING_LATENCY_ATTR_AT") == "last" {
		// the last attribute of its body: the line after it closes it, so
		// the paired quotes make the attribute parse
		m = nil
		for _, c := range attrLineAt.FindAllStringSubmatchIndex(text, -1) {
			if rest := text[c[1]:]; strings.HasPrefix(strings.TrimLeft(rest, " \t\n"), "}") {
				m = c
				break
			}
		}
	}
	name, value, ok := strings.Cut(line, " => ")
	if m == nil || !ok || value == "" {
		t.Fatalf("no attribute line ending in a comma, or ORDERING_LATENCY_ATTR=%q is not `name => value`", line)
	}
	indent, cursor := text[m[2]:m[3]], m[1]
	var keys []string // each state of the text
	for _, k := range editorKeys(indent, name+" => "+value) {
		if k.ins != "" {
			text = text[:cursor] + k.ins + text[cursor:]
			keys = append(keys, text)
		}
		cursor += len(k.ins) + k.move
	}
	start := m[1]
	keys = append(keys, text[:start]+text[cursor:]) // the line taken out
	timeKeys(t, srv, uri, keys, start, line)
}

// assignTyping (ORDERING_LATENCY_ASSIGN=`$name = 'value'`) types an
// assignment on a line of its own before the file's last closing brace
// (its class's), as an editor that pairs quotes sends it: Enter and the
// indentation, "$name = " a character at a time, the quotes with their
// pair, the value inside them; then takes the line out whole. Timed as
// attrTyping (an assignment nobody reads is followed, not analysed:
// analysis/puppet/followassign.go).
func assignTyping(t *testing.T, srv *lspProc, uri, text, line string) {
	brace := strings.LastIndex(text, "\n}")
	lhs, value, ok := strings.Cut(line, " = ")
	if brace < 0 || !ok || len(value) < 2 || value[0] != '\'' || value[len(value)-1] != '\'' {
		t.Fatalf("no closing brace at the start of a line, or ORDERING_LATENCY_ASSIGN=%q is not `$name = 'value'`", line)
	}
	start, cursor := brace, brace
	var keys []string // each state of the text
	key := func(ins string, move int) {
		text = text[:cursor] + ins + text[cursor:]
		keys = append(keys, text)
		cursor += len(ins) + move
	}
	key("\n  ", 0)
	for _, c := range lhs + " = " {
		key(string(c), 0)
	}
	key("''", -1)
	for _, c := range value[1 : len(value)-1] {
		key(string(c), 0)
	}
	keys = append(keys, text[:start]+text[cursor+1:]) // the line taken out
	timeKeys(t, srv, uri, keys, start, line)
}

// timeKeys sends each state of the text in keys as one edit, and logs the
// time to the complete analysis of each and the server's CPU until then;
// start is where the typed line begins, line what it reads.
func timeKeys(t *testing.T, srv *lspProc, uri string, keys []string, start int, line string) {
	var completes, cpus []time.Duration
	var each []string
	for k, edited := range keys {
		cpu0 := srv.cpu()
		t0 := time.Now()
		srv.change(uri, 5000+k, edited)
		waitComplete(t, srv)
		completes = append(completes, time.Since(t0))
		cpus = append(cpus, srv.cpu()-cpu0)
		what := "taken out"
		if k < len(keys)-1 {
			what = strings.TrimSpace(lineAt(edited, start+1))
		}
		each = append(each, fmt.Sprintf("%q %v/%v", what, completes[k].Round(time.Millisecond), cpus[k]))
	}
	t.Logf("complete analysis / server CPU after each keystroke: %s", strings.Join(each, ", "))
	var total time.Duration
	for _, c := range cpus {
		total += c
	}
	t.Logf("%s typed, %d keystrokes, and taken out: complete analysis p50 %v p95 %v max %v; server CPU per keystroke p50 %v p95 %v max %v, %v in all",
		line, len(keys), pct(completes, 50), pct(completes, 95), pct(completes, 100), pct(cpus, 50), pct(cpus, 95), pct(cpus, 100), total)
}

// lineAt is the line of text holding offset i.
func lineAt(text string, i int) string {
	a := strings.LastIndexByte(text[:i], '\n') + 1
	b := strings.IndexByte(text[i:], '\n')
	if b < 0 {
		return text[a:]
	}
	return text[a : i+b]
}

// modeValue is a file's mode written as a quoted literal (group 1: its
// last digit).
var modeValue = regexp.MustCompile(`mode\s*=>\s*'[0-7]{2,3}([0-7])'`)

// valueEdits types over the last digit of the first file mode in the file
// and back (ORDERING_LATENCY_VALUES times, default 12): a value no rule
// reads, so no analysis follows (the early cutoff for values). Time to
// the complete analysis of that version, and the server's CPU for each
// (its diagnostics read the same as before: nothing is published).
func valueEdits(t *testing.T, srv *lspProc, uri, text string) {
	m := modeValue.FindStringSubmatchIndex(text)
	if m == nil {
		t.Logf("no file mode written as a literal: no value edits")
		return
	}
	n, _ := strconv.Atoi(os.Getenv("ORDERING_LATENCY_VALUES"))
	if n <= 0 {
		n = 12
	}
	other := "1"
	if text[m[2]:m[3]] == "1" {
		other = "0"
	}
	var completes, cpus []time.Duration
	for k := 0; k < n; k++ {
		v := 3000 + k
		edited := text
		if k%2 == 0 {
			edited = text[:m[2]] + other + text[m[3]:]
		}
		cpu0 := srv.cpu()
		t0 := time.Now()
		srv.change(uri, v, edited)
		waitComplete(t, srv)
		completes = append(completes, time.Since(t0))
		cpus = append(cpus, srv.cpu()-cpu0)
		t.Logf("value edit %d: complete analysis %v, server CPU %v", k+1, completes[k].Round(time.Millisecond), cpus[k])
	}
	t.Logf("%d edits of a file mode (%s): complete analysis p50 %v p95 %v; server CPU each p50 %v max %v",
		n, text[m[0]:m[1]], pct(completes, 50), pct(completes, 95), pct(cpus, 50), pct(cpus, 100))
}

// resourceEdits (ORDERING_LATENCY_RESOURCES, default 6) adds a resource
// at the end of the file's last block, one more each edit, as one writes
// a class's resources one after the other: when nothing else reads it,
// the runs that read the class are patched, not built again
// (analysis/puppet patchrun.go). The first change (to text) is analysed
// as any edit. Then a letter is typed into the last one's title, as many
// times (a replacement: patched too).
func resourceEdits(t *testing.T, srv *lspProc, uri, text string) {
	n, _ := strconv.Atoi(os.Getenv("ORDERING_LATENCY_RESOURCES"))
	if n <= 0 {
		n = 6
	}
	// ORDERING_LATENCY_RESOURCE: the declaration, %d its number (a
	// package is what one adds most, but a repository that collects every
	// package, as operations-puppet does, builds its runs again)
	res := os.Getenv("ORDERING_LATENCY_RESOURCE")
	if !strings.Contains(res, "%d") {
		res = "notify { 'latency-resource-%d': message => 'added' }"
	}
	i := strings.LastIndexByte(text, '}')
	if i < 0 {
		return
	}
	srv.change(uri, 4000, text)
	waitComplete(t, srv)
	// (the diagnostics do not change: the server publishes none, and the
	// complete analysis is what is timed)
	var completes, cpus []time.Duration
	added := ""
	for k := 0; k < n; k++ {
		v := 4001 + k
		added += "  " + fmt.Sprintf(res, k) + "\n"
		cpu0 := srv.cpu()
		t0 := time.Now()
		srv.change(uri, v, text[:i]+added+text[i:])
		waitComplete(t, srv)
		completes = append(completes, time.Since(t0))
		cpus = append(cpus, srv.cpu()-cpu0)
		t.Logf("resource %d added: complete analysis %v, server CPU %v", k+1, completes[k].Round(time.Millisecond), cpus[k])
	}
	t.Logf("%d resources added one by one (%s): complete analysis p50 %v p95 %v; server CPU each p50 %v max %v",
		n, res, pct(completes, 50), pct(completes, 95), pct(cpus, 50), pct(cpus, 100))
	// Then a letter typed into the last one's number, n times (a title
	// typed over: the runs are patched, the old resource out and the new
	// one in).
	completes, cpus = completes[:0], cpus[:0]
	decl := func(num string) string { return strings.ReplaceAll(res, "%d", num) }
	cur := fmt.Sprint(n - 1)
	for k := 0; k < n; k++ {
		next := cur + "7"
		added = strings.Replace(added, decl(cur), decl(next), 1)
		cur = next
		cpu0 := srv.cpu()
		t0 := time.Now()
		srv.change(uri, 4101+k, text[:i]+added+text[i:])
		waitComplete(t, srv)
		completes = append(completes, time.Since(t0))
		cpus = append(cpus, srv.cpu()-cpu0)
	}
	if len(completes) > 0 {
		t.Logf("%d letters typed into the last one's title: complete analysis p50 %v p95 %v; server CPU each p50 %v max %v",
			len(completes), pct(completes, 50), pct(completes, 95), pct(cpus, 50), pct(cpus, 100))
	}
	// A resource typed key by key on a new line, as VS Code sends it
	// (braces and quotes closed as they open): until the colon, each
	// state is one Puppet refuses and the parser drops (parser/puppet
	// effects.go), which the last result follows.
	base := text[:i] + added
	var states []string
	for _, s := range []string{"n", "no", "not", "noti", "notif", "notify", "notify ", "notify {}", "notify { }", "notify { '' }"} {
		states = append(states, s)
	}
	for _, c := range "typed" {
		last := states[len(states)-1]
		q := strings.LastIndexByte(last, '\'')
		states = append(states, last[:q]+string(c)+last[q:])
	}
	states = append(states, "notify { 'typed': }")
	completes, cpus = completes[:0], cpus[:0]
	cpuAll := srv.cpu()
	for k, st := range states {
		cpu0 := srv.cpu()
		t0 := time.Now()
		srv.change(uri, 4201+k, base+"  "+st+"\n"+text[i:])
		waitComplete(t, srv)
		completes = append(completes, time.Since(t0))
		cpus = append(cpus, srv.cpu()-cpu0)
	}
	t.Logf("a resource typed key by key (%d keys, the last makes it parse): complete analysis p50 %v, after the last key %v; server CPU %v in all, %v for the last key",
		len(states), pct(completes, 50), completes[len(completes)-1].Round(time.Millisecond), srv.cpu()-cpuAll, cpus[len(cpus)-1])
	// A letter typed into a comment at the top (followed), then a resource
	// added at the end: the runs read the text before both edits.
	typed := base + "  notify { 'typed': }\n"
	cpu0 := srv.cpu()
	srv.change(uri, 4301, "# x\n"+typed+text[i:])
	waitComplete(t, srv)
	cpuComment := srv.cpu() - cpu0
	cpu0 = srv.cpu()
	t0 := time.Now()
	srv.change(uri, 4302, "# x\n"+typed+"  notify { 'after-comment': }\n"+text[i:])
	waitComplete(t, srv)
	t.Logf("a comment line typed at the top (server CPU %v), then a resource added at the end: complete analysis %v, server CPU %v",
		cpuComment, time.Since(t0).Round(time.Millisecond), srv.cpu()-cpu0)
}

// editsDuring (ORDERING_LATENCY_DURING=interval) makes the edits while
// the first complete analysis runs: one every interval from the open's
// first diagnostics, each waiting only for its own diagnostics (a cold
// cache: the workspace is still being parsed in the background). Each
// edit's line says how long after the open it was made.
func editsDuring(t *testing.T, srv *lspProc, uri string, withProbe func(string) string, edits int, every time.Duration) {
	open := time.Now()
	var firsts []time.Duration
	for k := 0; k < edits; k++ {
		if wait := time.Duration(k+1)*every - time.Since(open); wait > 0 {
			time.Sleep(wait)
		}
		v := k + 2
		t0 := time.Now()
		srv.change(uri, v, withProbe(strconv.Itoa(k)))
		at := srv.waitPublish(t, uri, v)
		firsts = append(firsts, at.Sub(t0))
		t.Logf("edit %d, %v after the open's diagnostics: first diagnostics %v", k+1, t0.Sub(open).Round(time.Millisecond), at.Sub(t0).Round(time.Millisecond))
	}
	waitComplete(t, srv)
	t.Logf("%d edits during the first complete analysis: first diagnostics p50 %v p95 %v max %v; complete analysis %v after the open's diagnostics",
		edits, pct(firsts, 50), pct(firsts, 95), pct(firsts, 100), time.Since(open).Round(time.Millisecond))
}

// commentEdits types a comment line at the top of the file and takes it
// out again (ORDERING_LATENCY_COMMENTS times, default 12): every
// diagnostic of the file moves, nothing else changes (the early cutoff:
// no analysis at all). Time to that version's diagnostics, to the
// complete analysis, and the server's CPU for each.
func commentEdits(t *testing.T, srv *lspProc, uri, text string) {
	n, _ := strconv.Atoi(os.Getenv("ORDERING_LATENCY_COMMENTS"))
	if n <= 0 {
		n = 12
	}
	var firsts, completes, cpus []time.Duration
	for k := 0; k < n; k++ {
		v := 2000 + k
		edited := text
		if k%2 == 0 {
			edited = "# a comment typed at the top\n" + text
		}
		cpu0 := srv.cpu()
		t0 := time.Now()
		srv.change(uri, v, edited)
		at := srv.waitPublish(t, uri, v)
		waitComplete(t, srv)
		firsts = append(firsts, at.Sub(t0))
		completes = append(completes, time.Since(t0))
		t.Logf("edit %d: first diagnostics %v, complete analysis %v", k+1, at.Sub(t0).Round(time.Millisecond), time.Since(t0).Round(time.Millisecond))
		cpus = append(cpus, srv.cpu()-cpu0)
		if k%100 == 99 { // memory must stay flat over many edits (issue 25)
			rss, _ := srv.memory()
			t.Logf("after %d comment edits: RSS %d MB", k+1, rss>>20)
		}
	}
	t.Logf("%d comment lines typed and taken out at the top: diagnostics p50 %v p95 %v; complete analysis p50 %v p95 %v; server CPU each p50 %v max %v",
		n, pct(firsts, 50), pct(firsts, 95), pct(completes, 50), pct(completes, 95), pct(cpus, 50), pct(cpus, 100))
	if n >= 100 {
		time.Sleep(3 * time.Second) // as after the edits: memory given back
		settled, _ := srv.memory()
		t.Logf("RSS settled 3 s after the last comment edit: %d MB", settled>>20)
	}
}

// hoverAt0 is a hover on the first declaration's name in text (the first
// `class ` or `define `, else the top), away from the probe line edits
// change.
func hoverAt0(uri, text string) map[string]any {
	i := strings.Index(text, "class ")
	if j := strings.Index(text, "define "); i < 0 || (j >= 0 && j < i) {
		i = j
	}
	if i < 0 {
		i = 0
	} else {
		i += len("class ")
	}
	line := strings.Count(text[:i], "\n")
	col := i - (strings.LastIndexByte(text[:i], '\n') + 1)
	return map[string]any{"textDocument": map[string]any{"uri": uri}, "position": map[string]any{"line": line, "character": col}}
}

// typingBurst types 20 keystrokes 120 ms apart into the probe line, with
// a hover elsewhere in the file after each, as an editor does while one
// types and moves the mouse: the hover's latency, the server's CPU per
// keystroke, and the time from the last keystroke to the complete
// analysis.
func typingBurst(t *testing.T, srv *lspProc, uri string, withProbe func(string) string) {
	const keys = 20
	cpu0 := srv.cpu()
	var hovers []time.Duration
	word := ""
	base := 1000
	for k := 0; k < keys; k++ {
		word += string(rune('a' + k%26))
		v := base + k
		text := withProbe("burst_" + word)
		srv.change(uri, v, text)
		t0 := time.Now()
		srv.call(t, "textDocument/hover", hoverAt0(uri, text))
		hovers = append(hovers, time.Since(t0))
		time.Sleep(120 * time.Millisecond)
	}
	typing := srv.cpu() - cpu0
	t0 := time.Now()
	waitComplete(t, srv)
	settle := time.Since(t0)
	cpu := srv.cpu() - cpu0
	t.Logf("typing burst of %d keystrokes: hover p50 %v p95 %v max %v; settled %v after the last; server CPU while typing %v (%v per keystroke), with the complete analysis after it %v",
		keys, pct(hovers, 50), pct(hovers, 95), pct(hovers, 100), settle.Round(time.Millisecond), typing, typing/keys, cpu)
}

// waitComplete returns once the complete analysis of the last change is
// done: ordering/order answers from it, and asked about a file no run
// touches, it answers without the workspace's whole order (tens of MB
// on a control repository, which an editor asks for only with the order
// view open; editorRequests times that one).
func waitComplete(t *testing.T, srv *lspProc) {
	srv.call(t, "ordering/order", map[string]any{"uri": "file:///ordering-latency/no-run-touches-this.pp"})
}

// editorRequests times, on the settled last version, the requests an
// editor sends while one reads and types: where a client sees them.
func editorRequests(t *testing.T, srv *lspProc, uri, text string) {
	pos := func(needle string, after int) map[string]any {
		i := strings.Index(text, needle)
		if i < 0 {
			i = 0
		} else {
			i += after
		}
		line := strings.Count(text[:i], "\n")
		col := i - (strings.LastIndexByte(text[:i], '\n') + 1)
		return map[string]any{"textDocument": map[string]any{"uri": uri}, "position": map[string]any{"line": line, "character": col}}
	}
	timed := func(name, method string, params any) json.RawMessage {
		t0 := time.Now()
		r := srv.call(t, method, params)
		t.Logf("%-28s %8v  %6d bytes", name, time.Since(t0).Round(time.Millisecond), len(r))
		return r
	}
	doc := map[string]any{"textDocument": map[string]any{"uri": uri}}
	probe := pos("latency-probe", 0)
	ref := pos("require => File['", len("require => File['"))
	timed("hover (probe)", "textDocument/hover", probe)
	// the same again: what a request costs once nothing is left to warm
	timed("hover (probe, again)", "textDocument/hover", probe)
	timed("documentHighlight (probe)", "textDocument/documentHighlight", probe)
	timed("codeLens (whole file)", "textDocument/codeLens", doc)
	items := timed("prepareCallHierarchy", "textDocument/prepareCallHierarchy", probe)
	var its []json.RawMessage
	if json.Unmarshal(items, &its) == nil && len(its) > 0 {
		timed("callHierarchy/outgoingCalls", "callHierarchy/outgoingCalls", map[string]any{"item": its[0]})
		timed("callHierarchy/incomingCalls", "callHierarchy/incomingCalls", map[string]any{"item": its[0]})
	}
	timed("completion (File[')", "textDocument/completion", ref)
	timed("completion (File[', again)", "textDocument/completion", ref)
	timed("workspace/symbol \"nginx\"", "workspace/symbol", map[string]any{"query": "nginx"})
	timed("definition (probe)", "textDocument/definition", probe)
	timed("references (probe)", "textDocument/references", map[string]any{"textDocument": doc["textDocument"],
		"position": probe["position"], "context": map[string]any{"includeDeclaration": true}})
	timed("prepareRename (probe)", "textDocument/prepareRename", probe)
	timed("rename (probe)", "textDocument/rename", map[string]any{"textDocument": doc["textDocument"],
		"position": probe["position"], "newName": "latency-renamed"})
	timed("documentSymbol (whole file)", "textDocument/documentSymbol", doc)
	lines := strings.Count(text, "\n")
	timed("inlayHint (whole file)", "textDocument/inlayHint", map[string]any{"textDocument": doc["textDocument"],
		"range": map[string]any{"start": map[string]any{"line": 0, "character": 0}, "end": map[string]any{"line": lines, "character": 0}}})
	timed("ordering/order (file)", "ordering/order", map[string]any{"uri": uri})
	timed("codeAction (probe line)", "textDocument/codeAction", map[string]any{"textDocument": map[string]any{"uri": uri},
		"range": map[string]any{"start": ref["position"], "end": ref["position"]}, "context": map[string]any{"diagnostics": []any{}}})
}

func pct(ds []time.Duration, p int) time.Duration {
	s := append([]time.Duration(nil), ds...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	k := (len(s)*p + 99) / 100
	if k < 1 {
		k = 1
	}
	return s[k-1].Round(time.Millisecond)
}

// TestSoak types into a class every run reads, faster than the server
// analyses (most analyses are cancelled by the next keystroke), then
// checks the server is alive, the last version got its diagnostics, and
// they are a fresh analysis's. Opt-in: ORDERING_SOAK=1000 (edits) on the
// generated control repository; RSS is sampled every 100 edits.
func TestSoak(t *testing.T) {
	n, _ := strconv.Atoi(os.Getenv("ORDERING_SOAK"))
	if n <= 0 {
		t.Skip("set ORDERING_SOAK to a number of edits")
	}
	dir := t.TempDir()
	dir, _ = filepath.EvalSymlinks(dir)
	path, err := controlrepo.Write(dir, controlrepo.Shape{Modules: 120, Profiles: 40, Roles: 120, Seed: 2})
	if err != nil {
		t.Fatal(err)
	}
	text, _ := os.ReadFile(path)
	uri := source.PathToURI(path)
	srv := startServer(t)
	defer srv.stop()
	srv.call(t, "initialize", map[string]any{"rootUri": source.PathToURI(dir), "capabilities": map[string]any{}})
	srv.notify("initialized", map[string]any{})
	srv.notify("textDocument/didOpen", map[string]any{"textDocument": map[string]any{"uri": uri, "languageId": "puppet", "version": 1, "text": string(text)}})
	end := bytes.LastIndexByte(text, '}')
	rng := rand.New(rand.NewSource(11))
	lines := []string{
		"  notify { 'soak': require => File['/nonexistent/%d'] }\n",
		"  File['/etc/base/f39'] -> File['/etc/base/f0'] # %d\n",
		"  file { '/etc/base/f%d': }\n",
		"  if $facts['soak'] == '%d' { File['/etc/base/f2'] -> File['/etc/base/f1'] }\n",
		"  include m%d\n",
		"  # %d\n",
	}
	var final string
	start := time.Now()
	for k := 0; k < n; k++ {
		var add strings.Builder
		for j := 0; j < rng.Intn(3); j++ {
			fmt.Fprintf(&add, lines[rng.Intn(len(lines))], rng.Intn(60))
		}
		final = string(text[:end]) + add.String() + string(text[end:])
		srv.change(uri, k+2, final)
		time.Sleep(time.Duration(rng.Intn(30)) * time.Millisecond) // typing speed, with pauses
		if k%100 == 99 {
			rss, _ := srv.memory()
			t.Logf("after %d edits (%v): RSS %d MB", k+1, time.Since(start).Round(time.Second), rss>>20)
		}
	}
	srv.call(t, "ordering/order", map[string]any{"uri": uri})
	want := freshDiagnostics(t, dir, path, final)[uri]
	var got []string
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		srv.mu.Lock()
		got = srv.last[uri]
		srv.mu.Unlock()
		if fmt.Sprint(got) == fmt.Sprint(want) {
			break
		}
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("after %d edits the last diagnostics differ from a fresh analysis\n--- server\n%v\n--- fresh\n%v", n, got, want)
	}
	if srv.cmd.ProcessState != nil {
		t.Fatalf("the server exited: %v", srv.cmd.ProcessState)
	}
	_, hwm := srv.memory()
	t.Logf("%d edits in %v; peak RSS (VmHWM) %d MB", n, time.Since(start).Round(time.Second), hwm>>20)
}
