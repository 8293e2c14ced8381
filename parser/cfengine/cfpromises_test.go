package cfengine

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
)

// The parser's view of a policy (bundles, bodies, promise types,
// contexts, promisers, body attributes) must be the one cf-promises -p
// json prints. testdata/cfpromises holds files with the JSON the real
// cf-promises 3.21 printed for them.

type jsonPolicy struct {
	Bundles []struct {
		Name, Namespace, BundleType string
		Arguments                   []string
		PromiseTypes                []struct {
			Name     string
			Contexts []struct {
				Name     string
				Promises []struct{ Promiser string }
			}
		}
	}
	Bodies []struct {
		Line                      int
		Name, Namespace, BodyType string
		Arguments                 []string
		Contexts                  []struct {
			Name       string
			Attributes []struct{ Lval string }
		}
	}
}

// viewOfJSON renders cf-promises' JSON as comparable lines.
func viewOfJSON(data []byte) ([]string, error) { return viewOfJSONUpTo(data, 1<<30) }

// viewOfJSONUpTo leaves out bodies declared after line maxLine (stubs the
// comparison appended).
func viewOfJSONUpTo(data []byte, maxLine int) ([]string, error) {
	var p jsonPolicy
	if err := json.Unmarshal(data, &p); err != nil {
		return nil, err
	}
	var out []string
	for _, b := range p.Bundles {
		out = append(out, fmt.Sprintf("bundle %s %s:%s(%s)", b.BundleType, b.Namespace, b.Name, strings.Join(b.Arguments, ",")))
		for _, pt := range b.PromiseTypes {
			for _, c := range pt.Contexts {
				for _, pr := range c.Promises {
					out = append(out, fmt.Sprintf("  %s [%s] %q", pt.Name, c.Name, pr.Promiser))
				}
			}
		}
	}
	for _, b := range p.Bodies {
		if b.Line > maxLine {
			continue
		}
		out = append(out, fmt.Sprintf("body %s %s:%s(%s)", b.BodyType, b.Namespace, b.Name, strings.Join(b.Arguments, ",")))
		for _, c := range b.Contexts {
			for _, a := range c.Attributes {
				out = append(out, fmt.Sprintf("  [%s] %s", c.Name, a.Lval))
			}
		}
	}
	return out, nil
}

// viewOfFile renders the parser's tree the way cf-promises stores a
// policy: sections of one type merged in file order, custom promise types
// and promise blocks left out, "$(x)":: contexts shown as any.
func viewOfFile(f *File) []string {
	var out []string
	name := func(b *Block) string {
		n := b.Name.Text
		if !strings.Contains(n, ":") {
			n = b.Namespace + ":" + n
		}
		var ps []string
		for _, p := range b.Params {
			ps = append(ps, p.Text)
		}
		return fmt.Sprintf("%s %s %s(%s)", b.Kind, b.Type.Text, n, strings.Join(ps, ","))
	}
	for _, b := range f.Blocks {
		if b.Kind != "bundle" || !BundleTypes[b.Type.Text] {
			continue
		}
		out = append(out, name(b))
		var order []string
		byType := map[string][]string{}
		for _, s := range b.Sections {
			if !BuiltinPromiseTypes[s.Type.Text] {
				continue
			}
			if _, ok := byType[s.Type.Text]; !ok {
				order = append(order, s.Type.Text)
				byType[s.Type.Text] = []string{}
			}
			for _, p := range s.Promises {
				ctx := p.Context
				if p.VarContext {
					ctx = "any"
				}
				byType[s.Type.Text] = append(byType[s.Type.Text], fmt.Sprintf("  %s [%s] %q", s.Type.Text, ctx, p.Promiser))
			}
		}
		for _, t := range order {
			out = append(out, byType[t]...)
		}
	}
	for _, b := range f.Blocks {
		if b.Kind != "body" {
			continue
		}
		out = append(out, name(b))
		// cf-promises keeps one attribute per (context, lval): a repeated
		// one replaces the first in place.
		seen := map[string]bool{}
		for _, a := range b.Attrs {
			ctx := a.Context
			if a.VarContext {
				ctx = "any"
			}
			line := fmt.Sprintf("  [%s] %s", ctx, a.Lval.Text)
			if seen[line] {
				continue
			}
			seen[line] = true
			out = append(out, line)
		}
	}
	return out
}

func diffLines(want, got []string) string {
	var b strings.Builder
	n := max(len(want), len(got))
	shown := 0
	for i := 0; i < n && shown < 8; i++ {
		var w, g string
		if i < len(want) {
			w = want[i]
		}
		if i < len(got) {
			g = got[i]
		}
		if w != g {
			fmt.Fprintf(&b, "  line %d: cf-promises %q, parser %q\n", i, w, g)
			shown++
		}
	}
	return b.String()
}

func TestAgainstCfPromisesJSON(t *testing.T) {
	files, _ := filepath.Glob("testdata/cfpromises/*.json")
	if len(files) == 0 {
		t.Fatal("no JSON cases")
	}
	for _, jf := range files {
		cf := strings.TrimSuffix(jf, ".json") + ".cf"
		t.Run(filepath.Base(cf), func(t *testing.T) {
			data, err := os.ReadFile(jf)
			if err != nil {
				t.Fatal(err)
			}
			want, err := viewOfJSON(data)
			if err != nil {
				t.Fatal(err)
			}
			src, err := os.ReadFile(cf)
			if err != nil {
				t.Fatal(err)
			}
			f := Parse(src)
			if len(f.Errors) > 0 {
				t.Errorf("parse errors: %v", f.Errors)
			}
			got := viewOfFile(f)
			if strings.Join(want, "\n") != strings.Join(got, "\n") {
				t.Errorf("view differs from cf-promises -p json:\n%s", diffLines(want, got))
			}
		})
	}
}

// TestCorpusAgainstCfPromises runs the real cf-promises -p json over every
// .cf/.cf.in file under $ORDERING_CORPUS (e.g. a checkout of
// cfengine/masterfiles) and compares views. It needs cf-promises on PATH.
// Files cf-promises rejects must be rejected by the parser too (counted,
// not failed: many core acceptance tests are deliberately broken or need
// a newer version).
func TestCorpusAgainstCfPromises(t *testing.T) {
	root := os.Getenv("ORDERING_CORPUS")
	if root == "" {
		t.Skip("ORDERING_CORPUS not set")
	}
	cfp, err := exec.LookPath("cf-promises")
	if err != nil {
		t.Skip("cf-promises not installed")
	}
	var paths []string
	_ = filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && (strings.HasSuffix(p, ".cf") || strings.HasSuffix(p, ".cf.in")) {
			paths = append(paths, p)
		}
		return nil
	})
	sort.Strings(paths)
	var agree, differ, bothReject, onlyCf, onlyUs int
	for _, p := range paths {
		src, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		f := Parse(src)
		out, runErr := cfPromisesJSON(t, cfp, p, src)
		if runErr != nil {
			if len(f.Errors) > 0 {
				bothReject++
			} else {
				onlyCf++
				t.Logf("cf-promises rejects, parser accepts: %s: %s", p, firstLine(out))
			}
			continue
		}
		if len(f.Errors) > 0 {
			onlyUs++
			t.Errorf("false syntax error: %s: %s", p, f.Errors[0].Message)
			continue
		}
		want, err := viewOfJSONUpTo([]byte(out[strings.IndexByte(out, '{'):]), bytes.Count(src, []byte("\n"))+1)
		if err != nil {
			t.Errorf("%s: bad JSON: %v", p, err)
			continue
		}
		got := viewOfFile(f)
		if strings.Join(want, "\n") == strings.Join(got, "\n") {
			agree++
		} else {
			differ++
			t.Errorf("%s: view differs from cf-promises:\n%s", p, diffLines(want, got))
		}
	}
	t.Logf("%d files: %d agree, %d differ, %d rejected by both, %d rejected only by cf-promises, %d only by the parser",
		len(paths), agree, differ, bothReject, onlyCf, onlyUs)
}

var (
	cantStat      = regexp.MustCompile(`Can't stat file '([^']+)' for parsing`)
	undefinedBody = regexp.MustCompile(`Undefined body ([A-Za-z0-9_]+) with type ([A-Za-z0-9_]+)`)
)

// cfPromisesJSON runs cf-promises -p json on a copy of the file in a
// scratch folder, creating an empty stub for every relative input it
// cannot find (-p json only prints the file itself, but still loads its
// inputs).
func cfPromisesJSON(t *testing.T, cfp, path string, src []byte) (string, error) {
	root := t.TempDir()
	dir := filepath.Join(root, "a", "b", "c", "d")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	name := filepath.Base(path)
	if err := os.WriteFile(filepath.Join(dir, name), src, 0o644); err != nil {
		t.Fatal(err)
	}
	work := filepath.Join(root, "work")
	var out string
	var runErr error
	for range 30 {
		cmd := exec.Command(cfp, "-w", work, "-p", "json", name)
		cmd.Dir = dir
		b, err := cmd.CombinedOutput()
		out, runErr = string(b), err
		if runErr == nil {
			break
		}
		// cf-promises checks bodies even for -p json: define the missing
		// ones as empty stubs after the file's own text (and leave them out
		// of the comparison).
		if ms := undefinedBody.FindAllStringSubmatch(out, -1); ms != nil {
			var stubs strings.Builder
			stubs.WriteString("\nbody file control\n{\n  namespace => \"default\";\n}\n")
			for _, m := range ms {
				fmt.Fprintf(&stubs, "body %s %s\n{\n}\n", m[2], m[1])
			}
			src = append(append([]byte(nil), src...), stubs.String()...)
			_ = os.WriteFile(filepath.Join(dir, name), src, 0o644)
			continue
		}
		m := cantStat.FindStringSubmatch(out)
		if m == nil || filepath.IsAbs(m[1]) {
			break
		}
		stub := filepath.Join(dir, m[1])
		if _, err := os.Stat(stub); err == nil {
			break
		}
		_ = os.MkdirAll(filepath.Dir(stub), 0o755)
		_ = os.WriteFile(stub, nil, 0o644)
	}
	return out, runErr
}

func firstLine(s string) string {
	for _, l := range strings.Split(s, "\n") {
		if strings.Contains(l, "error") {
			return strings.TrimSpace(l)
		}
	}
	s, _, _ = strings.Cut(s, "\n")
	return s
}
