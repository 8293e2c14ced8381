package puppet

import (
	"sort"
	"strings"
	"unsafe"
)

// Definitions no run reaches.
//
// A class or define that nothing in the workspace declares by name gets a
// run of its own (`class x`, as `include x` alone), so that its resources
// have a position to show. One that is declared, but only where no run
// goes (`if $developer { include role::tools }` with $developer false on
// every node the workspace classifies: 16 of operations-puppet's
// definitions, admin::userlinger and rspamd::config among them), had
// none: hovering its resources said nothing at all, and F12 on its
// references led nowhere. It gets such a run too, after every other, and
// the run is quiet:
//
//   - its problems are not reported: Puppet meets them only where a node
//     takes a branch no node of the workspace takes;
//   - what it declares does not settle other runs' missing targets
//     (settleMissing), so the problems of the other runs are the same with
//     it or without it;
//   - a caller that reads only problems (check) does not build it.
//
// The run's note (analysis.Run.Note) tells a hover why it stands alone.
const (
	aloneNote     = "analysed alone: nothing in the workspace declares it by name"
	unreachedNote = "analysed alone: no run of the workspace reaches a declaration of it"
)

// unreachedSpecs lists the runs of the definitions the workspace declares
// that no run merged so far declared, and marks them quiet (a.unreached).
// An instance whose title nobody knows (`admin::user { $u: }` in a loop
// over Hiera data the workspace does not hold) is declared as a pattern
// (`Admin::User[*]`): the define is reached (anyDeclared holds patterns).
// None for a caller that reads only problems.
func (a *analyzer) unreachedSpecs() []*runSpec {
	if a.diagsOnly() || a.strict {
		return nil
	}
	want := map[string]bool{} // "Class[x]" / a define's type name -> unreached so far
	for n, ci := range a.classes {
		if a.declared[n] && !ci.misplaced {
			want["Class["+n+"]"] = true
		}
	}
	for n, d := range a.defines {
		if a.declared[n] && !d.misplaced {
			want[capType(n)] = true
		}
	}
	left := len(want)
	seen := make(map[declID][]string, len(a.anyDeclared))
	for _, keys := range a.anyDeclared {
		id := declID{unsafe.SliceData(keys), len(keys)}
		kinds, ok := a.sys.declKinds[id]
		if !ok {
			kinds = kindsOf(keys)
		}
		seen[id] = kinds
		for _, w := range kinds {
			if want[w] {
				want[w] = false
				left--
			}
		}
	}
	a.sys.declKinds = seen
	if left == 0 {
		return nil
	}
	var names []string
	for w, un := range want {
		if !un {
			continue
		}
		if strings.HasPrefix(w, "Class[") {
			names = append(names, "class "+w[len("Class["):len(w)-1])
		} else {
			names = append(names, "define "+strings.ToLower(w))
		}
	}
	sort.Strings(names)
	specs := make([]*runSpec, 0, len(names))
	a.unreached = make(map[string]bool, len(names))
	for _, name := range names {
		kind, def, _ := strings.Cut(name, " ")
		specs = append(specs, &runSpec{name: name, synth: kind, synthName: def})
		a.unreached[name] = true
	}
	return specs
}

// declID is a run's list of declared keys (or patterns) by identity: a
// run restored from its snapshot keeps the very list, and a rebuilt or
// patched one has a new one.
type declID struct {
	p *string
	n int
}

// kindsOf is what a list of declared keys says of definitions: each class
// ("Class[x]") and each other type declared, once. Scanning every key of
// operations-puppet's 1,140 runs took 16-29 ms of each complete analysis
// after an edit; a list kept from the last analysis is not read again
// (System.declKinds): 5-7 ms.
func kindsOf(keys []string) []string {
	var out []string
	had := map[string]bool{}
	for _, k := range keys {
		i := strings.IndexByte(k, '[')
		if i <= 0 {
			continue
		}
		w := k[:i]
		if w == "Class" {
			w = k
		}
		if !had[w] {
			had[w] = true
			out = append(out, w)
		}
	}
	return out
}
