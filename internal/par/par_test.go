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

func TestSplitAlignsAndCovers(t *testing.T) {
	for _, tc := range []struct{ n, minChunk, workers, align int }{{10, 1, 3, 4}, {4097, 2048, 2, 4}, {100000, 2048, 8, 4}, {5, 1, 0, 1}, {1, 1, 4, 4}} {
		chunks := Split(tc.n, tc.minChunk, tc.workers, tc.align)
		next := 0
		for i, c := range chunks {
			if c[0] != next || c[1] <= c[0] {
				t.Fatalf("%+v: chunk %d is %v after %d", tc, i, c, next)
			}
			if i < len(chunks)-1 && c[1]%tc.align != 0 {
				t.Fatalf("%+v: chunk %d ends at %d, not a multiple of %d", tc, i, c[1], tc.align)
			}
			next = c[1]
		}
		if next != tc.n {
			t.Fatalf("%+v: chunks cover [0, %d), want [0, %d)", tc, next, tc.n)
		}
		if w := tc.workers; w > 0 && len(chunks) > w {
			t.Fatalf("%+v: %d chunks for %d workers", tc, len(chunks), w)
		}
	}
	if Split(0, 1, 1, 1) != nil {
		t.Fatal("Split(0) returned chunks")
	}
}

func TestDoAndGoRunEverythingBeforeReturning(t *testing.T) {
	var a, b atomic.Int32
	Do(func() { a.Add(1) }, func() { b.Add(1) })
	if a.Load() != 1 || b.Load() != 1 {
		t.Fatalf("Do ran a %d and b %d times", a.Load(), b.Load())
	}
	work := make(chan int)
	var sum atomic.Int64
	wait := Go(3, func() {
		for x := range work {
			sum.Add(int64(x))
		}
	})
	for i := 1; i <= 100; i++ {
		work <- i
	}
	close(work)
	wait()
	if sum.Load() != 5050 {
		t.Fatalf("the workers summed %d, want 5050", sum.Load())
	}
}
