package puppet

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestFactSetShapes reads the shapes fact sets come in: real output of
// facter -j, puppet facts show, puppet facts find (JSON and YAML, Puppet
// 7.23 on this Debian 12 machine, ssh keys removed), and PuppetDB
// exports (a /pdb/query/v4/facts answer, an inventory answer) as the
// PuppetDB API documents them. Each gives its nodes' names (the certname
// where the data has one, else the file's name) and platforms; what is
// not a fact set says why.
func TestFactSetShapes(t *testing.T) {
	read := func(p string) ([]byte, error) { return os.ReadFile(p) }
	dir := filepath.Join("testdata", "factshapes")
	want := map[string]string{
		"facter-j.json":          "facter-j Debian 12.11",
		"puppet-facts-show.json": "puppet-facts-show Debian 12.11",
		"puppet-facts-find.json": "vm Debian 12.11",
		"puppet-facts-find.yaml": "vm Debian 12.11",
		"pdb-facts.json":         "web1.example.com Debian 12.5|db1.example.com CentOS 7.9.2009",
		"pdb-inventory.json":     "app1.example.com Ubuntu 22.04|app2.example.com RedHat 9.3",
	}
	for f, w := range want {
		text, err := read(filepath.Join(dir, f))
		if err != nil {
			t.Fatal(err)
		}
		sets, err := parseFactSets(filepath.Join(dir, f), text)
		if err != nil {
			t.Errorf("%s: %v", f, err)
			continue
		}
		var got []string
		for _, s := range sets {
			got = append(got, s.name+" "+s.platform)
		}
		if strings.Join(got, "|") != w {
			t.Errorf("%s: %q, want %q", f, strings.Join(got, "|"), w)
		}
	}
	for text, why := range map[string]string{
		"":                    "empty file",
		"[1, 2]":              "entry 1 is not an object",
		`[{"name": "os"}]`:    "entry 1 has no certname",
		`{"values": {}}`:      "no facts in it",
		"key: [unclosed":      "not YAML",
		`{"os": `:             "not JSON",
		`[{"certname": "a"}]`: "neither facts nor name/value",
	} {
		if _, err := parseFactSets("x.json", []byte(text)); err == nil || !strings.Contains(err.Error(), why) {
			t.Errorf("%q: error %v, want %q", text, err, why)
		}
	}
	// a folder: every file, one set per certname, the README ignored
	sets, errs, isDir := readFactSets(dir, read)
	if !isDir || len(sets) != 7 || len(errs) != 1 || !strings.Contains(errs[0].msg, "a second fact set for node vm") {
		var names []string
		for _, s := range sets {
			names = append(names, s.name)
		}
		t.Errorf("folder: dir %v, sets %v, errors %+v", isDir, names, errs)
	}
}
