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
