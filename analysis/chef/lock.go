package chef

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/ordering-lsp/ordering-lsp/analysis"
	pchef "github.com/ordering-lsp/ordering-lsp/parser/chef"
	"github.com/ordering-lsp/ordering-lsp/source"
)

func labelsOf(items []pchef.LockItem) []string {
	out := make([]string, len(items))
	for i, it := range items {
		out[i] = pchef.ParseRunItem(it.Text).Label
	}
	return out
}

func entryLabels(es []*entry) []string {
	out := make([]string, len(es))
	for i, e := range es {
		out[i] = e.item.Label
	}
	return out
}

func sameList(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func listText(l []string) string {
	if len(l) > 8 {
		return "[" + strings.Join(l[:8], ", ") + fmt.Sprintf(", ... %d more]", len(l)-8)
	}
	return "[" + strings.Join(l, ", ") + "]"
}

// stale compares a Policyfile with the lock beside it.
func (a *analyzer) stale(u *unit, entries []*entry) {
	if u.lock == nil || u.rb == nil {
		return
	}
	if u.rb.RunList != nil && u.rb.RunList.Unknown {
		return
	}
	if h := u.rbSyn.HiddenDSL; h["run_list"] || h["include_policy"] || h["named_run_list"] || h["name"] {
		return // the Policyfile's answer depends on Ruby we do not run
	}
	for _, in := range u.includes {
		if in.target == nil {
			return // cannot know what the merge gives
		}
	}
	lf := u.lockFile
	lockName := filepath.Base(lf.Path)
	if lf.Path == "" {
		lockName = lf.URI
	}
	// Every difference is one reason; the lock is stale once, so it is
	// reported once: on the Policyfile, where the user changed something
	// and where `chef update` starts (nobody edits a lock by hand), at the
	// statement of the first difference, with a related place in the lock
	// for each.
	type reason struct {
		msg          string
		lockAt, rbAt source.Span
	}
	var reasons []reason
	rbAt := u.node.Decl
	if u.rb.RunList != nil {
		rbAt = spanOf(u.rbFile, u.rb.RunList.Call.Start, u.rb.RunList.Call.End)
	}
	lockDiagAt := func(at source.Span, msg string, rel source.Span) {
		reasons = append(reasons, reason{msg: msg, lockAt: at, rbAt: rel})
	}
	lockDiag := func(key, msg string, rel source.Span) {
		lockDiagAt(a.lockKeySpan(u, key), msg, rel)
	}
	if u.lock.Name != "" && u.lock.Name != u.name {
		lockDiag("name", fmt.Sprintf("its name is %q, the Policyfile says %q", u.lock.Name, u.name), u.node.Decl)
	}
	got, want := labelsOf(u.lock.RunList), entryLabels(entries)
	if !sameList(got, want) {
		lockDiag("run_list", fmt.Sprintf("run_list differs: the lock has %s, the Policyfile merges to %s", listText(got), listText(want)), rbAt)
	}
	// cookbooks the Policyfile needs that the lock does not have
	locked := map[string]bool{}
	for _, c := range u.lock.CookbookLocks {
		locked[c.Name] = true
	}
	// (said at the first statement that needs one: the `cookbook` line
	// just typed, not the run list)
	var missing []string
	seen := map[string]bool{}
	needAt := rbAt
	need := func(cb string, at source.Span) {
		if cb != "" && !locked[cb] && !seen[cb] {
			seen[cb] = true
			if len(missing) == 0 && at.URI == u.rbFile.URI {
				needAt = at
			}
			missing = append(missing, cb)
		}
	}
	for _, c := range u.rb.Cookbooks {
		if c.Name.Kind == pchef.VString && !c.Name.Pattern {
			need(c.Name.Text, spanOf(u.rbFile, c.Call.Start, c.Call.End))
		}
	}
	for _, e := range entries {
		if !e.item.Pattern {
			need(e.item.Cookbook, rbAt)
		}
	}
	if len(missing) > 0 {
		lockDiag("cookbook_locks", fmt.Sprintf("cookbook_locks lacks %s", strings.Join(missing, ", ")), needAt)
	}
	// named run lists, merged as chef-cli merges them
	lockNamed := map[string][]string{}
	for _, n := range u.lock.NamedRunLists {
		lockNamed[n.Name] = labelsOf(n.Items)
	}
	unknownNamed := false
	for _, rl := range u.rb.NamedRunLists {
		unknownNamed = unknownNamed || rl.Unknown
	}
	for _, nl := range u.named {
		if unknownNamed {
			break
		}
		at := rbAt
		for _, rl := range u.rb.NamedRunLists {
			if rl.Name == nl.name {
				at = spanOf(u.rbFile, rl.Call.Start, rl.Call.End)
			}
		}
		got, ok := lockNamed[nl.name]
		want := entryLabels(nl.entries)
		if !ok {
			lockDiag("named_run_lists", fmt.Sprintf("named_run_list %s is missing", nl.name), at)
			continue
		}
		if !sameList(want, got) {
			lockDiag("named_run_lists", fmt.Sprintf("named_run_list %s differs: the lock has %s, the Policyfile merges to %s", nl.name, listText(got), listText(want)), at)
		}
	}
	// cookbook constraints and sources the lock does not satisfy
	byName := map[string]pchef.CookbookLock{}
	for _, c := range u.lock.CookbookLocks {
		byName[c.Name] = c
	}
	for _, c := range u.rb.Cookbooks {
		cl, ok := byName[c.Name.Text]
		if !ok {
			continue
		}
		at := spanOf(u.rbFile, c.Call.Start, c.Call.End)
		if c.Constraint != nil && c.Constraint.Kind == pchef.VString && !c.Constraint.Pattern {
			if sat, known := satisfies(cl.Version, c.Constraint.Text); known && !sat {
				lockDiagAt(spanOf(lf, cl.Start, cl.End), fmt.Sprintf("cookbook %s is locked at %s, which does not satisfy '%s'", c.Name.Text, cl.Version, c.Constraint.Text), at)
			}
		}
		if v := c.Opts["path"]; v != nil && v.Kind == pchef.VString && !v.Pattern {
			if so := cl.SourceOptions.Get("path"); so == nil || so.Kind != pchef.JString || filepath.Clean(filepath.Join(u.dir, so.Str)) != filepath.Clean(filepath.Join(u.dir, v.Text)) {
				lockDiagAt(spanOf(lf, cl.Start, cl.End), fmt.Sprintf("cookbook %s comes from path %s in the Policyfile but not in the lock", c.Name.Text, v.Text), at)
			}
		}
		if v := c.Opts["git"]; v != nil && v.Kind == pchef.VString && !v.Pattern {
			if so := cl.SourceOptions.Get("git"); so == nil || so.Kind != pchef.JString || so.Str != v.Text {
				lockDiagAt(spanOf(lf, cl.Start, cl.End), fmt.Sprintf("cookbook %s comes from git %s in the Policyfile but not in the lock", c.Name.Text, v.Text), at)
			}
		}
	}
	// included policies that changed since the lock was made
	recorded := map[string]pchef.IncludedLock{}
	for _, e := range u.lock.Included {
		recorded[e.Name] = e
	}
	for _, in := range u.includes {
		e, ok := recorded[in.name]
		if !ok {
			lockDiag("included_policy_locks", fmt.Sprintf("included policy %s is not in included_policy_locks", in.name), in.at)
			continue
		}
		if in.kind == "path" && in.target.lock != nil && e.RevisionID != "" && in.target.lock.RevisionID != "" && e.RevisionID != in.target.lock.RevisionID {
			lockDiag("included_policy_locks", fmt.Sprintf("included policy %s changed since this lock was made (revision %s here, %s in %s)", in.name, short(e.RevisionID), short(in.target.lock.RevisionID), a.rel(in.target.lockFile.Path)), in.at)
		}
	}
	if len(reasons) == 0 {
		return
	}
	at := reasons[0].rbAt
	if at.URI != u.rbFile.URI {
		at = rbAt
	}
	var msgs []string
	var rel []analysis.Related
	for _, r := range reasons {
		msgs = append(msgs, r.msg)
		short, _, _ := strings.Cut(r.msg, ": ") // "run_list differs", not both lists again
		rel = append(rel, analysis.Related{At: r.lockAt, Message: lockName + ": " + short})
		if r.rbAt.URI == u.rbFile.URI && r.rbAt != at {
			rel = append(rel, analysis.Related{At: r.rbAt, Message: "in the Policyfile: " + short})
		}
	}
	a.diag(u, at, analysis.Warning, "stale-lock", fmt.Sprintf("%s beside this Policyfile is stale: %s; run `chef update`", lockName, strings.Join(msgs, "; ")), rel...)
}

// lockFile analyses a lock: its syntax, its stored run list as a Run, the
// links of its included_policy_locks, and, for a lock without its
// Policyfile, whether its run list agrees with the locks it includes.
func (a *analyzer) lockFile(u *unit) {
	lf := u.lockFile
	if lf == nil || !u.owned {
		return
	}
	if u.lockErr != nil {
		off := 0
		var se *pchef.SyntaxError
		msg := u.lockErr.Error()
		if errors.As(u.lockErr, &se) {
			off = se.Offset
		}
		a.diag(u, spanOf(lf, off, off), analysis.Error, "syntax", "syntax error: "+msg)
		return
	}
	l := u.lock
	parent := u.lockNode
	if parent == nil {
		parent = u.node
	}
	// links of included_policy_locks entries
	lockIncludes := u.includes
	if u.rb != nil {
		// the Policyfile's includes drive the unit; resolve the lock's
		// entries only for links.
		lockIncludes = nil
		for i := range l.Included {
			e := &l.Included[i]
			for _, in := range u.includes {
				if in.name == e.Name && in.target != nil {
					lockIncludes = append(lockIncludes, &incl{from: u, name: e.Name, entry: e, at: spanOf(lf, e.Start, e.End), target: in.target, kind: in.kind})
				}
			}
		}
	}
	for _, in := range lockIncludes {
		if in.target == nil {
			continue
		}
		link := analysis.Link{At: in.at}
		if in.target.lockFile != nil {
			link.Files = append(link.Files, fileSpan(in.target.lockFile))
		}
		if in.target.node != nil {
			link.Nodes = append(link.Nodes, in.target.node)
		}
		if in.target.rbFile != nil && (in.target.node == nil || in.target.node.Decl.URI != in.target.rbFile.URI) {
			link.Files = append(link.Files, fileSpan(in.target.rbFile))
		}
		a.res.Links = append(a.res.Links, link)
	}
	// the stored run list
	run := analysis.Run{Name: u.name + " (lock)", Entry: lf.URI}
	var prev *analysis.Node
	var srcs []runSource
	for _, in := range u.includes {
		if in.target != nil && in.target.lock != nil {
			srcs = append(srcs, lockItems(in, in.target.lock.RunList))
		}
	}
	fromOf := map[string]*incl{}
	for _, e := range merge(srcs) {
		fromOf[e.item.Key()] = e.from
	}
	for i, it := range l.RunList {
		ri := pchef.ParseRunItem(it.Text)
		n := &analysis.Node{Kind: "recipe", Ref: ri.Label, Decl: spanOf(lf, it.Start, it.End), Full: spanOf(lf, it.Start, it.End), Parent: parent}
		n.Facts = append(n.Facts, analysis.Fact{Label: "position", Value: fmt.Sprintf("%d of %d in the run list locked for %s", i+1, len(l.RunList), u.name)})
		if in := fromOf[ri.Key()]; in != nil {
			n.Facts = append(n.Facts, analysis.Fact{Label: "from", Value: "included policy " + a.contributor(in, ri.Key())})
		}
		a.res.Graph.Add(n)
		a.linkRecipe(u, ri, n.Decl, n)
		if prev != nil {
			a.res.Graph.Connect(&analysis.Edge{From: prev, To: n, Kind: analysis.Order, Reason: "run list", At: n.Decl})
		}
		prev = n
		run.Steps = append(run.Steps, analysis.Step{Node: n, Label: ri.Label})
	}
	for _, nr := range l.NamedRunLists {
		nrun := analysis.Run{Name: u.name + " (lock) named_run_list " + nr.Name}
		for _, it := range nr.Items {
			ri := pchef.ParseRunItem(it.Text)
			n := a.res.Graph.Add(&analysis.Node{Kind: "recipe", Ref: ri.Label, Decl: spanOf(lf, it.Start, it.End), Full: spanOf(lf, it.Start, it.End), Parent: parent})
			nrun.Steps = append(nrun.Steps, analysis.Step{Node: n, Label: ri.Label})
		}
		a.res.Runs = append(a.res.Runs, nrun)
	}
	if u.rb == nil && len(srcs) > 0 {
		// chef-cli wrote run_list = merge(included run lists, own); merging the
		// stored list behind the included ones must give it back unchanged.
		mine := runSource{}
		for _, it := range l.RunList {
			ri := pchef.ParseRunItem(it.Text)
			ri.Start, ri.End = it.Start, it.End
			mine.items = append(mine.items, ri)
			mine.spans = append(mine.spans, spanOf(lf, it.Start, it.End))
		}
		merged := entryLabels(merge(append(srcs, mine)))
		if got := labelsOf(l.RunList); !sameList(merged, got) {
			var rel []analysis.Related
			var names []string
			for _, in := range u.includes {
				if in.target != nil {
					rel = append(rel, analysis.Related{At: fileSpan(in.target.lockFile), Message: "included policy " + in.name})
					names = append(names, a.rel(in.target.lockFile.Path))
				}
			}
			a.diag(u, a.lockKeySpan(u, "run_list"), analysis.Warning, "stale-lock",
				fmt.Sprintf("this lock's run_list %s does not start with the run lists of its included policies (merging %s in front of it gives %s): it is stale against them; run `chef update`",
					listText(got), strings.Join(names, ", "), listText(merged)), rel...)
		}
		for _, in := range u.includes {
			if in.target != nil && in.kind == "path" && in.entry != nil && in.entry.RevisionID != "" && in.target.lock.RevisionID != in.entry.RevisionID {
				a.diag(u, in.at, analysis.Warning, "stale-lock", fmt.Sprintf("included policy %s changed since this lock was made (revision %s here, %s in %s); run `chef update`", in.name, short(in.entry.RevisionID), short(in.target.lock.RevisionID), a.rel(in.target.lockFile.Path)),
					analysis.Related{At: a.lockKeySpan(in.target, "revision_id"), Message: "current revision"})
			}
		}
	}
	a.res.Runs = append(a.res.Runs, run)
}
