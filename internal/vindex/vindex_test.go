package vindex

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"

	"github.com/odekmem/odekmem/internal/embed"
)

func bruteForce(t *testing.T, e *Exact, q []float32, k int) []Hit {
	t.Helper()
	w, err := e.Query(q)
	if err != nil {
		t.Fatal(err)
	}
	var hits []Hit
	for _, id := range e.IDs() {
		v, _ := e.Vector(id)
		hits = append(hits, Hit{id, dotGeneric(w, v)})
	}
	sortHits(hits)
	if len(hits) > k {
		hits = hits[:k]
	}
	return hits
}

func sortHits(h []Hit) {
	for i := 1; i < len(h); i++ {
		for j := i; j > 0 && (h[j].Cosine > h[j-1].Cosine || h[j].Cosine == h[j-1].Cosine && h[j].ID < h[j-1].ID); j-- {
			h[j], h[j-1] = h[j-1], h[j]
		}
	}
}

func sameIDs(a, b []Hit) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].ID != b[i].ID {
			return false
		}
	}
	return true
}

func TestExactAddReplaceRemoveSearch(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, idf := range []bool{false, true} {
		e := NewExact(48, Options{IDF: idf})
		vecs := map[string][]float32{}
		for i := range 300 {
			id := fmt.Sprintf("a%d", i)
			v := randUnit(r, 48)
			if i%3 == 0 { // sparse-ish rows exercise IDF
				for d := range v {
					if d%4 != 0 {
						v[d] = 0
					}
				}
				normalize(v)
			}
			vecs[id] = v
			if err := e.Add(id, v); err != nil {
				t.Fatal(err)
			}
		}
		// replace and remove, including the last row and a missing id
		for i := 0; i < 300; i += 7 {
			id := fmt.Sprintf("a%d", i)
			if i%2 == 0 {
				if !e.Remove(id) || e.Remove(id) {
					t.Fatal("remove")
				}
				delete(vecs, id)
			} else {
				v := randUnit(r, 48)
				vecs[id] = v
				if err := e.Add(id, v); err != nil {
					t.Fatal(err)
				}
			}
		}
		e.Remove("a299")
		delete(vecs, "a299")
		if e.Len() != len(vecs) {
			t.Fatalf("len %d want %d", e.Len(), len(vecs))
		}
		for id, v := range vecs {
			got, ok := e.Vector(id)
			if !ok || dotGeneric(got, v) < 0.9999 {
				t.Fatalf("vector of %s lost", id)
			}
		}
		if idf {
			// df must equal a recount from scratch (of the stored,
			// quantised vectors: an entry below half a quantisation step
			// is stored as 0)
			want := make([]int32, 48)
			for id := range vecs {
				v, _ := e.Vector(id)
				for d, x := range v {
					if x != 0 {
						want[d]++
					}
				}
			}
			if fmt.Sprint(want) != fmt.Sprint(e.df) {
				t.Fatalf("df drifted:\n%v\n%v", e.df, want)
			}
		}
		for range 20 {
			q := randUnit(r, 48)
			got, err := e.Search(q, 10, nil)
			if err != nil {
				t.Fatal(err)
			}
			if want := bruteForce(t, e, q, 10); !sameIDs(got, want) {
				t.Fatalf("idf=%v search mismatch\n%v\n%v", idf, got, want)
			}
			odd := func(id string) bool { return strings.HasSuffix(id, "1") }
			got, _ = e.Search(q, 5, odd)
			for _, h := range got {
				if !odd(h.ID) {
					t.Fatal("allow ignored")
				}
			}
		}
	}
}

func TestExactDimsAndEdgeCases(t *testing.T) {
	e := NewExact(8, Options{})
	if err := e.Add("x", make([]float32, 7)); err == nil || !strings.Contains(err.Error(), "has 7 dimensions, index has 8") {
		t.Fatalf("err %v", err)
	}
	if _, err := e.Search(make([]float32, 9), 3, nil); err == nil {
		t.Fatal("query of wrong width accepted")
	}
	if hits, err := e.Search(make([]float32, 8), 3, nil); err != nil || hits != nil {
		t.Fatal("empty index")
	}
	e.Add("a", []float32{3, 0, 0, 0, 0, 0, 0, 0}) // normalised on the way in
	v, _ := e.Vector("a")
	if v[0] != 1 {
		t.Fatalf("not normalised: %v", v)
	}
	hits, _ := e.Search([]float32{1, 0, 0, 0, 0, 0, 0, 0}, 0, nil)
	if hits != nil {
		t.Fatal("k=0")
	}
	hits, _ = e.Search([]float32{1, 0, 0, 0, 0, 0, 0, 0}, 10, nil)
	if len(hits) != 1 || hits[0].Cosine != 1 {
		t.Fatalf("%v", hits)
	}
	if _, ok := e.Cosine(make([]float32, 3), "a"); ok {
		t.Fatal("cosine of wrong width")
	}
}

func TestNewKinds(t *testing.T) {
	for _, k := range []string{"", "exact", "hnsw"} {
		x, err := New(k, 16, Options{})
		if err != nil {
			t.Fatal(k, err)
		}
		if _, ok := x.(*Exact); !ok {
			t.Fatalf("kind %q is %T, want exact search (hnsw is retired)", k, x)
		}
	}
	_, err := New("annoy", 16, Options{})
	if err == nil || !strings.Contains(err.Error(), `"exact"`) {
		t.Fatalf("err %v", err)
	}
	if _, err := New("exact", 0, Options{}); err == nil {
		t.Fatal("zero dims")
	}
}

func TestConcurrentExact(t *testing.T) {
	hammer(t, NewExact(32, Options{IDF: true}), 32, 300, 50, 1, func(step int) bool { return step%3 == 2 })
}

// hammer runs four goroutines that add, remove and search x at once (for
// the race detector, and for errors): each takes steps over its own ids
// (ids of them, reused), removing where remove says so and adding
// otherwise, with a search after every step.
func hammer(t *testing.T, x Index, dims, steps, ids int, seed uint64, remove func(step int) bool) {
	t.Helper()
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := rand.New(rand.NewPCG(uint64(g), seed))
			for i := range steps {
				id := fmt.Sprintf("g%d-%d", g, i%ids)
				if remove(i) {
					x.Remove(id)
				} else if err := x.Add(id, randUnit(r, dims)); err != nil {
					t.Error(err)
				}
				if _, err := x.Search(randUnit(r, dims), 5, nil); err != nil {
					t.Error(err)
				}
			}
		}()
	}
	wg.Wait()
}

func TestBM25(t *testing.T) {
	x := NewBM25()
	x.Add("1", "Caroline: I went to the LGBTQ support group yesterday")
	x.Add("2", "Melanie: I painted a sunrise over the lake")
	x.Add("3", "Melanie: the kids loved the beach")
	x.Add("4", "Caroline: support matters so much")
	hits := x.Search("When did Caroline go to the LGBTQ support group?", 10, nil)
	if len(hits) < 2 || hits[0].ID != "1" || hits[0].Rank != 1 || hits[1].Rank != 2 {
		t.Fatalf("%+v", hits)
	}
	for _, h := range hits {
		if h.ID == "2" || h.ID == "3" {
			t.Fatal("non-matching doc returned")
		}
	}
	if got := x.Search("painting sunrises", 10, nil); len(got) != 1 || got[0].ID != "2" {
		t.Fatalf("stemming: %+v", got)
	}
	x.Add("1", "Caroline: something else entirely") // replace
	if got := x.Search("LGBTQ", 10, nil); len(got) != 0 {
		t.Fatalf("replaced text still indexed: %+v", got)
	}
	if !x.Remove("2") || x.Remove("2") || x.Len() != 3 {
		t.Fatal("remove")
	}
	if got := x.Search("sunrise", 10, nil); len(got) != 0 {
		t.Fatal("removed doc found")
	}
	if got := x.Search("support", 10, func(id string) bool { return id != "4" }); len(got) != 0 {
		t.Fatal("allow ignored")
	}
	_, norm := x.SearchNorm("kids beach", 5, nil)
	if len(norm) != 1 || norm[0] <= 0 || norm[0] >= 1 {
		t.Fatalf("norm %v", norm)
	}
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 100 {
				id := fmt.Sprintf("c%d-%d", g, i%10)
				x.Add(id, "concurrent text number "+id)
				x.Search("concurrent text", 5, nil)
				if i%3 == 0 {
					x.Remove(id)
				}
			}
		}()
	}
	wg.Wait()
}

func TestHybridCandidates(t *testing.T) {
	emb := embed.NewHash(0)
	ex := NewExact(emb.Dims(), Options{IDF: true})
	lex := NewBM25()
	texts := map[string]string{
		"a": "Caroline: I went to the LGBTQ support group yesterday and it was powerful",
		"b": "Melanie: I painted a sunrise over the lake last year",
		"c": "Melanie: we went camping at the beach with the kids",
		"d": "Caroline: I'm researching adoption agencies",
	}
	// Realistic statistics: speakers' names are common.
	fillers := []string{"thanks so much", "that sounds great", "how was your week", "I love that", "see you soon", "the weather was nice", "work has been busy", "my family says hi"}
	for i := range 40 {
		sp := "Melanie"
		if i%2 == 0 {
			sp = "Caroline"
		}
		texts[fmt.Sprintf("f%d", i)] = sp + ": " + fillers[i%len(fillers)]
	}
	for id, tx := range texts {
		v, _ := emb.Embed(context.Background(), []string{tx})
		ex.Add(id, v[0])
		lex.Add(id, tx)
	}
	h := NewHybrid(ex, lex, emb.Calibrate, DefaultHybridOptions(true))
	query := "When did Melanie paint a sunrise?"
	q, _ := emb.Embed(context.Background(), []string{query})
	cands := h.Candidates(q[0], query, 3, nil)
	if len(cands) == 0 || cands[0].ID != "b" || cands[0].Sim < embed.DefaultMinScore || cands[0].LexRank != 1 {
		t.Fatalf("%+v", cands)
	}
	for i, c := range cands {
		if c.ID != "b" && c.Sim >= embed.DefaultMinScore {
			t.Errorf("unrelated %s passes the gate: %+v", c.ID, c)
		}
		if i > 0 && c.Sim > cands[i-1].Sim {
			t.Fatal("not sorted")
		}
		want, _ := ex.Cosine(q[0], c.ID)
		if math.Abs(float64(want-c.Cosine)) > 1e-6 {
			t.Fatalf("cosine %v want %v", c.Cosine, want)
		}
	}
	// Lexical-only: a nil vector query still works; vector-only: no text.
	if c := h.Candidates(nil, query, 3, nil); len(c) == 0 || c[0].ID != "b" {
		t.Fatalf("lex only %+v", c)
	}
	if c := h.Candidates(q[0], "", 3, nil); len(c) == 0 || c[0].Lex != 0 {
		t.Fatalf("vec only %+v", c)
	}
	if c := h.Candidates(q[0], query, 3, func(id string) bool { return id != "b" }); len(c) > 0 && c[0].ID == "b" {
		t.Fatal("allow ignored")
	}
	// Noisy-OR: no lexical match → Sim is the calibrated cosine.
	if s := h.Sim(0.3, 0); math.Abs(float64(s-emb.Calibrate(0.3))) > 1e-6 {
		t.Fatal(s)
	}
	if h.Sim(0.1, 0.2) <= h.Sim(0.1, 0.1) || h.Sim(0.2, 0.1) <= h.Sim(0.1, 0.1) {
		t.Fatal("not monotonic")
	}
}

// overlap counts the hits of got whose ids are among want's (recall of an
// approximate search against the exact one).
func overlap(got, want []Hit) int {
	set := map[string]bool{}
	for _, w := range want {
		set[w.ID] = true
	}
	n := 0
	for _, g := range got {
		if set[g.ID] {
			n++
		}
	}
	return n
}
