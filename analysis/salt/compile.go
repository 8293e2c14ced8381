package salt

import (
	"sort"
	"strings"

	"github.com/ordering-lsp/ordering-lsp/analysis"
	sp "github.com/ordering-lsp/ordering-lsp/parser/salt"
)

// State.compile_high_data and order_chunks of salt/state.py: the high
// data becomes the run's chunks, in Salt's order (see high.go).

// nameIn is the file the chunk's name node is in.
func (ch *chunk) nameIn() *sfile {
	if ch.nameFile != nil {
		return ch.nameFile
	}
	return ch.body.f
}

// orderVal is a chunk's order as written.
type orderVal struct {
	set   bool
	isInt bool
	num   float64
	str   string
	auto  bool
	arg   *arg
}

// chunk is one low chunk: what Salt executes.
type chunk struct {
	state, fun, id, name string
	sls                  string
	includedFrom         []string
	body                 *body
	hs                   *hstate
	nameNode             *sp.Node // the name:/names: entry, nil when the name is the ID
	// argsOut: the state's arguments are template output nobody knows
	// (`pkgrepo.managed:{{- format_kwargs(x) }}`), so its name may be
	// anything; nil otherwise
	argsOut          *sp.Node
	argsFile         *sfile
	nameFile         *sfile // the file nameNode is in (an extend's may be another)
	nameIndex        int
	ov               orderVal
	order            float64
	orderHow         string
	reqs             reqSet
	watchArg         *arg // the `watch:` argument, for the watch-as-require note
	tag              string
	tid              int // index of the first chunk with this tag
	index            int
	prereqFlag       bool
	prerequiredFlag  bool
	watchAsRequire   []*reqEntry
	idDisp, nameDisp string // templated ID and name as written
	node             *analysis.Node
}

// compile is State.compile_high_data followed by order_chunks.
func (c *compiler) compile(h *high) []*chunk {
	var chunks []*chunk
	for _, id := range h.ids {
		b := h.m[id]
		for _, s := range b.states {
			if s.bad || s.null || len(s.funs) == 0 {
				continue
			}
			base := &chunk{state: s.module, id: id, name: id, sls: b.sls, includedFrom: b.includedFrom, body: b, hs: s}
			if s.autoOrder > 0 {
				base.ov = orderVal{set: true, isInt: true, num: float64(s.autoOrder), auto: true}
			}
			var names []*sp.Node
			var namesFile []*sfile
			for _, a := range s.args {
				switch a.key {
				case "names":
					if a.val != nil && a.val.Kind == sp.Seq {
						names = append(names, a.val.Items...)
						for range a.val.Items {
							namesFile = append(namesFile, a.f)
						}
					}
				case "state":
				case "name":
					if v, ok := a.val.Str(); ok && a.val.IsString() {
						base.name = v
						base.nameNode, base.nameFile = a.val, a.f
					} else {
						base.name = id
						base.nameNode, base.nameFile = nil, nil
					}
				case "order":
					base.ov = readOrder(a)
				default:
					if k, ok := reqIndex[a.key]; ok {
						prev := base.reqs.lists[k]
						if base.reqs.present&(1<<k) != 0 && len(prev) > 0 && a.f != nil && a.keyNode != nil &&
							a.f.p.InAltNode(a.keyNode) && entryInAlt(prev[0]) {
							// The same requisite in branches of a condition nobody
							// can decide: Salt keeps the last one it renders, and
							// which one that is depends on the machine; every
							// branch's entries are checked.
							base.reqs.set(k, append(append([]*reqEntry(nil), prev...), a.reqs...))
						} else {
							base.reqs.set(k, a.reqs)
						}
						if k == rqWatch {
							base.watchArg = a
						}
					}
				}
			}
			fun := s.funs[0]
			for _, fn := range s.funs {
				if !strings.Contains(fn, sp.Unknown) {
					fun = fn
					break
				}
			}
			if len(names) == 0 {
				ch := *base
				ch.fun = fun
				if s.decl != nil && s.decl.argsOut != nil && ch.nameNode == nil {
					ch.argsOut, ch.argsFile = s.decl.argsOut, s.decl.argsFile
				}
				chunks = append(chunks, &ch)
				continue
			}
			seen := map[string]bool{}
			no := 1
			for i, n := range names {
				ch := *base
				ch.fun = fun
				ch.nameFile = namesFile[i]
				switch n.Kind {
				case sp.Scalar:
					ch.name = n.Value
					ch.nameNode = n
				case sp.Map:
					if len(n.Keys) == 0 {
						continue
					}
					ch.name = n.Keys[0].Value
					ch.nameNode = n.Keys[0]
					if n.Vals[0].Kind == sp.Seq {
						for _, it := range n.Vals[0].Items {
							if it.Kind != sp.Map {
								continue
							}
							for j, k := range it.Keys {
								a := &arg{key: k.Value, keyNode: k, val: it.Vals[j], f: b.f}
								switch {
								case requisiteKeys[a.key]:
									a.reqs = readReqs(b.f, a.val)
									// (the _in forms and use do nothing here)
									if k, ok := reqIndex[a.key]; ok {
										ch.reqs.set(k, a.reqs)
									}
									if a.key == "watch" {
										ch.watchArg = a
									}
								case a.key == "order":
									ch.ov = readOrder(a)
								}
							}
						}
					}
				default:
					continue
				}
				if seen[ch.name] {
					continue
				}
				seen[ch.name] = true
				ch.nameIndex = no
				chunks = append(chunks, &ch)
				no++
			}
		}
	}
	for _, ch := range chunks {
		ch.idDisp = dispKey(ch.body.f, ch.body.decl.key)
		ch.nameDisp = ch.idDisp
		if ch.nameNode != nil {
			ch.nameDisp = dispKey(ch.nameIn(), ch.nameNode)
		}
	}
	orderChunks(chunks)
	tids := make(map[string]int, len(chunks))
	for i, ch := range chunks {
		ch.index = i
		ch.tag = ch.state + "_|-" + ch.id + "_|-" + ch.name + "_|-" + ch.fun
		if t, ok := tids[ch.tag]; ok {
			ch.tid = t
		} else {
			tids[ch.tag] = i
			ch.tid = i
		}
	}
	return chunks
}

// The requisite keys a chunk can carry, indexes of reqKeyOrder.
const (
	rqRequire = iota
	rqRequireAny
	rqWatch
	rqWatchAny
	rqPrereq
	rqPrerequired
	rqOnfail
	rqOnfailAny
	rqOnfailAll
	rqOnfailStop
	rqOnchanges
	rqOnchangesAny
	rqListen
	rqListenIn
	nReq
)

// reqKeyOrder is every requisite key a chunk can carry, in a fixed order
// (map order would make edges and cycle paths differ between runs).
var reqKeyOrder = [nReq]string{"require", "require_any", "watch", "watch_any", "prereq", "prerequired",
	"onfail", "onfail_any", "onfail_all", "onfail_stop", "onchanges", "onchanges_any", "listen", "listen_in"}

var reqIndex = func() map[string]int {
	m := map[string]int{}
	for i, k := range reqKeyOrder {
		m[k] = i
	}
	return m
}()

// reqSet is a chunk's requisites by key (Salt's low chunk keys): a key
// may be present with an empty list.
type reqSet struct {
	lists   [nReq][]*reqEntry
	present uint16
}

func (r *reqSet) get(k int) []*reqEntry { return r.lists[k] }
func (r *reqSet) has(k int) bool        { return r.present&(1<<k) != 0 }
func (r *reqSet) set(k int, l []*reqEntry) {
	r.lists[k] = l
	r.present |= 1 << k
}
func (r *reqSet) del(k int) {
	r.lists[k] = nil
	r.present &^= 1 << k
}

func readOrder(a *arg) orderVal {
	ov := orderVal{set: true, arg: a, auto: a.via == "auto"}
	if a.val == nil {
		return ov
	}
	if n, ok := a.val.Int(); ok {
		ov.isInt, ov.num = true, float64(n)
		return ov
	}
	if f, ok := a.val.Float(); ok {
		ov.num = f
		ov.str = "float"
		return ov
	}
	ov.str = a.val.Value
	return ov
}

// orderChunks is State.order_chunks.
func orderChunks(chunks []*chunk) {
	capv := 1.0
	for _, ch := range chunks {
		if ch.ov.set && ch.ov.isInt {
			if ch.ov.num > capv-1 && ch.ov.num > 0 {
				capv = ch.ov.num + 100
			}
		}
	}
	for _, ch := range chunks {
		switch {
		case !ch.ov.set:
			ch.order = capv
			ch.orderHow = "default"
			continue
		case ch.ov.isInt || ch.ov.str == "float":
			ch.order = ch.ov.num
			ch.orderHow = "explicit"
			if ch.ov.auto {
				ch.orderHow = "auto"
			}
		case ch.ov.str == "last":
			ch.order = capv + 1000000
			ch.orderHow = "last"
		case ch.ov.str == "first":
			ch.order = 0
			ch.orderHow = "first"
		default:
			ch.order = capv
			ch.orderHow = "default"
		}
		if ch.nameIndex > 0 {
			ch.order += float64(ch.nameIndex) / 10000.0
		}
		if ch.order < 0 {
			ch.order = capv + 1000000 + ch.order
			ch.orderHow = "negative"
		}
	}
	sort.SliceStable(chunks, func(i, j int) bool {
		a, b := chunks[i], chunks[j]
		if a.order != b.order {
			return a.order < b.order
		}
		return a.state+a.name+a.fun < b.state+b.name+b.fun
	})
}
