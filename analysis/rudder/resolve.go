package rudder

import (
	"fmt"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/ordering-lsp/ordering-lsp/analysis"
	prs "github.com/ordering-lsp/ordering-lsp/parser/rudder"
	"github.com/ordering-lsp/ordering-lsp/source"
)

// where names a place as `file:line` with the file's base name, so
// messages read the same on every machine.
func (a *analyzer) where(at source.Span) string {
	name := at.URI
	if p := source.URIToPath(at.URI); p != "" {
		name = filepath.Base(p)
	}
	if f := analysis.FileOf(a.req.Workspace, at.URI); f != nil {
		l, _ := f.Line1Col1(at.Start)
		return fmt.Sprintf("%s:%d", name, l)
	}
	return name
}

// whereIn names a place as `path:line` with the path relative to dir
// when it lies inside it.
func (a *analyzer) whereIn(dir string, at source.Span) string {
	p := source.URIToPath(at.URI)
	rel, err := filepath.Rel(dir, p)
	if p == "" || err != nil || strings.HasPrefix(rel, "..") {
		return a.where(at)
	}
	s := a.where(at)
	if i := strings.LastIndexByte(s, ':'); i >= 0 {
		return filepath.ToSlash(rel) + s[i:]
	}
	return filepath.ToSlash(rel)
}

func declOf(uri string, name, id prs.Str, full prs.Span) source.Span {
	if name.Set && name.At.End > name.At.Start {
		return span(uri, name.At)
	}
	if id.Set {
		return span(uri, id.At)
	}
	return span(uri, prs.Span{Start: full.Start, End: full.Start})
}

// resolve builds the nodes, drops duplicates, links rules to directives
// and groups, directives to techniques, and decides which rules apply.
func (a *analyzer) resolve() {
	g := &a.res.Graph

	// Techniques: one per (id, version). metadata.xml beats technique.yml
	// (rudderc generates the first from the second) beats the API.
	rankOf := func(t *technique) int {
		switch {
		case t.Source == "metadata.xml":
			return 3
		case t.Source == "technique.yml":
			return 2
		case t.Known:
			return 1
		}
		return 0
	}
	// Two definitions of one (id, version) in one library and one format
	// are what Rudder refuses (two categories of one techniques/ tree, even
	// as identical copies); across libraries (see library) they never
	// meet, and outside a real library an identical copy is no duplicate.
	firstIn := map[string]*technique{}
	for _, t := range a.techniques {
		if !t.Known {
			continue
		}
		lib, real := a.library(t)
		key := lib + "\x00" + t.Source + "\x00" + t.ID.Value + "\x00" + t.Version.Value
		old, ok := firstIn[key]
		if !ok {
			firstIn[key] = t
			continue
		}
		if old.uri == t.uri || (!real && a.sameTechniqueText(old, t)) {
			continue
		}
		first := declOf(old.uri, old.Name, old.ID, old.Full)
		msg := fmt.Sprintf("duplicate technique %s: already defined at %s", t.label(), a.whereIn(lib, first))
		if real {
			// Rudder's words: "Ignoring package for policy with ID ...
			// because an other policy is already defined with that id"
			msg = fmt.Sprintf("duplicate technique %s in the technique library %s: already defined at %s; Rudder ignores this one",
				t.label(), filepath.Base(lib)+"/", a.whereIn(lib, first))
		}
		a.diag(declOf(t.uri, t.Name, t.ID, t.Full), analysis.Warning, "duplicate", msg,
			analysis.Related{At: first, Message: "first definition"})
	}
	byKey := map[string]*technique{}
	var techs []*technique
	for _, t := range a.techniques {
		key := t.ID.Value + "\x00" + t.Version.Value
		if old, ok := byKey[key]; ok {
			if rankOf(t) > rankOf(old) {
				*old = *t
			}
			continue
		}
		byKey[key] = t
		techs = append(techs, t)
	}
	a.techniques = techs
	for _, t := range a.techniques {
		t.node = g.Add(&analysis.Node{Kind: "technique", Ref: "Technique " + t.label(), Decl: declOf(t.uri, t.Name, t.ID, t.Full), Full: span(t.uri, t.Full), Container: true})
		a.techByID[t.ID.Value] = append(a.techByID[t.ID.Value], t)
		a.techFiles++
		if g := t.Generation; g.Set && t.Source == "metadata.xml" {
			switch strings.ToLower(g.Value) {
			case prs.Merged, prs.Separated, prs.SeparatedWithParameters:
			default:
				a.diag(span(t.uri, g.At), analysis.Warning, "policy-generation",
					fmt.Sprintf("Value '%s' is not recognized as TechniqueGenerationMode. Accepted values are: 'merged', 'separated', 'separated-with-parameters' (Rudder falls back to 'merged' without a word)", g.Value))
			}
		}
	}

	// Groups.
	a.groupByID = map[string]*group{}
	for _, gr := range a.groups {
		if old, ok := a.groupByID[gr.ID.Value]; ok {
			if old.uri != gr.uri || old.Full != gr.Full {
				a.duplicate("group", gr.ID.Value, gr.uri, gr.Name, gr.ID, gr.Full, old.uri, old.Name, old.ID, old.Full)
			}
			continue
		}
		a.groupByID[gr.ID.Value] = gr
		gr.node = g.Add(&analysis.Node{Kind: "group", Ref: fmt.Sprintf("Group %q", gr.Name.Value), Decl: declOf(gr.uri, gr.Name, gr.ID, gr.Full), Full: span(gr.uri, gr.Full), Container: true})
	}

	// Directives.
	a.dirByID = map[string]*directive{}
	var dirs []*directive
	for _, d := range a.directives {
		if old, ok := a.dirByID[d.ID.Value]; ok {
			if sameDirective(old.Directive, d.Directive) {
				continue
			}
			a.duplicate("directive", d.ID.Value, d.uri, d.Name, d.ID, d.Full, old.uri, old.Name, old.ID, old.Full)
			continue
		}
		a.dirByID[d.ID.Value] = d
		dirs = append(dirs, d)
		d.node = g.Add(&analysis.Node{Kind: "directive", Ref: fmt.Sprintf("Directive %q", d.Name.Value), Decl: declOf(d.uri, d.Name, d.ID, d.Full), Full: span(d.uri, d.Full)})
		if d.PrioritySet && (d.Priority < 0 || d.Priority > 10) {
			a.diag(span(d.uri, d.PriorityAt), analysis.Warning, "priority",
				fmt.Sprintf("directive %q has priority %d: Rudder priorities go from 0 (highest) to 10 (lowest)", d.Name.Value, d.Priority))
		}
	}
	a.directives = dirs
	for _, d := range a.directives {
		a.techniqueOf(d)
	}

	// Rules.
	a.ruleByID = map[string]*rule{}
	var rules []*rule
	for _, r := range a.rules {
		if old, ok := a.ruleByID[r.ID.Value]; ok {
			if sameRule(old.Rule, r.Rule) {
				continue
			}
			a.duplicate("rule", r.ID.Value, r.uri, r.Name, r.ID, r.Full, old.uri, old.Name, old.ID, old.Full)
			continue
		}
		a.ruleByID[r.ID.Value] = r
		rules = append(rules, r)
		r.node = g.Add(&analysis.Node{Kind: "rule", Ref: fmt.Sprintf("Rule %q", r.Name.Value), Decl: declOf(r.uri, r.Name, r.ID, r.Full), Full: span(r.uri, r.Full), Container: true})
	}
	a.rules = rules

	nodeGroups := splitList(a.req.Settings.Get("rudder.nodeGroups", ""))
	if len(nodeGroups) == 0 {
		a.nodeDesc = "a node targeted by every enabled rule"
	} else {
		a.nodeDesc = "a node in " + strings.Join(nodeGroups, ", ")
	}
	for _, r := range a.rules {
		seenDir := map[string]bool{}
		for _, ref := range r.Directives {
			at := span(r.uri, ref.At)
			d := a.dirByID[ref.Value]
			if uid, _, ok := strings.Cut(ref.Value, "+"); d == nil && ok {
				d = a.dirByID[uid] // a revision: "uid+rev"
			}
			if d == nil && len(a.dirByID) == 0 {
				// A rules export alone: the directives live elsewhere.
				continue
			}
			if d == nil {
				sev := analysis.Error
				if !r.Enabled {
					sev = analysis.Warning
				}
				a.diag(at, sev, "missing-directive",
					fmt.Sprintf("Cannot find directive with id '%s' when building rule '%s' (%s)", ref.Value, r.Name.Value, r.ID.Value))
				if r.Enabled {
					a.refused = true
				}
				continue
			}
			a.res.Links = append(a.res.Links, analysis.Link{At: at, Nodes: []*analysis.Node{d.node}})
			g.Connect(&analysis.Edge{From: r.node, To: d.node, Kind: analysis.Reference, Reason: "directives", At: at})
			if seenDir[ref.Value] {
				continue
			}
			seenDir[ref.Value] = true
			d.rules = append(d.rules, r)
			r.dirs = append(r.dirs, d)
			if r.Enabled && !d.Enabled {
				a.diag(at, analysis.Warning, "disabled-directive",
					fmt.Sprintf("Directive '%s' disabled: rule '%s' still references it but does not apply it", d.Name.Value, r.Name.Value),
					analysis.Related{At: d.node.Decl, Message: "the disabled directive"})
			}
		}
		if !r.Enabled && len(r.Directives) > 0 {
			a.diag(r.node.Decl, analysis.Info, "disabled-rule",
				fmt.Sprintf("Rule '%s' is disabled: its %d directive reference(s) apply to no node", r.Name.Value, len(r.Directives)))
		}
		for _, t := range r.Targets.Simples() {
			id, ok := strings.CutPrefix(t.Value, "group:")
			if !ok {
				continue
			}
			at := span(r.uri, t.At)
			if gr := a.groupByID[id]; gr != nil {
				a.res.Links = append(a.res.Links, analysis.Link{At: at, Nodes: []*analysis.Node{gr.node}})
				g.Connect(&analysis.Edge{From: r.node, To: gr.node, Kind: analysis.Reference, Reason: "targets", At: at})
			} else if len(a.groupByID) > 0 {
				a.diag(at, analysis.Warning, "missing-group",
					fmt.Sprintf("rule '%s' targets group '%s', which is not among the %d groups of the workspace", r.Name.Value, id, len(a.groupByID)))
			}
		}
		noTarget := r.Targets != nil && len(r.Targets.Simples()) == 0
		if noTarget && r.Enabled && len(r.Directives) > 0 {
			a.diag(span(r.uri, r.TargetsAt), analysis.Info, "no-target",
				fmt.Sprintf("rule '%s' has no target: it applies to no node", r.Name.Value))
		}
		r.applies = r.Enabled && !noTarget && (len(nodeGroups) == 0 || a.matches(r.Targets, nodeGroups, 0))
	}
}

// sameRule and sameDirective: one object exported twice (an API dump
// and an archive of the same server) is not a conflict; only what changes
// the generated policies is compared.
func sameRule(a, b *prs.Rule) bool {
	if a.Name.Value != b.Name.Value || a.Enabled != b.Enabled || len(a.Directives) != len(b.Directives) {
		return false
	}
	for i := range a.Directives {
		if a.Directives[i].Value != b.Directives[i].Value {
			return false
		}
	}
	at, bt := a.Targets.Simples(), b.Targets.Simples()
	if len(at) != len(bt) {
		return false
	}
	for i := range at {
		if at[i].Value != bt[i].Value {
			return false
		}
	}
	return true
}

func sameDirective(a, b *prs.Directive) bool {
	return a.Name.Value == b.Name.Value && a.TechniqueName.Value == b.TechniqueName.Value &&
		a.TechniqueVersion.Value == b.TechniqueVersion.Value && a.Priority == b.Priority &&
		a.Enabled == b.Enabled && a.PolicyMode.Value == b.PolicyMode.Value && a.System == b.System
}

func (a *analyzer) duplicate(kind, id, uri string, name, idStr prs.Str, full prs.Span, oldURI string, oldName, oldID prs.Str, oldFull prs.Span) {
	first := declOf(oldURI, oldName, oldID, oldFull)
	a.diag(declOf(uri, name, idStr, full), analysis.Error, "duplicate",
		fmt.Sprintf("duplicate %s id '%s': %s %q is already defined at %s; this one is ignored", kind, id, kind, oldName.Value, a.where(first)),
		analysis.Related{At: first, Message: "first definition"})
}

// nearTechnique is the id of a technique of the workspace one or two
// edits from name ("" none).
func (a *analyzer) nearTechnique(name string) string {
	best, bestD := "", 3
	for id := range a.techByID {
		if d := analysis.EditDistance(strings.ToLower(name), strings.ToLower(id)); d < bestD || d == bestD && id < best {
			best, bestD = id, d
		}
	}
	return best
}

// techniqueOf finds the technique of a directive by name and version.
func (a *analyzer) techniqueOf(d *directive) {
	name, version := d.TechniqueName.Value, d.TechniqueVersion.Value
	at := span(d.uri, d.TechniqueName.At)
	cands := a.techByID[name]
	if len(cands) == 0 {
		if a.techFiles > 0 && d.TechniqueName.Set {
			// The server's technique library is outside the workspace
			// (Rudder's standard techniques, plugins', other
			// repositories'): information saying what is assumed and how
			// to make it known, unless the id is a near miss of one the
			// workspace has (a typo: the directive fails on the server).
			msg := fmt.Sprintf("unknown technique '%s' for directive '%s' [%s]: no metadata.xml, technique.yml or API technique with this id in the workspace", name, d.Name.Value, d.ID.Value)
			sev := analysis.Info
			if b, ok := builtins[name]; ok {
				msg += "; assuming Rudder's standard technique (" + describeBuiltin(b) + ")"
			} else if near := a.nearTechnique(name); near != "" {
				sev = analysis.Warning
				msg += fmt.Sprintf("; did you mean '%s'? Treated as unique (not multi-instance)", near)
			} else {
				msg += "; treated as unique (not multi-instance): the server's technique library or a plugin may have it; add its metadata.xml or technique.yml to the workspace to have it checked"
			}
			a.diag(at, sev, "unknown-technique", msg)
		}
		d.tech = a.synthetic(name)
		return
	}
	var pick *technique
	for _, t := range cands {
		if t.Version.Value == version {
			pick = t
		}
	}
	if pick == nil {
		for _, t := range cands {
			if pick == nil || (t.Known && !pick.Known) || (t.Known == pick.Known && versionLess(pick.Version.Value, t.Version.Value)) {
				pick = t
			}
		}
		if version != "" {
			a.diag(span(d.uri, d.TechniqueVersion.At), analysis.Warning, "unknown-technique",
				fmt.Sprintf("Version '%s' of technique '%s' is not available for directive '%s' [%s]; using version %s", version, name, d.Name.Value, d.ID.Value, pick.Version.Value))
		}
	}
	if !pick.Known {
		// An API listing names the technique but does not say whether it is
		// multi-instance: borrow the standard library's answer.
		if b, ok := builtins[name]; ok {
			applyBuiltin(pick, b)
		}
	}
	d.tech = pick
	a.res.Links = append(a.res.Links, analysis.Link{At: at, Nodes: []*analysis.Node{pick.node}})
	a.res.Graph.Connect(&analysis.Edge{From: d.node, To: pick.node, Kind: analysis.Reference, Reason: "techniqueName", At: at})
}

func describeBuiltin(b builtinTechnique) string {
	switch {
	case b.system:
		return "system"
	case !b.multi:
		return "unique"
	}
	return "multi-instance, " + b.generation
}

func applyBuiltin(t *technique, b builtinTechnique) {
	t.builtin = true
	t.MultiInstance = b.multi
	t.Generation = prs.Str{Value: b.generation}
	t.System = b.system
	t.post = b.postAction
}

func (a *analyzer) synthetic(name string) *technique {
	if t, ok := a.synth[name]; ok {
		return t
	}
	t := &technique{Technique: &prs.Technique{ID: prs.Str{Value: name}}}
	if b, ok := builtins[name]; ok {
		applyBuiltin(t, b)
	}
	a.synth[name] = t
	return t
}

// versionLess compares technique versions numerically part by part.
func versionLess(a, b string) bool {
	pa, pb := strings.Split(a, "."), strings.Split(b, ".")
	for i := 0; i < len(pa) && i < len(pb); i++ {
		na, ea := strconv.Atoi(pa[i])
		nb, eb := strconv.Atoi(pb[i])
		if ea == nil && eb == nil {
			if na != nb {
				return na < nb
			}
			continue
		}
		if pa[i] != pb[i] {
			return pa[i] < pb[i]
		}
	}
	return len(pa) < len(pb)
}

// matches says whether a rule's targets include the node described by its
// groups (ids, names, or full targets like "policyServer:root").
func (a *analyzer) matches(t *prs.Target, groups []string, depth int) bool {
	if t == nil || depth > prs.MaxDepth {
		return false
	}
	switch t.Op {
	case "":
		v := t.Simple.Value
		switch v {
		case "special:all", "special:all_exceptPolicyServers", "special:all_nodes_without_role":
			return true
		}
		for _, g := range groups {
			if strings.EqualFold(g, v) {
				return true
			}
			if id, ok := strings.CutPrefix(v, "group:"); ok {
				if g == id {
					return true
				}
				if gr := a.groupByID[id]; gr != nil && strings.EqualFold(gr.Name.Value, g) {
					return true
				}
			}
		}
		return false
	case "and":
		if len(t.Items) == 0 {
			return false
		}
		for _, x := range t.Items {
			if !a.matches(x, groups, depth+1) {
				return false
			}
		}
		return true
	case "include-exclude":
		return a.matches(t.Include, groups, depth+1) && !(t.Exclude != nil && a.matches(t.Exclude, groups, depth+1))
	}
	for _, x := range t.Items {
		if a.matches(x, groups, depth+1) {
			return true
		}
	}
	return false
}
