package salt

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/ordering-lsp/ordering-lsp/analysis"
	"github.com/ordering-lsp/ordering-lsp/source"
	"gopkg.in/yaml.v3"
)

// The minion data folder (salt.minions, --minions DIR) holds what each
// minion reports about itself, as the real minion prints it:
//
//	DIR/<minion id>/grains.json   salt-call --local grains.items --out json
//	DIR/<minion id>/pillar.json   salt-call --local pillar.items --out json
//	DIR/<minion id>.json          {"grains": {...}, "pillar": {...}}
//
// YAML (.yaml, .yml) is read as well as JSON; the `{"local": {...}}`
// wrapper salt-call puts around its output is taken off. The minion id is
// the file's or folder's name. A minion without pillar has an empty
// pillar (pillar.items of a minion nobody gave any); one without grains
// has only `id`.

// minionData is one minion of the folder.
type minionData struct {
	minion
	// from: the files it was read from (for messages)
	from []string
	// facts: {"grains": ..., "pillar": ...} as JSON for the renderer
	facts string
}

// minionSet is the folder read.
type minionSet struct {
	dir     string
	minions []*minionData // by id
	// problems: files that could not be read, with why
	problems []minionProblem
}

type minionProblem struct {
	path, msg string
}

func (ms *minionSet) byID(id string) *minionData {
	for _, m := range ms.minions {
		if m.id == id {
			return m
		}
	}
	return nil
}

func (ms *minionSet) ids() []string {
	var out []string
	for _, m := range ms.minions {
		out = append(out, m.id)
	}
	return out
}

// settingPath resolves a path setting: relative to the first workspace
// root, else to the working directory.
func settingPath(req *analysis.Request, p string) string {
	if filepath.IsAbs(p) {
		return p
	}
	if req.Workspace != nil {
		if rs := req.Workspace.Roots(); len(rs) > 0 {
			return filepath.Join(rs[0], p)
		}
	}
	if abs, err := filepath.Abs(p); err == nil {
		return abs
	}
	return p
}

// loadMinions reads the minion data folder named by salt.minions; nil
// when unset.
func loadMinions(req *analysis.Request) *minionSet {
	p := req.Settings.Get("salt.minions", "")
	if p == "" {
		return nil
	}
	dir := settingPath(req, p)
	ms := &minionSet{dir: dir}
	ents, err := os.ReadDir(dir)
	if err != nil {
		ms.problems = append(ms.problems, minionProblem{dir, fmt.Sprintf("the minion data folder cannot be read: %v", err)})
		return ms
	}
	read := func(path string) (any, bool) {
		var f *source.File
		if req.Workspace != nil {
			f = req.Workspace.Lookup(path)
		}
		var text []byte
		if f != nil {
			text = f.Text
		} else {
			b, err := os.ReadFile(path)
			if err != nil {
				ms.problems = append(ms.problems, minionProblem{path, err.Error()})
				return nil, false
			}
			text = b
		}
		v, err := decodeData(path, text)
		if err != nil {
			ms.problems = append(ms.problems, minionProblem{path, err.Error()})
			return nil, false
		}
		return unwrapLocal(v), true
	}
	asMap := func(path, what string, v any) map[string]any {
		if v == nil {
			return map[string]any{}
		}
		m, ok := v.(map[string]any)
		if !ok {
			ms.problems = append(ms.problems, minionProblem{path, fmt.Sprintf("%s is not a mapping (salt-call --out json writes {\"local\": {...}})", what)})
			return nil
		}
		return m
	}
	for _, e := range ents {
		name := e.Name()
		if strings.HasPrefix(name, ".") {
			continue
		}
		path := filepath.Join(dir, name)
		m := &minionData{}
		if e.IsDir() {
			m.id = name
			for _, what := range []string{"grains", "pillar"} {
				for _, ext := range []string{".json", ".yaml", ".yml"} {
					fp := filepath.Join(path, what+ext)
					if _, err := os.Stat(fp); err != nil {
						continue
					}
					m.from = append(m.from, fp)
					v, ok := read(fp)
					if !ok {
						m.id = ""
						break
					}
					mm := asMap(fp, what, v)
					if mm == nil {
						m.id = ""
						break
					}
					if what == "grains" {
						m.grains = mm
					} else {
						m.pillar = mm
					}
					break
				}
			}
			if m.id != "" && len(m.from) == 0 {
				continue // a folder without minion data
			}
		} else {
			ext := filepath.Ext(name)
			if ext != ".json" && ext != ".yaml" && ext != ".yml" {
				continue
			}
			m.id = strings.TrimSuffix(name, ext)
			m.from = []string{path}
			v, ok := read(path)
			if !ok {
				continue
			}
			top := asMap(path, "the minion's data", v)
			if top == nil {
				continue
			}
			_, hasG := top["grains"]
			_, hasP := top["pillar"]
			if !hasG && !hasP {
				ms.problems = append(ms.problems, minionProblem{path, "holds neither grains nor pillar: write {\"grains\": {...}, \"pillar\": {...}} (each as salt-call --out json prints it)"})
				continue
			}
			m.grains = asMap(path, "grains", unwrapLocal(top["grains"]))
			m.pillar = asMap(path, "pillar", unwrapLocal(top["pillar"]))
			if m.grains == nil || m.pillar == nil {
				continue
			}
		}
		if m.id == "" {
			continue
		}
		if m.grains == nil {
			m.grains = map[string]any{}
		}
		if m.pillar == nil {
			m.pillar = map[string]any{}
		}
		if _, ok := m.grains["id"]; !ok {
			m.grains["id"] = m.id
		}
		if ms.byID(m.id) != nil {
			ms.problems = append(ms.problems, minionProblem{path, fmt.Sprintf("minion %s is given twice", m.id)})
			continue
		}
		b, err := json.Marshal(map[string]any{"grains": jsonable(m.grains), "pillar": jsonable(m.pillar)})
		if err == nil {
			m.facts = string(b)
		}
		ms.minions = append(ms.minions, m)
	}
	sort.Slice(ms.minions, func(i, j int) bool { return ms.minions[i].id < ms.minions[j].id })
	return ms
}

// decodeData reads JSON or YAML.
func decodeData(path string, text []byte) (any, error) {
	var v any
	if filepath.Ext(path) == ".json" || bytes.HasPrefix(bytes.TrimSpace(text), []byte("{")) {
		dec := json.NewDecoder(bytes.NewReader(text))
		dec.UseNumber()
		if err := dec.Decode(&v); err != nil {
			return nil, fmt.Errorf("not valid JSON: %v", err)
		}
		return v, nil
	}
	if err := yaml.Unmarshal(text, &v); err != nil {
		return nil, fmt.Errorf("not valid YAML: %v", err)
	}
	return yamlNorm(v), nil
}

// unwrapLocal takes off salt-call's {"local": ...}.
func unwrapLocal(v any) any {
	if m, ok := v.(map[string]any); ok && len(m) == 1 {
		if l, ok := m["local"]; ok {
			return l
		}
	}
	return v
}

// yamlNorm turns yaml.v3's map[any]any-free output into the JSON shapes
// targeting reads (keys as strings).
func yamlNorm(v any) any {
	switch t := v.(type) {
	case map[string]any:
		for k, x := range t {
			t[k] = yamlNorm(x)
		}
		return t
	case map[any]any:
		out := map[string]any{}
		for k, x := range t {
			out[pyStr(k)] = yamlNorm(x)
		}
		return out
	case []any:
		for i, x := range t {
			t[i] = yamlNorm(x)
		}
		return t
	}
	return v
}

// jsonable turns json.Number back into numbers for the renderer.
func jsonable(v any) any {
	switch t := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(t))
		for k, x := range t {
			out[k] = jsonable(x)
		}
		return out
	case []any:
		out := make([]any, len(t))
		for i, x := range t {
			out[i] = jsonable(x)
		}
		return out
	case json.Number:
		if f, err := t.Float64(); err == nil {
			return f
		}
		return t.String()
	}
	return v
}

// decodeYAML reads YAML into v with string keys.
func decodeYAML(text []byte, v *map[string]any) error {
	var x any
	if err := yaml.Unmarshal(text, &x); err != nil {
		return err
	}
	m, ok := yamlNorm(x).(map[string]any)
	if !ok {
		return fmt.Errorf("not a mapping")
	}
	*v = m
	return nil
}
