package puppet

import (
	"fmt"
	"strings"

	"github.com/ordering-lsp/ordering-lsp/analysis"
	pp "github.com/ordering-lsp/ordering-lsp/parser/puppet"
	"github.com/ordering-lsp/ordering-lsp/source"
)

// What a run evaluates first: the main manifest (or an environment's
// manifests folder) for a node, a Bolt plan's apply block, or a class or
// defined type analysed alone; then finish evaluates what that declared
// and buildRun (graph.go) makes its relationship graph.

func (a *analyzer) newRun(name, entry string) *run {
	hint, links := 0, 0
	if s := a.prevSnap(name); s != nil {
		// the size of this run's catalog last time (its steps leave out
		// the containers: byKey grew past them in every rebuilt run)
		hint = len(s.declared) + len(s.patterns)
		hint += hint / 8
		links = s.linkCount()
	} else if fi := a.byURI[entry]; fi != nil && fi.src != nil {
		// A first analysis: about one resource per 100 bytes of the main
		// manifest (a generated 100k-resource manifest grew this map
		// through 17 rehashes).
		hint = len(fi.src.Text) / 100
	}
	r := &run{a: a, name: name, entry: entry, stages: map[string]*res{}, strict: a.strict}
	if sc := a.scratch; sc != nil && sc.byKey != nil && hint == 0 {
		r.byKey, r.aliases, r.classes = sc.byKey, sc.aliases, sc.classes
		sc.byKey, sc.aliases, sc.classes = nil, nil, nil // (cleared: keepMaps)
		r.resources = sc.resources[:0]
		sc.resources = nil
	} else {
		r.byKey, r.aliases, r.classes = make(map[string]*res, hint), map[string]*res{}, map[string]*res{}
	}
	if !a.strict && !a.req.Once {
		// A run's inputs only say whether the next analysis may reuse it:
		// an analysis that will not run again records none (its recordings
		// replay none). On operations-puppet: 2% of a check's CPU.
		r.deps = map[depKey]string{}
	}
	r.probing = !a.strict && a.ordering == "manifest" && !a.req.Once
	if links > 0 && !a.linksUnread(a.strict) {
		r.links = make([]linkRec, 0, links+links/8)
	}
	a.cur = r
	st := r.newRes("Stage", "main", "stage", source.Span{})
	r.add(st)
	r.stages["main"] = st
	m := r.newRes("Class", "main", "main", source.Span{})
	m.display = "Class[Main]" // how Puppet prints its anchors
	r.add(m)
	r.classes["main"] = m
	r.main = m
	r.top = newScope(nil, nil, m, "")
	m.inner = r.top
	return r
}

// runFile simulates `puppet apply FILE`; sel picks one node definition
// (server mode), nil picks as Puppet would for the certname.
func (a *analyzer) runFile(fi *fileInfo, sel *nodeInfo, name string) analysis.Run {
	return a.buildRun(a.evalFiles([]*fileInfo{fi}, sel, name, false))
}

// evalFiles evaluates files as one main manifest (Puppet's `manifest`
// setting may name a directory: its files are evaluated in order).
func (a *analyzer) evalFiles(fis []*fileInfo, sel *nodeInfo, name string, envRun bool) *run {
	r := a.newRun(name, fis[0].uri)
	var nodes []*nodeInfo
	for _, fi := range fis {
		fi := fi
		a.dep('f', fi.uri, func() string { return astID(fi) })
	}
	if envRun {
		a.dep('F', "", a.envList)
	}
	r.encParameters()
	for _, fi := range fis {
		e := &env{sc: r.top, f: fi}
		r.stmts(e, fi.ast.Stmts)
		nodes = append(nodes, fi.nodes...)
	}
	if len(nodes) > 0 {
		n := sel
		if n == nil {
			n = pickNode(nodes, a.certname)
		}
		if n == nil && !a.strict && a.forNode == "" && len(nodes) == 1 {
			n = nodes[0]
		}
		if n == nil {
			r.diag(a.span(nodes[0].file, nodes[0].def.Loc), analysis.Error, "no-node",
				a.noNodeMessage())
		} else {
			nr := r.newRes("Node", n.name, "node", n.node.Decl)
			nr.container = r.main
			nr.scope = r.top
			r.add(nr)
			nr.node = n.node
			sc := newScope(r.top, r.top, nr, "")
			// `node x inherits y` (Puppet 3; Puppet 7 refuses the whole
			// manifest, an error reported on its own): the body reads the
			// variables the parent node set, which we do not follow;
			// unknown, never undef (remotesyssupport's node abcdefault:
			// four Host[] built from the parent's names made false
			// duplicates)
			sc.absent = n.def.Parent != nil
			nr.inner = sc
			r.stmts(&env{sc: sc, f: n.file, sym: n.node}, n.def.Body)
			r.encClasses(&env{sc: sc, f: n.file, sym: n.node})
		}
	} else if r.a.enc != nil && len(fis) > 0 {
		r.encClasses(&env{sc: r.top, f: fis[0]})
	}
	r.finish()
	return r
}

// defaultCertname is the node name node blocks are matched with when the
// user names none (setting puppet.certname, ordering.node / --node): the
// name Puppet had when the oracle cases were recorded, so `node
// 'puppet-order'` still beats `node default` there. Nobody chose it, so
// no message names it (forCert).
const defaultCertname = "puppet-order"

// forCert is the " for NODE" Puppet puts after "Could not find class ::x":
// the node the user named, in Puppet's words, since that is what `puppet
// apply --certname NODE` prints; nothing when no node was named, where
// "for puppet-order" would name a node that does not exist ("Could not
// find class ::x" alone is true of every node).
func (a *analyzer) forCert() string {
	if !a.certnamed {
		return ""
	}
	return " for " + a.certname
}

// noNodeMessage is Puppet's "Could not find node statement with name
// 'default' or 'NODE'" for the node the user named. With no name chosen it
// says "Could not find node statement with name 'default'": the only
// block that could apply to a node nobody named is `node default`, and
// the placeholder name would send the user looking for a node block
// called 'puppet-order' that no real node has.
func (a *analyzer) noNodeMessage() string {
	if !a.certnamed {
		return "Could not find node statement with name 'default'"
	}
	return fmt.Sprintf("Could not find node statement with name 'default' or '%s'", a.certname)
}

// pickNode classifies as Puppet 7's compiler does (Compiler#evaluate_ast_node
// and TypeCollection#node): the certname itself, lower-cased (Puppet 7
// no longer tries the shorter names a.b and a of a.b.c: Node#names is
// the certname alone), then the regexes in the order they are defined,
// then `default`.
func pickNode(nodes []*nodeInfo, cert string) *nodeInfo {
	cert = strings.ToLower(cert)
	for _, n := range nodes {
		for _, m := range n.def.Matches {
			if s, ok := m.(*pp.Str); ok && strings.EqualFold(s.Value, cert) {
				return n
			}
		}
	}
	for _, n := range nodes {
		for _, m := range n.def.Matches {
			if re, ok := m.(*pp.Regex); ok {
				if rx, err := compileRegex(re.Value); err == nil && rx.MatchString(cert) {
					return n
				}
			}
		}
	}
	for _, n := range nodes {
		for _, m := range n.def.Matches {
			// (node 'default' is the default node too: nodeKeyOf)
			if k, ok := nodeKeyOf(m); ok && k == "default" {
				return n
			}
		}
	}
	return nil
}

// applyInfo is one `apply(targets) { ... }` block of a Bolt plan: Bolt
// compiles its body to a catalog for each target and applies it, so it
// has an order, missing targets and cycles of its own, while the plan
// around it never enters a catalog.
type applyInfo struct {
	name string // "apply mymod::deploy #1"
	file *fileInfo
	call *pp.Call
	plan *pp.Block
}

// planApplies lists a plan's apply blocks in text order.
func planApplies(fi *fileInfo, plan *pp.Block) []*applyInfo {
	var out []*applyInfo
	for _, s := range plan.Body {
		pp.Walk(s, func(n pp.Node) bool {
			c, ok := n.(*pp.Call)
			if !ok || c.Name != "apply" || c.Lambda == nil || len(c.Lambda.Params) > 0 {
				return true
			}
			out = append(out, &applyInfo{name: fmt.Sprintf("apply %s #%d", strings.ToLower(plan.Name), len(out)+1), file: fi, call: c, plan: plan})
			return false
		})
	}
	return out
}

// evalApply evaluates an apply block's body as a main manifest. Bolt
// gives the block the plan's variables (its parameters, what it
// assigns, the parameters of the lambdas around the block): their
// values are the caller's or computed by the plan, unknown here, never
// the undef of a variable nothing sets (nest::build::stage3's
// "${hostroot}/etc/x" beside '/etc/x' is no duplicate).
func (a *analyzer) evalApply(ap *applyInfo) *run {
	r := a.newRun(ap.name, ap.file.uri)
	fi := ap.file
	a.dep('f', fi.uri, func() string { return astID(fi) })
	if ap.plan != nil {
		for _, p := range ap.plan.Params {
			r.top.vars.set(p.Name, unknown(r.span(fi, p.NameLoc)))
		}
		for _, s := range ap.plan.Body {
			pp.Walk(s, func(n pp.Node) bool {
				switch t := n.(type) {
				case *pp.Call:
					if t == ap.call {
						return false // (the block's own variables are its own)
					}
				case *pp.Lambda:
					for _, p := range t.Params {
						r.top.vars.set(p.Name, unknown(r.span(fi, p.NameLoc)))
					}
				case *pp.Binary:
					if t.Op != "=" {
						break
					}
					vs := []pp.Node{t.Left}
					if arr, ok := t.Left.(*pp.Array); ok {
						vs = arr.Elems
					}
					for _, v := range vs {
						if vr, ok := v.(*pp.Var); ok {
							r.top.vars.set(strings.TrimPrefix(vr.Name, "::"), unknown(r.span(fi, vr.Loc)))
						}
					}
				}
				return true
			})
		}
	}
	r.stmts(&env{sc: r.top, f: fi}, ap.call.Lambda.Body)
	r.finish()
	return r
}

// evalSynthetic evaluates `include x` or `x { 'title': }` alone.
func (a *analyzer) evalSynthetic(kind, name string) *run {
	r := a.newRun(kind+" "+name, "")
	r.strict = false
	r.synthetic = true
	if kind == "class" {
		ci := a.classes[name]
		e := &env{sc: r.top, f: ci.file}
		r.declareClass(e, name, a.span(ci.file, ci.def.NameLoc), "include", nil)
	} else {
		d := a.defines[name]
		a.dep('d', name, func() string { return astID(d.file) })
		x := r.newRes(capType(name), "title", "define", a.span(d.file, d.def.NameLoc))
		x.define = d
		x.scope = r.top
		x.container = r.main
		x.parentSym = d.node
		x.synthetic = true
		r.add(x)
		r.pending = append(r.pending, x)
	}
	r.finish()
	return r
}
