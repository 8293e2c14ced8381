package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

// TestGitHubWorkflowSteps runs the `ordering-lsp check` steps of the
// documented GitHub Actions workflow (docs/ci/github-actions.yml) with
// bash, as the runner would, in a copy of examples/: the SARIF step
// succeeds although there are errors (so the upload runs) and writes SARIF
// 2.1.0 with results, the last step fails the job.
func TestGitHubWorkflowSteps(t *testing.T) {
	root := repoRoot(t)
	raw, err := os.ReadFile(filepath.Join(root, "docs", "ci", "github-actions.yml"))
	if err != nil {
		t.Fatal(err)
	}
	var wf struct {
		Permissions map[string]string `yaml:"permissions"`
		Jobs        map[string]struct {
			Steps []struct {
				Name string            `yaml:"name"`
				Run  string            `yaml:"run"`
				Uses string            `yaml:"uses"`
				With map[string]string `yaml:"with"`
			} `yaml:"steps"`
		} `yaml:"jobs"`
	}
	if err := yaml.Unmarshal(raw, &wf); err != nil {
		t.Fatal(err)
	}
	if wf.Permissions["security-events"] != "write" {
		t.Error("uploading SARIF needs permissions: security-events: write")
	}
	work := t.TempDir()
	if out, err := exec.Command("cp", "-r", filepath.Join(root, "examples")+"/.", work).CombinedOutput(); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	bin := t.TempDir()
	if err := os.Symlink(binary, filepath.Join(bin, "ordering-lsp")); err != nil {
		t.Fatal(err)
	}
	var codes []int
	uploaded := ""
	for _, st := range wf.Jobs["check"].Steps {
		if strings.Contains(st.Uses, "upload-sarif") {
			uploaded = st.With["sarif_file"]
		}
		if !strings.Contains(st.Run, "ordering-lsp check") {
			continue
		}
		cmd := exec.Command("bash", "-e", "-c", st.Run)
		cmd.Dir = work
		cmd.Env = append(os.Environ(), "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"))
		err := cmd.Run()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		codes = append(codes, code)
	}
	if len(codes) != 2 || codes[0] != 0 || codes[1] != 1 {
		t.Errorf("exit codes of the check steps: %v, want [0 1] (SARIF step passes so the upload runs; the last step fails the job)", codes)
	}
	b, err := os.ReadFile(filepath.Join(work, uploaded))
	if err != nil {
		t.Fatalf("the uploaded file %q: %v", uploaded, err)
	}
	var sarif struct {
		Version string `json:"version"`
		Runs    []struct {
			Results []json.RawMessage `json:"results"`
		} `json:"runs"`
	}
	if err := json.Unmarshal(b, &sarif); err != nil || sarif.Version != "2.1.0" || len(sarif.Runs) != 1 || len(sarif.Runs[0].Results) == 0 {
		t.Errorf("uploaded SARIF: version %q, %d runs, err %v", sarif.Version, len(sarif.Runs), err)
	}
}
