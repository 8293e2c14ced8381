package rudder

import (
	"fmt"
	"sort"
	"strings"

	"github.com/ordering-lsp/ordering-lsp/analysis"
	"github.com/ordering-lsp/ordering-lsp/internal/lazyre"
	prs "github.com/ordering-lsp/ordering-lsp/parser/rudder"
)

// explain turns the generated policies into the run, the order edges, the
// hover facts and the naming hints.
func (a *analyzer) explain() {
	run := analysis.Run{Name: "policies of " + a.nodeDesc, Entry: a.req.Entry, Refused: a.refused}
	n := len(a.policies)
	for i, p := range a.policies {
		note := p.kind
		switch {
		case len(p.merged) > 1:
			note = fmt.Sprintf("merged: %d directives of %s", len(p.merged), p.tech.label())
		case p.kind == "unique":
			note = "unique technique " + p.tech.label()
		}
		if p.system {
			note = "system, " + note
		}
		run.Steps = append(run.Steps, analysis.Step{Node: p.main.dir.node, Label: p.label(), Note: note})
		if i > 0 {
			prev := a.policies[i-1]
			reason := "policy order: rule name, then directive name"
			if prev.slot() != p.slot() {
				reason = "system policies first"
			}
			a.res.Graph.Connect(&analysis.Edge{From: prev.main.dir.node, To: p.main.dir.node, Kind: analysis.Order, Reason: reason, At: p.main.dir.node.Decl})
		}
	}
	a.res.Runs = append(a.res.Runs, run)

	// Secondary runs, after the main one (which `order` prints): the order
	// of the values inside each merged policy, so hovers and inlay hints
	// place merged directives too.
	for _, p := range a.policies {
		if len(p.merged) < 2 {
			continue
		}
		mr := analysis.Run{Name: "values merged into the policy " + p.main.rule.Name.Value + " / " + p.main.dir.Name.Value + " (priority, then rule name, then directive name)"}
		for _, dr := range p.merged {
			mr.Steps = append(mr.Steps, analysis.Step{Node: dr.dir.node, Label: dr.rule.Name.Value + " / " + dr.dir.Name.Value, Note: fmt.Sprintf("merged value, priority %d", dr.dir.Priority)})
		}
		a.res.Runs = append(a.res.Runs, mr)
	}

	for _, p := range a.policies {
		for _, dr := range p.merged {
			if dr.dir != p.main.dir {
				a.res.Graph.Connect(&analysis.Edge{From: dr.dir.node, To: p.main.dir.node, Kind: analysis.Reference, Reason: "values merged into this policy", At: dr.dir.node.Decl})
			}
		}
	}
	for _, dr := range a.drafts {
		if dr.discarded != nil && dr.discarded.dir != dr.dir {
			a.res.Graph.Connect(&analysis.Edge{From: dr.dir.node, To: dr.discarded.dir.node, Kind: analysis.Reference, Reason: "discarded in favour of", At: dr.dir.node.Decl})
		}
	}

	a.discardedDiags()
	a.prefixHints()
	a.variables()

	for _, d := range a.directives {
		d.node.Facts = a.directiveFacts(d, n)
	}
	for _, r := range a.rules {
		r.node.Facts = a.ruleFacts(r)
	}
	for _, t := range a.techniques {
		t.node.Facts = a.techniqueFacts(t)
	}
}

// discardedDiags: a directive of a unique technique none of whose drafts
// survives is never applied.
func (a *analyzer) discardedDiags() {
	for _, d := range a.directives {
		if len(d.drafts) == 0 || d.tech.generation() != "unique" {
			continue
		}
		var winner *draft
		lost := true
		for _, dr := range d.drafts {
			if dr.discarded == nil {
				lost = false
				break
			}
			if winner == nil {
				winner = dr
			}
		}
		if !lost {
			continue
		}
		w := winner.discarded
		msg := fmt.Sprintf("directive '%s' is never applied: technique '%s' is unique (not multi-instance) and Rudder keeps '%s' (rule '%s', priority %d) instead: %s",
			d.Name.Value, d.tech.label(), w.dir.Name.Value, w.rule.Name.Value, w.dir.Priority, winner.why)
		why, fix := d.tech.assumption()
		if why != "" {
			// Only if the technique is unique: nothing to fade.
			a.diag(d.node.Decl, analysis.Info, "discarded", why+". If it is: "+msg+". "+fix,
				analysis.Related{At: w.dir.node.Decl, Message: "the directive Rudder would keep"})
			continue
		}
		a.diag(d.node.Decl, analysis.Warning, "discarded", msg,
			analysis.Related{At: w.dir.node.Decl, Message: "the directive Rudder keeps"})
		a.res.Diags[len(a.res.Diags)-1].NeverRuns = true
	}
}

var numericPrefix = lazyre.New(`^\s*[0-9]`)

// prefixHints: Rudder's documented best practice is to start rule and
// directive names with digits ("05. ...") wherever names decide the order:
// rules whose policies sit among others, directives of one rule that make
// several policies, directives whose values are merged or compete at equal
// priority.
func (a *analyzer) prefixHints() {
	ruleMatters := map[*rule]bool{}
	dirMatters := map[*directive]bool{}
	perRule := map[*rule]int{}
	for _, p := range a.policies {
		if !p.system {
			perRule[p.main.rule]++
		}
	}
	if len(perRule) > 1 {
		for r := range perRule {
			ruleMatters[r] = true
		}
	}
	for _, p := range a.policies {
		if !p.system && perRule[p.main.rule] > 1 {
			dirMatters[p.main.dir] = true
		}
	}
	// Equal priorities: the merge order or the winner depends on names.
	byTech := map[*technique][]*draft{}
	for _, dr := range a.drafts {
		if g := dr.dir.tech.generation(); (g == "unique" || g == "merged") && !dr.dir.tech.isSystem() && !dr.dir.System {
			byTech[dr.dir.tech] = append(byTech[dr.dir.tech], dr)
		}
	}
	for _, ds := range byTech {
		byPriority := map[int][]*draft{}
		for _, dr := range ds {
			byPriority[dr.dir.Priority] = append(byPriority[dr.dir.Priority], dr)
		}
		for _, same := range byPriority {
			distinct := map[*directive]bool{}
			for _, dr := range same {
				distinct[dr.dir] = true
			}
			if len(distinct) < 2 {
				continue
			}
			for _, dr := range same {
				ruleMatters[dr.rule], dirMatters[dr.dir] = true, true
			}
		}
	}
	for _, r := range a.rules {
		if ruleMatters[r] && !numericPrefix.MatchString(r.Name.Value) {
			a.diag(r.node.Decl, analysis.Hint, "name-prefix",
				fmt.Sprintf("rule name '%s' has no numeric prefix: Rudder orders policies by rule name, then directive name; start names with digits (\"05. %s\") to keep the order under control", r.Name.Value, r.Name.Value))
		}
	}
	for _, d := range a.directives {
		if dirMatters[d] && !numericPrefix.MatchString(d.Name.Value) {
			a.diag(d.node.Decl, analysis.Hint, "name-prefix",
				fmt.Sprintf("directive name '%s' has no numeric prefix: the order depends on it; start names with digits (\"05. %s\") to keep the order under control", d.Name.Value, d.Name.Value))
		}
	}
}

func (a *analyzer) directiveFacts(d *directive, total int) []analysis.Fact {
	var fs []analysis.Fact
	add := func(l, v string) { fs = append(fs, analysis.Fact{Label: l, Value: v}) }
	add("technique", techniqueSummary(d.tech, d.TechniqueVersion.Value))
	pr := fmt.Sprintf("%d", d.Priority)
	if !d.PrioritySet {
		pr += " (default)"
	}
	add("priority", pr+"; 0 is highest, 10 lowest")
	if !d.Enabled {
		add("enabled", "no: Rudder generates nothing for it")
	}
	if len(d.rules) == 0 {
		add("rules", "none: no rule applies this directive")
	} else {
		var names []string
		for _, r := range d.rules {
			s := "'" + r.Name.Value + "'"
			if !r.Enabled {
				s += " (disabled)"
			} else if !r.applies {
				s += " (does not target the node)"
			}
			names = append(names, s)
		}
		add("rules", strings.Join(names, ", "))
	}
	for _, dr := range d.drafts {
		prefix := "through rule '" + dr.rule.Name.Value + "'"
		switch {
		case dr.discarded != nil:
			w := dr.discarded
			if w.dir == d {
				add("policy", prefix+": not a second time: "+dr.why)
			} else {
				add("policy", fmt.Sprintf("%s: discarded, Rudder keeps '%s' (rule '%s'): %s", prefix, w.dir.Name.Value, w.rule.Name.Value, dr.why))
			}
		case dr.policy != nil && dr.policy.main == dr:
			p := dr.policy
			s := fmt.Sprintf("%s: %s of %d in the node's policy order: %s", prefix, analysis.Ordinal(p.index+1), total, p.label())
			if len(p.merged) > 1 {
				s += fmt.Sprintf("; its values come %s of %d in the merged policy", analysis.Ordinal(dr.rank+1), len(p.merged))
			}
			add("policy", s)
		case dr.policy != nil:
			p := dr.policy
			add("policy", fmt.Sprintf("%s: values merged %s of %d into the %s policy '%s / %s' (a merged policy is placed by its first rule and directive names)",
				prefix, analysis.Ordinal(dr.rank+1), len(p.merged), analysis.Ordinal(p.index+1), p.main.rule.Name.Value, p.main.dir.Name.Value))
		}
	}
	if len(d.drafts) > 0 {
		add("rank", a.rankFact(d))
	}
	return fs
}

// rankFact places a directive among the directives of its technique on the
// node (priority, then rule name, then directive name) and says why.
func (a *analyzer) rankFact(d *directive) string {
	if a.ranked == nil {
		a.ranked = map[*technique][]*draft{}
		for _, dr := range a.drafts {
			a.ranked[dr.dir.tech] = append(a.ranked[dr.dir.tech], dr)
		}
		for _, all := range a.ranked {
			sort.SliceStable(all, func(i, j int) bool { return priorityThenBundle(all[i], all[j]) < 0 })
		}
	}
	all := a.ranked[d.tech]
	idx := -1
	for i, dr := range all {
		if dr.dir == d {
			idx = i
			break
		}
	}
	if idx < 0 {
		return ""
	}
	s := fmt.Sprintf("%s of %d among the directives of %s on the node (priority, then rule name, then directive name)", analysis.Ordinal(idx+1), len(all), d.tech.label())
	if len(all) == 1 {
		return fmt.Sprintf("the only directive of %s on the node", d.tech.label())
	}
	cur := all[idx]
	other := all[1]
	if idx > 0 {
		other = all[idx-1]
	}
	word := "before"
	if idx > 0 {
		word = "after"
	}
	switch {
	case cur.dir.Priority != other.dir.Priority:
		s += fmt.Sprintf("; %s '%s': priority %d vs %d", word, other.dir.Name.Value, cur.dir.Priority, other.dir.Priority)
	case compareFold(cur.rule.Name.Value, other.rule.Name.Value) != 0:
		s += fmt.Sprintf("; %s '%s': same priority %d, rule '%s' vs '%s'", word, other.dir.Name.Value, cur.dir.Priority, cur.rule.Name.Value, other.rule.Name.Value)
	default:
		s += fmt.Sprintf("; %s '%s': same priority %d and rule, directive name decides", word, other.dir.Name.Value, cur.dir.Priority)
	}
	return s
}

func techniqueSummary(t *technique, wantVersion string) string {
	if t == nil {
		return "?"
	}
	s := t.label()
	if t.Version.Value == "" && wantVersion != "" {
		s += "/" + wantVersion
	}
	switch g := t.generation(); {
	case t.isSystem():
		s += ": system technique (its policies run first)"
	case g == "unique":
		s += ": unique (not multi-instance): one directive per node, the others are discarded"
	case g == "merged":
		s += ": multi-instance, merged: one policy for all its directives"
	default:
		s += ": multi-instance, " + g + ": one policy per directive"
	}
	switch {
	case t.builtin:
		s += " (assumed from Rudder's standard technique library; export its metadata.xml to be sure)"
	case t.node == nil:
		s += " (unknown technique: Rudder's default for a technique without MULTIINSTANCE)"
	case !t.Known:
		s += " (an API listing does not say whether it is multi-instance: Rudder's default for a technique without MULTIINSTANCE)"
	}
	return s
}

func (a *analyzer) ruleFacts(r *rule) []analysis.Fact {
	var fs []analysis.Fact
	add := func(l, v string) { fs = append(fs, analysis.Fact{Label: l, Value: v}) }
	switch {
	case !r.Enabled:
		add("enabled", "no: it applies nothing")
	case !r.applies:
		add("applies", "no: its targets do not include "+a.nodeDesc)
	}
	var ts []string
	for _, t := range r.Targets.Simples() {
		ts = append(ts, t.Value)
	}
	if len(ts) > 0 {
		add("targets", strings.Join(ts, ", "))
	}
	var pols []string
	for _, p := range a.policies {
		if p.main.rule == r {
			pols = append(pols, fmt.Sprintf("%s %s", analysis.Ordinal(p.index+1), p.main.dir.Name.Value))
		}
	}
	add("directives", fmt.Sprintf("%d", len(r.Directives)))
	if len(pols) > 0 {
		add("policies", strings.Join(pols, ", ")+fmt.Sprintf(" of %d", len(a.policies)))
	}
	return fs
}

func (a *analyzer) techniqueFacts(t *technique) []analysis.Fact {
	var fs []analysis.Fact
	add := func(l, v string) { fs = append(fs, analysis.Fact{Label: l, Value: v}) }
	add("generation", techniqueSummary(t, ""))
	if a.perTech == nil {
		a.perTech = map[*technique]int{}
		for _, d := range a.directives {
			a.perTech[d.tech]++
		}
	}
	add("directives", fmt.Sprintf("%d", a.perTech[t]))
	return fs
}

// variables explains Generic Variable Definition overrides: in a merged
// policy every directive declares its variables in merge order and a
// variable declared again keeps the last value (CFEngine "overridable"
// vars), so the least prioritary directive wins.
func (a *analyzer) variables() {
	for _, p := range a.policies {
		if len(p.merged) == 0 {
			continue
		}
		type decl struct {
			dr          *draft
			name, value string
			at          prs.Span
		}
		byName := map[string][]decl{}
		var order []string
		for _, dr := range p.merged {
			type key struct {
				sec  string
				inst int
			}
			names := map[key]int{}
			var keys []key
			vals := map[key]string{}
			for i, v := range dr.dir.Vars {
				k := key{v.Section, v.Instance}
				switch v.Name.Value {
				case "GENERIC_VARIABLE_NAME":
					if _, ok := names[k]; !ok {
						keys = append(keys, k)
					}
					names[k] = i
				case "GENERIC_VARIABLE_CONTENT":
					vals[k] = v.Value.Value
				}
			}
			for _, k := range keys {
				nv := dr.dir.Vars[names[k]]
				name := nv.Value.Value
				if byName[name] == nil {
					order = append(order, name)
				}
				byName[name] = append(byName[name], decl{dr: dr, name: name, value: vals[k], at: nv.Value.At})
			}
		}
		for _, name := range order {
			ds := byName[name]
			final := ds[len(ds)-1]
			vr := analysis.Run{Name: "declarations of ${generic_variable_definition." + name + "} in " + p.label() + " (the last one wins)"}
			for i, x := range ds {
				n := &analysis.Node{
					Kind:   "variable",
					Ref:    "${generic_variable_definition." + name + "}",
					Decl:   span(x.dr.dir.uri, x.at),
					Parent: x.dr.dir.node,
				}
				n.Facts = append(n.Facts, analysis.Fact{Label: "value on the node", Value: fmt.Sprintf("%q, from directive '%s' (rule '%s')", final.value, final.dr.dir.Name.Value, final.dr.rule.Name.Value)})
				if len(ds) > 1 {
					v := fmt.Sprintf("%s of %d declarations in the merged policy (priority, then rule name, then directive name; the last one wins)", analysis.Ordinal(i+1), len(ds))
					if i < len(ds)-1 {
						v += fmt.Sprintf("; this value %q is overridden", x.value)
					}
					n.Facts = append(n.Facts, analysis.Fact{Label: "declared", Value: v})
				}
				a.res.Graph.Add(n)
				note := "overridden"
				if i == len(ds)-1 {
					note = "final value"
				}
				vr.Steps = append(vr.Steps, analysis.Step{Node: n, Label: x.dr.rule.Name.Value + " / " + x.dr.dir.Name.Value + ": " + name, Note: note})
			}
			a.res.Runs = append(a.res.Runs, vr)
		}
	}
}
