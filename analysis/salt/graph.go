package salt

import (
	"slices"
	"strconv"
	"strings"

	"github.com/ordering-lsp/ordering-lsp/analysis"
	sp "github.com/ordering-lsp/ordering-lsp/parser/salt"
	"github.com/ordering-lsp/ordering-lsp/source"
)

// What a finished run adds to the graph: each state's order facts, the
// requisite edges and the links from every requisite to its target.

type inFact struct {
	n *analysis.Node
	o *inOrigin
}

func (a *analyzer) orderFact(n *analysis.Node, ch *chunk) {
	v := strconv.FormatFloat(ch.order, 'f', -1, 64)
	how := ""
	switch ch.orderHow {
	case "auto":
		how = "auto-order (state_auto_order: definition order, included files first)"
	case "explicit":
		how = "explicit `order: " + ch.ov.arg.val.Value + "`"
	case "first":
		how = "`order: first`"
	case "last":
		how = "`order: last` (after every numbered state)"
	case "negative":
		how = "negative `order: " + ch.ov.arg.val.Value + "` (counts back from the end)"
	default:
		how = "no order (state_auto_order off): sorted by module, name and function"
	}
	if ch.ov.arg != nil && ch.ov.arg.via == "use" {
		how += " (copied by use)"
	}
	a.rec.facts = append(a.rec.facts, factRec{n, "order value", v + " from " + how}, factRec{n, "SLS", ch.sls})
	// Which undecided Jinja condition the state's existence rests on (the
	// position above is that of the renders that take this branch).
	if b := ch.body; b != nil && b.decl != nil && b.decl.key != nil && b.f != nil && b.f.p != nil && b.f.p.R != nil {
		var bs []analysis.Branch
		for _, x := range b.f.p.ArmsOf(b.decl.key) {
			bs = append(bs, arm{b.f, x})
		}
		if when := armsText(bs); when != "" {
			a.rec.facts = append(a.rec.facts, factRec{n, "condition", "declared only when " + when +
				", which depends on grains, pillar or salt[...] calls the analysis does not know: a minion may not render it (set salt.facts to decide)"})
		} else if b.cond {
			a.rec.facts = append(a.rec.facts, factRec{n, "condition", "its SLS is included from a branch of a Jinja condition the analysis cannot decide: a minion may not render it (set salt.facts to decide)"})
		}
	}
}

// fileLinks links include entries to files and extend keys to states.
func (a *analyzer) fileLinks(c *compiler, f *sfile) {
	for _, inc := range f.includes {
		name := inc.name
		if strings.Contains(name, sp.Unknown) {
			continue
		}
		if strings.HasPrefix(name, ".") {
			m := relRe.FindStringSubmatch(name)
			comps := strings.Split(f.sls, ".")
			if f.init {
				comps = append(comps, "init")
			}
			if len(m[1]) > len(comps) {
				continue
			}
			name = strings.TrimSuffix(strings.Join(append(append([]string{}, comps[:len(comps)-len(m[1])]...), m[2]), "."), ".")
		}
		var files []source.Span
		if hasGlob(name) {
			for _, n := range c.t.avail() {
				if fnmatch(n, name) {
					if tf := c.t.bySLS(n); tf != nil {
						files = append(files, source.Span{URI: tf.file.URI})
					}
				}
			}
		} else if tf := c.t.bySLS(name); tf != nil {
			files = append(files, source.Span{URI: tf.file.URI})
		}
		a.link(f.span(inc.node), nil, files)
	}
}

// edgesAndLinks turns matched requisites into edges and links.
func (a *analyzer) edgesAndLinks(c *compiler, h *high, sm *sim, runName string) {
	n := 0
	for _, ch := range sm.chunks {
		for k := range ch.reqs.lists {
			n += len(ch.reqs.lists[k])
		}
	}
	if a.rec.edges == nil {
		a.rec.edges = make([]edgeRec, 0, n)
		a.rec.edgeSeen = make(map[edgeKey]bool, n)
	}
	a.rec.links = slices.Grow(a.rec.links, n)
	// extend keys -> the states of that ID
	for _, e := range h.extends {
		var nodes []*analysis.Node
		for _, ch := range sm.chunks {
			if ch.id == e.id {
				nodes = append(nodes, a.node(ch))
			}
		}
		a.link(e.f.span(e.key), nodes, nil)
	}
	for _, ch := range sm.chunks {
		n := a.node(ch)
		for ki, key := range reqKeyOrder {
			entries := ch.reqs.get(ki)
			if key == "prerequired" || key == "listen_in" {
				continue
			}
			for _, e := range entries {
				if e.bad == "null" {
					continue
				}
				m := sm.match(e)
				var targets []*analysis.Node
				var files []source.Span
				for _, t := range m.chunks {
					tn := a.node(t)
					targets = append(targets, tn)
					reason := key
					if e.inFrom != nil {
						reason = e.inFrom.key
					}
					kind := analysis.Order
					switch key {
					case "watch", "watch_any", "onchanges", "onchanges_any":
						kind = analysis.Refresh
					case "listen":
						kind = analysis.Reference
					}
					from, to := tn, n
					if key == "prereq" {
						from, to = n, tn
					}
					if len(ch.watchAsRequire) > 0 && contains2(ch.watchAsRequire, e) {
						reason = a.watchReason(ch.state)
						kind = analysis.Order
					}
					if from == to && e.mod == "sls" && ch.state != t.state {
						continue
					}
					if from == to && e.inFrom != nil {
						// an _in requisite that names its own state (by ID,
						// or by an argument find_name matches, as
						// `filename:` of a file.accumulated feeding that
						// file): Salt 3007 runs the state, no recursion
						continue
					}
					ek := edgeKey{from, to, e, kind == analysis.Order}
					if !a.rec.edgeSeen[ek] {
						a.rec.edgeSeen[ek] = true
						a.rec.edges = append(a.rec.edges, edgeRec{from: int32(from.Index), to: int32(to.Index), kind: kind, reason: reason, e: e})
					}
					if e.inFrom != nil {
						a.rec.inFacts = append(a.rec.inFacts, inFact{n, e.inFrom})
					}
				}
				if e.mod == "sls" {
					if tf := c.t.bySLS(e.target); tf != nil {
						files = append(files, source.Span{URI: tf.file.URI})
					}
				}
				for _, t := range m.maybeChunks {
					targets = append(targets, a.node(t))
				}
				if e.inFrom == nil {
					// (an _in entry links to its own target below)
					a.linkEntry(e, targets, files)
				}
			}
		}
	}
	// _in declarations in the source link to their targets too
	for _, id := range h.ids {
		b := h.m[id]
		for _, s := range b.states {
			for _, ar := range s.args {
				if !strings.HasSuffix(ar.key, "_in") && ar.key != "use" {
					continue
				}
				for _, e := range ar.reqs {
					if e.inFrom != nil || e.bad != "" {
						continue
					}
					m := sm.match(e)
					var targets []*analysis.Node
					for _, t := range m.chunks {
						targets = append(targets, a.node(t))
					}
					var files []source.Span
					if e.mod == "sls" {
						if tf := c.t.bySLS(e.target); tf != nil {
							files = append(files, source.Span{URI: tf.file.URI})
						}
					}
					a.link(e.span, targets, files)
				}
			}
		}
	}
}

func (a *analyzer) watchReason(mod string) string {
	return "watch (as require: " + mod + " has no mod_watch)"
}

func contains2(l []*reqEntry, e *reqEntry) bool {
	for _, x := range l {
		if x == e {
			return true
		}
	}
	return false
}
