package puppet

import (
	"bytes"
	"hash/maphash"
	"sort"
	"strings"

	"github.com/ordering-lsp/ordering-lsp/source"
)

// Lazy loading: when the server opens a file of a workspace it has not
// analysed yet, its first (focused, focus.go) analysis builds a few runs
// of that file, which read a small part of the workspace; parsing every
// file first cost seconds on a control repository (tens of seconds with
// the participle grammar and no chunk cache). So that analysis parses the
// focus files and the environments' main manifests, and any other file
// only when a run asks for a class or define it may define. Which files
// may define a name is found by a scan of the text for the words `class`
// and `define` followed by a name (comments skipped; a word in a string
// counts too: a superset), keyed by the name as written; a definition
// nested in a class without "::" gets the class's name as prefix, so a
// name is looked up as written and by its last segment. Before a name is
// looked up, every file that may define it is loaded, and of two
// definitions of one name the file earlier in the request wins, as when
// every file is loaded in order: the runs see what they would see in a
// complete load. What needs every name (a class name matched by a
// pattern) loads every file. The complete analysis that follows parses
// everything, after the first diagnostics are published.
type lazyIndex struct {
	files  []*source.File
	seq    map[string]int   // URI -> index in files
	byName map[string][]int // a name as written after class/define -> files, in order
}

// lazyLoad reports whether this analysis loads files on demand: a focused
// analysis with no previous analysis that loaded every file. An edit made
// while the first complete analysis is still parsing the workspace
// cancels it: what it left behind (the snapshots of the runs it and the
// focused one before it built) does not make every file parsed, and
// loading them all first cost the edit's diagnostics the rest of the
// workspace's parse (seconds with an empty chunk cache).
func (a *analyzer) lazyLoad() bool {
	if len(a.req.Focus) == 0 || a.strict || (a.prevCache != nil && a.sys.loadedAll) || a.sys.eager {
		return false
	}
	for _, u := range a.req.Focus {
		for _, f := range a.req.Files {
			if f.URI == u {
				return true
			}
		}
	}
	return false
}

// startLazy indexes the files by the names they may define and loads the
// focus files and the environments' main manifests. It reports false when
// the focus files have nothing a focused analysis would build a run of
// (then everything is loaded).
func (a *analyzer) startLazy(files []*source.File) bool {
	lz := &lazyIndex{files: files, seq: make(map[string]int, len(files)), byName: map[string][]int{}}
	for i, f := range files {
		lz.seq[f.URI] = i
		for _, n := range a.sys.definedNames(f) {
			l := lz.byName[n]
			if len(l) == 0 || l[len(l)-1] != i {
				lz.byName[n] = append(l, i)
			}
		}
	}
	a.lazy = lz
	focus := map[string]bool{}
	for _, u := range a.req.Focus {
		focus[u] = true
	}
	var focused []*fileInfo
	for _, f := range files {
		if focus[f.URI] || a.envManifest(f.Path) {
			fi := a.load(f)
			if focus[f.URI] {
				focused = append(focused, fi)
			}
		}
	}
	// A name these files define may be defined by a file earlier in the
	// request too, whose definition counts.
	var names, defs []string
	for n := range a.classes {
		names = append(names, n)
	}
	for n := range a.defines {
		defs = append(defs, n)
	}
	for _, n := range names {
		a.need(n)
	}
	for _, n := range defs {
		a.need(n)
	}
	for _, fi := range focused {
		if a.definesOrRuns(fi) {
			return true
		}
	}
	return false
}

// definesOrRuns: the file is a run of its own or defines a class or
// define, which is when focusSpecs builds runs for it.
func (a *analyzer) definesOrRuns(fi *fileInfo) bool {
	if fi.topLevel {
		return true
	}
	for _, ci := range a.classes {
		if ci.file == fi {
			return true
		}
	}
	for _, d := range a.defines {
		if d.file == fi {
			return true
		}
	}
	return false
}

// need loads every file that may define name (a class or define) before
// it is looked up. A fork running beside others may not load: it asks for
// the load (wantLoad) and its run is built again.
func (a *analyzer) need(name string) {
	lz := a.main.lazy
	if lz == nil {
		return
	}
	// Defined as written, or unqualified inside a class whose name
	// becomes its prefix.
	name = strings.TrimPrefix(name, "::")
	idx := lz.byName[name]
	if i := strings.LastIndex(name, "::"); i >= 0 {
		if nested := lz.byName[name[i+2:]]; len(nested) > 0 {
			idx = append(append([]int(nil), idx...), nested...)
			sort.Ints(idx)
		}
	}
	var todo []*source.File
	for _, i := range idx {
		if f := lz.files[i]; !a.loaded(f) && (len(todo) == 0 || todo[len(todo)-1] != f) {
			todo = append(todo, f)
		}
	}
	a.loadAll(todo)
}

// loadAll loads files (parsed on every worker first), in order.
func (a *analyzer) loadAll(todo []*source.File) {
	if len(todo) == 0 {
		return
	}
	if a.frozen {
		a.wantLoad = true
		return
	}
	a.main.parseAll(todo)
	for _, f := range todo {
		a.main.load(f)
	}
}

// needAll loads every file.
func (a *analyzer) needAll() {
	lz := a.main.lazy
	if lz == nil {
		return
	}
	var todo []*source.File
	for _, f := range lz.files {
		if !a.loaded(f) {
			todo = append(todo, f)
		}
	}
	a.loadAll(todo)
}

func (a *analyzer) loaded(f *source.File) bool {
	key := f.Path
	if key == "" {
		key = f.URI
	}
	return a.files[key] != nil
}

// loadSeq is where a file comes in the order of a complete load: its
// index in the request, or after all of them.
func (a *analyzer) loadSeq(f *source.File) int {
	if lz := a.main.lazy; lz != nil {
		if i, ok := lz.seq[f.URI]; ok {
			return i
		}
		return len(lz.files) + len(a.main.order)
	}
	return len(a.main.order)
}

// lookupClass and lookupDefine are a.classes[name] and a.defines[name]
// once every file that may define name is loaded.
func (a *analyzer) lookupClass(name string) *classInfo {
	a.need(name)
	return a.classes[name]
}

func (a *analyzer) lookupDefine(name string) *defineInfo {
	a.need(name)
	return a.defines[name]
}

// definedNames is definedNames(f.Text), kept per file while its text
// does not change: every focused analysis made before the workspace is
// all parsed (each edit's, while the complete analysis is still parsing)
// indexes every file again, and scanning operations-puppet's 6.4 MB took
// 30-45 ms of each. The workspace hands out the same File while a file
// is unchanged on disk, so most are known without hashing their text.
func (s *System) definedNames(f *source.File) []string {
	s.mu.Lock()
	e, ok := s.names[f.URI]
	s.mu.Unlock()
	if ok && e.file == f {
		return e.names
	}
	h := maphash.Bytes(hashSeed, f.Text)
	if !ok || e.hash != h || e.size != len(f.Text) {
		e.names = definedNames(f.Text)
	}
	s.mu.Lock()
	if s.names == nil {
		s.names = map[string]namesEntry{}
	}
	s.names[f.URI] = namesEntry{file: f, hash: h, size: len(f.Text), names: e.names}
	s.mu.Unlock()
	return e.names
}

type namesEntry struct {
	file  *source.File // the text scanned
	hash  uint64
	size  int
	names []string
}

// definedNames lists the names, lower case and without a leading "::",
// that follow the words `class` and `define` in text.
func definedNames(text []byte) []string {
	var out []string
	for _, kw := range [][]byte{[]byte("class"), []byte("define")} {
		for at := 0; ; {
			i := bytes.Index(text[at:], kw)
			if i < 0 {
				break
			}
			i += at
			at = i + len(kw)
			if i > 0 && nameByte(text[i-1]) {
				continue
			}
			j := skipBlank(text, at)
			if j == at {
				continue
			}
			k := j
			for k < len(text) && (nameByte(text[k]) || text[k] == ':') {
				k++
			}
			name := strings.TrimPrefix(strings.ToLower(string(text[j:k])), "::")
			if name != "" {
				out = append(out, name)
			}
		}
	}
	return out
}

func nameByte(c byte) bool {
	return c == '_' || c == '-' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

// skipBlank skips white space and comments from at.
func skipBlank(text []byte, at int) int {
	for at < len(text) {
		switch c := text[at]; {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			at++
		case c == '#':
			for at < len(text) && text[at] != '\n' {
				at++
			}
		case c == '/' && at+1 < len(text) && text[at+1] == '*':
			e := bytes.Index(text[at+2:], []byte("*/"))
			if e < 0 {
				return len(text)
			}
			at += e + 4
		default:
			return at
		}
	}
	return at
}
