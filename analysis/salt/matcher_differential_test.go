package salt

import (
	"encoding/json"
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestMatcherDifferential compares top-file matching with Salt 3007's own
// confirm_top on random targets and minions (opt-in; one Python process
// for everything, ~2 s):
//
//	SALT_MATCHERS=testdata/salt-matchers.py SALT_ORACLE=~/salt-oracle SALT_MATCH_SEEDS=5 \
//	  go test -run TestMatcherDifferential -v ./analysis/salt/
//
// A seed is 40 minions (ids, nested grains with lists and numbers, an
// ipv4 list, nested pillar with booleans and lists) and 300 targets:
// compound expressions of up to four atoms (globs on the id, G@ P@ I@ J@
// with `:` and other delimiters and `*:` wildcards, L@, E@, S@ addresses
// and networks, N@ nodegroups, nested ones and lists of names) joined by
// and/or/not and parentheses, some malformed (an operator first, an
// unclosed parenthesis, an unknown engine, no delimiter), and every other
// matcher with a target of its kind. Every answer must be Salt's.
func TestMatcherDifferential(t *testing.T) {
	oracle := os.Getenv("SALT_MATCHERS")
	if oracle == "" {
		t.Skip("set SALT_MATCHERS to testdata/salt-matchers.py (needs Salt from source, see ../shared/oracle/salt-setup)")
	}
	oracle, _ = filepath.Abs(oracle)
	seeds := 1
	fmt.Sscan(os.Getenv("SALT_MATCH_SEEDS"), &seeds)
	total, same := 0, 0
	for seed := 0; seed < seeds; seed++ {
		ms, targets, groups := genMatcherCases(seed)
		var cases struct {
			Nodegroups map[string]any   `json:"nodegroups"`
			Minions    []map[string]any `json:"minions"`
			Targets    [][2]string      `json:"targets"`
		}
		cases.Nodegroups = groups
		cases.Targets = targets
		for _, m := range ms {
			cases.Minions = append(cases.Minions, map[string]any{"id": m.id, "grains": m.grains, "pillar": m.pillar})
		}
		b, _ := json.Marshal(cases)
		in := filepath.Join(t.TempDir(), "cases.json")
		if keep := os.Getenv("SALT_MATCH_KEEP"); keep != "" {
			in = filepath.Join(keep, fmt.Sprintf("cases%d.json", seed))
		}
		os.WriteFile(in, b, 0o644)
		out, err := exec.Command(oracle, in).Output()
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		lines := strings.Split(strings.TrimSpace(string(out)), "\n")
		if len(lines) != len(ms) {
			t.Fatalf("seed %d: %d lines for %d minions", seed, len(lines), len(ms))
		}
		for i, m := range ms {
			mm := &minion{id: m.id, grains: jsonRound(m.grains), pillar: jsonRound(m.pillar)}
			for j, tg := range targets {
				total++
				want := lines[i][j]
				var got byte
				switch mm.targetMatch(tg[1], tg[0], groups) {
				case yes:
					got = '1'
				case no:
					got = '0'
				default:
					got = '?'
				}
				if got == want {
					same++
					continue
				}
				t.Errorf("seed %d minion %s target %q (match: %s): salt %c, ours %c\n  grains %v\n  pillar %v", seed, m.id, tg[1], tg[0], want, got, m.grains, m.pillar)
			}
		}
	}
	t.Logf("%d seeds, %d (minion, target) pairs, %d identical", seeds, total, same)
}

// jsonRound reads a value back as the minion data folder gives it.
func jsonRound(m map[string]any) map[string]any {
	b, _ := json.Marshal(m)
	v, _ := decodeData("x.json", b)
	return v.(map[string]any)
}

func genMatcherCases(seed int) ([]genMinion, [][2]string, map[string]any) {
	r := rand.New(rand.NewSource(int64(seed) + 1000))
	pick := func(xs ...string) string { return xs[r.Intn(len(xs))] }
	var ms []genMinion
	seen := map[string]bool{}
	for len(ms) < 40 {
		id := fmt.Sprintf("%s%02d", pick("web", "db", "cache", "mail", "Web"), 1+r.Intn(4))
		if r.Intn(6) == 0 {
			id += "." + pick("example.com", "lan")
		}
		if seen[id] {
			continue
		}
		seen[id] = true
		roles := []any{}
		for _, x := range []string{"web", "db", "cache"} {
			if r.Intn(2) == 0 {
				roles = append(roles, x)
			}
		}
		grains := map[string]any{
			"os":      pick("Debian", "RedHat", "Ubuntu", "debian"),
			"roles":   roles,
			"tier":    1 + r.Intn(3),
			"ipv4":    []any{"127.0.0.1", fmt.Sprintf("10.0.%d.%d", r.Intn(3), 1+r.Intn(30))},
			"osinfo":  map[string]any{"family": pick("Debian", "RedHat"), "major": 10 + r.Intn(3), "tags": []any{"a:b", pick("x", "y")}},
			"virtual": pick("kvm", "physical", "VMware"),
		}
		if r.Intn(4) == 0 {
			grains["ipv6"] = []any{"::1", fmt.Sprintf("fd00::%x", 1+r.Intn(5))}
		}
		app := map[string]any{"enabled": r.Intn(2) == 0, "tier": pick("front", "back", "batch"), "port": pick("80", "8080", "443"),
			"ports": []any{80, 443}, "nested": map[string]any{"level": pick("a", "b"), "on": r.Intn(2) == 0}}
		pillar := map[string]any{"app": app}
		if r.Intn(2) == 0 {
			pillar["features"] = []any{pick("ssl", "http2"), "gzip", map[string]any{"name": pick("x", "y")}}
		}
		if r.Intn(3) == 0 {
			pillar["none"] = nil
		}
		ms = append(ms, genMinion{id, grains, pillar})
	}
	groups := map[string]any{
		"webs":    "web*",
		"dbs":     "L@db01,db02,db03",
		"deb":     "G@os:Debian and not N@dbs",
		"names":   []any{"web01", "db02", "cache03"},
		"rx":      "web0[12]",
		"nested":  "N@webs or N@dbs",
		"loop":    "N@loop or web01",
		"listing": []any{"G@os:RedHat", "or", "N@webs"},
	}
	atoms := []func() string{
		func() string {
			return pick("web*", "db0?", "*0[1-2]", "mail*", "[!w]*", "*.lan", "Web0*", "*", "cache0[!3]")
		},
		func() string {
			return "G@" + pick("os:Debian", "os:*an", "roles:web", "roles:d*", "tier:2", "ipv4:10.0.1.*", "osinfo:family:redhat",
				"osinfo:major:11", "osinfo:tags:a:b", "virtual:vm*", "osinfo:*", "*:debian", "os", "nope:x", "osinfo:tags:y")
		},
		func() string { return "G|@" + pick("osinfo|family|Debian", "os|debian", "roles|web") },
		func() string {
			return "P@" + pick("os:(Debian|Ubuntu)", "os:deb", "roles:^c", "tier:[23]", "osinfo:family:^red", "virtual:VM")
		},
		func() string {
			return "I@" + pick("app:enabled:true", "app:enabled:True", "app:tier:front", "app:tier:*a*", "features:ssl", "features:name:x",
				"app:ports:80", "app:nested:level:a", "app:nested:on:false", "app:*", "*:front", "none:None", "app:port:80*", "features:*")
		},
		func() string {
			return "J@" + pick("app:port:^80", "app:tier:(front|back)$", "features:^h", "app:nested:level:[ab]")
		},
		func() string { return "L@" + pick("web01,db02", "cache03", "web01,web02,web03", "db01.lan,db02") },
		func() string { return "E@" + pick("web0[1-3]", "^db", "(cache|mail)0[24]$", ".*lan", "Web") },
		func() string {
			return "S@" + pick("10.0.1.0/24", "10.0.0.0/16", "10.0.2.5", "127.0.0.1", "fd00::/64", "10.0.1.1/24", "fd00::2")
		},
		func() string {
			return "N@" + pick("webs", "dbs", "deb", "names", "rx", "nested", "loop", "listing", "missing")
		},
	}
	var expr func(depth int) string
	expr = func(depth int) string {
		if depth > 2 || r.Intn(3) == 0 {
			a := atoms[r.Intn(len(atoms))]()
			if r.Intn(5) == 0 {
				a = "not " + a
			}
			return a
		}
		l, rr := expr(depth+1), expr(depth+1)
		e := l + " " + pick("and", "or") + " " + rr
		if r.Intn(2) == 0 {
			e = "( " + e + " )"
		}
		if r.Intn(6) == 0 {
			e = "not " + e
		}
		return e
	}
	var targets [][2]string
	for len(targets) < 300 {
		switch r.Intn(10) {
		case 0:
			targets = append(targets, [2]string{pick("glob", "pcre", "list"), pick("web*", "web0[12]", "db01,web02", "^web", "db.*", "Web01", "cache03.lan")})
		case 1:
			targets = append(targets, [2]string{pick("grain", "grain_pcre"), pick("os:Debian", "roles:web", "os:(red|deb).*", "osinfo:major:1[01]", "tier:2", "osinfo:tags:a:b")})
		case 2:
			targets = append(targets, [2]string{pick("pillar", "pillar_pcre", "pillar_exact"), pick("app:enabled:true", "app:tier:front", "app:tier:fr.*", "features:ssl", "app:port:80", "app:nested:on:True")})
		case 3:
			targets = append(targets, [2]string{pick("ipcidr", "nodegroup"), pick("10.0.1.0/24", "10.0.0.7", "webs", "deb", "names", "nested", "missing", "listing", "fd00::/64")})
		case 4:
			targets = append(targets, [2]string{pick("", "compound"), pick("and web*", "( and web*", "web* (", "not", "R@x", "( web* or db* ) )", "web* db*", "( not web* )", "G@os", "not not web*", "")})
		default:
			targets = append(targets, [2]string{pick("", "", "compound"), expr(0)})
		}
	}
	return ms, targets, groups
}
