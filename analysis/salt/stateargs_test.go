package salt

import (
	"encoding/json"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// TestStateFuncsAgainstSalt: the table of state functions and their
// arguments (states_gen.go) is what the Salt source tree in $SALT_SRC
// says, function for function (opt-in: SALT_SRC=.../salt-3007-src
// PYTHON=/usr/bin/python3).
func TestStateFuncsAgainstSalt(t *testing.T) {
	if os.Getenv("SALT_SRC") == "" {
		t.Skip("set SALT_SRC to a Salt source tree")
	}
	out, err := exec.Command("go", "run", "gen_states.go", "-dump").Output()
	if err != nil {
		t.Fatal(err)
	}
	var d struct {
		Version string
		States  map[string]struct{ Args []string }
	}
	if err := json.Unmarshal(out, &d); err != nil {
		t.Fatal(err)
	}
	if d.Version != statesVersion {
		t.Logf("this Salt is %s, the table %s", d.Version, statesVersion)
	}
	if len(d.States) != len(stateFuncs) {
		t.Errorf("Salt defines %d state functions, the table %d", len(d.States), len(stateFuncs))
	}
	for name, f := range d.States {
		if got := stateFuncs[name].args; got != strings.Join(f.Args, " ") {
			t.Errorf("%s: table %q, Salt %q", name, got, strings.Join(f.Args, " "))
		}
	}
}
