package memcore_test

import (
	"context"
	"errors"
	"hash/fnv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/odekmem/odekmem/memcore"
)

// wordsEmbedder is an agent's own embedder: two methods, vectors that are
// not normalised (word counts in 32 buckets).
type wordsEmbedder struct {
	calls atomic.Int64
	fail  func(texts []string) ([][]float32, error)
}

func (w *wordsEmbedder) Fingerprint() string { return "agent/words/32" }

func (w *wordsEmbedder) Embed(_ context.Context, texts []string) ([][]float32, error) {
	w.calls.Add(1)
	if w.fail != nil {
		return w.fail(texts)
	}
	out := make([][]float32, len(texts))
	for i, t := range texts {
		v := make([]float32, 32)
		for _, word := range strings.Fields(strings.ToLower(t)) {
			h := fnv.New32a()
			h.Write([]byte(strings.Trim(word, ".,?!")))
			v[h.Sum32()%32] += 3
		}
		out[i] = v
	}
	return out, nil
}

// TestAgentEmbedder: an agent's two-method Embedder is used as it is
// given: its fingerprint names the cache, the width is measured from its
// vectors, they are normalised, and answers that cannot be vectors for the
// texts are errors, not stored atoms.
func TestAgentEmbedder(t *testing.T) {
	ctx := context.Background()
	emb := &wordsEmbedder{}
	st, err := memcore.Open(ctx, t.TempDir(), memcore.Options{Embedder: emb})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close(context.Background())
	for _, text := range []string{"the ledger uses PostgreSQL", "deploys happen on fridays", "the cache is redis"} {
		if _, err := st.Add(ctx, memcore.AddRequest{Text: text, Source: memcore.SourceUserSaid}); err != nil {
			t.Fatal(err)
		}
	}
	stats := must(st.Stats(ctx))
	if stats.Index.Fingerprint != "agent/words/32" || stats.Index.Dims != 32 || emb.calls.Load() == 0 {
		t.Fatalf("index %+v after %d calls", stats.Index, emb.calls.Load())
	}
	res, err := st.Search(ctx, "which database does the ledger use", memcore.SearchOptions{})
	if err != nil || len(res) == 0 || !strings.Contains(res[0].Atom.Text, "ledger") {
		t.Fatalf("search: %v %+v", err, res)
	}
	if c := res[0].Cosine; c <= 0 || c > 1.0001 {
		t.Fatalf("cosine %v: the vectors were not normalised", c)
	}
	for name, fail := range map[string]func([]string) ([][]float32, error){
		"too few vectors": func([]string) ([][]float32, error) { return nil, nil },
		"another width":   func(ts []string) ([][]float32, error) { return [][]float32{make([]float32, 8)}, nil },
		"its own error":   func([]string) ([][]float32, error) { return nil, errors.New("model offline") },
	} {
		emb.fail = fail
		if _, err := st.Add(ctx, memcore.AddRequest{Text: "a new fact about " + name, Source: memcore.SourceUserSaid}); err == nil {
			t.Errorf("%s: Add stored an atom", name)
		}
	}
}
