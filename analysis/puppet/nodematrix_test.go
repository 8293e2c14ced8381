package puppet_test

import (
	"context"
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ordering-lsp/ordering-lsp/analysis"
	"github.com/ordering-lsp/ordering-lsp/analysis/puppet"
	"github.com/ordering-lsp/ordering-lsp/source"
)

// genControlRepo writes a control repository of roles and profiles whose
// verdicts depend on the platform, as real ones do: package names chosen
// by os.family, a class named after the OS family that exists for one
// family only, relationships that close a cycle on one release, a
// relationship to a resource only some platforms declare, Hiera data by
// family and release feeding class parameters (two profiles asking for
// one package on one family: a duplicate declaration there), facts from
// several branches of the facter schema (processors, memory, networking,
// kernel). Every role includes 2-4 profiles. Deterministic for a seed.
func genControlRepo(dir string, seed int64, roles, profiles int) error {
	rng := rand.New(rand.NewSource(seed))
	files := map[string]string{
		"environment.conf": "modulepath = site-modules:modules\n",
		"Puppetfile":       "forge 'https://forge.puppet.com'\n",
		"hiera.yaml": `version: 5
defaults:
  datadir: data
  data_hash: yaml_data
hierarchy:
  - name: release
    path: "os/%{facts.os.family}/%{facts.os.release.major}.yaml"
  - name: family
    path: "os/%{facts.os.family}.yaml"
  - name: common
    path: common.yaml
`,
		"manifests/site.pp": "node default { }\n",
	}
	data := map[string][]string{} // data file -> lines
	fam := []string{"Debian", "RedHat"}
	rel := map[string][]string{"Debian": {"11", "12", "22.04"}, "RedHat": {"8", "9"}}
	for p := 0; p < profiles; p++ {
		var b strings.Builder
		name := fmt.Sprintf("profile::p%d", p)
		kind := rng.Intn(8)
		switch kind {
		case 0: // package by family, config requiring it
			fmt.Fprintf(&b, "class %s {\n  $pkg = $facts['os']['family'] ? { 'RedHat' => 'httpd%d', default => 'apache%d' }\n", name, p, p)
			fmt.Fprintf(&b, "  package { $pkg: ensure => installed }\n  file { '/etc/p%d.conf': ensure => file, content => \"p%d\", require => Package[$pkg] }\n}\n", p, p)
		case 1: // a class per family, one family missing
			f := fam[rng.Intn(2)]
			fmt.Fprintf(&b, "class %s {\n  include \"%s::${facts['os']['family'].downcase}\"\n  notify { 'p%d': }\n}\n", name, name, p)
			files[fmt.Sprintf("site-modules/profile/manifests/p%d/%s.pp", p, strings.ToLower(f))] = fmt.Sprintf("class %s::%s {\n  notify { 'p%d %s': }\n}\n", name, strings.ToLower(f), p, f)
		case 2: // a cycle on one release
			f := fam[rng.Intn(2)]
			r := rel[f][rng.Intn(len(rel[f]))]
			fmt.Fprintf(&b, "class %s {\n  file { '/etc/p%d': ensure => directory }\n  package { 'pkg%d': }\n  Package['pkg%d'] -> File['/etc/p%d']\n", name, p, p, p, p)
			fmt.Fprintf(&b, "  if $facts['os']['family'] == '%s' and $facts['os']['release']['major'] == '%s' {\n    File['/etc/p%d'] -> Package['pkg%d']\n  }\n}\n", f, r, p, p)
		case 3: // a relationship to what only some platforms declare
			n := []string{"Ubuntu", "Debian", "RedHat"}[rng.Intn(3)]
			fmt.Fprintf(&b, "class %s {\n  if $facts['os']['name'] == '%s' {\n    package { 'extra%d': }\n  }\n  notify { 'p%d': require => Package['extra%d'] }\n}\n", name, n, p, p, p)
		case 4: // Hiera data by family and release into a parameter
			fmt.Fprintf(&b, "class %s (Array[String] $packages = []) {\n  $packages.each |$x| {\n    package { $x: }\n  }\n  notify { \"p%d ${packages.length}\": }\n}\n", name, p)
			data["common.yaml"] = append(data["common.yaml"], fmt.Sprintf("%s::packages:\n  - base%d", name, p))
			f := fam[rng.Intn(2)]
			shared := fmt.Sprintf("shared%d", rng.Intn(2))
			data["os/"+f+".yaml"] = append(data["os/"+f+".yaml"], fmt.Sprintf("%s::packages:\n  - fam%d\n  - %s", name, p, shared))
			r := rel[f][rng.Intn(len(rel[f]))]
			data["os/"+f+"/"+r+".yaml"] = append(data["os/"+f+"/"+r+".yaml"], fmt.Sprintf("%s::packages:\n  - rel%d", name, p))
		case 5: // case on the OS name, with a default
			fmt.Fprintf(&b, "class %s {\n  case $facts['os']['name'] {\n    'Ubuntu': { $svc = 'u%d' }\n    'RedHat', 'CentOS': { $svc = 'r%d' }\n    default: { $svc = 'd%d' }\n  }\n", name, p, p, p)
			fmt.Fprintf(&b, "  notify { \"svc ${svc}\": }\n  file { \"/etc/${svc}\": ensure => file, before => Notify[\"svc ${svc}\"] }\n}\n")
		case 6: // sized by the hardware: numbers and nested facts
			fmt.Fprintf(&b, "class %s {\n  if $facts['processors']['count'] > 4 {\n    notify { 'p%d big': }\n  } else {\n    notify { 'p%d small': }\n  }\n", name, p, p)
			fmt.Fprintf(&b, "  file { \"/etc/p%d-${facts['networking']['hostname']}\": ensure => file }\n  notify { \"p%d ${facts['kernel']} ${facts['os']['release']['full']}\": }\n}\n", p, p)
		case 7: // releases in a list
			f := fam[rng.Intn(2)]
			rs := rel[f]
			fmt.Fprintf(&b, "class %s {\n  if $facts['os']['release']['major'] in ['%s'] {\n    package { 'legacy%d': }\n    Package['legacy%d'] -> Notify['p%d']\n  }\n  notify { 'p%d': }\n}\n", name, strings.Join(rs[:1+rng.Intn(len(rs))], "', '"), p, p, p, p)
		}
		files[fmt.Sprintf("site-modules/profile/manifests/p%d.pp", p)] = b.String()
	}
	for r := 0; r < roles; r++ {
		var b strings.Builder
		fmt.Fprintf(&b, "class role::r%d {\n", r)
		seen := map[int]bool{}
		for i, n := 0, 2+rng.Intn(3); i < n; i++ {
			p := rng.Intn(profiles)
			if !seen[p] {
				seen[p] = true
				fmt.Fprintf(&b, "  include profile::p%d\n", p)
			}
		}
		b.WriteString("}\n")
		files[fmt.Sprintf("site-modules/role/manifests/r%d.pp", r)] = b.String()
	}
	for f, ls := range data {
		files["data/"+f] = "---\n" + strings.Join(ls, "\n") + "\n"
	}
	for p, text := range files {
		fp := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(fp), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(fp, []byte(text), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// TestNodeMatrixVersusPuppet (opt-in: PUPPET_MATRIX=1, needs puppet):
// the role x fact-set matrix of a generated control repository, from
// one analysis per fact set (testdata/factsets: five platforms), against
// `puppet apply --noop -e 'include role::rN'` under the same facts (the
// yaml facts terminus) for every role and fact set. The verdict (the
// catalog is refused: compile error, duplicate, missing target, cycle)
// must be the same for every cell; the test prints both times and their
// ratio. PUPPET_MATRIX_ROLES / _PROFILES / _SEED / _JOBS change the size.
func TestNodeMatrixVersusPuppet(t *testing.T) {
	if os.Getenv("PUPPET_MATRIX") == "" {
		t.Skip("set PUPPET_MATRIX=1 (needs puppet 7 installed)")
	}
	if _, err := exec.LookPath("puppet"); err != nil {
		t.Skip("puppet not installed")
	}
	num := func(k string, def int) int {
		if n, err := strconv.Atoi(os.Getenv(k)); err == nil {
			return n
		}
		return def
	}
	roles, profiles, seed, jobs := num("PUPPET_MATRIX_ROLES", 12), num("PUPPET_MATRIX_PROFILES", 24), num("PUPPET_MATRIX_SEED", 1), num("PUPPET_MATRIX_JOBS", 2)
	tmp, _ := filepath.EvalSymlinks(t.TempDir())
	repo := filepath.Join(tmp, "envs", "production")
	if err := genControlRepo(repo, int64(seed), roles, profiles); err != nil {
		t.Fatal(err)
	}
	factsDir, _ := filepath.Abs(filepath.Join("testdata", "factsets"))

	// ordering-lsp: every run under every fact set, as check does.
	start := time.Now()
	ws := source.NewWorkspace(repo)
	in := analysis.Input{Ctx: context.Background(), Workspace: ws, Settings: analysis.Settings{"puppet.facts": factsDir}, Once: true, DiagnosticsOnly: true}
	sys := puppet.New()
	files := analysis.Files([]analysis.System{sys}, in)[sys]
	res, m := analysis.AnalyzeNodes(sys, in, files)
	ours := time.Since(start)
	if m == nil {
		t.Fatal("no fact sets")
	}

	// Puppet: one `puppet apply --noop` per role and fact set.
	yamlDir := filepath.Join(tmp, "yaml")
	os.MkdirAll(filepath.Join(yamlDir, "facts"), 0o755)
	for _, n := range m.Nodes {
		p := source.URIToPath(n.At.URI)
		text, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		// {"name": .., "values": {..}} is YAML too; the tag makes it the
		// object Puppet's yaml terminus reads.
		y := "--- !ruby/object:Puppet::Node::Facts\n" + string(text)
		if err := os.WriteFile(filepath.Join(yamlDir, "facts", n.Name+".yaml"), []byte(y), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	type cell struct {
		role, node string
		refused    bool
		out        string
	}
	var cells []*cell
	for r := 0; r < roles; r++ {
		for _, n := range m.Nodes {
			cells = append(cells, &cell{role: fmt.Sprintf("role::r%d", r), node: n.Name})
		}
	}
	start = time.Now()
	var wg sync.WaitGroup
	next := make(chan *cell)
	for range jobs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for c := range next {
				d, _ := os.MkdirTemp(tmp, "puppet")
				cmd := exec.Command("puppet", "apply", "--noop", "--detailed-exitcodes", "--color=false",
					"--environmentpath", filepath.Join(tmp, "envs"), "--environment", "production",
					"--certname", c.node, "--facts_terminus", "yaml", "--clientyamldir", yamlDir,
					"--confdir", d+"/c", "--vardir", d+"/v", "--codedir", d+"/cd", "--logdir", d+"/l", "--rundir", d+"/r", "--ssldir", d+"/s",
					"-e", "include "+c.role)
				out, err := cmd.CombinedOutput()
				code := 0
				if ee, ok := err.(*exec.ExitError); ok {
					code = ee.ExitCode()
				}
				c.refused = code == 1
				c.out = string(out)
				os.RemoveAll(d)
			}
		}()
	}
	for _, c := range cells {
		next <- c
	}
	close(next)
	wg.Wait()
	theirs := time.Since(start)

	agree, refusedBoth := 0, 0
	var table []string
	for _, c := range cells {
		run := "class " + c.role
		if !m.Present[run][c.node] {
			t.Errorf("%s: no run %q", c.node, run)
			continue
		}
		our := m.Refused[run][c.node]
		if our == c.refused {
			agree++
			if our {
				refusedBoth++
			}
			continue
		}
		var why []string
		for _, d := range res.Diags {
			if d.Severity == analysis.Error && containsStr(d.Nodes, c.node) {
				why = append(why, d.Message)
			}
		}
		var perr []string
		for _, l := range strings.Split(c.out, "\n") {
			if strings.Contains(l, "Error") {
				perr = append(perr, l)
			}
		}
		t.Errorf("%s on %s: ordering-lsp refused=%v, puppet refused=%v\n  puppet: %s\n  ours (errors on this node, any run): %s", c.role, c.node, our, c.refused, strings.Join(perr, " | "), strings.Join(why, " | "))
	}
	for r := 0; r < roles; r++ {
		role := fmt.Sprintf("role::r%d", r)
		row := fmt.Sprintf("%-10s", role)
		for _, n := range m.Nodes {
			mark := "."
			if m.Refused["class "+role][n.Name] {
				mark = "x"
			}
			row += " " + mark
		}
		table = append(table, row)
	}
	sort.Strings(table)
	var names []string
	for _, n := range m.Nodes {
		names = append(names, n.Name+" ("+n.Detail+")")
	}
	t.Logf("fact sets: %s", strings.Join(names, ", "))
	t.Logf("roles x fact sets (x: refused):\n%s", strings.Join(table, "\n"))
	t.Logf("%d roles x %d fact sets = %d cells: %d same verdict (%d refused by both), %d differ", roles, len(m.Nodes), len(cells), agree, refusedBoth, len(cells)-agree)
	t.Logf("time: ordering-lsp %v (%d runs x %d fact sets, %d problems), puppet apply --noop %v (%d processes, %d at a time): %.0fx",
		ours.Round(time.Millisecond), len(m.Runs), len(m.Nodes), len(res.Diags), theirs.Round(time.Millisecond), len(cells), jobs, float64(theirs)/float64(ours))
}

func containsStr(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}
