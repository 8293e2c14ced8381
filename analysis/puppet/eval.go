package puppet

import (
	"strconv"
	"strings"

	"github.com/ordering-lsp/ordering-lsp/analysis"
	pp "github.com/ordering-lsp/ordering-lsp/parser/puppet"
	"github.com/ordering-lsp/ordering-lsp/source"
)

// Limits that keep pathological manifests (a define declaring itself, a
// class graph that explodes) from hanging the server.
const (
	maxResources  = 500000
	maxEvalDepth  = 200
	maxDefineGens = 100
	maxIter       = 10000
	// maxDefineEvals bounds defined-type bodies evaluated in one run.
	maxDefineEvals = 20000
)

var metaparams = map[string]analysis.EdgeKind{"before": analysis.Order, "require": analysis.Order, "notify": analysis.Refresh, "subscribe": analysis.Refresh}

// res is a resource in the simulated catalog: a plain resource, or a
// container (class, define instance, stage, node, Class[main]).
type res struct {
	typ, title string
	key        string // Type[canonical title]
	display    string // Type[title] as Puppet prints it
	kind       string // "resource", "class", "define", "stage", "node", "main"
	prio       int
	virtual    bool
	exported   bool
	realized   bool
	spec       bool // declared in a branch whose condition we could not decide
	synthetic  bool
	pat        bool  // the title is a pattern (built from unknown values)
	hasChild   bool  // a container something is in (buildRun)
	tagAttr    bool  // a `tag` attribute is written (add); only then does selfTagged look for it
	cond       *cond // the branches it was declared in (see cond.go)
	attrs      []attr
	decl       source.Span
	full       span   // the whole declaration (a 32-byte source.Span made res 288 bytes, not 256)
	tmpl       int32  // a recording's template: its index in defEntry.res + 1 (tmplIdx), in full's padding
	scope      *scope // the scope it was declared in
	inner      *scope // for containers: the scope of its body
	container  *res   // lexical container
	parentSym  *analysis.Node
	// define instances / classes: their definition
	define *defineInfo
	class  *classInfo
	// graph
	node, begin, end *analysis.Node
	// Classes and define instances always have it (newRes, declare);
	// others only once declared twice or contained (alternative, contain).
	*resMore
}

// resMore is what only some resources carry: a 100k-resource catalog
// held 160 bytes of empty fields per resource without it.
type resMore struct {
	sites   []*cond     // classes: where each declaration of it was written
	alts    []*cond     // resources: where it was declared again (other branches, ensure_resource)
	also    []*res      // extra containers (contain)
	params  []attr      // classes and define instances: the parameters given
	stage   string      // classes
	site    source.Span // where a class was first declared
	siteHow string      // include, contain, require, class, inherits
	tags    bodyTags    // classes and define instances: bodyTagged's memo
	// bodyEnd: a class's last catalog position once its body was
	// evaluated (what a resource added at the body's end comes after:
	// patchplan.go)
	bodyEnd int
}

// more is x's resMore, made when first needed.
func (x *res) more() *resMore {
	if x.resMore == nil {
		x.resMore = &resMore{}
	}
	return x.resMore
}

// alternatives are the other places x was declared.
func (x *res) alternatives() []*cond {
	if x.resMore == nil {
		return nil
	}
	return x.alts
}

// extraContainers are the classes that contain x besides its own.
func (x *res) extraContainers() []*res {
	if x.resMore == nil {
		return nil
	}
	return x.also
}

func (r *res) attr(name string) (attr, bool) {
	for i := len(r.attrs) - 1; i >= 0; i-- {
		if r.attrs[i].name == name && r.attrs[i].from == written {
			return r.attrs[i], true
		}
	}
	return attr{}, false
}

// anyAttr finds an attribute whether written, defaulted or overridden.
func (r *res) anyAttr(name string) (attr, bool) {
	for i := len(r.attrs) - 1; i >= 0; i-- {
		if r.attrs[i].name == name {
			return r.attrs[i], true
		}
	}
	return attr{}, false
}

type attr struct {
	name   string
	v      val
	nameAt span
	at     span // the value
	plus   bool // written with +> (appends to a default)
	from   attrFrom
	// seq: for a default (byDefault), the run's prio when the default
	// statement was evaluated: it reaches only resources created after
	// it (prio > seq), as Puppet 7 looks defaults up when it creates a
	// resource. (It fits in the attr's padding: still 144 bytes.)
	seq int32
}

// attrFrom says where an attribute comes from.
type attrFrom uint8

const (
	written    attrFrom = iota // in the resource's body
	byDefault                  // a resource default (File { ... })
	byOverride                 // an override or collector (File['x'] { ... })
)

type scope struct {
	vars     varMap
	under    []*varMap // layers below vars while speculating
	parent   *scope    // variable lookup
	dyn      *scope    // resource defaults (dynamic scoping)
	defaults map[string][]attr
	owner    *res
	name     string // class name, for $name::var
	tmpl     int32  // a recording's template: its index in defEntry.tscopeList + 1 (tmplIdx)
	// absent: the scope of a parent class nothing here defines (`inherits
	// base` of a module outside the workspace); it may set any variable
	absent bool
}

func newScope(parent, dyn *scope, owner *res, name string) *scope {
	return &scope{parent: parent, dyn: dyn, owner: owner, name: name}
}

// newBodyScope is newScope for a body with parameters: its variable map
// is sized for them and the body's top-level assignments (growing a map
// of values is a good part of evaluating a class).
func newBodyScope(parent, dyn *scope, owner *res, name string, params []*pp.Param, body []pp.Node, extra int) *scope {
	n := len(params) + extra
	for _, st := range body {
		if b, ok := st.(*pp.Binary); ok && b.Op == "=" {
			n++
		}
	}
	return &scope{vars: newVarMap(n), parent: parent, dyn: dyn, owner: owner, name: name}
}

type env struct {
	sc   *scope
	f    *fileInfo
	sym  *analysis.Node // symbol parent for resource nodes
	spec bool
	cond *cond // the undecided branches being evaluated (see cond.go)
}

type relation struct {
	op                string
	left, right       val
	leftTxt, rightTxt string
	at                source.Span
	cond              *cond
}

type linkRec struct {
	at    source.Span
	refs  []*ref
	class string // class name target
	def   string // define name target
}

// run simulates one compilation: `puppet apply` of an entry file, or of a
// synthetic `include x`.
type run struct {
	a          *analyzer
	name       string
	entry      string
	prio       int
	resources  []*res
	byKey      map[string]*res
	tagMemo    map[string]map[*res]bool // tag -> body -> has it (bodyTagged, bodies without bodyTags)
	tagIDs     map[string]int           // collectors' tags, numbered for bodyTags
	tagNames   []string                 // by number
	tagStamp   uint32                   // marks the bodyTags this run wrote (tagStamps)
	typeTags   map[string]typeTags      // selfTagBits' answers for types
	replayCp   *copier                  // replay's maps, reused (replayCopier)
	aliases    map[string]*res
	probes     []uint32 // probeHash of keys looked for (runSnap.probes: a patch asks whether a key was)
	probing    bool     // (a snapshot is kept for patches)
	building   bool     // the catalog is evaluated: buildRun's lookups
	patRefs    []string // the references whose titles we cannot read, "Type[glob]", asked for their targets (resolvePattern)
	classes    map[string]*res
	pending    []*res
	cols       []*collector
	chains     map[*collector][]colChain // the chains collectors are operands of (noteChain)
	overrides  []*override
	rels       []*relation
	diags      []analysis.Diagnostic
	links      []linkRec
	top        *scope
	main       *res
	stages     map[string]*res
	depth      int
	steps      int
	strict     bool // entry mode: unknown classes are errors
	missing    []missingDiag
	absent     bool // a class of a module absent from the workspace was declared
	synthetic  bool // a class or define analysed alone (server)
	out        int  // index of this run in the result
	patterns   []*res
	defEvals   int
	deps       map[depKey]string // inputs, for the run cache (server mode)
	byType     map[string][]*res
	byPattern  map[[2]string][]*res // resolvePattern's answers
	compileErr bool
	armDiags   []armDiag // warnings under undecided branches that mergeArms may join
	kbuf       []byte
	points     int32 // undecided conditionals evaluated (cond.go)
	// classByUnknownName: a class was declared by a name we cannot compute
	// (include $x, class { "m::${v}": }): a relationship to a class
	// nothing else declares may name it, so it is not reported missing.
	classByUnknownName bool
	// unknownIncludes: an include of a value nobody knows at all (a Hiera
	// list of classes only the node has): any class, of any module, may be
	// declared, and may declare what a relationship names.
	unknownIncludes bool
	// absentElse: absent for a reason other than a class's hint
	// (classMissing), which a patch that takes such a hint out reads
	absentElse bool
	// hieraKeys: the Hiera key an unknown value was looked up by (by the
	// lookup's span), for an include of it (classification data).
	hieraKeys map[source.Span]string
	// unused: the resource statement being evaluated is one whose value
	// nobody reads (stmts)
	unused bool
	// rec: the body being recorded for other runs, innermost first
	// (defmemo.go); maxDepth: the deepest evaluation since the
	// recording began
	rec      *defRec
	maxDepth int
}

func (r *run) span(f *fileInfo, l pp.Loc) source.Span {
	return source.Span{URI: f.uri, Start: l.Pos, End: l.End}
}

// link records a place go-to-definition answers from; a caller that
// reads only diagnostics (check) needs none.
func (r *run) link(l linkRec) {
	if r.a.linksUnread(r.strict) {
		return
	}
	r.links = append(r.links, l)
}

// missingDiag is a missing relationship target; in the server its
// severity is decided once every run is known (see settleMissing).
type missingDiag struct {
	d   analysis.Diagnostic
	ref *ref
}

// missingWhen is a missing target in runs that take the branches when:
// a warning that names them (Puppet refuses only those runs).
func (r *run) missingWhen(at source.Span, rf *ref, msg string, when []*branch) {
	r.missingAs(at, rf, "missing-target", msg, when)
}

// missingAs is missingWhen with the diagnostic's code.
func (r *run) missingAs(at source.Span, rf *ref, code, msg string, when []*branch) {
	if rf != nil && rf.typ == "Class" && r.classByUnknownName {
		return
	}
	d := analysis.Diagnostic{At: at, Severity: analysis.Error, Code: code, Message: msg}
	if len(when) > 0 {
		d.Severity = analysis.Warning
		d.Message += "\nwhen " + whenText(when)
		if r.strict {
			r.diags = append(r.diags, d)
			return
		}
	}
	if r.strict {
		r.diags = append(r.diags, d)
		r.compileErr = true
		return
	}
	r.missing = append(r.missing, missingDiag{d, rf})
}

func (r *run) diag(at source.Span, sev analysis.Severity, code, msg string, rel ...analysis.Related) {
	r.diags = append(r.diags, analysis.Diagnostic{At: at, Severity: sev, Code: code, Message: msg, Related: rel})
	if sev == analysis.Error {
		r.compileErr = true
	}
}

// diagLines is diag for words that name lines: tmpl holds them as marks
// (analysis.LineMark), kept beside the words it writes.
func (r *run) diagLines(at source.Span, sev analysis.Severity, code, tmpl string, rel ...analysis.Related) {
	r.diag(at, sev, code, r.a.lines(tmpl), rel...)
	r.diags[len(r.diags)-1].Template = tmpl
}

func (r *run) newRes(typ, title, kind string, decl source.Span) *res {
	r.prio++
	x := r.a.newResObj()
	*x = res{typ: typ, title: title, kind: kind, prio: r.prio, decl: decl}
	if kind == "class" || kind == "define" {
		x.resMore = &resMore{}
	}
	ct := canonTitle(typ, title)
	x.key = refString(typ, ct)
	switch {
	case typ == "Class":
		x.display = refString("Class", classDisplay(title))
	case ct == title:
		x.display = x.key
	default:
		x.display = refString(typ, title)
	}
	return x
}

// add puts x into the catalog. Its written attributes are final by then
// (overrides and defaults come after the collectors, see collect): a
// collector's tag query asks 3.5 times per resource in operations-puppet
// whether it has a `tag` attribute, and most have none. The copies replay
// appends itself copy tagAttr from recorded resources, added here.
func (r *run) add(x *res) {
	x.tagAttr = false
	for i := range x.attrs {
		if x.attrs[i].name == "tag" && x.attrs[i].from == written {
			x.tagAttr = true
			break
		}
	}
	r.resources = append(r.resources, x)
	r.byKey[x.key] = x
	if r.rec != nil {
		r.recAdd(x)
	}
}

// ---- statements ----

func (r *run) stmts(e *env, ns []pp.Node) {
	for _, n := range ns {
		if r.a.canceled() || r.steps > maxIter*100 {
			return
		}
		if c, ok := n.(*pp.Call); ok && !knownFunctions[c.Name] && r.a.defineFor(r, c.Name) == nil {
			// A function called for its effect that we do not know (a
			// site's role() helper, hiera_include...) may declare classes.
			r.absent, r.absentElse = true, true
		}
		// A resource statement's value (what it declared, for a chain)
		// is dropped here: resource need not make it.
		_, r.unused = n.(*pp.Resource)
		r.eval(e, n)
		r.unused = false
	}
}

// knownFunctions are functions whose effects we model or that declare
// nothing.
var knownFunctions = map[string]bool{
	"include": true, "contain": true, "require": true, "realize": true, "tag": true, "notice": true, "info": true,
	"debug": true, "warning": true, "err": true, "fail": true, "alert": true, "crit": true, "emerg": true,
	"each": true, "map": true, "filter": true, "reduce": true, "with": true, "ensure_resource": true,
	"ensure_resources": true, "create_resources": true, "ensure_packages": true, "stdlib::ensure_packages": true,
	"stdlib::ensure_resource": true, "stdlib::ensure_resources": true, "validate_string": true, "validate_bool": true,
	"validate_array": true, "validate_hash": true, "validate_re": true, "validate_absolute_path": true, "assert_type": true,
	"deprecation": true, "break": true, "next": true, "return": true, "lookup": true, "defined": true,
}

// eval computes an expression's value (and a statement's effects). The
// depth count is undone without a defer: eval runs tens of millions of
// times on a control repository, and a panic ends the run anyway.
func (r *run) eval(e *env, n pp.Node) val {
	r.steps++
	r.depth++
	if r.depth > r.maxDepth {
		r.maxDepth = r.depth
	}
	var v val
	if r.depth > maxEvalDepth {
		v = unknown(r.span(e.f, *n.Span()))
	} else {
		v = r.eval1(e, n)
	}
	r.depth--
	return v
}

func (r *run) eval1(e *env, n pp.Node) val {
	at := r.span(e.f, *n.Span())
	switch t := n.(type) {
	case *pp.Str:
		if !t.Interpolated() {
			return str(t.Value, at)
		}
		var b strings.Builder
		pat := false
		for _, p := range t.Parts {
			if p.Expr == nil {
				b.WriteString(p.Lit)
				continue
			}
			v := r.eval(e, p.Expr)
			s, ok := v.text()
			if !ok {
				pat = true
				if v.k == vStr {
					b.WriteString(s)
					continue
				}
				b.WriteString("*")
				continue
			}
			b.WriteString(s)
		}
		v := str(b.String(), at)
		v.pat = pat
		return v
	case *pp.Num:
		return val{k: vNum, s: t.Text, at: at}
	case *pp.Bool:
		return val{k: vBool, s: strconv.FormatBool(t.Value), at: at}
	case *pp.Undef:
		return val{k: vUndef, at: at}
	case *pp.Default:
		return val{k: vDefault, at: at}
	case *pp.Regex:
		return val{k: vRegex, s: t.Value, at: at}
	case *pp.Name:
		return str(t.Value, at)
	case *pp.TypeRef:
		return val{k: vTypeName, s: t.Value, at: at}
	case *pp.Var:
		return r.lookup(e, t.Name, at)
	case *pp.Array:
		v := val{k: vArr, at: at, arr: make([]val, 0, len(t.Elems))}
		for _, x := range t.Elems {
			if u, ok := x.(*pp.Unary); ok && u.Op == "*" {
				v.arr = append(v.arr, r.eval(e, u.X).list()...)
				continue
			}
			v.arr = append(v.arr, r.eval(e, x))
		}
		return v
	case *pp.Hash:
		v := val{k: vHash, at: at, x: &valX{keys: make([]val, 0, len(t.Entries))}, arr: make([]val, 0, len(t.Entries))}
		for _, en := range t.Entries {
			v.x.keys = append(v.x.keys, r.eval(e, en.Key))
			v.arr = append(v.arr, r.eval(e, en.Value))
		}
		return v
	case *pp.Paren:
		return r.eval(e, t.X)
	case *pp.Access:
		return r.access(e, t, at)
	case *pp.Unary:
		x := r.eval(e, t.X)
		switch t.Op {
		case "!":
			if b, ok := x.truth(); ok {
				return val{k: vBool, s: strconv.FormatBool(!b), at: at}
			}
			return unknownBool(at)
		case "-":
			if x.k == vNum {
				if f, ok := numVal(x.s); ok {
					return val{k: vNum, s: fmtNum(-f), at: at}
				}
			}
		case "*":
			return x
		}
		return unknown(at)
	case *pp.Binary:
		return r.binary(e, t, at)
	case *pp.Selector:
		// default applies only when nothing else matches, wherever it is.
		x := r.eval(e, t.X)
		var def pp.Node
		for _, c := range t.Cases {
			m := r.eval(e, c.Match)
			if m.k == vDefault {
				def = c.Value
				continue
			}
			if ok, known := r.matches(x, m); !known {
				return unknown(at)
			} else if ok {
				return r.eval(e, c.Value)
			}
		}
		if def != nil {
			return r.eval(e, def)
		}
		return unknown(at)
	case *pp.If:
		c := r.eval(e, t.Cond)
		b, known := c.truth()
		if t.Unless {
			b = !b
		}
		if known {
			if b {
				r.stmts(e, t.Then)
			} else {
				r.stmts(e, t.Else)
			}
			return val{k: vUndef, at: at}
		}
		arms := r.ifArms(e, t)
		r.speculate(e, [][]pp.Node{t.Then, t.Else}, arms[:], t.HasElse)
		return unknown(at)
	case *pp.Case:
		x := r.eval(e, t.X)
		var def *pp.CaseOption
		for i := range t.Options {
			o := &t.Options[i]
			for _, vn := range o.Values {
				m := r.eval(e, vn)
				if m.k == vDefault {
					def = o
					continue
				}
				ok, known := r.matches(x, m)
				if !known {
					var bodies [][]pp.Node
					hasDefault := false
					for j := range t.Options {
						bodies = append(bodies, t.Options[j].Body)
						for _, vn := range t.Options[j].Values {
							if _, ok := vn.(*pp.Default); ok {
								hasDefault = true
							}
						}
					}
					r.speculate(e, bodies, r.caseArms(e, t), hasDefault)
					return unknown(at)
				}
				if ok {
					r.stmts(e, o.Body)
					return unknown(at)
				}
			}
		}
		if def != nil {
			r.stmts(e, def.Body)
		}
		return unknown(at)
	case *pp.Resource:
		return r.resource(e, t, at)
	case *pp.ResourceDefaults:
		typ := capType(t.Type.Value)
		attrs := r.attrs(e, t.Attrs, byDefault)
		for i := range attrs {
			attrs[i].seq = int32(r.prio)
		}
		if e.sc.defaults == nil {
			e.sc.defaults = map[string][]attr{}
		}
		e.sc.defaults[typ] = append(e.sc.defaults[typ], attrs...)
		return val{k: vUndef, at: at}
	case *pp.ResourceOverride:
		target := r.eval(e, t.Ref)
		r.overrides = append(r.overrides, &override{target: target, attrs: r.attrs(e, t.Attrs, byOverride), env: e, at: at})
		return target
	case *pp.Collector:
		c := &collector{typ: capType(t.Type.Value), exported: t.Exported, query: t.Query, env: e, at: at}
		if t.HasAttrs {
			c.attrs = r.attrs(e, t.Attrs, byOverride)
		}
		r.cols = append(r.cols, c)
		return val{k: vCollect, x: &valX{col: c}, at: at}
	case *pp.Call:
		return r.call(e, t, at)
	case *pp.MethodCall:
		switch t.Name {
		case "include", "contain", "require":
			// `$classes.include` is include($classes)
			c := &pp.Call{Name: t.Name, NameLoc: t.NameLoc, Args: append([]pp.Node{t.Recv}, t.Args...), Lambda: t.Lambda}
			c.Loc = t.Loc
			return r.call(e, c, at)
		}
		recv := r.eval(e, t.Recv)
		args := make([]val, 1, 1+len(t.Args))
		args[0] = recv
		for _, a := range t.Args {
			args = append(args, r.eval(e, a))
		}
		return r.function(e, t.Name, r.span(e.f, t.NameLoc), args, t.Args, t.Lambda, at)
	case *pp.ClassDef, *pp.DefineDef, *pp.NodeDef, *pp.FunctionDef, *pp.TypeAlias, *pp.Block:
		return val{k: vUndef, at: at}
	case *pp.Lambda:
		return unknown(at)
	}
	return unknown(at)
}

func (r *run) lookup(e *env, name string, at source.Span) val {
	name, top := strings.CutPrefix(name, "::")
	if i := strings.LastIndex(name, "::"); i >= 0 {
		cls := name[:i]
		if c := r.classes[cls]; c != nil && c.inner != nil {
			if v, ok := c.inner.get(name[i+2:]); ok {
				if r.rec != nil {
					r.readClassVar(c, varRead{cls: cls, name: name[i+2:], v: v, ok: true})
				}
				v.at = at
				return v
			}
		}
		if r.rec != nil {
			r.readClassVar(r.classes[cls], varRead{cls: cls, name: name[i+2:]})
		}
		return unknown(at)
	}
	absent := false
	for s := e.sc; s != nil; s = s.parent {
		v, ok := s.get(name)
		if r.rec != nil {
			r.readScope(s, name, v, ok)
		}
		if ok {
			v.at = at
			return v
		}
		absent = absent || s.absent
	}
	if name == "facts" && r.a.facts != nil {
		v := r.a.factsVal
		v.at = at
		return v
	}
	if name == "trusted" && r.a.trustedVal.x != nil {
		v := r.a.trustedVal
		v.at = at
		return v
	}
	if r.a.nodeFact(name) {
		if v, ok := r.a.fact(name); ok {
			return toVal(v, at)
		}
		if stringFacts[name] {
			return unknownStr(at)
		}
		return unknown(at)
	}
	if absent && !top {
		// an inherited class we cannot see may set it
		return unknown(at)
	}
	if top {
		// `$::x` nobody in the workspace set: a variable of the node (an
		// external fact on it, an ENC's parameter), not known here
		return unknown(at)
	}
	// Puppet 7 (strict_variables off): an unknown variable is undef.
	return val{k: vUndef, at: at}
}

// stringFacts are the legacy facts whose value is a String wherever the
// node has them (Facter 3/4's legacy facts: versions and releases too).
var stringFacts = map[string]bool{
	"operatingsystem": true, "operatingsystemrelease": true, "operatingsystemmajrelease": true, "osfamily": true,
	"kernel": true, "kernelrelease": true, "kernelversion": true, "kernelmajversion": true,
	"architecture": true, "hardwaremodel": true, "hostname": true, "fqdn": true, "domain": true,
	"lsbdistcodename": true, "lsbdistid": true, "lsbdistrelease": true, "lsbmajdistrelease": true,
	"ipaddress": true, "ipaddress6": true, "macaddress": true, "virtual": true, "timezone": true,
	"puppetversion": true, "facterversion": true, "rubyversion": true, "clientcert": true, "certname": true,
	"memorysize": true, "swapsize": true, "uptime": true, "serialnumber": true, "manufacturer": true, "productname": true, "uuid": true,
}

// facts are variables facter (or the server) sets at top scope.
var facts = map[string]bool{
	"facts": true, "trusted": true, "server_facts": true, "settings": false, "environment": true, "clientcert": true,
	"clientversion": true, "servername": true, "serverip": true, "serverversion": true, "module_name": true, "caller_module_name": true,
	"osfamily": true, "operatingsystem": true, "operatingsystemrelease": true, "operatingsystemmajrelease": true, "os": true,
	"kernel": true, "kernelrelease": true, "kernelversion": true, "kernelmajversion": true, "architecture": true, "hardwaremodel": true,
	"hostname": true, "fqdn": true, "domain": true, "ipaddress": true, "ipaddress6": true, "macaddress": true, "networking": true,
	"processorcount": true, "processors": true, "memorysize": true, "memory": true, "lsbdistcodename": true, "lsbdistid": true,
	"lsbdistrelease": true, "lsbmajdistrelease": true, "virtual": true, "is_virtual": true, "timezone": true, "uptime": true,
	"path": true, "id": true, "selinux": true, "puppetversion": true, "facterversion": true, "rubyversion": true, "system_uptime": true,
	"identity": true, "interfaces": true, "partitions": true, "disks": true, "mountpoints": true, "dmi": true, "ssh": true,
	"swapsize": true, "uuid": true, "serialnumber": true, "manufacturer": true, "productname": true, "physicalprocessorcount": true,
	"ec2_metadata": true, "gce": true, "augeas": true, "filesystems": true, "load_averages": true, "ruby": true, "aio_agent_version": true,
	"certname": true, "agent_specified_environment": true, "title": false, "name": false,
}

func (r *run) access(e *env, t *pp.Access, at source.Span) val {
	if tr, ok := t.X.(*pp.TypeRef); ok {
		typ := capType(tr.Value)
		switch typ {
		case "Resource":
			// Resource['file', '/x'] or Resource[File, '/x']
			if len(t.Args) >= 2 {
				tv := r.eval(e, t.Args[0])
				s, _ := tv.text()
				if tv.k == vTypeName || tv.k == vStr {
					return r.mkRefs(e, capType(s), t.Args[1:], at)
				}
			}
			return unknown(at)
		}
		if isDataType(typ) {
			return val{k: vTypeName, s: typ, at: at}
		}
		return r.mkRefs(e, typ, t.Args, at)
	}
	if _, ok := t.X.(*pp.Name); ok && len(t.Args) >= 1 {
		// notify['x']: a lower-case word is a string, so this is a substring.
		if k := r.eval(e, t.Args[0]); k.k == vStr {
			r.diag(r.span(e.f, *t.Args[0].Span()), analysis.Error, "evaluation",
				"Evaluation Error: A substring operation does not accept a String as a character index. Expected an Integer")
			return unknown(at)
		}
	}
	x := r.eval(e, t.X)
	if len(t.Args) == 1 {
		k := r.eval(e, t.Args[0])
		switch x.k {
		case vArr:
			if k.k == vNum {
				if f, ok := numVal(k.s); ok {
					i := int(f)
					if i < 0 {
						i += len(x.arr)
					}
					if i >= 0 && i < len(x.arr) {
						v := x.arr[i]
						v.at = at
						return v
					}
					return val{k: vUndef, at: at}
				}
			}
		case vHash:
			for i, kk := range x.hkeys() {
				if eq, ok := equal(kk, k); ok && eq {
					v := x.arr[i]
					v.at = at
					return v
				}
			}
			if x.x != nil && x.x.closed && k.k == vStr {
				return val{k: vUndef, at: at}
			}
		case vRef:
			// Class['x'] style values reach here only through variables
		}
	}
	return unknown(at)
}

var dataTypes = map[string]bool{
	"String": true, "Integer": true, "Float": true, "Numeric": true, "Boolean": true, "Array": true, "Hash": true,
	"Optional": true, "Variant": true, "Enum": true, "Pattern": true, "Struct": true, "Tuple": true, "Undef": true,
	"Any": true, "Scalar": true, "Data": true, "Collection": true, "Callable": true, "Type": true, "Regexp": true,
	"Default": true, "NotUndef": true, "Sensitive": true, "Iterable": true, "Iterator": true, "Runtime": true,
	"Stdlib::Absolutepath": true, "Timespan": true, "Timestamp": true, "SemVer": true, "SemVerRange": true,
	"Binary": true, "Object": true, "Init": true, "Deferred": true, "CatalogEntry": true, "Error": true,
	"Stdlib::Port": true, "Stdlib::Host": true, "Stdlib::Filemode": true, "ScalarData": true, "RichData": true,
	"Resource": true, "Class": false,
}

func isDataType(t string) bool {
	if dataTypes[t] {
		return true
	}
	// Module-namespaced data types (Stdlib::*, Apache::*) used with [...]
	// are types, not resource references, when their first segment is a
	// well-known type module.
	return strings.HasPrefix(t, "Stdlib::") || strings.HasPrefix(t, "Systemd::Unit")
}

// mkRefs builds Type['a'] or Type['a', 'b'] (an array of references).
func (r *run) mkRefs(e *env, typ string, args []pp.Node, at source.Span) val {
	var refs []val
	var recs []*ref
	var buf [1]val
	for _, a := range args {
		v := r.eval(e, a)
		items := v.items(&buf)
		if len(args) == 1 && len(items) == 1 {
			// Type['x']: one reference (the common case).
			x := items[0]
			s, ok := x.text()
			if x.k == vUnknown {
				s = "*"
			}
			if typ == "Class" {
				if ok && r.illegalClassName(e, s, r.span(e.f, *a.Span())) {
					return unknown(at)
				}
				s = strings.ToLower(strings.TrimPrefix(s, "::"))
			}
			rf := &ref{typ: typ, title: s, pat: !ok, at: at}
			r.link(linkRec{at: at, refs: []*ref{rf}})
			return val{k: vRef, ref: rf, at: at}
		}
		for _, x := range items {
			s, ok := x.text()
			if x.k == vUnknown {
				s = "*"
			}
			if typ == "Class" {
				if ok && r.illegalClassName(e, s, r.span(e.f, *a.Span())) {
					continue
				}
				s = strings.ToLower(strings.TrimPrefix(s, "::"))
			}
			rf := &ref{typ: typ, title: s, pat: !ok, at: r.span(e.f, *a.Span())}
			recs = append(recs, rf)
			refs = append(refs, val{k: vRef, ref: rf, at: rf.at})
		}
	}
	if len(refs) > 0 {
		r.link(linkRec{at: at, refs: recs})
	}
	if len(refs) == 1 {
		return refs[0]
	}
	return val{k: vArr, arr: refs, at: at}
}

func (r *run) binary(e *env, t *pp.Binary, at source.Span) val {
	switch t.Op {
	case "->", "~>", "<-", "<~":
		l := r.eval(e, t.Left)
		rt := r.eval(e, t.Right)
		r.rels = append(r.rels, &relation{op: t.Op, left: l, right: rt, at: r.span(e.f, t.OpLoc), cond: e.cond,
			leftTxt: e.f.text(t.Left), rightTxt: e.f.text(t.Right)})
		return rt
	case "=":
		v := r.eval(e, t.Right)
		if vr, ok := t.Left.(*pp.Var); ok {
			e.sc.vars.set(strings.TrimPrefix(vr.Name, "::"), v)
		}
		return v
	case "+=", "-=":
		r.eval(e, t.Right)
		if vr, ok := t.Left.(*pp.Var); ok {
			e.sc.vars.set(vr.Name, unknown(at))
		}
		return unknown(at)
	case "and", "or":
		l := r.eval(e, t.Left)
		lb, lk := l.truth()
		if lk && t.Op == "and" && !lb {
			return val{k: vBool, s: "false", at: at}
		}
		if lk && t.Op == "or" && lb {
			return val{k: vBool, s: "true", at: at}
		}
		rv := r.eval(e, t.Right)
		rb, rk := rv.truth()
		if lk && rk {
			return val{k: vBool, s: strconv.FormatBool(rb), at: at}
		}
		if rk && t.Op == "and" && !rb {
			return val{k: vBool, s: "false", at: at}
		}
		if rk && t.Op == "or" && rb {
			return val{k: vBool, s: "true", at: at}
		}
		return unknownBool(at)
	}
	l := r.eval(e, t.Left)
	rv := r.eval(e, t.Right)
	v := r.operate(t.Op, l, rv, at)
	if v.k == vUnknown {
		switch t.Op {
		case "==", "!=", "=~", "!~", "in", "<", ">", "<=", ">=":
			v.boolean = true
		}
	}
	return v
}

// operate applies the operator op to the operands l and rv.
func (r *run) operate(op string, l, rv val, at source.Span) val {
	boolv := func(b bool) val { return val{k: vBool, s: strconv.FormatBool(b), at: at} }
	switch op {
	case "==", "!=":
		eq, ok := equal(l, rv)
		if !ok {
			return unknown(at)
		}
		return boolv(eq == (op == "=="))
	case "=~", "!~":
		m, ok := r.matches(l, rv)
		if !ok {
			return unknown(at)
		}
		return boolv(m == (op == "=~"))
	case "in":
		// x in array (an element equals, or matches a regex/type), in a
		// hash (a key), in a string (a substring).
		var elems []val
		switch rv.k {
		case vArr:
			elems = rv.arr
		case vHash:
			elems = rv.hkeys()
		case vStr:
			if ls, ok := l.text(); ok && l.k == vStr && !rv.pat {
				return boolv(strings.Contains(rv.s, ls))
			}
			return unknown(at)
		default:
			return unknown(at)
		}
		for _, x := range elems {
			var m, ok bool
			if l.k == vRegex || l.k == vTypeName {
				m, ok = r.matches(x, l)
			} else {
				m, ok = equal(l, x)
			}
			if !ok {
				return unknown(at)
			}
			if m {
				return boolv(true)
			}
		}
		return boolv(false)
	case "+":
		if l.k == vNum && rv.k == vNum {
			a, _ := numVal(l.s)
			b, _ := numVal(rv.s)
			return val{k: vNum, s: fmtNum(a + b), at: at}
		}
		if l.k == vArr {
			out := val{k: vArr, arr: append(append([]val(nil), l.arr...), rv.list()...), at: at}
			return out
		}
		if l.k == vHash && rv.k == vHash {
			return mergeHash(l, rv, at)
		}
	case "-", "*", "/", "%":
		if op == "-" && (l.k == vHash || l.k == vArr) {
			if v, ok := subtract(l, rv, at); ok {
				return v
			}
		}
		if l.k == vNum && rv.k == vNum {
			a, _ := numVal(l.s)
			b, _ := numVal(rv.s)
			switch op {
			case "-":
				return val{k: vNum, s: fmtNum(a - b), at: at}
			case "*":
				return val{k: vNum, s: fmtNum(a * b), at: at}
			case "/":
				if b != 0 {
					return val{k: vNum, s: fmtNum(float64(int64(a / b))), at: at}
				}
			case "%":
				if int64(b) != 0 {
					return val{k: vNum, s: fmtNum(float64(int64(a) % int64(b))), at: at}
				}
			}
		}
	case "<", ">", "<=", ">=":
		if l.k == vNum && rv.k == vNum {
			a, _ := numVal(l.s)
			b, _ := numVal(rv.s)
			var res bool
			switch op {
			case "<":
				res = a < b
			case ">":
				res = a > b
			case "<=":
				res = a <= b
			case ">=":
				res = a >= b
			}
			return boolv(res)
		}
	}
	return unknown(at)
}

// matches is case/selector matching: equality, regex, or type.
func (r *run) matches(x, m val) (bool, bool) {
	switch m.k {
	case vDefault:
		return true, true
	case vRegex:
		s, ok := x.text()
		if !ok || x.k != vStr {
			return false, false
		}
		re, err := compileRegex(m.s)
		if err != nil {
			return false, false
		}
		return re.MatchString(s), true
	case vTypeName:
		return matchType(x, m.s)
	case vArr:
		if x.k != vArr {
			return false, false
		}
	}
	return equal(x, m)
}

func (r *run) attrs(e *env, as []*pp.Attr, from attrFrom) []attr {
	if len(as) == 0 {
		return nil
	}
	out := make([]attr, 0, len(as))
	for _, a := range as {
		v := r.eval(e, a.Value)
		if a.Name == "*" {
			if v.k == vHash {
				for i, k := range v.hkeys() {
					if s, ok := k.text(); ok {
						out = append(out, attr{name: s, v: v.arr[i], nameAt: e.f.span(a.NameLoc), at: packSpan(v.arr[i].at), from: from})
					}
				}
			}
			continue
		}
		out = append(out, attr{name: a.Name, v: v, nameAt: e.f.span(a.NameLoc), at: e.f.span(*a.Value.Span()), plus: a.Op == "+>", from: from})
	}
	return out
}
