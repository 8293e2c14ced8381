package puppet

import "sync"

// The syntax tree of a big manifest is mostly its nodes (55 of the 66 MB
// of the 100k-resource one), whose types analysis code is written
// against. What the parser can still save is allocations: each one costs
// time, size-class rounding and garbage-collector work.

// resourceAlloc is a resource with room for its first body: nearly all
// have exactly one, and the three allocations (Resource 96 bytes,
// ResourceBody 56 in a 64-byte class, the one-pointer Bodies array 8)
// become one of 160.
type resourceAlloc struct {
	r      Resource
	body   ResourceBody
	bodies [1]*ResourceBody
}

// listStack holds the elements of the lists being parsed (statements,
// arguments and elements, attributes), nested lists above the lists they
// are in, so that a list is allocated once at its length when it ends
// instead of once per doubling while it grows. One per chunk parse,
// recycled.
type listStack struct {
	nodes []Node
	attrs []*Attr
}

var listStacks = sync.Pool{New: func() any { return new(listStack) }}

func getListStack() *listStack { return listStacks.Get().(*listStack) }

// putListStack recycles ls, emptied: a syntax error unwinds the parse
// without popping what it had pushed, and what is left must not keep a
// tree alive. One that a huge list grew is left to the collector.
func putListStack(ls *listStack) {
	if cap(ls.nodes) > 1<<14 || cap(ls.attrs) > 1<<14 {
		return
	}
	clear(ls.nodes)
	clear(ls.attrs)
	ls.nodes, ls.attrs = ls.nodes[:0], ls.attrs[:0]
	listStacks.Put(ls)
}

// popNodes returns the nodes pushed since base as a list of their own
// (nil when there are none, as an append loop leaves it).
func (ls *listStack) popNodes(base int) []Node {
	s := ls.nodes[base:]
	if len(s) == 0 {
		return nil
	}
	out := make([]Node, len(s))
	copy(out, s)
	clear(s)
	ls.nodes = ls.nodes[:base]
	return out
}

// popAttrs is popNodes for attributes.
func (ls *listStack) popAttrs(base int) []*Attr {
	s := ls.attrs[base:]
	if len(s) == 0 {
		return nil
	}
	out := make([]*Attr, len(s))
	copy(out, s)
	clear(s)
	ls.attrs = ls.attrs[:base]
	return out
}
