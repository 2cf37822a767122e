package memcore_test

import (
	"context"
	"math/rand"
	"os"
	"path/filepath"
	"sort"
	"testing"

	"github.com/odekmem/odekmem/memcore"
)

// TestCapacity fills a store under the default 100 MB cap with distinct
// 300-character atoms and 768-d vectors until eviction starts, and reports
// how many atoms it holds and what each component takes on disk (allocated
// blocks, as du counts them). It is slow, so it only runs with
// ODEKMEM_CAPACITY=1 (and never under -short):
//
//	ODEKMEM_CAPACITY=1 go test ./memcore/ -run TestCapacity -v -timeout 30m
func TestCapacity(t *testing.T) {
	if testing.Short() || os.Getenv("ODEKMEM_CAPACITY") != "1" {
		t.Skip("slow: set ODEKMEM_CAPACITY=1")
	}
	dir := filepath.Join(t.TempDir(), "memory", "extended")
	cfg := memcore.DefaultConfig()
	s, err := memcore.Open(context.Background(), dir, memcore.Options{Config: &cfg})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close(context.Background())
	ctx := context.Background()
	r := rand.New(rand.NewSource(18000))
	const batch = 250
	held := 0
	for round := 0; round < 400; round++ {
		reqs := make([]memcore.AddRequest, batch)
		for i := range reqs {
			reqs[i] = memcore.AddRequest{Text: stText(r, 300), Source: memcore.SourceUserSaid}
		}
		res, errs, err := s.AddBatch(ctx, reqs)
		if err != nil {
			t.Fatal(err)
		}
		evicted := 0
		for i := range res {
			if errs[i] != nil {
				t.Fatalf("atom %d: %v", i, errs[i])
			}
			evicted += len(res[i].Evicted)
		}
		if evicted > 0 {
			held = must(s.Stats(ctx)).Live
			break
		}
	}
	if _, err := s.Compact(ctx); err != nil {
		t.Fatal(err)
	}
	st := must(s.Stats(ctx))
	du := stDu(dir)
	t.Logf("capacity: %d atoms held under the %d MB cap when eviction started (%d after compact)", held, int(cfg.MaxSizeMB), st.Live)
	t.Logf("store: du %d bytes (%.1f MiB), Stats total %d, cap %d", du, float64(du)/(1<<20), st.TotalBytes, st.CapBytes)
	var comps []string
	for c := range st.Components {
		comps = append(comps, c)
	}
	sort.Strings(comps)
	for _, c := range comps {
		t.Logf("  %-13s %10d bytes  %7.1f B/atom", c, st.Components[c], float64(st.Components[c])/float64(max(st.Live, 1)))
	}
	if du > st.CapBytes {
		t.Errorf("store uses %d bytes on disk, over the %d cap", du, st.CapBytes)
	}
	if held < 18000 {
		t.Errorf("capacity %d atoms, target ≥ 18,000", held)
	}
}
