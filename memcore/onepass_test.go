package memcore_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"
	"time"

	"github.com/odekmem/odekmem/internal/llm"
	"github.com/odekmem/odekmem/memcore"
)

// opStore is a fixed store of n atoms of every type, several projects and
// ages, built with the real write path.
func opStore(t *testing.T, n int, c llm.Client) *memcore.Store {
	t.Helper()
	cfg := memcore.DefaultConfig()
	cfg.NoSizeCap = true
	st, err := memcore.Open(context.Background(), t.TempDir(), memcore.Options{Config: &cfg, LLM: c, Now: func() time.Time { return hNow }})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close(context.Background()) })
	r := rand.New(rand.NewPCG(11, 12))
	types := []memcore.Type{"fact", "preference", "decision", "convention", "error", "file", "goal", "intent", "question", "observation"}
	var reqs []memcore.AddRequest
	for i := range n {
		reqs = append(reqs, memcore.AddRequest{Text: hSentence(r, 40+r.IntN(200)), Type: types[i%len(types)], Source: memcore.SourceUserSaid,
			CreatedAt: hNow.Add(-time.Duration(r.IntN(300*24)) * time.Hour),
			Context:   memcore.AtomContext{SessionID: fmt.Sprintf("s%d", i/30), Project: fmt.Sprintf("p%d", i%3)}})
	}
	if _, _, err := st.AddBatch(context.Background(), reqs); err != nil {
		t.Fatal(err)
	}
	return st
}

// TestSearchManyEqualsSearch: one pass over the index gives, for every
// query, exactly what its own Search gives — order, scores and all — with
// different K, type filters, project filters and gates in the same pass,
// repeated texts and an empty one.
func TestSearchManyEqualsSearch(t *testing.T) {
	st := opStore(t, 4500, nil) // above the size at which the pass is split across two cores
	r := rand.New(rand.NewPCG(5, 5))
	zero, high := 0.0, 0.8
	for round := range 8 {
		var qs []memcore.Query
		base := hSentence(r, 60)
		qs = append(qs,
			memcore.Query{Text: base, Options: memcore.SearchOptions{K: 40}},
			memcore.Query{Text: base, Options: memcore.SearchOptions{K: 5}},
			memcore.Query{Text: base, Options: memcore.SearchOptions{K: 5, Types: []memcore.Type{"convention", "file", "error"}}},
			memcore.Query{Text: hSentence(r, 50), Options: memcore.SearchOptions{K: 10, Project: "p1"}},
			memcore.Query{Text: hSentence(r, 30), Options: memcore.SearchOptions{K: 10, Type: "decision", MinScore: &zero}},
			memcore.Query{Text: hSentence(r, 30), Options: memcore.SearchOptions{K: 3, MinScore: &high}},
			memcore.Query{Text: "   ", Options: memcore.SearchOptions{}},
			memcore.Query{Text: hSentence(r, 80), Options: memcore.SearchOptions{}},
		)
		many, err := memcore.SearchMany(st, context.Background(), qs)
		if err != nil {
			t.Fatal(err)
		}
		if len(many) != len(qs) {
			t.Fatalf("%d results for %d queries", len(many), len(qs))
		}
		for i, q := range qs {
			one, err := st.Search(context.Background(), q.Text, q.Options)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(one, many[i]) {
				t.Fatalf("round %d query %d (%q %+v): one pass differs from Search\n one pass %d: %v\n search   %d: %v", round, i, q.Text, q.Options, len(many[i]), ids(many[i]), len(one), ids(one))
			}
		}
	}
}

func ids(res []memcore.Scored) []string {
	var out []string
	for _, r := range res {
		out = append(out, r.Atom.ID[:8])
	}
	return out
}

// TestBeforeTurnEqualsNineSearches: the hook's one-pass recall injects
// exactly what the design's nine separate searches give — the anaphora
// search, the literal search, an open and a type-targeted search per
// predicted intent and the type-targeted literal search — unioned by best
// composite and cut to K, on a fixed store, with and without a pronoun to
// resolve.
func TestBeforeTurnEqualsNineSearches(t *testing.T) {
	predictor := llm.ClientFunc(func(ctx context.Context, req llm.Request) (string, error) {
		if len(req.System) > 14 && req.System[:14] == "You anticipate" {
			return `["which tests cover the payments ledger?","how do we roll back a migration?","what retry policy do workers use?"]`, nil
		}
		return `[]`, nil
	})
	st := opStore(t, 3000, predictor)
	// A recent atom for the pronoun to resolve against.
	hAdd(t, st, "The settlement report worker retries with exponential backoff", "fact", "p1", time.Hour)
	cfg := memcore.DefaultConfig()
	k, over := cfg.SemanticSearchTopK, cfg.SemanticSearchOverfetch
	targeted := []memcore.Type{"convention", "file", "error"}
	r := rand.New(rand.NewPCG(9, 9))
	msgs := []string{
		"can you refactor it so the settlement report worker retries less",
		"payments ledger migration rollback " + hSentence(r, 40),
		"what did we decide about " + hSentence(r, 30),
	}
	for _, msg := range msgs {
		h := memcore.NewHook(st)
		tc := h.BeforeTurn(context.Background(), memcore.Turn{Message: msg, SessionID: "s-x", Project: "p1"})
		if len(tc.Intents) != 3 {
			t.Fatalf("intents %v warnings %v", tc.Intents, tc.Warnings)
		}
		// The design's nine searches, one at a time.
		search := func(q string, o memcore.SearchOptions) []memcore.Scored {
			res, err := st.Search(context.Background(), q, o)
			if err != nil {
				t.Fatal(err)
			}
			return res
		}
		anaph := search(msg, memcore.SearchOptions{K: 5})
		var refs []llm.Referent
		for _, a := range anaph {
			if hNow.Sub(a.Atom.CreatedAt) <= 14*24*time.Hour || a.Atom.Context.SessionID == "s-x" {
				refs = append(refs, llm.Referent{Text: a.Atom.Text, Type: string(a.Atom.Type), Score: a.Sim})
			}
		}
		resolved := msg
		if out, ok := llm.ResolveAnaphora(msg, refs, cfg.SemanticSearchMinScore); ok {
			resolved = out
		}
		if tc.Message != resolved {
			t.Fatalf("resolved %q, nine searches give %q", tc.Message, resolved)
		}
		pool := map[string]memcore.Scored{}
		var order []string
		add := func(res []memcore.Scored) {
			for _, s := range res {
				if old, ok := pool[s.Atom.ID]; !ok || s.Composite > old.Composite {
					if !ok {
						order = append(order, s.Atom.ID)
					}
					pool[s.Atom.ID] = s
				}
			}
		}
		add(search(resolved, memcore.SearchOptions{K: k * over}))
		for _, in := range tc.Intents {
			add(search(in, memcore.SearchOptions{K: k}))
			add(search(in, memcore.SearchOptions{K: k / 2, Types: targeted}))
		}
		add(search(resolved, memcore.SearchOptions{K: k / 2, Types: targeted}))
		var want []memcore.Scored
		for _, id := range order {
			want = append(want, pool[id])
		}
		sortByComposite(want)
		if len(want) > k {
			want = want[:k]
		}
		if len(want) == 0 {
			t.Fatalf("%q: premise: nothing recalled", msg)
		}
		// The block holds the recalled atoms in order, except those the
		// budget cut or the final scan dropped.
		got := tc.Memory
		inBlock := map[string]bool{}
		for _, id := range append(append([]string{}, got.Cut...), got.Dropped...) {
			inBlock[id] = true
		}
		for _, a := range got.Atoms {
			inBlock[a.Atom.ID] = true
		}
		var wantShown []memcore.Scored
		for _, w := range want {
			if !inBlock[w.Atom.ID] {
				t.Fatalf("%q: nine searches recall %s, the one pass does not (got %v)", msg, w.Atom.ID[:8], ids(got.Atoms))
			}
			delete(inBlock, w.Atom.ID)
			if !contains(got.Cut, w.Atom.ID) && !contains(got.Dropped, w.Atom.ID) {
				wantShown = append(wantShown, w)
			}
		}
		if len(inBlock) != 0 || len(got.Atoms) != len(wantShown) {
			t.Fatalf("%q: one pass %v (+%d cut), nine searches %v", msg, ids(got.Atoms), len(got.Cut), ids(want))
		}
		for i := range got.Atoms {
			g, w := got.Atoms[i], wantShown[i]
			if g.Atom.ID != w.Atom.ID || g.Composite != w.Composite || g.Sim != w.Sim {
				t.Fatalf("%q: atom %d: one pass %s %.6f, nine searches %s %.6f", msg, i, g.Atom.ID, g.Composite, w.Atom.ID, w.Composite)
			}
		}
	}
}

func sortByComposite(s []memcore.Scored) {
	for i := 1; i < len(s); i++ {
		for j := i; j > 0; j-- {
			a, b := s[j-1], s[j]
			if a.Composite > b.Composite || a.Composite == b.Composite && a.Atom.ID < b.Atom.ID {
				break
			}
			s[j-1], s[j] = b, a
		}
	}
}
