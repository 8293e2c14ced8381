package puppet

import (
	"runtime"
	"sync"
)

// Chunks are independent once cut, so the first parse of a big file
// parses them on every core: the cutter (lexing, on the calling
// goroutine) hands batches of chunks to workers, each batch in a token
// buffer of its own, and the results are put together in file order.
// Only when nothing is cached (a first parse: no chunk to reuse, so the
// order in which the cache would be consumed cannot matter) and the file
// is big enough for the goroutines to pay.

// parallelMin is the smallest file parsed on several goroutines, and
// batchTokens about how many tokens a worker gets at a time (variables
// for the tests).
var (
	parallelMin = 256 << 10
	batchTokens = 8 << 10
)

// parseBatch is a run of chunks cut from one token buffer.
type parseBatch struct {
	toks   []Token
	ranges []tokRange
	chunks [][]Chunk // per range
	// what validate reports on the batch's statements
	reserved, nested                 []Error
	parsed, decoded, nChunks, nStmts int
	panic                            any // a bug, re-raised on the calling goroutine
}

// parseParallel parses the chunks cc cuts on workers and returns them in
// file order, in batches.
func parseParallel(src []byte, cc *chunkCutter, workers int, like *chunker) []*parseBatch {
	work := make(chan *parseBatch, workers)
	// Buffers in flight (cutting, queued, parsing) bound the tokens held.
	free := make(chan []Token, workers+2)
	for range workers + 2 {
		free <- nil
	}
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for b := range work {
				b.parse(src, like)
				clear(b.toks) // the strings they hold; the buffer is reused
				free <- b.toks[:0]
				b.toks = nil
			}
		}()
	}
	var batches []*parseBatch
	cur := &parseBatch{}
	for {
		r, ok := cc.next()
		if ok {
			cur.ranges = append(cur.ranges, r)
			if cc.start < batchTokens {
				continue
			}
		}
		if len(cur.ranges) > 0 {
			buf := <-free
			if buf == nil {
				buf = make([]Token, 0, batchTokens+batchTokens/8)
			}
			cur.toks = cc.detach(buf)
			batches = append(batches, cur)
			work <- cur
			cur = &parseBatch{}
		}
		if !ok {
			break
		}
	}
	close(work)
	wg.Wait()
	for _, b := range batches {
		if b.panic != nil {
			panic(b.panic)
		}
	}
	return batches
}

// parse parses the batch's chunks with nothing of a previous version to
// reuse (a first parse), with like's parser and chunk cache.
func (b *parseBatch) parse(src []byte, like *chunker) {
	defer func() {
		if r := recover(); r != nil {
			b.panic = r
		}
	}()
	cx := &chunker{src: src, hand: like.hand, cache: like.cache}
	b.chunks = make([][]Chunk, len(b.ranges))
	var stmts []Node
	for i, r := range b.ranges {
		ch := cx.chunk(b.toks, r)
		b.chunks[i] = ch
		b.nChunks += len(ch)
		for _, c := range ch {
			stmts = append(stmts, c.Stmts...)
		}
	}
	b.parsed, b.decoded, b.nStmts = cx.parsed, cx.decoded, len(stmts)
	b.reserved = topLevelChecks(stmts)
	for _, ch := range b.chunks {
		for _, c := range ch {
			b.nested = append(b.nested, c.nested...)
		}
	}
}

// parallelWorkers is how many goroutines parse a first parse of src: 1
// (on the caller) for small files or a previous version to reuse chunks
// from.
func (ps *Parser) parallelWorkers(src []byte) int {
	if !ps.prev.empty() || len(src) < parallelMin {
		return 1
	}
	return runtime.GOMAXPROCS(0)
}

// addBatches puts the batches' chunks into f (through add, in file order,
// with f's slices sized once) and their validation errors after them,
// as validate(f.Stmts) would; it returns how many chunks were parsed and
// decoded from the chunk cache.
func addBatches(f *File, batches []*parseBatch, add func([]Chunk)) (parsed, decoded int) {
	nc, ns := 0, 0
	for _, b := range batches {
		nc, ns = nc+b.nChunks, ns+b.nStmts
	}
	if nc > 0 { // (no chunk: nil slices, as the other paths leave them)
		f.Chunks = make([]Chunk, 0, nc)
	}
	if ns > 0 {
		f.Stmts = make([]Node, 0, ns)
	}
	for _, b := range batches {
		for _, ch := range b.chunks {
			add(ch)
		}
		parsed += b.parsed
		decoded += b.decoded
	}
	for _, b := range batches {
		f.Errors = append(f.Errors, b.reserved...)
	}
	for _, b := range batches {
		f.Errors = append(f.Errors, b.nested...)
	}
	return parsed, decoded
}
