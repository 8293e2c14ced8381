package chef

import (
	"strings"
	"testing"
)

func TestSplitStatements(t *testing.T) {
	src := `name "x" # comment
run_list "a",
         "b"
if ENV["X"]
  cookbook "c" if true
  [1].each do |i|
    puts i
  end
end
while x do
  y
end
foo = bar
  .baz
default["a"] = { "k" =>
  1 }
x = <<~EOS
  not ( a statement
EOS
cookbook "d"; cookbook "e"
`
	toks := Scan([]byte(src))
	var got []string
	for _, c := range Split([]byte(src), toks) {
		got = append(got, strings.Fields(src[c.Start:c.End])[0])
		if c.Unbalanced != "" {
			t.Errorf("unbalanced: %s", c.Unbalanced)
		}
	}
	want := `name run_list if while foo default["a"] x cookbook cookbook`
	if strings.Join(got, " ") != want {
		t.Errorf("statements = %s\nwant         %s", strings.Join(got, " "), want)
	}
}

func TestParseDSL(t *testing.T) {
	src := []byte(`name 'web'
default_source :chef_repo, "../" do |s|
  s.preferred_for "a", "b"
end
run_list ["nginx", "recipe[app::web]"], %w(x y::z)
named_run_list :deploy, "app::deploy"
cookbook "app", "~> 1.2", path: "cookbooks/app"
cookbook "git1", :git => "https://x/y.git", :branch => "main"
include_policy "base", path: "./base.lock.json", policy_revision_id: "abcdef"
default["a"]["b"] = "v-#{x}"
override[:c] = { "d" => [1, true, nil, :s], e: -2 }
`)
	f := Parse(src)
	for _, d := range f.Diags {
		t.Errorf("diag: %s", d.Message)
	}
	p := Read(src, f)
	if p.Name.Text != "web" || string(src[p.Name.Start:p.Name.End]) != "'web'" {
		t.Errorf("name = %+v", p.Name)
	}
	if len(p.Sources) != 1 || p.Sources[0].Type != "chef_repo" || strings.Join(p.Sources[0].Preferred, ",") != "a,b" {
		t.Errorf("sources = %+v", p.Sources[0])
	}
	var labels []string
	for _, it := range p.RunList.Items {
		labels = append(labels, it.Label)
		if string(src[it.Start:it.End]) != `"`+it.Raw+`"` && !strings.Contains(string(src[it.Start:it.End]), it.Raw) {
			t.Errorf("span of %s = %q", it.Raw, src[it.Start:it.End])
		}
	}
	if got := strings.Join(labels, " "); got != "recipe[nginx::default] recipe[app::web] recipe[x::default] recipe[y::z]" {
		t.Errorf("run list = %s", got)
	}
	if len(p.NamedRunLists) != 1 || p.NamedRunLists[0].Name != "deploy" {
		t.Errorf("named = %+v", p.NamedRunLists)
	}
	if len(p.Cookbooks) != 2 || p.Cookbooks[0].Constraint.Text != "~> 1.2" || p.Cookbooks[0].Opts["path"].Text != "cookbooks/app" || p.Cookbooks[1].Opts["branch"].Text != "main" {
		t.Errorf("cookbooks = %+v %+v", p.Cookbooks[0], p.Cookbooks[1])
	}
	if len(p.Includes) != 1 || p.Includes[0].Opts["policy_revision_id"].Text != "abcdef" {
		t.Errorf("includes = %+v", p.Includes)
	}
	if len(p.Attrs) != 2 || !p.Attrs[0].Value.Pattern || p.Attrs[0].Value.Text != "v-#{x}" {
		t.Errorf("attr 0 = %+v", p.Attrs[0].Value)
	}
	h := p.Attrs[1].Value
	if h.Kind != VHash || h.String() != `{"d"=>[1, true, nil, :s], :e=>-2}` {
		t.Errorf("hash = %s", h.String())
	}
}

func TestSkippedRuby(t *testing.T) {
	src := []byte("x = 1\nrun_list File.read('x').lines\nunless y\n  name 'q'\nend\nrun_list 'ok'\n")
	f := Parse(src)
	p := Read(src, f)
	if p.RunList == nil || len(p.RunList.Items) != 1 || p.RunList.Items[0].Raw != "ok" {
		t.Fatalf("run list = %+v", p.RunList)
	}
	infos := 0
	for _, d := range f.Diags {
		if d.Severity == Info {
			infos++
		}
	}
	if infos != 2 {
		t.Errorf("%d info diagnostics, want 2: %+v", infos, f.Diags)
	}
}

func TestParseLockOffsets(t *testing.T) {
	src := []byte(`{"name": "base", "revision_id": "r1",
 "run_list": ["recipe[a::default]", "recipe[b::c]"],
 "included_policy_locks": [{"name": "x", "revision_id": "r0", "source_options": {"path": "../x.lock.json"}}],
 "cookbook_locks": {"a": {"version": "1.2.3", "source_options": {"path": "."}}},
 "solution_dependencies": {"Policyfile": [["a", ">= 0.0.0"]], "dependencies": {"a (1.2.3)": [["b", "~> 1.0"]]}}}`)
	l, err := ParseLock(src)
	if err != nil {
		t.Fatal(err)
	}
	if got := string(src[l.RunList[1].Start:l.RunList[1].End]); got != `"recipe[b::c]"` {
		t.Errorf("run list span = %s", got)
	}
	if l.Included[0].SourceOptions["path"] != "../x.lock.json" || l.Included[0].RevisionID != "r0" {
		t.Errorf("included = %+v", l.Included)
	}
	if got := string(src[l.CookbookLocks[0].Start:l.CookbookLocks[0].End]); got != `"a"` {
		t.Errorf("cookbook key span = %s", got)
	}
	if v := l.SolutionVersions()["a"]; v != "1.2.3" {
		t.Errorf("version = %s", v)
	}
	if _, err := ParseLock([]byte(`{"a": [1, 2,]}`)); err == nil {
		t.Error("bad JSON accepted")
	} else if se, ok := err.(*SyntaxError); !ok || se.Offset != 12 {
		t.Errorf("error = %#v", err)
	}
}

func TestRunItem(t *testing.T) {
	for raw, want := range map[string]string{
		"nginx":                 "recipe[nginx::default]",
		"nginx::server":         "recipe[nginx::server]",
		"recipe[nginx]":         "recipe[nginx::default]",
		"recipe[nginx::server]": "recipe[nginx::server]",
		"recipe[nginx@1.2.3]":   "recipe[nginx::default]",
		"nginx::server@1.0.0":   "recipe[nginx::server]",
	} {
		if got := ParseRunItem(raw).Label; got != want {
			t.Errorf("%s -> %s, want %s", raw, got, want)
		}
	}
	if ParseRunItem("nginx").Key() == ParseRunItem("nginx::default").Key() {
		t.Error(`"nginx" and "nginx::default" are different run-list items to chef`)
	}
	if ParseRunItem("nginx").Key() != ParseRunItem("recipe[nginx]").Key() {
		t.Error(`"nginx" and "recipe[nginx]" are the same run-list item`)
	}
}

func checkSpans(t *testing.T, src []byte, f *File, p *Policy) {
	n := len(src)
	ok := func(s, e int) bool { return 0 <= s && s <= e && e <= n }
	for _, d := range append(f.Diags, p.Diags...) {
		if !ok(d.Start, d.End) {
			t.Fatalf("diag span %d..%d out of %d", d.Start, d.End, n)
		}
	}
	for _, st := range f.Stmts {
		if !ok(st.Start, st.End) {
			t.Fatalf("statement span %d..%d out of %d", st.Start, st.End, n)
		}
	}
	if p.RunList != nil {
		for _, it := range p.RunList.Items {
			if !ok(it.Start, it.End) {
				t.Fatalf("item span %d..%d out of %d", it.Start, it.End, n)
			}
		}
	}
}

func FuzzPolicyfile(f *testing.F) {
	for _, s := range []string{
		"name 'x'\nrun_list 'a', ['b']\n",
		"default['a']['b'] = { 'c' => [1, :d, nil] }\n",
		"include_policy 'b', path: './b.lock.json'\ncookbook 'c', '~> 1.0', git: 'x', branch: 'y'\n",
		"if x\n  run_list 'a'\nend\n[1].each do |x| end\n",
		"default_source :supermarket do |s|\n s.preferred_for 'a'\nend\n",
		"x = <<~EOS\n body\nEOS\nrun_list %w(a b)\n",
		"run_list \"#{x}\" , /re/, `cmd`, :sym, 1.5e3\n",
		"=begin\nx\n=end\n__END__\nrest",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		p := NewParser()
		file := p.Parse(src)
		pol := Read(src, file)
		checkSpans(t, src, file, pol)
	})
}

func FuzzLock(f *testing.F) {
	f.Add([]byte(`{"name": "a", "run_list": ["recipe[a]"], "cookbook_locks": {"a": {"version": "1.0.0"}}}`))
	f.Add([]byte(`{"included_policy_locks": [{"name": "b", "source_options": {"path": "x"}}], "solution_dependencies": {"dependencies": {"a (1.0.0)": [["b", ">= 0"]]}}}`))
	f.Add([]byte(`[1, {"a": null}, true, "x"]`))
	f.Fuzz(func(t *testing.T, src []byte) {
		l, err := ParseLock(src)
		if err != nil {
			if se, ok := err.(*SyntaxError); ok && (se.Offset < 0 || se.Offset > len(src)) {
				t.Fatalf("error offset %d out of %d", se.Offset, len(src))
			}
			return
		}
		for _, it := range l.RunList {
			if it.Start < 0 || it.End > len(src) || it.Start > it.End {
				t.Fatalf("bad span %+v", it)
			}
		}
		_ = l.SolutionVersions()
	})
}

// `.tap` blocks are a common way to set nested attributes in real
// Policyfiles (jtimberman/housepub-ng, lightspeedretail/chef-common_*).
func TestTapAttributes(t *testing.T) {
	src := []byte(`default[:common_auth].tap do |auth|
  auth[:users][:data_bag] = "auth_users"

  auth[:sudoers][:ubuntu].tap do |sudoer|
    sudoer[:nopasswd] = true # comment
  end
end
default['x'].tap { |y| y['z'] = [1] }
override['r'].tap do |r|
  puts r
end
`)
	f := Parse(src)
	p := Read(src, f)
	var got []string
	for _, a := range p.Attrs {
		ks := a.Level
		for _, k := range a.Keys {
			ks += "[" + k.Text + "]"
		}
		got = append(got, ks+"="+a.Value.String())
	}
	want := `default[common_auth][users][data_bag]="auth_users" default[common_auth][sudoers][ubuntu][nopasswd]=true default[x][z]=[1]`
	if strings.Join(got, " ") != want {
		t.Errorf("attributes = %s\nwant         %s", strings.Join(got, " "), want)
	}
	if len(p.Diags) != 1 || p.Diags[0].Severity != Info {
		t.Errorf("the tap block with other Ruby should be one information: %+v", p.Diags)
	}
}

func TestDecodeString(t *testing.T) {
	for lit, want := range map[string]string{
		`'a\'b\\c\n'`:  `a'b\c\n`,
		`"a\tb"`:       "a\tb",
		`"caf\u00e9"`:  "café",
		`"\u{1F600}!"`: "😀!",
		`"\x41B"`:      "AB",
		`%q(it's)`:     "it's",
		`"#{x}-y"`:     "#{x}-y",
	} {
		if got, _ := decodeString(lit); got != want {
			t.Errorf("decodeString(%s) = %q, want %q", lit, got, want)
		}
	}
}

// TestRubySyntaxError: each case checked with `ruby -c` (Ruby 3.1): the
// invalid ones are syntax errors, the valid ones must not be reported.
func TestRubySyntaxError(t *testing.T) {
	invalid := map[string]string{ // source: the offending token
		`p :a :b`:       `:b`,
		`p 1 2`:         `2`,
		`p "a" :b`:      `:b`,
		`p :a "b"`:      `"b"`,
		`p 1 :b`:        `:b`,
		`p :a 1.5`:      `1.5`,
		`p %w[a] :b`:    `:b`,
		`p :"a" :b`:     `:b`,
		`p "#{1}" :a`:   `:a`,
		`p "x", => "y"`: `=>`,
		"p(1,\n => 2)":  `=>`,
		`x = { => 1}`:   `=>`,
		`p 1 => 2 => 3`: ``, // a second `=>` after a value: not caught
		`x = [:a :b]`:   `:b`,
		`p 1.0e3 :a`:    `:a`,
		`p :a? :b`:      `:b`,
		"p `a` :b":      `:b`,
		`p [1] :a`:      ``, // not caught: only literals side by side
		`p(:a) :b`:      ``,
		`p :a?:b`:       ``, // no blank between: not caught
		`p 1:b`:         ``,
		"p :a \\\n :b":  ``, // a line continuation between: not caught
	}
	valid := []string{
		`p(true ? 1 :c)`, `p(true ? :a :b)`, `p "a" "b"`, `p 'a' 'b'`, `p 1 -2`, `p :a, :b`,
		`alias :a :b`, `x={"a":1}`, `p "a":1`, `p 1 if :a`, `foo :a do :b end`, `p :a=>:b`,
		`p :a=> :b`, `p "a" %w[b]`, `p => x`, `p :a [1]`, "p :a\n:b",
	}
	for src, want := range invalid {
		toks := Scan([]byte(src))
		i, _, ok := rubySyntaxError([]byte(src), toks)
		got := ""
		if ok {
			got = toks[i].Text([]byte(src))
		}
		if got != want {
			t.Errorf("%q: syntax error at %q, want %q", src, got, want)
		}
	}
	for _, src := range valid {
		toks := Scan([]byte(src))
		if i, word, ok := rubySyntaxError([]byte(src), toks); ok {
			t.Errorf("%q is valid Ruby, reported unexpected %s at %q", src, word, toks[i].Text([]byte(src)))
		}
	}
}

// Ruby 2.2's string labels (`'compliance': 'admin/x'`) are symbol keys:
// first-org-chef-repo/aws-policyfiles writes attribute hashes so, and the
// statement was skipped as Ruby the reader did not understand. A ternary's
// colon after a blank stays a ternary.
func TestStringLabels(t *testing.T) {
	src := []byte("default['audit']['profiles']['ssh'] = {\n  'compliance': 'admin/ssh-baseline',\n  \"version\": '1.0.0'\n}\n")
	f := Parse(src)
	p := Read(src, f)
	if len(f.Diags) != 0 || len(p.Attrs) != 1 || p.Attrs[0].Value.Kind != VHash {
		t.Fatalf("diags %+v, attrs %+v", f.Diags, p.Attrs)
	}
	var keys []string
	for _, kv := range p.Attrs[0].Value.Pairs {
		keys = append(keys, kv.Key.Text+"@"+string(src[kv.Key.Start:kv.Key.End]))
	}
	if got := strings.Join(keys, " "); got != "compliance@compliance version@version" {
		t.Errorf("keys %q", got)
	}
	toks := Scan([]byte("x = c ? 'a' : 'b'\n"))
	for _, tk := range toks {
		if tk.Kind == KLabel {
			t.Errorf("a ternary's string read as a label: %+v", tk)
		}
	}
}
