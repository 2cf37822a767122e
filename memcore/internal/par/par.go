// Package par is the one worker pool of memcore and its index package:
// callers hand it a range of independent items and it spreads them over a
// bounded number of goroutines, returning when all are done.
package par

import (
	"runtime"
	"sync"
)

// Range calls fn on consecutive chunks of [0, n) on up to maxWorkers
// goroutines (0 = GOMAXPROCS), giving each at least minChunk items; below
// two chunks it runs fn(0, n) inline. fn must only touch its own chunk's
// state.
func Range(n, minChunk, maxWorkers int, fn func(lo, hi int)) {
	if n <= 0 {
		return
	}
	if maxWorkers <= 0 {
		maxWorkers = runtime.GOMAXPROCS(0)
	}
	workers := min(maxWorkers, n/max(minChunk, 1))
	if workers <= 1 {
		fn(0, n)
		return
	}
	var wg sync.WaitGroup
	per := (n + workers - 1) / workers
	for lo := 0; lo < n; lo += per {
		hi := min(lo+per, n)
		wg.Add(1)
		go func() {
			defer wg.Done()
			fn(lo, hi)
		}()
	}
	wg.Wait()
}

// For calls fn(i) for every i in [0, n), spread as Range spreads chunks.
func For(n, minChunk, maxWorkers int, fn func(i int)) {
	Range(n, minChunk, maxWorkers, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			fn(i)
		}
	})
}
