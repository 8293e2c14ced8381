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

	"golang.org/x/tools/txtar"

	"github.com/ordering-lsp/ordering-lsp/analysis/analysistest"
)

// TestTopStrategyDifferential compares each minion's highstate with real
// Salt 3007 when several saltenvs have top files and the master says how
// they merge (opt-in, as TestNodeDifferential):
//
//	SALT_HIGHSTATE=testdata/salt-highstate.py SALT_ORACLE=~/salt-oracle SALT_TOPS_SEEDS=20 \
//	  go test -run TestTopStrategyDifferential -v -timeout 1h ./analysis/salt/
//
// A seed is three saltenvs (base, dev, prod), each a file root of two SLS
// files; base always has a top file, dev and prod sometimes; every top file
// has sections for some saltenvs (its own or others), with targets that
// repeat across files (what merge_all unites and merge replaces); the
// master's top_file_merging_strategy is merge, same, merge_all or unset,
// with or without env_order and default_top. The configuration is a
// `master` file in the workspace (what the analysis reads) and the same
// options given to salt-call. Per minion, the highstate order must equal
// Salt's line for line.
func TestTopStrategyDifferential(t *testing.T) {
	oracle := highstateOracle(t)
	seeds, from, keep := analysistest.DiffSettings("SALT_TOPS")
	minions, same := 0, 0
	kinds := map[string]int{} // seeds per strategy, and with env_order / default_top
	for i := 0; i < seeds; i++ {
		seed := from + i
		ar, conf, ids := genTopStrategyTree(seed)
		for _, k := range []string{"merge_all", "same", "merge\"", "env_order", "default_top"} {
			if strings.Contains(conf, k) {
				kinds[strings.Trim(k, "\"")]++
			}
		}
		dir := t.TempDir()
		if keep != "" {
			dir = filepath.Join(keep, fmt.Sprintf("seed%04d", seed))
			os.MkdirAll(dir, 0o755)
		}
		dir, _ = filepath.EvalSymlinks(dir)
		rooted := &txtar.Archive{}
		for _, f := range ar.Files {
			rooted.Files = append(rooted.Files, txtar.File{Name: f.Name, Data: []byte(strings.ReplaceAll(string(f.Data), "$ROOT", dir))})
		}
		analysistest.WriteInputs(t, dir, rooted)
		extra := filepath.Join(dir, "extra.json")
		os.WriteFile(extra, []byte(strings.ReplaceAll(conf, "$ROOT", dir)), 0o644)
		cmd := exec.Command(oracle, filepath.Join(dir, "salt", "base"), filepath.Join(dir, "minions"))
		cmd.Env = append(os.Environ(), "SALT_EXTRA_CONF="+extra)
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("seed %d: %s: %v", seed, oracle, err)
		}
		want := parseHighstateOracle(out)
		for _, id := range ids {
			minions++
			ar2 := &txtar.Archive{Comment: []byte("entry: salt/base/top.sls\nsetting: ordering.node=" + id + "\nsetting: salt.minions=minions\n"), Files: ar.Files}
			got := analysistest.Load(t, New(), ar2)
			var b strings.Builder
			if got.Refused {
				b.WriteString("refused\n")
			} else {
				for _, l := range saltOrderSort(got.Run) {
					b.WriteString(l + "\n")
				}
			}
			var w strings.Builder
			for _, l := range strings.SplitAfter(want[id], "\n") {
				if !strings.HasPrefix(l, "top ") {
					w.WriteString(l)
				}
			}
			if b.String() == w.String() {
				same++
				continue
			}
			t.Errorf("seed %d minion %s (%s):\n--- salt\n%s--- ours\n%s", seed, id, conf, want[id], b.String())
		}
	}
	t.Logf("%d seeds (strategy given: %v), %d minions, %d identical highstates", seeds, kinds, minions, same)
}

// genTopStrategyTree: the workspace (salt/ENV/..., a master file naming
// $ROOT paths, minions/), the same options as salt-call's JSON, the
// minion ids.
func genTopStrategyTree(seed int) (*txtar.Archive, string, []string) {
	r := rand.New(rand.NewSource(int64(seed)))
	envs := []string{"base", "dev", "prod"}
	ar := &txtar.Archive{}
	for _, env := range envs {
		for _, f := range []string{"a", "b"} {
			var b strings.Builder
			for j := 0; j < 1+r.Intn(2); j++ {
				fmt.Fprintf(&b, "%s_%s_%d:\n  test.nop: []\n", env, f, j)
			}
			ar.Files = append(ar.Files, txtar.File{Name: "salt/" + env + "/" + f + ".sls", Data: []byte(b.String())})
		}
	}
	targets := []struct{ key, match string }{{"'*'", ""}, {"'web*'", ""}, {"'db*'", ""}, {"'roles:web'", "grain"}}
	for k, env := range envs {
		if k > 0 && r.Intn(3) == 0 {
			continue // no top file in this saltenv
		}
		var b strings.Builder
		for _, sec := range envs {
			if sec != env && r.Intn(2) == 0 || sec == env && r.Intn(5) == 0 {
				continue
			}
			fmt.Fprintf(&b, "%s:\n", sec)
			used := map[string]bool{}
			for n := 1 + r.Intn(3); n > 0; n-- {
				tg := targets[r.Intn(len(targets))]
				if used[tg.key] {
					continue
				}
				used[tg.key] = true
				fmt.Fprintf(&b, "  %s:\n", tg.key)
				if tg.match != "" {
					fmt.Fprintf(&b, "    - match: %s\n", tg.match)
				}
				for m := 1 + r.Intn(2); m > 0; m-- {
					fmt.Fprintf(&b, "    - %s\n", []string{"a", "b"}[r.Intn(2)])
				}
			}
		}
		if b.Len() == 0 {
			b.WriteString("{}\n")
		}
		ar.Files = append(ar.Files, txtar.File{Name: "salt/" + env + "/top.sls", Data: []byte(b.String())})
	}
	opts := map[string]any{"file_roots": map[string]any{}}
	for _, env := range envs {
		opts["file_roots"].(map[string]any)[env] = []string{"$ROOT/salt/" + env}
	}
	if s := []string{"", "merge", "same", "merge_all"}[r.Intn(4)]; s != "" {
		opts["top_file_merging_strategy"] = s
	}
	if r.Intn(3) == 0 {
		order := append([]string(nil), envs...)
		r.Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
		opts["env_order"] = order[:2+r.Intn(2)]
	}
	if r.Intn(3) == 0 {
		opts["default_top"] = envs[r.Intn(3)]
	}
	conf, _ := json.Marshal(opts)
	ar.Files = append(ar.Files, txtar.File{Name: "salt/master", Data: conf})
	var ids []string
	for _, id := range []string{"web01", "db01"} {
		roles := []string{}
		if id == "web01" || r.Intn(2) == 0 {
			roles = append(roles, "web")
		}
		ar.Files = append(ar.Files, minionFiles(genMinion{id: id, grains: map[string]any{"roles": roles, "os": "Debian"}, pillar: map[string]any{}})...)
		ids = append(ids, id)
	}
	return ar, string(conf), ids
}
