package rudder

import (
	"fmt"
	"sort"
	"strings"

	"github.com/ordering-lsp/ordering-lsp/analysis"
	"github.com/ordering-lsp/ordering-lsp/internal/lazyre"
)

// generate reproduces MergePolicyService.buildPolicy and
// PolicyOrdering.sort for the node: drafts for every (applying rule,
// enabled directive) pair, one kept directive per unique technique, one
// merged policy per merged multi-instance technique, one policy per
// directive of a separated technique; then system policies first and the
// rest by (policy type, rule name, directive name), case-insensitive.
func (a *analyzer) generate() {
	for _, r := range a.rules {
		if !r.applies {
			continue
		}
		for _, d := range r.dirs {
			if !d.Enabled {
				continue
			}
			dr := &draft{rule: r, dir: d}
			d.drafts = append(d.drafts, dr)
			a.drafts = append(a.drafts, dr)
		}
	}

	var keys []string
	uniq := map[string][]*draft{}
	merge := map[string][]*draft{}
	sep := map[string][]*draft{}
	for _, dr := range a.drafts {
		t := dr.dir.tech
		name := t.ID.Value
		switch t.generation() {
		case "unique":
			if uniq[name] == nil {
				keys = append(keys, "u"+name)
			}
			uniq[name] = append(uniq[name], dr)
		case "merged":
			if merge[name] == nil {
				keys = append(keys, "m"+name)
			}
			merge[name] = append(merge[name], dr)
		default:
			id := dr.dir.ID.Value
			if sep[id] == nil {
				keys = append(keys, "s"+id)
			}
			sep[id] = append(sep[id], dr)
		}
	}
	for _, k := range keys {
		switch k[0] {
		case 'u':
			a.keepUnique(uniq[k[1:]])
		case 'm':
			a.mergeDrafts(merge[k[1:]])
		case 's':
			a.separate(sep[k[1:]])
		}
	}

	less := func(p, q *policy) bool {
		if c := compareFold(p.tech.tagOrder(), q.tech.tagOrder()); c != 0 {
			return c < 0
		}
		if c := bundleOrder(p.main, q.main); c != 0 {
			return c < 0
		}
		return compareFold(p.uniqueID(), q.uniqueID()) < 0
	}
	sort.SliceStable(a.policies, func(i, j int) bool {
		p, q := a.policies[i], a.policies[j]
		if rp, rq := p.slot(), q.slot(); rp != rq {
			return rp < rq
		}
		return less(p, q)
	})
	for i, p := range a.policies {
		p.index = i
	}
}

// slot: system policies at the start of the run, then user policies, then
// system post-action policies (BuildBundleSequence).
func (p *policy) slot() int {
	switch {
	case p.system && p.post:
		return 2
	case p.system:
		return 0
	}
	return 1
}

func (a *analyzer) newPolicy(main *draft, kind string) *policy {
	t := main.dir.tech
	p := &policy{main: main, kind: kind, tech: t, system: t.isSystem() || main.dir.System, post: t.isPost()}
	main.policy = p
	a.policies = append(a.policies, p)
	return p
}

// keepUnique: for a unique technique, the best priority wins; among equal
// priorities the first by (rule name, directive name); the rest are
// discarded. Several different directives at the best priority is
// Rudder's "NON STABLE POLICY".
func (a *analyzer) keepUnique(ds []*draft) {
	sorted := append([]*draft(nil), ds...)
	sort.SliceStable(sorted, func(i, j int) bool { return sorted[i].dir.Priority < sorted[j].dir.Priority })
	best := sorted[0].dir.Priority
	n := 0
	for n < len(sorted) && sorted[n].dir.Priority == best {
		n++
	}
	same := sorted[:n]
	sort.SliceStable(same, func(i, j int) bool { return bundleOrder(same[i], same[j]) < 0 })
	keep := same[0]
	a.newPolicy(keep, "unique")
	t := keep.dir.tech
	for _, dr := range sorted[1:] {
		dr.discarded = keep
		switch {
		case dr.dir == keep.dir:
			dr.why = fmt.Sprintf("the same directive is already applied through rule '%s'", keep.rule.Name.Value)
		case dr.dir.Priority > best:
			dr.why = fmt.Sprintf("priority %d is lower than %d (0 is highest)", dr.dir.Priority, best)
		case compareFold(dr.rule.Name.Value, keep.rule.Name.Value) != 0:
			dr.why = fmt.Sprintf("same priority %d; rule name '%s' sorts after '%s'", best, dr.rule.Name.Value, keep.rule.Name.Value)
		default:
			dr.why = fmt.Sprintf("same priority %d and rule; directive name '%s' sorts after '%s'", best, dr.dir.Name.Value, keep.dir.Name.Value)
		}
	}
	distinct := map[*directive]bool{}
	for _, dr := range same {
		distinct[dr.dir] = true
	}
	if len(distinct) > 1 {
		var discarding []string
		var rel []analysis.Related
		for _, dr := range same[1:] {
			if dr.dir == keep.dir {
				continue
			}
			discarding = append(discarding, fmt.Sprintf("'%s/%s'", dr.rule.Name.Value, dr.dir.Name.Value))
			rel = append(rel, analysis.Related{At: dr.dir.node.Decl, Message: fmt.Sprintf("discarded: %s / %s", dr.rule.Name.Value, dr.dir.Name.Value)})
		}
		msg := fmt.Sprintf("Unicity check: NON STABLE POLICY for mono-instance (unique) technique '%s'. Several directives with same priority '%d' are applied. Keeping (rule/directive) '%s/%s', discarding: %s; give them different priorities",
			t.label(), best, keep.rule.Name.Value, keep.dir.Name.Value, strings.Join(discarding, ", "))
		sev := analysis.Warning
		if why, fix := t.assumption(); why != "" {
			sev, msg = analysis.Info, why+". If it is: "+msg+". "+fix
		}
		a.diag(keep.dir.node.Decl, sev, "non-stable-policy", msg, rel...)
	}
}

// mergeDrafts: one policy for all directives of a merged multi-instance
// technique. Values are ordered by priority, then rule name, then
// directive name; the policy's place is that of the first draft by rule
// name and directive name only (MergePolicyService: sortedVars /
// mainDraft).
func (a *analyzer) mergeDrafts(ds []*draft) {
	vars := append([]*draft(nil), ds...)
	sort.SliceStable(vars, func(i, j int) bool { return priorityThenBundle(vars[i], vars[j]) < 0 })
	main := ds[0]
	for _, dr := range ds[1:] {
		if bundleOrder(dr, main) < 0 {
			main = dr
		}
	}
	p := a.newPolicy(main, "merged")
	p.merged = vars
	for i, dr := range vars {
		dr.policy = p
		dr.rank = i
	}
	if len(vars) < 2 {
		return
	}
	t := main.dir.tech
	var pairs []string
	var rel []analysis.Related
	for _, dr := range vars {
		pairs = append(pairs, dr.rule.ID.Value+" / "+dr.dir.ID.Value)
		if dr != main {
			rel = append(rel, analysis.Related{At: dr.dir.node.Decl, Message: fmt.Sprintf("merged: %s / %s (priority %d)", dr.rule.Name.Value, dr.dir.Name.Value, dr.dir.Priority)})
		}
	}
	versions := map[string]bool{}
	for _, dr := range vars {
		versions[dr.dir.TechniqueVersion.Value] = true
	}
	if len(versions) > 1 {
		a.diag(main.dir.node.Decl, analysis.Error, "merge-conflict",
			fmt.Sprintf("Node get directives from different versions of technique '%s', but that technique does not support multi-policy generation. Problematic rules/directives: %s",
				t.ID.Value, strings.Join(pairs, " ; ")), rel...)
		a.refused = true
	}
	modes := map[string]bool{}
	for _, dr := range vars {
		if m := strings.ToLower(dr.dir.PolicyMode.Value); m == "audit" || m == "enforce" {
			modes[m] = true
		}
	}
	if len(modes) > 1 {
		a.diag(main.dir.node.Decl, analysis.Error, "merge-conflict",
			fmt.Sprintf("Inconsistant policy mode: both audit and enforce applied. Node get directives with incompatible different policy mode but technique '%s' does not support multi-policy generation. Problematic rules/directives: %s",
				t.label(), strings.Join(pairs, " ; ")), rel...)
		a.refused = true
	}
	var names []string
	for _, dr := range vars {
		names = append(names, dr.dir.Name.Value)
	}
	a.diag(main.dir.node.Decl, analysis.Info, "merged",
		fmt.Sprintf("technique '%s' is multi-instance but cannot generate separated policies (POLICYGENERATION merged): its %d directives are merged into one policy placed at '%s / %s', values in order: %s",
			t.label(), len(vars), main.rule.Name.Value, main.dir.Name.Value, strings.Join(names, ", ")), rel...)
}

// separate: one policy per directive; a directive applied by several
// rules is kept once, for its first rule by name.
func (a *analyzer) separate(ds []*draft) {
	keep := ds[0]
	for _, dr := range ds[1:] {
		if bundleOrder(dr, keep) < 0 {
			keep = dr
		}
	}
	a.newPolicy(keep, keep.dir.tech.generation())
	for _, dr := range ds {
		if dr != keep {
			dr.discarded = keep
			dr.why = fmt.Sprintf("the same directive is already applied through rule '%s'", keep.rule.Name.Value)
		}
	}
}

var nonWord = lazyre.New(`\W`)

// uniqueID is Rudder's PolicyId.getRudderUniqueId (technique version, then
// directive id, non-word characters as "_"): the last tie-break between
// policies with the same rule and directive names.
func (p *policy) uniqueID() string {
	return nonWord.ReplaceAllString(p.main.dir.TechniqueVersion.Value+"_"+p.main.dir.ID.Value, "_")
}

// label is the line `order` prints for a policy.
func (p *policy) label() string {
	s := p.main.rule.Name.Value + " / " + p.main.dir.Name.Value
	if len(p.merged) > 1 {
		var names []string
		for _, dr := range p.merged {
			names = append(names, dr.dir.Name.Value)
		}
		s += " [merged: " + strings.Join(names, ", ") + "]"
	}
	return s
}
