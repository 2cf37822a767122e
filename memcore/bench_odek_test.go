package memcore_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/odekmem/odekmem/internal/testkit"
	"github.com/odekmem/odekmem/memcore"
)

// BenchmarkOpenAfterOdek is BenchmarkOpen on a store odek has just
// touched: odek rewrote its vector cache (vectors.gob, vectors.gob.emb and
// its own vectors_meta.json) and keeps nudges.json. ready-ms is open plus
// the first recall; the benchmark fails if odekmem re-embedded anything.
func BenchmarkOpenAfterOdek(b *testing.B) {
	n := 18000
	if testing.Short() {
		n = 1000
	}
	b.Run(fmt.Sprintf("atoms=%d", n), func(b *testing.B) {
		dir := filepath.Join(b.TempDir(), "extended")
		testkit.CopyDir(b, stFixture(b, n), dir)
		ctx := context.Background()
		var ready time.Duration
		for i := 0; i < b.N; i++ {
			b.StopTimer()
			os.WriteFile(filepath.Join(dir, "vectors_meta.json"), []byte(fmt.Sprintf(`{"fingerprint": "rp/256", "corpus": "%d:%016x"}`, n, i)), 0o600)
			os.WriteFile(filepath.Join(dir, "vectors.gob"), []byte(fmt.Sprintf("odek gob %d", i)), 0o600)
			os.WriteFile(filepath.Join(dir, "vectors.gob.emb"), []byte("odek embedder"), 0o600)
			os.WriteFile(filepath.Join(dir, "nudges.json"), []byte(`[{"nudge": "check the release notes"}]`), 0o600)
			b.StartTimer()
			t0 := time.Now()
			s, err := memcore.Open(ctx, dir, memcore.Options{})
			if err != nil {
				b.Fatal(err)
			}
			if _, err := s.Search(ctx, "apple river", memcore.SearchOptions{}); err != nil {
				b.Fatal(err)
			}
			ready += time.Since(t0)
			b.StopTimer()
			if st := must(s.Stats(ctx)); st.Index.Stale != 0 || st.Index.Vectors != must(s.Stats(ctx)).Live {
				b.Fatalf("open after odek re-embedded %d atoms (vectors %d)", st.Index.Stale, st.Index.Vectors)
			}
			s.Close(context.Background())
			b.StartTimer()
		}
		b.StopTimer()
		b.ReportMetric(float64(ready.Microseconds())/1000/float64(b.N), "ready-ms")
	})
}
