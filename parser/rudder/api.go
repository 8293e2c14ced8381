package rudder

import (
	"fmt"
	"strconv"
)

// ImportJSON reads a Rudder JSON file: an API response (with the
// {"action", "result", "data"} envelope), the data object alone, a plain
// array of rules/directives/techniques/groups, one archive object
// (rules/ID.json, directives/.../ID.json, groups/.../ID.json), or one
// object holding several lists ({"rules":[...], "directives":[...],
// "techniques":[...]}). A truncated file yields a syntax error and every
// object that was complete before the cut.
func ImportJSON(text []byte) *File {
	f := &File{Format: "api-json"}
	root, err := ParseJSON(text)
	if err != nil {
		se, _ := err.(*SyntaxError)
		off := len(text)
		msg := err.Error()
		if se != nil {
			off, msg = se.Offset, se.Msg
		}
		end := off + 1
		if end > len(text) {
			end = len(text)
		}
		if off > len(text) {
			off = len(text)
		}
		f.Errors = append(f.Errors, Error{At: Span{off, end}, Code: "syntax", Msg: msg})
	}
	if root == nil {
		return f
	}
	im := &importer{f: f}
	im.walk(root, "", 0)
	return f
}

type importer struct {
	f *File
}

func (im *importer) shape(at Span, format string, args ...any) {
	im.f.Errors = append(im.f.Errors, Error{At: at, Code: "shape", Msg: fmt.Sprintf(format, args...)})
}

var containerKeys = []string{"rules", "directives", "techniques", "groups"}

// walk classifies v. hint is the list key v was found under ("rules",
// "directives", ...), "" when unknown.
func (im *importer) walk(v *JSON, hint string, depth int) {
	if v == nil || depth > 16 {
		return
	}
	switch v.Kind {
	case JArray:
		for _, it := range v.Items {
			im.walk(it, hint, depth+1)
		}
		return
	case JObject:
	default:
		return
	}
	if !v.Closed {
		// Cut short by a syntax error: still look inside containers (the
		// complete rules before the cut), never half an item.
		if hint != "" || v.Get("id") != nil {
			return
		}
	}
	if d := v.Get("data"); d != nil && d.Kind == JObject && isNCFTechnique(v) {
		// {"data": <technique editor JSON>, "type": "ncf_technique",
		// "version": ...}: rudder-synchronize's techniques/ID.json, the
		// technique editor's export. "version" is the wrapper's.
		if d.Closed {
			im.technique(d)
		}
		return
	}
	if d := v.Get("data"); d != nil && (d.Kind == JObject || d.Kind == JArray) && (v.Get("action") != nil || v.Get("result") != nil || (v.Get("id") == nil && v.Get("displayName") == nil)) {
		im.walk(d, hint, depth+1)
		return
	}
	if isContainer(v) {
		for _, m := range v.Members {
			for _, k := range containerKeys {
				if m.Key == k && (m.Value.Kind == JArray || m.Value.Kind == JObject) {
					im.walk(m.Value, k, depth+1)
				}
			}
		}
		return
	}
	if v.Get("compliance") != nil || v.Get("complianceDetails") != nil {
		// Compliance reports list rules and directives with their
		// compliance, not their definitions.
		return
	}
	if hint == "" && v.Get("id") == nil {
		// A lone object without an id is not a Rudder export (technique
		// test inputs look like directives without ids).
		return
	}
	switch kind := classify(v, hint); kind {
	case "rules":
		im.rule(v)
	case "directives":
		im.directive(v)
	case "techniques":
		im.technique(v)
	case "groups":
		im.group(v)
	}
}

// isNCFTechnique recognises the wrapper of an exported editor technique.
func isNCFTechnique(v *JSON) bool {
	t, ok := str(v.Get("type"))
	return ok && t.Value == "ncf_technique"
}

func isContainer(v *JSON) bool {
	if v.Get("id") != nil || v.Get("displayName") != nil || v.Get("techniqueName") != nil || v.Get("targets") != nil {
		return false
	}
	for _, k := range containerKeys {
		if x := v.Get(k); x != nil && (x.Kind == JArray || (x.Kind == JObject && k == "techniques")) {
			return true
		}
	}
	return false
}

func classify(v *JSON, hint string) string {
	switch {
	case v.Get("techniqueName") != nil:
		return "directives"
	case v.Get("targets") != nil:
		return "rules"
	case v.Get("directives") != nil && v.Get("directives").Kind == JArray && v.Get("id") != nil:
		return "rules"
	case v.Get("query") != nil || v.Get("nodeIds") != nil || v.Get("dynamic") != nil:
		return "groups"
	case v.Get("versions") != nil || v.Get("calls") != nil || v.Get("multiInstance") != nil || v.Get("policyGeneration") != nil:
		return "techniques"
	}
	return hint
}

func str(v *JSON) (Str, bool) {
	if v == nil || v.Kind != JString {
		return Str{}, false
	}
	return Str{Value: v.Str, At: v.Inner(), Set: true}, true
}

// firstStr returns the first of keys that is a string.
func firstStr(v *JSON, keys ...string) Str {
	for _, k := range keys {
		if s, ok := str(v.Get(k)); ok {
			return s
		}
	}
	return Str{At: Span{v.Start, v.Start}}
}

func firstBool(v *JSON, def bool, keys ...string) (bool, Span) {
	for _, k := range keys {
		x := v.Get(k)
		if x == nil {
			continue
		}
		switch x.Kind {
		case JBool:
			return x.Bool, Span{x.Start, x.End}
		case JString:
			if b, err := strconv.ParseBool(x.Str); err == nil {
				return b, x.Inner()
			}
		}
	}
	return def, Span{v.Start, v.Start}
}

func (im *importer) rule(v *JSON) {
	r := &Rule{Full: Span{v.Start, v.End}}
	r.ID = firstStr(v, "id")
	if !r.ID.Set {
		im.shape(Span{v.Start, v.Start + 1}, "rule without an \"id\"")
		return
	}
	r.Name = firstStr(v, "displayName", "name")
	if !r.Name.Set {
		r.Name = Str{Value: r.ID.Value, At: r.ID.At}
	}
	r.Category = firstStr(v, "categoryId", "category")
	for _, k := range []string{"directives", "directiveIds"} {
		d := v.Get(k)
		if d == nil {
			continue
		}
		if d.Kind != JArray {
			im.shape(Span{d.Start, d.End}, "rule %q: \"%s\" must be an array of directive ids", r.Name.Value, k)
			break
		}
		for _, it := range d.Items {
			s, ok := str(it)
			if !ok {
				im.shape(Span{it.Start, it.End}, "rule %q: directive ids are strings", r.Name.Value)
				continue
			}
			r.Directives = append(r.Directives, s)
		}
		break
	}
	if t := v.Get("targets"); t != nil {
		r.Targets = im.target(t, 0)
		r.TargetsAt = Span{t.Start, t.End}
	}
	r.Enabled, r.EnabledAt = firstBool(v, true, "enabled", "isEnabled")
	r.System, _ = firstBool(v, false, "system", "isSystem")
	im.f.Rules = append(im.f.Rules, r)
}

func (im *importer) target(v *JSON, depth int) *Target {
	if v == nil || depth > MaxDepth {
		return nil
	}
	switch v.Kind {
	case JString:
		s, _ := str(v)
		return &Target{Simple: s}
	case JArray:
		t := &Target{Op: "or"}
		for _, it := range v.Items {
			if x := im.target(it, depth+1); x != nil {
				t.Items = append(t.Items, x)
			}
		}
		return t
	case JObject:
		if v.Get("include") != nil || v.Get("exclude") != nil {
			return &Target{Op: "include-exclude", Include: im.target(v.Get("include"), depth+1), Exclude: im.target(v.Get("exclude"), depth+1)}
		}
		for _, op := range []string{"or", "and"} {
			if x := v.Get(op); x != nil {
				t := im.target(x, depth+1)
				if t != nil && t.Op == "or" {
					t.Op = op
				}
				return t
			}
		}
	}
	im.shape(Span{v.Start, v.End}, "unrecognised rule target (expected \"group:ID\", \"special:all\", or {\"include\":{\"or\":[...]}, \"exclude\":{\"or\":[...]}})")
	return nil
}

func (im *importer) directive(v *JSON) {
	d := &Directive{Full: Span{v.Start, v.End}, Priority: 5}
	d.ID = firstStr(v, "id")
	if !d.ID.Set {
		im.shape(Span{v.Start, v.Start + 1}, "directive without an \"id\"")
		return
	}
	d.Name = firstStr(v, "displayName", "name")
	if !d.Name.Set {
		d.Name = Str{Value: d.ID.Value, At: d.ID.At}
	}
	d.TechniqueName = firstStr(v, "techniqueName")
	d.TechniqueVersion = firstStr(v, "techniqueVersion")
	if p := v.Get("priority"); p != nil {
		switch p.Kind {
		case JNumber:
			d.Priority, d.PrioritySet = int(p.Num), true
		case JString:
			if n, err := strconv.Atoi(p.Str); err == nil {
				d.Priority, d.PrioritySet = n, true
			}
		}
		if !d.PrioritySet {
			im.shape(Span{p.Start, p.End}, "directive %q: \"priority\" must be a number from 0 (highest) to 10", d.Name.Value)
		}
		d.PriorityAt = Span{p.Start, p.End}
	}
	d.Enabled, d.EnabledAt = firstBool(v, true, "enabled", "isEnabled")
	d.System, _ = firstBool(v, false, "system", "isSystem")
	d.PolicyMode = firstStr(v, "policyMode")
	if p := v.Get("parameters"); p != nil {
		d.Vars = params(p)
	}
	im.f.Directives = append(im.f.Directives, d)
}

// params flattens directive parameters: the section tree of the API
// ({"section":{"name":..., "vars":[{"var":{"name","value"}}], "sections":[...]}})
// or the flat map of old exports ({"VAR": ["v1", "v2"]}).
func params(p *JSON) []Var {
	var out []Var
	if p.Kind != JObject {
		return nil
	}
	if s := p.Get("section"); s != nil && s.Kind == JObject {
		var walk func(s *JSON, path string, inst int, depth int)
		walk = func(s *JSON, path string, inst int, depth int) {
			if depth > MaxDepth {
				return
			}
			if vars := s.Get("vars"); vars != nil && vars.Kind == JArray {
				for _, it := range vars.Items {
					vv := it.Get("var")
					if vv == nil {
						vv = it
					}
					name := firstStr(vv, "name")
					val := firstStr(vv, "value")
					if name.Set {
						out = append(out, Var{Section: path, Instance: inst, Name: name, Value: val})
					}
				}
			}
			if subs := s.Get("sections"); subs != nil && subs.Kind == JArray {
				count := map[string]int{}
				for _, it := range subs.Items {
					sub := it.Get("section")
					if sub == nil {
						sub = it
					}
					if sub.Kind != JObject {
						continue
					}
					name := firstStr(sub, "name").Value
					sp := name
					if path != "" {
						sp = path + "/" + name
					}
					walk(sub, sp, count[name], depth+1)
					count[name]++
				}
			}
		}
		walk(s, "", 0, 0)
		return out
	}
	for _, m := range p.Members {
		name := Str{Value: m.Key, At: m.KeyAt, Set: true}
		switch m.Value.Kind {
		case JString:
			s, _ := str(m.Value)
			out = append(out, Var{Name: name, Value: s})
		case JArray:
			for i, it := range m.Value.Items {
				if s, ok := str(it); ok {
					out = append(out, Var{Instance: i, Name: name, Value: s})
				}
			}
		}
	}
	return out
}

func (im *importer) technique(v *JSON) {
	if vs := v.Get("versions"); vs != nil && vs.Kind == JArray {
		id := firstStr(v, "name", "id")
		for _, it := range vs.Items {
			ver, ok := str(it)
			if !ok {
				continue
			}
			im.f.Techniques = append(im.f.Techniques, &Technique{ID: id, Version: ver, Name: id, Source: "api", Full: Span{v.Start, v.End}})
		}
		return
	}
	t := &Technique{Full: Span{v.Start, v.End}, Source: "api"}
	t.ID = firstStr(v, "id", "bundle_name")
	t.Name = firstStr(v, "name")
	if !t.ID.Set {
		t.ID = t.Name
	}
	if !t.ID.Set {
		im.shape(Span{v.Start, v.Start + 1}, "technique without an \"id\" or \"name\"")
		return
	}
	if !t.Name.Set {
		t.Name = t.ID
	}
	t.Version = firstStr(v, "version")
	ps := v.Get("parameters")
	if ps == nil || ps.Kind != JArray {
		ps = v.Get("parameter") // the editor's JSON before Rudder 8
	}
	if ps != nil && ps.Kind == JArray {
		// The technique editor's rule (TechniqueWriter, then rudderc):
		// parameters make a technique multi-instance, one policy per
		// directive with its parameters; without parameters it is unique.
		t.Known = true
		t.MultiInstance = len(ps.Items) > 0
		g := Separated
		if t.MultiInstance {
			g = SeparatedWithParameters
		}
		t.Generation = Str{Value: g, At: Span{ps.Start, ps.Start}}
	}
	// Our extension for hand-written workspaces: say it directly.
	if x := v.Get("multiInstance"); x != nil && x.Kind == JBool {
		t.Known, t.MultiInstance = true, x.Bool
		if !t.Generation.Set {
			t.Generation = Str{Value: Merged, At: Span{x.Start, x.Start}}
		}
	}
	if g, ok := str(v.Get("policyGeneration")); ok {
		t.Generation = g
	}
	t.System, _ = firstBool(v, false, "system", "isSystem")
	if pt := v.Get("policyTypes"); pt != nil && pt.Kind == JArray {
		for _, it := range pt.Items {
			if s, ok := str(it); ok {
				t.PolicyTypes = append(t.PolicyTypes, s.Value)
			}
		}
	}
	im.f.Techniques = append(im.f.Techniques, t)
}

func (im *importer) group(v *JSON) {
	g := &Group{Full: Span{v.Start, v.End}}
	g.ID = firstStr(v, "id")
	if !g.ID.Set {
		im.shape(Span{v.Start, v.Start + 1}, "group without an \"id\"")
		return
	}
	g.Name = firstStr(v, "displayName", "name")
	if !g.Name.Set {
		g.Name = g.ID
	}
	im.f.Groups = append(im.f.Groups, g)
}
