// Package rudder reads what Rudder users have of their policies: the JSON
// of the REST API (/api/latest/rules, /directives, /techniques, /groups,
// with or without the {"action":..., "data":{...}} envelope, as plain
// arrays, or one file holding all of them), the configuration repository
// and archive layout (rules/*.json, directives/**/*.json, groups/**/*.json,
// techniques/**/metadata.xml and technique.yml of the technique editor and
// rudderc). Every value keeps its byte range.
package rudder

// Str is a string value and where it is written (the content, without
// quotes). At is zero-width at the owner's start when the value is absent.
type Str struct {
	Value string
	At    Span
	Set   bool
}

// Rule is a Rudder rule.
type Rule struct {
	ID, Name   Str
	Category   Str
	Directives []Str
	Targets    *Target // nil when the rule has no "targets"
	TargetsAt  Span
	Enabled    bool
	EnabledAt  Span
	System     bool
	Full       Span
}

// Target is a rule target expression: a simple target ("group:ID",
// "special:all", "policyServer:root"), or a composition: include/exclude,
// or/and lists.
type Target struct {
	Simple  Str
	Op      string // "" (simple), "or", "and", "include-exclude"
	Items   []*Target
	Include *Target
	Exclude *Target
}

// Simples lists every simple target inside t.
func (t *Target) Simples() []Str {
	if t == nil {
		return nil
	}
	var out []Str
	var walk func(*Target, int)
	walk = func(t *Target, depth int) {
		if t == nil || depth > MaxDepth {
			return
		}
		if t.Op == "" {
			out = append(out, t.Simple)
			return
		}
		for _, x := range t.Items {
			walk(x, depth+1)
		}
		walk(t.Include, depth+1)
		walk(t.Exclude, depth+1)
	}
	walk(t, 0)
	return out
}

// Directive is a Rudder directive: a technique instance with parameters.
type Directive struct {
	ID, Name         Str
	TechniqueName    Str
	TechniqueVersion Str
	Priority         int // 0..10, 0 = highest; 5 when absent
	PrioritySet      bool
	PriorityAt       Span
	Enabled          bool
	EnabledAt        Span
	System           bool
	PolicyMode       Str
	Vars             []Var
	Full             Span
}

// Var is one directive parameter. Section is the path of section names;
// Instance numbers the occurrences of a multivalued section (0-based) so
// that a name and its content in one "Variable definition" section pair up.
type Var struct {
	Section  string
	Instance int
	Name     Str
	Value    Str
}

// Generation modes of multi-instance techniques (POLICYGENERATION).
const (
	Merged                  = "merged"
	Separated               = "separated"
	SeparatedWithParameters = "separated-with-parameters"
)

// Technique is what the analysis needs of a technique: its id and version,
// whether several directives may use it on one node and how they become
// policies.
type Technique struct {
	ID      Str // technique name as directives spell it ("packageManagement")
	Version Str
	Name    Str // human name
	// MultiInstance and Generation are known only when Known is true
	// (metadata.xml, technique.yml, editor techniques); a bare API listing
	// {"name":..., "versions":[...]} says neither.
	Known         bool
	MultiInstance bool
	Generation    Str
	System        bool
	PolicyTypes   []string
	Source        string // "metadata.xml", "technique.yml", "api"
	Full          Span
}

// Group is a node group (only its identity: rules target groups).
type Group struct {
	ID, Name Str
	Full     Span
}

// Error is a problem reading a file.
type Error struct {
	At   Span
	Code string // "syntax", "shape"
	Msg  string
}

// File is what one file holds.
type File struct {
	Rules      []*Rule
	Directives []*Directive
	Techniques []*Technique
	Groups     []*Group
	Errors     []Error
	Format     string // "api-json", "archive-json", "metadata.xml", "technique.yml"
}
