package rudder

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	prs "github.com/ordering-lsp/ordering-lsp/parser/rudder"
	"github.com/ordering-lsp/ordering-lsp/source"

	"github.com/ordering-lsp/ordering-lsp/analysis"
)

type rule struct {
	*prs.Rule
	uri     string
	node    *analysis.Node
	applies bool // targets the node the run is computed for
	dirs    []*directive
}

type technique struct {
	*prs.Technique
	uri     string
	node    *analysis.Node
	builtin bool // from the standard library table, no file
	post    bool // post-action system policy (runs at the end)
}

type directive struct {
	*prs.Directive
	uri   string
	node  *analysis.Node
	tech  *technique
	rules []*rule
	// set by generation
	drafts []*draft
}

type group struct {
	*prs.Group
	uri  string
	node *analysis.Node
}

// draft is one (rule, directive) pair applied to the node: Rudder's
// BoundPolicyDraft.
type draft struct {
	rule *rule
	dir  *directive
	// outcome
	policy    *policy
	rank      int // position of its values inside a merged policy (0-based)
	discarded *draft
	why       string
}

// policy is one entry of the node's final policy list.
type policy struct {
	main   *draft
	merged []*draft // directive values in merge order (merged techniques)
	kind   string   // "unique", "merged", "separated", "separated-with-parameters"
	tech   *technique
	system bool
	post   bool
	index  int
}

// generation is the effective POLICYGENERATION of a multi-instance technique.
func (t *technique) generation() string {
	if t == nil || !t.MultiInstance {
		return "unique"
	}
	switch strings.ToLower(t.Generation.Value) {
	case prs.Separated:
		return prs.Separated
	case prs.SeparatedWithParameters:
		return prs.SeparatedWithParameters
	}
	return prs.Merged
}

// assumption says why a unique technique is only assumed unique: its
// definition is not in the workspace (nor in Rudder's standard library
// table), or only as an API listing, which says nothing of MULTIINSTANCE;
// "" when the workspace or the standard library says it. Conclusions drawn
// from the assumption are information, not warnings (the premise lies
// outside the workspace); fix tells how to make the technique known.
func (t *technique) assumption() (why, fix string) {
	if t == nil || t.Known || t.builtin {
		return "", ""
	}
	const def = "assumed unique (mono-instance), Rudder's default for a technique whose metadata.xml has no MULTIINSTANCE"
	if t.node == nil {
		return fmt.Sprintf("technique '%s' is not in the workspace; %s", t.ID.Value, def),
			"Add the technique's folder (its metadata.xml or technique.yml) or its exported techniques/ID.json to the workspace to make it known"
	}
	return fmt.Sprintf("technique '%s' is in the workspace only as an API listing, which does not say whether it is multi-instance; %s", t.label(), def),
		"Add the technique's folder (its metadata.xml or technique.yml) to the workspace, or \"multiInstance\" on the technique object, to make it known"
}

func (t *technique) isSystem() bool {
	if t == nil {
		return false
	}
	if t.System {
		return true
	}
	for _, p := range t.PolicyTypes {
		if p == "rudder.system" {
			return true
		}
	}
	return false
}

func (t *technique) isPost() bool {
	if t == nil {
		return false
	}
	if t.post {
		return true
	}
	for _, p := range t.PolicyTypes {
		if p == "post-action" {
			return true
		}
	}
	return false
}

// tagOrder is the first of the technique's policy types in sorted order,
// "rudder.base" by default: Rudder keeps policies of one compliance tag
// together (PolicyOrdering.sort).
func (t *technique) tagOrder() string {
	if t.isSystem() {
		return "rudder.system"
	}
	if t == nil || len(t.PolicyTypes) == 0 {
		return "rudder.base"
	}
	best := t.PolicyTypes[0]
	for _, p := range t.PolicyTypes[1:] {
		if p < best {
			best = p
		}
	}
	return best
}

func (t *technique) label() string {
	if t == nil {
		return "?"
	}
	if t.Version.Value != "" {
		return t.ID.Value + "/" + t.Version.Value
	}
	return t.ID.Value
}

// compareFold compares like Java's String.CASE_INSENSITIVE_ORDER, which
// Rudder's BundleOrder uses: character by character, upper-cased then
// lower-cased.
func compareFold(a, b string) int {
	for a != "" && b != "" {
		ra, na := utf8.DecodeRuneInString(a)
		rb, nb := utf8.DecodeRuneInString(b)
		a, b = a[na:], b[nb:]
		if ra == rb {
			continue
		}
		ra, rb = unicode.ToUpper(ra), unicode.ToUpper(rb)
		if ra == rb {
			continue
		}
		ra, rb = unicode.ToLower(ra), unicode.ToLower(rb)
		if ra != rb {
			if ra < rb {
				return -1
			}
			return 1
		}
	}
	switch {
	case a == "" && b == "":
		return 0
	case a == "":
		return -1
	}
	return 1
}

// bundleOrder compares two drafts by (rule name, directive name), Rudder's
// BundleOrder.compareList.
func bundleOrder(a, b *draft) int {
	if c := compareFold(a.rule.Name.Value, b.rule.Name.Value); c != 0 {
		return c
	}
	return compareFold(a.dir.Name.Value, b.dir.Name.Value)
}

// priorityThenBundle is MergePolicyService.priorityThenBundleOrder.
func priorityThenBundle(a, b *draft) int {
	if d := a.dir.Priority - b.dir.Priority; d != 0 {
		return d
	}
	return bundleOrder(a, b)
}

func span(uri string, s prs.Span) source.Span {
	return source.Span{URI: uri, Start: s.Start, End: s.End}
}
