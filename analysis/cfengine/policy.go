package cfengine

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
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
	depends   []*cfp.Rval
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

// loadPolicy follows inputs from an entry file until no new file appears.
func (a *analyzer) loadPolicy(entry *fileInfo) *policy {
	pol := &policy{a: a, entry: entry, entryDir: entry.dir, inFiles: map[*fileInfo]int{}, byKey: map[string][]*bundleInfo{},
		bodies: map[string][]*bodyInfo{}, handles: map[string][]*promiseInfo{}, augments: map[string][]string{}}
	pol.hostLib = entry.dir == "" || !isDir(filepath.Join(entry.dir, "lib"))
	pol.add(entry)
	var extraInputs []string
	if entry.dir != "" {
		if f := lookupRegular(a.req.Workspace, filepath.Join(entry.dir, "def.json")); f != nil {
			var aug struct {
				Vars   map[string]any `json:"vars"`
				Inputs []string       `json:"inputs"`
			}
			if json.Unmarshal(f.Text, &aug) == nil {
				for k, v := range aug.Vars {
					var vals []string
					switch t := v.(type) {
					case string:
						vals = []string{t}
					case []any:
						for _, x := range t {
							if s, ok := x.(string); ok {
								vals = append(vals, s)
							}
						}
					}
					pol.augments["def."+k] = vals
				}
				extraInputs = aug.Inputs
			}
		}
	}
	for round := 0; round < 12; round++ {
		ev := newEvaluator(pol)
		pol.ev = ev
		var strict *evaluator
		var cond, condW *condEval
		pol.clsDefs = nil
		before := len(pol.files)
		pol.unresolved = false
		pol.inputLinks = pol.inputLinks[:0] // the last round's are kept
		// every round reads every input again: the last one's missing
		// inputs are the policy's (its body common control, hence
		// ignore_missing_inputs, may come from an input)
		pol.missing = false
		pol.ignoreMissing = ignoreMissingInputs(pol, ev)
		pol.missingDiags = pol.missingDiags[:0]
		pol.certain = map[*fileInfo]bool{entry: true}
		for _, in := range extraInputs {
			for _, v := range ev.expand(in, scope{dir: entry.dir}).vals {
				if !strings.Contains(v, "$(") {
					if fi := a.addInput(pol, v, v, "", entry.dir, nil); fi != nil {
						pol.certain[fi] = true
					}
				}
			}
		}
		for i := 0; i < len(pol.files); i++ {
			fi := pol.files[i]
			for _, bo := range fi.bodies {
				b := bo.block
				if b.Kind != "body" || b.Name.Text != "control" || (b.Type.Text != "common" && b.Type.Text != "file") {
					continue
				}
				// A policy has one body common control; it need not be in
				// the entry file (cfengine core's acceptance tests keep it in
				// a shared common.cf.sub that every test's body file
				// control loads).
				for _, at := range b.Attrs {
					if at.Lval.Text != "inputs" || at.Rval == nil {
						continue
					}
					items := at.Rval.Items
					if at.Rval.Kind != cfp.List {
						items = []*cfp.Rval{at.Rval}
					}
					for _, it := range items {
						sc := scope{dir: fi.dir}
						vs := ev.rval(it, sc)
						if !vs.resolved {
							pol.unresolved = true
						}
						words := a.span(fi, it.Span)
						if it.Kind == cfp.String {
							words.Start, words.End = words.Start+1, words.End-1
						}
						if !pol.hostLib {
							a.libHere[words] = true
						}
						// A missing file is reported on the item's words
						// when every host computes that name: written out,
						// or through variables with one value everywhere
						// (strict); one a class or a host decides may
						// exist there only.
						literal := it.Kind == cfp.String && !strings.ContainsAny(it.Value, "$@")
						var sure, shown []string
						if !literal {
							if strict == nil {
								strict = newEvaluator(pol)
								strict.strict = true
							}
							if svs := strict.rval(it, sc); svs.resolved {
								sure = svs.vals
							}
						}
						// values a class decides: reported for the hosts
						// that compute them
						var where map[string]string
						// the inputs attribute under a class (extra::
						// inputs => ...) names its files there only
						attrHosts := ""
						if everywhere(at.Context, a.version()) == triMaybe {
							if _, w, sat, taut, ok := pol.condCubes([][]condTerm{{{expr: at.Context}}}); ok && sat && !taut {
								attrHosts = w
							}
						}
						if !literal && sure == nil && pol.certain[fi] {
							if cond == nil {
								cond, condW = newCondEval(pol, false), newCondEval(pol, true)
							}
							where = a.condInputs(pol, cond, condW, it, sc, at.Context)
						}
						var targets []source.Span
						for _, v := range vs.vals {
							if strings.Contains(v, "$(") || strings.Contains(v, "${") {
								if sub, ok := libSubdir(a.version()); ok && pol.hostLib && (strings.Contains(v, "$(sys.libdir)") || strings.Contains(v, "${sys.libdir}")) {
									a.hostLibNotes = append(a.hostLibNotes, analysis.Diagnostic{At: words, Severity: analysis.Info, Code: "host-input",
										Message: fmt.Sprintf("'%s' comes from the host: $(sys.libdir) is $(sys.workdir)/inputs/%s, where CFEngine deploys the standard library, and there is no lib/ beside this policy here; names it may define are not reported as undefined", v, sub)})
								}
								continue
							}
							base := entry.dir
							if b.Type.Text == "file" {
								base = fi.dir
							}
							var missingAt *source.Span
							name, hosts := v, ""
							if h, ok := where[v]; ok {
								missingAt = &words
								hosts = h
								name = where["\x00"+v]
							} else if literal {
								missingAt = &words
								hosts = attrHosts
							} else if k := slices.Index(sure, v); k >= 0 {
								missingAt = &words
								hosts = attrHosts
								if shown == nil {
									// the same values with the checkout's
									// folders as written
									w := &evaluator{pol: pol, cache: map[string]*valueSet{}, busy: map[string]bool{}, strict: true, written: true}
									shown = w.rval(it, sc).vals
								}
								if len(shown) == len(sure) {
									name = shown[k]
								}
							}
							if in := a.addInput(pol, v, name, hosts, base, missingAt); in != nil {
								targets = append(targets, source.Span{URI: in.src.URI})
								if at.Context == "any" && pol.certain[fi] && (vs.resolved && len(vs.vals) == 1 || len(sure) > 0 && len(sure) == len(vs.vals)) {
									pol.certain[in] = true
								}
							}
						}
						if len(targets) > 0 {
							pol.inputLinks = append(pol.inputLinks, analysis.Link{At: words, Files: targets})
						}
					}
				}
			}
		}
		if len(pol.files) == before {
			break
		}
		pol.ev = nil
	}
	for _, d := range mergeMissing(pol.missingDiags) {
		a.diag(d)
	}
	if pol.missing || pol.brokenInputs {
		pol.unresolved = true
	}
	return pol
}

// ignoreMissingInputs reads `ignore_missing_inputs` of the policy's body
// common control (where it stands in the body does not matter; a later
// one wins; a value that is not a boolean leaves it unset, as
// StringIsBoolean does in expand.c).
func ignoreMissingInputs(pol *policy, ev *evaluator) bool {
	if pol.control == nil {
		return false
	}
	on := false
	for _, at := range pol.control.Attrs {
		if at.Lval.Text != "ignore_missing_inputs" || at.Context != "any" {
			continue
		}
		vs := ev.rval(at.Rval, scope{dir: pol.controlF.dir})
		if !vs.resolved || len(vs.vals) != 1 {
			continue
		}
		switch vs.vals[0] {
		case "true", "yes", "on":
			on = true
		case "false", "no", "off":
			on = false
		}
	}
	return on
}

// existsHere: something is at path on this machine (a directory or a
// device is no policy anywhere: /tmp, /dev/null).
func existsHere(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// relPath is path relative to the workspace folder holding it (to the
// entry's folder when the workspace has none), else path.
func (a *analyzer) relPath(path, entryDir string) string {
	roots := a.req.Workspace.Roots()
	if len(roots) == 0 {
		roots = []string{entryDir}
	}
	for _, r := range roots {
		if rel, err := filepath.Rel(r, path); err == nil && !strings.HasPrefix(rel, "..") {
			return filepath.ToSlash(rel)
		}
	}
	return path
}

// inWorkspace: path lies in a folder of the workspace (that of the entry,
// when the workspace has none: a file checked alone).
func (a *analyzer) inWorkspace(path, entryDir string) bool {
	roots := a.req.Workspace.Roots()
	if len(roots) == 0 {
		roots = []string{entryDir}
	}
	for _, r := range roots {
		if path == r || strings.HasPrefix(path, r+string(filepath.Separator)) {
			return true
		}
	}
	return false
}

// addInput loads input v of pol (base: the folder it is relative to),
// reporting at missingAt when it is not there; name is v as messages
// quote it (the checkout's folders as written: $(sys.libdir)/x.cf);
// hosts, when not empty, says on which hosts the item names v ("only on
// hosts where B is defined").
func (a *analyzer) addInput(pol *policy, v, name, hosts, base string, missingAt *source.Span) *fileInfo {
	note := ""
	if hosts != "" {
		note = " (" + hosts + ")"
	}
	p := v
	tried := ""
	if rest, ok := strings.CutPrefix(v, "/var/cfengine/inputs/"); ok && !a.inWorkspace(v, pol.entryDir) {
		// $(sys.inputdir) written out: where the policy this entry
		// belongs to is deployed
		if fi := a.load(filepath.Join(pol.entryDir, rest)); fi != nil {
			pol.add(fi)
			return fi
		}
	}
	if !filepath.IsAbs(p) {
		p = filepath.Join(base, p)
		if a.load(p) == nil && base != pol.entryDir {
			tried = p
			p = filepath.Join(pol.entryDir, v)
		}
	}
	fi := a.load(filepath.Clean(p))
	if fi == nil {
		// one the build creates (make check copies it in): not there
		// yet, there when the policy runs
		for _, c := range []string{filepath.Clean(p), tried} {
			if c == "" {
				continue
			}
			if conf := a.configuredBy(c); conf != "" {
				// a configure output (masterfiles' controls/update_def.cf
				// from update_def.cf.in)
				pol.missing = true
				if missingAt != nil {
					pol.missingDiags = append(pol.missingDiags, analysis.Diagnostic{At: *missingAt, Severity: analysis.Info, Code: "generated-input",
						Message: fmt.Sprintf("'%s' is made by the build: %s lists %s in AC_CONFIG_FILES, the files configure writes from their .in templates; names it may define are not reported as undefined%s", name, a.relPath(conf, pol.entryDir), a.relPath(c, pol.entryDir), note)})
				}
				return nil
			}
			if mk, list := a.builtBy(c); mk != "" {
				pol.missing = true
				if missingAt != nil {
					if !filepath.IsAbs(v) {
						mk = filepath.Join(filepath.Dir(v), filepath.Base(mk)) // as the input is written
					}
					pol.missingDiags = append(pol.missingDiags, analysis.Diagnostic{At: *missingAt, Severity: analysis.Info, Code: "generated-input",
						Message: fmt.Sprintf("'%s' is made by the build: %s lists %s in %s, the files its make targets create; names it may define are not reported as undefined%s", v, mk, filepath.Base(c), list, note)})
				}
				return nil
			}
		}
		// a missing input (or a directory): cf-promises refuses the
		// policy, unless ignore_missing_inputs, with which CFEngine
		// skips it silently (Cf3ParseFile) and the policy is what the
		// other files define. One named through a variable may exist
		// on other hosts: the policy stays unresolved.
		if missingAt == nil || !pol.ignoreMissing {
			pol.missing = true
		}
		if missingAt != nil && !pol.ignoreMissing && filepath.IsAbs(v) && !a.inWorkspace(v, pol.entryDir) && !existsHere(v) {
			// a file of the host (/var/cfengine/inputs/lib/stdlib.cf,
			// /var/cfengine/bin/x.cf): there or not, the workspace cannot
			// say (Webhuis/CFEngine-Roadshow)
			pol.missingDiags = append(pol.missingDiags, analysis.Diagnostic{At: *missingAt, Severity: analysis.Info, Code: "host-input",
				Message: fmt.Sprintf("'%s' comes from the host, outside the workspace: cf-promises fails (\"Can't stat file\") where the host has no such file; names it may define are not reported as undefined (name it relative to this policy, or through $(sys.inputdir), to have the workspace's copy read)%s", v, note)})
			return nil
		}
		if missingAt != nil && !pol.ignoreMissing {
			msg := fmt.Sprintf("Can't stat file '%s' for parsing", name)
			if isDir(filepath.Clean(p)) {
				msg = fmt.Sprintf("Can't parse directory '%s'.", name)
			} else if name != v {
				lacks := "the workspace has no " + a.relPath(filepath.Clean(p), pol.entryDir)
				if hosts != "" {
					lacks = hosts + "; " + lacks
				}
				note = " (" + lacks + ")"
			}
			msg += note
			pol.missingDiags = append(pol.missingDiags, analysis.Diagnostic{At: *missingAt, Severity: analysis.Warning, Code: "missing-input", Message: msg})
		}
		return nil
	}
	pol.add(fi)
	return fi
}

// mergeMissing gives one warning per inputs item: a list naming several
// missing files (@{cfengine_stdlib.inputs} = 15 files of lib/) is
// reported with the first, the one cf-promises names before it stops,
// and the others listed, in the list's order. Only warnings with the
// same note (the same hosts) are merged.
func mergeMissing(diags []analysis.Diagnostic) []analysis.Diagnostic {
	type group struct {
		first int
		names []string
	}
	const pre, mid = "Can't stat file '", "' for parsing"
	groups := map[string]*group{}
	var out []analysis.Diagnostic
	for _, d := range diags {
		name, note, ok := strings.Cut(strings.TrimPrefix(d.Message, pre), mid)
		if d.Code != "missing-input" || !strings.HasPrefix(d.Message, pre) || !ok || strings.Contains(name, "'") {
			out = append(out, d)
			continue
		}
		key := fmt.Sprintf("%v\x00%s", d.At, note)
		if g := groups[key]; g != nil {
			if !slices.Contains(g.names, name) {
				g.names = append(g.names, name)
			}
			continue
		}
		groups[key] = &group{first: len(out), names: []string{name}}
		out = append(out, d)
	}
	for key, g := range groups {
		if len(g.names) < 2 {
			continue
		}
		_, note, _ := strings.Cut(key, "\x00")
		more := make([]string, len(g.names)-1)
		for i, n := range g.names[1:] {
			more[i] = "'" + n + "'"
		}
		files := "files this item names are"
		if len(more) == 1 {
			files = "file this item names is"
		}
		out[g.first].Message = fmt.Sprintf("%s%s%s (%d more %s missing too: %s)%s", pre, g.names[0], mid, len(more), files, strings.Join(more, ", "), note)
	}
	return out
}
