package memcore

import (
	"runtime"
	"sync"
)

// parallelFor runs fn(i) for every i in [0, n) on up to GOMAXPROCS
// goroutines, giving each at least perWorker items, and returns when all
// are done. fn must only touch index i's own state.
func parallelFor(n, perWorker int, fn func(i int)) {
	workers := min(runtime.GOMAXPROCS(0), (n+perWorker-1)/perWorker)
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for i := w; i < n; i += workers {
				fn(i)
			}
		}(w)
	}
	wg.Wait()
}
