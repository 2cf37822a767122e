package memcore_test

import (
	"context"
	"fmt"
	"io/fs"
	"math/rand"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/odekmem/odekmem/internal/testkit"
	"github.com/odekmem/odekmem/memcore"
)

// Benchmarks of the store at 1k and 18k atoms of 300 characters.
//
//	go test ./memcore/ -run '^$' -bench 'Open|List|AddDurable|BatchIngest' -benchtime 20x
//
// The fixtures are built once per process with AddBatch and Compact (so the
// vector cache is on disk) under os.TempDir()/odekmem-stbench-<n>, replaced
// on every run.

var stBenchSizes = []int{1000, 18000}

var (
	stFixMu   sync.Mutex
	stFixDirs = map[int]string{}
)

// stBenchTexts returns n distinct 300-byte texts from seed.
func stBenchTexts(seed int64, n int) []string {
	r := rand.New(rand.NewSource(seed))
	out := make([]string, n)
	for i := range out {
		out[i] = stText(r, 300)
	}
	return out
}

// stFixture returns the directory of a store with n atoms (built once).
func stFixture(b testing.TB, n int) string {
	stFixMu.Lock()
	defer stFixMu.Unlock()
	if d, ok := stFixDirs[n]; ok {
		return d
	}
	dir := filepath.Join(os.TempDir(), fmt.Sprintf("odekmem-stbench-%d-%d", n, os.Getuid()))
	os.RemoveAll(dir)
	start := time.Now()
	s, err := memcore.Open(context.Background(), dir, memcore.Options{})
	if err != nil {
		b.Fatal(err)
	}
	texts := stBenchTexts(int64(n), n)
	ctx := context.Background()
	for i := 0; i < n; i += 1000 {
		reqs := make([]memcore.AddRequest, 0, 1000)
		for _, t := range texts[i:min(i+1000, n)] {
			reqs = append(reqs, memcore.AddRequest{Text: t, Source: memcore.SourceUserSaid})
		}
		if _, _, err := s.AddBatch(ctx, reqs); err != nil {
			b.Fatal(err)
		}
	}
	if _, err := s.Compact(ctx); err != nil {
		b.Fatal(err)
	}
	if got := must(s.Stats(ctx)).Live; got < n*99/100 {
		b.Fatalf("fixture holds %d atoms, want about %d", got, n)
	}
	s.Close(context.Background())
	b.Logf("fixture %d atoms built in %s", n, time.Since(start).Round(time.Millisecond))
	stFixDirs[n] = dir
	return dir
}

// stOpenCopy opens a private copy of the n-atom fixture, closed when b
// ends, for a benchmark that writes.
func stOpenCopy(b *testing.B, n int) *memcore.Store {
	b.Helper()
	dir := filepath.Join(b.TempDir(), "extended")
	testkit.CopyDir(b, stFixture(b, n), dir)
	// The copy's dirty pages would otherwise be written by the first
	// commit's syncfs and counted as the benchmark's.
	syncDisks()
	s, err := memcore.Open(context.Background(), dir, memcore.Options{})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { s.Close(context.Background()) })
	return s
}

// stDu is the allocated size of a directory tree (du).
func stDu(dir string) int64 {
	var t int64
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if fi, err := d.Info(); err == nil {
			t += stAllocated(fi)
		}
		return nil
	})
	return t
}

func stPercentile(d []time.Duration, p float64) time.Duration {
	if len(d) == 0 {
		return 0
	}
	s := append([]time.Duration(nil), d...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	i := int(p * float64(len(s)-1))
	return s[i]
}

// BenchmarkOpen measures Open (the store is usable: List, Get, Stats; the
// check that it holds the atoms is not timed) and,
// as ready-ms, Open until the first search has run, which waits for the
// vector and lexical indexes to fill from the cache.
func BenchmarkOpen(b *testing.B) {
	for _, n := range stBenchSizes {
		b.Run(fmt.Sprintf("atoms=%d", n), func(b *testing.B) {
			dir := stFixture(b, n)
			ctx := context.Background()
			var ready time.Duration
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				t0 := time.Now()
				s, err := memcore.Open(ctx, dir, memcore.Options{})
				if err != nil {
					b.Fatal(err)
				}
				b.StopTimer() // Stats walks every file's size: not part of Open
				if must(s.Stats(ctx)).Live < n*99/100 {
					b.Fatalf("opened %d atoms", must(s.Stats(ctx)).Live)
				}
				if _, err := s.Search(ctx, "apple river", memcore.SearchOptions{}); err != nil {
					b.Fatal(err)
				}
				ready += time.Since(t0)
				if st := must(s.Stats(ctx)); st.Index.Stale != 0 || st.Index.Vectors != must(s.Stats(ctx)).Live {
					b.Fatalf("open re-embedded %d atoms (vectors %d): cache not used", st.Index.Stale, st.Index.Vectors)
				}
				s.Close(context.Background())
				b.StartTimer()
			}
			b.StopTimer()
			b.ReportMetric(float64(b.Elapsed().Microseconds())/1000/float64(b.N), "ms/open")
			b.ReportMetric(float64(ready.Microseconds())/1000/float64(b.N), "ready-ms")
			b.ReportMetric(float64(stDu(dir))/float64(n), "disk-B/atom")
		})
	}
}

func BenchmarkList(b *testing.B) {
	for _, n := range stBenchSizes {
		b.Run(fmt.Sprintf("atoms=%d", n), func(b *testing.B) {
			s, err := memcore.Open(context.Background(), stFixture(b, n), memcore.Options{})
			if err != nil {
				b.Fatal(err)
			}
			defer s.Close(context.Background())
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if len(must(s.List(context.Background(), memcore.Filter{}))) == 0 {
					b.Fatal("empty")
				}
			}
		})
	}
}

func BenchmarkAddDurable(b *testing.B) {
	for _, n := range stBenchSizes {
		b.Run(fmt.Sprintf("atoms=%d", n), func(b *testing.B) {
			s := stOpenCopy(b, n)
			texts := stBenchTexts(int64(-n), b.N)
			ctx := context.Background()
			lat := make([]time.Duration, 0, b.N)
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				t0 := time.Now()
				if _, err := s.Add(ctx, memcore.AddRequest{Text: texts[i], Source: memcore.SourceUserSaid}); err != nil {
					b.Fatal(err)
				}
				lat = append(lat, time.Since(t0))
			}
			b.StopTimer()
			b.ReportMetric(float64(stPercentile(lat, 0.5).Microseconds())/1000, "p50-ms")
			b.ReportMetric(float64(stPercentile(lat, 0.99).Microseconds())/1000, "p99-ms")
		})
	}
}

func BenchmarkBatchIngest(b *testing.B) {
	const batch = 500
	for _, n := range stBenchSizes {
		b.Run(fmt.Sprintf("atoms=%d", n), func(b *testing.B) {
			s := stOpenCopy(b, n)
			texts := stBenchTexts(int64(-2*n), b.N*batch)
			ctx := context.Background()
			b.ResetTimer()
			cpu0 := processCPU()
			for i := 0; i < b.N; i++ {
				reqs := make([]memcore.AddRequest, batch)
				for j := range reqs {
					reqs[j] = memcore.AddRequest{Text: texts[i*batch+j], Source: memcore.SourceUserSaid}
				}
				if _, _, err := s.AddBatch(ctx, reqs); err != nil {
					b.Fatal(err)
				}
			}
			b.StopTimer()
			b.ReportMetric(float64(b.N*batch)/b.Elapsed().Seconds(), "atoms/s")
			// Atoms per second of the process's CPU time (all threads): what
			// a shared machine's queue for the cores does not inflate.
			if cpu := processCPU() - cpu0; cpu > 0 {
				b.ReportMetric(float64(b.N*batch)/cpu.Seconds(), "atoms/cpu-s")
			}
		})
	}
}
