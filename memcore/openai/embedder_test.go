package openai

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

func norm(v []float32) float64 {
	var s float64
	for _, x := range v {
		s += float64(x) * float64(x)
	}
	return math.Sqrt(s)
}

// embedServer is a scripted OpenAI-compatible /v1/embeddings endpoint.
type embedServer struct {
	dims     int
	requests atomic.Int32
	inputs   atomic.Int32
	delay    time.Duration
	stop     chan struct{}
	status   int
	wrongDim bool
	dropOne  bool
}

func (f *embedServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.requests.Add(1)
	if r.URL.Path != "/v1/embeddings" || r.Method != http.MethodPost {
		http.Error(w, "not found: "+r.URL.Path, 404)
		return
	}
	if got := r.Header.Get("Authorization"); !strings.HasPrefix(got, "Bearer ") {
		http.Error(w, "no auth", 401)
		return
	}
	if f.delay > 0 {
		select {
		case <-time.After(f.delay):
		case <-r.Context().Done():
			return
		case <-f.stop:
			return
		}
	}
	if f.status != 0 {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(f.status)
		fmt.Fprint(w, `{"error":{"message":"model exploded","type":"server_error"}}`)
		return
	}
	var req struct {
		Input []string `json:"input"`
		Model string   `json:"model"`
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		http.Error(w, err.Error(), 400)
		return
	}
	f.inputs.Add(int32(len(req.Input)))
	type item struct {
		Object    string    `json:"object"`
		Index     int       `json:"index"`
		Embedding []float64 `json:"embedding"`
	}
	var data []item
	for i, in := range req.Input {
		if f.dropOne && i == len(req.Input)-1 {
			break
		}
		d := f.dims
		if f.wrongDim {
			d++
		}
		v := make([]float64, d)
		for j := range v {
			v[j] = float64(len(in)%7+j%5) + 1 // not normalised on purpose
		}
		data = append(data, item{"embedding", i, v})
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(map[string]any{"object": "list", "model": req.Model, "data": data, "usage": map[string]int{"prompt_tokens": 1, "total_tokens": 1}})
}

func newEmbedServer(t *testing.T, f *embedServer) (*httptest.Server, *Embedder) {
	srv := httptest.NewServer(f)
	t.Cleanup(srv.Close)
	h, err := NewEmbedder(EmbedderConfig{BaseURL: srv.URL, Model: "nomic-embed-text", BatchSize: 3, Timeout: 2 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	return srv, h
}

func TestEmbedderBatchingCacheAndNormalisation(t *testing.T) {
	t.Setenv("OPENAI_BASE_URL", "http://127.0.0.1:1/should-not-be-used")
	t.Setenv("OPENAI_API_KEY", "sk-env-should-not-be-used")
	f := &embedServer{dims: 8}
	_, h := newEmbedServer(t, f)
	texts := []string{"a", "bb", "ccc", "dddd", "eeeee", "a", "ffffff", "g"}
	vecs, err := h.Embed(context.Background(), texts)
	if err != nil {
		t.Fatal(err)
	}
	if len(vecs) != len(texts) {
		t.Fatalf("%d vectors", len(vecs))
	}
	// 7 distinct texts in batches of 3 → 3 requests.
	if n := f.requests.Load(); n != 3 {
		t.Fatalf("requests = %d, want 3", n)
	}
	for i, v := range vecs {
		if len(v) != 8 || math.Abs(norm(v)-1) > 1e-5 {
			t.Fatalf("vector %d: len %d norm %v", i, len(v), norm(v))
		}
	}
	if h.width() != 8 || h.Fingerprint() != "http/nomic-embed-text/8" {
		t.Fatalf("dims %d fp %q", h.width(), h.Fingerprint())
	}
	// Cache hit: no new request.
	again, err := h.Embed(context.Background(), []string{"ccc", "a"})
	if err != nil {
		t.Fatal(err)
	}
	if n := f.requests.Load(); n != 3 {
		t.Fatalf("cache miss: requests = %d", n)
	}
	withEmpty, err := h.Embed(context.Background(), []string{"", "a"})
	if err != nil || len(withEmpty[0]) != 8 || norm(withEmpty[0]) != 0 || f.requests.Load() != 3 {
		t.Fatalf("empty text: %v", err)
	}
	again[0][0] = 42 // callers own their copies
	third, _ := h.Embed(context.Background(), []string{"ccc"})
	if third[0][0] == 42 {
		t.Fatal("cache shares memory with callers")
	}
}

func TestEmbedderCacheBounded(t *testing.T) {
	f := &embedServer{dims: 4}
	srv := httptest.NewServer(f)
	defer srv.Close()
	h, err := NewEmbedder(EmbedderConfig{BaseURL: srv.URL + "/v1", Model: "m", CacheSize: 2})
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"a", "b", "c", "a"} {
		if _, err := h.Embed(context.Background(), []string{s}); err != nil {
			t.Fatal(err)
		}
	}
	if h.cache.len() != 2 || f.requests.Load() != 4 { // "a" was evicted by "c"
		t.Fatalf("cache len %d requests %d", h.cache.len(), f.requests.Load())
	}
}

func TestEmbedderErrors(t *testing.T) {
	ctx := context.Background()
	t.Run("timeout", func(t *testing.T) {
		f := &embedServer{dims: 4, delay: 5 * time.Second, stop: make(chan struct{})}
		srv := httptest.NewServer(f)
		defer srv.Close()
		defer close(f.stop)
		h, _ := NewEmbedder(EmbedderConfig{BaseURL: srv.URL, Model: "m", Timeout: 200 * time.Millisecond})
		start := time.Now()
		_, err := h.Embed(ctx, []string{"x"})
		if err == nil || time.Since(start) > 2*time.Second || !strings.Contains(err.Error(), "timed out") {
			t.Fatalf("err %v after %v", err, time.Since(start))
		}
	})
	t.Run("wrong dims", func(t *testing.T) {
		f := &embedServer{dims: 4, wrongDim: true}
		srv := httptest.NewServer(f)
		defer srv.Close()
		h, _ := NewEmbedder(EmbedderConfig{BaseURL: srv.URL, Model: "nomic-embed-text", Dims: 4})
		_, err := h.Embed(ctx, []string{"x"})
		if err == nil || !strings.Contains(err.Error(), "nomic-embed-text") || !strings.Contains(err.Error(), "returned 5 dimensions, expected 4") {
			t.Fatalf("err %v", err)
		}
	})
	t.Run("wrong count", func(t *testing.T) {
		_, h := newEmbedServer(t, &embedServer{dims: 4, dropOne: true})
		_, err := h.Embed(ctx, []string{"x", "y"})
		if err == nil || !strings.Contains(err.Error(), "returned 1 vectors for 2 inputs") {
			t.Fatalf("err %v", err)
		}
	})
	t.Run("http 500", func(t *testing.T) {
		_, h := newEmbedServer(t, &embedServer{dims: 4, status: 500})
		_, err := h.Embed(ctx, []string{"x"})
		if err == nil || !strings.Contains(err.Error(), "HTTP 500") || !strings.Contains(err.Error(), "model exploded") {
			t.Fatalf("err %v", err)
		}
	})
	t.Run("connection refused", func(t *testing.T) {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		addr := l.Addr().String()
		l.Close()
		h, _ := NewEmbedder(EmbedderConfig{BaseURL: "http://" + addr, Model: "m"})
		_, err = h.Embed(ctx, []string{"x"})
		if err == nil || !strings.Contains(err.Error(), "embedding endpoint http://"+addr+"/v1 unreachable") {
			t.Fatalf("err %v", err)
		}
	})
	t.Run("config", func(t *testing.T) {
		for _, c := range []EmbedderConfig{{Model: "m"}, {BaseURL: "http://x"}, {BaseURL: "ftp://x", Model: "m"}, {BaseURL: "http://x", Model: "m", Dims: -1}} {
			if _, err := NewEmbedder(c); err == nil {
				t.Errorf("NewEmbedder(%+v) accepted", c)
			}
		}
	})
}
