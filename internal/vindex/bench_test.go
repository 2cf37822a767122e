package vindex

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/odekmem/odekmem/internal/embed"
)

func randUnit(r *rand.Rand, dims int) []float32 {
	v := make([]float32, dims)
	for i := range v {
		v[i] = float32(r.NormFloat64())
	}
	normalize(v)
	return v
}

func buildExact(tb testing.TB, n, dims int, seed uint64) (*Exact, *rand.Rand) {
	tb.Helper()
	r := rand.New(rand.NewPCG(seed, 7))
	e := NewExact(dims, Options{})
	for i := 0; i < n; i++ {
		if err := e.Add(fmt.Sprintf("id%06d", i), randUnit(r, dims)); err != nil {
			tb.Fatal(err)
		}
	}
	return e, r
}

func BenchmarkExactSearch(b *testing.B) {
	for _, n := range []int{1000, 18000, 100000} {
		b.Run(fmt.Sprintf("n=%d/d=768/k=40", n), func(b *testing.B) {
			e, r := buildExact(b, n, 768, 1)
			qs := make([][]float32, 64)
			for i := range qs {
				qs[i] = randUnit(r, 768)
			}
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; b.Loop(); i++ {
				if _, err := e.Search(qs[i%len(qs)], 40, nil); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func TestDotMatchesGeneric(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 3))
	for _, n := range []int{0, 1, 7, 8, 9, 31, 32, 33, 100, 768, 1025} {
		a, b := randUnit(r, n+1)[:n], randUnit(r, n+3)
		got, want := dot(a, b), dotGeneric(a, b)
		if d := got - want; d > 1e-5 || d < -1e-5 {
			t.Fatalf("n=%d dot=%v generic=%v", n, got, want)
		}
	}
}

func TestDot4MatchesGeneric(t *testing.T) {
	r := rand.New(rand.NewPCG(4, 4))
	for _, d := range []int{1, 15, 16, 48, 768, 770} {
		q := randUnit(r, d)
		m := make([]float32, 0, 4*d)
		for range 4 {
			m = append(m, randUnit(r, d)...)
		}
		var out [4]float32
		dot4(q, m, &out)
		for i := range 4 {
			want := dotGeneric(q, m[i*d:(i+1)*d])
			if diff := out[i] - want; diff > 1e-5 || diff < -1e-5 {
				t.Fatalf("d=%d row %d: %v want %v", d, i, out[i], want)
			}
		}
	}
}

// noisyCopy returns v plus Gaussian noise (cosine to v ≈ 0.9), normalised.
func noisyCopy(r *rand.Rand, v []float32) []float32 {
	out := make([]float32, len(v))
	sigma := 0.5 / math.Sqrt(float64(len(v)))
	for i, x := range v {
		out[i] = x + float32(sigma*r.NormFloat64())
	}
	normalize(out)
	return out
}

// BenchmarkExactSearchLatency reports p50/p99 over 2000 queries at 18k×768,
// k=40, one goroutine, with and without query-side IDF.
func BenchmarkExactSearchLatency(b *testing.B) {
	for _, idf := range []bool{false, true} {
		b.Run(fmt.Sprintf("n=18000/d=768/k=40/idf=%v", idf), func(b *testing.B) {
			r := rand.New(rand.NewPCG(2, 2))
			e := NewExact(768, Options{IDF: idf})
			h := embed.NewHash(768)
			for i := range 18000 {
				var v []float32
				if idf { // sparse embedder: hash-embedded synthetic sentences
					v = h.EmbedText(synthSentence(r))
				} else {
					v = randUnit(r, 768)
				}
				e.Add(fmt.Sprintf("id%06d", i), v)
			}
			qs := make([][]float32, 2000)
			for i := range qs {
				if idf {
					qs[i] = h.EmbedText(synthSentence(r))
				} else {
					qs[i] = randUnit(r, 768)
				}
			}
			lat := make([]time.Duration, len(qs))
			b.ResetTimer()
			for b.Loop() {
				for i, q := range qs {
					t0 := time.Now()
					if _, err := e.Search(q, 40, nil); err != nil {
						b.Fatal(err)
					}
					lat[i] = time.Since(t0)
				}
			}
			slices.Sort(lat)
			b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "p50-ms")
			b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds())/1000, "p99-ms")
			b.ReportMetric(0, "ns/op")
		})
	}
}

var synthWords = strings.Fields(`the a i we my our kids dog cat painting pottery lake beach camping hiking
support group adoption school work project deadline coffee music guitar concert book novel
garden flowers sunrise sunset mountain trip family friend mentor counseling career degree
running marathon charity race awareness mental health recipe dinner birthday party photo
yesterday last week month year tomorrow loved enjoyed started finished visited bought made
golang rust python refactor tests auth tokens database migration deploy review bug fix`)

// synthSentence draws 8–47 words (about 300 characters at most): a third
// from a small everyday vocabulary, the rest Zipf-distributed over 20,000
// pseudo-words, so posting lists have a realistic spread of lengths.
func synthSentence(r *rand.Rand) string {
	n := 8 + r.IntN(40)
	w := make([]string, n)
	for i := range w {
		if r.IntN(3) == 0 {
			w[i] = synthWords[r.IntN(len(synthWords))]
		} else {
			w[i] = pseudoWord(zipf(r, 20000))
		}
	}
	return strings.Join(w, " ")
}

// zipf returns a rank in [0, n) with P(rank) ∝ 1/(rank+1).
func zipf(r *rand.Rand, n int) int {
	// inverse CDF of the continuous approximation
	return min(n-1, int(math.Exp(r.Float64()*math.Log(float64(n+1))))-1)
}

func pseudoWord(i int) string {
	const syl = "bacedifogahujokelimonupirasotuvawexy"
	var b []byte
	for {
		j := i % 18
		b = append(b, syl[2*j], syl[2*j+1])
		i /= 18
		if i == 0 {
			break
		}
	}
	return string(b)
}

func BenchmarkBM25Search(b *testing.B) {
	r := rand.New(rand.NewPCG(4, 4))
	x := NewBM25()
	for i := range 18000 {
		x.Add(fmt.Sprintf("id%06d", i), synthSentence(r))
	}
	qs := make([]string, 64)
	for i := range qs {
		qs[i] = strings.Join(strings.Fields(synthSentence(r))[:6], " ")
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		x.Search(qs[i%len(qs)], 40, nil)
	}
}

// BenchmarkExactSearchMulti is the agent hook's per-turn pass at 18k × 768:
// four distinct query vectors, eight searches (k 40, 5, and per intent 10
// plus a filtered 5), in one pass (multi) against one search per query
// (separate).
func BenchmarkExactSearchMulti(b *testing.B) {
	e, r := buildExact(b, 18000, 768, 1)
	ws := make([][]float32, 4)
	for i := range ws {
		ws[i], _ = e.Query(randUnit(r, 768))
	}
	odd := func(id string) bool { return id[len(id)-1]%3 == 0 }
	specs := []MultiSpec{{0, 40, nil}, {0, 5, odd}, {1, 10, nil}, {1, 5, odd}, {2, 10, nil}, {2, 5, odd}, {3, 10, nil}, {3, 5, odd}}
	b.Run("multi", func(b *testing.B) {
		for b.Loop() {
			if _, err := e.SearchWeightedMulti(ws, specs); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("separate", func(b *testing.B) {
		for b.Loop() {
			for _, sp := range specs {
				e.SearchWeighted(ws[sp.Query], sp.K, sp.Allow)
			}
		}
	})
}
