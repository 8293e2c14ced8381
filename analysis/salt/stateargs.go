package salt

import (
	"strings"

	"github.com/ordering-lsp/ordering-lsp/analysis"
	"github.com/ordering-lsp/ordering-lsp/internal/lazyre"
)

//go:generate go run gen_states.go

// stateFunc is a state function Salt defines (states_gen.go).
type stateFunc struct {
	args, doc string
}

// globalArgs are the arguments Salt's state system reads of every state
// (requisites, ordering, conditions), offered after the function's own.
var globalArgs = []string{
	"require", "require_in", "require_any", "watch", "watch_in", "watch_any", "onchanges", "onchanges_in",
	"onchanges_any", "onfail", "onfail_in", "onfail_any", "onfail_all", "onfail_stop", "prereq", "prereq_in",
	"listen", "listen_in", "use", "use_in", "order", "names", "onlyif", "unless", "creates", "check_cmd",
	"retry", "parallel", "failhard", "fire_event", "reload_modules", "reload_grains", "reload_pillar",
}

// funLineRe is a state function's line: `  file.managed:` (its list of
// arguments below it).
var funLineRe = lazyre.New(`^(\s*)([A-Za-z_]\w*\.[A-Za-z_]\w*)\s*:\s*(?:#.*)?$`)

// argItemRe is an argument's name being typed: `    - sou`.
var argItemRe = lazyre.New(`^(\s*)-\s*([A-Za-z_]\w*)?$`)

// argSite finds, for an argument name typed on the line at indent (the
// text above and below that line given), the state function whose list
// it is in and the names the list already has.
func argSite(above, below string, indent int) (fun string, written map[string]bool) {
	fun, written = argsAbove(above, indent)
	if fun == "" {
		return "", nil
	}
	for _, l := range strings.Split(below, "\n") {
		t := strings.TrimSpace(l)
		if t == "" || strings.HasPrefix(t, "#") || strings.HasPrefix(t, "{%") || strings.HasPrefix(t, "{#") {
			continue
		}
		ind := len(l) - len(strings.TrimLeft(l, " "))
		if ind < indent || ind == indent && !strings.HasPrefix(t, "-") {
			break // the list ended
		}
		if ind == indent {
			if k, _, ok := strings.Cut(strings.TrimSpace(t[1:]), ":"); ok {
				written[strings.TrimSpace(k)] = true
			}
		}
	}
	return fun, written
}

func argsAbove(above string, indent int) (fun string, written map[string]bool) {
	written = map[string]bool{}
	linesUp(above, func(l, t string, ind int) bool {
		if ind > indent {
			return false // inside an item
		}
		if ind == indent && strings.HasPrefix(t, "-") {
			if k, _, ok := strings.Cut(strings.TrimSpace(t[1:]), ":"); ok {
				written[strings.TrimSpace(k)] = true
			}
			return false // a sibling item
		}
		if m := funLineRe.FindStringSubmatch(l); m != nil {
			fun = m[2]
		}
		return true
	})
	if fun == "" {
		return "", nil
	}
	return fun, written
}

// argItems lists the arguments of fun (then the global ones) but those
// written: nil when Salt defines no such state function.
func argItems(fun string, written map[string]bool) []analysis.CompletionItem {
	f, ok := stateFuncs[fun]
	if !ok {
		return nil
	}
	var out []analysis.CompletionItem
	for _, a := range strings.Fields(f.args) {
		if !written[a] {
			detail := "argument of " + fun
			if f.doc != "" {
				detail += " — " + f.doc
			}
			out = append(out, analysis.CompletionItem{Label: a, Detail: detail, Attribute: true})
		}
	}
	for _, a := range globalArgs {
		if !written[a] {
			out = append(out, analysis.CompletionItem{Label: a, Detail: "global state argument", Attribute: true})
		}
	}
	return out
}
