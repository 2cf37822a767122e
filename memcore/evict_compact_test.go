package memcore_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/odekmem/odekmem/memcore"
)

// TestLargeEvictionCompactsInBackground shrinks the cap under a full store:
// the next add evicts far more than 10% of the corpus, the evicted atoms
// leave the index at once, and the vector cache is rewritten in the
// background without them.
func TestLargeEvictionCompactsInBackground(t *testing.T) {
	dir := t.TempDir()
	big := memcore.DefaultConfig()
	big.NoSizeCap = true
	st, err := memcore.Open(context.Background(), dir, memcore.Options{Config: &big})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	var reqs []memcore.AddRequest
	for i := 0; i < 300; i++ {
		reqs = append(reqs, memcore.AddRequest{Text: fmt.Sprintf("note %d about subsystem %d and its deploy window %d", i, i*7, i*13), Source: memcore.SourceUserSaid})
	}
	if _, _, err := st.AddBatch(ctx, reqs); err != nil {
		t.Fatal(err)
	}
	total := must(st.Stats(ctx)).TotalBytes
	st.Close(context.Background())

	small := memcore.DefaultConfig()
	small.MaxSizeMB = float64(total) / 2 / (1 << 20)
	st, err = memcore.Open(ctx, dir, memcore.Options{Config: &small})
	if err != nil {
		t.Fatal(err)
	}
	r, err := st.Add(ctx, memcore.AddRequest{Text: "the newest and most important note", Source: memcore.SourceUserApproved, Pin: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Evicted) < 30 {
		t.Fatalf("only %d evicted", len(r.Evicted))
	}
	if n := must(st.Stats(ctx)).Index.Vectors; n != must(st.Stats(ctx)).Live {
		t.Fatalf("index holds %d vectors for %d live atoms", n, must(st.Stats(ctx)).Live)
	}
	st.Close(context.Background()) // waits for the background compaction
	st, err = memcore.Open(ctx, dir, memcore.Options{Config: &small})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close(context.Background())
	s := must(st.Stats(ctx))
	if s.Index.Stale != 0 || s.Index.Vectors != s.Live || s.TotalBytes > s.CapBytes {
		t.Fatalf("after the background compaction: %+v live %d total %d components %v (cap %d)", s.Index, s.Live, s.TotalBytes, s.Components, s.CapBytes)
	}
}
