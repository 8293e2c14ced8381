package cfengine

import (
	"fmt"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/ordering-lsp/ordering-lsp/analysis"
	cfp "github.com/ordering-lsp/ordering-lsp/parser/cfengine"
	"github.com/ordering-lsp/ordering-lsp/source"
)

// fileInfo is one parsed policy file and what it defines. The System
// keeps a lowered template per file content (see lowerFile); every
// analysis works on a copy of it (instantiate) whose nodes are fresh, so a
// Result handed out earlier is never changed by a later analysis.
type fileInfo struct {
	src     *source.File
	parsed  *cfp.File
	dir     string
	bundles []*bundleInfo
	bodies  []*bodyInfo
	blocks  []*cfp.Block
	// template data: nodes in creation order (Parent as an index in
	// parents, -1 for none) and the number of promises.
	nodeTmpl  []analysis.Node
	parents   []int
	nPromises int
	// vars promises by "bundle.var" key and array elements by
	// "bundle.array" key, in definition order (template bundle keys)
	varIdx, arrIdx map[string][]varLoc
	// facts about the file's blocks
	hasControl, hasMain, hasAgent bool
	// nsMain: the namespace of a bundle main outside the default one (cf-agent
	// does not find it for the default bundlesequence)
	nsMain string
	// outcomes caches what the file's classes bodies set, by body and
	// arguments (only for bodies that use nothing but their parameters).
	// It lives in the template: valid while the file is unchanged.
	outcomes map[outcomeKey]*outcomeSet
	// checked is set once the policy-independent checks ran (per
	// analysis).
	checked bool
	// used marks the template as used by the current analysis (cache
	// eviction).
	used uint64
}

type bundleInfo struct {
	block    *cfp.Block
	file     *fileInfo
	key      string // name, or ns:name outside the default namespace
	tkey     string // type + " " + key
	label    string // as cf-agent prints it: name or ns:name
	dir      string
	nid      int // node index in the file
	node     *analysis.Node
	promises []*promiseInfo // text order
	// vars promises by promiser (for $(bundle.var) links), and the
	// promises that may define classes (classes: promises and promises
	// with a classes => body), as indexes into promises.
	vars     map[string][]int
	definers []int
	// broken: the bundle has a syntax error; only its header was read
	// (defined, nothing to run)
	broken bool
	// order is the promise indexes in normal ordering (sections merged in
	// file order, custom types last); rank gives each type's position.
	order []int
	rank  map[string]int
}

type bodyInfo struct {
	block *cfp.Block
	file  *fileInfo
	key   string // type + " " + (ns:)name
	// pure is true for a classes body whose attributes use only its
	// parameters
	pure bool
	// broken: the body has a syntax error; only its header was read
	broken bool
	nid    int
	node   *analysis.Node
}

// promiseInfo is one promise in one analysis: its template (shared by
// every analysis while the file is unchanged), its bundle and node.
type promiseInfo struct {
	*promiseTmpl
	bundle *bundleInfo
	node   *analysis.Node
	idx    int // number in the analysis
	// emitted is the node each of refs last resolved to
	emitted []*analysis.Node
	// outSet is what the classes body outBody sets for this promise, kept
	// when the arguments are literal (the same in every policy)
	outBody *bodyInfo
	outSet  *outcomeSet
	// varsLinked: the $(var) references of the promise's own bundle are
	// linked (they do not depend on the policy)
	varsLinked bool
}

// promiseTmpl is what is known about a promise from its file alone.
type promiseTmpl struct {
	p       *cfp.Promise
	typ     string
	nid     int
	handle  string
	textIdx int
	// position among the promises of its type in its bundle (sections
	// merged in file order), 0-based, and the count
	typeIdx, typeCount int
	// varKey is bundle.promiser for vars promises
	varKey string
	// constraints looked up often
	classes   *cfp.Constraint
	dependsOn *cfp.Constraint
	usebundle *cfp.Constraint
	// refs are the constraints naming a body or a bundle
	refs []promiseRef
	// classesKeys are the body keys of `classes => name(...)` (own
	// namespace, default); literalClassesArgs is true when every argument
	// is a string without variables
	classesKeys        [2]string
	literalClassesArgs bool
	// guards are the if/ifvarclass/unless constraints; promisers is the
	// promiser alone when it has no variable (nil otherwise)
	guards    []*cfp.Constraint
	promisers []string
	// depends are the handles of depends_on; labelTail is the end of
	// the step label when the promiser has no variable
	depends []*cfp.Rval
	// pkg: a packages promise's implementation (pkgNew/pkgOld: which
	// attributes it has, packageKind)
	pkg       uint8
	labelTail string
	labels    [maxPasses + 1]string
	// orderFact and topDownFact are the hover lines on its place in the
	// bundle under normal ordering and under top_down evaluation
	orderFact, topDownFact string
	// varRefs are the qualified $(bundle.var) references in the
	// promiser and the values, for links.
	varRefs []varRef
}

// varLoc is a vars promise of a file: bundle and promise indexes.
type varLoc struct{ b, p int32 }

type promiseRef struct {
	c    *cfp.Constraint
	body bool // else a bundle
}

type varRef struct {
	at           cfp.Span
	bundle, name string
}

// impliedCall is the usebundle cf-agent gives a promise that names no
// bundle, written at its promiser as `usebundle => "bundle"` would be:
// a methods promise without one calls the bundle its promiser names
// (`methods: "init";`), a services promise without a service_method
// calls default:standard_services (the standard library's). cf-agent
// aborts the run when no policy file defines it; cf-promises accepts
// either.
func impliedCall(p *cfp.Promise, bundle string) *cfp.Constraint {
	r := &cfp.Rval{Kind: cfp.String, Value: bundle, Span: p.PromiserSpan, NameSpan: p.PromiserSpan}
	return &cfp.Constraint{Lval: cfp.Word{Text: "usebundle", Span: p.PromiserSpan}, Rval: r}
}

// What a packages promise needs to run (packageKind): cf-agent 3.21
// takes one with policy, version, architecture, options or
// package_module for a new one, which needs a package_module body (its
// own, else body common control's), and any other for an old one, which
// needs a package_method; one lacking it fails its sanity check in
// every pass and is never kept (oracle case packages_sanity).
const (
	pkgNew    = 1 << iota
	pkgOld    // (package_policy, package_version, ...)
	pkgModule // its own package_module
	pkgMethod // its package_method
)

func packageKind(p *cfp.Promise) uint8 {
	var k uint8
	for _, c := range p.Constraints {
		switch lv := c.Lval.Text; {
		case lv == "package_module":
			k |= pkgNew | pkgModule
		case lv == "policy" || lv == "version" || lv == "architecture" || lv == "options":
			k |= pkgNew
		case lv == "package_method":
			k |= pkgOld | pkgMethod
		case strings.HasPrefix(lv, "package_"):
			k |= pkgOld
		}
	}
	return k
}

// windowsService: a services promise cf-agent keeps with Windows' own
// service manager, calling no bundle: one whose class context holds only
// on Windows hosts, where service_type "windows" is the default (a
// service_method body may say so too: serviceCall).
func windowsService(p *cfp.Promise) bool {
	if p.VarContext || p.Context == "any" {
		return false
	}
	return triExpr(p.Context, func(c string) tri {
		if c == "windows" {
			return triFalse
		}
		return triMaybe
	}) == triFalse
}

func qualify(ns, name string) string {
	if strings.Contains(name, ":") {
		if strings.HasPrefix(name, "default:") {
			return strings.TrimPrefix(name, "default:")
		}
		return name
	}
	if ns == "" || ns == "default" {
		return name
	}
	return ns + ":" + name
}

// lowerFile builds the template of one parsed file: everything about it
// that does not depend on the rest of the policy.
func lowerFile(src *source.File, parsed *cfp.File) *fileInfo {
	fi := &fileInfo{src: src, parsed: parsed, blocks: parsed.Blocks, outcomes: map[outcomeKey]*outcomeSet{}}
	if src.Path != "" {
		fi.dir = filepath.Dir(src.Path)
	}
	span := func(s cfp.Span) source.Span { return source.Span{URI: src.URI, Start: s.Start, End: s.End} }
	addNode := func(n analysis.Node, parent int) int {
		fi.nodeTmpl = append(fi.nodeTmpl, n)
		fi.parents = append(fi.parents, parent)
		return len(fi.nodeTmpl) - 1
	}
	// Blocks with a syntax error are defined by their header (cf-promises
	// reports the error, never a reference to them as undefined): they
	// come after the others, with no content.
	blocks := parsed.Blocks
	if len(parsed.Broken) > 0 {
		blocks = append(append([]*cfp.Block(nil), blocks...), parsed.Broken...)
	}
	for i, b := range blocks {
		broken := i >= len(parsed.Blocks)
		switch b.Kind {
		case "bundle":
			bi := &bundleInfo{block: b, file: fi, key: qualify(b.Namespace, b.Name.Text), dir: fi.dir, broken: broken}
			bi.label = bi.key
			bi.tkey = b.Type.Text + " " + bi.key
			switch {
			case bi.key == "main" || b.Name.Text == "__main__":
				fi.hasMain = true
			case b.Name.Text == "main" && fi.nsMain == "":
				fi.nsMain = b.Namespace
			}
			if b.Type.Text == "agent" {
				fi.hasAgent = true
			}
			bi.nid = addNode(analysis.Node{
				Kind: "bundle", Ref: "bundle " + b.Type.Text + " " + bi.key,
				Decl: span(b.Name.Span), Full: span(b.Span), Container: true,
			}, -1)
			counts := map[string]int{}
			for _, s := range b.Sections {
				counts[s.Type.Text] += len(s.Promises)
			}
			idx := map[string]int{}
			for _, s := range b.Sections {
				for _, p := range s.Promises {
					pi := &promiseInfo{bundle: bi, promiseTmpl: &promiseTmpl{p: p, typ: s.Type.Text, textIdx: len(bi.promises),
						typeIdx: idx[s.Type.Text], typeCount: counts[s.Type.Text]}}
					idx[s.Type.Text]++
					for _, c := range p.Constraints {
						switch c.Lval.Text {
						case "handle":
							if c.Rval != nil && c.Rval.Kind == cfp.String && pi.handle == "" {
								pi.handle = c.Rval.Value
							}
						case "classes":
							if pi.classes == nil {
								pi.classes = c
								if r := c.Rval; r != nil && (r.Kind == cfp.Ident || r.Kind == cfp.Call) {
									pi.classesKeys = [2]string{"classes " + qualify(b.Namespace, r.Value), "classes " + qualify("default", r.Value)}
									pi.literalClassesArgs = true
									for _, it := range r.Items {
										if it.Kind != cfp.String || strings.ContainsAny(it.Value, "$@") {
											pi.literalClassesArgs = false
										}
									}
								}
							}
						case "depends_on":
							if pi.dependsOn == nil {
								pi.dependsOn = c
							}
						case "usebundle":
							if pi.usebundle == nil {
								pi.usebundle = c
							}
						}
						switch c.Lval.Text {
						case "if", "ifvarclass", "unless":
							pi.guards = append(pi.guards, c)
						}
						if r := c.Rval; r != nil {
							lv := c.Lval.Text
							if bodyLvals[lv] && (r.Kind == cfp.Ident || r.Kind == cfp.Call) {
								pi.refs = append(pi.refs, promiseRef{c: c, body: true})
							}
							if _, ok := bundleLvals[lv]; ok && !strings.ContainsAny(r.Value, "$@") && (r.Kind == cfp.Ident || r.Kind == cfp.Call || r.Kind == cfp.String) {
								pi.refs = append(pi.refs, promiseRef{c: c})
							}
						}
					}
					if pi.typ == "packages" {
						pi.pkg = packageKind(p)
					}
					if pi.typ == "services" && p.Get("service_method") == nil && !windowsService(p) {
						pi.refs = append(pi.refs, promiseRef{c: impliedCall(p, "default:standard_services")})
					}
					if pi.typ == "methods" && pi.usebundle == nil {
						pi.usebundle = impliedCall(p, p.Promiser)
						if !strings.ContainsAny(p.Promiser, "$@") {
							pi.refs = append(pi.refs, promiseRef{c: pi.usebundle})
						}
					}
					if pi.typ == "vars" {
						pi.varKey = bi.key + "." + p.Promiser
						loc := varLoc{int32(len(fi.bundles)), int32(len(bi.promises))}
						if fi.varIdx == nil {
							fi.varIdx, fi.arrIdx = map[string][]varLoc{}, map[string][]varLoc{}
						}
						fi.varIdx[pi.varKey] = append(fi.varIdx[pi.varKey], loc)
						if i := strings.IndexByte(pi.varKey, '['); i >= 0 {
							fi.arrIdx[pi.varKey[:i]] = append(fi.arrIdx[pi.varKey[:i]], loc)
						}
						if bi.vars == nil {
							bi.vars = map[string][]int{}
						}
						bi.vars[p.Promiser] = append(bi.vars[p.Promiser], len(bi.promises))
					}
					if pi.typ == "classes" || pi.classes != nil {
						bi.definers = append(bi.definers, len(bi.promises))
					}
					pi.varRefs = scanVarRefs(src.Text, p)
					if !strings.ContainsAny(p.Promiser, "$@") {
						pi.promisers = []string{p.Promiser}
						pi.labelTail = labelTail(bi.label, pi.typ, p.Promiser)
					}
					if pi.dependsOn != nil {
						pi.depends = pi.dependsOn.Rval.Scalars()
					}
					pi.nid = addNode(analysis.Node{
						Kind: "promise", Ref: s.Type.Text + ": " + strconv.Quote(p.Promiser),
						Decl: span(p.PromiserSpan), Full: span(p.Span),
					}, bi.nid)
					bi.promises = append(bi.promises, pi)
					fi.nPromises++
				}
			}
			bi.rank, bi.order = normalOrder(bi)
			for _, p := range bi.promises {
				kind := "normal ordering"
				if !cfp.BuiltinPromiseTypes[p.typ] {
					kind = "custom promise type, evaluated at the end of each pass"
				}
				p.orderFact = fmt.Sprintf("%s (%s type, %s), %s promise of %d", p.typ, analysis.Ordinal(bi.rank[p.typ]+1), kind, analysis.Ordinal(p.typeIdx+1), p.typeCount)
				p.topDownFact = fmt.Sprintf("top_down: %s promise of %d in the bundle", analysis.Ordinal(p.textIdx+1), len(bi.promises))
			}
			fi.bundles = append(fi.bundles, bi)
		case "body", "promise":
			key := b.Type.Text + " " + qualify(b.Namespace, b.Name.Text)
			if b.Kind == "promise" {
				key = "promise " + b.Name.Text
			}
			if b.Kind == "body" && b.Type.Text == "common" && b.Name.Text == "control" {
				fi.hasControl = true
			}
			bo := &bodyInfo{block: b, file: fi, key: key, broken: broken}
			if b.Kind == "body" && b.Type.Text == "classes" {
				bo.pure = bodyUsesOnlyParams(b)
			}
			bo.nid = addNode(analysis.Node{
				Kind: b.Kind, Ref: b.Kind + " " + b.Type.Text + " " + qualify(b.Namespace, b.Name.Text),
				Decl: span(b.Name.Span), Full: span(b.Span), Container: true,
			}, -1)
			fi.bodies = append(fi.bodies, bo)
		}
	}
	return fi
}

func labelTail(bundle, typ, promiser string) string {
	return " bundle=" + bundle + " type=" + typ + " promiser=" + escapeLabel(promiser)
}

// normalOrder ranks a bundle's promise types (the bundle type's normal
// order, custom types after all of them in order of appearance) and lists
// its promises in that order, text order inside a type.
func normalOrder(b *bundleInfo) (map[string]int, []int) {
	order := cfp.NormalOrder(b.block.Type.Text)
	if order == nil {
		order = cfp.NormalOrder("agent")
	}
	rank := make(map[string]int, len(order)+2)
	for i, t := range order {
		rank[t] = i
	}
	next := len(order)
	for _, s := range b.block.Sections {
		if _, ok := rank[s.Type.Text]; !ok {
			rank[s.Type.Text] = next
			next++
		}
	}
	idx := make([]int, len(b.promises))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(i, j int) bool { return rank[b.promises[idx[i]].typ] < rank[b.promises[idx[j]].typ] })
	return rank, idx
}

// instantiate copies a file template for one analysis, with fresh nodes
// added to the analysis' graph.
func (a *analyzer) instantiate(t *fileInfo, src *source.File) *fileInfo {
	fi := &fileInfo{}
	*fi = *t
	fi.src = src
	nodes := make([]analysis.Node, len(t.nodeTmpl))
	copy(nodes, t.nodeTmpl)
	for i := range nodes {
		if p := t.parents[i]; p >= 0 {
			nodes[i].Parent = &nodes[p]
		}
		a.graph.Add(&nodes[i])
	}
	bundles := make([]bundleInfo, len(t.bundles))
	promises := make([]promiseInfo, t.nPromises)
	ptrs := make([]*promiseInfo, t.nPromises)
	fi.bundles = make([]*bundleInfo, len(t.bundles))
	k := 0
	for i, tb := range t.bundles {
		b := &bundles[i]
		*b = *tb
		b.file = fi
		b.node = &nodes[tb.nid]
		b.promises = ptrs[k : k+len(tb.promises) : k+len(tb.promises)]
		for j, tp := range tb.promises {
			p := &promises[k]
			*p = promiseInfo{promiseTmpl: tp.promiseTmpl, bundle: b, node: &nodes[tp.nid], idx: a.nProm}
			a.nProm++
			b.promises[j] = p
			k++
		}
		fi.bundles[i] = b
	}
	bodies := make([]bodyInfo, len(t.bodies))
	fi.bodies = make([]*bodyInfo, len(t.bodies))
	for i, tb := range t.bodies {
		bo := &bodies[i]
		*bo = *tb
		bo.file = fi
		bo.node = &nodes[tb.nid]
		fi.bodies[i] = bo
	}
	return fi
}

// policy is the set of files one entry file loads (itself and its inputs,
// followed recursively) and what they define.
type policy struct {
	entry    *fileInfo
	entryDir string
	// layered: the cfbs.json of a module whose __main__ runs it alone; cfbs
	// builds the module into masterfiles, whose library may define what
	// the file uses (cfengine/modules: contain => powershell)
	layered  string
	files    []*fileInfo
	inFiles  map[*fileInfo]int // position in files + 1
	bundles  []*bundleInfo
	byKey    map[string][]*bundleInfo
	bodies   map[string][]*bodyInfo
	bodyKeys []string // bodies' keys in order of appearance
	handles  map[string][]*promiseInfo
	augments map[string][]string
	control  *cfp.Block // body common control
	controlF *fileInfo  // the file holding control
	a        *analyzer
	// mainAlias is the entry's __main__ bundle, which runs as main
	mainAlias *bundleInfo
	// varCache memoizes varDefs (reset when a file is added)
	varCache map[varCacheKey][]*varDef
	// ev is the evaluator inputs were expanded with; valid for the
	// policy's final file set.
	ev *evaluator
	// certain: the files every host that runs the policy loads (the
	// entry, and inputs named unconditionally, by one value, by a file
	// itself certain). Two definitions of one name are cf-promises'
	// error only when both files are: inputs in branches of classes
	// that exclude each other (cfengine_3_4:: and !cfengine_3_4::) are
	// never loaded together (jameswhite/masterfiles, itoed's lib/3.5).
	certain map[*fileInfo]bool
	// unresolved is true when some inputs could not be computed
	// statically: missing-definition diagnostics are then not given.
	unresolved bool
	// missing is true when an input file does not exist; missingDiags
	// are the warnings about them (the last round's)
	missing      bool
	missingDiags []analysis.Diagnostic
	// ignoreMissing: body common control sets ignore_missing_inputs
	ignoreMissing bool
	// brokenInputs: a control body with a syntax error (its inputs are
	// unknown); brokenControl: that body is body common control (the
	// bundlesequence is unknown too)
	brokenInputs, brokenControl bool
	// hostLib: $(sys.libdir) is not in the workspace (no lib/ beside the
	// entry file): inputs from it come from the host
	hostLib    bool
	inputLinks []analysis.Link
	// clsDefs: classDefs of the round, for clsDefsN files
	clsDefs  map[string]string
	clsDefsN int
	// clsDefsKey: clsDefs written out (condCubes' cache key)
	clsDefsKey string
}

func (pol *policy) add(fi *fileInfo) {
	if pol.inFiles[fi] > 0 {
		return
	}
	pol.inFiles[fi] = len(pol.files) + 1
	pol.files = append(pol.files, fi)
	pol.varCache = nil
	for _, b := range fi.bundles {
		if b.block.Name.Text == "__main__" {
			// __main__ is main in the entry file and ignored elsewhere
			if fi != pol.entry {
				continue
			}
			pol.mainAlias = b
			if b.key != "main" {
				b.key, b.label = "main", "main"
				b.tkey = b.block.Type.Text + " main"
				for _, p := range b.promises {
					t := *p.promiseTmpl // the template stays as it is
					t.labels = [maxPasses + 1]string{}
					p.promiseTmpl = &t
					if p.labelTail != "" {
						p.labelTail = labelTail(b.label, p.typ, p.p.Promiser)
					}
					if p.typ == "vars" {
						p.varKey = b.key + "." + p.p.Promiser
					}
				}
			}
		}
		pol.bundles = append(pol.bundles, b)
		pol.byKey[b.key] = append(pol.byKey[b.key], b)
		for _, p := range b.promises {
			if p.handle != "" {
				pol.handles[p.handle] = append(pol.handles[p.handle], p)
			}
		}
	}
	for _, bo := range fi.bodies {
		if _, ok := pol.bodies[bo.key]; !ok {
			pol.bodyKeys = append(pol.bodyKeys, bo.key)
		}
		pol.bodies[bo.key] = append(pol.bodies[bo.key], bo)
		if bo.broken && bo.block.Kind == "body" && bo.block.Name.Text == "control" {
			// a control body with a syntax error: its inputs (and, for
			// common control, its bundlesequence) are unknown
			pol.brokenInputs = true
			if bo.block.Type.Text == "common" {
				pol.brokenControl = true
			}
			continue
		}
		if pol.control == nil && bo.block.Kind == "body" && bo.block.Type.Text == "common" && bo.block.Name.Text == "control" {
			pol.control = bo.block
			pol.controlF = fi
		}
	}
}

// varDefs returns the definitions of a variable ("bundle.var") or, with
// array, of the elements of an array ("bundle.array"), in policy order.
func (pol *policy) varDefs(key string, array bool) []*varDef {
	ck := varCacheKey{key, array}
	if out, ok := pol.varCache[ck]; ok {
		return out
	}
	out := pol.findVarDefs(key, array)
	if pol.varCache == nil {
		pol.varCache = map[varCacheKey][]*varDef{}
	}
	pol.varCache[ck] = out
	return out
}

type varCacheKey struct {
	key   string
	array bool
}

func (pol *policy) findVarDefs(key string, array bool) []*varDef {
	hits := pol.a.varHits(key, array)
	var in []varHit
	for _, h := range hits {
		if pol.inFiles[h.fi] > 0 {
			in = append(in, h)
		}
	}
	if len(in) > 1 {
		sort.SliceStable(in, func(i, j int) bool { return pol.inFiles[in[i].fi] < pol.inFiles[in[j].fi] })
	}
	var out []*varDef
	for k, h := range in {
		if m := pol.mainAlias; m != nil && m.file == h.fi && (k == 0 || in[k-1].fi != h.fi) {
			out = append(out, pol.mainVarDefs(key, array)...)
		}
		b := h.fi.bundles[h.loc.b]
		if b.block.Name.Text == "__main__" {
			continue // only as main
		}
		p := b.promises[h.loc.p]
		out = append(out, &varDef{bundle: b, promise: p.p, name: p.p.Promiser})
	}
	if m := pol.mainAlias; m != nil && len(in) == 0 {
		out = append(out, pol.mainVarDefs(key, array)...)
	}
	return out
}

// mainVarDefs are the definitions of key in the entry's __main__ bundle
// (which runs as main: main.x).
func (pol *policy) mainVarDefs(key string, array bool) []*varDef {
	m := pol.mainAlias
	var out []*varDef
	for _, p := range m.promises {
		if p.typ != "vars" {
			continue
		}
		k := p.varKey
		if array {
			i := strings.IndexByte(k, '[')
			if i < 0 {
				continue
			}
			k = k[:i]
		}
		if k == key {
			out = append(out, &varDef{bundle: m, promise: p.p, name: p.p.Promiser})
		}
	}
	return out
}

// varHit is a vars promise of a loaded file.
type varHit struct {
	fi  *fileInfo
	loc varLoc
}

// varHits returns every vars promise of the analysis' loaded files with
// the key (or array elements of the array), in load order. The index
// grows as files are loaded.
func (a *analyzer) varHits(key string, array bool) []varHit {
	for ; a.varIndexed < len(a.order); a.varIndexed++ {
		fi := a.order[a.varIndexed]
		for k, locs := range fi.varIdx {
			for _, l := range locs {
				a.varIndex[k] = append(a.varIndex[k], varHit{fi, l})
			}
		}
		for k, locs := range fi.arrIdx {
			for _, l := range locs {
				a.arrIndex[k] = append(a.arrIndex[k], varHit{fi, l})
			}
		}
	}
	if array {
		return a.arrIndex[key]
	}
	return a.varIndex[key]
}

// bodyByKeys finds a body by its keys in a namespace and in default.
func (pol *policy) bodyByKeys(k [2]string) *bodyInfo {
	if bs := pol.bodies[k[0]]; len(bs) > 0 {
		return firstParsed(bs)
	}
	if bs := pol.bodies[k[1]]; len(bs) > 0 {
		return firstParsed(bs)
	}
	return nil
}

// customType returns the promise block defining a custom promise type,
// or nil.
func (pol *policy) customType(name string) *bodyInfo {
	if bs := pol.bodies["promise "+name]; len(bs) > 0 {
		return firstParsed(bs)
	}
	return nil
}

// bundle finds a bundle by name as written in ns (qualified names win;
// an unqualified name is looked up in ns, then in default).
func (pol *policy) bundle(name, ns string) *bundleInfo {
	if bs := pol.byKey[qualify(ns, name)]; len(bs) > 0 {
		return pickRunnable(bs)
	}
	if bs := pol.byKey[qualify("default", name)]; len(bs) > 0 {
		return pickRunnable(bs)
	}
	return nil
}

// pickRunnable prefers an agent or common bundle, and one that parsed
// over one with a syntax error.
func pickRunnable(bs []*bundleInfo) *bundleInfo {
	var best *bundleInfo
	for _, b := range bs {
		if b.block.Type.Text == "agent" || b.block.Type.Text == "common" {
			if !b.broken {
				return b
			}
			if best == nil {
				best = b
			}
		}
	}
	if best != nil {
		return best
	}
	for _, b := range bs {
		if !b.broken {
			return b
		}
	}
	return bs[0]
}

func (pol *policy) body(typ, name, ns string) *bodyInfo {
	if bs := pol.bodies[typ+" "+qualify(ns, name)]; len(bs) > 0 {
		return firstParsed(bs)
	}
	if bs := pol.bodies[typ+" "+qualify("default", name)]; len(bs) > 0 {
		return firstParsed(bs)
	}
	return nil
}

// firstParsed is the first body without a syntax error, else the first.
func firstParsed(bs []*bodyInfo) *bodyInfo {
	for _, b := range bs {
		if !b.broken {
			return b
		}
	}
	return bs[0]
}
