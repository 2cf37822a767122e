package par

import (
	"sync/atomic"
	"testing"
)

func TestForVisitsEveryIndexOnce(t *testing.T) {
	for _, tc := range []struct{ n, minChunk, workers int }{{0, 1, 0}, {1, 1, 0}, {7, 1, 3}, {1000, 16, 8}, {1000, 2000, 0}, {65, 64, 0}} {
		seen := make([]atomic.Int32, tc.n)
		For(tc.n, tc.minChunk, tc.workers, func(i int) { seen[i].Add(1) })
		for i := range seen {
			if c := seen[i].Load(); c != 1 {
				t.Fatalf("n=%d minChunk=%d workers=%d: index %d visited %d times", tc.n, tc.minChunk, tc.workers, i, c)
			}
		}
	}
}

func TestRangeBoundsWorkers(t *testing.T) {
	var running, peak atomic.Int32
	gate := make(chan struct{})
	done := make(chan struct{})
	go func() {
		Range(100, 1, 3, func(lo, hi int) {
			n := running.Add(1)
			for {
				p := peak.Load()
				if n <= p || peak.CompareAndSwap(p, n) {
					break
				}
			}
			<-gate
			running.Add(-1)
		})
		close(done)
	}()
	close(gate)
	<-done
	if peak.Load() > 3 {
		t.Fatalf("%d chunks ran at once with at most 3 workers", peak.Load())
	}
}
