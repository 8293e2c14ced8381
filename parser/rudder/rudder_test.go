package rudder

import (
	"strings"
	"testing"
)

func TestJSONSpans(t *testing.T) {
	text := []byte(`{"rules":[{"id":"r1","displayName":"05. é base","directives":["d\u00e91"]}]}`)
	f := ImportJSON(text)
	if len(f.Errors) != 0 || len(f.Rules) != 1 {
		t.Fatalf("errors %v, rules %d", f.Errors, len(f.Rules))
	}
	r := f.Rules[0]
	if got := string(text[r.Name.At.Start:r.Name.At.End]); got != "05. é base" || r.Name.Value != got {
		t.Errorf("name span %q value %q", got, r.Name.Value)
	}
	if r.Directives[0].Value != "dé1" || string(text[r.Directives[0].At.Start:r.Directives[0].At.End]) != `d\u00e91` {
		t.Errorf("escaped id %q", r.Directives[0].Value)
	}
	if r.Full.Start != strings.Index(string(text), `{"id"`) || text[r.Full.End-1] != '}' {
		t.Errorf("full span %v", r.Full)
	}
}

// A file cut at any byte keeps the objects completed before the cut and
// reports where the cut is.
func TestTruncatedJSON(t *testing.T) {
	text := `{"action":"listRules","data":{"rules":[{"id":"a","displayName":"A","directives":[]},{"id":"b","displayName":"B","directives":["x"]}]}}`
	cut := strings.Index(text, `{"id":"b"`) + 12
	f := ImportJSON([]byte(text[:cut]))
	if len(f.Errors) != 1 || f.Errors[0].Code != "syntax" {
		t.Fatalf("errors: %v", f.Errors)
	}
	if !strings.Contains(f.Errors[0].Msg, "truncated export?") {
		t.Errorf("message: %s", f.Errors[0].Msg)
	}
	if len(f.Rules) != 1 || f.Rules[0].ID.Value != "a" {
		t.Errorf("rules kept: %d", len(f.Rules))
	}
	for i := 0; i < len(text); i++ {
		f := ImportJSON([]byte(text[:i]))
		if len(f.Errors) == 0 {
			t.Errorf("cut at %d: no error", i)
		}
		for _, e := range f.Errors {
			if e.At.Start < 0 || e.At.End > i || e.At.Start > e.At.End {
				t.Errorf("cut at %d: span %v", i, e.At)
			}
		}
	}
}

func TestBOM(t *testing.T) {
	f := ImportJSON([]byte("\ufeff{\"rules\":[{\"id\":\"r\",\"directives\":[]}]}"))
	if len(f.Errors) != 0 || len(f.Rules) != 1 {
		t.Errorf("BOM: %v", f.Errors)
	}
}

func TestShapes(t *testing.T) {
	cases := []struct {
		name, text       string
		rules, dirs, tec int
	}{
		{"envelope", `{"action":"listDirectives","result":"success","data":{"directives":[{"id":"d","displayName":"D","techniqueName":"t"}]}}`, 0, 1, 0},
		{"plain array", `[{"id":"d","techniqueName":"t"},{"id":"r","targets":[],"directives":["d"]}]`, 1, 1, 0},
		{"all in one", `{"rules":[{"id":"r","directives":[]}],"directives":[{"id":"d","techniqueName":"t"}],"techniques":[{"name":"t","versions":["1.0","2.0"]}]}`, 1, 1, 2},
		{"archive rule", `{"id":"r","displayName":"R","directives":["a","b"],"targets":[{"include":{"or":["special:all"]},"exclude":{"or":[]}}],"enabled":true}`, 1, 0, 0},
		{"archive directive", `{"id":"d","displayName":"D","techniqueName":"t","techniqueVersion":"1.0","priority":"3"}`, 0, 1, 0},
		{"deleted technique", `{"action":"deleteTechnique","id":"x","result":"success","data":{"techniques":{"id":"x","version":"1.0"}}}`, 0, 0, 1},
		{"error response", `{"action":"ruleDetails","result":"error","errorDetails":"Rule with id 'x' was not found"}`, 0, 0, 0},
	}
	for _, c := range cases {
		f := ImportJSON([]byte(c.text))
		if len(f.Rules) != c.rules || len(f.Directives) != c.dirs || len(f.Techniques) != c.tec {
			t.Errorf("%s: %d rules %d directives %d techniques, errors %v", c.name, len(f.Rules), len(f.Directives), len(f.Techniques), f.Errors)
		}
	}
	f := ImportJSON([]byte(`{"id":"d","displayName":"D","techniqueName":"t","priority":"3"}`))
	if f.Directives[0].Priority != 3 {
		t.Errorf("string priority: %d", f.Directives[0].Priority)
	}
}

// An exported editor technique: multi-instance (one policy per directive
// and its parameters) iff it has parameters, as Rudder's TechniqueWriter
// writes its metadata.xml; the wrapper's "version" is not the technique's.
func TestNCFTechniqueWrapper(t *testing.T) {
	cases := []struct {
		name, text, id, version string
		multi                   bool
	}{
		{"rudder-synchronize", `{"data":{"bundle_args":["p"],"bundle_name":"my_tech","method_calls":[],"name":"My tech","parameter":[{"id":"p1","name":"p"}],"version":"1.0"},"type":"ncf_technique","version":"1"}`, "my_tech", "1.0", true},
		{"editor export 7", `{"type":"ncf_technique","version":"3.0","data":{"id":"t2","version":"2.0","name":"T2","parameter":[],"calls":[]}}`, "t2", "2.0", false},
		{"editor export 8", `{"type":"ncf_technique","version":"4.0","data":{"id":"t3","version":"1.1","name":"T3","parameters":[{"id":"x","name":"x"}],"calls":[]}}`, "t3", "1.1", true},
	}
	for _, c := range cases {
		f := ImportJSON([]byte(c.text))
		if len(f.Errors) != 0 || len(f.Techniques) != 1 || len(f.Directives) != 0 || len(f.Rules) != 0 {
			t.Errorf("%s: errors %v, %d techniques", c.name, f.Errors, len(f.Techniques))
			continue
		}
		tc := f.Techniques[0]
		want := Separated
		if c.multi {
			want = SeparatedWithParameters
		}
		if tc.ID.Value != c.id || tc.Version.Value != c.version || !tc.Known || tc.MultiInstance != c.multi || tc.Generation.Value != want {
			t.Errorf("%s: technique %+v", c.name, tc)
		}
	}
}

func TestMetadataXML(t *testing.T) {
	text := "<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?>\n<!-- c -->\n<TECHNIQUE name=\"Paquets é\">\n  <MULTIINSTANCE>TRUE</MULTIINSTANCE>\n  <POLICYGENERATION> separated </POLICYGENERATION>\n  <SECTIONS><SECTION name=\"x\"><MULTIINSTANCE>false</MULTIINSTANCE></SECTION></SECTIONS>\n</TECHNIQUE>\n"
	f := ImportMetadataXML("techniques/apps/packageManagement/1.3/metadata.xml", []byte(text))
	if len(f.Errors) != 0 || len(f.Techniques) != 1 {
		t.Fatalf("errors %v", f.Errors)
	}
	tc := f.Techniques[0]
	if tc.ID.Value != "packageManagement" || tc.Version.Value != "1.3" || !tc.MultiInstance || tc.Generation.Value != "separated" {
		t.Errorf("technique %+v", tc)
	}
	if got := text[tc.Name.At.Start:tc.Name.At.End]; got != "Paquets é" {
		t.Errorf("name span %q", got)
	}
	if got := text[tc.Generation.At.Start:tc.Generation.At.End]; got != "separated" {
		t.Errorf("generation span %q", got)
	}
}

func TestTechniqueYAML(t *testing.T) {
	text := "id: ntp_technique\nname: \"NTP\"\nversion: \"0.1\"\nparams:\n  - name: server\nitems: []\n"
	f := ImportTechniqueYAML("x/technique.yml", []byte(text))
	if len(f.Techniques) != 1 {
		t.Fatalf("errors %v", f.Errors)
	}
	tc := f.Techniques[0]
	if !tc.MultiInstance || tc.Generation.Value != SeparatedWithParameters || text[tc.Name.At.Start:tc.Name.At.End] != "NTP" {
		t.Errorf("technique %+v", tc)
	}
	if f := ImportTechniqueYAML("x/technique.yml", []byte("id: [\n")); len(f.Errors) != 1 {
		t.Errorf("bad yaml: %v", f.Errors)
	}
}

// policy_types is what rudderc copies into the metadata.xml's POLICY_TYPES.
func TestTechniqueYAMLPolicyTypes(t *testing.T) {
	f := ImportTechniqueYAML("x/technique.yml", []byte("id: x\nversion: '1.0'\npolicy_types:\n  - zz.late\n  - \"rudder.system\"\nitems: []\n"))
	if len(f.Errors) != 0 || len(f.Techniques) != 1 {
		t.Fatalf("errors %v", f.Errors)
	}
	if got := strings.Join(f.Techniques[0].PolicyTypes, ","); got != "zz.late,rudder.system" {
		t.Errorf("policy types %q", got)
	}
	text := "id: x\nversion: '1.0'\npolicy_types: zz.late\nitems: []\n"
	f = ImportTechniqueYAML("x/technique.yml", []byte(text))
	if len(f.Errors) != 1 || f.Errors[0].Code != "shape" || text[f.Errors[0].At.Start:f.Errors[0].At.End] != "zz.late" {
		t.Errorf("a string instead of a list: %v", f.Errors)
	}
	if len(f.Techniques) != 1 || len(f.Techniques[0].PolicyTypes) != 0 {
		t.Errorf("technique kept without policy types: %+v", f.Techniques)
	}
}

func TestDetect(t *testing.T) {
	cases := []struct{ path, head, want string }{
		{"a/rules.json", `{"action":"listRules","data":{"rules":[`, "json"},
		{"a/.eslintrc.json", `{"extends":"x","rules":{"semi":"error"}}`, ""},
		{"a/package.json", `{"name":"x","version":"1.0"}`, ""},
		{"t/x/1.0/metadata.xml", `<TECHNIQUE name="x">`, "metadata.xml"},
		{"t/metadata.xml", `<project>`, ""},
		{"t/technique.yml", "id: x\nversion: '1.0'\n", "technique.yml"},
		{"d/x.json", `{"id":"d","displayName":"D","techniqueName":"t","techniqueVersion":"1.0"}`, "json"},
		{"d/y.json", `{"id":"d","techniqueName":"t","techniqueVersion":"1.0"}`, "json"},
		// exported editor techniques: rudder-synchronize (keys sorted, "type"
		// may lie past the head) and the technique editor's export
		{"s/techniques/t.json", "{\n  \"data\": {\n    \"bundle_args\": [],\n    \"bundle_name\": \"t\",\n", "json"},
		{"s/t.json", `{"type":"ncf_technique","version":"3.0","data":{"id":"t"`, "json"},
		{"s/other.json", `{"data":{"id":"x","type":"metric"},"type":"chart"}`, ""},
		// a MITRE ATT&CK list (security repositories): no Rudder
		{"m/ttp.json", `[{"id":"T1190","techniqueId":"T1190","techniqueName":"Exploit Public-Facing Application"}]`, ""},
	}
	for _, c := range cases {
		if got := Detect(c.path, []byte(c.head)); got != c.want {
			t.Errorf("%s: %q want %q", c.path, got, c.want)
		}
	}
}

func FuzzImportJSON(f *testing.F) {
	f.Add([]byte(`{"action":"listRules","data":{"rules":[{"id":"r","displayName":"R","directives":["d"],"targets":[{"include":{"or":["special:all"]},"exclude":{"or":[]}}]}]}}`))
	f.Add([]byte(`[{"id":"d","techniqueName":"t","parameters":{"section":{"name":"s","vars":[{"var":{"name":"A","value":"b"}}],"sections":[{"section":{"name":"x"}}]}}}]`))
	f.Add([]byte(`{"rules":[],"directives":[],"techniques":[{"name":"t","versions":["1"]}],"groups":[{"id":"g"}]}`))
	f.Add([]byte(`{"data":{"bundle_name":"t","parameter":[{"id":"p"}],"version":"1.0"},"type":"ncf_technique","version":"1"}`))
	f.Add([]byte(`"\ud83d\ude00" [1e5, -0.5, true, null]`))
	f.Fuzz(func(t *testing.T, b []byte) {
		file := ImportJSON(b)
		for _, e := range file.Errors {
			if e.At.Start < 0 || e.At.End > len(b) || e.At.Start > e.At.End {
				t.Fatalf("bad error span %v in %d bytes", e.At, len(b))
			}
		}
		for _, r := range file.Rules {
			if r.Name.At.End > len(b) || r.Full.End > len(b) {
				t.Fatalf("bad span")
			}
		}
	})
}

func FuzzImportMetadataXML(f *testing.F) {
	f.Add([]byte("<TECHNIQUE name=\"x\">\n<MULTIINSTANCE>true</MULTIINSTANCE><POLICYGENERATION>merged</POLICYGENERATION></TECHNIQUE>"))
	f.Add([]byte("<TECHNIQUE name='x'><SYSTEM>true</SYSTEM><POLICY_TYPES>a,b</POLICY_TYPES>"))
	f.Fuzz(func(t *testing.T, b []byte) {
		file := ImportMetadataXML("techniques/c/t/1.0/metadata.xml", b)
		for _, e := range file.Errors {
			if e.At.Start < 0 || e.At.End > len(b) || e.At.Start > e.At.End {
				t.Fatalf("bad error span %v in %d bytes", e.At, len(b))
			}
		}
		for _, tc := range file.Techniques {
			if tc.Name.At.End > len(b) || tc.Generation.At.End > len(b) || tc.Generation.At.Start > tc.Generation.At.End {
				t.Fatalf("bad span %v %v", tc.Name.At, tc.Generation.At)
			}
		}
	})
}

func FuzzImportTechniqueYAML(f *testing.F) {
	f.Add([]byte("id: x\nname: \"X\"\nversion: '1.0'\nparams:\n  - name: p\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		file := ImportTechniqueYAML("t/technique.yml", b)
		for _, tc := range file.Techniques {
			if tc.Name.At.End > len(b) || tc.Name.At.Start > tc.Name.At.End {
				t.Fatalf("bad span %v", tc.Name.At)
			}
		}
	})
}

func FuzzImportRepoXML(f *testing.F) {
	f.Add([]byte(`<rule fileFormat="6"><id>r</id><displayName>R</displayName><targets><target>{"include":{"or":["special:all"]},"exclude":{"or":[]}}</target><target>group:g</target></targets><directiveIds><id>d</id></directiveIds><isEnabled>true</isEnabled></rule>`))
	f.Add([]byte(`<directive fileFormat="6"><id>d</id><section name="sections"><section name="x"><var name="A">1 &amp; 2</var></section></section><priority>3</priority></directive>`))
	f.Add([]byte(`<rule fileFormat="6"><id>r</id><targets><target>{&quot;or&quot;:[&quot;group:g&quot;]}</target></targets></rule>`))
	f.Fuzz(func(t *testing.T, b []byte) {
		file := ImportRepoXML(b)
		for _, e := range file.Errors {
			if e.At.Start < 0 || e.At.End > len(b) || e.At.Start > e.At.End {
				t.Fatalf("bad error span %v in %d bytes", e.At, len(b))
			}
		}
		for _, r := range file.Rules {
			for _, s := range append(r.Targets.Simples(), r.Name, r.ID) {
				if s.At.Start < 0 || s.At.End > len(b) || s.At.Start > s.At.End {
					t.Fatalf("bad span %v", s.At)
				}
			}
		}
	})
}
