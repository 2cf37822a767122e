package memcore_test

import (
	"context"
	"errors"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/odekmem/odekmem/memcore"
)

// stFill adds n distinct atoms with increasing confidence and age order.
func stSmallCapConfig(mb float64) *memcore.Config {
	cfg := memcore.DefaultConfig()
	cfg.MaxSizeMB = mb
	cfg.NoDedup = true
	return &cfg
}

func TestStoreEvictionOrderAndRefusal(t *testing.T) {
	dir := stDir(t)
	clk := stNewClock()
	// 0.1 MB: room for about a dozen 300-byte atoms (4 KiB chunks).
	s := stOpen(t, dir, memcore.Options{Now: clk.Now, Config: stSmallCapConfig(0.1)})
	ctx := context.Background()
	r := rand.New(rand.NewSource(1))
	var ids []string
	conf := map[string]float64{}
	for i := 0; ; i++ {
		c := 0.3 + 0.6*r.Float64()
		res, err := s.Add(ctx, memcore.AddRequest{Source: memcore.SourceUserApproved, Text: stText(r, 300), Confidence: c})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Evicted) > 0 {
			// The victim is the lowest-retention atom among the others.
			low, lowScore := "", 2.0
			for _, id := range ids {
				if conf[id] < lowScore {
					low, lowScore = id, conf[id]
				}
			}
			if res.Evicted[0] != low {
				t.Fatalf("evicted %v, want lowest retention %s", res.Evicted, low)
			}
			break
		}
		ids = append(ids, res.Atom.ID)
		conf[res.Atom.ID] = c
		if i > 200 {
			t.Fatal("never evicted")
		}
	}
	st := must(s.Stats(ctx))
	if st.TotalBytes > st.CapBytes {
		t.Fatalf("over cap: %d > %d", st.TotalBytes, st.CapBytes)
	}
	// Pin everything: the next add is refused and nothing is removed.
	for _, a := range must(s.List(ctx, memcore.Filter{})) {
		if _, _, err := s.SetPin(ctx, a.ID, true); err != nil {
			t.Fatal(err)
		}
	}
	before := must(s.List(ctx, memcore.Filter{}))
	beforeChunks, _ := os.ReadDir(filepath.Join(dir, "chunks"))
	_, err := s.Add(ctx, memcore.AddRequest{Source: memcore.SourceUserApproved, Text: stText(r, 300)})
	if !errors.Is(err, memcore.ErrCapExceeded) || !strings.Contains(err.Error(), "pinned") {
		t.Fatalf("want a clear cap error, got %v", err)
	}
	after := must(s.List(ctx, memcore.Filter{}))
	afterChunks, _ := os.ReadDir(filepath.Join(dir, "chunks"))
	if len(after) != len(before) || len(afterChunks) != len(beforeChunks) {
		t.Fatalf("refused write removed something: %d→%d atoms, %d→%d chunks", len(before), len(after), len(beforeChunks), len(afterChunks))
	}
	stCheckTree(t, dir)
}

func TestStoreEvictsExpiredQuarantineFirst(t *testing.T) {
	dir := stDir(t)
	clk := stNewClock()
	cfg := stSmallCapConfig(0.1)
	cfg.QuarantineSharePercent = 50
	s := stOpen(t, dir, memcore.Options{Now: clk.Now, Config: cfg})
	r := rand.New(rand.NewSource(2))
	q := stAdd(t, s, memcore.AddRequest{Text: stText(r, 300), Source: memcore.SourceWeb})
	clk.Advance(8 * 24 * time.Hour)
	var trusted []string
	for i := 0; i < 200; i++ {
		res := stAdd(t, s, memcore.AddRequest{Source: memcore.SourceUserApproved, Text: stText(r, 300)})
		if _, _, err := s.Get(context.Background(), q.Atom.ID); err == nil {
			trusted = append(trusted, res.Atom.ID)
			continue
		}
		if len(res.Evicted) > 0 && res.Evicted[0] != q.Atom.ID && len(trusted) < 10 {
			t.Fatalf("evicted %v before the expired quarantine entry", res.Evicted)
		}
		return
	}
}

func TestStoreQuarantineShareFlood(t *testing.T) {
	dir := stDir(t)
	s := stOpen(t, dir, memcore.Options{Config: stSmallCapConfig(1)})
	r := rand.New(rand.NewSource(3))
	var trusted []string
	for i := 0; i < 20; i++ {
		trusted = append(trusted, stAdd(t, s, memcore.AddRequest{Source: memcore.SourceUserApproved, Text: stText(r, 300)}).Atom.ID)
	}
	var flood []string
	for i := 0; i < 400; i++ {
		res := stAdd(t, s, memcore.AddRequest{Text: stText(r, 300), Source: memcore.SourceWeb})
		flood = append(flood, res.Atom.ID)
		for _, id := range res.Evicted {
			for _, tid := range trusted {
				if id == tid {
					t.Fatalf("quarantine flood evicted trusted atom %s", id)
				}
			}
		}
	}
	if must(s.Stats(context.Background())).Live != 20 {
		t.Fatalf("trusted atoms lost: %d", must(s.Stats(context.Background())).Live)
	}
	share := int64(float64(int64(s.Config().MaxSizeMB*(1<<20))) * 0.05)
	fi, _ := os.Stat(filepath.Join(dir, "quarantine.json"))
	if fi.Size() > share {
		t.Fatalf("quarantine.json %d bytes > share %d", fi.Size(), share)
	}
	qs := must(s.Quarantined(context.Background()))
	if len(qs) == 0 || len(qs) >= 400 {
		t.Fatalf("quarantine holds %d", len(qs))
	}
	// The newest survive, the oldest went.
	if qs[len(qs)-1].ID != flood[len(flood)-1] {
		t.Fatal("newest flood entry missing")
	}
	if _, _, err := s.Get(context.Background(), flood[0]); !errors.Is(err, memcore.ErrNotFound) {
		t.Fatal("oldest flood entry kept")
	}
}

// TestStoreSemanticDedup: a near-duplicate (cosine above dedup_threshold)
// refreshes the existing atom even among many others.
func TestStoreSemanticDedup(t *testing.T) {
	dir := stDir(t)
	clk := stNewClock()
	s := stOpen(t, dir, memcore.Options{Now: clk.Now})
	r := rand.New(rand.NewSource(11))
	reqs := make([]memcore.AddRequest, 300)
	for i := range reqs {
		reqs[i] = memcore.AddRequest{Source: memcore.SourceUserApproved, Text: stText(r, 300)}
	}
	res, _, err := s.AddBatch(context.Background(), reqs)
	if err != nil {
		t.Fatal(err)
	}
	for i, x := range res {
		if x.Refreshed {
			t.Fatalf("distinct text %d deduplicated", i)
		}
	}
	target := res[123].Atom
	clk.Advance(time.Hour)
	// One more word, same numbers: the same memory.
	// One letter of one word changed, same length and numbers: the same memory.
	sp := strings.Index(target.Text, " ")
	near := target.Text[:sp-1] + "x" + target.Text[sp:]
	got := stAdd(t, s, memcore.AddRequest{Source: memcore.SourceUserApproved, Text: near, Confidence: 0.9})
	if !got.Refreshed || got.Atom.ID != target.ID {
		t.Fatalf("near duplicate not refreshed: %+v", got)
	}
	if must(s.Stats(context.Background())).Live != 300 {
		t.Fatalf("len %d", must(s.Stats(context.Background())).Live)
	}
}

// TestStorePromoteCrashLeftovers: a promotion interrupted between writing
// atoms.json and quarantine.json leaves the atom in both; the live copy
// wins and the quarantine copy is dropped.
func TestStorePromoteCrashLeftovers(t *testing.T) {
	dir := stDir(t)
	s := stOpen(t, dir, memcore.Options{})
	q := stAdd(t, s, memcore.AddRequest{Text: "tool output worth keeping", Source: memcore.SourceToolOutput})
	before := stReadFile(t, filepath.Join(dir, "quarantine.json"))
	if _, _, err := s.Promote(context.Background(), q.Atom.ID); err != nil {
		t.Fatal(err)
	}
	s.Close(context.Background())
	os.WriteFile(filepath.Join(dir, "quarantine.json"), before, 0o600)
	s2 := stOpen(t, dir, memcore.Options{})
	a, qa, err := s2.Get(context.Background(), q.Atom.ID)
	if err != nil || qa != nil || a.SourceClass != memcore.SourceUserApproved {
		t.Fatalf("get %+v %v %v", a, qa, err)
	}
	if n := len(must(s2.Quarantined(context.Background()))); n != 0 {
		t.Fatalf("quarantine still holds the promoted atom (%d)", n)
	}
	if _, _, err := s2.Promote(context.Background(), q.Atom.ID); err == nil {
		t.Fatal("promoted twice")
	}
	if must(s2.Stats(context.Background())).Live != 1 {
		t.Fatalf("len %d", must(s2.Stats(context.Background())).Live)
	}
}

// TestStoreVectorCacheReused: after Compact a reopened store fills its
// index from vectors.odm (in the background for a large store) without
// re-embedding, and writes made meanwhile wait for it.
func TestStoreVectorCacheReused(t *testing.T) {
	dir := stDir(t)
	s := stOpen(t, dir, memcore.Options{})
	ctx := context.Background()
	r := rand.New(rand.NewSource(5))
	reqs := make([]memcore.AddRequest, 2500)
	for i := range reqs {
		reqs[i] = memcore.AddRequest{Source: memcore.SourceUserApproved, Text: stText(r, 200)}
	}
	res, _, err := s.AddBatch(ctx, reqs)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Compact(ctx); err != nil {
		t.Fatal(err)
	}
	s.Close(context.Background())
	s2 := stOpen(t, dir, memcore.Options{})
	// A write and a search right after open wait for the index.
	stAdd(t, s2, memcore.AddRequest{Source: memcore.SourceUserApproved, Text: "written while the index fills"})
	hits, err := s2.Search(ctx, res[42].Atom.Text, memcore.SearchOptions{})
	if err != nil || len(hits) == 0 || hits[0].Atom.ID != res[42].Atom.ID {
		t.Fatalf("search after reopen: %v %v", hits, err)
	}
	st := must(s2.Stats(ctx))
	if st.Index.Vectors != 2501 || st.Index.Stale != 1 {
		t.Fatalf("index %+v: want 2501 vectors with only the new atom embedded", st.Index)
	}
	if _, err := s2.Compact(ctx); err != nil {
		t.Fatal(err)
	}
	s2.Close(context.Background())
	s3 := stOpen(t, dir, memcore.Options{})
	if _, err := s3.Search(ctx, "anything", memcore.SearchOptions{}); err != nil {
		t.Fatal(err)
	}
	if st := must(s3.Stats(ctx)); st.Index.Vectors != 2501 || st.Index.Stale != 0 {
		t.Fatalf("index after second reopen %+v", st.Index)
	}
}

// TestEvictionUsesEachTypesHalfLife: eviction ranks by retention at each
// atom's own half-life (decay_half_life_days_by_type), as recall does. A
// decision from 60 days ago (half-life three years: retention 0.96) outlives
// an intent from 10 days ago (30 days: 0.79); both go before fresh facts.
// NextEvictions shows the same order.
func TestEvictionUsesEachTypesHalfLife(t *testing.T) {
	clk := stNewClock()
	s := stOpen(t, stDir(t), memcore.Options{Now: clk.Now, Config: stSmallCapConfig(0.1)})
	ctx := context.Background()
	r := rand.New(rand.NewSource(7))
	now := clk.Now()
	decision := must(s.Add(ctx, memcore.AddRequest{Source: memcore.SourceUserSaid, Type: memcore.TypeDecision, Text: stText(r, 300), CreatedAt: now.Add(-60 * 24 * time.Hour)}))
	intent := must(s.Add(ctx, memcore.AddRequest{Source: memcore.SourceUserSaid, Type: memcore.TypeIntent, Text: stText(r, 300), CreatedAt: now.Add(-10 * 24 * time.Hour)}))
	next := must(s.NextEvictions(ctx, 2))
	if len(next) != 2 || next[0].Atom.ID != intent.Atom.ID || next[1].Atom.ID != decision.Atom.ID {
		t.Fatalf("NextEvictions: %+v", next)
	}
	if got := next[1].Retention; got < 0.95 || got > 0.97 {
		t.Fatalf("decision's retention %.3f, want 0.5^(60/1095) ≈ 0.963", got)
	}
	var evicted []string
	for i := 0; len(evicted) < 2; i++ {
		res, err := s.Add(ctx, memcore.AddRequest{Source: memcore.SourceUserSaid, Type: memcore.TypeFact, Text: stText(r, 300)})
		if err != nil {
			t.Fatal(err)
		}
		evicted = append(evicted, res.Evicted...)
		if i > 200 {
			t.Fatal("never evicted")
		}
	}
	if evicted[0] != intent.Atom.ID || evicted[1] != decision.Atom.ID {
		t.Fatalf("evicted %v, want the intent %s then the decision %s", evicted, intent.Atom.ID, decision.Atom.ID)
	}
	if _, err := s.NextEvictions(ctx, -1); err != nil {
		t.Fatal(err)
	}
}
