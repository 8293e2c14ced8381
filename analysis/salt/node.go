package salt

import (
	"fmt"
	"slices"
	"strings"

	"github.com/ordering-lsp/ordering-lsp/analysis"
	sp "github.com/ordering-lsp/ordering-lsp/parser/salt"
	"github.com/ordering-lsp/ordering-lsp/source"
)

// One minion's highstate (ordering.node names the minion, salt.minions
// gives its grains and pillar): the top data merged as
// HighState.merge_tops does with the default strategy (merge), the
// targets that minion matches (top_matches, confirm_top), the SLS they
// select per saltenv in that order (render_highstate), every file
// rendered with the minion's data.

// nodeSetting: the node chosen (analysis.NodeSetting: the CLI's --node,
// the editor's `ordering.node`, which the server maps to it).
func nodeSetting(s analysis.Settings) string {
	return s.Get(analysis.NodeSetting, "")
}

// Nodes implements analysis.NodeLister: the minions of the minion data
// folder (salt.minions), each with its data, so a check over all nodes
// analyses the workspace as each of them.
// ChecksEveryNode: with a minion data folder and no node chosen, Analyze
// already gives each minion its own highstate and marks each problem
// with the minions it occurs on (analysis.OwnNodeCheck).
func (s *System) ChecksEveryNode() bool { return true }

func (s *System) Nodes(req *analysis.Request) []analysis.NodeInfo {
	ms := loadMinions(req)
	if ms == nil {
		return nil
	}
	var out []analysis.NodeInfo
	for _, m := range ms.minions {
		detail := ""
		if os, ok := m.grains["osfinger"].(string); ok {
			detail = os
		} else if os, ok := m.grains["os"].(string); ok {
			detail = os
		}
		at := source.Span{}
		if len(m.from) > 0 {
			at.URI = source.PathToURI(m.from[0])
		}
		out = append(out, analysis.NodeInfo{Name: m.id, Detail: detail, At: at, Data: true})
	}
	return out
}

// topPick is one SLS entry a matched target gives.
type topPick struct {
	env  string
	name string // as written: an SLS name or an fnmatch pattern
	node *sp.Node
	f    *sfile
}

// topEnv is one saltenv section of the merged top data.
type topEnv struct {
	env     string
	targets []topTarget
}

// mergeTops is HighState.merge_tops: the top data of every saltenv
// (byEnv: its top file and what that includes, in order), merged as the
// master's top_file_merging_strategy says. envs is the order Salt
// gathers them in (_get_envs).
//
//   - merge (the default, and what Salt falls back to for a name it does
//     not know): base's top data is authoritative, every section of it
//     counts, in order of first appearance, a later file's target
//     replacing an earlier one's in place; another saltenv's top data
//     adds only its own section, and only when base's has none for it.
//   - same: each saltenv's section comes from its own top data only; a
//     saltenv without a top file takes its section from default_top's.
//   - merge_all: every section of every top file, in saltenv order; a
//     target given again keeps its place and gains the SLS it lacked, the
//     later matcher winning.
func mergeTops(strategy string, envs []string, byEnv map[string][]*sfile, defaultTop string) []topEnv {
	b := &topBuilder{idx: map[string]int{}}
	switch strategy {
	case "same":
		for _, env := range envs {
			from := byEnv[env]
			if !slices.ContainsFunc(from, hasTopData) {
				// no top file, or only empty ones (`{}`, an include
				// alone): default_top's top data
				from = byEnv[defaultTop]
			}
			for _, f := range from {
				b.add(f, env, false)
			}
		}
	case "merge_all":
		for _, env := range envs {
			for _, f := range byEnv[env] {
				b.add(f, "", true)
			}
		}
	default:
		for _, f := range byEnv["base"] {
			b.add(f, "", false)
		}
		for _, env := range envs {
			if env == "base" {
				continue
			}
			if _, done := b.idx[env]; done {
				continue
			}
			for _, f := range byEnv[env] {
				b.add(f, env, false)
			}
		}
	}
	return b.out
}

// hasTopData: the top file holds a key besides include (get_tops pops
// the includes before the merge; an empty mapping is what a saltenv
// without a top file has).
func hasTopData(f *sfile) bool {
	for _, e := range f.p.Entries {
		if e.Key != nil && e.Key.Value != "include" {
			return true
		}
	}
	return false
}

// topBuilder collects merged top data, section by section.
type topBuilder struct {
	out []topEnv
	idx map[string]int
}

// add takes the sections of a top file (only: only that saltenv's),
// each target replacing the same target's list, or (union) adding to it.
func (b *topBuilder) add(f *sfile, only string, union bool) {
	for _, e := range f.p.Entries {
		if e.Key == nil || e.Val == nil || e.Key.Value == "include" || e.Val.Kind != sp.Map {
			continue
		}
		env := e.Key.Value
		if only != "" && env != only {
			continue
		}
		i, ok := b.idx[env]
		if !ok {
			i = len(b.out)
			b.idx[env] = i
			b.out = append(b.out, topEnv{env: env})
		}
		te := &b.out[i]
		for j, k := range e.Val.Keys {
			tt := topTarget{env: env, target: k.Value, val: e.Val.Vals[j], f: f}
			if union {
				te.union(tt)
				continue
			}
			replaced := false
			for x := range te.targets {
				if te.targets[x].target == tt.target {
					te.targets[x] = tt
					replaced = true
					break
				}
			}
			if !replaced {
				te.targets = append(te.targets, tt)
			}
		}
	}
}

// union is _merge_tops_merge_all for one target: a target seen before
// keeps its place; its list becomes the later matcher (any mapping item
// counts as one, the last of a list; else the earlier's), the earlier
// SLS, then the later's it lacks. The SLS of each file stay entries of
// their own file (their spans are in it), one entry per file.
func (te *topEnv) union(tt topTarget) {
	first := slices.IndexFunc(te.targets, func(o topTarget) bool { return o.target == tt.target })
	if first < 0 {
		te.targets = append(te.targets, tt)
		return
	}
	readTgt := func(v *sp.Node) (match *sp.Node, states []*sp.Node) {
		if v == nil || v.Kind != sp.Seq {
			return nil, nil
		}
		for _, it := range v.Items {
			switch {
			case it == nil:
			case it.Kind == sp.Map:
				match = it
			case it.Kind == sp.Scalar:
				states = append(states, it)
			}
		}
		return match, states
	}
	last := first
	var have []string
	var match *sp.Node
	for x := first; x < len(te.targets) && te.targets[x].target == tt.target; x++ {
		m, st := readTgt(te.targets[x].val)
		if m != nil {
			match = m
		}
		for _, n := range st {
			s, _ := n.Str()
			have = append(have, s)
		}
		last = x
	}
	m2, st2 := readTgt(tt.val)
	if m2 != nil {
		match = m2
	}
	var fresh []*sp.Node
	for _, n := range st2 {
		s, _ := n.Str()
		if !slices.Contains(have, s) {
			have = append(have, s)
			fresh = append(fresh, n)
		}
	}
	rebuild := func(old topTarget, states []*sp.Node) topTarget {
		items := make([]*sp.Node, 0, len(states)+1)
		if match != nil {
			items = append(items, match)
		}
		items = append(items, states...)
		orig := old.orig
		if orig == nil {
			orig = old.val
		}
		return topTarget{env: old.env, target: old.target, val: &sp.Node{Kind: sp.Seq, Items: items}, f: old.f, orig: orig}
	}
	for x := first; x <= last; x++ {
		_, st := readTgt(te.targets[x].val)
		te.targets[x] = rebuild(te.targets[x], st)
	}
	seg := rebuild(tt, fresh)
	te.targets = append(te.targets[:last+1], append([]topTarget{seg}, te.targets[last+1:]...)...)
}

// matcherOf: the last `- match: NAME` item of a target's list (compound
// when none, as confirm_top has it).
func matcherOf(v *sp.Node) string {
	m := ""
	if v == nil || v.Kind != sp.Seq {
		return m
	}
	for _, it := range v.Items {
		if it != nil && it.Kind == sp.Map {
			if x := mapGet(it, "match"); x != nil {
				if s, ok := x.Str(); ok {
					m = s
				}
			}
		}
	}
	return m
}

// topMatches is HighState.top_matches for one minion: per saltenv (in
// the order the first matched target creates it), the SLS entries of the
// targets it matches. A target the minion's data cannot decide (maybe)
// is taken and reported in undecided.
func topMatches(top []topEnv, m *minion, nodegroups map[string]any, envExists func(string) bool) (envs []string, picks map[string][]topPick, undecided []topTarget) {
	picks = map[string][]topPick{}
	addEnv := func(env string) {
		if _, ok := picks[env]; !ok {
			picks[env] = nil
			envs = append(envs, env)
		}
	}
	for _, te := range top {
		for _, tt := range te.targets {
			if strings.Contains(tt.target, sp.Unknown) {
				undecided = append(undecided, tt)
			} else {
				switch m.targetMatch(tt.target, matcherOf(tt.val), nodegroups) {
				case no:
					continue
				case maybe:
					undecided = append(undecided, tt)
				}
			}
			addEnv(te.env)
			v := tt.val
			if v == nil {
				continue
			}
			var items []*sp.Node
			switch v.Kind {
			case sp.Seq:
				items = v.Items
			case sp.Scalar:
				items = []*sp.Node{v} // `'*': core` (a string is a one-item list)
			}
			for _, it := range items {
				if it == nil {
					continue
				}
				if it.Kind == sp.Scalar {
					if s, ok := it.Str(); ok {
						picks[te.env] = append(picks[te.env], topPick{te.env, s, it, tt.f})
					}
					continue
				}
				if it.Kind == sp.Map && len(it.Keys) > 0 {
					// {saltenv: sls}: popitem takes the last key; `match`
					// (no saltenv of that name) is skipped
					k := it.Keys[len(it.Keys)-1].Value
					if k == "match" || !envExists(k) {
						continue
					}
					if s, ok := it.Vals[len(it.Keys)-1].Str(); ok {
						addEnv(k)
						picks[k] = append(picks[k], topPick{k, s, it.Vals[len(it.Keys)-1], tt.f})
					}
				}
			}
		}
	}
	return envs, picks, undecided
}

// runTopNode builds the highstate of one minion.
func (a *analyzer) runTopNode(t *tree, tops []*sfile, m *minionData) {
	top := tops[0]
	merged, avail := a.mergedTops(t, tops)
	envExists := func(env string) bool {
		if env == "base" {
			return true
		}
		if a.cfg != nil && len(a.cfg.envOrder) > 0 {
			return slices.Contains(avail, env) // HighState.avail: _get_envs
		}
		if env == t.env {
			return true
		}
		_, ok := a.envTrees[env]
		return ok
	}
	if at, key, bad := topConflict(tops); bad {
		a.diag(analysis.Diagnostic{At: at, Severity: analysis.Error, Code: "syntax",
			Message: fmt.Sprintf("Unable to render top file: found conflicting ID '%s' (the top data is empty: no minion gets any state)", key)})
		merged = nil
	}
	envs, picks, undecided := topMatches(merged, &m.minion, a.nodegroups, envExists)
	for _, tt := range undecided {
		a.diag(analysis.Diagnostic{At: tt.f.spanOfKey(tt.target, tt.written()), Severity: analysis.Info, Code: "undecided-target",
			Message: fmt.Sprintf("the minion's data cannot decide whether target '%s' matches it (a regular expression Go cannot read, a matcher on data not given, a templated target): its SLS are taken", strings.ReplaceAll(tt.target, sp.Unknown, "…"))})
	}
	// every SLS any target names is linked (go-to-definition in the top
	// file), and is not "applied alone" for the diagnostics
	if a.topNamed == nil {
		a.topNamed = map[string]bool{}
	}
	for _, te := range merged {
		et := t
		if x := a.envTrees[te.env]; x != nil && te.env != t.env {
			et = x
		}
		for _, tt := range te.targets {
			if tt.val == nil || tt.val.Kind != sp.Seq {
				continue
			}
			for _, it := range tt.val.Items {
				s, ok := it.Str()
				if !ok || it.Kind != sp.Scalar || strings.Contains(s, sp.Unknown) {
					continue
				}
				for _, n := range et.avail() {
					if fnmatchPy(n, s) {
						if tf := et.bySLS(n); tf != nil {
							a.topNamed[tf.file.URI] = true
							a.link(tt.f.span(it), nil, []source.Span{{URI: tf.file.URI}})
						}
					}
				}
			}
		}
	}
	build := func(dry bool) (*compiler, *high) {
		c := a.newCompiler(t, dry)
		hs := newHigh()
		for _, env := range envs {
			if env != "base" && a.cfg != nil && len(a.cfg.envOrder) > 0 && !slices.Contains(avail, env) {
				// render_highstate: a saltenv env_order leaves out is not
				// available; Salt reports it and applies nothing
				if ps := picks[env]; len(ps) > 0 {
					c.fail(&problem{at: ps[0].f.span(ps[0].node), sev: 1, code: "missing-env", refuses: true,
						msg: fmt.Sprintf("No matching salt environment for environment '%s' found (env_order at %s leaves it out)", env, a.cfg.envOrderWhere)})
				}
				continue
			}
			et := t
			if x := a.envTrees[env]; x != nil && env != t.env {
				et = x
			}
			for _, p := range picks[env] {
				if strings.Contains(p.name, sp.Unknown) {
					c.generator = true
					continue
				}
				var names []string
				for _, n := range et.avail() {
					if fnmatchPy(n, p.name) {
						names = append(names, n)
					}
				}
				if len(names) == 0 {
					names = []string{p.name}
				}
				for _, n := range names {
					if c.mods[modKey(env, n)] {
						continue
					}
					inc := &include{name: n, node: p.node, f: p.f, env: env}
					if st := c.renderState(n, inc, 0, false); st != nil {
						c.merge(hs, st)
					}
				}
			}
		}
		return c, hs
	}
	a.cachedRun("highstate "+m.id, top.file.URI, "", build, tops)
}

// mergedTops is the top data Salt gathers from the top file of every
// saltenv it reads (t's own from tops, the top file and what it
// includes), merged as the master's top_file_merging_strategy says, and
// the saltenvs in the order Salt reads them (env_order may leave out
// base, this top file's own saltenv among them).
func (a *analyzer) mergedTops(t *tree, tops []*sfile) ([]topEnv, []string) {
	avail := a.topEnvs()
	own := t.env
	if own == "" {
		own = "base"
	}
	byEnv := map[string][]*sfile{}
	for _, env := range avail {
		if env == own {
			byEnv[env] = tops
			continue
		}
		if et := a.envTrees[env]; et != nil {
			if f := et.bySLS("top"); f != nil {
				byEnv[env] = append([]*sfile{f}, a.topIncludes(et, f)...)
			}
		}
	}
	strategy, defaultTop := "merge", "base"
	if a.cfg != nil {
		if a.cfg.strategy != "" {
			strategy = a.cfg.strategy
		}
		if a.cfg.defaultTop != "" {
			defaultTop = a.cfg.defaultTop
		}
	}
	return mergeTops(strategy, avail, byEnv, defaultTop), avail
}

// topEnvs is HighState._get_envs: the saltenvs whose top files are
// gathered, in order: base, then those file_roots names; env_order, when
// given, instead (those of them the file server has, duplicates out).
func (a *analyzer) topEnvs() []string {
	envs := []string{"base"}
	if a.cfg == nil {
		return envs
	}
	for _, e := range a.cfg.envs {
		if !slices.Contains(envs, e.name) {
			envs = append(envs, e.name)
		}
	}
	if len(a.cfg.envOrder) == 0 {
		return envs
	}
	var out []string
	for _, e := range a.cfg.envOrder {
		if !slices.Contains(out, e) && slices.Contains(envs, e) {
			out = append(out, e)
		}
	}
	return out
}

// spanOfKey: the span of a top target's key (its value's span when the
// key cannot be found).
func (f *sfile) spanOfKey(target string, val *sp.Node) source.Span {
	for _, e := range f.p.Entries {
		if e.Val == nil || e.Val.Kind != sp.Map {
			continue
		}
		for i, k := range e.Val.Keys {
			if e.Val.Vals[i] == val {
				return f.span(k)
			}
		}
	}
	return f.span(val)
}

// analyzeMinions analyses the workspace once per minion of the folder
// (for check): each problem once, with the minions it occurs on.
func (s *System) analyzeMinions(req *analysis.Request, ms *minionSet) *analysis.Result {
	out := &analysis.Result{Nodes: ms.ids()}
	idx := map[string]int{}
	files := map[string]bool{}
	for _, m := range ms.minions {
		if req.Canceled() {
			break
		}
		r := s.analyze(req, m)
		for _, u := range r.Files {
			if !files[u] {
				files[u] = true
				out.Files = append(out.Files, u)
			}
		}
		for _, d := range r.Diags {
			k := diagKey(d)
			if i, ok := idx[k]; ok {
				out.Diags[i].Nodes = append(out.Diags[i].Nodes, m.id)
				continue
			}
			idx[k] = len(out.Diags)
			d.Nodes = []string{m.id}
			out.Diags = append(out.Diags, d)
		}
	}
	s.minionDiags(req, out, ms, "", nil)
	return out
}

// minionDiags reports what could not be read of the minion data folder,
// and a node the folder does not hold.
func (s *System) minionDiags(req *analysis.Request, res *analysis.Result, ms *minionSet, id string, node *minionData) {
	if ms == nil {
		return
	}
	for _, p := range ms.problems {
		res.Diags = append(res.Diags, analysis.Diagnostic{At: source.Span{URI: source.PathToURI(p.path)}, Severity: analysis.Error,
			Code: "minion-data", Message: "minion data: " + p.msg})
	}
	if id != "" && ms.byID(id) == nil {
		msg := fmt.Sprintf("minion %s is not in the minion data folder %s", id, ms.dir)
		if ids := ms.ids(); len(ids) > 0 {
			msg += " (it holds " + strings.Join(ids, ", ") + ")"
		}
		msg += ": only its id decides the top file's targets (glob, list, pcre); grain and pillar targets are taken as matching"
		res.Diags = append(res.Diags, analysis.Diagnostic{At: source.Span{URI: source.PathToURI(ms.dir)}, Severity: analysis.Warning,
			Code: "minion-data", Message: msg})
	}
}

// minionNote: a requisite missing from a minion's highstate fails that
// state on the minion whatever other files declare (Salt says so in the
// state's result); where the target is declared tells why the top file
// does not bring it.
func (a *analyzer) minionNote(c *ctxDiag) {
	where, exact, disp, _ := a.declaredElsewhere(c)
	if where == "" {
		return
	}
	if exact {
		c.d.Message += "\n('" + c.target + "' is declared in " + where + ", which the top file does not give this minion)"
		return
	}
	c.d.Message += "\n('" + c.target + "' may be declared by `" + disp + "` at " + where + ", which the top file does not give this minion)"
}

// topConflict finds a key given twice in a mapping of a top file (an
// environment, a target): Salt's YAML loader refuses the file ("found
// conflicting ID"), get_top logs "Unable to render top file" and the
// top data is empty, so no minion gets anything.
func topConflict(tops []*sfile) (source.Span, string, bool) {
	for _, f := range tops {
		seenEnv := map[string]bool{}
		for _, e := range f.p.Entries {
			if e.Key == nil || f.p.InAltNode(e.Key) || strings.Contains(e.Key.Value, sp.Unknown) {
				continue
			}
			if seenEnv[e.Key.Value] {
				return f.span(e.Key), e.Key.Value, true
			}
			seenEnv[e.Key.Value] = true
			if e.Val == nil || e.Val.Kind != sp.Map {
				continue
			}
			seen := map[string]bool{}
			for _, k := range e.Val.Keys {
				if f.p.InAltNode(k) || strings.Contains(k.Value, sp.Unknown) {
					continue
				}
				if seen[k.Value] {
					return f.span(k), k.Value, true
				}
				seen[k.Value] = true
			}
		}
	}
	return source.Span{}, "", false
}

// readNodegroups reads `nodegroups:` of the repository's master and
// minion configuration (master, master.d/*.conf, minion, minion.d/*.conf):
// the master hands its nodegroups to the minion for top_matches
// (salt/state.py, mopts), a masterless minion uses its own. A list of
// one-key mappings is a mapping (salt/config apply_master_config,
// repack_dictlist). Later files add to and override earlier ones.
func (s *System) readNodegroups(req *analysis.Request, scopes []string) map[string]any {
	var out map[string]any
	sig := filesSig(req.Files)
	for _, scope := range scopes {
		for _, p := range s.configFiles(req.Workspace, scope, sig).files {
			if cfg, _ := isConfigFile(p); !cfg {
				continue
			}
			f := req.Workspace.Lookup(p)
			if f == nil || !strings.Contains(string(f.Text), "nodegroups") {
				continue
			}
			var doc map[string]any
			if decodeYAML(f.Text, &doc) != nil {
				continue
			}
			ng := doc["nodegroups"]
			if l, ok := ng.([]any); ok {
				m := map[string]any{}
				for _, it := range l {
					if d, ok := it.(map[string]any); ok && len(d) == 1 {
						for k, v := range d {
							m[k] = v
						}
					}
				}
				ng = m
			}
			if m, ok := ng.(map[string]any); ok {
				if out == nil {
					out = map[string]any{}
				}
				for k, v := range m {
					out[k] = v
				}
			}
		}
	}
	return out
}
