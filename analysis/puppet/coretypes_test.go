package puppet

import (
	"encoding/json"
	"os/exec"
	"testing"
)

// TestCoreTypesAgainstPuppet: the table of the attributes of the types
// Puppet defines (types_gen.go) is what the Puppet on this machine says,
// name for name. Skipped where ruby cannot load puppet (CI need not have
// it; `apt-get install puppet` runs it).
func TestCoreTypesAgainstPuppet(t *testing.T) {
	if err := exec.Command("ruby", "-e", "require 'puppet'").Run(); err != nil {
		t.Skip("ruby cannot load puppet here:", err)
	}
	out, err := exec.Command("go", "run", "gen_types.go", "-dump").Output()
	if err != nil {
		t.Fatal(err)
	}
	var d struct {
		Version    string
		Metaparams []struct{ Name string }
		Types      map[string]struct {
			Attrs []struct{ Name string }
		}
	}
	if err := json.Unmarshal(out, &d); err != nil {
		t.Fatal(err)
	}
	if d.Version != typesVersion {
		t.Logf("this machine has Puppet %s, the table %s", d.Version, typesVersion)
	}
	if len(d.Types) != len(coreTypes) {
		t.Errorf("Puppet defines %d types, the table %d", len(d.Types), len(coreTypes))
	}
	for name, ty := range d.Types {
		ct := coreTypes[name]
		if ct == nil {
			t.Errorf("type %s is not in the table", name)
			continue
		}
		if len(ty.Attrs) != len(ct.attrs) {
			t.Errorf("%s: Puppet has %d attributes, the table %d", name, len(ty.Attrs), len(ct.attrs))
		}
		for _, a := range ty.Attrs {
			if !ct.has(a.Name) {
				t.Errorf("%s: attribute %s is not in the table", name, a.Name)
			}
		}
	}
	for _, m := range d.Metaparams {
		if !metaparamNames[m.Name] {
			t.Errorf("metaparameter %s is not in the table", m.Name)
		}
	}
}
