package salt

import (
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/ordering-lsp/ordering-lsp/analysis/analysistest"
	"golang.org/x/tools/txtar"
)

// TestOracle checks every case made by running Salt 3007.x (and 3006.x,
// identical) from source: testdata/oracle/NAME.order is the real
// execution order (`module.function ID NAME` per state) followed by
// `ERROR: [ID: ]message` lines; NAME.master.order is what Salt's newer
// requisite engine says (checked with salt.engine=master). The order must
// match line for line; every ERROR must be one of our diagnostics, with
// the same words (layout aside: Salt's comment indents with spaces and
// newlines, shown as ` | ` in the case files).
func TestOracle(t *testing.T) {
	dir := filepath.Join("testdata", "oracle")
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	ar := &txtar.Archive{}
	var cases []string
	for _, e := range ents {
		name := e.Name()
		if strings.HasSuffix(name, ".sls") {
			data, err := os.ReadFile(filepath.Join(dir, name))
			if err != nil {
				t.Fatal(err)
			}
			ar.Files = append(ar.Files, txtar.File{Name: name, Data: data})
		}
		if strings.HasSuffix(name, ".order") {
			cases = append(cases, strings.TrimSuffix(name, ".order"))
		}
	}
	sort.Strings(cases)
	if len(cases) < 15 {
		t.Fatalf("only %d oracle cases", len(cases))
	}
	for _, c := range cases {
		t.Run(c, func(t *testing.T) {
			base, engine := c, "3007"
			if b, ok := strings.CutSuffix(c, ".master"); ok {
				base, engine = b, "master"
			}
			want, err := os.ReadFile(filepath.Join(dir, c+".order"))
			if err != nil {
				t.Fatal(err)
			}
			a := *ar
			a.Comment = []byte("entry: " + base + ".sls\nsetting: salt.engine=" + engine + "\n")
			out := analysistest.Load(t, New(), &a)
			var wantOrder, wantErr []string
			for _, line := range strings.Split(strings.TrimRight(string(want), "\n"), "\n") {
				if rest, ok := strings.CutPrefix(line, "ERROR: "); ok {
					wantErr = append(wantErr, rest)
				} else if line != "" {
					wantOrder = append(wantOrder, line)
				}
			}
			if len(wantOrder) > 0 {
				if got, w := strings.Join(out.Order, "\n"), strings.Join(wantOrder, "\n"); got != w {
					t.Errorf("order mismatch\n--- want\n%s\n--- got\n%s", w, got)
				}
			}
			if refused := len(wantOrder) == 0; out.Refused != refused {
				t.Errorf("refused = %v, want %v (Salt printed only errors: %v)", out.Refused, refused, refused)
			}
			for _, we := range wantErr {
				found := false
				for _, d := range out.Result.Diags {
					got := norm(d.Message)
					full := norm(we)
					if strings.HasPrefix(got, full) {
						found = true
					}
					if _, rest, ok := strings.Cut(we, ": "); ok && strings.HasPrefix(got, norm(rest)) {
						found = true
					}
				}
				if !found {
					t.Errorf("no diagnostic says %q; got:\n%s", we, strings.Join(out.Diags, "\n"))
				}
			}
		})
	}
}

var spaces = regexp.MustCompile(`[\s|]+`)

func norm(s string) string { return strings.TrimSpace(spaces.ReplaceAllString(s, " ")) }
