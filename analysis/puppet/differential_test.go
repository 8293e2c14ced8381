package puppet_test

import (
	"context"
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ordering-lsp/ordering-lsp/analysis"
	"github.com/ordering-lsp/ordering-lsp/analysis/analysistest"
	"github.com/ordering-lsp/ordering-lsp/analysis/puppet"
	"github.com/ordering-lsp/ordering-lsp/source"
)

// TestDifferential compares the analysis with the real Puppet on random
// manifests (opt-in: it runs `puppet apply` once per seed, ~2.5 s each):
//
//	PUPPET_ORACLE=/work/shared/oracle/puppet-order PUPPET_DIFF_SEEDS=200 \
//	  go test -run TestDifferential -v -timeout 1h ./analysis/puppet/
//
// (PUPPET_DIFF_FROM picks the first seed, PUPPET_DIFF_KEEP=DIR keeps every
// manifest and both answers; PUPPET_DIFF_GEN=defaults tests resource
// defaults instead, genDefaultsManifest.) Each manifest tests custom facts (given to
// Puppet as FACTER_* variables) in if/unless/case, with opposite arrows in
// arms that exclude each other, and has defines, virtual resources realized
// by realize() and collectors, tag collectors, and a run stage. Two
// checks per seed:
//
//   - with the same facts (puppet.facts), our order is Puppet's, line for
//     line, or Puppet refuses with a cycle and so do we;
//   - without facts (every fact unknown), we report no cycle as an error
//     unless Puppet refuses (an error claims every run has it), and when
//     Puppet refuses with a cycle we report one (a warning at least).
func TestDifferential(t *testing.T) {
	oracle := os.Getenv("PUPPET_ORACLE")
	if oracle == "" {
		t.Skip("set PUPPET_ORACLE to /work/shared/oracle/puppet-order (needs puppet installed)")
	}
	seeds, from, keep := analysistest.DiffSettings("PUPPET_DIFF")
	gen := os.Getenv("PUPPET_DIFF_GEN") // "defaults": genDefaultsManifest
	type outcome struct {
		seed        int
		refused     bool
		orderOK     bool
		unknownOK   bool
		detail      string
		conditional int // cycles reported as warnings without facts
	}
	results := make([]outcome, seeds)
	analysistest.OnSeeds(seeds, func(i int) {
		seed := from + i
		m, facts := genRandomManifest(seed)
		if gen == "defaults" {
			m, facts = genDefaultsManifest(seed)
		}
		dir := t.TempDir()
		if keep != "" {
			dir = filepath.Join(keep, fmt.Sprintf("seed%04d", seed))
			os.MkdirAll(dir, 0o755)
		}
		pp := filepath.Join(dir, "site.pp")
		os.WriteFile(pp, []byte(m), 0o644)
		var fy strings.Builder
		env := os.Environ()
		for k, v := range facts {
			fmt.Fprintf(&fy, "%s: %s\n", k, v)
			env = append(env, "FACTER_"+k+"="+v)
		}
		os.WriteFile(filepath.Join(dir, "facts.yaml"), []byte(fy.String()), 0o644)
		cmd := exec.Command(oracle, pp)
		cmd.Env = env
		out, _ := cmd.Output()
		want := strings.TrimRight(string(out), "\n")
		if keep != "" {
			os.WriteFile(filepath.Join(dir, "puppet.order"), out, 0o644)
		}
		o := outcome{seed: seed, refused: strings.HasPrefix(want, "ERROR:")}
		if o.refused && !strings.Contains(want, "dependency cycle") {
			o.detail = "puppet refused for another reason (generator bug): " + want
			results[i] = o
			return
		}
		// With Puppet's facts.
		run, diags := analyseEntry(dir, pp, analysis.Settings{"puppet.facts": filepath.Join(dir, "facts.yaml")})
		if run == nil {
			run = &analysis.Run{}
		}
		var got []string
		for _, s := range run.Steps {
			got = append(got, s.Label)
		}
		if o.refused {
			o.orderOK = run.Refused && hasCycle(diags, analysis.Error)
		} else {
			o.orderOK = !run.Refused && strings.Join(got, "\n") == want
		}
		if !o.orderOK {
			o.detail = fmt.Sprintf("with facts:\n--- puppet\n%s\n--- ours (refused %v)\n%s\n%s", want, run.Refused, strings.Join(got, "\n"), diagText(diags))
		}
		// Without facts.
		_, udiags := analyseEntry(dir, pp, nil)
		for _, d := range udiags {
			if d.Code == "cycle" && d.Severity == analysis.Warning {
				o.conditional++
			}
		}
		if o.refused {
			o.unknownOK = hasCycle(udiags, analysis.Warning) || hasCycle(udiags, analysis.Error)
		} else {
			o.unknownOK = !hasCycle(udiags, analysis.Error)
		}
		if !o.unknownOK {
			o.detail += fmt.Sprintf("\nwithout facts (puppet refused: %v):\n%s", o.refused, diagText(udiags))
		}
		results[i] = o
	})
	var refused, orderBad, unknownBad, cond int
	for _, o := range results {
		if o.refused {
			refused++
		}
		if !o.orderOK {
			orderBad++
		}
		if !o.unknownOK {
			unknownBad++
		}
		cond += o.conditional
		if !o.orderOK || !o.unknownOK {
			t.Errorf("seed %d: %s", o.seed, o.detail)
		}
	}
	t.Logf("%d seeds from %d: puppet refused %d (cycles); order/refusal differs with facts: %d; wrong without facts: %d; conditional cycle warnings without facts: %d",
		seeds, from, refused, orderBad, unknownBad, cond)
}

func hasCycle(ds []analysis.Diagnostic, sev analysis.Severity) bool {
	for _, d := range ds {
		if d.Code == "cycle" && d.Severity == sev {
			return true
		}
	}
	return false
}

func diagText(ds []analysis.Diagnostic) string {
	var b strings.Builder
	for _, d := range ds {
		fmt.Fprintf(&b, "  %v %s: %s\n", d.Severity, d.Code, strings.ReplaceAll(d.Message, "\n", " "))
	}
	return b.String()
}

// analyseEntry is `puppet apply path` in dir: its run (nil if none) and
// every diagnostic.
func analyseEntry(dir, path string, settings analysis.Settings) (*analysis.Run, []analysis.Diagnostic) {
	ws := source.NewWorkspace(dir)
	entry := source.PathToURI(path)
	in := analysis.Input{Ctx: context.Background(), Workspace: ws, Entry: entry, Settings: settings}
	sys := puppet.New()
	files := analysis.Files([]analysis.System{sys}, in)[sys]
	res := analysis.Analyze(sys, in, files)
	for i := range res.Runs {
		if res.Runs[i].Entry == entry {
			return &res.Runs[i], res.Diags
		}
	}
	return nil, res.Diags
}

// genRandomManifest writes a random manifest and the custom facts Puppet
// is given for it. Relationships follow one random linear order of the
// things they join (so a run that takes no "reversed" arm has no cycle),
// except arms that reverse an arrow: `if $facts['f0'] == 'a' { A -> B }
// else { B -> A }`, which make a real cycle only in runs where some
// other path also joins A to B.
func genRandomManifest(seed int) (string, map[string]string) {
	rng := rand.New(rand.NewSource(int64(seed)))
	vals := []string{"a", "b", "c"}
	facts := map[string]string{}
	nf := 1 + rng.Intn(3)
	for i := 0; i < nf; i++ {
		facts[fmt.Sprintf("gen_f%d", i)] = vals[rng.Intn(3)]
	}
	fact := func() string { return fmt.Sprintf("$facts['gen_f%d']", rng.Intn(nf)) }
	val := func() string { return "'" + vals[rng.Intn(3)] + "'" }

	var b strings.Builder
	// Things that can be related, in their linear order: a ref and the
	// container it sits in ("" for main code).
	type thing struct{ ref, in string }
	var things []thing

	// A run stage before main, with one class in it.
	stage := rng.Intn(3) == 0
	if stage {
		b.WriteString("stage { 'pre': before => Stage['main'] }\n")
		b.WriteString("class early { notify { 'early-1': } notify { 'early-2': } }\n")
		b.WriteString("class { 'early': stage => 'pre' }\n")
		things = append(things, thing{"Notify['early-1']", "early"}, thing{"Notify['early-2']", "early"})
	}
	// Defines, with a reversing arm inside on a parameter from a fact.
	nd := rng.Intn(3)
	for d := 0; d < nd; d++ {
		fmt.Fprintf(&b, "define d%d($mode = 'a') {\n  notify { \"${title}-m0\": }\n  notify { \"${title}-m1\": }\n", d)
		if rng.Intn(2) == 0 {
			b.WriteString("  if $mode == 'a' { Notify[\"${title}-m0\"] -> Notify[\"${title}-m1\"] }\n  else { Notify[\"${title}-m1\"] -> Notify[\"${title}-m0\"] }\n")
		}
		b.WriteString("}\n")
	}
	// Classes of a few notifies.
	nc := 1 + rng.Intn(3)
	for c := 0; c < nc; c++ {
		fmt.Fprintf(&b, "class c%d {\n", c)
		k := 1 + rng.Intn(3)
		for j := 0; j < k; j++ {
			fmt.Fprintf(&b, "  notify { 'c%d-%d': }\n", c, j)
		}
		b.WriteString("}\n")
	}
	// Main code: class declarations, define instances (some virtual), notifies.
	var order []thing // main things and classes, shuffled below
	for c := 0; c < nc; c++ {
		switch rng.Intn(3) {
		case 0:
			fmt.Fprintf(&b, "include c%d\n", c)
		case 1:
			fmt.Fprintf(&b, "contain c%d\n", c)
		default:
			fmt.Fprintf(&b, "class { 'c%d': }\n", c)
		}
		order = append(order, thing{fmt.Sprintf("Class['c%d']", c), ""})
	}
	for d := 0; d < nd; d++ {
		ni := 1 + rng.Intn(2)
		for i := 0; i < ni; i++ {
			title := fmt.Sprintf("d%di%d", d, i)
			mode := "'a'"
			if rng.Intn(2) == 0 {
				mode = fmt.Sprintf("%s ? { %s => 'a', default => 'b' }", fact(), val())
			}
			switch rng.Intn(4) {
			case 0:
				fmt.Fprintf(&b, "@d%d { '%s': mode => %s }\nrealize(D%d['%s'])\n", d, title, mode, d, title)
			case 1:
				fmt.Fprintf(&b, "@d%d { '%s': mode => %s }\nD%d <| title == '%s' |>\n", d, title, mode, d, title)
			default:
				fmt.Fprintf(&b, "d%d { '%s': mode => %s }\n", d, title, mode)
			}
			order = append(order, thing{fmt.Sprintf("D%d['%s']", d, title), ""})
		}
	}
	nn := 2 + rng.Intn(5)
	for i := 0; i < nn; i++ {
		if rng.Intn(5) == 0 {
			fmt.Fprintf(&b, "@notify { 'n%d': }\n", i)
			if rng.Intn(2) == 0 {
				fmt.Fprintf(&b, "realize(Notify['n%d'])\n", i)
			} else {
				fmt.Fprintf(&b, "Notify <| title == 'n%d' |>\n", i)
			}
		} else {
			fmt.Fprintf(&b, "notify { 'n%d': }\n", i)
		}
		order = append(order, thing{fmt.Sprintf("Notify['n%d']", i), ""})
	}
	rng.Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
	things = append(things, order...)

	// Relationships, low to high in the linear order.
	arrow := func() (string, bool) {
		switch rng.Intn(4) {
		case 0:
			return "~>", false
		case 1:
			return "<-", true
		default:
			return "->", false
		}
	}
	chain := func(x, y thing) string {
		op, back := arrow()
		if back {
			return y.ref + " " + op + " " + x.ref
		}
		return x.ref + " " + op + " " + y.ref
	}
	nr := 1 + rng.Intn(6)
	for r := 0; r < nr && len(things) >= 2; r++ {
		i := rng.Intn(len(things) - 1)
		j := i + 1 + rng.Intn(len(things)-i-1)
		x, y := things[i], things[j]
		if x.in != "" && x.in == y.in {
			continue
		}
		switch rng.Intn(6) {
		case 0:
			fmt.Fprintf(&b, "if %s == %s { %s }\nelse { %s }\n", fact(), val(), chain(x, y), chain(y, x))
		case 1:
			fmt.Fprintf(&b, "unless %s == %s { %s }\n", fact(), val(), chain(x, y))
		case 2:
			fmt.Fprintf(&b, "case %s {\n  %s: { %s }\n  %s, %s: { %s }\n  default: {}\n}\n", fact(), "'a'", chain(x, y), "'b'", "'c'", chain(y, x))
		default:
			b.WriteString(chain(x, y) + "\n")
		}
	}
	// Tag collectors into sinks nothing else touches.
	if nd > 0 && rng.Intn(2) == 0 {
		b.WriteString("notify { 'sink': }\nNotify <| tag == 'd0' |> -> Notify['sink']\n")
	}
	if rng.Intn(3) == 0 {
		b.WriteString("notify { 'sink2': }\nNotify <| tag == 'c0' |> -> Notify['sink2']\n")
	}
	return b.String(), facts
}

// genDefaultsManifest writes a manifest about when resource defaults
// reach a resource (Puppet 7 looks them up when it creates it): Notify
// defaults carrying require/before to execs, written between resources
// at top scope, in classes (included before or after them) and in define
// bodies; defaults for a defined type's parameter, before and after its
// instances; collectors with override blocks. Only notifies get
// relationship defaults and only execs are their targets (a notify may
// still get require and before of one exec from two scopes: Puppet
// refuses that cycle, and so must we).
func genDefaultsManifest(seed int) (string, map[string]string) {
	rng := rand.New(rand.NewSource(int64(seed)))
	var b strings.Builder
	ne := 2 + rng.Intn(3)
	exec := func() string { return fmt.Sprintf("Exec['e%d']", rng.Intn(ne)) }
	meta := func() string { return []string{"require", "before"}[rng.Intn(2)] }
	notifyDefault := func(indent string) string {
		return fmt.Sprintf("%sNotify { %s => %s }\n", indent, meta(), exec())
	}
	// Defines: a parameter the notify's title shows, sometimes a default
	// statement between two of the body's notifies.
	nd := 1 + rng.Intn(2)
	for d := 0; d < nd; d++ {
		fmt.Fprintf(&b, "define d%d($p = 'a') {\n  notify { \"${title}-${p}-1\": }\n", d)
		if rng.Intn(2) == 0 {
			b.WriteString(notifyDefault("  "))
		}
		b.WriteString("  notify { \"${title}-2\": }\n}\n")
	}
	inst := 0
	instance := func(indent string) string {
		inst++
		d := rng.Intn(nd)
		if rng.Intn(3) == 0 {
			return fmt.Sprintf("%sd%d { 'i%d': p => 'w' }\n", indent, d, inst)
		}
		return fmt.Sprintf("%sd%d { 'i%d': }\n", indent, d, inst)
	}
	typeDefault := func(indent string) string {
		return fmt.Sprintf("%sD%d { p => '%c' }\n", indent, rng.Intn(nd), 'b'+rng.Intn(2))
	}
	// Classes: notifies, instances and defaults in a random order (at most
	// one Notify default per scope: Puppet refuses a second for the same
	// parameter).
	nc := 1 + rng.Intn(3)
	nn := 0
	for c := 0; c < nc; c++ {
		fmt.Fprintf(&b, "class c%d {\n", c)
		nd1, td := false, false
		for k := 1 + rng.Intn(4); k > 0; k-- {
			switch rng.Intn(5) {
			case 0:
				if !nd1 {
					b.WriteString(notifyDefault("  "))
					nd1 = true
				}
			case 1:
				if !td {
					b.WriteString(typeDefault("  "))
					td = true
				}
			case 2:
				b.WriteString(instance("  "))
			default:
				fmt.Fprintf(&b, "  notify { 'c%d-%d': }\n", c, nn)
				nn++
			}
		}
		if rng.Intn(4) == 0 {
			fmt.Fprintf(&b, "  Notify <| title == 'n%d' |> { message => 'from c%d' }\n", rng.Intn(3), c)
		}
		b.WriteString("}\n")
	}
	// Main code: execs, notifies, includes, instances and defaults.
	var main []string
	for e := 0; e < ne; e++ {
		main = append(main, fmt.Sprintf("exec { 'e%d': command => '/bin/true' }\n", e))
	}
	for n := 0; n < 3; n++ {
		main = append(main, fmt.Sprintf("notify { 'n%d': }\n", n))
	}
	for c := 0; c < nc; c++ {
		main = append(main, fmt.Sprintf("include c%d\n", c))
	}
	for k := rng.Intn(3); k >= 0; k-- {
		main = append(main, instance(""))
	}
	if rng.Intn(3) > 0 {
		main = append(main, notifyDefault(""))
	}
	if rng.Intn(2) == 0 {
		main = append(main, typeDefault(""))
	}
	rng.Shuffle(len(main), func(i, j int) { main[i], main[j] = main[j], main[i] })
	for _, l := range main {
		b.WriteString(l)
	}
	return b.String(), map[string]string{}
}
