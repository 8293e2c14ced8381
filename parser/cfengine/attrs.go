package cfengine

import (
	"maps"
	"slices"
)

//go:generate go run gen_attrs.go

// Attribute names cf-promises rejects: "Unknown attribute 'crate' for
// promise type 'files' in bundle with type 'agent'", "Unknown attribute
// 'own' for 'body perms m'". One such name makes the whole policy fail on
// every host (cf-agent falls back to failsafe.cf).
//
// What CFEngine 3.21.0 knows comes from the tool itself (attrs_gen.go).
// Later versions added names; a policy written for one of them is not
// wrong, so those names are listed here with the version that added them
// (read from cfengine/core's libpromises/mod_*.c at each release tag:
// nothing was added from 3.21.0 to 3.26.0). UnknownAttrs reports such a
// name apart (Since set): unknown to the version asked for, known to a
// later one. Older versions are not described: a name 3.21 knows and
// 3.18 did not is never reported.

// newerSyntax lists what CFEngine versions after syntaxVersion added:
// promise types of a bundle type ("bundle"), attributes of a promise type
// ("promise") or of a body type ("body"; a new body type lists meta and
// inherit_from, which every non-control body has).
var newerSyntax = []struct {
	since, kind, typ string
	names            []string
}{
	{"3.27.0", "body", "common", []string{"evaluation_order"}},
	{"3.27.0", "body", "agent", []string{"evaluation_order", "default_directory_create_mode"}},
	{"3.27.0", "body", "file", []string{"evaluation_order"}},
	{"3.27.0", "promise", "files", []string{"fsattrs"}},
	{"3.27.0", "body", "fsattrs", []string{"immutable", "meta", "inherit_from"}},
	// classes is a common promise type: every promise type accepts these
	{"3.28.0", "promise", "classes", []string{"cancel", "timer_policy"}},
	{"3.28.0", "promise", "replace_patterns", []string{"allow_non_convergent"}},
	{"3.28.0", "body", "executor", []string{"smtpport"}},
	// core master after 3.28.0 (.CFVERSION 3.29.0, b14a380d0), unreleased
	{"3.29.0", "body", "changes", []string{"silence"}},
	{"3.29.0", "body", "mount", []string{"remount", "remount_methods", "remount_timeout"}},
	{"3.29.0", "bundle", "watch", []string{"events"}},
	{"3.29.0", "promise", "events", []string{"when", "then"}},
	{"3.29.0", "body", "when", []string{"files_deleted", "meta", "inherit_from"}},
}

// removedAttrs are attributes cf-promises only warns about ("Removed
// constraint 'host_licenses_paid' ..."): it accepts them, but its syntax
// description leaves them out. From libpromises/mod_*.c of 3.21.0 (its
// SYNTAX_STATUS_REMOVED attributes of the types described), by body type.
var removedAttrs = map[string][]string{
	"action": {"value_kept", "value_repaired", "value_notkept"},
	"report_data_select": {"classes_include", "classes_exclude", "variables_include", "variables_exclude",
		"promise_notkept_log_include", "promise_notkept_log_exclude", "promise_repaired_log_include",
		"promise_repaired_log_exclude"},
	"common": {"host_licenses_paid"},
	"agent":  {"auditing", "binarypaddingchar", "exclamation", "syslog", "track_value"},
	"server": {"keycacheTTL"},
	"hub":    {"export_zenoss"},
}

// promiseBlockAttrs are the attributes of a custom promise type's block
// (`promise agent git { path => ...; }`), which the syntax description
// leaves out (libpromises/mod_custom.c).
var promiseBlockAttrs = map[string]bool{"path": true, "interpreter": true, "meta": true, "inherit_from": true}

// removedBodyTypes are control bodies cf-promises still recognises to
// warn that they were removed; it skips their attributes.
var removedBodyTypes = map[string]bool{"reporter": true, "knowledge": true}

// names maps a name to the first version that knows it ("" for
// syntaxVersion).
type names map[string]string

var bundleSyntax, promiseSyntax, bodySyntax = tables()

// commonAttrs are the attributes of the common promise types (vars,
// classes, reports, ...): cf-promises accepts any of them in every promise
// type (syntax.c's fallback for constraints: `files: "x" string => "y"`
// passes).
var commonAttrs = func() names {
	out := names{}
	for _, t := range syntaxCommonTypes {
		for n, v := range promiseSyntax[t] {
			if old, ok := out[n]; !ok || v == "" || old != "" && compareVersionLess(v, old) {
				out[n] = v
			}
		}
	}
	return out
}()

func tables() (bundles, promises, bodies map[string]names) {
	fill := func(src map[string][]string) map[string]names {
		out := map[string]names{}
		for t, ns := range src {
			out[t] = names{}
			for _, n := range ns {
				out[t][n] = ""
			}
		}
		return out
	}
	bundles, promises, bodies = fill(syntaxBundleTypes), fill(syntaxPromiseAttrs), fill(syntaxBodyAttrs)
	for t, ns := range removedAttrs {
		for _, n := range ns {
			bodies[t][n] = ""
		}
	}
	for _, x := range newerSyntax {
		m := map[string]map[string]names{"bundle": bundles, "promise": promises, "body": bodies}[x.kind]
		if m[x.typ] == nil {
			m[x.typ] = names{}
		}
		for _, n := range x.names {
			m[x.typ][n] = x.since
		}
	}
	return bundles, promises, bodies
}

// knows reports whether CFEngine version knows a name first known in
// since. A version the parser cannot read counts as the newest.
func knows(version, since string) bool {
	if since == "" {
		return true
	}
	c, ok := compareVersion(version, since)
	return !ok || c >= 0
}

// lookup says whether version knows name in set, and if not the first
// later version that does ("" when none).
func (set names) lookup(name, version string) (ok bool, since string) {
	v, found := set[name]
	if !found {
		return false, ""
	}
	if knows(version, v) {
		return true, ""
	}
	return false, v
}

// known reports whether version knows a type: some of its names are
// known to it (a body type that version lacks is a custom body to it).
func (set names) known(version string) bool {
	for _, v := range set {
		if knows(version, v) {
			return true
		}
	}
	return false
}

// UnknownAttr is an attribute name cf-promises rejects.
type UnknownAttr struct {
	Block   *Block
	Section *Section // the promise type section, in a bundle
	Attr    *Constraint
	// Since is set when a later CFEngine version than the one asked for
	// knows the name: the first such version.
	Since string
}

// UnknownAttrs returns the attribute names of f's blocks that
// cf-promises of the given version rejects, as it reports them:
//   - in bundles, every unknown attribute of a built-in promise type the
//     bundle type allows (the common types in any bundle type); custom
//     promise types take any attribute, and a type the bundle type does
//     not allow is its own error;
//   - in a body, only the first unknown attribute: cf-promises skips the
//     rest of the body after it; custom body types (any type it does not
//     know) and removed control bodies are not checked;
//   - in a custom promise block (`promise agent x`), the first unknown
//     attribute, unless the block before it in the file stopped at an
//     unknown attribute or is a removed body: cf-promises' skip flag
//     carries over, since such a block does not reset it.
//
// A name only a later version knows (Since set) counts as unknown, as it
// does to cf-promises of that version. Blocks with a syntax error have no
// attributes here.
func (f *File) UnknownAttrs(version string) []UnknownAttr {
	var out []UnknownAttr
	skip := false
	for _, b := range f.Blocks {
		switch b.Kind {
		case "bundle":
			for _, s := range b.Sections {
				t := s.Type.Text
				own, ok := promiseSyntax[t]
				if !ok || !checksType(b.Type.Text, t, version) {
					continue // custom, or not allowed in this bundle type
				}
				for _, p := range s.Promises {
					for _, c := range p.Constraints {
						ok, since := own.lookup(c.Lval.Text, version)
						cok, csince := commonAttrs.lookup(c.Lval.Text, version)
						if !ok && !cok {
							out = append(out, UnknownAttr{Block: b, Section: s, Attr: c, Since: firstOf(since, csince)})
						}
					}
				}
			}
			skip = false
		case "body":
			set := bodySyntax[b.Type.Text]
			if removedBodyTypes[b.Type.Text] {
				skip = true
				continue
			}
			skip = false
			if set == nil || !set.known(version) {
				continue // a custom body to this version
			}
			for _, c := range b.Attrs {
				if ok, since := set.lookup(c.Lval.Text, version); !ok {
					out = append(out, UnknownAttr{Block: b, Attr: c, Since: since})
					skip = true
					break
				}
			}
		case "promise":
			if skip || b.Type.Text != "agent" {
				continue
			}
			for _, c := range b.Attrs {
				if !promiseBlockAttrs[c.Lval.Text] {
					out = append(out, UnknownAttr{Block: b, Attr: c})
					skip = true
					break
				}
			}
		}
	}
	return out
}

// checksType reports whether cf-promises of version checks the attribute
// names of promise type t in a bundle of type bt: a common type (in any
// bundle type, unknown ones too), or a type of that bundle type.
func checksType(bt, t, version string) bool {
	if slices.Contains(syntaxCommonTypes, t) {
		return true
	}
	since, ok := bundleSyntax[bt][t]
	return ok && knows(version, since)
}

// firstOf returns the earlier of two versions, "" meaning none.
func firstOf(a, b string) string {
	if a == "" || b != "" && compareVersionLess(b, a) {
		return b
	}
	return a
}

// compareVersionLess reports whether version a comes before b.
func compareVersionLess(a, b string) bool {
	c, ok := compareVersion(a, b)
	return ok && c < 0
}

// AttrNames returns the attribute names CFEngine version knows in a
// block, sorted: for a promise of type t in a bundle of type bt (kind
// "bundle"), a body of type t ("body"), a custom promise block
// ("promise"). Nil where cf-promises checks no names.
func AttrNames(kind, bt, t, version string) []string {
	var sets []names
	switch kind {
	case "bundle":
		if own, ok := promiseSyntax[t]; ok && checksType(bt, t, version) {
			sets = []names{own, commonAttrs}
		}
	case "body":
		if set := bodySyntax[t]; set != nil && set.known(version) && !removedBodyTypes[t] {
			sets = []names{set}
		}
	case "promise":
		if t == "agent" {
			return slices.Sorted(maps.Keys(promiseBlockAttrs))
		}
	}
	seen := map[string]bool{}
	var out []string
	for _, set := range sets {
		for n, since := range set {
			if !seen[n] && knows(version, since) {
				seen[n] = true
				out = append(out, n)
			}
		}
	}
	slices.Sort(out)
	return out
}
