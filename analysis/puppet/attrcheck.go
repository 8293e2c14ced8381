package puppet

import (
	"fmt"
	"strings"

	"github.com/ordering-lsp/ordering-lsp/analysis"
	pp "github.com/ordering-lsp/ordering-lsp/parser/puppet"
)

// Attributes a resource may not have: Puppet refuses the catalog. A type
// Puppet defines knows its parameters, properties and the metaparameters
// (types_gen.go, from Puppet 7.23's own type classes): `file { '/x':
// ensur => present }` fails with "no parameter named 'ensur'" (`name`
// is every type's: the namevar's other name). A defined
// type or a class takes its own parameters, the metaparameters and
// `name`: `d { 'x': b => 2 }` fails with "D[x]: has no parameter named
// 'b'" (puppet-order, both; `title` is no parameter either). A splat
// (`* => $h`) names what we cannot read and is left alone. Types of
// modules (a Ruby type, a vendored core module's cron or mount) are not
// judged: their attributes are not in the table.

// coreAttrs reports, for a body of a type Puppet defines, each attribute
// it does not know, in Puppet's words with the nearest known names.
func (r *run) coreAttrs(e *env, typ string, attrs []*pp.Attr) {
	t := coreTypes[typ]
	if t == nil {
		return
	}
	for _, a := range attrs {
		if t.has(a.Name) || a.Name == "*" {
			continue
		}
		var names []string
		for _, x := range t.attrs {
			names = append(names, x.name)
		}
		for _, x := range metaparamAttrs {
			names = append(names, x.name)
		}
		r.attrDiag(e, a, fmt.Sprintf("no parameter named '%s'", a.Name), names)
	}
}

// paramAttrs reports, for a declaration of a defined type or a class
// (shown as display), each attribute that is none of its parameters.
func (r *run) paramAttrs(e *env, display string, params []*pp.Param, attrs []*pp.Attr) {
	for _, a := range attrs {
		if a.Name == "*" || a.Name == "name" || metaparamNames[a.Name] {
			continue
		}
		found := false
		var names []string
		for _, p := range params {
			n := strings.TrimPrefix(p.Name, "::")
			found = found || n == a.Name
			names = append(names, n)
		}
		if !found {
			r.attrDiag(e, a, fmt.Sprintf("%s: has no parameter named '%s'", display, a.Name), names)
		}
	}
}

// attrDiag reports attribute a: an error, or a warning saying when where
// the declaration is on a branch the analysis cannot decide. The nearest
// names (one or two edits away) are suggested; the quick fix offers them
// (Unresolved: the server asks the completion at the name).
func (r *run) attrDiag(e *env, a *pp.Attr, msg string, names []string) {
	// (as near as the quick fix's names: lsp didYouMean; none for a name
	// of one or two letters, which every short name is near)
	best, bestD := "", max(2, len(a.Name)/2)+1
	for _, n := range names {
		if d := analysis.EditDistance(a.Name, n); d < bestD && len(a.Name) >= 3 {
			best, bestD = n, d
		}
	}
	var why []string
	if best != "" {
		why = append(why, fmt.Sprintf("did you mean '%s'?", best))
	}
	certain := msg
	if len(why) > 0 {
		certain += " (" + strings.Join(why, " ") + ")"
	}
	sev := analysis.Error
	if e.spec {
		sev = analysis.Warning
		why = append(why, r.specWhen(e))
	}
	if len(why) > 0 {
		msg += " (" + strings.Join(why, " ") + ")"
	}
	r.diag(r.span(e.f, a.NameLoc), sev, "unknown-attribute", msg)
	r.diags[len(r.diags)-1].Unresolved = true
	if e.spec {
		r.noteArm(e, certain)
	}
}
