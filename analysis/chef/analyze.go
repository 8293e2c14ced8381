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

// unit is one policy: a Policyfile (NAME.rb or Policyfile.rb) and/or its
// lock (NAME.lock.json / Policyfile.lock.json) in the same folder.
type unit struct {
	key  string // folder + "/" + stem
	dir  string
	stem string

	rbFile *source.File
	rbSyn  *pchef.File
	rb     *pchef.Policy

	lockFile *source.File
	lock     *pchef.Lock
	lockErr  error

	owned    bool // one of its files is in the request
	name     string
	node     *analysis.Node // the policy (in the .rb, else in the lock)
	lockNode *analysis.Node // the lock's own node
	includes []*incl
	resolved bool
	hasError bool
	// merged named run lists of the Policyfile
	named []namedList
}

type namedList struct {
	name    string
	entries []*entry
}

// incl is one include of a unit: an include_policy statement, or (for a
// lock without its Policyfile) an included_policy_locks entry.
type incl struct {
	from   *unit
	name   string
	kind   string // path git server remote
	spec   *pchef.Include
	entry  *pchef.IncludedLock
	at     source.Span // the statement / entry
	nameAt source.Span
	pathAt source.Span
	target *unit
	node   *analysis.Node
	how    string // how the target was found
}

func (i *incl) lockRunList() []pchef.LockItem {
	if i.target == nil || i.target.lock == nil {
		return nil
	}
	return i.target.lock.RunList
}

type analyzer struct {
	sys   *system
	req   *analysis.Request
	ws    *source.Workspace
	res   *analysis.Result
	units map[string]*unit
	order []*unit
	// locks by policy name, for git/server includes resolved by revision
	byName map[string][]*unit
	// metadata.rb cookbook names by folder
	metaNames map[string]string
}

func newAnalyzer(s *system, req *analysis.Request) *analyzer {
	ws := req.Workspace
	if ws == nil {
		ws = source.NewWorkspace()
	}
	return &analyzer{sys: s, req: req, ws: ws, res: &analysis.Result{}, units: map[string]*unit{}, byName: map[string][]*unit{}, metaNames: map[string]string{}}
}

func stemOf(path string) (dir, stem string, isLock bool) {
	dir, base := filepath.Split(path)
	dir = filepath.Clean(dir)
	if s, ok := strings.CutSuffix(base, ".lock.json"); ok {
		return dir, s, true
	}
	return dir, strings.TrimSuffix(base, ".rb"), false
}

func (a *analyzer) unitFor(dir, stem string) *unit {
	key := filepath.Join(dir, stem)
	u := a.units[key]
	if u == nil {
		u = &unit{key: key, dir: dir, stem: stem}
		a.units[key] = u
		a.order = append(a.order, u)
	}
	return u
}

// load fills in the files of a unit that are not open yet (the lock or the
// Policyfile beside the one we have).
func (a *analyzer) setRB(u *unit, f *source.File) {
	if u.rbFile != nil || f == nil {
		return
	}
	u.rbFile = f
	u.rbSyn = a.sys.parser.Parse(f.Text)
	u.rb = pchef.Read(f.Text, u.rbSyn)
}

func (a *analyzer) setLock(u *unit, f *source.File) {
	if u.lockFile != nil || f == nil {
		return
	}
	u.lockFile = f
	u.lock, u.lockErr = pchef.ParseLock(f.Text)
	if u.lock != nil && u.lock.Name != "" {
		a.byName[u.lock.Name] = append(a.byName[u.lock.Name], u)
	}
}

func (a *analyzer) lookup(path string) *source.File {
	if path == "" {
		return nil
	}
	return a.ws.Lookup(path)
}

// besideRB finds the Policyfile of a lock: NAME.rb for NAME.lock.json.
func (a *analyzer) fillBeside(u *unit) {
	if u.dir == "" {
		return
	}
	if u.rbFile == nil {
		if f := a.lookup(filepath.Join(u.dir, u.stem+".rb")); f != nil {
			a.setRB(u, f)
		}
	}
	if u.lockFile == nil {
		if f := a.lookup(filepath.Join(u.dir, u.stem+".lock.json")); f != nil {
			a.setLock(u, f)
		}
	}
}

func (a *analyzer) run() *analysis.Result {
	for _, f := range a.req.Files {
		dir, stem, isLock := stemOf(f.Path)
		if f.Path == "" {
			dir, stem, isLock = "", f.URI, strings.HasSuffix(f.URI, ".lock.json")
		}
		u := a.unitFor(dir, stem)
		u.owned = true
		if isLock {
			a.setLock(u, f)
		} else {
			a.setRB(u, f)
		}
		a.res.Files = append(a.res.Files, f.URI)
	}
	owned := append([]*unit(nil), a.order...)
	for _, u := range owned {
		a.fillBeside(u)
	}
	for _, u := range owned {
		a.nameUnit(u)
	}
	// policy nodes first, so includes can point at them
	for _, u := range owned {
		a.policyNode(u)
	}
	for _, u := range owned {
		a.resolveIncludes(u, 0)
	}
	a.loops()
	for _, u := range owned {
		if a.req.Canceled() {
			break
		}
		if u.rb != nil {
			a.policy(u)
		}
		if u.lock != nil || u.lockErr != nil {
			a.lockFile(u)
		}
	}
	return a.res
}

func (a *analyzer) nameUnit(u *unit) {
	switch {
	case u.rb != nil && u.rb.Name != nil:
		u.name = u.rb.Name.Text
	case u.rb != nil && u.rb.Metadata != nil:
		if n := a.metadataName(u.dir); n != "" {
			u.name = n
		}
	case u.lock != nil && u.lock.Name != "":
		u.name = u.lock.Name
	}
	if u.name == "" {
		u.name = u.stem
	}
}

// metadataName reads `name "x"` from the metadata.rb of a cookbook folder.
func (a *analyzer) metadataName(dir string) string {
	if n, ok := a.metaNames[dir]; ok {
		return n
	}
	n := a.readMetadataName(dir)
	a.metaNames[dir] = n
	return n
}

func (a *analyzer) readMetadataName(dir string) string {
	f := a.lookup(filepath.Join(dir, "metadata.rb"))
	if f == nil {
		return ""
	}
	syn := a.sys.parser.Parse(f.Text)
	for _, st := range syn.Stmts {
		if st.Call != nil && st.Call.Name == "name" && len(st.Call.Args) > 0 && st.Call.Args[0].Kind == pchef.VString {
			return st.Call.Args[0].Text
		}
	}
	return ""
}

// A policy's span (Full) is what it is written in: from its Policyfile's
// first statement to its last, or its lock's JSON value. Not the whole
// file: a comment or blank line typed before the first statement or after
// the last changes no policy, and a span that reached the file's ends
// would not move with such an edit (analysis.ShiftResult) as a fresh
// analysis would draw it.
func stmtsSpan(f *source.File, syn *pchef.File) source.Span {
	sp := source.Span{URI: f.URI}
	if syn == nil || len(syn.Stmts) == 0 {
		return sp
	}
	sp.Start, sp.End = syn.Stmts[0].Start, syn.Stmts[len(syn.Stmts)-1].End
	return sp
}

// lockSpan is a lock's span: its JSON value (see stmtsSpan).
func lockSpan(f *source.File, lock *pchef.Lock) source.Span {
	if lock == nil || lock.Root == nil {
		return source.Span{URI: f.URI}
	}
	return source.Span{URI: f.URI, Start: lock.Root.Start, End: lock.Root.End}
}

func (a *analyzer) policyNode(u *unit) *analysis.Node {
	if u.node != nil {
		return u.node
	}
	if u.rbFile == nil && u.lockFile == nil {
		return nil
	}
	n := &analysis.Node{Kind: "policy", Ref: u.name, Container: true}
	if u.rbFile != nil {
		f := u.rbFile
		n.Full = stmtsSpan(f, u.rbSyn)
		n.Decl = source.Span{URI: f.URI}
		if u.rb.Name != nil {
			n.Decl = source.Span{URI: f.URI, Start: u.rb.Name.Start, End: u.rb.Name.End}
		}
	} else {
		f := u.lockFile
		n.Full = lockSpan(f, u.lock)
		n.Decl = source.Span{URI: f.URI}
		if u.lock != nil {
			if v := u.lock.Root.Get("name"); v != nil {
				n.Decl = source.Span{URI: f.URI, Start: v.Start, End: v.End}
			}
		}
	}
	u.node = a.res.Graph.Add(n)
	if u.rbFile != nil && u.lockFile != nil && u.lock != nil {
		ln := &analysis.Node{Kind: "policy lock", Ref: u.name + " (lock)", Container: true,
			Full: lockSpan(u.lockFile, u.lock), Decl: source.Span{URI: u.lockFile.URI}}
		if v := u.lock.Root.Get("name"); v != nil {
			ln.Decl = source.Span{URI: u.lockFile.URI, Start: v.Start, End: v.End}
		}
		u.lockNode = a.res.Graph.Add(ln)
	}
	return u.node
}

// ---- diagnostics helpers ----

func (a *analyzer) diag(u *unit, at source.Span, sev analysis.Severity, code, msg string, rel ...analysis.Related) {
	if at.URI == "" {
		return
	}
	a.res.Diags = append(a.res.Diags, analysis.Diagnostic{At: at, Severity: sev, Code: code, Message: msg, Related: rel})
	if sev == analysis.Error && u != nil {
		u.hasError = true
	}
}

func (a *analyzer) rel(path string) string {
	for _, r := range a.ws.Roots() {
		if rp, err := filepath.Rel(r, path); err == nil && !strings.HasPrefix(rp, "..") {
			return filepath.ToSlash(rp)
		}
	}
	return path
}

func spanOf(f *source.File, start, end int) source.Span {
	if f == nil {
		return source.Span{}
	}
	return source.Span{URI: f.URI, Start: start, End: end}
}

func fileSpan(f *source.File) source.Span {
	if f == nil {
		return source.Span{}
	}
	return source.Span{URI: f.URI}
}

// ---- include resolution ----

const maxIncludeDepth = 64

func strOpt(inc *pchef.Include, k string) (string, *pchef.Value) {
	v := inc.Opts[k]
	if v == nil {
		return "", nil
	}
	return v.Text, v
}

func (a *analyzer) resolveIncludes(u *unit, depth int) {
	if u.resolved || depth > maxIncludeDepth {
		return
	}
	u.resolved = true
	a.policyNode(u)
	if u.rb != nil {
		for _, inc := range u.rb.Includes {
			a.resolveRBInclude(u, inc, depth)
		}
		return
	}
	if u.lock != nil {
		for i := range u.lock.Included {
			a.resolveLockInclude(u, &u.lock.Included[i], depth)
		}
	}
}

func (a *analyzer) resolveRBInclude(u *unit, inc *pchef.Include, depth int) {
	f := u.rbFile
	in := &incl{from: u, name: inc.Name.Text, spec: inc,
		at:     spanOf(f, inc.Call.Start, inc.Call.End),
		nameAt: spanOf(f, inc.Name.Start, inc.Name.End)}
	in.pathAt = in.nameAt
	u.includes = append(u.includes, in)
	path, pathV := strOpt(inc, "path")
	if pathV != nil {
		in.pathAt = spanOf(f, pathV.Start, pathV.End)
	}
	git, _ := strOpt(inc, "git")
	server, _ := strOpt(inc, "server")
	remote, _ := strOpt(inc, "remote")
	revision, _ := strOpt(inc, "policy_revision_id")
	group, _ := strOpt(inc, "policy_group")
	policyName, _ := strOpt(inc, "policy_name")
	if policyName == "" {
		policyName = in.name
	}
	owned := u.owned
	report := func(sev analysis.Severity, code, msg string, at source.Span, rel ...analysis.Related) {
		if owned {
			a.diag(u, at, sev, code, msg, rel...)
		}
	}
	switch {
	case pathV != nil && inc.Opts["git"] == nil:
		in.kind = "path"
	case inc.Opts["remote"] != nil:
		in.kind = "remote"
	case inc.Opts["server"] != nil:
		in.kind = "server"
		if revision == "" && group == "" {
			report(analysis.Error, "include-source", fmt.Sprintf("include_policy for %s must specify policy_revision_id or policy_group", in.name), in.at)
			return
		}
	case inc.Opts["git"] != nil:
		in.kind = "git"
	default:
		report(analysis.Error, "include-source", "include_policy must use one of the following sources: path, remote, server, git", in.at)
		return
	}
	if in.kind == "path" {
		if u.dir == "" {
			report(analysis.Info, "not-checkable", fmt.Sprintf("include_policy '%s': an unsaved Policyfile has no folder to resolve %s from; not checked", in.name, pathV.Text), in.pathAt)
			return
		}
		if pathV.Kind != pchef.VString || pathV.Pattern {
			report(analysis.Info, "not-checkable", fmt.Sprintf("include_policy '%s': the path is computed by Ruby (%s); not checked", in.name, pathV.Text), in.pathAt)
			return
		}
		abs := path
		if !filepath.IsAbs(abs) {
			abs = filepath.Join(u.dir, path)
		}
		target := abs
		if a.ws.IsDir(abs) {
			target = filepath.Join(abs, in.name+".lock.json")
			if a.lookup(target) == nil {
				alt := filepath.Join(abs, "Policyfile.lock.json")
				msg := fmt.Sprintf("Expected to find file %s.lock.json inside %s. If the file name is different than this, provide the file name as part of the path.", in.name, path)
				rb := filepath.Join(abs, in.name+".rb")
				if a.lookup(alt) != nil {
					report(analysis.Error, "missing-include", msg+" (there is a Policyfile.lock.json there: name it in the path; it is used here so the rest can be checked)", in.pathAt,
						analysis.Related{At: source.Span{URI: source.PathToURI(alt)}, Message: "Policyfile.lock.json in that folder"})
					target = alt
				} else if a.lookup(rb) != nil {
					// the lock `chef install NAME.rb` builds there, not
					// committed (tdg5/chef-repo ignores policyfiles/*.lock.json),
					// as for a path naming the lock itself
					name := rb
					if r, err := filepath.Rel(u.dir, rb); err == nil {
						name = r
					}
					report(analysis.Hint, "lock-not-built", fmt.Sprintf("%s.lock.json is not in %s (`chef install %s` builds it): the included policy is read from %s", in.name, path, name, name), in.pathAt,
						analysis.Related{At: source.Span{URI: source.PathToURI(rb)}, Message: "the Policyfile of the included policy"})
				} else {
					report(analysis.Error, "missing-include", msg, in.pathAt)
					return
				}
			}
		} else if a.lookup(target) == nil {
			// The lock is built by `chef install`, and often not
			// committed: with its Policyfile beside it, follow that as
			// chef install would (chef-cft/effortless-tk-infra).
			dir, stem, _ := stemOf(target)
			rb := filepath.Join(dir, stem+".rb")
			if strings.HasSuffix(target, ".lock.json") && a.lookup(rb) != nil {
				name := rb
				if r, err := filepath.Rel(u.dir, rb); err == nil {
					name = r
				}
				report(analysis.Hint, "lock-not-built", fmt.Sprintf("%s is not in the workspace (`chef install %s` builds it): the included policy is read from %s", path, name, name), in.pathAt,
					analysis.Related{At: source.Span{URI: source.PathToURI(rb)}, Message: "the Policyfile of the included policy"})
			} else {
				report(analysis.Error, "missing-include", fmt.Sprintf("The provided path %s does not exist.", path), in.pathAt)
				return
			}
		}
		in.target = a.lockUnit(target)
		in.how = "path " + a.rel(target)
	} else {
		// git / server / remote: through the revision recorded in this
		// policy's lock, or an explicit policy_revision_id.
		want := revision
		via := "policy_revision_id"
		if want == "" && u.lock != nil {
			for _, e := range u.lock.Included {
				if e.Name == in.name {
					want = e.RevisionID
					via = "included_policy_locks of " + a.rel(u.lockFile.Path)
				}
			}
		}
		if want != "" {
			in.target = a.findRevision(policyName, want)
			if in.target == nil && policyName != in.name {
				in.target = a.findRevision(in.name, want)
			}
			if in.target == nil && in.kind == "git" && pathV != nil && pathV.Kind == pchef.VString && u.dir != "" {
				// the repository may be this one: try the lock's path from
				// each folder above the Policyfile (accepted only when name
				// and revision match)
				dir := u.dir
				for i := 0; i < 32 && in.target == nil; i++ {
					if p := filepath.Join(dir, path); a.lookup(p) != nil {
						a.lockUnit(p)
						in.target = a.findRevision(policyName, want)
					}
					parent := filepath.Dir(dir)
					if parent == dir {
						break
					}
					dir = parent
				}
			}
		}
		if in.target == nil {
			where := map[string]string{"git": git, "server": server, "remote": remote}[in.kind]
			report(analysis.Info, "not-checkable", fmt.Sprintf("include_policy '%s' comes from %s %s: not checkable offline (no lock of that revision in the workspace)", in.name, in.kind, where), in.at)
			return
		}
		in.how = fmt.Sprintf("%s, revision %s (from %s) = %s", in.kind, short(want), via, a.rel(in.target.lockFile.Path))
	}
	t := in.target
	if t.lockErr != nil {
		rel := []analysis.Related{}
		msg := t.lockErr.Error()
		var se *pchef.SyntaxError
		if errors.As(t.lockErr, &se) {
			rel = append(rel, analysis.Related{At: spanOf(t.lockFile, se.Offset, se.Offset), Message: "the lock file breaks here"})
			msg = fmt.Sprintf("%s (%s)", se.Msg, a.where(spanOf(t.lockFile, se.Offset, se.Offset)))
		}
		report(analysis.Error, "bad-include", fmt.Sprintf("included policy lock %s could not be read: %s", path, msg), in.pathAt, rel...)
		in.target = nil
		return
	}
	if revision != "" && in.kind == "path" && t.lock != nil {
		id := t.lock.RevisionID
		if id != revision && !(len(id) >= 10 && id[:10] == revision) {
			report(analysis.Error, "revision-mismatch", fmt.Sprintf("Expected policy_revision_id '%s' does not match included_policy '%s'.", revision, id), in.at,
				analysis.Related{At: a.lockKeySpan(t, "revision_id"), Message: "revision_id of the included lock"})
		}
	}
	a.resolveIncludes(t, depth+1)
}

func short(rev string) string {
	if len(rev) > 10 {
		return rev[:10]
	}
	return rev
}

func (a *analyzer) lockKeySpan(t *unit, key string) source.Span {
	if t.lock == nil {
		return fileSpan(t.lockFile)
	}
	if k := t.lock.Root.Key(key); k != nil {
		return spanOf(t.lockFile, k.Start, k.End)
	}
	return fileSpan(t.lockFile)
}

// lockUnit returns the unit of a lock file path, loading it and the
// Policyfile beside it.
func (a *analyzer) lockUnit(path string) *unit {
	dir, stem, _ := stemOf(path)
	u := a.unitFor(dir, stem)
	if u.lockFile == nil {
		a.setLock(u, a.lookup(path))
	}
	if u.rbFile == nil {
		if f := a.lookup(filepath.Join(dir, stem+".rb")); f != nil {
			a.setRB(u, f)
		}
	}
	if u.name == "" {
		a.nameUnit(u)
	}
	a.policyNode(u)
	return u
}

func (a *analyzer) findRevision(name, rev string) *unit {
	for _, u := range a.byName[name] {
		id := u.lock.RevisionID
		if id == rev || (len(rev) >= 10 && strings.HasPrefix(id, rev)) {
			return u
		}
	}
	return nil
}

func (a *analyzer) resolveLockInclude(u *unit, e *pchef.IncludedLock, depth int) {
	f := u.lockFile
	in := &incl{from: u, name: e.Name, entry: e, at: spanOf(f, e.Start, e.End), nameAt: spanOf(f, e.Start, e.End)}
	in.pathAt = in.at
	u.includes = append(u.includes, in)
	so := e.SourceOptions
	switch {
	case so["path"] != "" && so["git"] == "":
		in.kind = "path"
		p := so["path"]
		if !filepath.IsAbs(p) {
			p = filepath.Join(u.dir, p)
		}
		if a.ws.IsDir(p) {
			p = filepath.Join(p, e.Name+".lock.json")
		}
		if a.lookup(p) == nil {
			return
		}
		in.target = a.lockUnit(p)
		in.how = "path " + a.rel(p)
	default:
		in.kind = "server"
		if so["git"] != "" {
			in.kind = "git"
		}
		name := so["policy_name"]
		if name == "" {
			name = e.Name
		}
		in.target = a.findRevision(name, e.RevisionID)
		if in.target == nil {
			return
		}
		in.how = fmt.Sprintf("%s, revision %s = %s", in.kind, short(e.RevisionID), a.rel(in.target.lockFile.Path))
	}
	if in.target.lockErr != nil {
		in.target = nil
		return
	}
	a.resolveIncludes(in.target, depth+1)
}

// ---- include loops ----

func (a *analyzer) loops() {
	var nodes []*analysis.Node
	var edges []*analysis.Edge
	byEdge := map[*analysis.Edge]*incl{}
	for _, u := range a.order {
		if u.node != nil {
			nodes = append(nodes, u.node)
		}
	}
	for _, u := range a.order {
		for _, in := range u.includes {
			if in.target == nil || in.target.node == nil || u.node == nil {
				continue
			}
			e := &analysis.Edge{From: u.node, To: in.target.node, Kind: analysis.Order, Reason: "include_policy", At: in.at}
			edges = append(edges, e)
			byEdge[e] = in
			a.res.Graph.Connect(&analysis.Edge{From: u.node, To: in.target.node, Kind: analysis.Call, Reason: "include_policy", At: in.at})
		}
	}
	for _, cyc := range analysis.Cycles(nodes, edges, analysis.ByIndex) {
		names := []string{}
		for _, n := range analysis.CycleNodes(cyc) {
			names = append(names, n.Ref)
		}
		chain := strings.Join(names, " includes ")
		msg := fmt.Sprintf("include loop: %s (chef-cli does not detect include loops: it compiles each policy from the other's lock as last written)", chain)
		// One error per loop, on the include that closes it among the
		// Policyfiles the user writes (a lock's include is not theirs).
		var owned []*analysis.Edge
		for _, e := range cyc {
			byEdge[e].from.hasError = true
			if byEdge[e].from.owned {
				owned = append(owned, e)
			}
		}
		var written []*analysis.Edge
		for _, e := range owned {
			if strings.HasSuffix(e.At.URI, ".rb") {
				written = append(written, e) // a Policyfile, not a lock chef writes
			}
		}
		if len(written) > 0 {
			owned = written
		}
		closing := analysis.ClosingEdge(owned)
		if closing == nil {
			continue
		}
		var rel []analysis.Related
		for _, o := range cyc {
			if o != closing {
				oi := byEdge[o]
				rel = append(rel, analysis.Related{At: o.At, Message: fmt.Sprintf("%s includes %s here", oi.from.name, oi.name)})
			}
		}
		in := byEdge[closing]
		a.diag(in.from, in.at, analysis.Error, "include-loop", msg, rel...)
		if n := len(a.res.Diags); n > 0 && a.res.Diags[n-1].At == in.at {
			a.res.Diags[n-1].Members = analysis.CycleNodes(cyc)[:len(cyc)]
		}
	}
}
