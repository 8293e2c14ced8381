package cfengine

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/ordering-lsp/ordering-lsp/analysis"
	cfp "github.com/ordering-lsp/ordering-lsp/parser/cfengine"
	"github.com/ordering-lsp/ordering-lsp/source"
)

// The static schedule: cf-agent's evaluation simulated without a host.
// Classes are three-valued: set for sure, maybe set (a hard class, an
// outcome we cannot know), or not set yet (a class some promise of the
// policy defines, before that promise has run). A promise is scheduled at
// its first possible evaluation.

type tri uint8

const (
	triFalse tri = iota
	triMaybe
	triTrue
)

func and3(a, b tri) tri { return min(a, b) }
func or3(a, b tri) tri  { return max(a, b) }
func not3(a tri) tri    { return triTrue - a }

const maxPasses = 3

type callSite struct {
	at   source.Span
	step int
	id   int // activation id
	// sure: every host that runs this policy makes this call (no class
	// context or guard on it, nor on the calls that led to it)
	sure bool
	// cond: the bundle activation a call is made from and its class
	// context, when it has no if/unless; "" otherwise
	cond string
}

// doneKey is one promise in one bundle activation (bundle + arguments):
// cf-agent evaluates it once there.
type doneKey struct {
	p   *promiseInfo
	act int
}

type scheduler struct {
	a        *analyzer
	pol      *policy
	ev       *evaluator
	classes  map[string]tri
	definers map[string][]*promiseInfo // classes some promise may define
	done     map[doneKey]bool
	handleOK map[string]bool
	called   map[string]callSite
	steps    []analysis.Step
	// the passes each promise ran in (bit n = pass n), and why not
	// earlier; indexed by promiseInfo.idx
	passes []uint8
	why    map[int]string
	// guardFalse is the last pass in which a promise's guard was false
	// while it had not run yet
	guardFalse map[int]int
	// evalGuard is, for promises that name a bundle, the best value their
	// guard had when they got past it (tri+1; 0: never), and ifFalse
	// those held back by if/unless while their class context held or
	// may hold (cf-agent has expanded them by then); by promiseInfo.idx
	evalGuard map[int]tri
	ifFalse   map[int]bool
	// pkgFails are the packages promises that fail cf-agent's sanity
	// check (packageFailure)
	pkgFails map[*promiseInfo]pkgFailure
	// setBy records which promise set each class first
	setBy map[string]classSetter
	// callers is the stack of methods promises being evaluated;
	// callerOf the methods promise that first called a methods promise's
	// bundle (and in which pass)
	callers []callFrame
	// unsure counts the calls on the stack whose class context or guard
	// some hosts do not meet; cond is the activation and class context of
	// the methods call being made, condGuarded whether it has if/unless
	unsure      int
	cond        string
	condGuarded bool
	callerOf    map[*promiseInfo]*promiseInfo
	callerPass  map[*promiseInfo]int
	// calledBy is the methods promise that first called a bundle;
	// editedBy the files promise that first used an edit bundle
	calledBy map[*bundleInfo]*promiseInfo
	editedBy map[*bundleInfo]*promiseInfo
	// outcomeMemo caches outcomes per promise
	outcomeMemo map[*promiseInfo]*outcomeSet
	ranIn       map[*promiseInfo]*bundleInfo
	depth       int
	topDown     func(b *bundleInfo) bool
	// position of each bundle in the bundlesequence (1-based) and its size
	seqPos map[*bundleInfo]int
	seqLen int
	// repeated calls: the second call site and the first
	repeats [][2]source.Span
}

func newScheduler(a *analyzer, pol *policy, ev *evaluator) *scheduler {
	s := &scheduler{a: a, pol: pol, ev: ev, classes: map[string]tri{"any": triTrue}, definers: map[string][]*promiseInfo{},
		done: map[doneKey]bool{}, handleOK: map[string]bool{}, called: map[string]callSite{},
		passes: make([]uint8, a.nProm), outcomeMemo: map[*promiseInfo]*outcomeSet{}, why: map[int]string{}, guardFalse: map[int]int{}, evalGuard: map[int]tri{}, ifFalse: map[int]bool{}, pkgFails: map[*promiseInfo]pkgFailure{}, setBy: map[string]classSetter{}, callerOf: map[*promiseInfo]*promiseInfo{}, callerPass: map[*promiseInfo]int{}, calledBy: map[*bundleInfo]*promiseInfo{}, editedBy: map[*bundleInfo]*promiseInfo{}, seqPos: map[*bundleInfo]int{}}
	// which classes can promises of this policy define?
	for _, b := range pol.bundles {
		for _, i := range b.definers {
			p := b.promises[i]
			if p.typ == "classes" {
				s.definers[p.p.Promiser] = append(s.definers[p.p.Promiser], p)
			}
			if p.classes != nil {
				for _, name := range s.outcomes(p).all {
					s.definers[name] = append(s.definers[name], p)
				}
			}
		}
	}
	return s
}

// classValue is what is known about one class right now.
func (s *scheduler) classValue(name string) tri {
	name = strings.TrimPrefix(name, "default:")
	if v, ok := s.classes[name]; ok {
		return v
	}
	if _, ok := s.definers[name]; ok {
		return triFalse
	}
	return triMaybe // a hard class, or defined outside the policy
}

// evalClassExpr evaluates a class expression (| || . & ! parentheses).
func (s *scheduler) evalClassExpr(expr string, sc scope) tri {
	if strings.Contains(expr, "$(") || strings.Contains(expr, "${") {
		vs := s.ev.expand(expr, sc)
		if !vs.resolved || len(vs.vals) != 1 {
			return triMaybe
		}
		expr = vs.vals[0]
	}
	return triExpr(expr, s.classValue)
}

// evalClassRval evaluates an if/unless/expression value.
func (s *scheduler) evalClassRval(r *cfp.Rval, sc scope) tri {
	if r == nil {
		return triMaybe
	}
	switch r.Kind {
	case cfp.String, cfp.Ident:
		return s.evalClassExpr(r.Value, sc)
	case cfp.Call:
		switch r.Value {
		case "and":
			v := triTrue
			for _, it := range r.Items {
				v = and3(v, s.evalClassRval(it, sc))
			}
			return v
		case "or":
			v := triFalse
			for _, it := range r.Items {
				v = or3(v, s.evalClassRval(it, sc))
			}
			return v
		case "not":
			if len(r.Items) == 1 {
				return not3(s.evalClassRval(r.Items[0], sc))
			}
		case "isvariable":
			// def.json defines its variables before the first pass;
			// whether the policy's own are defined yet depends on when
			if len(r.Items) == 1 && s.augmented(r.Items[0], sc) {
				return triTrue
			}
		case "classify", "classmatch", "fileexists", "returnszero", "strcmp", "regcmp":
		}
	}
	return triMaybe
}

// augmented tells whether the variable isvariable() names is one def.json
// defines.
func (s *scheduler) augmented(r *cfp.Rval, sc scope) bool {
	if r.Kind != cfp.String || len(s.pol.augments) == 0 {
		return false
	}
	vs := s.ev.expand(r.Value, sc)
	if !vs.resolved || len(vs.vals) != 1 {
		return false
	}
	key, ok := varKey(vs.vals[0], sc)
	if !ok {
		return false
	}
	_, ok = s.pol.augments[key]
	return ok
}

// guard is the promise's context and if/unless/ifvarclass together.
func (s *scheduler) guard(p *promiseInfo, sc scope) tri {
	sc.promiser = p.p.Promiser
	v := triTrue
	if p.p.Context != "any" {
		v = s.evalClassExpr(p.p.Context, sc)
	}
	for _, c := range p.guards {
		switch c.Lval.Text {
		case "if", "ifvarclass":
			v = and3(v, s.evalClassRval(c.Rval, sc))
		case "unless":
			v = and3(v, not3(s.evalClassRval(c.Rval, sc)))
		}
	}
	return v
}

// outcomeSet is what a `classes =>` body sets: the classes set on KEPT,
// on REPAIRED, and every class it can set.
type outcomeSet struct {
	kept, repaired, all []string
}

// outcomes returns the classes a promise's `classes =>` body sets
// (computed once per policy).
func (s *scheduler) outcomes(p *promiseInfo) *outcomeSet {
	if o, ok := s.outcomeMemo[p]; ok {
		return o
	}
	// literal arguments and the same body: the same classes in every
	// policy of the analysis
	var body *bodyInfo
	if p.classesKeys[0] != "" {
		body = s.pol.bodyByKeys(p.classesKeys)
		if body != nil && p.outBody == body {
			return p.outSet
		}
	}
	o := s.computeOutcomes(p, p.classes)
	if body != nil && p.literalClassesArgs {
		p.outBody, p.outSet = body, o
	}
	s.outcomeMemo[p] = o
	return o
}

type outcomeKey struct {
	body *cfp.Block
	args string
}

// bodyUsesOnlyParams reports whether every variable in a classes body's
// attributes is one of its parameters.
func bodyUsesOnlyParams(b *cfp.Block) bool {
	for _, at := range b.Attrs {
		for _, it := range at.Rval.Scalars() {
			v := it.Value
			for i := 0; i+1 < len(v); i++ {
				if v[i] != '$' || (v[i+1] != '(' && v[i+1] != '{') {
					continue
				}
				end := matchClose(v, i+1)
				if end < 0 {
					return false
				}
				name := v[i+2 : end]
				found := false
				for _, p := range b.Params {
					if p.Text == name {
						found = true
					}
				}
				if !found {
					return false
				}
				i = end
			}
		}
	}
	return true
}

func (s *scheduler) computeOutcomes(p *promiseInfo, c *cfp.Constraint) (o *outcomeSet) {
	o = &outcomeSet{}
	if c == nil || c.Rval == nil {
		return o
	}
	var args []*cfp.Rval
	if c.Rval.Kind == cfp.Call {
		args = c.Rval.Items
	} else if c.Rval.Kind != cfp.Ident {
		return o
	}
	body := s.pol.bodyByKeys(p.classesKeys)
	if body == nil {
		return o
	}
	params := map[string]string{}
	sc := scope{bundle: p.bundle, dir: p.bundle.dir}
	var key strings.Builder
	for i, prm := range body.block.Params {
		if i < len(args) {
			vs := s.ev.rval(args[i], sc)
			if vs.resolved && len(vs.vals) == 1 {
				params[prm.Text] = vs.vals[0]
				key.WriteString(vs.vals[0])
			}
		}
		key.WriteByte(0)
	}
	// a body whose attributes use only its parameters sets the same
	// classes for the same arguments in every policy and every analysis
	// while its file is unchanged: the file's template keeps them
	mk := outcomeKey{body.block, key.String()}
	pure := body.pure
	if pure {
		if o, ok := body.file.outcomes[mk]; ok {
			return o
		}
		defer func() { body.file.outcomes[mk] = o }()
	}
	bsc := scope{params: params, dir: body.file.dir}
	for _, at := range body.block.Attrs {
		var names []string
		for _, it := range at.Rval.Scalars() {
			vs := s.ev.expand(it.Value, bsc)
			if vs.resolved {
				for _, v := range vs.vals {
					names = append(names, canonify(v))
				}
			}
		}
		switch at.Lval.Text {
		case "promise_kept", "kept_returncodes":
			o.kept = append(o.kept, names...)
		case "promise_repaired", "repaired_returncodes":
			o.repaired = append(o.repaired, names...)
		case "cancel_kept", "cancel_repaired", "cancel_notkept", "scope", "persist_time", "timer_policy":
			continue
		}
		o.all = append(o.all, names...)
	}
	return o
}

// fails reports whether a promise's outcome is known statically to be
// NOT_KEPT (a command that always fails).
func fails(p *promiseInfo) bool {
	if p.typ != "commands" {
		return false
	}
	cmd := strings.Fields(p.p.Promiser)
	return len(cmd) > 0 && (cmd[0] == "/bin/false" || cmd[0] == "/usr/bin/false")
}

// preEvaluate defines the classes of every common bundle, as cf-agent
// does before the bundlesequence (a few rounds: classes may use others).
func (s *scheduler) preEvaluate() {
	for range 3 {
		for _, b := range s.pol.bundles {
			if b.block.Type.Text != "common" {
				continue
			}
			sc := scope{bundle: b, dir: b.dir}
			for _, p := range b.promises {
				if p.typ != "classes" {
					continue
				}
				g := s.guard(p, sc)
				if g == triFalse {
					continue
				}
				v := and3(g, s.classPromiseValue(p, sc))
				name := canonify(p.p.Promiser)
				if v > s.classes[name] {
					s.classes[name] = v
				}
			}
		}
	}
}

func (s *scheduler) classPromiseValue(p *promiseInfo, sc scope) tri {
	for _, c := range p.p.Constraints {
		switch c.Lval.Text {
		case "expression":
			return s.evalClassRval(c.Rval, sc)
		case "and":
			v := triTrue
			for _, it := range c.Rval.Items {
				v = and3(v, s.evalClassRval(it, sc))
			}
			if c.Rval.Kind != cfp.List {
				v = s.evalClassRval(c.Rval, sc)
			}
			return v
		case "or":
			v := triFalse
			for _, it := range c.Rval.Items {
				v = or3(v, s.evalClassRval(it, sc))
			}
			if c.Rval.Kind != cfp.List {
				v = s.evalClassRval(c.Rval, sc)
			}
			return v
		case "not":
			return not3(s.evalClassRval(c.Rval, sc))
		case "xor", "dist", "select_class":
			return triMaybe
		}
	}
	// `"c";` alone, or only other attributes: the class is defined.
	return triTrue
}

// inOrder returns a bundle's promises in evaluation order for one pass.
func (s *scheduler) inOrder(b *bundleInfo) []*promiseInfo {
	if s.topDown != nil && s.topDown(b) {
		return b.promises
	}
	out := make([]*promiseInfo, len(b.order))
	for i, k := range b.order {
		out[i] = b.promises[k]
	}
	return out
}

func escapeLabel(s string) string {
	if !strings.ContainsAny(s, "\\\n") {
		return s
	}
	s = strings.ReplaceAll(s, "\\", "\\\\")
	return strings.ReplaceAll(s, "\n", "\\n")
}

var passNotes = [...]string{"pass 0", "pass 1", "pass 2", "pass 3"}

var passPrefix = [...]string{"pass=0", "pass=1", "pass=2", "pass=3"}

// ran reports whether a promise was evaluated in some pass.
func (s *scheduler) ran(p *promiseInfo) bool { return s.passes[p.idx] != 0 }

func (s *scheduler) emit(p *promiseInfo, pass int, promiser string) {
	s.emitLabel(p, pass, pass, promiser)
}

// emitLabel records an evaluation in pass; the step's label shows
// labelPass.
func (s *scheduler) emitLabel(p *promiseInfo, pass, labelPass int, promiser string) {
	var label string
	if lp := labelPass; p.labelTail != "" && lp < len(passPrefix) && promiser == p.p.Promiser {
		// the template keeps the label of each pass (strings are
		// immutable: results of earlier analyses may share them)
		if p.labels[lp] == "" {
			p.labels[lp] = passPrefix[lp] + p.labelTail
		}
		label = p.labels[lp]
	} else {
		label = "pass=" + strconv.Itoa(lp) + " bundle=" + p.bundle.label + " type=" + p.typ + " promiser=" + escapeLabel(promiser)
	}
	var note string
	if pass < len(passNotes) {
		note = passNotes[pass]
	} else {
		note = "pass " + strconv.Itoa(pass)
	}
	s.steps = append(s.steps, analysis.Step{Node: p.node, Label: label, Note: note})
	s.passes[p.idx] |= 1 << pass
}

// runBundle evaluates one bundle activation: up to three passes.
func (s *scheduler) runBundle(b *bundleInfo, args []string, at source.Span) {
	key := b.key + "(" + strings.Join(args, ",") + ")"
	// Called again with the same arguments: cf-agent runs the bundle's
	// passes again, but every promise but vars/meta/defaults was already
	// evaluated (the promise lock cache), so only variables are computed.
	if n := len(s.callers); n > 0 {
		if _, seen := s.calledBy[b]; !seen {
			s.calledBy[b] = s.callers[n-1].p
		}
	}
	first, ok := s.called[key]
	if ok {
		// only a first call every host makes: where it depends on classes
		// (websupport-sk/ocf's `rack1:: "compute" usebundle =>
		// compute;` then `rack2:: ...`), a host with rack2 alone runs the
		// bundle's promises at the second call (cfengine-order -D rack2)
		// (or a first call under the same class context: a host that
		// makes the second call made the first)
		if (first.sure || first.cond != "" && first.cond == s.cond) && !first.at.IsZero() && !at.IsZero() {
			s.repeats = append(s.repeats, [2]source.Span{at, first.at})
		}
	} else {
		first = callSite{at: at, step: len(s.steps), id: len(s.called) + 1, sure: s.unsure == 0}
		if !s.condGuarded {
			first.cond = s.cond
		}
		s.called[key] = first
	}
	if s.depth > 30 {
		return
	}
	s.depth++
	defer func() { s.depth-- }()
	var params map[string]string // nil: no parameters, values cacheable
	for i, p := range b.block.Params {
		if i < len(args) {
			if params == nil {
				params = map[string]string{}
			}
			params[p.Text] = args[i]
			params[b.block.Name.Text+"."+p.Text] = args[i]
		}
	}
	sc := scope{bundle: b, params: params, dir: b.dir, act: first.id}
	order := s.inOrder(b)
	for pass := 1; pass <= maxPasses; pass++ {
		for _, p := range order {
			s.evalPromise(p, pass, sc)
		}
	}
	s.checkFourthPass(order, sc)
}

func (s *scheduler) promisers(p *promiseInfo, sc scope) []string {
	if p.promisers != nil {
		return p.promisers
	}
	vs := s.ev.expand(p.p.Promiser, sc)
	if len(vs.vals) == 0 {
		return []string{p.p.Promiser}
	}
	return vs.vals
}

func (s *scheduler) evalPromise(p *promiseInfo, pass int, sc scope) {
	if !cfp.BuiltinPromiseTypes[p.typ] && s.pol.customType(p.typ) == nil {
		// cf-agent: Undefined promise type, in every pass
		s.why[p.idx] = "its promise type '" + p.typ + "' is not defined (no promise block): cf-agent says Undefined promise type"
		return
	}
	g := s.guard(p, sc)
	if g == triFalse {
		if s.passes[p.idx] == 0 {
			s.guardFalse[p.idx] = pass
		}
		if s.why[p.idx] == "" && s.passes[p.idx] == 0 {
			s.why[p.idx] = fmt.Sprintf("its class guard is false in pass %d", pass)
		}
		if len(p.refs) > 0 && len(p.guards) > 0 && (p.p.Context == "any" || s.evalClassExpr(p.p.Context, sc) != triFalse) {
			s.ifFalse[p.idx] = true
		}
		return
	}
	if len(p.refs) > 0 && g+1 > s.evalGuard[p.idx] {
		s.evalGuard[p.idx] = g + 1
	}
	if pass > 1 && s.passes[p.idx] == 0 && s.guardFalse[p.idx] == pass-1 {
		// held back by its guard: say which class, set by whom
		if c, set, ok := s.lastSetGuardClass(p); ok {
			w := fmt.Sprintf("its guard needs class '%s', set by %s in pass %d", c, set.p.node.Ref, set.pass)
			if set.pass == pass-1 && set.p.bundle == p.bundle {
				w += ", after this promise's turn"
			}
			s.why[p.idx] = w
		}
	}
	switch p.typ {
	case "vars", "meta", "defaults":
		for _, pr := range s.promisers(p, sc) {
			if p.typ == "defaults" && len(pr) > 30 {
				pr = pr[:30]
			}
			s.emit(p, pass, pr)
		}
		return
	case "classes":
		name := canonify(p.p.Promiser)
		if s.classes[name] == triTrue || s.done[doneKey{p, sc.act}] {
			return
		}
		v := and3(g, s.classPromiseValue(p, sc))
		if v == triFalse {
			if s.passes[p.idx] == 0 {
				s.guardFalse[p.idx] = pass
			}
			return
		}
		s.done[doneKey{p, sc.act}] = true
		if v > s.classes[name] {
			s.classes[name] = v
		}
		s.setClass(name, p, pass)
		for _, pr := range s.promisers(p, sc) {
			s.emit(p, pass, canonify(pr))
		}
		return
	}
	if s.done[doneKey{p, sc.act}] {
		return
	}
	// depends_on: every handle must be KEPT or REPAIRED already
	if dep := p.dependsOn; dep != nil {
		for _, h := range p.depends {
			if !s.handleOK[h.Value] {
				s.why[p.idx] = "depends_on '" + h.Value + "' is not kept yet in pass " + strconv.Itoa(pass)
				return
			}
		}
	}
	if p.typ == "packages" {
		if msg := s.packageFailure(p); msg != "" {
			// cf-agent logs it and goes on, in every pass: no outcome
			s.why[p.idx] = "cf-agent says " + msg
			if f, seen := s.pkgFails[p]; !seen || g > f.guard {
				s.pkgFails[p] = pkgFailure{msg, g}
			}
			return
		}
	}
	s.done[doneKey{p, sc.act}] = true
	s.ranIn = nil
	var calls []bundleCall             // a methods promise's, for each promiser
	var svcCalls map[string]bundleCall // a services promise's, by promiser
	switch {
	case p.typ == "methods" && p.usebundle != nil:
		calls = s.callTargets(p.usebundle.Rval, sc, p.bundle.block.Namespace)
	case p.typ == "services":
		for _, pr := range s.promisers(p, sc) {
			if c, ok := s.serviceCall(p, sc, pr); ok {
				if svcCalls == nil {
					svcCalls = map[string]bundleCall{}
				}
				svcCalls[pr] = c
			}
		}
	}
	hasCalls := len(calls) > 0 || len(svcCalls) > 0
	if !hasCalls {
		for _, pr := range s.promisers(p, sc) {
			s.emit(p, pass, pr)
		}
	}
	if p.typ == "files" {
		s.noteEdits(p, sc)
	}
	failed := fails(p)
	if p.handle != "" && !failed {
		s.handleOK[p.handle] = true
	}
	if p.classes != nil {
		o := s.outcomes(p)
		kept, repaired, all := o.kept, o.repaired, o.all
		set := func(names []string, v tri) {
			for _, n := range names {
				if v > s.classes[n] {
					s.classes[n] = v
				}
				s.setClass(n, p, pass)
			}
		}
		switch {
		case failed:
			set(all, triMaybe)
		case p.typ == "reports":
			set(kept, triTrue)
		default:
			both := map[string]bool{}
			for _, k := range kept {
				both[k] = true
			}
			for _, r := range repaired {
				if both[r] {
					s.classes[r] = triTrue
					s.setClass(r, p, pass)
				}
			}
			set(kept, triMaybe)
			set(repaired, triMaybe)
		}
	}
	if hasCalls {
		// cf-agent iterates the promise over its list variables: each
		// iteration is a methods evaluation followed by the call
		if n := len(s.callers); n > 0 {
			if _, seen := s.callerOf[p]; !seen {
				s.callerOf[p], s.callerPass[p] = s.callers[n-1].p, s.callers[n-1].pass
			}
		}
		var at source.Span
		if p.usebundle != nil {
			at = s.a.span(p.bundle.file, p.usebundle.Rval.NameSpan)
		} else {
			at = s.a.span(p.bundle.file, p.p.PromiserSpan)
		}
		called := false
		sure := s.guard(p, sc) == triTrue
		for _, pr := range s.promisers(p, sc) {
			prCalls := calls
			if svcCalls != nil {
				c, ok := svcCalls[pr]
				if !ok {
					s.emit(p, pass, pr)
					continue
				}
				prCalls = []bundleCall{c}
			}
			for _, c := range prCalls {
				if called {
					// cf-agent's pass counter is left at the called
					// bundle's last pass for the next iterations (its log
					// says "(pass 3)"); the label says what it says
					s.emitLabel(p, pass, maxPasses, pr)
				} else {
					s.emit(p, pass, pr)
				}
				called = true
				s.callers = append(s.callers, callFrame{p, pass})
				s.cond, s.condGuarded = strconv.Itoa(sc.act)+" "+p.p.Context, len(p.guards) > 0
				if !sure {
					s.unsure++
				}
				s.runBundle(c.b, c.args, at)
				if !sure {
					s.unsure--
				}
				s.cond, s.condGuarded = "", false
				s.callers = s.callers[:len(s.callers)-1]
			}
		}
	}
}

// listArg encodes a list passed whole to a bundle parameter (see
// evaluator.lookup).
func listArg(vals []string) string { return "\x00" + strings.Join(vals, "\x00") }

// noteEdits records the edit_line/edit_xml bundle a files promise
// evaluates (cf-agent runs it while editing the file, in passes of its
// own, which the oracle does not log).
func (s *scheduler) noteEdits(p *promiseInfo, sc scope) {
	for _, ref := range p.refs {
		lv := ref.c.Lval.Text
		if lv != "edit_line" && lv != "edit_xml" {
			continue
		}
		r := ref.c.Rval
		for _, cand := range s.pol.byKey[qualify(p.bundle.block.Namespace, r.Value)] {
			if cand.block.Type.Text == lv {
				if _, seen := s.editedBy[cand]; !seen {
					s.editedBy[cand] = p
				}
			}
		}
		if len(s.pol.byKey[qualify(p.bundle.block.Namespace, r.Value)]) == 0 {
			for _, cand := range s.pol.byKey[qualify("default", r.Value)] {
				if _, seen := s.editedBy[cand]; !seen && cand.block.Type.Text == lv {
					s.editedBy[cand] = p
				}
			}
		}
	}
}

// bundleCall is one call a methods promise makes: the bundle and its
// arguments.
type bundleCall struct {
	b    *bundleInfo
	args []string
}

// callTargets resolves a usebundle value to the calls it makes: one per
// combination of the values of the list variables its arguments mention
// as scalars ($(list): cf-agent iterates), a list passed whole for
// @(list).
func (s *scheduler) callTargets(r *cfp.Rval, sc scope, ns string) []bundleCall {
	b, _, ok := s.callTarget(r, sc, ns)
	if !ok {
		return nil
	}
	combos := [][]string{nil}
	if r.Kind == cfp.Call {
		for _, it := range r.Items {
			var vals []string
			vs := s.ev.rval(it, sc)
			switch {
			case it.Kind == cfp.NakedVar && strings.HasPrefix(it.Value, "@"):
				vals = []string{listArg(vs.vals)}
			case len(vs.vals) == 0:
				vals = []string{it.Value}
			case it.Kind == cfp.Call:
				vals = []string{strings.Join(vs.vals, ",")}
			default:
				vals = vs.vals
			}
			var next [][]string
			for _, c := range combos {
				for _, v := range vals {
					if len(next) < maxValues {
						next = append(next, append(append([]string(nil), c...), v))
					}
				}
			}
			combos = next
		}
	}
	out := make([]bundleCall, len(combos))
	for i, c := range combos {
		out[i] = bundleCall{b, c}
	}
	return out
}

// classSetter is the promise that first set a class, and in which pass
// (of its own bundle activation).
type classSetter struct {
	p    *promiseInfo
	pass int
	seq  int // order of setting
	// via is the methods promise that called the setter's bundle (nil
	// for a bundle of the bundlesequence), viaPass its pass
	via     *promiseInfo
	viaPass int
}

// callFrame is a methods promise being evaluated, and its pass.
type callFrame struct {
	p    *promiseInfo
	pass int
}

func (s *scheduler) setClass(name string, p *promiseInfo, pass int) {
	if _, ok := s.setBy[name]; !ok {
		cs := classSetter{p: p, pass: pass, seq: len(s.setBy)}
		if n := len(s.callers); n > 0 {
			cs.via, cs.viaPass = s.callers[n-1].p, s.callers[n-1].pass
		}
		s.setBy[name] = cs
	}
}

// guardClasses lists the class names a promise's guard (context,
// if/ifvarclass/unless, and a classes promise's expression) mentions.
func guardClasses(p *promiseInfo) []string {
	var out []string
	add := func(expr string) {
		for i := 0; i < len(expr); {
			if !isWordByte(expr[i]) {
				i++
				continue
			}
			j := i
			for j < len(expr) && (isWordByte(expr[j]) || expr[j] == ':') {
				j++
			}
			isVar := i >= 2 && (expr[i-1] == '(' || expr[i-1] == '{') && expr[i-2] == '$'
			if !isVar {
				out = append(out, strings.TrimPrefix(expr[i:j], "default:"))
			}
			i = j
		}
	}
	var rv func(r *cfp.Rval)
	rv = func(r *cfp.Rval) {
		if r == nil {
			return
		}
		switch r.Kind {
		case cfp.String, cfp.Ident:
			add(r.Value)
		case cfp.Call, cfp.List:
			for _, it := range r.Items {
				rv(it)
			}
		}
	}
	if p.p.Context != "any" {
		add(p.p.Context)
	}
	for _, c := range p.guards {
		rv(c.Rval)
	}
	if p.typ == "classes" {
		for _, c := range p.p.Constraints {
			switch c.Lval.Text {
			case "expression", "and", "or", "not", "xor":
				rv(c.Rval)
			}
		}
	}
	return out
}

// lastSetGuardClass returns the class of a promise's guard that a
// promise of the run set last.
func (s *scheduler) lastSetGuardClass(p *promiseInfo) (string, classSetter, bool) {
	best, found := classSetter{seq: -1}, ""
	for _, c := range guardClasses(p) {
		if set, ok := s.setBy[c]; ok && set.seq > best.seq && s.classes[c] != triFalse {
			best, found = set, c
		}
	}
	return found, best, found != ""
}

// ofBundle names q's bundle when it is not p's.
func ofBundle(q, p *promiseInfo) string {
	if q.bundle == p.bundle {
		return ""
	}
	return " of bundle '" + q.bundle.label + "'"
}

// guardSpan is the text of a promise's guard: its class context, else its
// first if/ifvarclass/unless value, else (classes promises) the
// expression.
func guardSpan(p *promiseInfo) (cfp.Span, bool) {
	if p.p.Context != "any" && p.p.ContextSpan != (cfp.Span{}) {
		return p.p.ContextSpan, true
	}
	inner := func(r *cfp.Rval) cfp.Span {
		if r.Kind == cfp.String {
			return cfp.Span{Start: r.Span.Start + 1, End: r.Span.End - 1}
		}
		return r.Span
	}
	if len(p.guards) > 0 && p.guards[0].Rval != nil {
		return inner(p.guards[0].Rval), true
	}
	for _, c := range p.p.Constraints {
		switch c.Lval.Text {
		case "expression", "and", "or", "not", "xor":
			if c.Rval != nil {
				return inner(c.Rval), true
			}
		}
	}
	return cfp.Span{}, false
}

// checkFourthPass finds, after a bundle activation's three passes, the
// promises that did not run although their guard holds now: a class they
// need was set in pass 3 after their turn, and cf-agent makes no 4th
// pass. cf-agent says nothing about them.
func (s *scheduler) checkFourthPass(order []*promiseInfo, sc scope) {
	for _, p := range order {
		switch p.typ {
		case "vars", "meta", "defaults":
			if s.passes[p.idx] != 0 {
				continue
			}
		case "classes":
			if s.done[doneKey{p, sc.act}] || s.classes[canonify(p.p.Promiser)] == triTrue {
				continue
			}
		default:
			if s.done[doneKey{p, sc.act}] {
				continue
			}
		}
		if s.guardFalse[p.idx] != maxPasses {
			continue // never held back by its guard in the last pass
		}
		g := s.guard(p, sc)
		if p.typ == "classes" {
			g = and3(g, s.classPromiseValue(p, sc))
		}
		if g == triFalse {
			continue
		}
		c, set, ok := s.lastSetGuardClass(p)
		if !ok {
			continue
		}
		at, ok := guardSpan(p)
		if !ok {
			continue
		}
		// the chain of promises that set the classes, back to pass 1
		var rel []analysis.Related
		seen := map[*promiseInfo]bool{}
		cls, q := c, set
		for len(rel) < 10 && !seen[q.p] {
			seen[q.p] = true
			rel = append(rel, analysis.Related{At: q.p.node.Decl, Message: fmt.Sprintf("%s sets class '%s' in pass %d%s", q.p.node.Ref, cls, q.pass, ofBundle(q.p, p))})
			from := q.p
			nc, nq, ok := s.lastSetGuardClass(from)
			// a promise of a called bundle runs because its caller did
			for !ok && q.via != nil && !seen[q.via] && len(rel) < 10 {
				from = q.via
				seen[from] = true
				rel = append(rel, analysis.Related{At: from.node.Decl, Message: fmt.Sprintf("%s calls bundle '%s' in pass %d%s", from.node.Ref, q.p.bundle.label, q.viaPass, ofBundle(from, p))})
				nc, nq, ok = s.lastSetGuardClass(from)
				if !ok {
					// the caller itself may have been called
					q = classSetter{p: from, via: s.callerOf[from]}
					if q.via != nil {
						q.viaPass = s.callerPass[from]
					}
				}
			}
			if !ok {
				break
			}
			cls, q = nc, nq
		}
		may := "is set"
		if s.classes[c] != triTrue {
			may = "can be set"
		}
		sp := s.a.span(p.bundle.file, at)
		s.why[p.idx] = fmt.Sprintf("its guard needs class '%s', set by %s after this promise's turn in pass %d, and cf-agent makes no 4th pass", c, set.p.node.Ref, maxPasses)
		what := fmt.Sprintf("%s promise '%s' is never evaluated", p.typ, p.p.Promiser)
		if p.typ == "classes" {
			what = fmt.Sprintf("class '%s' is never defined", canonify(p.p.Promiser))
		}
		s.a.diag(analysis.Diagnostic{At: sp, Severity: analysis.Warning, Code: "never-runs", NeverRuns: true,
			Message: fmt.Sprintf("%s: class '%s' %s only after its turn in pass %d, and cf-agent evaluates a bundle in at most %d passes (it reports nothing)",
				what, c, may, maxPasses, maxPasses),
			Related: rel})
	}
}

// pkgFailure is what cf-agent says of a packages promise it cannot run,
// and the best value the promise's guard had when the schedule reached it.
type pkgFailure struct {
	msg   string
	guard tri
}

// packageFailure is what cf-agent says of a packages promise that cannot
// run ("" when it can, or may: the policy's control body or an input is
// unknown). A new promise without a package_module looks for body common
// control's.
func (s *scheduler) packageFailure(p *promiseInfo) string {
	switch k := p.pkg; {
	case k&pkgNew != 0 && k&pkgOld != 0:
		return "" // (mixed: another error)
	case k&pkgNew != 0 && k&pkgModule == 0:
		if s.pol.unresolved || s.pol.layered != "" {
			return "" // (masterfiles' control body may name one)
		}
		if c := s.pol.control; c != nil {
			for _, at := range c.Attrs {
				if at.Lval.Text == "package_module" {
					return ""
				}
			}
		}
		return "Can not find package module body in policy."
	case k&pkgNew == 0 && k&pkgMethod == 0:
		return "Old package promise failed sanity check."
	}
	return ""
}

// serviceCall is the bundle cf-agent calls for a services promise, for
// one of its promisers: its service_method body's service_bundle (the
// body's parameters and $(this.promiser), $(this.service_policy)
// expanded), else default:standard_services(promiser, policy), the
// policy "start" unless service_policy says (cf-agent 3.21; the standard
// library's services.cf defines that bundle).
func (s *scheduler) serviceCall(p *promiseInfo, sc scope, promiser string) (bundleCall, bool) {
	if windowsService(p.p) {
		return bundleCall{}, false
	}
	policy := "start"
	if c := p.p.Get("service_policy"); c != nil && c.Rval != nil {
		vs := s.ev.rval(c.Rval, sc)
		if !vs.resolved || len(vs.vals) != 1 {
			return bundleCall{}, false
		}
		policy = vs.vals[0]
	}
	if c := p.p.Get("service_method"); c != nil && c.Rval != nil && (c.Rval.Kind == cfp.Ident || c.Rval.Kind == cfp.Call) {
		ns := p.bundle.block.Namespace
		body := s.pol.body("service_method", c.Rval.Value, ns)
		if body == nil {
			return bundleCall{}, false
		}
		var sb *cfp.Rval
		for _, at := range body.block.Attrs {
			switch {
			case at.Rval == nil:
			case at.Lval.Text == "service_bundle" && sb == nil:
				sb = at.Rval
			case at.Lval.Text == "service_type" && at.Rval.Value == "windows":
				return bundleCall{}, false // Windows' service manager
			}
		}
		if sb != nil {
			params := map[string]string{"this.service_policy": policy}
			for i, prm := range body.block.Params {
				if i < len(c.Rval.Items) {
					vs := s.ev.rval(c.Rval.Items[i], sc)
					if !vs.resolved || len(vs.vals) != 1 {
						return bundleCall{}, false
					}
					params[prm.Text] = vs.vals[0]
				}
			}
			bsc := scope{params: params, dir: body.file.dir, promiser: promiser}
			b, args, ok := s.callTarget(sb, bsc, body.block.Namespace)
			return bundleCall{b: b, args: args}, ok
		}
	}
	b := s.pol.bundle("standard_services", "default")
	if b == nil {
		return bundleCall{}, false
	}
	return bundleCall{b: b, args: []string{promiser, policy}}, true
}

// callTarget resolves a usebundle value to a bundle and its arguments.
func (s *scheduler) callTarget(r *cfp.Rval, sc scope, ns string) (*bundleInfo, []string, bool) {
	if r == nil {
		return nil, nil, false
	}
	name := r.Value
	var args []string
	switch r.Kind {
	case cfp.Call:
		for _, it := range r.Items {
			vs := s.ev.rval(it, sc)
			if len(vs.vals) == 1 {
				args = append(args, vs.vals[0])
			} else {
				args = append(args, fmt.Sprintf("%v", vs.vals))
			}
		}
	case cfp.String, cfp.NakedVar:
		vs := s.ev.expand(r.Value, sc)
		if !vs.resolved || len(vs.vals) != 1 {
			return nil, nil, false
		}
		name = vs.vals[0]
	}
	if strings.Contains(name, "$(") || strings.Contains(name, "${") {
		return nil, nil, false
	}
	b := s.pol.bundle(name, ns)
	return b, args, b != nil
}
