// Package par is the one worker pool of memcore and its packages: callers
// hand it a range of independent items (Range, For, Split+Run), a few
// different tasks to overlap (Do), or a stage of a pipeline that drains a
// channel (Go), and it runs them on a bounded number of goroutines,
// returning (or handing back a wait) when all are done.
package par

import (
	"runtime"
	"sync"
)

// Split cuts [0, n) into consecutive chunks for up to maxWorkers
// goroutines (0 = GOMAXPROCS), giving each at least minChunk items; every
// chunk but the last starts and ends on a multiple of align (0 or 1 = any).
// It returns one chunk for n below two chunks' worth, none for n <= 0.
func Split(n, minChunk, maxWorkers, align int) [][2]int {
	if n <= 0 {
		return nil
	}
	if maxWorkers <= 0 {
		maxWorkers = runtime.GOMAXPROCS(0)
	}
	workers := min(maxWorkers, n/max(minChunk, 1))
	if workers <= 1 {
		return [][2]int{{0, n}}
	}
	per := (n + workers - 1) / workers
	if align > 1 {
		per = (per + align - 1) / align * align
	}
	out := make([][2]int, 0, workers)
	for lo := 0; lo < n; lo += per {
		out = append(out, [2]int{lo, min(lo+per, n)})
	}
	return out
}

// Run calls fn(0) … fn(k-1) each on its own goroutine (k = 1 runs inline)
// and returns when all have returned. Callers bound k (Split does).
func Run(k int, fn func(i int)) {
	if k == 1 {
		fn(0)
		return
	}
	var wg sync.WaitGroup
	for i := range k {
		wg.Add(1)
		go func() {
			defer wg.Done()
			fn(i)
		}()
	}
	wg.Wait()
}

// Range calls fn on consecutive chunks of [0, n) on up to maxWorkers
// goroutines (0 = GOMAXPROCS), giving each at least minChunk items; below
// two chunks it runs fn(0, n) inline. fn must only touch its own chunk's
// state.
func Range(n, minChunk, maxWorkers int, fn func(lo, hi int)) {
	chunks := Split(n, minChunk, maxWorkers, 1)
	Run(len(chunks), func(i int) { fn(chunks[i][0], chunks[i][1]) })
}

// For calls fn(i) for every i in [0, n), spread as Range spreads chunks.
func For(n, minChunk, maxWorkers int, fn func(i int)) {
	Range(n, minChunk, maxWorkers, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			fn(i)
		}
	})
}

// Do runs the given functions at once and returns when all have returned:
// for a few different pieces of work whose latencies overlap.
func Do(fns ...func()) {
	Run(len(fns), func(i int) { fns[i]() })
}

// Go starts fn on n goroutines (at least one) and returns a wait that
// blocks until every one has returned: the workers of a pipeline stage,
// each draining the stage's input channel until it is closed.
func Go(n int, fn func()) (wait func()) {
	var wg sync.WaitGroup
	for range max(n, 1) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			fn()
		}()
	}
	return wg.Wait
}
