package memcore_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/odekmem/odekmem/internal/embed"
	"github.com/odekmem/odekmem/memcore"
	"github.com/odekmem/odekmem/memcore/openai"
)

// neuralLikeServer is an OpenAI-compatible /v1/embeddings endpoint whose
// vectors behave like a neural model's: every vector shares a strong common
// direction, so unrelated texts already have a raw cosine near 0.45 and a
// paraphrase near 0.9 — a scale on which the raw cosine, or any fixed
// mapping of it, cannot share the 0.55 gate with the hash embedder.
func neuralLikeServer(t *testing.T) *httptest.Server {
	t.Helper()
	h := embed.NewHash(768)
	common := make([]float32, 768)
	for i := range common {
		common[i] = float32(math.Sin(float64(i)*0.7)) / float32(math.Sqrt(384))
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Input json.RawMessage `json:"input"`
		}
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			http.Error(w, err.Error(), 400)
			return
		}
		var inputs []string
		if json.Unmarshal(req.Input, &inputs) != nil {
			var one string
			if err := json.Unmarshal(req.Input, &one); err != nil {
				http.Error(w, err.Error(), 400)
				return
			}
			inputs = []string{one}
		}
		w.Header().Set("Content-Type", "application/json")
		type item struct {
			Object    string    `json:"object"`
			Index     int       `json:"index"`
			Embedding []float32 `json:"embedding"`
		}
		var data []item
		for i, in := range inputs {
			v := h.EmbedText(in)
			out := make([]float32, len(v))
			for j := range v {
				out[j] = 0.9*common[j] + v[j]
			}
			data = append(data, item{Object: "embedding", Index: i, Embedding: embed.Normalize(out)})
		}
		json.NewEncoder(w).Encode(map[string]any{"object": "list", "data": data, "model": "neural-like",
			"usage": map[string]int{"prompt_tokens": 1, "total_tokens": 1}})
	}))
	t.Cleanup(srv.Close)
	return srv
}

// fillerTexts are unrelated everyday atoms, enough for a store to measure
// its embedder's background.
func fillerTexts(n int) []string {
	subjects := []string{"the garden", "a marathon", "the guitar", "pottery class", "a lake trip", "the novel", "a birthday party", "the dog", "sourdough bread", "a chess club"}
	verbs := []string{"enjoyed", "planned", "talked about", "finished", "started", "photographed", "described", "missed"}
	times := []string{"last weekend", "in spring", "with friends", "after work", "on holiday", "every Sunday"}
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("Once %s %s %s (note %d)", verbs[i%len(verbs)], subjects[(i/len(verbs))%len(subjects)], times[i%len(times)], i)
	}
	return out
}

// TestSimilaritySeparatesUnderHashAndDenseEmbedders: the similarity that
// the gate and the composite use spreads on one scale whatever the
// embedder: an unrelated atom scores low, a paraphrase high, and the 0.55
// gate lies between them.
func TestSimilaritySeparatesUnderHashAndDenseEmbedders(t *testing.T) {
	srv := neuralLikeServer(t)
	for _, tc := range []struct {
		name string
		emb  func() (memcore.Embedder, error)
	}{
		{"hash", func() (memcore.Embedder, error) { return embed.NewHash(768), nil }},
		{"dense", func() (memcore.Embedder, error) {
			return openai.NewEmbedder(openai.EmbedderConfig{BaseURL: srv.URL + "/v1", Model: "neural-like", APIKey: "k"})
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			emb, err := tc.emb()
			if err != nil {
				t.Fatal(err)
			}
			st, err := memcore.Open(context.Background(), t.TempDir(), memcore.Options{Embedder: emb, Now: func() time.Time { return hNow }})
			if err != nil {
				t.Fatal(err)
			}
			defer st.Close(context.Background())
			var reqs []memcore.AddRequest
			for _, f := range fillerTexts(120) {
				reqs = append(reqs, memcore.AddRequest{Text: f, Type: "fact", Source: memcore.SourceUserSaid, CreatedAt: hNow})
			}
			reqs = append(reqs, memcore.AddRequest{Text: "Decided to sign JWT access tokens with Ed25519 keys kept in Secrets Manager", Type: "decision", Source: memcore.SourceUserSaid, CreatedAt: hNow})
			if _, _, err := st.AddBatch(context.Background(), reqs); err != nil {
				t.Fatal(err)
			}
			zero := 0.0
			sims := func(q string) map[string]float64 {
				res, err := st.Search(context.Background(), q, memcore.SearchOptions{K: 200, MinScore: &zero})
				if err != nil {
					t.Fatal(err)
				}
				out := map[string]float64{}
				for _, r := range res {
					out[r.Atom.Text] = r.Sim
				}
				return out
			}
			para := sims("we sign our JWT access tokens using Ed25519 keys from Secrets Manager")
			jwt := "Decided to sign JWT access tokens with Ed25519 keys kept in Secrets Manager"
			if para[jwt] < 0.8 {
				t.Errorf("paraphrase similarity %.3f, want ≥ 0.8", para[jwt])
			}
			unrel := sims("kubernetes node autoscaling thresholds")
			worst := 0.0
			for _, s := range unrel {
				worst = max(worst, s)
			}
			if worst >= 0.55 {
				t.Errorf("an unrelated query reaches %.3f, at or above the 0.55 gate", worst)
			}
			if u := sims("kubernetes node autoscaling thresholds")[jwt]; u > 0.3 {
				t.Errorf("the JWT decision scores %.3f for an unrelated query, want ≤ 0.3", u)
			}
		})
	}
}

// TestAgeByKind: a decision months old still outranks recent chatter with
// the same words, an intent of the same age does not, and a pinned atom
// never decays.
func TestAgeByKind(t *testing.T) {
	st := hOpen(t, nil, nil)
	dec := hAdd(t, st, "Decided to use Kafka as the message broker for order events", "decision", "", 150*24*time.Hour)
	hAdd(t, st, "Looking at the order events dashboard again today", "observation", "", 2*24*time.Hour)
	hAdd(t, st, "Asked why order events were slow this morning", "question", "", 1*24*time.Hour)
	res, err := st.Search(context.Background(), "which message broker carries order events?", memcore.SearchOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res) == 0 || res[0].Atom.ID != dec.ID {
		t.Fatalf("the 150-day-old decision is not first: %+v", res)
	}
	if res[0].HalfLife != 1095 || math.Abs(res[0].Decay-math.Pow(0.5, 150.0/1095)) > 1e-9 {
		t.Fatalf("decision half-life %v decay %v", res[0].HalfLife, res[0].Decay)
	}

	st2 := hOpen(t, nil, func(c *memcore.Config) { c.DecayHalfLifeDays = 10 })
	old := hAdd(t, st2, "Wants to look at the order events broker lag", "intent", "", 60*24*time.Hour)
	pinned := hAdd(t, st2, "Wants the order events broker lag alert kept forever", "intent", "", 60*24*time.Hour)
	if _, _, err := st2.SetPin(context.Background(), pinned.ID, true); err != nil {
		t.Fatal(err)
	}
	res, err = st2.Search(context.Background(), "order events broker lag", memcore.SearchOptions{})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]memcore.Scored{}
	for _, r := range res {
		got[r.Atom.ID] = r
	}
	if o := got[old.ID]; o.HalfLife != 10 || math.Abs(o.Decay-math.Pow(0.5, 6)) > 1e-9 {
		t.Fatalf("an intent follows decay_half_life_days (10): %+v", o)
	}
	if p := got[pinned.ID]; p.HalfLife != 0 || p.Decay != 1 {
		t.Fatalf("a pinned atom decayed: %+v", p)
	}
}
