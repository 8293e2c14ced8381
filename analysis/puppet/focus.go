package puppet

import (
	"sort"
	"strings"
)

// Focus (analysis.Request.Focus): after an edit, the server wants the
// edited file's diagnostics first. On a control repository a class like
// profile::base is evaluated by hundreds of runs (one per role/node);
// evaluating all of them takes seconds, one of them tens of milliseconds.
// So a focused analysis builds only a few runs that read the focus files,
// as many as there are CPUs:
//
//   - the runs of the previous analysis that read a focus file (their
//     snapshots are out of date now): the same runs the complete analysis
//     will rebuild, so the first diagnostics are theirs;
//   - with no previous analysis (the file was just opened), the runs of
//     the focus files' own top-level code and of their classes and defines
//     analysed alone.
//
// The result is Partial: the server shows only the focus files'
// diagnostics from it and follows with the complete analysis, which finds
// the runs built here in the run cache.

// focusSpecs picks the runs a focused analysis builds (nil: analyse
// everything).
func (a *analyzer) focusSpecs(specs []*runSpec) []*runSpec {
	if len(a.req.Focus) == 0 || a.strict {
		return nil
	}
	focus := map[string]bool{}
	for _, u := range a.req.Focus {
		if a.byURI[u] != nil {
			focus[u] = true
		}
	}
	if len(focus) == 0 {
		return nil
	}
	limit := a.nWorkers()
	var out []*runSpec
	if a.prevCache != nil {
		for _, sp := range specs {
			if s := a.prevCache[sp.name]; s != nil && readsAny(s, focus) {
				out = append(out, sp)
				if len(out) == limit {
					return out
				}
			}
		}
		// Classes and defines analysed alone (a control repository's
		// roles: nothing in the repository declares them).
		var names []string
		for name, s := range a.prevCache {
			if s.synthetic && readsAny(s, focus) {
				names = append(names, name)
			}
		}
		sort.Strings(names)
		for _, name := range names {
			kind, def, _ := strings.Cut(name, " ")
			if (kind == "class" && a.classes[def] != nil) || (kind == "define" && a.defines[def] != nil) {
				out = append(out, &runSpec{name: name, synth: kind, synthName: def})
				if len(out) == limit {
					return out
				}
			}
		}
	}
	if len(out) > 0 {
		return out
	}
	for _, sp := range specs {
		for _, fi := range sp.files {
			if focus[fi.uri] {
				out = append(out, sp)
				break
			}
		}
		if len(out) == limit {
			return out
		}
	}
	for u := range focus {
		fi := a.byURI[u]
		for _, ci := range a.classes {
			if ci.file == fi && len(out) < limit {
				out = append(out, &runSpec{name: "class " + ci.name, synth: "class", synthName: ci.name})
			}
		}
		for _, d := range a.defines {
			if d.file == fi && len(out) < limit {
				out = append(out, &runSpec{name: "define " + d.name, synth: "define", synthName: d.name})
			}
		}
	}
	if len(out) == 0 {
		return nil // nothing reads the file: the complete analysis is quick
	}
	return out
}

// readsAny: the snapshot's run read one of the files (its own, or the
// file defining a class or define it used: values are syntax-tree ids,
// URI@tree).
func readsAny(s *runSnap, uris map[string]bool) bool {
	for k, v := range s.deps {
		switch k.kind {
		case 'f':
			if uris[k.name] {
				return true
			}
		case 'c', 'd':
			if i := strings.LastIndexByte(v, '@'); i > 0 && uris[v[:i]] {
				return true
			}
		case 'k':
			for u := range uris {
				if strings.HasPrefix(v, u+":") {
					return true
				}
			}
		}
	}
	return false
}
