package vindex

import (
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"testing"
	"time"

	"github.com/odekmem/odekmem/internal/cputime"
	"github.com/odekmem/odekmem/internal/embed"
)

// quantPair builds the same hash-embedded synthetic notes into an index
// that takes the quantised first pass from quantMin rows and one that
// never does.
func quantPair(tb testing.TB, n, quantMin int, seed uint64) (q, ex *Exact, r *rand.Rand, h *embed.Hash) {
	tb.Helper()
	r = rand.New(rand.NewPCG(seed, 11))
	h = embed.NewHash(768)
	q = NewExact(768, Options{IDF: true, QuantMin: quantMin})
	ex = NewExact(768, Options{IDF: true, QuantMin: -1})
	q.Reserve(n)
	ex.Reserve(n)
	// In chunks, so that a million float vectors (3 GB) never exist at once.
	const chunk = 8192
	for start := 0; start < n; start += chunk {
		m := min(chunk, n-start)
		ids := make([]string, m)
		vecs := make([][]float32, m)
		for i := range vecs {
			ids[i] = fmt.Sprintf("id%07d", start+i)
			vecs[i] = h.EmbedText(synthSentence(r))
		}
		if err := q.AddMany(ids, vecs); err != nil {
			tb.Fatal(err)
		}
		if err := ex.AddMany(ids, vecs); err != nil {
			tb.Fatal(err)
		}
	}
	return q, ex, r, h
}

func overlapOf(got, want []Hit) int {
	n := 0
	for _, g := range got {
		for _, w := range want {
			if g.ID == w.ID {
				n++
			}
		}
	}
	return n
}

func TestQuantSearchFindsWhatExactFinds(t *testing.T) {
	q, ex, r, h := quantPair(t, 6000, 1000, 1)
	if !q.quantActive() || ex.quantActive() {
		t.Fatal("quantised pass not where it should be")
	}
	found, total := 0, 0
	for i := range 100 {
		s := synthSentence(r)
		if i%2 == 1 {
			s = s[:min(len(s), 40)] // a short query
		}
		v := h.EmbedText(s)
		got, err := q.Search(v, 10, nil)
		if err != nil {
			t.Fatal(err)
		}
		want, _ := ex.Search(v, 10, nil)
		found += overlapOf(got, want)
		total += len(want)
		for _, g := range got {
			// Every hit carries its exact cosine.
			if c, _ := ex.Cosine(v, g.ID); c != g.Cosine {
				t.Fatalf("%s: cosine %v, exact %v", g.ID, g.Cosine, c)
			}
		}
	}
	if recall := float64(found) / float64(total); recall < 0.95 {
		t.Fatalf("recall@10 against exact %.3f, want ≥ 0.95", recall)
	}
	// A filter is honoured and still fills k.
	odd := func(id string) bool { return id[len(id)-1]%2 == 1 }
	got, _ := q.Search(h.EmbedText(synthSentence(r)), 10, odd)
	if len(got) != 10 {
		t.Fatalf("filtered search returned %d hits", len(got))
	}
	for _, g := range got {
		if !odd(g.ID) {
			t.Fatalf("filter not honoured: %s", g.ID)
		}
	}
}

// TestQuantCodesFollowChanges: codes stay those of the rows through
// adds, replacements and swap-removes, and the multi-query pass agrees
// with single searches.
func TestQuantCodesFollowChanges(t *testing.T) {
	q, _, r, h := quantPair(t, 1500, 1000, 2)
	for i := range 300 {
		id := fmt.Sprintf("id%07d", r.IntN(1800))
		if i%3 == 0 {
			q.Remove(id)
		} else {
			q.Add(id, h.EmbedText(synthSentence(r)))
		}
	}
	rot := rotationFor(768)
	w := rot.words()
	want := make([]uint64, w)
	buf := make([]float32, rot.size)
	if len(q.codes) != len(q.ids)*w {
		t.Fatalf("%d codes for %d rows", len(q.codes)/w, len(q.ids))
	}
	for row := range q.ids {
		codeOf(rot, q.data[row*768:(row+1)*768], want, buf)
		if !slices.Equal(want, q.codes[row*w:(row+1)*w]) {
			t.Fatalf("row %d: code is stale", row)
		}
	}
	ws := make([][]float32, 2)
	for i := range ws {
		ws[i], _ = q.Query(h.EmbedText(synthSentence(r)))
	}
	odd := func(id string) bool { return id[len(id)-1]%2 == 1 }
	specs := []MultiSpec{{0, 10, nil}, {0, 5, odd}, {1, 40, nil}}
	multi, err := q.SearchWeightedMulti(ws, specs)
	if err != nil {
		t.Fatal(err)
	}
	for i, sp := range specs {
		one, _ := q.SearchWeighted(ws[sp.Query], sp.K, sp.Allow)
		if !slices.Equal(one, multi[i]) {
			t.Fatalf("spec %d: multi %v, single %v", i, multi[i], one)
		}
	}
}

// BenchmarkQuantSearch reports the latency of exact search with the
// quantised first pass (p50/p99 of wall and of the searching thread's CPU
// time over 400 queries, one goroutine, k 40 as recall asks) and its
// recall@10 against a full scan, at 18k, 100k and
// (QUANT_1M=1; about 2 GB of RAM for the pair of indexes: 768 MB of int8
// rows each and 128 MB of codes) 1M hash-embedded synthetic notes, beside
// the full scan's latency.
func BenchmarkQuantSearch(b *testing.B) {
	sizes := []int{18000, 100000}
	if os.Getenv("QUANT_1M") != "" {
		sizes = append(sizes, 1000000)
	}
	for _, n := range sizes {
		b.Run(fmt.Sprintf("n=%d/d=768", n), func(b *testing.B) {
			q, ex, r, h := quantPair(b, n, 1, 3)
			qs := make([][]float32, 400)
			for i := range qs {
				s := synthSentence(r)
				if i%2 == 1 {
					s = s[:min(len(s), 40)]
				}
				qs[i] = h.EmbedText(s)
			}
			// lat returns wall and thread-CPU percentiles (the CPU time of
			// the searching thread, which a loaded machine's scheduler does
			// not inflate; zero where the platform cannot say).
			lat := func(e *Exact) (p50, p99, c50, c99 float64) {
				defer cputime.LockThread()()
				d := make([]time.Duration, len(qs))
				c := make([]time.Duration, len(qs))
				for i, v := range qs {
					c0, _ := cputime.Thread()
					t0 := time.Now()
					e.Search(v, 40, nil)
					d[i] = time.Since(t0)
					c1, _ := cputime.Thread()
					c[i] = c1 - c0
				}
				slices.Sort(d)
				slices.Sort(c)
				ms := func(x time.Duration) float64 { return float64(x.Microseconds()) / 1000 }
				return ms(d[len(d)/2]), ms(d[len(d)*99/100]), ms(c[len(c)/2]), ms(c[len(c)*99/100])
			}
			found := 0
			for _, v := range qs {
				got, _ := q.Search(v, 10, nil)
				want, _ := ex.Search(v, 10, nil)
				found += overlapOf(got, want)
			}
			b.ResetTimer()
			var qp50, qp99, qc50, qc99 float64
			for b.Loop() {
				qp50, qp99, qc50, qc99 = lat(q)
			}
			b.StopTimer()
			ep50, ep99, ec50, ec99 := lat(ex)
			b.ReportMetric(qp50, "p50-ms")
			b.ReportMetric(qp99, "p99-ms")
			b.ReportMetric(qc50, "cpu-p50-ms")
			b.ReportMetric(qc99, "cpu-p99-ms")
			b.ReportMetric(ep50, "exact-p50-ms")
			b.ReportMetric(ep99, "exact-p99-ms")
			b.ReportMetric(ec50, "exact-cpu-p50-ms")
			b.ReportMetric(ec99, "exact-cpu-p99-ms")
			b.ReportMetric(float64(found)/float64(10*len(qs)), "recall@10")
			b.ReportMetric(0, "ns/op")
		})
	}
}

// BenchmarkIndexEngines compares, on the same hash-embedded synthetic
// notes, a full exact scan and exact search through the quantised first
// pass: the time to build each from the vectors, search latency (p50/p99
// over 200 queries, k 40, one goroutine) and recall@10 against the full
// scan. 100k with ENGINES_100K=1. (It also measured the patched
// coder/hnsw graph before that engine was retired: see BENCHMARKS.md.)
func BenchmarkIndexEngines(b *testing.B) {
	sizes := []int{18000}
	if os.Getenv("ENGINES_100K") != "" {
		sizes = append(sizes, 100000)
	}
	for _, n := range sizes {
		r := rand.New(rand.NewPCG(5, 11))
		h := embed.NewHash(768)
		ids := make([]string, n)
		vecs := make([][]float32, n)
		for i := range vecs {
			ids[i] = fmt.Sprintf("id%07d", i)
			vecs[i] = h.EmbedText(synthSentence(r))
		}
		qs := make([][]float32, 200)
		for i := range qs {
			s := synthSentence(r)
			if i%2 == 1 {
				s = s[:min(len(s), 40)]
			}
			qs[i] = h.EmbedText(s)
		}
		full := NewExact(768, Options{IDF: true, QuantMin: -1})
		full.AddMany(ids, vecs)
		truth := make([][]Hit, len(qs))
		for i, q := range qs {
			truth[i], _ = full.Search(q, 10, nil)
		}
		engines := []struct {
			name  string
			build func() Index
		}{
			{"exact", func() Index { e := NewExact(768, Options{IDF: true, QuantMin: -1}); e.AddMany(ids, vecs); return e }},
			{"quantised", func() Index { e := NewExact(768, Options{IDF: true, QuantMin: 1}); e.AddMany(ids, vecs); return e }},
		}
		for _, eng := range engines {
			b.Run(fmt.Sprintf("n=%d/%s", n, eng.name), func(b *testing.B) {
				t0 := time.Now()
				idx := eng.build()
				build := time.Since(t0)
				found := 0
				for i, q := range qs {
					got, _ := idx.Search(q, 10, nil)
					found += overlapOf(got, truth[i])
				}
				var lat []time.Duration
				b.ResetTimer()
				for b.Loop() {
					lat = lat[:0]
					for _, q := range qs {
						t1 := time.Now()
						idx.Search(q, 40, nil)
						lat = append(lat, time.Since(t1))
					}
				}
				b.StopTimer()
				slices.Sort(lat)
				b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "p50-ms")
				b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds())/1000, "p99-ms")
				b.ReportMetric(float64(found)/float64(10*len(qs)), "recall@10")
				b.ReportMetric(build.Seconds(), "build-s")
				b.ReportMetric(0, "ns/op")
			})
		}
	}
}
