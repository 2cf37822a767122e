package memcore_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/odekmem/odekmem/internal/llm"
	"github.com/odekmem/odekmem/memcore"
)

// hWords is a vocabulary for synthetic but varied atoms.
var hWords = strings.Fields(`payments ledger postgres migration auth jwt token refresh webshop checkout stripe terraform
bucket replica cache redis queue worker retry timeout deploy kubernetes helm gitops test fuzz benchmark latency
span exporter otlp sampling react vite vitest playwright schema index partition merchant payout settlement report
currency rounding decimal idempotency webhook signature cron backup restore vault secret rotation feature flag`)

func hSentence(r *rand.Rand, n int) string {
	var b strings.Builder
	for b.Len() < n {
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(hWords[r.IntN(len(hWords))])
	}
	return b.String()
}

// hBuildStore fills an uncapped store with n atoms through AddBatch.
func hBuildStore(tb testing.TB, n int, llmc llm.Client) *memcore.Store {
	tb.Helper()
	cfg := memcore.DefaultConfig()
	cfg.NoSizeCap = true
	st, err := memcore.Open(context.Background(), tb.TempDir(), memcore.Options{Config: &cfg, LLM: llmc})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { st.Close(context.Background()) })
	texts := stBenchTexts(int64(n), n)
	types := []memcore.Type{"fact", "preference", "decision", "convention", "error", "file", "goal", "intent", "question"}
	for start := 0; start < n; start += 2000 {
		var reqs []memcore.AddRequest
		for i := start; i < min(n, start+2000); i++ {
			reqs = append(reqs, memcore.AddRequest{Text: texts[i], Type: types[i%len(types)],
				Source: memcore.SourceUserSaid, Context: memcore.AtomContext{SessionID: fmt.Sprintf("s%d", i/40), Turn: i % 40, Project: fmt.Sprintf("p%d", i%4)}})
		}
		if _, _, err := st.AddBatch(context.Background(), reqs); err != nil {
			tb.Fatal(err)
		}
	}
	if _, err := st.Compact(context.Background()); err != nil {
		tb.Fatal(err)
	}
	return st
}

// hOpenFixture opens the shared benchmark fixture of n atoms.
func hOpenFixture(tb testing.TB, n int, llmc llm.Client) *memcore.Store {
	tb.Helper()
	st, err := memcore.Open(context.Background(), stFixture(tb, n), memcore.Options{LLM: llmc})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { st.Close(context.Background()) })
	// Wait until the index is filled from the cache.
	if _, err := st.Search(context.Background(), "warm up", memcore.SearchOptions{}); err != nil {
		tb.Fatal(err)
	}
	return st
}

// instantLLM answers every memory task at once with a plausible reply.
var instantLLM = llm.ClientFunc(func(ctx context.Context, req llm.Request) (string, error) {
	switch {
	case strings.HasPrefix(req.System, "You anticipate"):
		return `["which tests cover the payments ledger?","how do we roll back a migration?","what retry policy do workers use?"]`, nil
	case strings.HasPrefix(req.System, "You rank"):
		return `[0,1,2,3,4,5,6,7,8,9]`, nil
	case strings.HasPrefix(req.System, "You are a memory extraction"):
		return `[{"text":"User prefers small migrations","type":"preference","confidence":0.8}]`, nil
	}
	return `[]`, nil
})

// BenchmarkHookTurn measures the hook's own overhead per turn at 18k atoms
// with a memory LLM that answers instantly: anaphora, prediction (3
// intents), literal, intent and type-targeted recall, rerank, blocks.
// one-pass is Hook.BeforeTurn (its searches share passes over the index);
// nine-searches runs the same turn with the design's nine separate
// searches through Store.Search (what BeforeTurn did before), for the
// before/after figure of one run. Their messages share no word with the
// fixture's atoms, so the memory block stays empty (block-atoms 0):
// one-pass-recalled is BeforeTurn with messages in the fixture's own
// words, so that the block is filled and its final scan runs every turn.
func BenchmarkHookTurn(b *testing.B) {
	st := hOpenFixture(b, 18000, instantLLM)
	r := rand.New(rand.NewPCG(3, 4))
	msgs := make([]string, 64)
	recalled := make([]string, 64)
	for i, t := range stBenchTexts(77, len(msgs)) {
		msgs[i] = "can you refactor it so the " + hSentence(r, 60)
		recalled[i] = "can you refactor it so the " + t[:80]
	}
	b.Run("one-pass", func(b *testing.B) { hBenchTurns(b, st, msgs) })
	b.Run("one-pass-recalled", func(b *testing.B) { hBenchTurns(b, st, recalled) })
	b.Run("nine-searches", func(b *testing.B) {
		cfg := memcore.DefaultConfig()
		k := cfg.SemanticSearchTopK
		targeted := []memcore.Type{"convention", "file", "error"}
		intents := []string{"which tests cover the payments ledger?", "how do we roll back a migration?", "what retry policy do workers use?"}
		var lat []time.Duration
		ctx := context.Background()
		b.ResetTimer()
		cpu0 := processCPU()
		for i := 0; i < b.N; i++ {
			msg := msgs[i%len(msgs)]
			t0 := time.Now()
			var all [][]memcore.Scored
			add := func(res []memcore.Scored, _ error) { all = append(all, res) }
			add(st.Search(ctx, msg, memcore.SearchOptions{K: 5}))
			add(st.Search(ctx, msg, memcore.SearchOptions{K: k * cfg.SemanticSearchOverfetch}))
			llm.PredictIntents(ctx, instantLLM, msg, nil, "{}", 3)
			for _, in := range intents {
				add(st.Search(ctx, in, memcore.SearchOptions{K: k}))
				add(st.Search(ctx, in, memcore.SearchOptions{K: k / 2, Types: targeted}))
			}
			add(st.Search(ctx, msg, memcore.SearchOptions{K: k / 2, Types: targeted}))
			var pool []memcore.Scored
			for _, res := range all {
				pool = append(pool, res...)
			}
			_ = pool[:min(len(pool), k)] // the block itself is rendered by both the same way
			lat = append(lat, time.Since(t0))
		}
		cpu := processCPU() - cpu0
		b.StopTimer()
		hReportPercentiles(b, lat)
		b.ReportMetric(float64(cpu.Microseconds())/1000/float64(b.N), "cpu-ms/op")
	})
}

// hBenchTurns runs Hook.BeforeTurn over msgs in turn and reports its
// latency, its CPU time per turn and the atoms in its memory block.
func hBenchTurns(b *testing.B, st *memcore.Store, msgs []string) {
	h := memcore.NewHook(st)
	var lat []time.Duration
	atoms := 0
	b.ResetTimer()
	cpu0 := processCPU()
	for i := 0; i < b.N; i++ {
		t0 := time.Now()
		tc := h.BeforeTurn(context.Background(), memcore.Turn{Message: msgs[i%len(msgs)], SessionID: "bench", Project: "p1"})
		lat = append(lat, time.Since(t0))
		atoms += len(tc.Memory.Atoms)
	}
	cpu := processCPU() - cpu0
	b.StopTimer()
	hReportPercentiles(b, lat)
	b.ReportMetric(float64(cpu.Microseconds())/1000/float64(b.N), "cpu-ms/op")
	b.ReportMetric(float64(atoms)/float64(b.N), "block-atoms")
}

func hReportPercentiles(b *testing.B, lat []time.Duration) {
	if len(lat) == 0 {
		return
	}
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(lat[min(len(lat)-1, len(lat)*99/100)].Microseconds())/1000, "p99-ms")
}

// BenchmarkRecall measures Search (the offline query embedding included:
// BenchmarkHashEmbed300 in package embed measures that part alone) at 1k,
// 18k and 100k atoms of 768-d vectors. The 100k store exceeds the default
// cap and is built uncapped.
func BenchmarkRecall(b *testing.B) {
	for _, n := range []int{1000, 18000, 100000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			var st *memcore.Store
			if n <= 18000 {
				st = hOpenFixture(b, n, nil)
			} else {
				st = hBuildStore(b, n, nil)
			}
			r := rand.New(rand.NewPCG(5, 6))
			qs := make([]string, 64)
			for i := range qs {
				qs[i] = hSentence(r, 50)
			}
			var lat []time.Duration
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				t0 := time.Now()
				st.Search(context.Background(), qs[i%len(qs)], memcore.SearchOptions{})
				lat = append(lat, time.Since(t0))
			}
			b.StopTimer()
			hReportPercentiles(b, lat)
		})
	}
}
