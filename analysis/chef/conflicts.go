package chef

import (
	"fmt"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/ordering-lsp/ordering-lsp/analysis"
	pchef "github.com/ordering-lsp/ordering-lsp/parser/chef"
	"github.com/ordering-lsp/ordering-lsp/source"
)

// ---- cookbooks ----

type cbOrigin struct {
	in      *incl
	version string
	opts    string // normalised source_options
	at      source.Span
}

// normOpts renders a cookbook lock's source_options with paths made
// absolute, the way chef-cli's LocalLockFetcher rewrites them.
func (a *analyzer) normOpts(u *unit, so *pchef.JSON) string {
	if so == nil || so.Kind != pchef.JObject {
		return "{}"
	}
	parts := []string{}
	for _, k := range so.Keys {
		v := k.Value.String()
		if (k.Name == "path") && k.Value.Kind == pchef.JString && u.dir != "" {
			p := k.Value.Str
			if !filepath.IsAbs(p) {
				p = filepath.Join(u.dir, p)
			}
			v = strconv.Quote(a.rel(filepath.Clean(p)))
		}
		parts = append(parts, k.Name+"="+v)
	}
	sort.Strings(parts)
	return "{" + strings.Join(parts, ", ") + "}"
}

func (a *analyzer) cookbookConflicts(u *unit) {
	seen := map[string]*cbOrigin{}
	var names []string
	for _, in := range u.includes {
		if in.target == nil || in.target.lock == nil {
			continue
		}
		t := in.target
		versions := t.lock.SolutionVersions()
		locks := map[string]pchef.CookbookLock{}
		for _, c := range t.lock.CookbookLocks {
			locks[c.Name] = c
		}
		keys := make([]string, 0, len(versions))
		for k := range versions {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, cb := range keys {
			o := &cbOrigin{in: in, version: versions[cb], at: fileSpan(t.lockFile)}
			if c, ok := locks[cb]; ok {
				o.opts = a.normOpts(t, c.SourceOptions)
				o.at = spanOf(t.lockFile, c.Start, c.End)
			}
			first := seen[cb]
			if first == nil {
				seen[cb] = o
				names = append(names, cb)
				continue
			}
			rel := []analysis.Related{
				{At: first.in.at, Message: fmt.Sprintf("included policy %s brings %s %s", first.in.name, cb, first.version)},
				{At: first.at, Message: fmt.Sprintf("%s %s locked here", cb, first.version)},
				{At: o.at, Message: fmt.Sprintf("%s %s locked here", cb, o.version)},
			}
			if first.version != o.version {
				a.diag(u, in.at, analysis.Error, "cookbook-conflict", fmt.Sprintf("Multiple versions provided for cookbook %s (included policy %s locks %s, included policy %s locks %s)", cb, first.in.name, first.version, in.name, o.version), rel...)
			} else if first.opts != "" && o.opts != "" && first.opts != o.opts {
				a.diag(u, in.at, analysis.Error, "source-conflict", fmt.Sprintf("Conflicting sources provided for cookbook %s (included policy %s: %s, included policy %s: %s)", cb, first.in.name, first.opts, in.name, o.opts), rel...)
			}
		}
	}
	f := u.rbFile
	// the policy's own cookbook statements against its includes
	for _, c := range u.rb.Cookbooks {
		o := seen[c.Name.Text]
		if o == nil {
			continue
		}
		at := spanOf(f, c.Call.Start, c.Call.End)
		rel := []analysis.Related{{At: o.in.at, Message: fmt.Sprintf("included policy %s brings %s %s", o.in.name, c.Name.Text, o.version)}, {At: o.at, Message: "locked here"}}
		if c.Constraint != nil && c.Constraint.Kind == pchef.VString && !c.Constraint.Pattern {
			if ok, known := satisfies(o.version, c.Constraint.Text); known && !ok {
				a.diag(u, spanOf(f, c.Constraint.Start, c.Constraint.End), analysis.Error, "cookbook-conflict",
					fmt.Sprintf("Multiple versions provided for cookbook %s: this policy asks for '%s' but included policy %s locks %s", c.Name.Text, c.Constraint.Text, o.in.name, o.version), rel...)
			}
		}
		mine := a.cookbookOpts(u, c)
		if mine != "" && o.opts != "" && !sameSource(mine, o.opts) {
			a.diag(u, at, analysis.Error, "source-conflict",
				fmt.Sprintf("Conflicting sources provided for cookbook %s: this policy takes it from %s, included policy %s locked it from %s", c.Name.Text, mine, o.in.name, o.opts), rel...)
		}
	}
	// default_source preferences against included cookbooks (chef-cli's
	// handle_included_policies_preferred_cookbook_conflicts)
	var msgs []string
	var at source.Span
	for _, s := range u.rb.Sources {
		var clash []string
		for _, cb := range s.Preferred {
			if seen[cb] != nil {
				clash = append(clash, cb)
			}
		}
		if len(clash) > 0 {
			msgs = append(msgs, fmt.Sprintf("%s sets a preferred for cookbook(s) %s. This conflicts with an included policy.", sourceDesc(s), strings.Join(clash, ", ")))
			if at.URI == "" {
				at = spanOf(f, s.Call.Start, s.Call.End)
			}
		}
	}
	if len(msgs) > 0 {
		a.diag(u, at, analysis.Error, "source-conflict", "You may not override the cookbook sources for any cookbooks required by included policies.\n"+strings.Join(msgs, "\n"))
	}
}

func sourceDesc(s *pchef.Source) string {
	arg := ""
	if s.Arg != nil {
		arg = s.Arg.Text
	}
	switch s.Type {
	case "supermarket", "community":
		if arg == "" {
			arg = "https://supermarket.chef.io"
		}
		return "supermarket(" + arg + ")"
	case "chef_repo":
		return "chef_repo(" + arg + ")"
	}
	return s.Type + "(" + arg + ")"
}

// cookbookOpts renders the source options of a `cookbook` statement in the
// form normOpts uses, or "" when it has no source of its own.
func (a *analyzer) cookbookOpts(u *unit, c *pchef.Cookbook) string {
	parts := []string{}
	for _, k := range []string{"path", "git", "github", "chef_server", "artifactory", "branch", "tag", "ref", "rel", "revision"} {
		v := c.Opts[k]
		if v == nil {
			continue
		}
		if v.Kind != pchef.VString || v.Pattern {
			return ""
		}
		s := v.Text
		if k == "path" && u.dir != "" {
			if !filepath.IsAbs(s) {
				s = filepath.Join(u.dir, s)
			}
			s = a.rel(filepath.Clean(s))
		}
		if k == "github" {
			k, s = "git", "https://github.com/"+s+".git"
		}
		parts = append(parts, k+"="+strconv.Quote(s))
	}
	if len(parts) == 0 {
		return ""
	}
	sort.Strings(parts)
	return "{" + strings.Join(parts, ", ") + "}"
}

// sameSource compares the location part (path or git) of two option sets.
func sameSource(mine, locked string) bool {
	for _, k := range []string{"path=", "git="} {
		if i := strings.Index(mine, k); i >= 0 {
			v := optValue(mine[i+len(k):])
			j := strings.Index(locked, k)
			if j < 0 {
				return false
			}
			return v == optValue(locked[j+len(k):])
		}
	}
	return true
}

func optValue(s string) string {
	if i := strings.IndexAny(s, ",}"); i >= 0 {
		return s[:i]
	}
	return s
}

// satisfies checks a cookbook version against a constraint ("~> 1.2",
// ">= 0.0.0", "= 2.0.0", "1.0.0"). known is false when either is unreadable.
func satisfies(version, constraint string) (ok, known bool) {
	constraint = strings.TrimSpace(constraint)
	op := "="
	for _, o := range []string{"~>", ">=", "<=", "!=", ">", "<", "="} {
		if strings.HasPrefix(constraint, o) {
			op = o
			constraint = strings.TrimSpace(constraint[len(o):])
			break
		}
	}
	v, ok1 := parseVersion(version)
	c, ok2 := parseVersion(constraint)
	if !ok1 || !ok2 {
		return false, false
	}
	n := len(strings.Split(constraint, "."))
	cmp := compareVersions(v, c)
	switch op {
	case "=":
		return cmp == 0, true
	case "!=":
		return cmp != 0, true
	case ">":
		return cmp > 0, true
	case "<":
		return cmp < 0, true
	case ">=":
		return cmp >= 0, true
	case "<=":
		return cmp <= 0, true
	case "~>":
		if cmp < 0 {
			return false, true
		}
		upper := c
		if n <= 2 {
			upper = [3]int{c[0] + 1, 0, 0}
		} else {
			upper = [3]int{c[0], c[1] + 1, 0}
		}
		return compareVersions(v, upper) < 0, true
	}
	return false, false
}

func parseVersion(s string) ([3]int, bool) {
	var out [3]int
	parts := strings.Split(s, ".")
	if len(parts) == 0 || len(parts) > 3 {
		return out, false
	}
	for i, p := range parts {
		n, err := strconv.Atoi(p)
		if err != nil {
			return out, false
		}
		out[i] = n
	}
	return out, true
}

func compareVersions(a, b [3]int) int {
	for i := 0; i < 3; i++ {
		if a[i] != b[i] {
			if a[i] < b[i] {
				return -1
			}
			return 1
		}
	}
	return 0
}

// ---- attributes ----

// attr is an attribute tree: a hash (kids) or a leaf value.
type attr struct {
	leaf    bool
	val     string // canonical value of a leaf
	unknown bool
	at      source.Span
	kids    map[string]*attr
	order   []string
}

func newHash(at source.Span) *attr { return &attr{kids: map[string]*attr{}, at: at} }

func (t *attr) set(k string, v *attr) {
	if _, ok := t.kids[k]; !ok {
		t.order = append(t.order, k)
	}
	t.kids[k] = v
}

func canonNumber(s string) string {
	if f, err := strconv.ParseFloat(s, 64); err == nil {
		return "n:" + strconv.FormatFloat(f, 'g', -1, 64)
	}
	return "n:" + s
}

func rubyCanon(v *pchef.Value, depth int) (string, bool) {
	if depth > 100 {
		return "", false
	}
	switch v.Kind {
	case pchef.VString:
		return strconv.Quote(v.Text), !v.Pattern
	case pchef.VSymbol:
		return ":" + v.Text, !v.Pattern
	case pchef.VNumber:
		return canonNumber(v.Text), true
	case pchef.VBool:
		return v.Text, true
	case pchef.VNil:
		return "nil", true
	case pchef.VArray:
		parts := []string{}
		for _, it := range v.Items {
			s, ok := rubyCanon(it, depth+1)
			if !ok {
				return "", false
			}
			parts = append(parts, s)
		}
		return "[" + strings.Join(parts, ",") + "]", true
	case pchef.VHash:
		parts := []string{}
		for _, p := range v.Pairs {
			s, ok := rubyCanon(p.Value, depth+1)
			if !ok || p.Key.Kind == pchef.VUnknown {
				return "", false
			}
			parts = append(parts, strconv.Quote(p.Key.Text)+"=>"+s)
		}
		return "{" + strings.Join(parts, ",") + "}", true
	}
	return "", false
}

func jsonCanon(j *pchef.JSON, depth int) string {
	if depth > 100 {
		return "?"
	}
	switch j.Kind {
	case pchef.JString:
		return strconv.Quote(j.Str)
	case pchef.JNumber:
		return canonNumber(j.Str)
	case pchef.JBool:
		return j.Str
	case pchef.JNull:
		return "nil"
	case pchef.JArray:
		parts := []string{}
		for _, it := range j.Items {
			parts = append(parts, jsonCanon(it, depth+1))
		}
		return "[" + strings.Join(parts, ",") + "]"
	}
	parts := []string{}
	for _, k := range j.Keys {
		parts = append(parts, strconv.Quote(k.Name)+"=>"+jsonCanon(k.Value, depth+1))
	}
	return "{" + strings.Join(parts, ",") + "}"
}

// rubyAttr converts an assigned value; hashes become subtrees.
func rubyAttr(f *source.File, v *pchef.Value, depth int) *attr {
	at := spanOf(f, v.Start, v.End)
	if v.Kind == pchef.VHash && depth < 100 {
		h := newHash(at)
		for _, p := range v.Pairs {
			if p.Key.Kind == pchef.VUnknown || p.Key.Pattern {
				h.unknown = true
				continue
			}
			h.set(p.Key.Text, rubyAttr(f, p.Value, depth+1))
		}
		return h
	}
	s, ok := rubyCanon(v, 0)
	return &attr{leaf: true, val: s, unknown: !ok, at: at}
}

func jsonAttr(f *source.File, j *pchef.JSON, at source.Span, depth int) *attr {
	if j.Kind == pchef.JObject && depth < 100 {
		h := newHash(at)
		for _, k := range j.Keys {
			h.set(k.Name, jsonAttr(f, k.Value, spanOf(f, k.Start, k.End), depth+1))
		}
		return h
	}
	return &attr{leaf: true, val: jsonCanon(j, 0), at: at}
}

// policyAttrs builds the default or override tree of a Policyfile from its
// assignments, in order (a later assignment replaces what it covers).
func policyAttrs(f *source.File, p *pchef.Policy, level string) *attr {
	root := newHash(source.Span{URI: f.URI})
	for _, as := range p.Attrs {
		if as.Level != level || as.Value == nil {
			continue
		}
		node := root
		ok := true
		for i, k := range as.Keys {
			if k == nil || k.Kind == pchef.VUnknown || k.Pattern || k.Kind == pchef.VArray || k.Kind == pchef.VHash {
				ok = false
				break
			}
			if i == len(as.Keys)-1 {
				break
			}
			next := node.kids[k.Text]
			if next == nil || next.leaf {
				next = newHash(spanOf(f, as.Start, as.End))
				node.set(k.Text, next)
			}
			node = next
		}
		if !ok {
			continue
		}
		last := as.Keys[len(as.Keys)-1]
		v := rubyAttr(f, as.Value, 0)
		v.at = spanOf(f, as.Start, as.End)
		node.set(last.Text, v)
	}
	return root
}

type slot struct {
	provider string
	from     *incl
	a        *attr
	kids     map[string]*slot
}

func (a *analyzer) attributeConflicts(u *unit) {
	for _, level := range []string{"default", "override"} {
		acc := &slot{kids: map[string]*slot{}}
		a.fill(u, acc, "user-specified", nil, "", policyAttrs(u.rbFile, u.rb, level), 0)
		for _, in := range u.includes {
			if in.target == nil || in.target.lock == nil {
				continue
			}
			j := in.target.lock.Default
			if level == "override" {
				j = in.target.lock.Override
			}
			if j == nil {
				continue
			}
			a.fill(u, acc, in.name, in, "", jsonAttr(in.target.lockFile, j, fileSpan(in.target.lockFile), 0), 0)
		}
	}
}

// fill is chef-cli's AttributeMergeChecker#fill!: a leaf already provided
// with a different value is a conflict.
func (a *analyzer) fill(u *unit, acc *slot, provider string, in *incl, path string, t *attr, depth int) {
	if depth > 100 {
		return
	}
	for _, k := range t.order {
		v := t.kids[k]
		p := path + "[" + k + "]"
		cur := acc.kids[k]
		if !v.leaf {
			if cur == nil {
				cur = &slot{provider: provider, from: in, a: v, kids: map[string]*slot{}}
				acc.kids[k] = cur
			} else if cur.a.leaf {
				a.attrConflict(u, p, cur, provider, in, v)
				continue
			}
			a.fill(u, cur, provider, in, p, v, depth+1)
			continue
		}
		if cur == nil {
			acc.kids[k] = &slot{provider: provider, from: in, a: v}
			continue
		}
		if !cur.a.leaf {
			a.attrConflict(u, p, cur, provider, in, v)
			continue
		}
		if cur.a.unknown || v.unknown {
			continue
		}
		if cur.a.val != v.val {
			a.attrConflict(u, p, cur, provider, in, v)
		}
	}
}

func (a *analyzer) attrConflict(u *unit, path string, first *slot, provider string, in *incl, v *attr) {
	msg := fmt.Sprintf("Attribute '%s' provided conflicting values by the following sources [%q, %q]", path, first.provider, provider)
	// report in the Policyfile: at the user's assignment when it is one of
	// the two, else at the later include_policy
	at := source.Span{}
	var rel []analysis.Related
	if first.from == nil {
		at = first.a.at
	} else {
		rel = append(rel, analysis.Related{At: first.from.at, Message: "included policy " + first.provider})
		at = in.at
	}
	rel = append(rel, analysis.Related{At: first.a.at, Message: fmt.Sprintf("%s sets %s", first.provider, path)})
	rel = append(rel, analysis.Related{At: v.at, Message: fmt.Sprintf("%s sets %s", provider, path)})
	a.diag(u, at, analysis.Error, "attribute-conflict", msg, rel...)
}

// ---- one policy name from two sources ----

func (a *analyzer) includedTwice(u *unit) {
	type seenAt struct {
		target *unit
		top    *incl
		path   string
	}
	seen := map[string]seenAt{}
	reported := map[string]bool{}
	var walk func(t *unit, top *incl, path string, depth int, visiting map[*unit]bool)
	walk = func(t *unit, top *incl, path string, depth int, visiting map[*unit]bool) {
		if depth > maxIncludeDepth || visiting[t] {
			return
		}
		visiting[t] = true
		defer delete(visiting, t)
		for _, in := range t.includes {
			if in.target == nil || in.target.lock == nil {
				continue
			}
			name := in.target.lock.Name
			if name == "" {
				name = in.name
			}
			p := path + " > " + in.name
			if s, ok := seen[name]; ok && s.target != in.target && s.target.lock.RevisionID != in.target.lock.RevisionID && !reported[name] {
				reported[name] = true
				a.diag(u, top.at, analysis.Warning, "include-conflict",
					fmt.Sprintf("policy '%s' is included from two sources: %s (%s, revision %s) and %s (%s, revision %s); the node gets both run lists merged, from different revisions", name,
						strings.TrimPrefix(s.path, " > "), a.rel(s.target.lockFile.Path), short(s.target.lock.RevisionID),
						strings.TrimPrefix(p, " > "), a.rel(in.target.lockFile.Path), short(in.target.lock.RevisionID)),
					analysis.Related{At: s.top.at, Message: "first included here"})
			} else if !ok {
				seen[name] = seenAt{target: in.target, top: top, path: p}
			}
			walk(in.target, top, p, depth+1, visiting)
		}
	}
	for _, in := range u.includes {
		if in.target == nil || in.target.lock == nil {
			continue
		}
		name := in.target.lock.Name
		if name == "" {
			name = in.name
		}
		if s, ok := seen[name]; ok && s.target != in.target && !reported[name] && s.target.lock.RevisionID != in.target.lock.RevisionID {
			reported[name] = true
			a.diag(u, in.at, analysis.Warning, "include-conflict", fmt.Sprintf("policy '%s' is included from two sources: %s and %s", name, a.rel(s.target.lockFile.Path), a.rel(in.target.lockFile.Path)),
				analysis.Related{At: s.top.at, Message: "first included here"})
		} else if !ok {
			seen[name] = seenAt{target: in.target, top: in, path: " > " + in.name}
		}
		walk(in.target, in, " > "+in.name, 1, map[*unit]bool{u: true})
	}
}
