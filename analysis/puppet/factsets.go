package puppet

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"gopkg.in/yaml.v3"
)

// A fact set is what one node reports: the facts `puppet.facts` names,
// either one file or a folder of them. Teams keep them in several shapes,
// and one file may hold many nodes (a PuppetDB export), so each shape is
// read into the same list of named sets. The name is the node's certname
// where the data says it (a PuppetDB export, `puppet facts find`'s name,
// a trusted.certname or clientcert fact), else the file name: onceover
// names its factsets after the file, and `facter -j` says no certname.
type factSet struct {
	name     string
	platform string // "Debian 12", from os.name and os.release (or the legacy facts)
	path     string // the file it was read from
	values   map[string]any
}

// factSetError says why a file named as facts is not one.
type factSetError struct {
	path       string
	msg        string
	unreadable bool // no such file, no permission: not a matter of shape
}

// readFactSets reads a fact file or every .json/.yaml/.yml file of a
// folder (not below it), in name order. Files that are not fact sets are
// reported, never fatal.
// read gives a file's text (the editor's buffer when it is open).
func readFactSets(p string, read func(string) ([]byte, error)) ([]*factSet, []factSetError, bool) {
	st, err := os.Stat(p)
	if err != nil {
		if text, rerr := read(p); rerr == nil { // an unsaved buffer
			sets, err := parseFactSets(p, text)
			if err != nil {
				return nil, []factSetError{{path: p, msg: err.Error()}}, false
			}
			return sets, nil, false
		}
		return nil, []factSetError{{p, err.Error(), true}}, false
	}
	if !st.IsDir() {
		text, err := read(p)
		if err != nil {
			return nil, []factSetError{{p, err.Error(), true}}, false
		}
		sets, err := parseFactSets(p, text)
		if err != nil {
			return nil, []factSetError{{path: p, msg: err.Error()}}, false
		}
		return sets, nil, false
	}
	ents, err := os.ReadDir(p)
	if err != nil {
		return nil, []factSetError{{p, err.Error(), true}}, true
	}
	var sets []*factSet
	var errs []factSetError
	for _, e := range ents {
		switch strings.ToLower(filepath.Ext(e.Name())) {
		case ".json", ".yaml", ".yml":
		default:
			continue
		}
		if e.IsDir() {
			continue
		}
		fp := filepath.Join(p, e.Name())
		text, err := read(fp)
		if err != nil {
			errs = append(errs, factSetError{fp, err.Error(), true})
			continue
		}
		s, err := parseFactSets(fp, text)
		if err != nil {
			errs = append(errs, factSetError{path: fp, msg: err.Error()})
			continue
		}
		sets = append(sets, s...)
	}
	// One name, one node: a later file with the same certname is a
	// second copy, and the first one read (name order) wins.
	seen := map[string]bool{}
	out := sets[:0]
	for _, s := range sets {
		k := strings.ToLower(s.name)
		if seen[k] {
			errs = append(errs, factSetError{path: s.path, msg: fmt.Sprintf("a second fact set for node %s (the first one read is used)", s.name)})
			continue
		}
		seen[k] = true
		out = append(out, s)
	}
	return out, errs, true
}

// parseFactSets decodes one file in any of the shapes: `facter -j/-y`
// (the facts themselves), `puppet facts find` and onceover factsets
// ({"name": .., "values": {..}}, YAML possibly tagged
// !ruby/object:Puppet::Node::Facts), a PuppetDB /pdb/query/v4/facts
// export ([{certname, name, value}]) and a PuppetDB inventory export
// ([{certname, facts, trusted}]).
func parseFactSets(path string, text []byte) ([]*factSet, error) {
	var doc any
	trimmed := bytes.TrimSpace(text)
	if len(trimmed) == 0 {
		return nil, fmt.Errorf("empty file: not a fact set")
	}
	if trimmed[0] == '{' || trimmed[0] == '[' {
		if err := json.Unmarshal(trimmed, &doc); err != nil {
			if yerr := yaml.Unmarshal(text, &doc); yerr != nil {
				return nil, fmt.Errorf("not JSON (%v)", err)
			}
		}
	} else if err := yaml.Unmarshal(text, &doc); err != nil {
		return nil, fmt.Errorf("not YAML: %v", err)
	}
	base := strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
	switch t := doc.(type) {
	case map[string]any:
		name := ""
		values := t
		if v, ok := t["values"].(map[string]any); ok {
			values = v
			name, _ = t["name"].(string)
		}
		if len(values) == 0 {
			return nil, fmt.Errorf("no facts in it")
		}
		if name == "" {
			name = certOf(values)
		}
		if name == "" {
			name = base
		}
		return []*factSet{newFactSet(name, path, values)}, nil
	case []any:
		byCert := map[string]map[string]any{}
		var order []string
		for i, e := range t {
			m, ok := e.(map[string]any)
			if !ok {
				return nil, fmt.Errorf("entry %d is not an object: not a PuppetDB export", i+1)
			}
			cert, _ := m["certname"].(string)
			if cert == "" {
				return nil, fmt.Errorf("entry %d has no certname: not a PuppetDB export", i+1)
			}
			vals := byCert[cert]
			if vals == nil {
				vals = map[string]any{}
				byCert[cert] = vals
				order = append(order, cert)
			}
			if f, ok := m["facts"].(map[string]any); ok { // inventory
				for k, v := range f {
					vals[k] = v
				}
				if tr, ok := m["trusted"].(map[string]any); ok {
					vals["trusted"] = tr
				}
				continue
			}
			n, ok := m["name"].(string) // facts endpoint
			if !ok {
				return nil, fmt.Errorf("entry %d has neither facts nor name/value: not a PuppetDB export", i+1)
			}
			vals[n] = m["value"]
		}
		if len(order) == 0 {
			return nil, fmt.Errorf("an empty list: no node in it")
		}
		out := make([]*factSet, 0, len(order))
		for _, c := range order {
			out = append(out, newFactSet(c, path, byCert[c]))
		}
		return out, nil
	}
	return nil, fmt.Errorf("neither an object of facts nor a PuppetDB export")
}

func newFactSet(name, path string, values map[string]any) *factSet {
	return &factSet{name: name, path: path, values: values, platform: platformOf(values)}
}

// certOf is the certname the facts carry, if any.
func certOf(v map[string]any) string {
	if tr, ok := v["trusted"].(map[string]any); ok {
		if c, ok := tr["certname"].(string); ok && c != "" {
			return c
		}
	}
	if c, ok := v["clientcert"].(string); ok {
		return c
	}
	return ""
}

// platformOf names the operating system as users say it: "Debian 12",
// "RedHat 9.2"; "" when the facts do not say.
func platformOf(v map[string]any) string {
	get := func(path ...string) string {
		var cur any = v
		for _, p := range path {
			m, ok := cur.(map[string]any)
			if !ok {
				return ""
			}
			cur = m[p]
		}
		switch x := cur.(type) {
		case string:
			return x
		case float64, int:
			return fmt.Sprint(x)
		}
		return ""
	}
	name := get("os", "name")
	if name == "" {
		name = get("operatingsystem")
	}
	rel := get("os", "release", "full")
	if rel == "" {
		rel = get("operatingsystemrelease")
	}
	return strings.TrimSpace(name + " " + rel)
}

// pickFactSet finds a node's set by name, case-insensitively as Puppet
// compares certnames.
func pickFactSet(sets []*factSet, node string) *factSet {
	for _, s := range sets {
		if strings.EqualFold(s.name, node) {
			return s
		}
	}
	return nil
}

var errNoFile = errors.New("cannot read the file")
