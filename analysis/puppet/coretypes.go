package puppet

//go:generate go run gen_types.go

// typeAttr is one attribute of a type Puppet defines: its name, whether
// it is a property (what Puppet manages), a parameter (how) or a
// metaparameter, and the first sentence of its documentation.
type typeAttr struct {
	name, kind, doc string
}

// coreType is a type Puppet defines (types_gen.go).
type coreType struct {
	namevar []string
	attrs   []typeAttr
	known   map[string]bool // (attrs' names, `name`, the metaparameters: made once)
}

// coreAttr reports whether typ is a type Puppet defines whose attributes
// are known, and whether name is one of them or a metaparameter.
func coreAttr(typ, name string) (known, ok bool) {
	t := coreTypes[typ]
	if t == nil {
		return false, false
	}
	return true, t.has(name)
}

func (t *coreType) has(name string) bool {
	return t.known[name]
}

var metaparamNames = map[string]bool{}

func init() {
	for _, a := range metaparamAttrs {
		metaparamNames[a.name] = true
	}
	for _, t := range coreTypes {
		// (its attributes, `name` and the metaparameters: one lookup)
		t.known = make(map[string]bool, len(t.attrs)+len(metaparamAttrs)+1)
		for _, a := range t.attrs {
			t.known[a.name] = true
		}
		for _, a := range metaparamAttrs {
			t.known[a.name] = true
		}
		t.known["name"] = true
	}
}
