package puppet

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

// slabs hands out the nodes a decoder makes most, carved from arrays of
// slabSize, and the lists of nodes from one shared array: decoding a
// chunk from the cache made one allocation per node, half of a warm
// `order`'s allocations. One slabs serves one parse (one goroutine): the
// nodes of its chunks share arrays, so a chunk dropped by a later edit
// may keep a neighbour's array alive, never more than one per type.
type slabs struct {
	strs   []Str
	attrs  []Attr
	names  []Name
	vars   []Var
	types  []TypeRef
	access []Access
	calls  []Call
	res    []resourceAlloc
	lists  []Node
	alists []*Attr
}

const slabSize = 64

func take[T any](s *[]T) *T {
	if len(*s) == 0 {
		*s = make([]T, slabSize)
	}
	t := &(*s)[0]
	*s = (*s)[1:]
	return t
}

// list returns a list of n from the shared array, capped at n so that an
// append never writes into a neighbour (long lists get their own).
func list[T any](s *[]T, n int) []T {
	if n > slabSize/4 {
		return make([]T, n)
	}
	if len(*s) < n {
		*s = make([]T, 4*slabSize)
	}
	l := (*s)[:n:n]
	*s = (*s)[n:]
	return l
}
