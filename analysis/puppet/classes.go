package puppet

import (
	"fmt"
	"strings"

	"github.com/ordering-lsp/ordering-lsp/analysis"
	"github.com/ordering-lsp/ordering-lsp/internal/lazyre"
	pp "github.com/ordering-lsp/ordering-lsp/parser/puppet"
	"github.com/ordering-lsp/ordering-lsp/source"
)

// Classes and defined types: declaring a class (include, contain, require,
// class {}) and evaluating class and define bodies.

// declareClass includes/contains/requires/class{}s a class: it enters
// the catalog at its first declaration and its body is evaluated at once.
func (r *run) declareClass(e *env, name string, at source.Span, how string, params []attr) *res {
	name = strings.ToLower(strings.TrimPrefix(name, "::"))
	if name == "" {
		return nil
	}
	ci := r.a.classFor(r, name)
	r.link(linkRec{at: at, class: name})
	if ci == nil {
		r.missedAutoload(name, e)
		r.unknownClass(name, at, e)
		return nil
	}
	if r.rec != nil {
		r.observe('c', name, r.classes[name])
	}
	if c := r.classes[name]; c != nil {
		c.sites = append(c.sites, e.cond)
		if r.rec != nil {
			r.recSite(c, siteEff{class: name, cond: e.cond})
			if how == "class" {
				r.recFail() // the duplicate reads the class's first site
			}
		}
		if how == "class" && !e.spec && !c.spec {
			first := c.site
			if first.IsZero() {
				first = c.decl
			}
			where := ""
			if c.siteHow == "class" {
				// Puppet names the first place only when it was also a
				// resource-like declaration.
				where = fmt.Sprintf(" at (file: %s, line: %s)", r.a.displayPath(first.URI), analysis.LineMark(first))
			}
			r.diagLines(at, analysis.Error, "duplicate",
				fmt.Sprintf("Duplicate declaration: %s is already declared%s; cannot redeclare (file: %s, line: %s)",
					c.display, where, r.a.displayPath(at.URI), analysis.LineMark(at)),
				analysis.Related{At: first, Message: "first declared here (" + c.siteHow + ")"})
		}
		return c
	}
	if r.rec != nil && r.inDefine() {
		r.recFail() // a class body inside a define's: not shared
		return r.newClass(e, ci, name, at, how, params)
	}
	if r.enclosing(e.sc) != r.top {
		r.recFail() // its body sees the node's variables: not shared
		return r.newClass(e, ci, name, at, how, params)
	}
	return r.newClassShared(e, ci, name, at, how, params)
}

// enclosing is the scope whose variables a class or define declared from
// scope s sees after its own: the node scope when it is declared during a
// node block's evaluation (Puppet's Scope#enclosing_scope, the nearest
// node or top scope above the declaration: `node default { $v = 'a'
// include c }` gives c's body $v), else the top scope. A node scope
// holding no variable answers as the top scope does and is left out, so
// the class's evaluation stays shared between runs.
func (r *run) enclosing(s *scope) *scope {
	for ; s != nil; s = s.parent {
		if o := s.owner; o != nil && o.kind == "node" && o.inner == s {
			if s.vars.empty() && len(s.under) == 0 && !s.absent {
				return r.top
			}
			return s
		}
	}
	return r.top
}

// newClass enters a class into the catalog and evaluates its body.
func (r *run) newClass(e *env, ci *classInfo, name string, at source.Span, how string, params []attr) *res {
	if r.depth > maxEvalDepth {
		return nil
	}
	parentScope := r.enclosing(e.sc)
	if ci.def.Parent != "" {
		pe := &env{sc: parentScope, f: ci.file, sym: ci.node, spec: e.spec, cond: e.cond}
		pat := r.span(ci.file, ci.def.ParentLoc)
		if p := r.declareClass(pe, ci.def.Parent, pat, "inherits", nil); p != nil && p.inner != nil {
			parentScope = p.inner
		} else {
			// A parent class we cannot see (a module outside the
			// workspace, reported where it is named): its variables are
			// the body's, unknown here, not undef.
			parentScope = &scope{parent: parentScope, name: ci.def.Parent, absent: true}
		}
	}
	if c := r.classes[name]; c != nil { // declared by its own parent chain
		return c
	}
	c := r.newRes("Class", name, "class", r.span(ci.file, ci.def.NameLoc))
	c.full = ci.file.span(ci.def.Loc)
	c.class = ci
	c.site = at
	c.siteHow = how
	c.scope = e.sc
	c.spec = e.spec
	c.sites = []*cond{e.cond}
	c.container = nil
	c.params = params
	// Stage: explicit metaparameter, else the declaring class's stage.
	c.stage = "main"
	for _, p := range params {
		if p.name == "stage" {
			if s, ok := p.v.text(); ok {
				c.stage = s
			}
		}
	}
	if c.stage == "main" && e.sc.owner != nil && e.sc.owner.kind == "class" && e.sc.owner.stage != "" {
		hasStage := false
		for _, p := range params {
			hasStage = hasStage || p.name == "stage"
		}
		if !hasStage {
			c.stage = e.sc.owner.stage
		}
	}
	for _, p := range params {
		if _, ok := metaparams[p.name]; ok || p.name == "stage" || p.name == "tag" {
			c.attrs = append(c.attrs, p)
		}
	}
	r.add(c)
	r.classes[name] = c
	// Evaluate the body now.
	def := r.a.classDef(ci)
	sc := newBodyScope(parentScope, e.sc, c, name, def.Params, def.Body, 2)
	c.inner = sc
	if r.rec != nil {
		r.recClass(name, c)
		r.recScope(sc)
	}
	sc.vars.set("title", str(name, at))
	sc.vars.set("name", str(name, at))
	ce := &env{sc: sc, f: ci.file, sym: ci.node, spec: e.spec, cond: &cond{root: c}}
	r.bindParams(ce, def.Params, params, at, name)
	r.stmts(ce, def.Body)
	c.more().bodyEnd = r.prio
	r.a.classEvaluated(ci)
	return c
}

// bindParams sets a class's or define's parameters: given values, then
// (classes only) Hiera's automatic parameter lookup of class::param, then
// the defaults.
func (r *run) bindParams(e *env, ps []*pp.Param, given []attr, at source.Span, class string) {
	for _, p := range ps {
		name := strings.TrimPrefix(p.Name, "::")
		set := false
		for _, g := range given {
			if g.name == name {
				e.sc.vars.set(name, g.v)
				set = true
			}
		}
		if set {
			continue
		}
		if class != "" {
			if v, ok := r.a.hieraLookup(class+"::"+name, r.span(e.f, p.Loc)); ok {
				e.sc.vars.set(name, v)
				continue
			}
		}
		if p.Default != nil {
			v := r.eval(e, p.Default)
			if v.k == vUndef && class != "" && !r.strict && rejectsUndef(p.Type) {
				// `String $x = undef`: Puppet refuses the class unless a
				// value comes from elsewhere, so on every node that
				// compiles it comes from data (Hiera, an ENC) we may not
				// see: unknown, never the empty title of undef.
				v = unknown(at)
			}
			e.sc.vars.set(name, v)
		} else {
			e.sc.vars.set(name, unknown(at))
		}
	}
}

// rejectsUndef: a parameter type that undef does not satisfy, as far as
// the core types tell (an alias we cannot see may accept it).
func rejectsUndef(t pp.Node) bool {
	switch x := t.(type) {
	case *pp.TypeRef:
		switch x.Value {
		case "String", "Integer", "Float", "Numeric", "Boolean", "Array", "Hash", "Scalar", "ScalarData",
			"Enum", "Pattern", "Regexp", "Tuple", "Struct", "Collection", "NotUndef", "Sensitive", "Timespan", "Timestamp":
			return true
		}
		return strings.HasPrefix(x.Value, "Stdlib::")
	case *pp.Access:
		tr, ok := x.X.(*pp.TypeRef)
		if !ok {
			return false
		}
		switch tr.Value {
		case "Optional", "Variant", "Any", "Data", "Undef":
			if tr.Value == "Variant" {
				for _, a := range x.Args {
					if !rejectsUndef(a) {
						return false
					}
				}
				return len(x.Args) > 0
			}
			return false
		}
		return rejectsUndef(tr)
	}
	return false
}

// classNameRule is the rule Puppet 7 checks a class reference's title
// against once it is lower-cased and stripped of a leading `::`
// (Patterns::NAME, in the access operator for Class[...]).
var classNameRule = lazyre.New(`\A((::)?[a-z]\w*)(::[a-z]\w*)*\z`)

// illegalClassName reports `Class['include b']`: Puppet stops the
// compilation there (an evaluation error naming the title as written), on
// every node that evaluates it, before any relationship is made.
func (r *run) illegalClassName(e *env, title string, at source.Span) bool {
	name := strings.ToLower(title)
	name = strings.TrimPrefix(name, "::")
	if classNameRule.MatchString(name) {
		return false
	}
	msg := fmt.Sprintf("Evaluation Error: Illegal name. The given name '%s' does not conform to the naming rule /^((::)?[a-z_]\\w*)(::[a-z]\\w*)*$/", title)
	sev := analysis.Error
	if e.spec && !r.strict {
		msg += " (" + r.specWhen(e) + ")"
		sev = analysis.Warning
	}
	r.diag(at, sev, "evaluation", msg)
	return true
}

func (r *run) unknownClass(name string, at source.Span, e *env) {
	var when func() string
	if e.spec && !r.strict {
		when = func() string { return r.specWhen(e) }
	}
	d := r.a.classMissing(name, r.strict, when)
	if d.Severity == analysis.Hint {
		r.absent = true
	}
	r.diag(at, d.Severity, d.Code, d.Message, d.Related...)
}

// classMissing is the diagnostic of a class declared that no code
// defines (no place yet): an error when its module is known (Puppet fails
// every node), else what the module's absence makes of it (a hint when
// code outside the workspace may define it). when words the branch the
// declaration is evaluated under when nobody decides it (nil: every run
// reaches it): Puppet fails only the nodes that take it.
func (a *analyzer) classMissing(name string, strict bool, when func() string) analysis.Diagnostic {
	msg := "Could not find class ::" + name + a.forCert()
	if fi := a.brokenAutoload(name); fi != nil {
		// Puppet stops at the file it loads the class from: its syntax
		// error is the failure (mozilla-cit's unclosed class puppet).
		// (Not its words nor its place: typing in that file moves the
		// error, and a result followed through an edit keeps this one.)
		d := analysis.Diagnostic{Severity: analysis.Error, Code: "unknown-class",
			Message: fmt.Sprintf("%s: %s, where Puppet loads it from, has a syntax error", msg, a.displayPath(fi.uri))}
		if when != nil {
			d.Severity = analysis.Warning
			d.Message += " (" + when() + ")"
		}
		return d
	}
	if fi := a.misplacedAutoload(name); fi != nil {
		// Puppet stops at the file it loads the class from: validating it
		// fails on what it may not define (faust64's relayd::freebsd, whose
		// file defines ospfd::freebsd), reported at that definition.
		d := analysis.Diagnostic{Severity: analysis.Error, Code: "unknown-class",
			Message: fmt.Sprintf("%s: %s, where Puppet loads it from, defines %s, which it may not hold (Unacceptable location)", msg, a.displayPath(fi.uri), fi.misplaced[0].name)}
		if when != nil {
			d.Severity = analysis.Warning
			d.Message += " (" + when() + ")"
		}
		return d
	}
	if ci := a.classes[name]; ci != nil && ci.misplaced {
		// defined where Puppet does not look (the file's name or the
		// class's was changed without the other)
		note, rel := a.notFoundThere(name, ci.file, ci.node.Decl)
		d := analysis.Diagnostic{Severity: analysis.Error, Code: "unknown-class", Message: msg + note, Related: []analysis.Related{rel}}
		if when != nil {
			d.Severity = analysis.Warning
			d.Message += " (" + when() + ")"
		}
		return d
	}
	known := strict || a.moduleKnown(name)
	if known && when == nil {
		return analysis.Diagnostic{Severity: analysis.Error, Code: "unknown-class", Message: msg}
	}
	mod := name
	if i := strings.Index(mod, "::"); i >= 0 {
		mod = mod[:i]
	}
	sev, why, rel, code := analysis.Warning, "", []analysis.Related(nil), "unknown-class"
	if !known {
		sev, why, rel = a.absentModule(mod)
		if a.notInstalled(mod) {
			code = codeNotInstalled
		}
	}
	if when != nil && sev != analysis.Hint {
		// Puppet fails only on the nodes that take this branch. The test is
		// named as written (one message per place, whatever instance of a
		// define or class evaluated it). A hint depends on the absent
		// module, whatever the branch: one message for both.
		if why != "" {
			why += "; "
		}
		why += when()
		if sev == analysis.Error {
			sev = analysis.Warning
		}
	}
	return analysis.Diagnostic{Severity: sev, Code: code, Message: msg + " (" + why + ")", Related: rel}
}

// specWhen words when Puppet reaches a place evaluated under a condition
// we could not decide (e.spec): the innermost branch it is written in;
// else, in a class body, the branch of the place that first declared the
// class (the body is evaluated once, under that declaration's condition:
// a class that os/RedHat.yaml lists is "declared when the node reads
// data/os/RedHat.yaml"), following classes declared in class bodies.
// Every branch named is recorded as read (recNames): a body that names
// its caller's branch is not shared with other callers.
func (r *run) specWhen(e *env) string {
	if bs := e.cond.local(); len(bs) > 0 {
		r.recNames(bs[:1])
		return "only when " + bs[0].words()
	}
	cur := e.cond
	for range 16 {
		c := cur.rootClass()
		if c == nil || c.resMore == nil || len(c.sites) == 0 {
			break
		}
		site := c.sites[0]
		if bs := site.local(); len(bs) > 0 {
			r.recNames(bs[:1])
			return c.display + " is declared when " + bs[0].words()
		}
		cur = site
	}
	return "in a branch that depends on facts"
}

// includeFamily judges an include of a name built from values we do not
// know (facts, mostly): `include "base::install::${facts['os']['family']}"`
// names one of a family of classes. No fact value can make it a class
// that no module defines, so when no class of its module matches, Puppet
// fails wherever it is evaluated; when some match, which one depends on
// the node (a hint naming them, decided by --facts).
func (r *run) includeFamily(e *env, x val, arg pp.Node) {
	r.recNames(e.cond.local()) // guardedByDefined reads them, the message names the innermost
	if r.strict || guardedByDefined(e, arg) {
		return
	}
	pat := strings.ToLower(strings.TrimPrefix(x.s, "::"))
	mod, _, _ := strings.Cut(pat, "::")
	if mod == "" || strings.Contains(mod, "*") || !strings.Contains(pat, "::") {
		return
	}
	matches := r.a.classFamily(pat)
	at := x.at
	if len(matches) > 0 {
		shown := matches
		if len(shown) > 3 {
			shown = shown[:3]
		}
		more := ""
		if len(matches) > 3 {
			more = fmt.Sprintf(" and %d more", len(matches)-3)
		}
		r.diag(at, analysis.Hint, "class-family", fmt.Sprintf("Which class this includes depends on the node: %s matches %s%s; --facts (puppet.facts) decides", pat, strings.Join(shown, ", "), more))
		return
	}
	msg := "Could not find class ::" + pat + r.a.forCert()
	if !r.a.moduleKnown(mod) {
		r.unknownClass(pat, at, e)
		return
	}
	why := fmt.Sprintf("no class of module '%s' matches %s, whatever the facts", mod, pat)
	sev := analysis.Error
	if e.spec {
		sev = analysis.Warning
		why += "; " + r.specWhen(e)
	}
	r.diag(at, sev, "unknown-class", msg+" ("+why+")")
}

// guardedByDefined: the include is inside `if defined(<the same name>)`
// (a control repository's `if defined("role::${role}") { include
// "role::${role}" }`): it is only evaluated where the class exists.
func guardedByDefined(e *env, arg pp.Node) bool {
	want := sourceText(e.f, arg)
	for _, b := range e.cond.local() {
		if b.neg || b.cond == nil {
			continue
		}
		found := false
		pp.Walk(b.cond, func(n pp.Node) bool {
			if c, ok := n.(*pp.Call); ok && c.Name == "defined" && len(c.Args) > 0 && sourceText(b.f, c.Args[0]) == want {
				found = true
			}
			return !found
		})
		if found {
			return true
		}
	}
	return false
}

// evalDefine evaluates a define instance's body (after the main code).
func (r *run) evalDefine(x *res) {
	d := x.define
	sc := newBodyScope(r.enclosing(x.scope), x.scope, x, "", d.def.Params, d.def.Body, 2)
	x.inner = sc
	if r.rec != nil {
		r.recScope(sc)
	}
	at := x.decl
	sc.vars.set("title", str(x.title, at))
	sc.vars.set("name", str(x.title, at))
	if _, ok := x.tryTitlePattern(); ok {
		v := unknown(at)
		sc.vars.set("title", v)
		sc.vars.set("name", v)
	}
	for _, p := range x.params {
		if p.name == "name" {
			sc.vars.set("name", p.v)
		}
	}
	e := &env{sc: sc, f: d.file, sym: d.node, spec: x.spec, cond: x.cond}
	r.bindParams(e, d.def.Params, x.params, at, "")
	r.stmts(e, d.def.Body)
}

func (x *res) tryTitlePattern() (string, bool) {
	if strings.Contains(x.title, "*") {
		return x.title, true
	}
	return "", false
}
