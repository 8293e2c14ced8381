package salt

import (
	"github.com/ordering-lsp/ordering-lsp/analysis"
	sp "github.com/ordering-lsp/ordering-lsp/parser/salt"
	"github.com/ordering-lsp/ordering-lsp/source"
)

// The high data and these steps (render.go, reconcile.go, compile.go)
// follow salt/state.py of Salt 3006/3007 (BaseHighState
// .render_state, merge_included_states, _handle_iorder; State
// .reconcile_extend, verify_high, requisite_in, apply_exclude,
// compile_high_data, order_chunks): same steps, same order, same
// messages, on the parsed files instead of rendered Python dicts.

// body is high[id]: one ID with its state declarations, as the run sees
// it (extends and _in requisites change it, so each run has its own).
type body struct {
	id           string
	sls          string
	env          string // the saltenv it was rendered in (__env__)
	f            *sfile
	decl         *idDecl
	states       []*hstate
	includedFrom []string
	// cond: declared in a branch of an undecidable condition, or in a
	// file included from one: it may not exist on a given machine.
	cond bool
}

func (b *body) state(mod string) *hstate {
	for _, s := range b.states {
		if s.module == mod {
			return s
		}
	}
	return nil
}

// hstate is high[id][module].
type hstate struct {
	module string
	decl   *stDecl
	funs   []string
	funAt  *sp.Node
	// args are shared with the parsed declaration until something
	// changes them (extend, use): own() copies first.
	args  []*arg
	owned bool
	// autoOrder is the order _handle_iorder appends ({"order": iorder})
	// to a state without one; 0 when none.
	autoOrder int
	null      bool
	bad       bool // not a list
}

func (h *hstate) own() {
	if !h.owned {
		h.args = append([]*arg(nil), h.args...)
		h.owned = true
	}
}

// high is the high data of one run.
type high struct {
	ids      []string
	m        map[string]*body
	extends  []*extendDecl
	excludes []*exclude
}

func newHigh() *high { return &high{m: map[string]*body{}} }

func (h *high) put(b *body) {
	if _, ok := h.m[b.id]; !ok {
		h.ids = append(h.ids, b.id)
	}
	h.m[b.id] = b
}

func (h *high) remove(id string) {
	if _, ok := h.m[id]; !ok {
		return
	}
	delete(h.m, id)
	for i, x := range h.ids {
		if x == id {
			h.ids = append(h.ids[:i], h.ids[i+1:]...)
			break
		}
	}
}

// problem is a diagnostic found while compiling a run.
type problem struct {
	at        source.Span
	sev       int // 1 error, 2 warning, 3 info
	code      string
	msg       string
	related   []relatedSpan
	members   []*analysis.Node // a cycle's states, for code lenses
	refuses   bool             // Salt refuses the run
	missing   *reqEntry
	chunk     *chunk
	maybeOK   bool // a template could produce the target: not reported
	onlyInfo  bool
	target    string // the ID an extend names
	targetMod string
	// a missing include: of a package no root holds (otherRoot), or of a
	// package a root holds only add-ons of (addOn, the words said when
	// settleAddOns makes it a warning: no NAME.sls, no NAME/init.sls)
	otherRoot bool
	addOn     string
}

type relatedSpan struct {
	at  source.Span
	msg string
}

// compiler renders the high data of one run.
type compiler struct {
	t        *tree
	mods     map[string]bool
	iorder   int
	auto     bool
	problems []*problem
	// generator: some file of the run may declare states nobody can name
	// in advance.
	generator bool
	files     []*sfile // files of the run, in render order
	// altWrites: the name: values states write only in some branches of
	// an undecidable if, beside the one the model keeps (altNames)
	altWrites map[string][]altWrite
	// fileEnv: the saltenv each file of the run was rendered in
	fileEnv  map[*sfile]string
	shadowed map[string]bool
	// shadowNames: IDs and names of alternatives hidden by another
	shadowNames map[string]bool
	// hidden: the alternatives hidden by another declaration of their
	// ID (their requisites are still checked: hiddenRequisites)
	hidden []*idDecl
	// dry: only walk the includes (which files make the run), for the
	// run cache's key
	dry bool
}

func (c *compiler) fail(p *problem) { c.problems = append(c.problems, p) }

// modKey names an SLS rendered in a run as Salt's mods list does
// ("saltenv:sls"): the same name in two saltenvs is two files.
func modKey(env, sls string) string {
	return envName(env) + ":" + sls
}

// envName: the saltenv Salt names, base where nothing names one.
func envName(env string) string {
	if env == "" {
		return "base"
	}
	return env
}
