package analysistest

import (
	"os"
	"strconv"
	"sync"
)

// DiffSettings reads the opt-in settings every differential test against
// a real tool takes: PREFIX_SEEDS (how many, default 20), PREFIX_FROM (the
// first seed) and PREFIX_KEEP (a folder to keep each input and both
// answers in, "" for none).
func DiffSettings(prefix string) (seeds, from int, keep string) {
	seeds, _ = strconv.Atoi(os.Getenv(prefix + "_SEEDS"))
	if seeds <= 0 {
		seeds = 20
	}
	from, _ = strconv.Atoi(os.Getenv(prefix + "_FROM"))
	return seeds, from, os.Getenv(prefix + "_KEEP")
}

// OnSeeds calls f(i) for i in [0, n), two at a time (the real tools are
// slow and single-threaded; more would only compete for the machine), and
// returns when every call has.
func OnSeeds(n int, f func(i int)) {
	var wg sync.WaitGroup
	sem := make(chan struct{}, 2)
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			f(i)
		}(i)
	}
	wg.Wait()
}
