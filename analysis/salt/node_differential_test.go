package salt

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/ordering-lsp/ordering-lsp/analysis"
	"github.com/ordering-lsp/ordering-lsp/analysis/analysistest"
	"github.com/ordering-lsp/ordering-lsp/source"
	"golang.org/x/tools/txtar"
)

// TestNodeDifferential compares each minion's top-file selection and
// highstate order with real Salt 3007 (opt-in; one salt-call for the top
// and one for the highstate per minion, ~5 s a minion):
//
//	SALT_HIGHSTATE=testdata/salt-highstate.py SALT_ORACLE=~/salt-oracle SALT_NODE_SEEDS=3 \
//	  go test -run TestNodeDifferential -v -timeout 1h ./analysis/salt/
//
// (SALT_NODE_FROM picks the first seed, SALT_NODE_KEEP=DIR keeps each tree,
// its minions and both answers; with SALT_NODE_REUSE=1 Salt's answers kept
// there are read again instead of running Salt.) A seed is a file root of 6 SLS files whose
// states require each other across files, some declared under Jinja
// conditions on grains and pillar, and a top file of ~12 targets drawn
// from every matcher (glob, pcre, list, grain, grain_pcre, pillar,
// pillar_pcre, pillar_exact, ipcidr, compound with G@ P@ I@ J@ L@ E@ S@,
// and/or/not, parentheses), in base and in the {saltenv: sls} form; and 8
// random minions (ids, os, roles list, nested pillar with booleans,
// numbers and lists, addresses). Per minion: `state.show_top` equals the
// SLS our top matching selects, env by env in order, and the highstate
// (`state.highstate test=True`, by __run_num__) equals our order line for
// line.
func TestNodeDifferential(t *testing.T) {
	oracle := highstateOracle(t)
	seeds, from, keep := analysistest.DiffSettings("SALT_NODE")
	minions, same := 0, 0
	for i := 0; i < seeds; i++ {
		seed := from + i
		tree, ms := genNodeTree(seed)
		dir := t.TempDir()
		if keep != "" {
			dir = filepath.Join(keep, fmt.Sprintf("seed%04d", seed))
		}
		ar := &txtar.Archive{}
		for _, f := range tree {
			ar.Files = append(ar.Files, txtar.File{Name: "salt/" + f.Name, Data: f.Data})
		}
		for _, m := range ms {
			ar.Files = append(ar.Files, minionFiles(m)...)
		}
		analysistest.WriteInputs(t, dir, ar)
		// SALT_NODE_REUSE: the answers Salt gave into SALT_NODE_KEEP before
		out, err := os.ReadFile(filepath.Join(dir, "salt.out"))
		if keep == "" || os.Getenv("SALT_NODE_REUSE") == "" || err != nil {
			out, err = exec.Command(oracle, filepath.Join(dir, "salt"), filepath.Join(dir, "minions")).Output()
			if err != nil {
				t.Fatalf("seed %d: %s: %v", seed, oracle, err)
			}
		}
		want := parseHighstateOracle(out)
		if keep != "" {
			os.WriteFile(filepath.Join(dir, "salt.out"), out, 0o644)
		}
		for _, m := range ms {
			minions++
			got := nodeAnswer(t, ar, m.id)
			if keep != "" {
				os.WriteFile(filepath.Join(dir, m.id+".ours"), []byte(got), 0o644)
			}
			if got == want[m.id] {
				same++
				continue
			}
			t.Errorf("seed %d minion %s:\n--- salt\n%s--- ours\n%s", seed, m.id, want[m.id], got)
		}
	}
	t.Logf("%d seeds, %d minions, %d identical (top selection and order)", seeds, minions, same)
}

// nodeAnswer is what we say of one minion in the oracle's format: the top
// selection (`top ENV SLS`), then the order, or `refused`.
func nodeAnswer(t *testing.T, ar *txtar.Archive, id string) string {
	t.Helper()
	ar2 := &txtar.Archive{Comment: []byte("entry: salt/top.sls\nsetting: ordering.node=" + id + "\nsetting: salt.minions=minions\n"), Files: ar.Files}
	s := New().(*System)
	got := analysistest.Load(t, s, ar2)
	var b strings.Builder
	// the selection, as our top matching makes it
	top := ar.Files[0]
	sel := nodeSelection(t, top.Data, got.Dir, id)
	b.WriteString(sel)
	if got.Refused {
		b.WriteString("refused\n")
		return b.String()
	}
	for _, l := range saltOrderSort(got.Run) {
		b.WriteString(l + "\n")
	}
	return b.String()
}

// nodeSelection runs topMatches on the top file with the minion's data
// as the analysis reads it.
func nodeSelection(t *testing.T, top []byte, dir, id string) string {
	t.Helper()
	req := &analysis.Request{Settings: analysis.Settings{"salt.minions": filepath.Join(dir, "minions")}}
	ms := loadMinions(req)
	m := ms.byID(id)
	if m == nil {
		t.Fatalf("minion %s not loaded: %v", id, ms.problems)
	}
	s := New().(*System)
	f := s.cache.parse(top, nil)
	sf := &sfile{p: f, file: &source.File{}}
	merged := mergeTops("merge", []string{"base"}, map[string][]*sfile{"base": {sf}}, "base")
	if _, _, bad := topConflict([]*sfile{sf}); bad {
		merged = nil
	}
	envs, picks, _ := topMatches(merged, &m.minion, nil, func(e string) bool { return e == "base" })
	var b strings.Builder
	for _, e := range envs {
		for _, p := range picks[e] {
			fmt.Fprintf(&b, "top %s %s\n", e, p.name)
		}
	}
	return b.String()
}

// parseHighstateOracle splits salt-highstate.py's output by minion.
func parseHighstateOracle(out []byte) map[string]string {
	res := map[string]string{}
	cur := ""
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	refused := false
	for sc.Scan() {
		l := sc.Text()
		if id, ok := strings.CutPrefix(l, "== "); ok {
			cur, refused = id, false
			continue
		}
		if refused || l == "no.None states states" {
			continue // Salt's error text; its pseudo-state for "No Top file or master_tops data matches found"
		}
		if l == "refused" {
			refused = true
		}
		res[cur] += l + "\n"
	}
	return res
}

// highstateOracle is $SALT_HIGHSTATE (testdata/salt-highstate.py), as an
// absolute path; the test is skipped without it.
func highstateOracle(t *testing.T) string {
	t.Helper()
	oracle := os.Getenv("SALT_HIGHSTATE")
	if oracle == "" {
		t.Skip("set SALT_HIGHSTATE to testdata/salt-highstate.py (needs Salt from source, see ../shared/oracle/salt-setup)")
	}
	oracle, _ = filepath.Abs(oracle)
	return oracle
}

// minionFiles is a minion's data as salt-call writes it into a minion
// data folder: minions/ID/grains.json and pillar.json.
func minionFiles(m genMinion) []txtar.File {
	g, _ := json.Marshal(map[string]any{"local": m.grains})
	p, _ := json.Marshal(map[string]any{"local": m.pillar})
	return []txtar.File{{Name: "minions/" + m.id + "/grains.json", Data: g}, {Name: "minions/" + m.id + "/pillar.json", Data: p}}
}

type genMinion struct {
	id             string
	grains, pillar map[string]any
}

// genNodeTree makes a file root with a top file of matchers, and minions.
func genNodeTree(seed int) ([]txtar.File, []genMinion) {
	r := rand.New(rand.NewSource(int64(seed)))
	pick := func(xs ...string) string { return xs[r.Intn(len(xs))] }
	// SLS files: each 1-3 states; a state may require one of an earlier
	// file (which the same minion may not get: a missing requisite then)
	nfiles := 6
	var files []txtar.File
	var declared []string
	for i := 0; i < nfiles; i++ {
		var b strings.Builder
		n := 1 + r.Intn(3)
		for j := 0; j < n; j++ {
			id := fmt.Sprintf("s%d_%d", i, j)
			cond := ""
			switch r.Intn(6) {
			case 0:
				cond = fmt.Sprintf("grains['os'] == '%s'", pick("Debian", "RedHat", "Ubuntu"))
			case 1:
				cond = fmt.Sprintf("salt['pillar.get']('app:enabled', False)")
			case 2:
				cond = fmt.Sprintf("'%s' in grains.get('roles', [])", pick("web", "db", "cache"))
			}
			if cond != "" {
				fmt.Fprintf(&b, "{%% if %s %%}\n", cond)
			}
			fun := pick("succeed_with_changes", "succeed_without_changes", "nop")
			var args strings.Builder
			if len(declared) > 0 && r.Intn(3) == 0 {
				fmt.Fprintf(&args, "    - require:\n      - test: %s\n", declared[r.Intn(len(declared))])
			}
			if r.Intn(5) == 0 {
				fmt.Fprintf(&args, "    - order: %d\n", 1+r.Intn(5))
			}
			if args.Len() == 0 {
				fmt.Fprintf(&b, "%s:\n  test.%s: []\n", id, fun)
			} else {
				fmt.Fprintf(&b, "%s:\n  test.%s:\n%s", id, fun, args.String())
			}
			if cond != "" {
				b.WriteString("{% endif %}\n")
			}
			if cond == "" {
				declared = append(declared, id)
			}
		}
		if b.Len() == 0 {
			b.WriteString("{}\n")
		}
		name := fmt.Sprintf("f%d.sls", i)
		if i%3 == 2 {
			name = fmt.Sprintf("g/f%d.sls", i)
		}
		files = append(files, txtar.File{Name: name, Data: []byte(b.String())})
	}
	sls := func() string {
		i := r.Intn(nfiles)
		if i%3 == 2 {
			return fmt.Sprintf("g.f%d", i)
		}
		return fmt.Sprintf("f%d", i)
	}
	type tgt struct{ key, match string }
	cands := []tgt{
		{"'*'", ""}, {"'web*'", ""}, {"'db0[12]'", ""}, {"'?ache*'", ""}, {"'web*'", "glob"},
		{"'os:Debian'", "grain"}, {"'roles:web'", "grain"}, {"'os:*hat'", "grain"}, {"'tier:2'", "grain"},
		{"'os:(debian|ubuntu)'", "grain_pcre"}, {"'roles:d.*'", "grain_pcre"},
		{"'app:enabled:True'", "pillar"}, {"'app:tier:front'", "pillar"}, {"'features:ssl'", "pillar"},
		{"'app:tier:fr.*'", "pillar_pcre"}, {"'app:tier:front'", "pillar_exact"}, {"'app:port:80*'", "pillar"},
		{"'web01,db02,cache03'", "list"}, {"'(web|db)0[1-3]'", "pcre"}, {"'10.0.1.0/24'", "ipcidr"},
		{"'G@os:Debian and not web*'", ""}, {"'I@app:tier:front or L@cache01,db01'", ""},
		{"'( G@roles:db or E@^web ) and not G@os:RedHat'", ""}, {"'S@10.0.0.0/24'", "compound"},
		{"'P@os:(RedHat|Ubuntu)'", ""}, {"'J@app:tier:^b'", ""}, {"'not G@os:Debian'", ""},
		{"'G@tier:1 or ( I@app:enabled:false and not L@db01 )'", ""}, {"'G@roles:*ach*'", "compound"},
		{"'I@features:*'", ""}, {"'G@ipv4:10.0.0.*'", ""},
	}
	r.Shuffle(len(cands), func(i, j int) { cands[i], cands[j] = cands[j], cands[i] })
	var top strings.Builder
	top.WriteString("base:\n")
	// 12 targets with distinct keys: a key given twice makes Salt refuse
	// the whole top file (testdata/fixtures/node_top_conflict.txtar)
	keys := map[string]bool{}
	for _, c := range cands {
		if len(keys) == 12 {
			break
		}
		if keys[c.key] {
			continue
		}
		keys[c.key] = true
		fmt.Fprintf(&top, "  %s:\n", c.key)
		if c.match != "" {
			fmt.Fprintf(&top, "    - match: %s\n", c.match)
		}
		for k := 1 + r.Intn(2); k > 0; k-- {
			if r.Intn(8) == 0 {
				fmt.Fprintf(&top, "    - base: %s\n", sls())
			} else {
				fmt.Fprintf(&top, "    - %s\n", sls())
			}
		}
	}
	out := append([]txtar.File{{Name: "top.sls", Data: []byte(top.String())}}, files...)

	var ms []genMinion
	seen := map[string]bool{}
	for len(ms) < 8 {
		id := fmt.Sprintf("%s%02d", pick("web", "db", "cache", "mail"), 1+r.Intn(3))
		if seen[id] {
			continue
		}
		seen[id] = true
		// never null: `'web' in None` is a TypeError in Salt's Jinja,
		// which the renderer does not model (it takes both branches)
		roles := []any{}
		for _, x := range []string{"web", "db", "cache"} {
			if r.Intn(2) == 0 {
				roles = append(roles, x)
			}
		}
		grains := map[string]any{
			"os":    pick("Debian", "RedHat", "Ubuntu"),
			"roles": roles,
			"tier":  1 + r.Intn(2),
			"ipv4":  []any{"127.0.0.1", fmt.Sprintf("10.0.%d.%d", r.Intn(2), 1+r.Intn(20))},
		}
		app := map[string]any{"enabled": r.Intn(2) == 0, "tier": pick("front", "back", "batch"), "port": pick("80", "8080", "443")}
		pillar := map[string]any{"app": app}
		if r.Intn(2) == 0 {
			pillar["features"] = []any{pick("ssl", "http2"), "gzip"}
		}
		ms = append(ms, genMinion{id, grains, pillar})
	}
	sort.Slice(ms, func(i, j int) bool { return ms[i].id < ms[j].id })
	return out, ms
}
