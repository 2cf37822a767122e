package index

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/odekmem/odekmem/internal/embed"
)

// live is a store's live atoms in order.
type live struct {
	ids   []string
	texts map[string]string
}

func newLive(n int) *live {
	l := &live{texts: map[string]string{}}
	for i := range n {
		l.add(fmt.Sprintf("a%04d", i), fmt.Sprintf("atom %d is about topic %d and detail %d", i, i%7, i*31))
	}
	return l
}

func (l *live) add(id, text string) { l.ids = append(l.ids, id); l.texts[id] = text }

func (l *live) Text(id string) (string, bool) { t, ok := l.texts[id]; return t, ok }

func (l *live) Each(fn func(id, text string)) {
	for _, id := range l.ids {
		fn(id, l.texts[id])
	}
}

// counting is the hash embedder, counting the texts it embeds.
type counting struct {
	*embed.Hash
	n atomic.Int64
}

func (c *counting) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	c.n.Add(int64(len(texts)))
	return c.Hash.Embed(ctx, texts)
}

func TestReconcileLeavesEmbeddingToTheCallersCtx(t *testing.T) {
	emb := &counting{Hash: embed.NewHash(768)}
	v := New("exact", emb)
	l := newLive(50)
	embedFn, err := v.Reconcile(l)
	if err != nil || embedFn == nil {
		t.Fatalf("reconcile of 50 unindexed atoms: embed %v, err %v", embedFn != nil, err)
	}
	if emb.n.Load() != 0 {
		t.Fatal("Reconcile embedded under the caller's lock")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := v.CatchUp(ctx, embedFn); !errors.Is(err, context.Canceled) || !v.Stale() {
		t.Fatalf("a cancelled catch-up: err %v, stale %v", err, v.Stale())
	}
	embedFn, _ = v.Reconcile(l)
	if err := v.CatchUp(context.Background(), embedFn); err != nil || v.Stale() {
		t.Fatalf("catch-up: %v (stale %v)", err, v.Stale())
	}
	if n, _, _ := v.Stats(); n != 50 {
		t.Fatalf("%d vectors indexed, want 50", n)
	}
	// A near-duplicate of atom 7 finds it.
	vec, err := v.Embed(context.Background(), l.texts["a0007"]+"!")
	if err != nil {
		t.Fatal(err)
	}
	if id, cos := v.Nearest(vec); id != "a0007" || cos < 0.9 {
		t.Fatalf("nearest to a near-copy of a0007 is %s at %.3f", id, cos)
	}
	// An atom that left the store leaves the index at the next reconcile.
	delete(l.texts, "a0007")
	l.ids = append(l.ids[:7:7], l.ids[8:]...)
	if embedFn, err := v.Reconcile(l); err != nil || embedFn != nil {
		t.Fatalf("a removal needs no embedding: %v %v", embedFn != nil, err)
	}
	if id, _ := v.Nearest(vec); id == "a0007" {
		t.Fatal("a removed atom is still found")
	}
}

func TestSnapshotOpensWithoutEmbeddingAgain(t *testing.T) {
	emb := &counting{Hash: embed.NewHash(768)}
	v := New("exact", emb)
	l := newLive(40)
	embedFn, _ := v.Reconcile(l)
	if err := v.CatchUp(context.Background(), embedFn); err != nil {
		t.Fatal(err)
	}
	var cache, meta []byte
	if err := v.MaybeSnapshot(true, func(c []byte, m func(string) []byte) error {
		cache, meta = append([]byte(nil), c...), m("vectors.odm")
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if _, _, unsaved := v.Stats(); unsaved != 0 || len(cache) == 0 {
		t.Fatalf("after a snapshot %d changes unsaved, %d bytes written", unsaved, len(cache))
	}
	if !bytes.Contains(meta, []byte(`"file": "vectors.odm"`)) || !bytes.Contains(meta, []byte(CorpusHash(l.ids))) {
		t.Fatalf("vectors_meta.json: %s", meta)
	}
	emb2 := &counting{Hash: embed.NewHash(768)}
	w := New("exact", emb2)
	w.StartLoad(func() ([]byte, error) { return cache, nil }, func(string) bool { return true })
	if d := w.FinishLoad(); d != nil {
		t.Fatalf("a fresh snapshot loads as damaged: %+v", d)
	}
	if text, ok := w.CachedText("a0003"); !ok || text != l.texts["a0003"] {
		t.Fatalf("cached text %q %v", text, ok)
	}
	if err := w.Open(context.Background(), l); err != nil {
		t.Fatal(err)
	}
	if emb2.n.Load() != 0 {
		t.Fatalf("opening from the cache embedded %d texts", emb2.n.Load())
	}
	if n, _, _ := w.Stats(); n != 40 {
		t.Fatalf("%d vectors after open, want 40", n)
	}
	// A damaged cache is reported, and the store still opens by embedding.
	x := New("exact", emb2)
	x.StartLoad(func() ([]byte, error) { return cache[:len(cache)-3], nil }, func(string) bool { return true })
	if d := x.FinishLoad(); d == nil || !d.Rebuild {
		t.Fatalf("a truncated cache: damage %+v", d)
	}
	if err := x.Open(context.Background(), l); err != nil || emb2.n.Load() != 40 {
		t.Fatalf("open after damage: %v, %d embedded", err, emb2.n.Load())
	}
}
