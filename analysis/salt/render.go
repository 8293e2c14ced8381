package salt

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/ordering-lsp/ordering-lsp/internal/lazyre"
	sp "github.com/ordering-lsp/ordering-lsp/parser/salt"
	"github.com/ordering-lsp/ordering-lsp/source"
)

// BaseHighState.render_state and merge_included_states of salt/state.py:
// a file's IDs, its includes rendered once per run, merged into one high
// data (see high.go for the steps as a whole).

// renderState is BaseHighState.render_state: the file's IDs, then each
// include (rendered once per run), merged into the file's state; the
// file's own states get their auto order after its includes.
func (c *compiler) renderState(sls string, from *include, depth int, cond bool) *high {
	if depth > 64 {
		return nil
	}
	// the saltenv of this render: an include names its own, or renders
	// in the saltenv of the file including it (salt/state.py
	// render_state: env_key = saltenv)
	env := c.t.env
	if env == "" {
		env = "base"
	}
	if from != nil && from.env != "" && !strings.Contains(from.env, sp.Unknown) {
		env = from.env
	}
	c.mods[modKey(env, sls)] = true
	// another saltenv the configuration names: its own roots
	t := c.t
	if et := c.t.envTrees[env]; et != nil && env != c.t.env {
		t = et
	}
	f := t.bySLS(sls)
	if f == nil {
		// whatever the missing file declares is unknown
		c.generator = true
		if from != nil && !strings.Contains(sls, sp.Unknown) && !c.t.elsewhere(sls) {
			c.fail(c.missingInclude(t, sls, env, from, cond))
		}
		return nil
	}
	c.files = append(c.files, f)
	if _, ok := c.fileEnv[f]; !ok {
		c.fileEnv[f] = env
	}
	if f.generator {
		c.generator = true
	}
	st := newHigh()
	if !c.dry {
		for _, d := range f.ids {
			if _, dup := st.m[d.id]; dup {
				// both branches of a template condition: keep the first,
				// and what only the other declares stays a maybe
				c.shadow(d)
				continue
			}
			b := newBody(d)
			// __sls__ is the name the file was rendered by, as written:
			// an include `- iptables/ipsets` makes 'iptables/ipsets',
			// which `sls: iptables/ipsets` then matches and
			// `sls: iptables.ipsets` does not (salt-order;
			// alekrain/salt_states iptables/init.sls)
			b.sls, b.env = sls, env
			b.cond = cond || f.p.InAltNode(d.key)
			st.put(b)
		}
		st.extends = append(st.extends, f.extends...)
		st.excludes = append(st.excludes, f.excludes...)
	}
	for _, inc := range f.includes {
		name := inc.name
		if strings.Contains(name, sp.Unknown) {
			c.generator = true
			continue
		}
		if strings.HasPrefix(name, ".") {
			var ok bool
			if name, ok = relInclude(sls, f.init, name); !ok {
				c.fail(&problem{at: inc.node2spanIn(f), sev: 1, code: "missing-include", refuses: true,
					msg: fmt.Sprintf("Attempted relative include of '%s' within SLS '%s' goes beyond top level package ", inc.name, modKey(env, sls))})
				continue
			}
		}
		targets := []string{name}
		if hasGlob(name) {
			targets = nil
			for _, a := range c.t.avail() {
				if fnmatch(a, name) {
					targets = append(targets, a)
				}
			}
			if len(targets) == 0 {
				targets = []string{name}
			}
		}
		for _, tgt := range targets {
			tenv := inc.env
			if tenv == "" || strings.Contains(tenv, sp.Unknown) {
				tenv = env
			}
			if c.mods[modKey(tenv, tgt)] {
				continue
			}
			ninc := *inc
			ninc.f = f
			if ninc.env == "" {
				ninc.env = env
			}
			nst := c.renderState(tgt, &ninc, depth+1, cond || f.p.InAltNode(inc.node))
			if nst == nil {
				continue
			}
			for _, id := range nst.ids {
				b := nst.m[id]
				b.includedFrom = append(b.includedFrom, sls)
			}
			c.merge(st, nst)
		}
	}
	if c.auto {
		for _, id := range st.ids {
			b := st.m[id]
			for _, s := range b.states {
				if s.bad || s.null {
					continue
				}
				found := false
				for _, a := range s.args {
					if a.key == "order" {
						found = true
					}
				}
				if !found && s.autoOrder == 0 {
					s.autoOrder = c.iorder
					c.iorder++
				}
			}
		}
	}
	return st
}

// missingInclude is the problem of an include (or a top file's entry)
// no file root of the tree holds. Its severity says who can know: a
// file of a package the workspace has is this repository's problem (an
// error; a warning when only some renders include it); another package
// may come from outside the workspace, and the repository's master
// configuration says from where: gitfs remotes or file roots outside
// the workspace that may serve it (information naming them, and how to
// make them known), or nothing else at all (every root is in the
// workspace, no gitfs, no other backend: an error). Without a
// configuration it is a warning: another formula's file root?
func (c *compiler) missingInclude(t *tree, sls, env string, from *include, cond bool) *problem {
	p := &problem{at: from.node2span(), sev: 1, code: "missing-include", refuses: true,
		msg: fmt.Sprintf("Specified SLS %s in saltenv %s is not available on the salt master or through a configured fileserver", sls, env)}
	if from.f != nil && from.f.top {
		// an entry of the top file: render_highstate rewords the error
		// of the SLS it names (salt/state.py; salt-order on
		// abhi-kr07/salt-states' missing cron: "No matching sls found
		// for 'cron' in env 'base'")
		p.msg = fmt.Sprintf("No matching sls found for '%s' in env '%s'", sls, env)
	}
	if from.f != nil && (cond || from.f.p.InAltNode(from.node)) {
		p.sev = 2
		p.msg += " (" + condIncludeHint + ")"
	}
	top := strings.SplitN(sls, ".", 2)[0]
	cfg := t.cfg
	missingTop := !t.hasPkg(top)
	named, others := cfg.remotesFor(sls, !missingTop)
	knownEnv := false
	if cfg != nil {
		for _, e := range cfg.envs {
			knownEnv = knownEnv || e.name == env
		}
	}
	nothing := fmt.Sprintf("nothing named '%s' in %s", top, t.displayAll())
	if missingTop && t.hasFolder(top) {
		nothing = fmt.Sprintf("%s/ in %s holds no SLS", top, t.displayAll())
	}
	switch {
	case env != "base" && from.f != nil && from.f.top && !knownEnv:
		// a top file's environment other than base: its file
		// roots are its own (a gitfs branch, another directory:
		// irtnog/salt-states keeps only top.sls on master)
		p.sev = 3
		p.msg += fmt.Sprintf(" (saltenv %s has file roots of its own, not known here: name them under file_roots: %s: in a master configuration of the repository to have them read)", env, env)
	case len(named) > 0:
		// a gitfs remote named after the package (or mounted where
		// the file would be)
		p.sev = 3
		p.msg += fmt.Sprintf(" (%s; %s)", nothing, remotesNote(named))
	case missingTop && cfg.servesOthersIn(env):
		// another formula, and the repository's master serves
		// file roots outside the workspace: it may come from one
		// of them (a missing file of a package this root has is
		// still this root's problem)
		p.sev = 3
		p.msg += fmt.Sprintf(" (%s; %s)", nothing, cfg.configNote(top))
	case !missingTop && len(cfg.splitRoots(env, top)) > 0:
		// a file of a package the workspace has, and the saltenv
		// also has file roots whose files are not here: Salt takes
		// each file from the first root holding it, the package may be
		// split between them
		p.sev = 3
		p.msg += fmt.Sprintf(" (no %s in %s; %s)", slsFiles(sls), t.displayAll(), cfg.rootsNote(cfg.splitRoots(env, top)))
	case len(others) > 0:
		p.sev = 3
		p.msg += fmt.Sprintf(" (%s; %s)", nothing, remotesNote(others))
	case missingTop && cfg.closed(env):
		// the configuration says all the master serves, and that
		// is in the workspace
		p.msg += fmt.Sprintf(" (%s; %s)", nothing, cfg.closedNote(env))
	case missingTop && cfg.gitOn():
		// git is on, its remotes are configured where the
		// repository does not say
		p.sev = 3
		p.msg += fmt.Sprintf(" (%s; the repository's master configuration (%s) serves gitfs remotes it does not name: it may come from one of them)", nothing, cfg.backendWhere)
	case missingTop && cfg != nil && len(cfg.others) > 0:
		p.sev = 3
		p.msg += fmt.Sprintf(" (%s; the repository's master configuration (%s) also serves files through the %s fileserver backend, which is not read here: it may come from there)", nothing, cfg.backendWhere, strings.Join(cfg.others, ", "))
	case missingTop && t.linkedSubmodule(top) != "":
		// the root links the package into a formula checked out as a
		// git submodule, and the submodule is not
		p.sev = 3
		sm := t.linkedSubmodule(top)
		p.msg += fmt.Sprintf(" (%s: %s links into %s, a git submodule that is not checked out: `git submodule update --init %s` puts it there)", nothing, top, sm, sm)
	case missingTop && t.mount != "" && top != strings.SplitN(t.mount, "/", 2)[0]:
		// the repository is a folder of a file root it does not hold
		// (inferMount: its own references say `P.x`), a package
		// outside P is that root's, or a formula's beside it
		// (jcu-eresearch/shared-salt-states, cloned as salt/roots/salt/jcu:
		// `include: - epel`)
		p.sev = 3
		p.msg += fmt.Sprintf(" (%s, which is served as %s/ of a file root the workspace does not hold: %s would be another SLS or formula of that root. Check the repository out as %s/ under that root and give it as --file-root, or name the roots in a master configuration, to have it checked)",
			nothing, t.mount, top, t.mount)
	case missingTop:
		// another formula, most likely in another file root, and
		// nothing in the workspace says which roots the master serves:
		// that is outside the workspace, information saying how to
		// make it known (it was a warning that named no minion: 134
		// on the corpus, wendall911's and Whyrl35's formulas)
		p.sev = 3
		p.otherRoot = true
		p.msg += fmt.Sprintf(" (%s: %s %s)", nothing, anotherRootHint, rootsUnknownNote)
	case cfg == nil && !t.ownsPkg(top) && from.f != nil && addOnOf(from.f.sls, top) && addOnOf(sls, top) &&
		slices.ContainsFunc(from.f.includes, func(i *include) bool { return i.name == top }):
		// the including file is in the package's folder, which has no
		// init of its own, and includes the package itself: an add-on
		// to a formula that another file root serves, split between
		// the roots (irtnog/salt-states'
		// apache/mod_ssl.sls beside apache-formula, microdevops-com's
		// vim/vim.sls including vim.salt of vim-formula)
		p.sev = 3
		own := fmt.Sprintf(", and %s/ has no %s of its own", top, slsFiles(top))
		if sls == top {
			own = ""
		}
		p.msg += fmt.Sprintf(" (no %s in %s%s: this file adds to a package another formula's file root may hold. %s)",
			slsFiles(sls), t.displayAll(), own, rootsUnknownNote)
	case cfg == nil && p.sev == 1 && !t.ownsPkg(top):
		p.addOn = fmt.Sprintf("no %s in %s, whose %s/ has no %s of its own, and this run includes packages no root here holds: %s",
			slsFiles(sls), t.displayAll(), top, slsFiles(top), anotherRootHint) // (settleAddOns)
	}
	// Salt refuses the run when the SLS is nowhere; when it may come from
	// outside the workspace (information), the run goes on with states we
	// cannot see, so the order of the others is still what runs.
	p.refuses = p.sev != 3
	return p
}

// linkedSubmodule is the git submodule a root's link named pkg (or
// pkg.sls) points into when the link leads nowhere: the formula is a
// submodule not checked out (sjlu/salt-states links apache to
// .apache-formula/apache, as saltstack-formulas suggest for a local
// tree). "" otherwise.
func (t *tree) linkedSubmodule(pkg string) string {
	roots := t.roots
	if len(roots) == 0 {
		roots = []string{t.root}
	}
	for _, r := range roots {
		for _, name := range []string{pkg, pkg + ".sls"} {
			p := filepath.Join(r, name)
			st, err := os.Lstat(p)
			if err != nil || st.Mode()&os.ModeSymlink == 0 {
				continue
			}
			if _, err := os.Stat(p); err == nil {
				continue // it leads somewhere
			}
			dest, err := os.Readlink(p)
			if err != nil {
				continue
			}
			if !filepath.IsAbs(dest) {
				dest = filepath.Join(r, dest)
			}
			if sm := submoduleOf(t.ws, t.scopes, filepath.Clean(dest)); sm != "" {
				return sm
			}
		}
	}
	return ""
}

// settleAddOns decides the missing includes of packages the workspace
// holds only add-ons of (no NAME.sls, no NAME/init.sls), once the run's
// every include is known. When the run also includes packages no root
// here holds at all, the master evidently serves other file roots, and
// Salt takes each file from the first root holding it: the package
// itself may be another formula's (ugns/salt-states applies postfix.config
// and fail2ban.config of postfix-formula and fail2ban-formula beside its
// own postfix/antispam.sls and fail2ban/blacklist.sls). A warning then;
// without such evidence (a repository's own namespace folders, as
// wuxxin/salt-shared's desktop/ and kernel/), still an error.
func (c *compiler) settleAddOns() {
	evidence := false
	for _, p := range c.problems {
		evidence = evidence || p.otherRoot
	}
	if !evidence {
		return
	}
	for _, p := range c.problems {
		if p.addOn != "" && p.sev == 1 {
			p.sev = 2
			p.msg += " (" + p.addOn + ")"
		}
	}
}

// addOnOf: sls is package top or a file right in its folder (`apache`,
// `apache.mod_ssl`, not `apache.mods.ssl`).
func addOnOf(sls, top string) bool {
	rest, ok := strings.CutPrefix(sls, top)
	return ok && (rest == "" || rest[0] == '.' && !strings.Contains(rest[1:], "."))
}

// remotesNote names the gitfs remotes that may serve an SLS and how to
// make one known.
func remotesNote(rs []gitRemote) string {
	var names []string
	for _, r := range rs {
		n := r.url + " (" + r.where + ")"
		if r.mountpoint != "" {
			n = r.url + " mounted at salt://" + r.mountpoint + " (" + r.where + ")"
		}
		names = append(names, n)
	}
	which := "the gitfs remote " + names[0] + " may serve it"
	if len(names) > 1 {
		which = "one of the gitfs remotes " + strings.Join(names, ", ") + " may serve it"
	}
	return which + ", which is not in the workspace: clone it into the workspace (a folder named " + rs[0].name + ") to have it read as a file root"
}

var relRe = lazyre.New(`^(\.+)(.*)$`)

// relInclude resolves a relative include (`.x`, `..x`) written in SLS sls
// (an init.sls when init): false when it climbs above the top package.
func relInclude(sls string, init bool, name string) (string, bool) {
	m := relRe.FindStringSubmatch(name)
	levels, rest := len(m[1]), m[2]
	comps := strings.Split(sls, ".")
	if init {
		comps = append(comps, "init")
	}
	if levels > len(comps) {
		return "", false
	}
	name = strings.Join(append(append([]string{}, comps[:len(comps)-levels]...), rest), ".")
	return strings.TrimSuffix(name, "."), true
}

// slsFiles names the files an SLS may be: NAME.sls, NAME/init.sls.
func slsFiles(sls string) string {
	p := strings.ReplaceAll(sls, ".", "/")
	return p + ".sls or " + p + "/init.sls"
}

// anotherRootHint ends the message of an include whose package the file
// root does not have.
const anotherRootHint = "another formula's file root?"

// rootsUnknownNote says how to make the file roots known.
const rootsUnknownNote = "Nothing in the workspace says which file roots the master serves besides these: name them in a master configuration (file_roots, gitfs_remotes), or give them with --file-root (the editor: ordering.salt.fileRoot), to have it checked"

// condIncludeHint ends the message of an include only some renders make.
const condIncludeHint = "this include is in a branch of a condition decided on the machine"

// shadow records the names a hidden alternative declaration would give
// (its ID, its name: and names: values): requisites on them are maybes.
func (c *compiler) shadow(d *idDecl) {
	c.hidden = append(c.hidden, d)
	if c.shadowNames == nil {
		c.shadowNames = map[string]bool{}
	}
	c.shadowNames[d.id] = true
	for _, sd := range d.decls {
		for _, a := range sd.args {
			switch {
			case a.key == "name" && a.val != nil && a.val.Kind == sp.Scalar:
				c.shadowNames[a.val.Value] = true
			case a.key == "names" && a.val != nil && a.val.Kind == sp.Seq:
				for _, it := range a.val.Items {
					if it.Kind == sp.Scalar {
						c.shadowNames[it.Value] = true
					} else if it.Kind == sp.Map && len(it.Keys) > 0 {
						c.shadowNames[it.Keys[0].Value] = true
					}
				}
			}
		}
	}
}

func (inc *include) node2span() source.Span {
	if inc.f == nil {
		return source.Span{}
	}
	return source.Span{URI: inc.f.file.URI, Start: inc.node.Start, End: inc.node.End}
}

func (inc *include) node2spanIn(f *sfile) source.Span {
	return source.Span{URI: f.file.URI, Start: inc.node.Start, End: inc.node.End}
}

// merge is merge_included_states: extends and excludes accumulate, IDs
// must be globally unique.
func (c *compiler) merge(into, st *high) {
	into.extends = append(into.extends, st.extends...)
	into.excludes = append(into.excludes, st.excludes...)
	for _, id := range st.ids {
		nb := st.m[id]
		if ob, ok := into.m[id]; ok && ob != nb {
			conditional := strings.Contains(id, sp.Unknown) || ob.cond || nb.cond
			if conditional && ob.decl != nb.decl && ob.cond != nb.cond && !strings.Contains(id, sp.Unknown) {
				// one declaration is in every render, the other only in
				// those that take its branch: those renders have both
				// and Salt refuses them; the others have the first. The
				// model keeps the one every render has (an extend of it
				// must find its states).
				always, maybe := ob, nb
				if ob.cond {
					always, maybe = nb, ob
				}
				msg := fmt.Sprintf("Detected conflicting IDs, SLS IDs need to be globally unique.\n    The conflicting ID is '%s' and is found in SLS '%s' and SLS '%s'\n%s", id, modKey(ob.env, ob.sls), modKey(nb.env, nb.sls), declBranchNote(maybe.decl))
				c.fail(&problem{at: maybe.f.span(maybe.decl.key), sev: 2, code: "conflicting-id", msg: msg,
					related: []relatedSpan{{always.f.span(always.decl.key), fmt.Sprintf("'%s' is also declared in SLS '%s', in every render", id, modKey(always.env, always.sls))}}})
				c.shadowed[maybe.sls] = true
				c.shadow(maybe.decl)
				if always == ob {
					continue
				}
				into.put(nb)
				continue
			}
			if conditional && ob.decl != nb.decl {
				// alternatives (no render has both): the first stays in
				// this model, as the first branch of an if does in one
				// file (the including file's own state, say, over one a
				// conditional include brings); requisites on what only
				// the hidden one names, and `sls:` requisites on its
				// file, stay open
				c.shadowed[nb.sls] = true
				c.shadow(nb.decl)
				continue
			}
			if ob.decl != nb.decl && !conditional {
				msg := fmt.Sprintf("Detected conflicting IDs, SLS IDs need to be globally unique.\n    The conflicting ID is '%s' and is found in SLS '%s' and SLS '%s'", id, modKey(ob.env, ob.sls), modKey(nb.env, nb.sls))
				// reported on both declarations, each pointing at the other
				c.fail(&problem{at: nb.f.span(nb.decl.key), sev: 1, code: "conflicting-id", refuses: true, msg: msg,
					related: []relatedSpan{{ob.f.span(ob.decl.key), fmt.Sprintf("'%s' is also declared in SLS '%s'", id, modKey(ob.env, ob.sls))}}})
				c.fail(&problem{at: ob.f.span(ob.decl.key), sev: 1, code: "conflicting-id", refuses: true, msg: msg,
					related: []relatedSpan{{nb.f.span(nb.decl.key), fmt.Sprintf("'%s' is also declared in SLS '%s'", id, modKey(nb.env, nb.sls))}}})
			}
		}
		into.put(nb)
	}
}

func (f *sfile) span(n *sp.Node) source.Span {
	if n == nil {
		return source.Span{URI: f.file.URI}
	}
	return source.Span{URI: f.file.URI, Start: n.Start, End: n.End}
}

func newBody(d *idDecl) *body {
	b := &body{id: d.id, sls: d.f.sls, f: d.f, decl: d}
	for _, sd := range d.decls {
		b.states = append(b.states, newHState(sd))
	}
	return b
}

func newHState(sd *stDecl) *hstate {
	h := &hstate{module: sd.module, decl: sd, funAt: sd.funNode, null: sd.null, bad: sd.notList, args: sd.args}
	h.funs = append(h.funs, sd.funs...)
	return h
}

func cloneArg(a *arg) *arg {
	cp := *a
	cp.reqs = append([]*reqEntry(nil), a.reqs...)
	return &cp
}
