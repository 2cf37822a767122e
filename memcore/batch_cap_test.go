package memcore_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/odekmem/odekmem/memcore"
)

func hJSONL(t *testing.T, prefix string, n int, created time.Time) *bytes.Buffer {
	var b bytes.Buffer
	base := int(prefix[0]) * 1000 // different numbers per batch: different facts
	for j := 0; j < n; j++ {
		i := base + j
		id := fmt.Sprintf("%s%028d", prefix, j)
		a := memcore.Atom{ID: id, SourceClass: memcore.SourceUserSaid, Type: "fact", CreatedAt: created,
			Text: fmt.Sprintf("%s note %d: the %d-th deploy of service %d used canary %d and rollback window %d minutes", prefix, i, i, i*3, i*7, i%50)}
		line, _ := json.Marshal(struct {
			Kind string `json:"kind"`
			*memcore.Atom
		}{"atom", &a}) // one line of the export
		b.Write(append(line, '\n'))
	}
	return &b
}

// TestBatchNearTheCapEvictsOnlyWhatItMust imports into a store close to its
// cap: the batch may evict the oldest atoms to make room, but only as many
// as the new atoms need, and it reports them.
func TestBatchNearTheCapEvictsOnlyWhatItMust(t *testing.T) {
	cfg := memcore.DefaultConfig()
	cfg.MaxSizeMB = 1
	st, err := memcore.Open(context.Background(), t.TempDir(), memcore.Options{Config: &cfg, Now: func() time.Time { return hNow }})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close(context.Background())
	ctx := context.Background()
	if _, err := st.Import(ctx, hJSONL(t, "aaaa", 75, hNow.Add(-60*24*time.Hour)), memcore.ImportOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := st.Import(ctx, hJSONL(t, "bbbb", 90, hNow.Add(-30*24*time.Hour)), memcore.ImportOptions{}); err != nil {
		t.Fatal(err)
	}
	before := must(st.Stats(ctx)).Live
	res, err := st.Import(ctx, hJSONL(t, "cccc", 60, hNow), memcore.ImportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	after := must(st.Stats(ctx)).Live
	if res.Live != 60 || res.Refreshed != 0 || after != before+60-res.Evicted {
		t.Fatalf("import reported %+v; live %d → %d", res, before, after)
	}
	// The vector cache (vectors, texts and the lexical index, about a
	// kilobyte an atom here: a sixth of this cap) counts in the projection
	// before it is written: write it, so what is measured is all of it.
	if _, err := st.Compact(ctx); err != nil {
		t.Fatal(err)
	}
	s := must(st.Stats(ctx))
	if s.TotalBytes > s.CapBytes {
		t.Fatalf("over the cap: %d > %d", s.TotalBytes, s.CapBytes)
	}
	if s.TotalBytes < s.CapBytes*8/10 {
		t.Fatalf("over-evicted: the store shrank to %d of a %d cap (%d evicted for 60 new atoms)", s.TotalBytes, s.CapBytes, res.Evicted)
	}
	for _, a := range must(st.List(ctx, memcore.Filter{})) {
		if a.ID[:4] == "bbbb" && res.Evicted < 75 {
			continue
		}
		if a.ID[:4] == "aaaa" && res.Evicted >= 75 {
			t.Fatalf("a newer atom went before an older one")
		}
	}
}
