package salt

import (
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/ordering-lsp/ordering-lsp/analysis"
	"github.com/ordering-lsp/ordering-lsp/internal/lazyre"
	sp "github.com/ordering-lsp/ordering-lsp/parser/salt"
	"gopkg.in/yaml.v3"
)

// Pillar trees hold data, not states, in the same SLS syntax. A tree under
// a pillar/ folder is not claimed at all (Owns); others are recognised by
// their top.sls: a top whose targets, as far as they exist under its
// folder, are all data (no state declaration anywhere) is a pillar top,
// and its folder a pillar tree (openSUSE heroes-salt's t/lib, which its
// Dockerfile copies to /srv/pillar). Nothing there is analysed as states.

// pillarTree reports whether the tree's top.sls is a pillar top.
func pillarTree(t *tree, top *sfile) bool {
	if top == nil || !topShaped(top) {
		return false
	}
	found := 0
	for _, e := range top.p.Entries {
		for _, targets := range e.Val.Vals {
			for _, it := range targets.Items {
				name, ok := it.Str()
				if !ok || it.Kind != sp.Scalar || strings.Contains(name, sp.Unknown) {
					continue
				}
				rel := filepath.FromSlash(strings.ReplaceAll(name, ".", "/"))
				f := t.load(filepath.Join(t.root, rel+".sls"))
				if f == nil {
					f = t.load(filepath.Join(t.root, rel, "init.sls"))
				}
				if f == nil {
					continue
				}
				if !dataShaped(f) {
					return false
				}
				found++
			}
		}
	}
	return found > 0
}

// dataShaped: no ID holds a state declaration: each maps to a mapping
// whose keys are not a state module's `module.function` (`hosts:
// {controller.queens: 192.168.200.139}` is data) and whose lists name no function
// (pillar data), or to a scalar or list (a pillar's `vg_name:
// cinder-volumes`, `roles: [controller, compute]`: as states each is
// "ID ... is not a dictionary", no declaration). HCLTech-SSW's
// openstack_queens/data_root, the pillar_roots its README configures,
// holds both kinds beside lists of package names.
func dataShaped(f *sfile) bool {
	if len(f.p.Entries) == 0 {
		return false
	}
	for _, e := range f.p.Entries {
		if e.Opaque || e.Key == nil || e.Val == nil {
			return false
		}
		switch e.Key.Value {
		case "include", "extend", "exclude":
			return false // koenoe/saltstack's stack.sls: only includes
		}
		switch e.Val.Kind {
		case sp.Seq:
			continue
		case sp.Scalar:
			if v, _ := e.Val.Str(); e.Val.Tag == "!!null" || shortDeclaration(v) {
				return false
			}
			continue
		case sp.Map:
		default:
			return false
		}
		for i, k := range e.Val.Keys {
			v := e.Val.Vals[i]
			if shortDeclaration(k.Value) || v == nil || (v.Kind == sp.Seq && namesFunction(v, k.Value)) || (v.Kind == sp.Scalar && v.Tag == "!!null") {
				return false
			}
		}
	}
	return true
}

// shortDeclaration: an ID's scalar value Salt reads as `module.function`
// (render_state pads `web: pkg.installed` into a state); a dotted value
// whose first word is no state module of Salt's (`controller.queens`, a
// host name) is taken for data.
func shortDeclaration(v string) bool {
	if !stateFunRe.MatchString(v) {
		return false
	}
	mod, _, _ := strings.Cut(v, ".")
	return strings.Contains(mod, sp.Unknown) || stateModules()[mod]
}

// stateModules: the module names of Salt's state functions.
var stateModules = sync.OnceValue(func() map[string]bool {
	m := make(map[string]bool, 512)
	for fun := range stateFuncs {
		mod, _, _ := strings.Cut(fun, ".")
		m[mod] = true
	}
	return m
})

// funcNameRe: a state function's name, as a list item under a module
// (`- installed`); template output may write it.
var funcNameRe = lazyre.New(`^[A-Za-z_\x{E000}][\w\x{E000}]*$`)

// namesFunction: the list under key holds a scalar that can be a
// function name. A list of addresses, paths or package names with dashes
// (`forwarders: [8.8.8.8]`, `backup_paths: [/etc, /home]`) names none: as
// a state it is "Too many functions declared", no declaration anybody
// wrote. An item that is template output alone may be a function only
// under a Salt state module (`service: [{{ action }}]`):
// Ivan-7777's Estados-Parametrizados/main.sls, pillar data kept beside
// the states, lists `listen_on: ["{{ firewall.lan.ip }}"]`.
func namesFunction(v *sp.Node, key string) bool {
	for _, it := range v.Items {
		if it == nil || it.Kind != sp.Scalar {
			continue
		}
		s, ok := it.Str()
		if !ok || !funcNameRe.MatchString(s) {
			continue
		}
		if strings.Trim(s, sp.Unknown) != "" || strings.Contains(key, sp.Unknown) || stateModules()[key] {
			return true
		}
	}
	return false
}

// overStage: a stage of an OverState file (Salt before 2015.8; `match:`
// with `sls:` or `function:`, sroegner/accumulo-saltstack's
// overstate.sls), read by state.over, not applied as states.
func overStage(v *sp.Node) bool {
	var match, run bool
	for _, k := range v.Keys {
		switch k.Value {
		case "match":
			match = true
		case "sls", "function":
			run = true
		}
	}
	return match && run
}

// stateFunRe is a short declaration's `module.function` (either may be
// template output).
var stateFunRe = lazyre.New(`^[A-Za-z_\x{E000}][\w\x{E000}]*\.[A-Za-z_\x{E000}][\w\x{E000}]*$`)

// declaresStates: some ID of the file holds a state declaration (a
// `module.function:` key or value, or `module:` over a list naming its
// function), or the file includes, extends or excludes, or Jinja writes
// at least half of its IDs (then nobody can tell). A file named by no top.sls and no include that
// declares none is data kept beside the states (wuxxin/salt-shared
// app/gitops/template/pillar.template.sls, copied into a pillar by a
// script), not an SLS anybody applies: it is not analysed as states.
func declaresStates(f *sfile) bool {
	if len(f.p.Entries) == 0 {
		return true
	}
	opaque := 0
	for _, e := range f.p.Entries {
		if e.Opaque || e.Key == nil {
			opaque++ // written by Jinja: judged by the others
			continue
		}
		switch e.Key.Value {
		case "include", "extend", "exclude":
			return true
		}
		if e.Val == nil {
			continue
		}
		if v, ok := e.Val.Str(); ok && e.Val.Kind == sp.Scalar && stateFunRe.MatchString(v) {
			// `web: pkg.installed` (a URL, a list of hosts with dots is
			// data: codepkgs/saltstack's generated etcd pillar under the
			// states, `etcd_initial_cluster: 'etcd01=https://10.0...'`)
			return true
		}
		if e.Val.Kind != sp.Map || overStage(e.Val) {
			continue
		}
		for i, k := range e.Val.Keys {
			if strings.Contains(k.Value, ".") {
				return true
			}
			if v := e.Val.Vals[i]; v != nil && v.Kind == sp.Seq && namesFunction(v, e.Val.Keys[i].Value) {
				return true // `- installed`: a function name
			}
		}
	}
	return 2*opaque >= len(f.p.Entries) // mostly Jinja: nobody can tell
}

// exclusive: two requisite entries written in branches of Jinja
// conditions that no render takes together (arms of one if; `x` and
// `not x` on machine data). A cycle between them never happens.
func exclusive(a, b *reqEntry) bool {
	if a == nil || b == nil || a.f == nil || b.f == nil || a.inFrom != nil || b.inFrom != nil {
		return false
	}
	aa := entryArms(a)
	bb := entryArms(b)
	for _, x := range aa {
		for _, y := range bb {
			if a.f == b.f && sp.ArmsConflict(x, y) {
				return true
			}
			if a.f != b.f && globalConflict(x, y) {
				return true
			}
		}
	}
	return false
}

// globalConflict: across files only tests of machine data (pillar,
// grains, salt[...]) mean the same value; a template variable of one
// file is not another's.
func globalConflict(x, y sp.Arm) bool {
	for _, t := range x.Tests {
		for _, u := range y.Tests {
			if t.Subj == u.Subj && t.Pos != u.Pos && (strings.Contains(t.Subj, "pillar") || strings.Contains(t.Subj, "grains") || strings.Contains(t.Subj, "salt[")) {
				return true
			}
		}
	}
	return false
}

// arm is a Jinja branch of one file as an analysis.Branch (for
// analysis.FeasibleCycles): branch points are numbered per file.
type arm struct {
	f *sfile
	a sp.Arm
}

func (x arm) SamePoint(o analysis.Branch) bool {
	y, ok := o.(arm)
	return ok && x.f == y.f && x.a.Point == y.a.Point
}

func (x arm) SameArm(o analysis.Branch) bool {
	y, ok := o.(arm)
	return ok && x.f == y.f && x.a.Point == y.a.Point && x.a.Arm == y.a.Arm
}

func (x arm) Excludes(o analysis.Branch) bool {
	y, ok := o.(arm)
	if !ok {
		return false
	}
	if x.f == y.f {
		return sp.ArmsConflict(x.a, y.a)
	}
	return globalConflict(x.a, y.a)
}

// armsOf: the branches a requisite entry was written in.
func armsOf(e *reqEntry) []analysis.Branch {
	if e == nil || e.f == nil || e.inFrom != nil {
		return nil
	}
	var out []analysis.Branch
	for _, a := range entryArms(e) {
		out = append(out, arm{e.f, a})
	}
	return out
}

// entryArms lists the undecidable branches a requisite entry is written
// in or rendered from.
func entryArms(e *reqEntry) []sp.Arm {
	out := e.f.p.R.ArmsAt(e.span.Start)
	if e.node != nil && e.node.Start != e.span.Start {
		for _, a := range e.f.p.ArmsOf(e.node) {
			if !slices.ContainsFunc(out, func(b sp.Arm) bool { return b.Span == a.Span && b.Point == a.Point && b.Arm == a.Arm }) {
				out = append(out, a)
			}
		}
	}
	return out
}

// entryInAlt: a requisite entry exists only in some renders.
func entryInAlt(e *reqEntry) bool {
	return e.f != nil && (e.f.p.R.InAlt(e.span.Start) || e.f.p.InAltNode(e.node))
}

// armsText says which Jinja branches something needs, in the template's
// words.
func armsText(bs []analysis.Branch, tail ...string) string {
	var arms []sp.Arm
	var seen []string
	for _, b := range bs {
		if x, ok := b.(arm); ok && x.a.Text != "" {
			// (a condition written over several lines reads as one)
			if w := strings.Join(strings.Fields(x.a.Text), " "); !slices.Contains(seen, w) {
				seen = append(seen, w)
				arms = append(arms, x.a)
			}
		}
	}
	return sp.JoinArms(arms, tail...)
}

// loadFacts reads salt.facts (YAML or JSON: {grains: ..., pillar: ...})
// as JSON for the renderer; "" when unset or unreadable.
func loadFacts(req *analysis.Request) string {
	p := req.Settings.Get("salt.facts", "")
	if p == "" || req.Workspace == nil {
		return ""
	}
	if !filepath.IsAbs(p) {
		if rs := req.Workspace.Roots(); len(rs) > 0 {
			p = filepath.Join(rs[0], p)
		} else if abs, err := filepath.Abs(p); err == nil {
			p = abs
		}
	}
	f := req.Workspace.Lookup(p)
	if f == nil {
		return ""
	}
	var m map[string]any
	if yaml.Unmarshal(f.Text, &m) != nil {
		return ""
	}
	b, err := json.Marshal(m)
	if err != nil {
		return ""
	}
	return string(b)
}
