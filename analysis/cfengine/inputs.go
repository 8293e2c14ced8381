package cfengine

// Following inputs: the files a policy loads, from its entry's body
// common control through every input's own, and what is said of an
// input that is not there.

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/ordering-lsp/ordering-lsp/analysis"
	cfp "github.com/ordering-lsp/ordering-lsp/parser/cfengine"
	"github.com/ordering-lsp/ordering-lsp/source"
)

// augmentValues reads a def.json value: a string or a list of strings
// (a data container is not followed: false).
func augmentValues(v any) ([]string, bool) {
	switch t := v.(type) {
	case string:
		return []string{t}, true
	case []any:
		vals := make([]string, 0, len(t))
		for _, x := range t {
			s, ok := x.(string)
			if !ok {
				return nil, false
			}
			vals = append(vals, s)
		}
		return vals, true
	}
	return nil, false
}

// augmentKey is the variable a key of def.json's "variables" defines, in
// the evaluator's form: "ns:bundle.var" and "bundle.var" name the bundle
// (augments may define variables in any bundle, CFEngine 3.18+), a bare
// name is def's, as under "vars".
func augmentKey(k string) string {
	if key, ok := varKey(k, scope{}); ok {
		return key
	}
	return "def." + k
}

// loadPolicy follows inputs from an entry file until no new file appears.
func (a *analyzer) loadPolicy(entry *fileInfo) *policy {
	pol := &policy{a: a, entry: entry, entryDir: entry.dir, inFiles: map[*fileInfo]int{}, byKey: map[string][]*bundleInfo{},
		bodies: map[string][]*bodyInfo{}, handles: map[string][]*promiseInfo{}, augments: map[string][]string{}}
	pol.hostLib = entry.dir == "" || !isDir(filepath.Join(entry.dir, "lib"))
	pol.add(entry)
	var extraInputs []string
	if entry.dir != "" {
		if f := lookupRegular(a.req.Workspace, filepath.Join(entry.dir, "def.json")); f != nil {
			var aug struct {
				Vars      map[string]any `json:"vars"`
				Variables map[string]struct {
					Value any `json:"value"`
				} `json:"variables"`
				Inputs []string `json:"inputs"`
			}
			if json.Unmarshal(f.Text, &aug) == nil {
				for k, v := range aug.Vars {
					if vals, ok := augmentValues(v); ok {
						pol.augments["def."+k] = vals
					}
				}
				for k, v := range aug.Variables {
					if vals, ok := augmentValues(v.Value); ok {
						pol.augments[augmentKey(k)] = vals
					}
				}
				extraInputs = aug.Inputs
			}
		}
	}
	for round := 0; round < 12; round++ {
		ev := newEvaluator(pol)
		pol.ev = ev
		var strict *evaluator
		var cond, condW *condEval
		pol.clsDefs = nil
		before := len(pol.files)
		pol.unresolved = false
		pol.inputLinks = pol.inputLinks[:0] // the last round's are kept
		// every round reads every input again: the last one's missing
		// inputs are the policy's (its body common control, hence
		// ignore_missing_inputs, may come from an input)
		pol.missing = false
		pol.ignoreMissing = ignoreMissingInputs(pol, ev)
		pol.missingDiags = pol.missingDiags[:0]
		pol.certain = map[*fileInfo]bool{entry: true}
		for _, in := range extraInputs {
			for _, v := range ev.expand(in, scope{dir: entry.dir}).vals {
				if !strings.Contains(v, "$(") {
					if fi := a.addInput(pol, v, v, "", entry.dir, nil); fi != nil {
						pol.certain[fi] = true
					}
				}
			}
		}
		for i := 0; i < len(pol.files); i++ {
			fi := pol.files[i]
			for _, bo := range fi.bodies {
				b := bo.block
				if b.Kind != "body" || b.Name.Text != "control" || (b.Type.Text != "common" && b.Type.Text != "file") {
					continue
				}
				// A policy has one body common control; it need not be in
				// the entry file (cfengine core's acceptance tests keep it in
				// a shared common.cf.sub that every test's body file
				// control loads).
				for _, at := range b.Attrs {
					if at.Lval.Text != "inputs" || at.Rval == nil {
						continue
					}
					items := at.Rval.Items
					if at.Rval.Kind != cfp.List {
						items = []*cfp.Rval{at.Rval}
					}
					for _, it := range items {
						sc := scope{dir: fi.dir}
						vs := ev.rval(it, sc)
						if !vs.resolved {
							pol.unresolved = true
						}
						words := a.span(fi, it.Span)
						if it.Kind == cfp.String {
							words.Start, words.End = words.Start+1, words.End-1
						}
						if !pol.hostLib {
							a.libHere[words] = true
						}
						// A missing file is reported on the item's words
						// when every host computes that name: written out,
						// or through variables with one value everywhere
						// (strict); one a class or a host decides may
						// exist there only.
						literal := it.Kind == cfp.String && !strings.ContainsAny(it.Value, "$@")
						var sure, shown []string
						if !literal {
							if strict == nil {
								strict = newEvaluator(pol)
								strict.strict = true
							}
							if svs := strict.rval(it, sc); svs.resolved {
								sure = svs.vals
							}
						}
						// values a class decides: reported for the hosts
						// that compute them
						var where map[string]string
						// the inputs attribute under a class (extra::
						// inputs => ...) names its files there only
						attrHosts := ""
						if everywhere(at.Context, a.version()) == triMaybe {
							if _, w, sat, taut, ok := pol.condCubes([][]condTerm{{{expr: at.Context}}}); ok && sat && !taut {
								attrHosts = w
							}
						}
						if !literal && sure == nil && pol.certain[fi] {
							if cond == nil {
								cond, condW = newCondEval(pol, false), newCondEval(pol, true)
							}
							where = a.condInputs(pol, cond, condW, it, sc, at.Context)
						}
						var targets []source.Span
						for _, v := range vs.vals {
							if strings.Contains(v, "$(") || strings.Contains(v, "${") {
								if sub, ok := libSubdir(a.version()); ok && pol.hostLib && (strings.Contains(v, "$(sys.libdir)") || strings.Contains(v, "${sys.libdir}")) {
									a.hostLibNotes = append(a.hostLibNotes, analysis.Diagnostic{At: words, Severity: analysis.Info, Code: "host-input",
										Message: fmt.Sprintf("'%s' comes from the host: $(sys.libdir) is $(sys.workdir)/inputs/%s, where CFEngine deploys the standard library, and there is no lib/ beside this policy here; names it may define are not reported as undefined", v, sub)})
								}
								continue
							}
							base := entry.dir
							if b.Type.Text == "file" {
								base = fi.dir
							}
							var missingAt *source.Span
							name, hosts := v, ""
							if h, ok := where[v]; ok {
								missingAt = &words
								hosts = h
								name = where["\x00"+v]
							} else if literal {
								missingAt = &words
								hosts = attrHosts
							} else if k := slices.Index(sure, v); k >= 0 {
								missingAt = &words
								hosts = attrHosts
								if shown == nil {
									// the same values with the checkout's
									// folders as written
									w := &evaluator{pol: pol, cache: map[string]*valueSet{}, busy: map[string]bool{}, strict: true, written: true}
									shown = w.rval(it, sc).vals
								}
								if len(shown) == len(sure) {
									name = shown[k]
								}
							}
							if in := a.addInput(pol, v, name, hosts, base, missingAt); in != nil {
								targets = append(targets, source.Span{URI: in.src.URI})
								if at.Context == "any" && pol.certain[fi] && (vs.resolved && len(vs.vals) == 1 || len(sure) > 0 && len(sure) == len(vs.vals)) {
									pol.certain[in] = true
								}
							}
						}
						if len(targets) > 0 {
							pol.inputLinks = append(pol.inputLinks, analysis.Link{At: words, Files: targets})
						}
					}
				}
			}
		}
		if len(pol.files) == before {
			break
		}
		pol.ev = nil
	}
	for _, d := range mergeMissing(pol.missingDiags) {
		a.diag(d)
	}
	if pol.missing || pol.brokenInputs {
		pol.unresolved = true
	}
	return pol
}

// ignoreMissingInputs reads `ignore_missing_inputs` of the policy's body
// common control (where it stands in the body does not matter; a later
// one wins; a value that is not a boolean leaves it unset, as
// StringIsBoolean does in expand.c).
func ignoreMissingInputs(pol *policy, ev *evaluator) bool {
	if pol.control == nil {
		return false
	}
	on := false
	for _, at := range pol.control.Attrs {
		if at.Lval.Text != "ignore_missing_inputs" || at.Context != "any" {
			continue
		}
		vs := ev.rval(at.Rval, scope{dir: pol.controlF.dir})
		if !vs.resolved || len(vs.vals) != 1 {
			continue
		}
		switch vs.vals[0] {
		case "true", "yes", "on":
			on = true
		case "false", "no", "off":
			on = false
		}
	}
	return on
}

// existsHere: something is at path on this machine (a directory or a
// device is no policy anywhere: /tmp, /dev/null).
// copblName: an input written as the old community standard library's
// stock file (cfengine_stdlib.cf, libraries/cfengine_stdlib.cf,
// 3.0's cf_std_library.cf). A policy of that time listed it beside its
// own files and kept the copy CFEngine's package put in masterfiles
// (open17c/RhubarbSin_cfengine3-bundles ships promises.cf, site.cf and
// three bundles, and no library): it comes from outside the repository.
func copblName(v string) bool {
	switch filepath.Base(v) {
	case "cfengine_stdlib.cf", "cf_std_library.cf":
		return true
	}
	return false
}

// holdsFile: some file of the workspace has this name.
func (a *analyzer) holdsFile(base string) bool {
	for _, f := range a.req.Files {
		if f.Path != "" && filepath.Base(f.Path) == base {
			return true
		}
	}
	return false
}

func existsHere(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// relPath is path relative to the workspace folder holding it (to the
// entry's folder when the workspace has none), else path.
func (a *analyzer) relPath(path, entryDir string) string {
	roots := a.req.Workspace.Roots()
	if len(roots) == 0 {
		roots = []string{entryDir}
	}
	for _, r := range roots {
		if rel, err := filepath.Rel(r, path); err == nil && !strings.HasPrefix(rel, "..") {
			return filepath.ToSlash(rel)
		}
	}
	return path
}

// inWorkspace: path lies in a folder of the workspace (that of the entry,
// when the workspace has none: a file checked alone).
func (a *analyzer) inWorkspace(path, entryDir string) bool {
	roots := a.req.Workspace.Roots()
	if len(roots) == 0 {
		roots = []string{entryDir}
	}
	for _, r := range roots {
		if path == r || strings.HasPrefix(path, r+string(filepath.Separator)) {
			return true
		}
	}
	return false
}

// addInput loads input v of pol (base: the folder it is relative to),
// reporting at missingAt when it is not there; name is v as messages
// quote it (the checkout's folders as written: $(sys.libdir)/x.cf);
// hosts, when not empty, says on which hosts the item names v ("only on
// hosts where B is defined").
func (a *analyzer) addInput(pol *policy, v, name, hosts, base string, missingAt *source.Span) *fileInfo {
	note := ""
	if hosts != "" {
		note = " (" + hosts + ")"
	}
	p := v
	tried := ""
	if rest, ok := strings.CutPrefix(v, "/var/cfengine/inputs/"); ok && !a.inWorkspace(v, pol.entryDir) {
		// $(sys.inputdir) written out: where the policy this entry
		// belongs to is deployed
		if fi := a.load(filepath.Join(pol.entryDir, rest)); fi != nil {
			pol.add(fi)
			return fi
		}
	}
	if !filepath.IsAbs(p) {
		p = filepath.Join(base, p)
		if a.load(p) == nil && base != pol.entryDir {
			tried = p
			p = filepath.Join(pol.entryDir, v)
		}
	}
	fi := a.load(filepath.Clean(p))
	if fi == nil {
		// one the build creates (make check copies it in): not there
		// yet, there when the policy runs
		for _, c := range []string{filepath.Clean(p), tried} {
			if c == "" {
				continue
			}
			if conf := a.configuredBy(c); conf != "" {
				// a configure output (masterfiles' controls/update_def.cf
				// from update_def.cf.in)
				pol.missing = true
				if missingAt != nil {
					pol.missingDiags = append(pol.missingDiags, analysis.Diagnostic{At: *missingAt, Severity: analysis.Info, Code: "generated-input",
						Message: fmt.Sprintf("'%s' is made by the build: %s lists %s in AC_CONFIG_FILES, the files configure writes from their .in templates; names it may define are not reported as undefined%s", name, a.relPath(conf, pol.entryDir), a.relPath(c, pol.entryDir), note)})
				}
				return nil
			}
			if mk, list := a.builtBy(c); mk != "" {
				pol.missing = true
				if missingAt != nil {
					if !filepath.IsAbs(v) {
						mk = filepath.Join(filepath.Dir(v), filepath.Base(mk)) // as the input is written
					}
					pol.missingDiags = append(pol.missingDiags, analysis.Diagnostic{At: *missingAt, Severity: analysis.Info, Code: "generated-input",
						Message: fmt.Sprintf("'%s' is made by the build: %s lists %s in %s, the files its make targets create; names it may define are not reported as undefined%s", v, mk, filepath.Base(c), list, note)})
				}
				return nil
			}
		}
		// a missing input (or a directory): cf-promises refuses the
		// policy, unless ignore_missing_inputs, with which CFEngine
		// skips it silently (Cf3ParseFile) and the policy is what the
		// other files define. One named through a variable may exist
		// on other hosts: the policy stays unresolved.
		if missingAt == nil || !pol.ignoreMissing {
			pol.missing = true
		}
		if missingAt != nil && !pol.ignoreMissing && filepath.IsAbs(v) && !a.inWorkspace(v, pol.entryDir) && !existsHere(v) {
			// a file of the host (/var/cfengine/inputs/lib/stdlib.cf,
			// /var/cfengine/bin/x.cf): there or not, the workspace cannot
			// say (Webhuis/CFEngine-Roadshow)
			pol.missingDiags = append(pol.missingDiags, analysis.Diagnostic{At: *missingAt, Severity: analysis.Info, Code: "host-input",
				Message: fmt.Sprintf("'%s' comes from the host, outside the workspace: cf-promises fails (\"Can't stat file\") where the host has no such file; names it may define are not reported as undefined (name it relative to this policy, or through $(sys.inputdir), to have the workspace's copy read)%s", v, note)})
			return nil
		}
		if missingAt != nil && !pol.ignoreMissing && name == v && hosts == "" {
			if found := a.siblingInput(v, pol.entryDir); found != "" && base == pol.entryDir {
				pol.missingDiags = append(pol.missingDiags, a.siblingInputNote(*missingAt, name, found, pol.entryDir))
				return nil
			}
		}
		if missingAt != nil && !pol.ignoreMissing && name == v && hosts == "" && copblName(v) && !a.holdsFile(filepath.Base(v)) {
			pol.missingDiags = append(pol.missingDiags, analysis.Diagnostic{At: *missingAt, Severity: analysis.Info, Code: "host-input",
				Message: fmt.Sprintf("'%s' is CFEngine's community standard library (COPBL) under its stock name, which the masterfiles CFEngine shipped until 3.6 held beside promises.cf (cfengine_stdlib.cf, later libraries/cfengine_stdlib.cf); the workspace has no copy: cf-promises fails (\"Can't stat file\") where the deployment does not keep the package's one; names it may define are not reported as undefined (put it in the workspace to have it checked)%s", v, note)})
			return nil
		}
		if missingAt != nil && !pol.ignoreMissing {
			msg := fmt.Sprintf("Can't stat file '%s' for parsing", name)
			if isDir(filepath.Clean(p)) {
				msg = fmt.Sprintf("Can't parse directory '%s'.", name)
			} else if name != v {
				lacks := "the workspace has no " + a.relPath(filepath.Clean(p), pol.entryDir)
				if hosts != "" {
					lacks = hosts + "; " + lacks
				}
				note = " (" + lacks + ")"
			}
			msg += note
			pol.missingDiags = append(pol.missingDiags, analysis.Diagnostic{At: *missingAt, Severity: analysis.Warning, Code: "missing-input", Message: msg})
		}
		return nil
	}
	pol.add(fi)
	return fi
}

// mergeMissing gives one warning per inputs item: a list naming several
// missing files (@{cfengine_stdlib.inputs} = 15 files of lib/) is
// reported with the first, the one cf-promises names before it stops,
// and the others listed, in the list's order. Only warnings with the
// same note (the same hosts) are merged.
func mergeMissing(diags []analysis.Diagnostic) []analysis.Diagnostic {
	type group struct {
		first int
		names []string
	}
	const pre, mid = "Can't stat file '", "' for parsing"
	groups := map[string]*group{}
	var out []analysis.Diagnostic
	for _, d := range diags {
		name, note, ok := strings.Cut(strings.TrimPrefix(d.Message, pre), mid)
		if d.Code != "missing-input" || !strings.HasPrefix(d.Message, pre) || !ok || strings.Contains(name, "'") {
			out = append(out, d)
			continue
		}
		key := fmt.Sprintf("%v\x00%s", d.At, note)
		if g := groups[key]; g != nil {
			if !slices.Contains(g.names, name) {
				g.names = append(g.names, name)
			}
			continue
		}
		groups[key] = &group{first: len(out), names: []string{name}}
		out = append(out, d)
	}
	for key, g := range groups {
		if len(g.names) < 2 {
			continue
		}
		_, note, _ := strings.Cut(key, "\x00")
		more := make([]string, len(g.names)-1)
		for i, n := range g.names[1:] {
			more[i] = "'" + n + "'"
		}
		files := "files this item names are"
		if len(more) == 1 {
			files = "file this item names is"
		}
		out[g.first].Message = fmt.Sprintf("%s%s%s (%d more %s missing too: %s)%s", pre, g.names[0], mid, len(more), files, strings.Join(more, ", "), note)
	}
	return out
}
