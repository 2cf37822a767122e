package index

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"reflect"
	"testing"

	"github.com/odekmem/odekmem/internal/embed"
	"github.com/odekmem/odekmem/internal/textutil"
)

// snapOf writes v's snapshot and returns the file.
func snapOf(t testing.TB, v *State) []byte {
	t.Helper()
	var data []byte
	if err := v.Snapshot(func(c []byte, _ func(string) []byte) error {
		data = append([]byte(nil), c...)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return data
}

// openFrom opens a State on live from a snapshot file.
func openFrom(t testing.TB, data []byte, live Live, emb embed.Embedder) *State {
	t.Helper()
	w := New("exact", emb)
	w.StartLoad(func() ([]byte, error) { return data, nil }, validID)
	if d := w.FinishLoad(); d != nil {
		t.Fatalf("snapshot loads as damaged: %+v", d)
	}
	if err := w.Open(context.Background(), live); err != nil {
		t.Fatal(err)
	}
	return w
}

func built(t testing.TB, live Live, emb embed.Embedder) *State {
	t.Helper()
	v := New("exact", emb)
	fn, err := v.Reconcile(live)
	if err != nil {
		t.Fatal(err)
	}
	if err := v.CatchUp(context.Background(), fn); err != nil {
		t.Fatal(err)
	}
	return v
}

// sameSearches compares hybrid candidates of a few queries.
func sameSearches(t *testing.T, a, b *State, why string) {
	t.Helper()
	for _, q := range []string{"topic 3 detail", "atom 12 is about", "nothing matches zebra", "detail 310"} {
		qv, err := a.Embed(context.Background(), q)
		if err != nil {
			t.Fatal(err)
		}
		ca := a.Hybrid().Candidates(qv, q, 10, nil)
		cb := b.Hybrid().Candidates(qv, q, 10, nil)
		if !reflect.DeepEqual(ca, cb) {
			t.Fatalf("%s: query %q\n got %+v\nwant %+v", why, q, cb, ca)
		}
	}
}

// TestSnapshotAdoptedInPlaceSearchesAsBuilt: a store opened from a
// snapshot (indexes used in place, no text tokenised) answers every query
// exactly as indexes built from the texts do, also after removals,
// replacements and adds that touch the snapshot's postings.
func TestSnapshotAdoptedInPlaceSearchesAsBuilt(t *testing.T) {
	emb := &counting{Hash: embed.NewHash(768)}
	l := newLive(300)
	data := snapOf(t, built(t, l, emb))
	snap, derr := DecodeSnapshot(data, validID)
	if derr != nil {
		t.Fatal(derr)
	}
	for i := range snap.Len() {
		if h, ok := snap.NormHash(i); !ok || h != textutil.NormalHash(snap.Text(i)) {
			t.Fatalf("entry %d: norm hash %x %v", i, h, ok)
		}
	}
	emb.n.Store(0)
	w := openFrom(t, data, l, emb)
	if emb.n.Load() != 0 {
		t.Fatalf("opening from a snapshot embedded %d texts", emb.n.Load())
	}
	sameSearches(t, built(t, l, emb), w, "as loaded")

	// Another process removed some atoms, changed one and added two.
	l2 := &live{texts: map[string]string{}}
	for i, id := range l.ids {
		switch {
		case i%7 == 3:
			continue
		case i == 10:
			l2.add(id, "atom 10 was rewritten about topic 3 entirely")
		default:
			l2.add(id, l.texts[id])
		}
	}
	l2.add("b0001", "a new atom about topic 3 and detail 310")
	l2.add("b0002", "zebra crossing on detail 5")
	fn, err := w.Reconcile(l2)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.CatchUp(context.Background(), fn); err != nil {
		t.Fatal(err)
	}
	sameSearches(t, built(t, l2, emb), w, "after changes")

	// The snapshot written from the changed state opens to the same again.
	w2 := openFrom(t, snapOf(t, w), l2, emb)
	sameSearches(t, built(t, l2, emb), w2, "re-snapshotted")
}

// TestSnapshotDamageIsAnError: a flipped byte in any section, a cut, or
// a header that lies make the cache rebuild, never load.
func TestSnapshotDamageIsAnError(t *testing.T) {
	emb := embed.NewHash(768)
	data := snapOf(t, built(t, newLive(40), emb))
	if _, err := DecodeSnapshot(data, validID); err != nil {
		t.Fatal(err)
	}
	hl := binary.LittleEndian.Uint32(data[8:])
	for _, at := range []int{3, 9, 13, 20, int(16 + hl + 100), len(data) / 2, len(data) - 70} {
		bad := append([]byte(nil), data...)
		bad[at] ^= 0x5a
		if _, err := DecodeSnapshot(bad, validID); err == nil {
			t.Fatalf("a flipped byte at %d of %d loaded", at, len(data))
		}
	}
	for _, n := range []int{0, 8, 16, int(hl), len(data) - 1} {
		if _, err := DecodeSnapshot(data[:n], validID); err == nil {
			t.Fatalf("a file cut to %d bytes loaded", n)
		}
	}
	if _, err := DecodeSnapshot(data, func(id string) bool { return id != "a0007" }); err == nil {
		t.Fatal("an id the store could not hold loaded")
	}
}

// TestFirstFormatCacheStillOpens: a store whose cache is the first format
// opens from it without embedding, and its next snapshot is the second.
func TestFirstFormatCacheStillOpens(t *testing.T) {
	emb := &counting{Hash: embed.NewHash(768)}
	l := newLive(20)
	v := built(t, l, emb)
	ex := v.idx
	var buf bytes.Buffer
	EncodeCache(&buf, emb.Fingerprint(), 768, l.ids, l.texts, func(id string) []byte {
		vec, _ := ex.Vector(id)
		return EncodeQuantized(vec)
	})
	old := buf.Bytes()
	emb.n.Store(0)
	w := openFrom(t, old, l, emb)
	if emb.n.Load() != 0 {
		t.Fatalf("opening from a first-format cache embedded %d texts", emb.n.Load())
	}
	sameSearches(t, v, w, "first format")
	if !IsSnapshot(snapOf(t, w)) {
		t.Fatal("the next snapshot is not the second format")
	}
}

func FuzzDecodeSnapshot(f *testing.F) {
	emb := embed.NewHash(768)
	l := newLive(5)
	f.Add(snapOf(f, built(f, l, emb)))
	f.Add([]byte(snapMagic + "\x10\x00\x00\x00\x00\x00\x00\x00{}"))
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := DecodeSnapshot(data, validID)
		if err != nil {
			return
		}
		// What decodes is consistent enough to adopt and search.
		w := New("exact", emb)
		w.snap = s
		live := &live{texts: map[string]string{}}
		for i, id := range s.IDs {
			live.add(id, s.Text(i))
		}
		if err := w.Open(context.Background(), live); err != nil {
			return
		}
		if hy := w.Hybrid(); hy != nil {
			qv := emb.EmbedText("atom 1 topic")
			hy.Candidates(qv, "atom 1 topic", 5, nil)
		}
		_ = fmt.Sprint(s.Len())
	})
}
