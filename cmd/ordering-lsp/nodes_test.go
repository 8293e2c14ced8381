package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ordering-lsp/ordering-lsp/analysis/analysistest"
	"golang.org/x/tools/txtar"
)

// TestCheckFactSetMatrix: check --facts FOLDER analyses the workspace
// under every fact set: a problem of one platform names its nodes (json
// "nodes", the message), and the summary table counts the failing runs
// per node. order --node prints that node's order (fixture shared with
// analysis/puppet: testdata/nodes/matrix.txtar).
func TestCheckFactSetMatrix(t *testing.T) {
	ar, err := txtar.ParseFile(filepath.Join("..", "..", "analysis", "puppet", "testdata", "nodes", "matrix.txtar"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	analysistest.WriteInputs(t, dir, ar)
	out, errOut, code := runCLI(t, dir, "check", "--format", "json", "--facts", "factsets", ".")
	if code != 1 {
		t.Fatalf("exit %d, stderr %s", code, errOut)
	}
	var got []jsonDiagnostic
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatal(err)
	}
	nodes := map[string]string{}
	for _, d := range got {
		nodes[d.Message] = strings.Join(d.Nodes, " ")
	}
	for msg, want := range map[string]string{
		"Could not find class ::role::base::redhat for el9.example.com (on 1 of 3 nodes: el9.example.com)":                                  "el9.example.com",
		"Found 1 dependency cycle:\n(Package[web] => Service[web] => Package[web]) (on 2 of 3 nodes: deb11.example.com, deb12.example.com)": "deb11.example.com deb12.example.com",
		"Could not find resource 'Notify[nowhere]' in parameter 'require' (on every node: 3)":                                               "deb11.example.com deb12.example.com el9.example.com",
	} {
		if nodes[msg] != want {
			t.Errorf("%q: nodes %q, want %q (all: %v)", msg, nodes[msg], want, nodes)
		}
	}
	out, _, _ = runCLI(t, dir, "check", "--facts", "factsets", ".")
	for _, want := range []string{
		"puppet: 2 runs x 3 nodes",
		"  3   el9.example.com    RedHat 9.2       2        1",
		"  manifests/    x   x   x",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("summary lacks %q:\n%s", want, out)
		}
	}
	_, errOut, _ = runCLI(t, dir, "order", "--facts", "factsets", "--node", "el9.example.com", "manifests/site.pp")
	if !strings.Contains(errOut, "Could not find class ::role::base::redhat for el9.example.com") || strings.Contains(errOut, "cycle") {
		t.Errorf("order --node el9: %s", errOut)
	}
}
