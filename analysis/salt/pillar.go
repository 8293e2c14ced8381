package salt

import (
	"path/filepath"
	"strings"

	sp "github.com/ordering-lsp/ordering-lsp/parser/salt"
)

// Pillar trees hold data, not states, in the same SLS syntax. A tree under
// a pillar/ folder is not claimed at all (Owns); others are recognised by
// their top.sls: a top whose targets, as far as they exist under its
// folder, are all data (no state declaration anywhere) is a pillar top,
// and its folder a pillar tree (openSUSE heroes-salt's t/lib, which its
// Dockerfile copies to /srv/pillar). Nothing there is analysed as states.

// pillarTree reports whether the tree's top.sls is a pillar top.
func pillarTree(t *tree, top *sfile) bool {
	if top == nil || !topShaped(top) {
		return false
	}
	found := 0
	for _, e := range top.p.Entries {
		for _, targets := range e.Val.Vals {
			for _, it := range targets.Items {
				name, ok := it.Str()
				if !ok || it.Kind != sp.Scalar || strings.Contains(name, sp.Unknown) {
					continue
				}
				rel := filepath.FromSlash(strings.ReplaceAll(name, ".", "/"))
				f := t.load(filepath.Join(t.root, rel+".sls"))
				if f == nil {
					f = t.load(filepath.Join(t.root, rel, "init.sls"))
				}
				if f == nil {
					continue
				}
				if !dataShaped(f) {
					return false
				}
				found++
			}
		}
	}
	return found > 0
}

// dataShaped: every ID maps to a mapping whose keys are not state
// declarations (no `module.function`, no list of arguments, no bare
// `module:`): pillar data.
func dataShaped(f *sfile) bool {
	if len(f.p.Entries) == 0 {
		return false
	}
	for _, e := range f.p.Entries {
		if e.Opaque || e.Key == nil || e.Val == nil || e.Val.Kind != sp.Map {
			return false
		}
		for i, k := range e.Val.Keys {
			v := e.Val.Vals[i]
			if strings.Contains(k.Value, ".") || v == nil || v.Kind == sp.Seq || (v.Kind == sp.Scalar && v.Tag == "!!null") {
				return false
			}
		}
	}
	return true
}
