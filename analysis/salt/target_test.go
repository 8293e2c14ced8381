package salt

import (
	"encoding/json"
	"os"
	"testing"
)

// TestTargetMatch checks top-file matching against the answers real Salt
// 3007 gave (testdata/targets.json, recorded with
// testdata/salt-matchers.py): three minions, 63 targets chosen for the
// corners TestMatcherDifferential met or the matchers' source shows:
// grains and pillar compared lower-cased (P@os:DEB matches Debian, True
// and true alike), values holding the delimiter (G@osinfo:tags:a:b), `*:`
// wildcards, list members and dicts inside lists, None, E@ anchored at
// the start only and case-sensitive, networks with host bits set (not a
// network: false), nested and recursive nodegroups, a nodegroup of bare
// names that is a regular expression, `not` after a value, operators
// first or unbalanced (false), an unknown engine (false), the empty
// target, pillar_exact and the other named matchers.
func TestTargetMatch(t *testing.T) {
	b, err := os.ReadFile("testdata/targets.json")
	if err != nil {
		t.Fatal(err)
	}
	var c struct {
		Nodegroups map[string]any `json:"nodegroups"`
		Minions    []struct {
			ID     string         `json:"id"`
			Grains map[string]any `json:"grains"`
			Pillar map[string]any `json:"pillar"`
		} `json:"minions"`
		Targets [][2]string `json:"targets"`
		Salt    []string    `json:"salt"`
	}
	if err := json.Unmarshal(b, &c); err != nil {
		t.Fatal(err)
	}
	if len(c.Salt) != len(c.Minions) {
		t.Fatalf("%d answer lines for %d minions", len(c.Salt), len(c.Minions))
	}
	for i, m := range c.Minions {
		mm := &minion{id: m.ID, grains: jsonRound(m.Grains), pillar: jsonRound(m.Pillar)}
		for j, tg := range c.Targets {
			want := c.Salt[i][j]
			got := map[tri]byte{yes: '1', no: '0', maybe: '?'}[mm.targetMatch(tg[1], tg[0], c.Nodegroups)]
			if got != want {
				t.Errorf("minion %s, target %q (match: %q): Salt %c, ours %c", m.ID, tg[1], tg[0], want, got)
			}
		}
	}
}
