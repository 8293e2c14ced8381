package chef

import (
	"fmt"
	"net/url"
	"path/filepath"
	"slices"
	"strings"

	"github.com/ordering-lsp/ordering-lsp/analysis"
	pchef "github.com/ordering-lsp/ordering-lsp/parser/chef"
	"github.com/ordering-lsp/ordering-lsp/source"
)

// entry is one item of a merged run list.
type entry struct {
	item    *pchef.RunItem
	from    *incl // nil: the policy's own run list
	at      source.Span
	dropped []dupe
	node    *analysis.Node
}

type dupe struct {
	from *incl
	at   source.Span
}

type runSource struct {
	from  *incl
	items []*pchef.RunItem
	spans []source.Span
}

func lockItems(in *incl, items []pchef.LockItem) runSource {
	rs := runSource{from: in}
	for _, li := range items {
		it := pchef.ParseRunItem(li.Text)
		it.Start, it.End = li.Start, li.End
		rs.items = append(rs.items, it)
		rs.spans = append(rs.spans, spanOf(in.target.lockFile, li.Start, li.End))
	}
	return rs
}

// includedSources is what an included policy adds to the run list: its
// lock's run_list, or, when the lock is not built (not committed), what
// `chef install` of its Policyfile would lock: the run lists of its own
// includes, then its run_list.
func includedSources(in *incl, depth int, seen map[*unit]bool) []runSource {
	t := in.target
	switch {
	case t == nil || depth > maxIncludeDepth || seen[t]:
		return nil // an include loop (reported on its own) adds nothing more
	case t.lock != nil:
		return []runSource{lockItems(in, t.lock.RunList)}
	case t.rb == nil:
		return nil
	}
	seen[t] = true
	defer delete(seen, t)
	var srcs []runSource
	for _, sub := range t.includes {
		srcs = append(srcs, includedSources(sub, depth+1, seen)...)
	}
	rs := runSource{from: in}
	if t.rb.RunList != nil {
		for _, it := range t.rb.RunList.Items {
			rs.items = append(rs.items, it)
			rs.spans = append(rs.spans, spanOf(t.rbFile, it.Start, it.End))
		}
	}
	return append(srcs, rs)
}

// merge is chef-cli's expanded_run_list: sources in order, an item already
// present (same type, name, version) is not added again.
func merge(srcs []runSource) []*entry {
	var out []*entry
	seen := map[string]*entry{}
	for _, s := range srcs {
		for i, it := range s.items {
			if it.Unknown {
				continue
			}
			k := it.Key()
			if e := seen[k]; e != nil {
				e.dropped = append(e.dropped, dupe{from: s.from, at: s.spans[i]})
				continue
			}
			e := &entry{item: it, from: s.from, at: s.spans[i]}
			seen[k] = e
			out = append(out, e)
		}
	}
	return out
}

func (a *analyzer) sourceName(in *incl) string {
	if in == nil {
		return "this policy's run_list"
	}
	return "included policy " + in.name
}

// contributor follows an included entry down the include tree to the
// policy whose own run list holds it: "base (via middle)".
func (a *analyzer) contributor(in *incl, key string) string {
	chain := []string{in.name}
	u := in.target
	seen := map[*unit]bool{}
	for depth := 0; u != nil && !seen[u] && depth < maxIncludeDepth; depth++ {
		seen[u] = true
		if u.rb != nil && u.rb.RunList != nil {
			own := false
			for _, it := range u.rb.RunList.Items {
				if !it.Unknown && it.Key() == key {
					own = true
				}
			}
			if own {
				break // its own run list holds it
			}
		}
		var next *incl
		for _, sub := range u.includes {
			for _, li := range sub.lockRunList() {
				if pchef.ParseRunItem(li.Text).Key() == key {
					next = sub
					break
				}
			}
			if next != nil {
				break
			}
		}
		if next == nil || next.target == nil || seen[next.target] {
			break
		}
		chain = append(chain, next.name)
		u = next.target
	}
	if len(chain) == 1 {
		return chain[0]
	}
	// deepest first: "base (via middle)"
	out := chain[len(chain)-1]
	vias := []string{}
	for i := len(chain) - 2; i >= 0; i-- {
		vias = append(vias, chain[i])
	}
	return out + " (via " + strings.Join(vias, ", ") + ")"
}

// where names a place as file:line:col, the line a mark
// (analysis.WhereMark) that Analyze writes out.
func (a *analyzer) where(s source.Span) string {
	return analysis.WhereMark(a.ws, a.base(), s)
}

func (a *analyzer) base() string {
	if r := a.ws.Roots(); len(r) > 0 {
		return r[0]
	}
	return ""
}

// policy analyses one Policyfile.
func (a *analyzer) policy(u *unit) {
	f := u.rbFile
	p := u.rb
	// A Ruby syntax error anywhere makes chef-cli reject the whole file
	// (PolicyfileCompiler's DSL rescues SyntaxError from instance_eval):
	// said once, on the first one; the other statements are still read, so
	// navigation, the run list and the other checks show what the file
	// means once it is fixed.
	first := -1
	for i, d := range u.rbSyn.Diags {
		if d.Code == "syntax" && d.Severity == pchef.Error && (first < 0 || d.Start < u.rbSyn.Diags[first].Start) {
			first = i
		}
	}
	for i, d := range append(append([]pchef.Diag(nil), u.rbSyn.Diags...), p.Diags...) {
		msg := d.Message
		if i == first {
			name := f.URI
			if p := source.URIToPath(f.URI); p != "" {
				name = filepath.Base(p)
			}
			msg = fmt.Sprintf("Invalid ruby syntax in policyfile '%s': %s. chef-cli evaluates nothing of this Policyfile (no lock is written); the other statements are still read here", name, msg)
		}
		a.diag(u, spanOf(f, d.Start, d.End), analysis.Severity(d.Severity), d.Code, msg)
	}
	pn := u.node
	// include nodes and links
	for _, in := range u.includes {
		// the node sits on the `include_policy` word (hover: the merged run
		// list); the name and options are a link to the included lock
		kw := spanOf(f, in.spec.Call.NameStart, in.spec.Call.NameEnd)
		n := &analysis.Node{Kind: "include_policy", Ref: fmt.Sprintf("include_policy %q", in.name), Decl: kw, Full: in.at, Parent: pn, Container: true}
		in.node = a.res.Graph.Add(n)
		n.Facts = append(n.Facts, analysis.Fact{Label: "source", Value: optsText(in.spec)})
		if in.target != nil {
			n.Facts = append(n.Facts, analysis.Fact{Label: "resolved", Value: in.how})
			if in.target.lock != nil && in.target.lock.RevisionID != "" {
				n.Facts = append(n.Facts, analysis.Fact{Label: "revision", Value: in.target.lock.RevisionID})
			}
			labels := []string{}
			for _, li := range in.lockRunList() {
				labels = append(labels, pchef.ParseRunItem(li.Text).Label)
			}
			n.Facts = append(n.Facts, analysis.Fact{Label: "its run list", Value: strings.Join(labels, ", ")})
			link := analysis.Link{At: spanOf(f, in.spec.Name.Start, in.spec.Call.End)}
			if in.target.node != nil {
				link.Nodes = append(link.Nodes, in.target.node)
			}
			if in.target.lockNode != nil {
				link.Nodes = append(link.Nodes, in.target.lockNode)
			}
			if in.target.lockFile != nil { // not built yet: no lock to go to
				link.Files = append(link.Files, fileSpan(in.target.lockFile))
			}
			// the Policyfile itself, unless its name declaration is already a target
			if in.target.rbFile != nil && (in.target.node == nil || in.target.node.Decl.URI != in.target.rbFile.URI) {
				link.Files = append(link.Files, fileSpan(in.target.rbFile))
			}
			a.res.Links = append(a.res.Links, link)
		}
	}
	// the merged run list
	var srcs []runSource
	for _, in := range u.includes {
		srcs = append(srcs, includedSources(in, 0, map[*unit]bool{u: true})...)
	}
	own := runSource{}
	ownEmpty := true
	if p.RunList != nil {
		ownEmpty = len(p.RunList.Items) == 0
		for _, it := range p.RunList.Items {
			own.items = append(own.items, it)
			own.spans = append(own.spans, spanOf(f, it.Start, it.End))
			if it.Unknown {
				a.diag(u, spanOf(f, it.Start, it.End), analysis.Info, "not-checkable", fmt.Sprintf("run-list entry computed by Ruby (%s) is not evaluated; the merged run list leaves it out", it.Raw))
			} else if it.Pattern {
				a.diag(u, spanOf(f, it.Start, it.End), analysis.Info, "not-checkable", fmt.Sprintf("run-list entry %q is interpolated by Ruby; it is kept as written", it.Raw))
			}
		}
	}
	srcs = append(srcs, own)
	entries := merge(srcs)
	name := u.name
	run := a.buildRun(u, name, f.URI, entries, pn)
	// empty run lists
	declAt := pn.Decl
	if p.NameCall != nil {
		declAt = spanOf(f, p.NameCall.Start, p.NameCall.End)
	}
	switch {
	case len(entries) == 0 && u.rbSyn.HiddenDSL["run_list"]:
		a.diag(u, declAt, analysis.Info, "not-checkable", "the run_list is set inside Ruby that is not evaluated (a condition, a block): the merged run list is unknown")
	case len(entries) == 0 && (p.RunList == nil || !p.RunList.Unknown):
		a.diag(u, declAt, analysis.Error, "empty-run-list", "Invalid run_list. run_list cannot be empty")
	case ownEmpty && len(u.includes) > 0:
		a.diag(u, declAt, analysis.Info, "includes-only", fmt.Sprintf("chef-cli rejects this policy (\"Invalid run_list. run_list cannot be empty\") because it checks the run_list before merging included policies; merged, the run list has %d entries, which is what a node would run", len(entries)))
	}
	// dropped duplicates written in this file
	for _, e := range entries {
		for _, d := range e.dropped {
			if d.from == nil && d.at.URI == f.URI {
				a.diag(u, d.at, analysis.Hint, "duplicate-recipe", fmt.Sprintf("%s is already in the merged run list at position %d (%s); this entry is dropped (first occurrence wins)", e.item.Label, indexOf(entries, e)+1, a.sourceName(e.from)),
					analysis.Related{At: e.at, Message: "first occurrence"})
			}
		}
	}
	a.normalisedDuplicates(u, entries)
	// named run lists
	a.namedRunLists(u)
	// conflicts with included policies
	a.cookbookConflicts(u)
	a.attributeConflicts(u)
	a.includedTwice(u)
	a.cookbookLinks(u)
	// staleness of the lock beside it
	a.stale(u, entries)
	if u.hasError {
		for i := range a.res.Runs {
			if a.res.Runs[i].Entry == f.URI || strings.HasPrefix(a.res.Runs[i].Name, name+" named_run_list ") {
				a.res.Runs[i].Refused = true
			}
		}
	}
	_ = run
}

func indexOf(es []*entry, e *entry) int {
	for i, x := range es {
		if x == e {
			return i
		}
	}
	return -1
}

func optsText(spec *pchef.Include) string {
	if spec == nil {
		return ""
	}
	parts := []string{}
	for _, p := range spec.Call.Opts {
		parts = append(parts, p.Key.Text+": "+p.Value.String())
	}
	return strings.Join(parts, ", ")
}

// buildRun makes the nodes, edges, links and the Run of a merged list.
func (a *analyzer) buildRun(u *unit, runName, entryURI string, entries []*entry, pn *analysis.Node) *analysis.Run {
	run := analysis.Run{Name: runName, Entry: entryURI}
	var prev *analysis.Node
	total := len(entries)
	for i, e := range entries {
		decl := e.at
		full := e.at
		if e.from != nil {
			// included entries live at the end of the include statement
			// (zero width: an inlay hint there, no shadowing of its link)
			decl = source.Span{URI: e.from.at.URI, Start: e.from.at.End, End: e.from.at.End}
			full = e.from.at
		}
		n := &analysis.Node{Kind: "recipe", Ref: e.item.Label, Decl: decl, Full: full, Parent: pn}
		n.Facts = append(n.Facts, analysis.Fact{Label: "position", Value: fmt.Sprintf("%d of %d in the merged run list of %s", i+1, total, runName)})
		if e.from == nil {
			n.Facts = append(n.Facts, analysis.Fact{Label: "from", Value: fmt.Sprintf("this policy's run_list (%s)", e.item.Raw)})
		} else {
			n.Facts = append(n.Facts, analysis.Fact{Label: "from", Value: "included policy " + a.contributor(e.from, e.item.Key()) + " at " + a.where(e.at)})
		}
		for _, d := range e.dropped {
			n.Facts = append(n.Facts, analysis.Fact{Label: "dropped duplicate", Value: fmt.Sprintf("%s at %s (first occurrence wins)", a.sourceName(d.from), a.where(d.at))})
		}
		e.node = a.res.Graph.Add(n)
		if prev != nil {
			a.res.Graph.Connect(&analysis.Edge{From: prev, To: e.node, Kind: analysis.Order, Reason: "run list", At: e.at})
		}
		prev = e.node
		note := ""
		if e.from != nil {
			note = "from " + a.contributor(e.from, e.item.Key())
		}
		run.Steps = append(run.Steps, analysis.Step{Node: e.node, Label: e.item.Label, Note: note})
		if e.from == nil {
			a.recipeLink(u, e)
		}
	}
	// the merged list on the policy node, for hovers on name/include lines
	if pn != nil && entryURI != "" {
		defer func() {
			// and on the `run_list` word itself
			if u.rb != nil && u.rb.RunList != nil {
				c := u.rb.RunList.Call
				a.res.Graph.Add(&analysis.Node{Kind: "run_list", Ref: "run_list of " + runName, Parent: pn, Facts: pn.Facts, Container: true,
					Decl: spanOf(u.rbFile, c.NameStart, c.NameEnd), Full: spanOf(u.rbFile, c.Start, c.End)})
			}
		}()
		pn.Facts = append(pn.Facts, analysis.Fact{Label: "merged run list of " + runName, Value: fmt.Sprintf("%d recipes (included policies first, in include_policy order; first occurrence wins)", len(entries))})
		for i, e := range entries {
			v := e.item.Label
			if e.from != nil {
				v += " (from " + a.contributor(e.from, e.item.Key()) + ")"
			}
			if len(e.dropped) > 0 {
				v += fmt.Sprintf(" [%d duplicate(s) dropped]", len(e.dropped))
			}
			pn.Facts = append(pn.Facts, analysis.Fact{Label: fmt.Sprintf("%d", i+1), Value: v})
		}
		for _, in := range u.includes {
			if in.node != nil && runName == u.name {
				in.node.Facts = append(in.node.Facts, pn.Facts...)
			}
		}
	}
	a.res.Runs = append(a.res.Runs, run)
	return &a.res.Runs[len(a.res.Runs)-1]
}

// normalisedDuplicates warns when chef-cli keeps two items that normalise
// to the same recipe ("nginx" and "recipe[nginx::default]").
func (a *analyzer) normalisedDuplicates(u *unit, entries []*entry) {
	seen := map[string]*entry{}
	for _, e := range entries {
		if first := seen[e.item.Label]; first != nil {
			at := e.at
			if e.from != nil {
				at = e.from.at
			}
			a.diag(u, at, analysis.Warning, "duplicate-recipe", fmt.Sprintf("%s is in the merged run list twice: chef-cli compares run-list items before normalising them (%q and %q differ), so the lock keeps both; chef-client runs the recipe once, at its first position", e.item.Label, first.item.Raw, e.item.Raw),
				analysis.Related{At: first.at, Message: "first occurrence"})
			continue
		}
		seen[e.item.Label] = e
	}
}

func (a *analyzer) namedRunLists(u *unit) {
	type nl struct {
		name string
		srcs []runSource
		at   source.Span
	}
	var lists []*nl
	get := func(name string) *nl {
		for _, l := range lists {
			if l.name == name {
				return l
			}
		}
		l := &nl{name: name}
		lists = append(lists, l)
		return l
	}
	for _, in := range u.includes {
		if in.target == nil || in.target.lock == nil {
			continue
		}
		for _, n := range in.target.lock.NamedRunLists {
			l := get(n.Name)
			l.srcs = append(l.srcs, lockItems(in, n.Items))
		}
	}
	f := u.rbFile
	for _, rl := range u.rb.NamedRunLists {
		l := get(rl.Name)
		rs := runSource{}
		for _, it := range rl.Items {
			rs.items = append(rs.items, it)
			rs.spans = append(rs.spans, spanOf(f, it.Start, it.End))
		}
		l.srcs = append(l.srcs, rs)
	}
	for _, l := range lists {
		entries := merge(l.srcs)
		a.buildRun(u, u.name+" named_run_list "+l.name, "", entries, u.node)
		u.named = append(u.named, namedList{name: l.name, entries: entries})
	}
}

// ---- links to cookbooks and recipes ----

// cookbookDirs lists where a cookbook may live, best first.
func (a *analyzer) cookbookDir(u *unit, cb string) string {
	if u.dir == "" {
		return ""
	}
	if u.lock != nil {
		for _, c := range u.lock.CookbookLocks {
			if c.Name != cb {
				continue
			}
			if so := c.SourceOptions.Get("path"); so != nil && so.Kind == pchef.JString {
				p := so.Str
				if !filepath.IsAbs(p) {
					p = filepath.Join(u.dir, p)
				}
				if a.ws.IsDir(p) {
					return p
				}
			}
		}
	}
	if u.rb == nil {
		return a.cookbookDirAbove(u.dir, cb)
	}
	for _, c := range u.rb.Cookbooks {
		if c.Name.Text == cb {
			if v := c.Opts["path"]; v != nil && v.Kind == pchef.VString && !v.Pattern {
				p := v.Text
				if !filepath.IsAbs(p) {
					p = filepath.Join(u.dir, p)
				}
				if a.ws.IsDir(p) {
					return p
				}
			}
		}
	}
	for _, s := range u.rb.Sources {
		if s.Type == "chef_repo" && s.Arg != nil && s.Arg.Kind == pchef.VString {
			p := s.Arg.Text
			if !filepath.IsAbs(p) {
				p = filepath.Join(u.dir, p)
			}
			for _, c := range []string{filepath.Join(p, "cookbooks", cb), filepath.Join(p, cb)} {
				if a.ws.IsDir(c) {
					return c
				}
			}
		}
	}
	return a.cookbookDirAbove(u.dir, cb)
}

// cookbookDirAbove looks for cookbooks/<cb> (or a folder whose metadata.rb
// names cb) from dir up to the workspace root.
func (a *analyzer) cookbookDirAbove(dir, cb string) string {
	roots := a.ws.Roots()
	for i := 0; i < 32; i++ {
		c := filepath.Join(dir, "cookbooks", cb)
		if a.ws.IsDir(c) {
			return c
		}
		if a.metadataName(dir) == cb {
			return dir
		}
		stop := false
		for _, r := range roots {
			if dir == r {
				stop = true
			}
		}
		parent := filepath.Dir(dir)
		if stop || parent == dir {
			break
		}
		dir = parent
	}
	return ""
}

func (a *analyzer) recipeLink(u *unit, e *entry) {
	if e.item.Unknown || e.item.Pattern {
		return
	}
	a.linkRecipe(u, e.item, e.at, e.node)
}

// linkRecipe links a run-list entry to cookbooks/<cb>/recipes/<r>.rb.
func (a *analyzer) linkRecipe(u *unit, it *pchef.RunItem, at source.Span, n *analysis.Node) {
	dir := a.cookbookDir(u, it.Cookbook)
	if dir == "" {
		return
	}
	p := filepath.Join(dir, "recipes", it.Recipe+".rb")
	if a.ws.Exists(p) {
		a.res.Links = append(a.res.Links, analysis.Link{At: at, Files: []source.Span{{URI: source.PathToURI(p)}}})
		n.Facts = append(n.Facts, analysis.Fact{Label: "recipe file", Value: a.rel(p)})
	}
}

func (a *analyzer) cookbookLinks(u *unit) {
	f := u.rbFile
	a.lockedLinks(u)
	for _, c := range u.rb.Cookbooks {
		v := c.Opts["path"]
		if v == nil || v.Kind != pchef.VString || v.Pattern || u.dir == "" {
			continue
		}
		p := v.Text
		if !filepath.IsAbs(p) {
			p = filepath.Join(u.dir, p)
		}
		if !a.ws.IsDir(p) {
			a.diag(u, spanOf(f, v.Start, v.End), analysis.Info, "missing-cookbook", fmt.Sprintf("cookbook '%s': the path %s does not exist", c.Name.Text, v.Text))
			continue
		}
		target := filepath.Join(p, "metadata.rb")
		if !a.ws.Exists(target) {
			if a.ws.Exists(filepath.Join(p, "metadata.json")) {
				target = filepath.Join(p, "metadata.json")
			} else {
				target = p
			}
		}
		a.res.Links = append(a.res.Links, analysis.Link{At: spanOf(f, v.Start, v.End), Files: []source.Span{{URI: source.PathToURI(target)}}})
	}
}

// lockedLinks makes the name of each `cookbook` statement a link to the
// cookbook's entry in the lock beside the Policyfile, with the version
// and source it is locked at: what hover shows, and where F12 lands.
func (a *analyzer) lockedLinks(u *unit) {
	if u.lock == nil || u.lockFile == nil {
		a.unlockedLinks(u)
		return
	}
	f := u.rbFile
	for _, c := range u.rb.Cookbooks {
		if c.Name == nil || c.Name.Kind != pchef.VString || c.Name.Pattern {
			continue
		}
		var cl *pchef.CookbookLock
		for i := range u.lock.CookbookLocks {
			if u.lock.CookbookLocks[i].Name == c.Name.Text {
				cl = &u.lock.CookbookLocks[i]
			}
		}
		if cl == nil {
			continue // (the stale-lock warning says so)
		}
		at := nameSpan(f, c.Name)
		note := "locked at `" + cl.Version + "`"
		if from := lockedFrom(cl.SourceOptions); from != "" {
			note += ", " + from
		}
		a.res.Links = append(a.res.Links, analysis.Link{At: at, Files: []source.Span{spanOf(u.lockFile, cl.Start, cl.End)}, Notes: []string{note},
			Title: "cookbook `" + c.Name.Text + "` in the lock:"})
	}
}

// nameSpan is the place of a string's words, without its quotes: where
// hover and F12 answer on a `cookbook` statement's name.
func nameSpan(f *source.File, v *pchef.Value) source.Span {
	at := spanOf(f, v.Start, v.End)
	if t := f.Text; at.End-at.Start >= 2 && at.End <= len(t) && (t[at.Start] == '"' || t[at.Start] == '\'') {
		at.Start, at.End = at.Start+1, at.End-1
	}
	return at
}

// unlockedLinks: with no lock beside the Policyfile (never `chef
// install`ed, or the lock not committed), hover on a `cookbook`
// statement's name says so and where `chef install` would take the
// cookbook from: its own source, else the default_source that prefers
// it, else the default sources; a cookbook of a path in the workspace
// links to its metadata.
func (a *analyzer) unlockedLinks(u *unit) {
	f := u.rbFile
	if f == nil || u.rb == nil {
		return
	}
	lock := "Policyfile.lock.json"
	if u.stem != "" && u.stem != "Policyfile" {
		lock = u.stem + ".lock.json"
	}
	for _, c := range u.rb.Cookbooks {
		if c.Name == nil || c.Name.Kind != pchef.VString || c.Name.Pattern {
			continue
		}
		at := nameSpan(f, c.Name)
		version := "any version"
		if c.Constraint != nil && c.Constraint.Kind == pchef.VString {
			version = "`" + c.Constraint.Text + "`"
		}
		title := "cookbook `" + c.Name.Text + "`: not locked (no " + lock + " beside this Policyfile; `chef install` writes it), " + version + " " + a.unlockedFrom(u, c)
		l := analysis.Link{At: at, Title: title}
		if dir := a.cookbookDir(u, c.Name.Text); dir != "" && c.Opts["path"] != nil {
			for _, m := range []string{"metadata.rb", "metadata.json"} {
				if p := filepath.Join(dir, m); a.ws.Exists(p) {
					l.Files = []source.Span{{URI: source.PathToURI(p)}}
					break
				}
			}
		}
		a.res.Links = append(a.res.Links, l)
	}
}

// unlockedFrom says where `chef install` would look for cookbook c.
func (a *analyzer) unlockedFrom(u *unit, c *pchef.Cookbook) string {
	opt := func(k string) string {
		if v := c.Opts[k]; v != nil && v.Kind == pchef.VString && !v.Pattern {
			return v.Text
		}
		return ""
	}
	if from := sourceFrom(opt); from != "" {
		return from
	}
	var all []string
	for _, s := range u.rb.Sources {
		if slices.Contains(s.Preferred, c.Name.Text) {
			return "from " + sourceDesc(s) + " (preferred_for)"
		}
		all = append(all, sourceDesc(s))
	}
	switch len(all) {
	case 0:
		return "from no source: the statement names none and the Policyfile has no default_source"
	case 1:
		return "from the default source " + all[0]
	}
	return "from one of the default sources " + strings.Join(all, ", ") + " (chef-cli refuses a cookbook two of them have, unless preferred_for names one)"
}

// lockedFrom says where a locked cookbook comes from, by its
// source_options: a path, a git repository at a revision, an artifact
// server's host, a Chef server.
func lockedFrom(so *pchef.JSON) string {
	str := func(k string) string {
		if v := so.Get(k); v != nil && v.Kind == pchef.JString {
			return v.Str
		}
		return ""
	}
	return sourceFrom(str)
}

// sourceFrom says where a cookbook comes from by its source options (a
// lock's source_options, a cookbook statement's options): a path, a
// git repository at a branch, tag, ref or revision, GitHub, an artifact
// server's host, a Chef server; "" when none is given.
func sourceFrom(get func(string) string) string {
	switch {
	case get("path") != "":
		return "from path `" + get("path") + "`"
	case get("git") != "":
		s := "from git `" + get("git") + "`"
		for _, k := range []string{"branch", "tag", "ref"} {
			if r := get(k); r != "" {
				s += " " + k + " `" + r + "`"
			}
		}
		if r := get("revision"); r != "" {
			s += " at `" + short(r) + "`"
		}
		return s
	case get("github") != "":
		return "from GitHub `" + get("github") + "`"
	case get("artifactserver") != "":
		if u, err := url.Parse(get("artifactserver")); err == nil && u.Host != "" {
			return "from " + u.Host
		}
		return "from `" + get("artifactserver") + "`"
	case get("chef_server") != "":
		return "from the Chef server `" + get("chef_server") + "`"
	}
	return ""
}
