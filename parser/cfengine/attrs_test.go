package cfengine

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"
)

// attrCases: what cf-promises 3.21.0 -c reports for each policy
// (TestUnknownAttrsAgainstCfPromises checks the wants with it):
// "line:name", "@version" when a later version knows the name.
var attrCases = []struct {
	name, src string
	want      []string
}{
	{"promise and body", `
bundle agent main { files: "/tmp/y" crate => "true", perms => m("644"); vars: "v" strng => "x"; }
body perms m(p) { mode => "$(p)"; own => "root"; grp => "x"; meta => { "a" }; inherit_from => q; }
body perms q { mode => "600"; }
`, []string{"2:crate", "2:strng", "3:own"}},
	// any attribute of a common promise type (vars, classes, defaults,
	// reports, meta) is accepted in every promise type
	{"common attributes anywhere", `
bundle agent main {
  files: "/x" string => "x", expression => "any", if_match_regex => "x", policy => "free", comment => "c";
  commands: "/bin/true" create => "true";
  reports: "x" printfile => p, crate => "true", crate2 => "x";
}
body printfile p { number_of_lines => "3"; }
`, []string{"4:create", "5:crate", "5:crate2"}},
	{"control bodies", `
body agent control { bogus_agent => "x"; meta => { "a" }; }
body common control { bundlesequence => { "main" }; bogus_common => "x"; }
body file control { inherit_from => x; }
body server control { bogus_server => "x"; }
body executor control { bogus_exec => "x"; }
body monitor control { bogus_mon => "x"; }
body runagent control { bogus_ra => "x"; }
body hub control { bogus_hub => "x"; }
body reporter control { bogus_rep => "x"; }
bundle agent main { vars: "x" string => "y"; }
`, []string{"2:bogus_agent", "3:bogus_common", "4:inherit_from", "5:bogus_server", "6:bogus_exec", "7:bogus_mon", "8:bogus_ra", "9:bogus_hub"}},
	{"custom types and bodies", `
promise agent git { path => "/tmp/git.py"; interpreter => "/usr/bin/python3"; bogus_promise_attr => "x"; }
bundle agent main {
  git: "/tmp/repo" repository => "x", anything => "y";
  files: "/tmp/z" acl => a;
}
body acl a { acl_directory_inherit => "nochange"; aces => { "user:root:rwx" }; }
body foo_type b { anything => "x"; }
bundle foo unk { vars: "v" string => "x", bogus_foo => "y"; files: "/x" bogus_foo_files => "y"; }
`, []string{"2:bogus_promise_attr", "9:bogus_foo"}},
	{"bundle types", `
bundle agent main { vars: "x" string => "y"; }
bundle edit_line el {
  insert_lines: "x" select_region => r, location => l, bogus_il => "x";
  vars: "v" string => "x", select_region => r;
  commands: "/bin/true" bogus_cmd => "z";
}
body select_region r { select_start => "x"; }
body location l { before_after => "after"; bogus_loc => "y"; }
bundle common c {
  classes: "x" expression => "any", scope => "bundle", persistence => "1", bogus_cls => "y";
  files: "/x" bogus_common_files => "y";
}
bundle edit_xml ex { build_xpath: "/x" select_xpath => "x", build_xpath => "x", bogus_x => "1"; }
bundle server s {
  access: "/x" admit => { "x" }, resource_type => "path", shortcut => "s", bogus_acc => "x";
  roles: ".*" authorize => { "x" }, bogus_role => "x";
}
bundle monitor m { measurements: "/x" stream_type => "file", bogus_m => "x"; }
`, []string{"4:bogus_il", "5:select_region", "9:bogus_loc", "11:bogus_cls", "14:bogus_x", "16:bogus_acc", "17:bogus_role", "19:bogus_m"}},
	// removed attributes pass with a warning; the syntax description
	// leaves them out
	{"removed attributes", `
body common control { bundlesequence => { "main" }; host_licenses_paid => "10"; }
body agent control { auditing => "true"; binarypaddingchar => "x"; exclamation => "true"; syslog => "true"; track_value => "true"; }
body server control { keycacheTTL => "1"; }
body hub control { export_zenoss => "/x"; }
body action a { value_kept => "1"; value_repaired => "1"; value_notkept => "1"; }
body report_data_select r { classes_include => { "x" }; classes_exclude => { "x" }; variables_include => { "x" };
  variables_exclude => { "x" }; promise_notkept_log_include => { "x" }; promise_notkept_log_exclude => { "x" };
  promise_repaired_log_include => { "x" }; promise_repaired_log_exclude => { "x" }; }
bundle agent main { vars: "x" string => "y"; }
`, nil},
	// cf-promises' skip flag: set by an unknown body attribute (the rest
	// of the body is skipped), reset by a body or a bundle, not by a
	// custom promise block
	{"skipping", `
body perms p1 { mode => "644"; own => "root"; }
promise agent x1 { path => "/x"; bogus1 => "y"; }
bundle agent main { vars: "v" string => "x"; }
promise agent x2 { path => "/x"; bogus2 => "y"; }
promise agent x3 { path => "/x"; bogus3 => "y"; }
body perms p2 { mode => "644"; }
promise agent x4 { path => "/x"; bogus4 => "y"; }
body perms p3 { mode => "644"; linux:: own2 => "x"; any:: own3 => "y"; }
body foo_custom c1 { x => "y"; }
promise agent x5 { path => "/x"; bogus5 => "y"; }
body reporter control { x => "y"; }
promise agent x6 { path => "/x"; bogus6 => "y"; }
`, []string{"2:own", "5:bogus2", "8:bogus4", "9:own2", "11:bogus5"}},
	{"newer versions", `
bundle agent main {
  files: "/x" fsattrs => fa;
  classes: "c" expression => "any", cancel => "true";
  reports: "r" timer_policy => "reset";
}
bundle edit_line el { replace_patterns: "x" allow_non_convergent => "true"; }
body fsattrs fa { immutable => "true"; bogus => "x"; }
body agent control { default_directory_create_mode => "0755"; bogus_after => "x"; }
body common control { bundlesequence => { "main" }; evaluation_order => "top_down"; }
body mount mt { remount => "true"; }
bundle watch w { events: "e" anything => "x"; }
`, []string{"3:fsattrs@3.27.0", "4:cancel@3.28.0", "5:timer_policy@3.28.0", "7:allow_non_convergent@3.28.0",
		"9:default_directory_create_mode@3.27.0", "10:evaluation_order@3.27.0", "11:remount@3.29.0"}},
}

func unknownAttrLines(src []byte, version string) []string {
	var out []string
	for _, u := range Parse(src).UnknownAttrs(version) {
		s := fmt.Sprintf("%d:%s", bytes.Count(src[:u.Attr.Lval.Span.Start], []byte("\n"))+1, u.Attr.Lval.Text)
		if u.Since != "" {
			s += "@" + u.Since
		}
		out = append(out, s)
	}
	return out
}

func TestUnknownAttrs(t *testing.T) {
	for _, c := range attrCases {
		if got := unknownAttrLines([]byte(c.src), syntaxVersion); !slices.Equal(got, c.want) {
			t.Errorf("%s:\n got %q\nwant %q", c.name, got, c.want)
		}
	}
	// a later version knows what it added
	var newer []string
	for _, c := range attrCases {
		if c.name == "newer versions" {
			newer = unknownAttrLines([]byte(c.src), "3.27.1")
		}
	}
	if want := []string{"4:cancel@3.28.0", "5:timer_policy@3.28.0", "7:allow_non_convergent@3.28.0", "8:bogus", "9:bogus_after", "11:remount@3.29.0"}; !slices.Equal(newer, want) {
		t.Errorf("3.27.1: got %q, want %q", newer, want)
	}
	if got := unknownAttrLines([]byte(attrCases[len(attrCases)-1].src), "3.29"); !slices.Equal(got, []string{"8:bogus", "9:bogus_after", "12:anything"}) {
		t.Errorf("3.29: got %q", got)
	}
}

// The bundle types' promise types of the syntax description are the
// ones TypeAllowed (hand-written, in normal order) allows.
func TestBundleTypesAgree(t *testing.T) {
	for bt, ts := range syntaxBundleTypes {
		if got := slices.Sorted(slices.Values(NormalOrder(bt))); !slices.Equal(got, ts) {
			t.Errorf("bundle %s: NormalOrder has %q, cf-promises %q", bt, got, ts)
		}
	}
}

var unknownAttrRe = regexp.MustCompile(`(?m)^[^\n]*:(\d+):\d+: error: Unknown attribute '([^']+)'`)

// TestUnknownAttrsAgainstCfPromises runs the installed cf-promises -c on
// attrCases and on a policy using every attribute of every body type and
// promise type it describes, and compares the names it rejects with
// UnknownAttrs. Skipped without cf-promises, or when its version is not
// the one attrs_gen.go was generated from.
func TestUnknownAttrsAgainstCfPromises(t *testing.T) {
	cfp, err := exec.LookPath("cf-promises")
	if err != nil {
		t.Skip("cf-promises not installed")
	}
	if v, _ := exec.Command(cfp, "--version").Output(); !strings.Contains(string(v), "CFEngine Core "+syntaxVersion) {
		t.Skipf("cf-promises is not %s: %q", syntaxVersion, firstLine(string(v)))
	}
	dir := t.TempDir()
	check := func(name, src string, want []string) {
		t.Helper()
		p := filepath.Join(dir, "p.cf")
		if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		out, _ := exec.Command(cfp, "-c", "-f", p).CombinedOutput()
		if bytes.Contains(out, []byte("Too many errors")) {
			t.Errorf("%s: cf-promises stopped at too many errors", name)
		}
		var got []string
		for _, m := range unknownAttrRe.FindAllStringSubmatch(string(out), -1) {
			got = append(got, m[1]+":"+m[2])
		}
		var ws []string
		for _, w := range want {
			ws = append(ws, strings.Split(w, "@")[0])
		}
		if !slices.Equal(got, ws) {
			t.Errorf("%s: cf-promises rejects %q, UnknownAttrs %q\n%s", name, got, ws, out)
		}
	}
	for _, c := range attrCases {
		if c.name != "newer versions" {
			check(c.name, c.src, c.want)
		}
	}
	// cf-promises 3.21 rejects the names later versions added, each as
	// UnknownAttrs reports it (with Since)
	for _, c := range attrCases {
		if c.name == "newer versions" {
			check(c.name, c.src, unknownAttrLines([]byte(c.src), syntaxVersion))
		}
	}

	// every attribute the description lists is accepted, and a bogus one
	// after them is reported, in each body type and promise type
	raw, err := exec.Command(cfp, "--syntax-description", "json").Output()
	if err != nil {
		t.Fatal(err)
	}
	type attrs map[string]struct{ Type string }
	var s struct {
		BundleTypes  map[string]struct{ PromiseTypes []string }
		PromiseTypes map[string]struct{ Attributes attrs }
		BodyTypes    map[string]struct{ Attributes attrs }
	}
	if err := json.Unmarshal(raw, &s); err != nil {
		t.Fatal(err)
	}
	value := func(typ string) string {
		switch {
		case typ == "body":
			return "x"
		case strings.HasSuffix(typ, "list"):
			return `{ "$(x)" }`
		}
		return `"$(x)"` // unexpanded: no type errors
	}
	line := func(ns []string, as attrs) string {
		var b strings.Builder
		for _, n := range ns {
			fmt.Fprintf(&b, "%s => %s; ", n, value(as[n].Type))
		}
		return b.String()
	}
	for _, bt := range slices.Sorted(maps.Keys(s.BodyTypes)) {
		as := s.BodyTypes[bt].Attributes
		name := "b_" + bt
		if slices.Contains([]string{"agent", "common", "executor", "file", "hub", "monitor", "runagent", "server"}, bt) {
			name = "control"
		}
		src := fmt.Sprintf("body %s %s\n{\n%s\nzz_bogus => \"x\";\n}\n", bt, name, line(slices.Sorted(maps.Keys(as)), as))
		want := unknownAttrLines([]byte(src), syntaxVersion)
		if !slices.Equal(want, []string{"4:zz_bogus"}) {
			t.Errorf("body %s: UnknownAttrs says %q", bt, want)
		}
		check("body "+bt, src, want)
	}
	for _, bt := range slices.Sorted(maps.Keys(s.BundleTypes)) {
		for _, pt := range s.BundleTypes[bt].PromiseTypes {
			as := maps.Clone(s.PromiseTypes[pt].Attributes)
			ns := slices.Collect(maps.Keys(as))
			// the attributes of the common types are accepted too
			for _, ct := range syntaxCommonTypes {
				for n, a := range s.PromiseTypes[ct].Attributes {
					if _, ok := as[n]; !ok {
						ns = append(ns, n)
						as[n] = a
					}
				}
			}
			sort.Strings(ns)
			src := fmt.Sprintf("bundle %s b\n{\n%s:\n\"p\"\n%s\nzz_bogus => \"x\";\n}\n", bt, pt,
				strings.ReplaceAll(strings.ReplaceAll(line(ns, as), "; ", ",\n"), ";", ""))
			want := unknownAttrLines([]byte(src), syntaxVersion)
			if len(want) != 1 || !strings.HasSuffix(want[0], ":zz_bogus") {
				t.Errorf("%s in bundle %s: UnknownAttrs says %q", pt, bt, want)
			}
			check(pt+" in bundle "+bt, src, want)
		}
	}
}
