package index

import (
	"context"
	"testing"

	"github.com/odekmem/odekmem/internal/embed"
)

// ordered is a live that shows its atoms by position too (OrderedLive),
// as the store's does.
type ordered struct{ *live }

func (o ordered) Len() int { return len(o.ids) }

func (o ordered) At(i int) (string, string) { return o.ids[i], o.texts[o.ids[i]] }

// snapshotOf is the ODKMVEC2 file of l's atoms, indexed by a fresh state.
func snapshotOf(t *testing.T, l *live) []byte {
	t.Helper()
	v := New("exact", embed.NewHash(768))
	embedFn, _ := v.Reconcile(l)
	if err := v.CatchUp(context.Background(), embedFn); err != nil {
		t.Fatal(err)
	}
	var cache []byte
	if err := v.MaybeSnapshot(true, func(c []byte, _ func(string) []byte) error {
		cache = append([]byte(nil), c...)
		return nil
	}); err != nil || len(cache) == 0 {
		t.Fatalf("snapshot: %v (%d bytes)", err, len(cache))
	}
	return cache
}

// An open whose live atoms are the snapshot's entries, in order, uses the
// snapshot as it is; one whose atoms differ (a changed text, an atom the
// cache lacks, another order) reconciles as before: the changed and the
// missing atoms, and only they, are embedded. Either way the index then
// answers, takes writes and removals.
func TestOpenAdoptsTheSnapshotOfTheLiveAtoms(t *testing.T) {
	base := newLive(40)
	cache := snapshotOf(t, base)
	changed := func(edit func(l *live)) *live {
		l := newLive(40)
		edit(l)
		return l
	}
	for _, c := range []struct {
		name  string
		live  *live
		embed int64
	}{
		{"same atoms", newLive(40), 0},
		{"a changed text", changed(func(l *live) { l.texts["a0005"] = "a new text about the sqlite migration" }), 1},
		{"one atom more", changed(func(l *live) { l.add("b0001", "an atom the cache lacks, about queues") }), 1},
		{"one atom fewer", changed(func(l *live) { delete(l.texts, "a0039"); l.ids = l.ids[:39] }), 0},
		{"another order", changed(func(l *live) { l.ids[0], l.ids[1] = l.ids[1], l.ids[0] }), 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			emb := &counting{Hash: embed.NewHash(768)}
			v := New("exact", emb)
			// A private copy, as the store's private mapping is: the index
			// writes the rows it adopted in place.
			data := append([]byte(nil), cache...)
			v.StartLoad(func() ([]byte, error) { return data, nil }, func(string) bool { return true })
			if d := v.FinishLoad(); d != nil {
				t.Fatalf("damage %+v", d)
			}
			for _, hint := range []int{3, 0, -1, 1000} {
				if got, ok := v.CachedAt(hint, "a0003"); !ok || got.Text != base.texts["a0003"] || !got.HasDocLen || !got.HasNorm {
					t.Fatalf("CachedAt(%d, a0003) = %+v, %v", hint, got, ok)
				}
			}
			if _, ok := v.CachedAt(3, "nope"); ok {
				t.Fatal("CachedAt found an id the cache does not hold")
			}
			if err := v.Open(context.Background(), ordered{c.live}); err != nil {
				t.Fatal(err)
			}
			if got := emb.n.Load(); got != c.embed {
				t.Fatalf("open embedded %d texts, want %d", got, c.embed)
			}
			if n, _, _ := v.Stats(); n != len(c.live.ids) {
				t.Fatalf("%d vectors after open, want %d", n, len(c.live.ids))
			}
			// The id → text map is filled only when something needs it.
			if c.name == "same atoms" && (v.textsFilled.Load() || v.nTexts() != 40) {
				t.Fatalf("after an open that adopted the snapshot: filled %v, %d texts", v.textsFilled.Load(), v.nTexts())
			}
			for _, id := range c.live.ids {
				vec, err := v.Embed(context.Background(), c.live.texts[id])
				if err != nil {
					t.Fatal(err)
				}
				if got, cos := v.Nearest(vec); got != id || cos < 0.99 {
					t.Fatalf("nearest to %s's own text is %s at %.3f", id, got, cos)
				}
			}
			// The index adopted the snapshot's id map: removals and
			// additions keep it right.
			v.Remove("a0007")
			vec, _ := v.Embed(context.Background(), "a fresh atom about the retry backoff")
			if err := v.Add("c0001", "a fresh atom about the retry backoff", vec); err != nil {
				t.Fatal(err)
			}
			if got, _ := v.Nearest(vec); got != "c0001" {
				t.Fatalf("nearest to the added atom is %s", got)
			}
			old, _ := v.Embed(context.Background(), base.texts["a0007"])
			if got, cos := v.Nearest(old); got == "a0007" {
				t.Fatalf("a removed atom is still found (%.3f)", cos)
			}
			if n, _, _ := v.Stats(); n != len(c.live.ids) {
				t.Fatalf("%d vectors after a removal and an addition, want %d", n, len(c.live.ids))
			}
			texts := v.textsMap()
			if _, ok := texts["a0007"]; ok || texts["c0001"] != "a fresh atom about the retry backoff" || len(texts) != len(c.live.ids) || v.nTexts() != len(texts) {
				t.Fatalf("texts after a removal and an addition: %d, a0007 %q, c0001 %q", len(texts), texts["a0007"], texts["c0001"])
			}
		})
	}
}
