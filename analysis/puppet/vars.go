package puppet

// varMap holds one scope's variables. Most scopes are small (a lambda's
// parameter, a define with a few parameters, a speculated branch's layer)
// and a map of 96-byte values costs a whole group of slots for each of
// them: on operations-puppet the scopes' maps were a tenth of everything
// a `check .` allocated. Up to smallVars variables live in a slice
// searched linearly; a scope that grows past it moves to a map.
type varMap struct {
	list []varEntry
	m    map[string]val
}

type varEntry struct {
	name string
	v    val
}

const smallVars = 8

// newVarMap sizes the map for about n variables.
func newVarMap(n int) varMap {
	switch {
	case n > smallVars:
		return varMap{m: make(map[string]val, n)}
	case n > 0:
		return varMap{list: make([]varEntry, 0, n)}
	}
	return varMap{}
}

// empty says whether no variable is set.
func (vs *varMap) empty() bool { return len(vs.m) == 0 && len(vs.list) == 0 }

func (vs *varMap) get(name string) (val, bool) {
	if vs.m != nil {
		v, ok := vs.m[name]
		return v, ok
	}
	for i := range vs.list {
		if vs.list[i].name == name {
			return vs.list[i].v, true
		}
	}
	return val{}, false
}

func (vs *varMap) set(name string, v val) {
	if vs.m != nil {
		vs.m[name] = v
		return
	}
	for i := range vs.list {
		if vs.list[i].name == name {
			vs.list[i].v = v
			return
		}
	}
	if len(vs.list) < smallVars {
		if vs.list == nil {
			vs.list = make([]varEntry, 0, 2)
		}
		vs.list = append(vs.list, varEntry{name, v})
		return
	}
	vs.m = make(map[string]val, 2*smallVars)
	for _, e := range vs.list {
		vs.m[e.name] = e.v
	}
	vs.m[name] = v
	vs.list = nil
}

// each calls f for every variable, in no particular order.
func (vs *varMap) each(f func(string, val)) {
	if vs.m != nil {
		for k, v := range vs.m {
			f(k, v)
		}
		return
	}
	for _, e := range vs.list {
		f(e.name, e.v)
	}
}
