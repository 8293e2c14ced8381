package puppet

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/ordering-lsp/ordering-lsp/analysis"
	"github.com/ordering-lsp/ordering-lsp/source"
	"gopkg.in/yaml.v3"
)

// Hiera classification: `lookup('classes', Array, 'unique').include`,
// `hiera_include('classes')`, `$classes.include`. Without the node's facts
// the list is unknown, but every hierarchy level that could contribute to
// it is in the repository: a class name there that no module defines
// fails every node that level applies to. The name is reported where it
// is written, in the data file, with the include beside it.

// mergedMark ends a classification key whose lookup merges the levels
// (unique, deep, hash; hiera_include and hiera_array): every level's list
// is included, not only the first one found.
const mergedMark = "\x00merged"

type dataItem struct {
	name string
	at   source.Span
}

// hieraClasses checks the class names the levels of the environment's
// hierarchy list under key, for an include (how: include, contain,
// require) at at, and declares the ones that exist as "may be included":
// each under a branch that says which data file the node must read (two
// files of one hierarchy path exclude each other), so their resources
// have positions, relationships and conditional cycles in the run. A
// class every node's list holds (everyNode) is declared without a
// branch, at its first place: Puppet evaluates a class once, so its body
// fails on every node, whichever level listed it first.
func (r *run) hieraClasses(e *env, key string, at source.Span, how string) {
	a := r.a
	key, merged := strings.CutSuffix(key, mergedMark)
	env, _ := a.envRoots()
	points := map[string]int32{}
	arms := map[string]int32{}
	for _, d := range env {
		// the levels a node may take the list from, in priority order
		var levels []hieraLevel
		someLevel := false // a level only some nodes have holds the key before this one
		for _, p := range a.hieraFiles(d) {
			mp, partial, level := hieraFile(p)
			if m := a.dataFile(mp); m == nil || m[key] == nil {
				continue
			}
			levels = append(levels, hieraLevel{path: mp, partial: partial, level: level,
				some: partial || (someLevel && !merged), items: a.dataListItems(mp, key)})
			if partial {
				someLevel = true
				continue
			}
			if !merged {
				break // first found: the levels after it never reach a node
			}
		}
		every := everyNode(levels, merged)
		for _, lv := range levels {
			where := a.displayPath(source.PathToURI(lv.path))
			se := e
			if lv.some {
				level := lv.level
				if !lv.partial {
					level = "\x00" + lv.path
				}
				pt, ok := points[level]
				if !ok {
					pt = r.nextPoint()
					points[level] = pt
				}
				b := &branch{point: pt, arm: arms[level], text: "the node reads " + where}
				arms[level]++
				c := *e
				c.spec, c.cond = true, e.cond.under(b)
				se = &c
			}
			for _, it := range lv.items {
				if r.hieraClass(it, key, lv.path, lv.some, at) {
					name := strings.TrimPrefix(it.name, "::")
					if every[strings.ToLower(name)] {
						r.declareClass(e, name, at, how, nil)
					} else {
						r.declareClass(se, name, at, how, nil)
					}
				}
			}
		}
	}
}

// hieraLevel is a data file of the hierarchy that holds the
// classification key: whether a node may read it or not (partial: its
// path needs what we do not know; some: not every node takes the list
// from it) and the names it lists.
type hieraLevel struct {
	path, level   string
	partial, some bool
	items         []dataItem
}

// everyNode lists (lower-cased) the class names every node's lookup
// result holds. A merging lookup takes the lists of every level, so of a
// level every node reads (common.yaml). A first-found lookup takes one
// list: a node that reads a file of a fact-keyed level holding the key
// takes that file's, the others fall back to the first level every node
// reads; a name is on every node when the fallback lists it and so does
// each of those files.
func everyNode(levels []hieraLevel, merged bool) map[string]bool {
	names := func(lv hieraLevel) map[string]bool {
		m := make(map[string]bool, len(lv.items))
		for _, it := range lv.items {
			m[strings.ToLower(strings.TrimPrefix(it.name, "::"))] = true
		}
		return m
	}
	var every map[string]bool
	if merged {
		for _, lv := range levels {
			if lv.partial {
				continue
			}
			if every == nil {
				every = map[string]bool{}
			}
			for n := range names(lv) {
				every[n] = true
			}
		}
		return every
	}
	if len(levels) == 0 || levels[len(levels)-1].partial {
		return nil // no fallback: a node without one of the files takes no list here
	}
	every = names(levels[len(levels)-1])
	for _, lv := range levels[:len(levels)-1] {
		has := names(lv)
		for n := range every {
			if !has[n] {
				delete(every, n)
			}
		}
	}
	return every
}

// hieraClass reports one class name of classification data that no
// module defines; it says whether the class exists.
func (r *run) hieraClass(it dataItem, key, file string, some bool, include source.Span) (exists bool) {
	a := r.a
	name := strings.ToLower(strings.TrimPrefix(it.name, "::"))
	if name == "" || strings.Contains(name, "%{") {
		return false
	}
	if a.classFor(r, name) != nil {
		return true
	}
	mod, _, _ := strings.Cut(name, "::")
	sev, why, rel, code := analysis.Error, "", []analysis.Related(nil), "unknown-class"
	if !a.moduleKnown(name) {
		sev, why, rel = a.absentModule(mod)
		if a.notInstalled(mod) {
			code = codeNotInstalled
		}
	}
	where := a.displayPath(source.PathToURI(file))
	if why != "" {
		why = "; " + why
	}
	reads := "every node reads"
	if a.facts != nil {
		reads = "the node reads"
	}
	if some {
		reads = "a level only some nodes read"
		if sev == analysis.Error {
			sev = analysis.Warning
		}
	}
	msg := fmt.Sprintf("Could not find class ::%s%s (listed under '%s' in %s, %s%s)", name, a.forCert(), key, where, reads, why)
	rel = append(rel, analysis.Related{At: include, Message: "the classes it lists are included here"})
	r.diag(it.at, sev, code, msg, rel...)
	return false
}

// dataListItems lists the strings of the sequence under key in a YAML
// data file, with their spans.
func (a *analyzer) dataListItems(path, key string) []dataItem {
	// every run of a control repository asks the same question: once per
	// analysis
	m := a.memo
	ck := path + "\x00" + key
	m.mu.Lock()
	items, ok := m.dataItems[ck]
	m.mu.Unlock()
	if ok {
		return items
	}
	items = a.dataListItems1(path, key)
	m.mu.Lock()
	m.dataItems[ck] = items
	m.mu.Unlock()
	return items
}

func (a *analyzer) dataListItems1(path, key string) []dataItem {
	f := a.ws.Lookup(path)
	if f == nil {
		return nil
	}
	var doc yaml.Node
	if yaml.Unmarshal(f.Text, &doc) != nil || len(doc.Content) == 0 {
		return nil
	}
	seq := mapValue(doc.Content[0], key)
	if seq == nil || seq.Kind != yaml.SequenceNode {
		return nil
	}
	lines := lineStarts(f.Text)
	var out []dataItem
	for _, n := range seq.Content {
		if n.Kind != yaml.ScalarNode || n.Line < 1 || n.Line > len(lines) {
			continue
		}
		start := runeOffset(f.Text, lines[n.Line-1], n.Column-1)
		end := start + len(n.Value)
		if n.Style&(yaml.DoubleQuotedStyle|yaml.SingleQuotedStyle) != 0 {
			end += 2
		}
		out = append(out, dataItem{name: n.Value, at: source.Span{URI: f.URI, Start: start, End: min(end, len(f.Text))}})
	}
	return out
}

// runeOffset is the byte offset of the col-th character after from.
func runeOffset(b []byte, from, col int) int {
	i := from
	for ; col > 0 && i < len(b) && b[i] != '\n'; col-- {
		_, n := utf8.DecodeRune(b[i:])
		i += n
	}
	return i
}
