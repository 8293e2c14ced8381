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

// slabs hands out the nodes a decoder makes most, carved from arrays,
// and the lists of nodes from shared arrays: decoding a chunk from the
// cache made one allocation per node, half of a warm `order`'s
// allocations. One slabs serves one parse (one goroutine): the nodes of
// its chunks share arrays, so a chunk dropped by a later edit may keep a
// neighbour's array alive, never more than one per type. A parse's
// arrays start small and double up to slabSize: a workspace is mostly
// small files, and arrays of 64 of every type for each of
// operations-puppet's 3,359 files held ~100 MB of empty nodes through a
// `check .` (its live heap 131-168 MB -> 206-304 MB).
type slabs struct {
	strs   slab[Str]
	attrs  slab[Attr]
	names  slab[Name]
	vars   slab[Var]
	types  slab[TypeRef]
	access slab[Access]
	calls  slab[Call]
	res    slab[resourceAlloc]
	lists  slab[Node]
	alists slab[*Attr]
}

// slab is the rest of the array nodes of one type are taken from, and
// the size of the next.
type slab[T any] struct {
	free []T
	next int
}

const (
	slabStart = 4
	slabSize  = 64
)

// grow starts a new array, twice the last one's size within [lo, hi].
func (s *slab[T]) grow(lo, hi int) {
	s.next = min(max(2*s.next, lo), hi)
	s.free = make([]T, s.next)
}

func take[T any](s *slab[T]) *T {
	if len(s.free) == 0 {
		s.grow(slabStart, slabSize)
	}
	t := &s.free[0]
	s.free = s.free[1:]
	return t
}

// list returns a list of n from the shared array, capped at n so that an
// append never writes into a neighbour (long lists get their own).
func list[T any](s *slab[T], n int) []T {
	if n > slabSize/4 {
		return make([]T, n)
	}
	if len(s.free) < n {
		s.grow(4*slabStart, 4*slabSize) // (4*slabStart >= slabSize/4 >= n)
	}
	l := s.free[:n:n]
	s.free = s.free[n:]
	return l
}
