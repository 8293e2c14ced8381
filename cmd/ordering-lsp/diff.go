package main

import (
	"archive/tar"
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strings"

	"github.com/ordering-lsp/ordering-lsp/analysis"
	"github.com/ordering-lsp/ordering-lsp/source"
)

// cmdDiff shows a reviewer what a change does to the run: it analyses
// PATH in the working tree and at a git revision and reports the steps
// that moved, appeared or vanished in each execution order, and the
// problems the change brings and fixes. Exit 1 when the working tree has
// an error the base did not.
func cmdDiff(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("diff", flag.ContinueOnError)
	fs.SetOutput(stderr)
	base := fs.String("base", "", "git revision to compare with (a branch, a tag, HEAD~1, a commit)")
	format := fs.String("format", "text", "output format: text, markdown (a pull-request comment) or sarif (the new problems)")
	settings := analysis.Settings{}
	systemFlags(fs, settings)
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if *base == "" || fs.NArg() > 1 {
		fmt.Fprintln(stderr, "usage: ordering-lsp diff --base REV [--format text|markdown|sarif] [PATH]")
		fs.PrintDefaults()
		return 2
	}
	if *format != "text" && *format != "markdown" && *format != "sarif" {
		fmt.Fprintf(stderr, "ordering-lsp: unknown format %q (text, markdown, sarif)\n", *format)
		return 2
	}
	path := "."
	if fs.NArg() == 1 {
		path = fs.Arg(0)
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		fmt.Fprintf(stderr, "ordering-lsp: %v\n", err)
		return 2
	}
	dir := abs
	if st, err := os.Stat(abs); err != nil {
		fmt.Fprintf(stderr, "ordering-lsp: %v\n", err)
		return 2
	} else if !st.IsDir() {
		dir = filepath.Dir(abs)
	}
	root, err := gitOut(dir, "rev-parse", "--show-toplevel")
	if err != nil {
		fmt.Fprintf(stderr, "ordering-lsp: %s is not in a git repository: %v\n", path, err)
		return 2
	}
	root, _ = filepath.EvalSymlinks(root)
	abs, _ = filepath.EvalSymlinks(abs)
	rel, err := filepath.Rel(root, abs)
	if err != nil {
		fmt.Fprintf(stderr, "ordering-lsp: %v\n", err)
		return 2
	}
	tmp, err := os.MkdirTemp("", "ordering-lsp-diff-")
	if err != nil {
		fmt.Fprintf(stderr, "ordering-lsp: %v\n", err)
		return 2
	}
	defer os.RemoveAll(tmp)
	if err := extractRevision(root, *base, tmp); err != nil {
		fmt.Fprintf(stderr, "ordering-lsp: %v\n", err)
		return 2
	}
	baseView, err := analyseView(filepath.Join(tmp, rel), tmp, settings)
	if err != nil {
		// the path did not exist at the base: everything is new
		baseView = &view{root: tmp}
	}
	workView, err := analyseView(abs, root, settings)
	if err != nil {
		fmt.Fprintf(stderr, "ordering-lsp: %v\n", err)
		return 2
	}
	d := compare(baseView, workView)
	cwd, _ := os.Getwd()
	switch *format {
	case "text":
		d.writeText(stdout, *base)
	case "markdown":
		d.writeMarkdown(stdout, *base)
	case "sarif":
		var diags []analysis.Diagnostic
		for _, p := range d.added {
			diags = append(diags, p.diag)
		}
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(sarifLog(workView.ws, cwd, diags)); err != nil {
			fmt.Fprintf(stderr, "ordering-lsp: %v\n", err)
			return 2
		}
	}
	for _, p := range d.added {
		if p.diag.Severity == analysis.Error {
			return 1
		}
	}
	return 0
}

func gitOut(dir string, args ...string) (string, error) {
	var out, errb bytes.Buffer
	cmd := exec.Command("git", append([]string{"-C", dir}, args...)...)
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		msg := strings.TrimSpace(errb.String())
		if msg == "" {
			msg = err.Error()
		}
		return "", errors.New(msg)
	}
	return strings.TrimSpace(out.String()), nil
}

// extractRevision writes the tree of rev into dir (git archive, read here:
// no tar program needed).
func extractRevision(root, rev, dir string) error {
	if _, err := gitOut(root, "rev-parse", "--verify", "--quiet", rev+"^{commit}"); err != nil {
		return fmt.Errorf("unknown revision %q", rev)
	}
	cmd := exec.Command("git", "-C", root, "archive", "--format=tar", rev)
	out, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	var errb bytes.Buffer
	cmd.Stderr = &errb
	if err := cmd.Start(); err != nil {
		return err
	}
	tr := tar.NewReader(out)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			_ = cmd.Wait()
			return fmt.Errorf("git archive %s: %v %s", rev, err, errb.String())
		}
		p := filepath.Join(dir, filepath.FromSlash(h.Name))
		if !strings.HasPrefix(p, dir+string(filepath.Separator)) {
			continue // never outside
		}
		switch h.Typeflag {
		case tar.TypeDir:
			if err := os.MkdirAll(p, 0o755); err != nil {
				return err
			}
		case tar.TypeReg:
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				return err
			}
			f, err := os.Create(p)
			if err != nil {
				return err
			}
			_, err = io.Copy(f, tr)
			f.Close()
			if err != nil {
				return err
			}
		}
	}
	if err := cmd.Wait(); err != nil {
		return fmt.Errorf("git archive %s: %s", rev, strings.TrimSpace(errb.String()))
	}
	return nil
}

// view is one side of the comparison: its orders and problems, already
// made independent of where the tree is. The analysis itself is dropped
// (on a control repository each side is over a GB).
type view struct {
	root     string
	ws       *source.Workspace
	results  []*analysis.Result
	orders   map[string][]string
	troubles []changed
}

func analyseView(path, root string, settings analysis.Settings) (*view, error) {
	ws, results, err := analyzePaths([]string{path}, "", settings)
	if err != nil {
		return nil, err
	}
	v := &view{root: root, ws: ws, results: results}
	v.orders, v.troubles = v.runs(), v.problems()
	v.results = nil
	runtime.GC()
	return v, nil
}

// local makes a path, URI or message independent of where the tree is:
// paths relative to the repository root.
func (v *view) local(s string) string {
	s = strings.ReplaceAll(s, source.PathToURI(v.root)+"/", "")
	return strings.ReplaceAll(s, v.root+string(filepath.Separator), "")
}

// changed is a diagnostic keyed without line numbers, so that a problem
// that only moved is not new.
type changed struct {
	key   string
	where string // file:line:col, relative to the repository root
	diag  analysis.Diagnostic
}

func (v *view) problems() []changed {
	var out []changed
	for _, r := range v.results {
		diags := append([]analysis.Diagnostic(nil), r.Diags...)
		analysis.SortDiagnostics(diags)
		// a cycle every resource in it reports is one problem, as in check
		for _, g := range group(diags) {
			d := g.d
			file := v.local(d.At.URI)
			out = append(out, changed{
				key:   strings.Join([]string{r.System, d.Code, file, v.local(d.Message)}, "\x00"),
				where: v.local(analysis.Where(v.ws, v.root, d.At)),
				diag:  d,
			})
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].where < out[j].where })
	return out
}

// runs gives each run's step labels by a name that does not depend on
// where the tree is.
func (v *view) runs() map[string][]string {
	out := map[string][]string{}
	for _, r := range v.results {
		for _, run := range r.Runs {
			name := r.System + ": " + v.local(run.Name)
			if run.Entry != "" {
				name = r.System + ": " + v.local(run.Entry)
			}
			var labels []string
			for _, st := range run.Steps {
				labels = append(labels, v.local(st.Label))
			}
			out[name] = labels
		}
	}
	return out
}

// runDiff is what changed in one execution order.
type runDiff struct {
	name string
	analysis.OrderDiff
	added, removed bool // the whole run
}

type comparison struct {
	runs           []runDiff
	added, removed []changed
}

func compare(base, work *view) comparison {
	var c comparison
	br, wr := base.orders, work.orders
	names := map[string]bool{}
	for n := range br {
		names[n] = true
	}
	for n := range wr {
		names[n] = true
	}
	var sorted []string
	for n := range names {
		sorted = append(sorted, n)
	}
	sort.Strings(sorted)
	for _, n := range sorted {
		b, inB := br[n]
		w, inW := wr[n]
		d := runDiff{name: n, added: !inB, removed: !inW}
		if inB && inW {
			d.OrderDiff = analysis.DiffOrder(b, w)
			if len(d.Moved)+len(d.Appeared)+len(d.Vanished) == 0 {
				continue
			}
		}
		c.runs = append(c.runs, d)
	}
	bp, wp := base.troubles, work.troubles
	count := map[string]int{}
	for _, p := range bp {
		count[p.key]++
	}
	for _, p := range wp {
		if count[p.key] > 0 {
			count[p.key]--
		} else {
			c.added = append(c.added, p)
		}
	}
	count = map[string]int{}
	for _, p := range wp {
		count[p.key]++
	}
	for _, p := range bp {
		if count[p.key] > 0 {
			count[p.key]--
		} else {
			c.removed = append(c.removed, p)
		}
	}
	return c
}

func (c comparison) summary() string {
	errs := 0
	for _, p := range c.added {
		if p.diag.Severity == analysis.Error {
			errs++
		}
	}
	return fmt.Sprintf("%d %s changed, %d new %s (%d %s), %d fixed",
		len(c.runs), plural(len(c.runs), "run", "runs"), len(c.added), plural(len(c.added), "problem", "problems"),
		errs, plural(errs, "error", "errors"), len(c.removed))
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

func (c comparison) writeText(w io.Writer, base string) {
	fmt.Fprintf(w, "ordering-lsp diff: %s -> working tree\n", base)
	for _, r := range c.runs {
		fmt.Fprintf(w, "\n%s\n", r.name)
		switch {
		case r.added:
			fmt.Fprintln(w, "  new run")
		case r.removed:
			fmt.Fprintln(w, "  run gone")
		}
		for _, m := range r.Moved {
			fmt.Fprintf(w, "  moved     %s: %s -> %s of %d\n", m.Label, analysis.Ordinal(m.From+1), analysis.Ordinal(m.To+1), m.Of[1])
		}
		for _, s := range r.Appeared {
			fmt.Fprintf(w, "  appeared  %s (%s)\n", s.Label, analysis.Ordinal(s.At+1))
		}
		for _, s := range r.Vanished {
			fmt.Fprintf(w, "  vanished  %s (was %s)\n", s.Label, analysis.Ordinal(s.At+1))
		}
	}
	if len(c.added) > 0 {
		fmt.Fprintln(w, "\nnew problems")
		for _, p := range c.added {
			fmt.Fprintf(w, "  %s: %s: %s\n", p.where, p.diag.Severity, oneLine(p.diag.Message))
		}
	}
	if len(c.removed) > 0 {
		fmt.Fprintln(w, "\nfixed problems")
		for _, p := range c.removed {
			fmt.Fprintf(w, "  %s: %s: %s\n", p.where, p.diag.Severity, oneLine(p.diag.Message))
		}
	}
	fmt.Fprintf(w, "\n%s\n", c.summary())
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// writeMarkdown is a pull-request comment: a heading, a table per run
// (folded when long), the new and fixed problems.
func (c comparison) writeMarkdown(w io.Writer, base string) {
	fmt.Fprintf(w, "### Execution order: `%s` → this change\n\n%s\n", base, c.summary())
	md := func(s string) string { return "`" + strings.ReplaceAll(s, "`", "'") + "`" }
	for _, r := range c.runs {
		rows := []string{}
		for _, m := range r.Moved {
			rows = append(rows, fmt.Sprintf("| %s | moved | %s → %s of %d |", md(m.Label), analysis.Ordinal(m.From+1), analysis.Ordinal(m.To+1), m.Of[1]))
		}
		for _, s := range r.Appeared {
			rows = append(rows, fmt.Sprintf("| %s | new | %s |", md(s.Label), analysis.Ordinal(s.At+1)))
		}
		for _, s := range r.Vanished {
			rows = append(rows, fmt.Sprintf("| %s | gone | was %s |", md(s.Label), analysis.Ordinal(s.At+1)))
		}
		title := md(r.name)
		switch {
		case r.added:
			title += " (new run)"
		case r.removed:
			title += " (run gone)"
		}
		if len(rows) > 15 {
			fmt.Fprintf(w, "\n<details><summary>%s: %d steps changed</summary>\n\n| step | change | position |\n|---|---|---|\n%s\n\n</details>\n", title, len(rows), strings.Join(rows, "\n"))
		} else if len(rows) > 0 {
			fmt.Fprintf(w, "\n#### %s\n\n| step | change | position |\n|---|---|---|\n%s\n", title, strings.Join(rows, "\n"))
		} else {
			fmt.Fprintf(w, "\n#### %s\n", title)
		}
	}
	list := func(title string, ps []changed) {
		if len(ps) == 0 {
			return
		}
		fmt.Fprintf(w, "\n#### %s\n\n", title)
		for _, p := range ps {
			fmt.Fprintf(w, "- **%s** %s: %s\n", p.diag.Severity, md(p.where), oneLine(p.diag.Message))
		}
	}
	list("New problems", c.added)
	list("Fixed problems", c.removed)
}
