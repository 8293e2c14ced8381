package salt

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"unicode"

	"github.com/ordering-lsp/ordering-lsp/analysis"
	"github.com/ordering-lsp/ordering-lsp/internal/lazyre"
	sp "github.com/ordering-lsp/ordering-lsp/parser/salt"
	"github.com/ordering-lsp/ordering-lsp/source"
)

// Hints for a missing requisite: the target declared elsewhere (another
// module, another case, a file nothing includes), and what the user can
// do about it.

// hint explains a missing requisite when the target exists under another
// module or with another case, or when an sls target only includes others.
func (a *analyzer) hint(c *compiler, sm *sim, e *reqEntry) string {
	if e.mod == "sls" {
		if tf := c.t.bySLS(e.target); tf != nil && len(tf.ids) == 0 && len(tf.includes) > 0 && !tf.generator {
			return fmt.Sprintf("SLS '%s' only includes other SLS files, and their states were already included from elsewhere first, so none counts as included from '%s'", e.target, e.target)
		}
		return ""
	}
	var mods []string
	seen := map[string]bool{}
	for _, ch := range append(append([]*chunk(nil), sm.byID[e.target]...), sm.byName[e.target]...) {
		if ch.state != e.mod && !seen[ch.state] {
			seen[ch.state] = true
			mods = append(mods, ch.state)
		}
	}
	if len(mods) > 0 {
		return fmt.Sprintf("'%s' is a %s state, not %s: write `- %s: %s`", e.target, strings.Join(mods, "/"), e.mod, mods[0], e.target)
	}
	low := strings.ToLower(e.target)
	for _, ch := range sm.chunks {
		if (strings.ToLower(ch.id) == low || strings.ToLower(ch.name) == low) && (e.mod == "id" || ch.state == e.mod) {
			other := ch.id
			if strings.ToLower(ch.id) != low {
				other = ch.name
			}
			return fmt.Sprintf("IDs and names are case-sensitive: did you mean '%s'?", other)
		}
	}
	return ""
}

// declaredElsewhere finds a file read (of any file root), not part of
// the run, that declares the target of c: by its ID or a name, with the
// requisite's module. exact: written as is; otherwise a template pattern
// may make it (`user_{{ u }}` in a loop over pillar data), disp is how
// the template writes it. A literal declaration wins over a pattern.
func (a *analyzer) declaredElsewhere(c *ctxDiag) (where string, exact bool, disp string, in *sfile) {
	// only files an include of this SLS could name: under a file root
	// of its saltenv
	var roots []string
	if of := a.fileOf(c.d.At.URI); of != nil {
		roots = []string{of.root}
		if t := a.trees[of.root]; t != nil {
			roots = t.rootList()
		}
	}
	for _, tf := range a.allFiles() {
		t, f := tf.t, tf.f
		if c.inRun[f.file.URI] {
			continue
		}
		if roots != nil && !slices.ContainsFunc(roots, func(r string) bool { return strings.HasPrefix(f.file.Path, r+string(filepath.Separator)) }) {
			continue
		}
		if c.mod == "sls" {
			// `- sls: b`: the SLS itself, which the run does not hold
			// (dvn7035/homelab-salt-states: state.sls a fails as `- pkg:`
			// of b's would, state.sls a,b runs)
			if f.sls == c.target {
				at := source.Span{URI: f.file.URI}
				if len(f.ids) > 0 && f.ids[0].key != nil { // (its first state: a place an edit above moves)
					at = f.span(f.ids[0].key)
				}
				return analysis.WhereMark(a.req.Workspace, t.root, at), true, "", f
			}
			continue
		}
		for _, d := range f.ids {
			ex, pat, n := declares(d, c.target, c.mod)
			if ex {
				return analysis.WhereMark(a.req.Workspace, t.root, f.span(n)), true, "", f
			}
			if pat && where == "" {
				where, disp, in = analysis.WhereMark(a.req.Workspace, t.root, f.span(n)), f.p.Display(n), f
			}
		}
		if f.p.Skipped && where == "" {
			if sp, key, ok := a.opaqueDeclares(f, c.target); ok {
				where, disp, in = analysis.WhereMark(a.req.Workspace, t.root, source.Span{URI: f.file.URI, Start: sp, End: sp + len(key)}), key, f
			}
		}
	}
	return where, false, disp, in
}

// opaqueDeclares looks into the text of a file whose renderer is not
// analysed (`#!stateconf`, `#!py`) for what may declare target: a
// top-level key that is the target or a template of it
// (`rsyslog-{{ file.tag }}:` in hakoerber/salt-states' stateconf file),
// or the target written as a string. Its offset and words. The keys are
// read once per file and analysis (every missing target asks each file).
func (a *analyzer) opaqueDeclares(f *sfile, target string) (int, string, bool) {
	keys, ok := a.opaqueKeys[f]
	if !ok {
		keys = topKeys(f.file.Text)
		if a.opaqueKeys == nil {
			a.opaqueKeys = map[*sfile][]topKey{}
		}
		a.opaqueKeys[f] = keys
	}
	for _, k := range keys {
		if k.key == target || k.pat != k.key && ownText(k.pat) && fnmatch(target, k.pat) {
			return k.off, k.key, true
		}
	}
	text := string(f.file.Text)
	for _, q := range []string{`"`, `'`} {
		if i := strings.Index(text, q+target+q); i >= 0 {
			return i + 1, target, true
		}
	}
	return 0, "", false
}

// topKey is a top-level `key:` of a text, with its template holes as
// unknown output (pat).
type topKey struct {
	off      int
	key, pat string
}

func topKeys(text []byte) []topKey {
	var out []topKey
	off := 0
	for _, line := range strings.SplitAfter(string(text), "\n") {
		start := off
		off += len(line)
		if line == "" || line[0] == ' ' || line[0] == '\t' || line[0] == '#' {
			continue
		}
		key, _, ok := strings.Cut(strings.TrimRight(line, "\r\n"), ":")
		if !ok || key == "" {
			continue
		}
		out = append(out, topKey{start, key, templateHoles.ReplaceAllString(key, sp.Unknown)})
	}
	return out
}

// ownText reports whether a template pattern has words of its own, a
// letter or a digit beside the template output: `user_{{ u }}` says
// something about the names it makes; `{{ package.name }}` and
// `{{ map.conf_dir }}/{{ config.client_config_dir }}` (markododa/saltstack
// openvpn/config.sls, which "matched" lamp's `file: /etc/mysql/my.cnf`)
// match any name, or any path, and say nothing about this one.
func ownText(pat string) bool {
	return strings.ContainsFunc(strings.ReplaceAll(pat, sp.Unknown, ""), func(r rune) bool {
		return unicode.IsLetter(r) || unicode.IsDigit(r)
	})
}

// templateHoles: the Jinja expressions of a line, output nobody knows.
var templateHoles = lazyre.New(`{{.*?}}`)

// declares reports whether declaration d is (exact) or may be (pat: a
// template pattern) the state a requisite on (mod, target) names, and
// the node that says so (the ID, a name: or names: entry). Salt matches
// a requisite by ID or by name (salt/state.py find_name).
func declares(d *idDecl, target, mod string) (exact, pat bool, at *sp.Node) {
	if d.bad != "" {
		return false, false, nil
	}
	modOK := mod == "" || mod == "id"
	for _, sd := range d.decls {
		if sd.module == mod || strings.Contains(sd.module, sp.Unknown) {
			modOK = true
		}
	}
	if !modOK {
		return false, false, nil
	}
	check := func(v string, n *sp.Node) bool {
		switch {
		case v == target:
			exact, at = true, n
			return true
		case !pat && strings.Contains(v, sp.Unknown) && ownText(v) && fnmatch(target, v):
			// (a pattern with some text of its own: one made of
			// template output alone, `{{ package.name }}`, matches
			// every name and says nothing about this one)
			pat, at = true, n
		}
		return false
	}
	if check(d.id, d.key) {
		return true, false, d.key
	}
	for _, sd := range d.decls {
		if mod != "" && mod != "id" && sd.module != mod && !strings.Contains(sd.module, sp.Unknown) {
			continue
		}
		for _, ar := range sd.args {
			switch {
			case ar.key == "name" && ar.val != nil && ar.val.Kind == sp.Scalar:
				if check(ar.val.Value, ar.val) {
					return true, false, at
				}
			case ar.key == "names" && ar.val != nil && ar.val.Kind == sp.Seq:
				for _, it := range ar.val.Items {
					n := it
					if it.Kind == sp.Map && len(it.Keys) > 0 {
						n = it.Keys[0]
					}
					if n.Kind == sp.Scalar && check(n.Value, n) {
						return true, false, at
					}
				}
			}
		}
	}
	return false, pat, at
}

// templatedIncluder finds a file whose templated include may name f
// (users/init.sls: `- .{{ username }}` in a loop over pillar users,
// webplatform/salt-states): nothing links them, but where pillar says
// so, f is applied with everything that file's own run holds.
func (a *analyzer) templatedIncluder(f *sfile) (*sfile, *include) {
	for _, tf := range a.allFiles() {
		if tf.f == f || tf.f.root != f.root && !slices.Contains(tf.t.rootList(), f.root) {
			continue
		}
		for _, inc := range tf.f.includes {
			name := inc.name
			if !strings.Contains(name, sp.Unknown) {
				continue
			}
			if strings.HasPrefix(name, ".") {
				var ok bool
				if name, ok = relInclude(tf.f.sls, tf.f.init, name); !ok {
					continue
				}
			}
			if fnmatch(f.sls, name) {
				return tf.f, inc
			}
		}
	}
	return nil, nil
}

// elsewhereNote weighs a missing requisite or extend target against the
// rest of the workspace. Declared (or, by a template pattern such as a
// loop over pillar data, maybe declared) in a file this SLS's runs do not
// include: the SLS alone lacks it, applied with that file it works.
// When nothing in the repository includes this SLS or targets it from a
// top file (a file is analysed as if applied alone, `state.sls NAME`),
// how it is applied is outside the workspace (a command line, an
// include whose name pillar decides): information saying where the
// target is and how to make it known. When something includes it, the
// runs the repository makes all lack the target: a warning. A target
// nothing declares and no template could make stays an error.
func (a *analyzer) elsewhereNote(c *ctxDiag) {
	where, exact, disp, declFile := a.declaredElsewhere(c)
	if where == "" {
		a.includerTemplateNote(c)
		return
	}
	what := "'" + c.target + "' is declared in " + where
	if c.mod == "sls" {
		what = "SLS '" + c.target + "' is " + where
	}
	if !exact {
		what = "'" + c.target + "' may be declared by `" + disp + "` at " + where + " (a template whose data the machine decides)"
		if declFile != nil && declFile.p.Skipped {
			what = "'" + c.target + "' may be declared by `" + disp + "` at " + where + " (its renderer, " + declFile.p.Renderer + ", is not analysed)"
		}
	}
	f := a.fileOf(c.d.At.URI)
	if a.req.Entry != "" || f == nil || a.named(f) {
		c.d.Severity = analysis.Warning
		c.d.Message += "\n(" + what + ", which this SLS does not include: include it, or apply both together from top.sls)"
		return
	}
	c.d.Severity = analysis.Info
	if inc, ii := a.templatedIncluder(f); inc != nil && slices.Contains(a.slsRunFiles[inc.file.URI], declFile.file.URI) {
		c.d.Message += "\n(" + what + ", which the run of " + inc.sls + " holds; its include `" + inc.p.Display(ii.node) + "` (" +
			a.where(source.Span{URI: inc.file.URI, Start: ii.node.Start, End: ii.node.End}) +
			") may name this SLS, as the minion's pillar or grains decide: give them (--salt-facts, setting salt.facts) to have it checked)"
		return
	}
	c.d.Message += "\n(" + what + ". Nothing in the repository includes this SLS or targets it from a top file, so it was analysed as applied alone (state.sls " + f.sls +
		"); whatever applies it may bring that state: include it here, or target both from a top file, to have it checked)"
}

// includerTemplateNote: a target nothing declares, not even by a pattern
// with text of its own, in an SLS a templated include of another file
// may name, whose run holds a state of the requisite's module whose ID
// or name is template output alone (python/psf-salt: users/init.sls
// includes `.dotfiles.{{ user_name }}` and declares the user `name: {{
// user_name }}` in the same loop over pillar users, and
// users/dotfiles/dstufft.sls requires `user: dstufft`). Where pillar
// names that user the include and the state come together (salt-order
// on the users run with the loop given dstufft: runs), so this is not
// Salt's failure on every minion: information naming the includer and
// the template (a warning when the repository also includes or targets
// the SLS by its own name, as for other targets declared elsewhere).
func (a *analyzer) includerTemplateNote(c *ctxDiag) {
	if c.mod == "sls" {
		return
	}
	f := a.fileOf(c.d.At.URI)
	if f == nil {
		return
	}
	inc, ii := a.templatedIncluder(f)
	if inc == nil {
		return
	}
	run := a.slsRunFiles[inc.file.URI]
	for _, tf := range a.allFiles() {
		g := tf.f
		if !slices.Contains(run, g.file.URI) {
			continue
		}
		for _, d := range g.ids {
			n := templateOnlyDecl(d, c.mod)
			if n == nil {
				continue
			}
			c.d.Severity = analysis.Info
			if a.req.Entry != "" || a.named(f) {
				c.d.Severity = analysis.Warning
			}
			c.d.Message += "\n('" + c.target + "' may be declared by `" + g.p.Display(n) + "` at " + a.where(g.span(n)) +
				" in the run of " + inc.sls + ", whose include `" + inc.p.Display(ii.node) + "` (" +
				a.where(source.Span{URI: inc.file.URI, Start: ii.node.Start, End: ii.node.End}) +
				") may name this SLS with it, as the minion's pillar or grains decide: give them (--salt-facts FILE, setting salt.facts, or --minions DIR) to have it checked)"
			return
		}
	}
}

// templateOnlyDecl: d declares a state of module mod whose ID or name is
// template output alone (`{{ user_name }}`), which may be any name.
func templateOnlyDecl(d *idDecl, mod string) *sp.Node {
	if d.bad != "" {
		return nil
	}
	for _, sd := range d.decls {
		if sd.module != mod {
			continue
		}
		for _, ar := range sd.args {
			if ar.key == "name" && ar.val != nil && ar.val.Kind == sp.Scalar && strings.Contains(ar.val.Value, sp.Unknown) && !ownText(ar.val.Value) {
				return ar.val
			}
		}
		if strings.Contains(d.id, sp.Unknown) && !ownText(d.id) && !slices.ContainsFunc(sd.args, func(ar *arg) bool { return ar.key == "name" }) {
			return d.key
		}
	}
	return nil
}
