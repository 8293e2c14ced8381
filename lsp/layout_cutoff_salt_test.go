package lsp_test

import (
	"path/filepath"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/ordering-lsp/ordering-lsp/analysis"
	"github.com/ordering-lsp/ordering-lsp/analysis/salt"
	"github.com/ordering-lsp/ordering-lsp/lsp/lsptest"
	"github.com/ordering-lsp/ordering-lsp/source"
)

// countedSalt is Salt with its analyses counted.
type countedSalt struct {
	*salt.System
	n *atomic.Int32
}

func (c countedSalt) Analyze(r *analysis.Request) *analysis.Result {
	c.n.Add(1)
	return c.System.Analyze(r)
}

// The same early cutoff for an SLS file: a comment typed at the top is
// not analysed, the diagnostics move a line down and the line their
// words name ("may be declared by ... at b.sls:3:1") follows, as a
// fresh server says on the same text. A comment next to a tag that
// strips whitespace (`{%- ... -%}`, which joins it to the next line) is
// analysed, as is code.
func TestSaltLayoutEditIsNotAnalysed(t *testing.T) {
	root := t.TempDir()
	app := "app:\n  test.nop:\n    - require:\n      - test: user_bob\n      - test: nowhere\n"
	users := "{% for u in pillar.get('users', []) %}\nuser_{{ u }}:\n  test.nop\n{% endfor %}\n"
	writeFiles(t, root, map[string]string{"app.sls": app, "users.sls": users})
	uri := source.PathToURI(filepath.Join(root, "app.sls"))
	usersURI := source.PathToURI(filepath.Join(root, "users.sls"))
	var n atomic.Int32
	c, _ := lsptest.Start(t, []analysis.System{countedSalt{salt.New().(*salt.System), &n}}, root, nil)
	c.Open(uri, "sls", app)
	c.Open(usersURI, "sls", users)
	c.WaitDiagnostics(uri, func(ds []lsptest.Diagnostic) bool { return len(ds) == 2 })
	c.Settle(uri)
	before := n.Load()
	if ds := c.Diagnostics(uri); !strings.Contains(ds[0].Message, "users.sls:2:1") {
		t.Fatalf("the diagnostic does not name the line of the template that may declare user_bob: %q", ds[0].Message)
	}

	comment := "# the users, from the pillar\n"
	c.Edit(usersURI, 2, lsptest.Range{}, comment)
	c.WaitDiagnostics(uri, func(ds []lsptest.Diagnostic) bool {
		return len(ds) == 2 && strings.Contains(ds[0].Message, "users.sls:3:1")
	})
	c.Edit(uri, 2, lsptest.Range{}, comment)
	first := c.WaitDiagnostics(uri, func(ds []lsptest.Diagnostic) bool {
		return len(ds) == 2 && ds[0].Range.Start.Line == 4
	})
	c.Settle(uri)
	got := c.Diagnostics(uri)
	if after := n.Load(); after != before {
		t.Errorf("comment lines were analysed: %d analyses before them, %d after", before, after)
	}
	fresh, _ := lsptest.Start(t, []analysis.System{salt.New()}, root, nil)
	fresh.Open(uri, "sls", comment+app)
	fresh.Open(usersURI, "sls", comment+users)
	want := fresh.WaitDiagnostics(uri, func(ds []lsptest.Diagnostic) bool { return len(ds) == 2 })
	if !reflect.DeepEqual(got, want) {
		t.Errorf("diagnostics after the comments:\n got %+v\nwant %+v (a fresh server's)", got, want)
	}
	if !reflect.DeepEqual(first, want) {
		t.Errorf("the first diagnostics after the comments:\n got %+v\nwant %+v (a fresh server's)", first, want)
	}

	// a comment where Jinja would join it to the next line is analysed
	before = n.Load()
	c.Edit(usersURI, 3, lsptest.Range{Start: lsptest.Position{Line: 4}, End: lsptest.Position{Line: 4}}, "{#- joined -#}\n")
	c.Settle(uri)
	if n.Load() == before {
		t.Errorf("a comment with whitespace control was not analysed")
	}
	// code is analysed, from caches that saw neither comment: as a
	// fresh server does
	before = n.Load()
	c.Edit(uri, 3, lsptest.Range{Start: lsptest.Position{Line: 5}, End: lsptest.Position{Line: 6}}, "")
	got = c.WaitDiagnostics(uri, func(ds []lsptest.Diagnostic) bool { return len(ds) == 1 })
	c.Settle(uri)
	if n.Load() == before {
		t.Errorf("a code edit was not analysed")
	}
	again, _ := lsptest.Start(t, []analysis.System{salt.New()}, root, nil)
	again.Open(uri, "sls", comment+strings.Replace(app, "      - test: nowhere\n", "", 1))
	again.Open(usersURI, "sls", strings.Replace(comment+users, "{% endfor", "{#- joined -#}\n{% endfor", 1))
	want = again.WaitDiagnostics(uri, func(ds []lsptest.Diagnostic) bool { return len(ds) == 1 })
	if !reflect.DeepEqual(got, want) {
		t.Errorf("diagnostics after the code edit:\n got %+v\nwant %+v (a fresh server's)", got, want)
	}
}
