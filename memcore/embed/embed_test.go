package embed

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

func cos(a, b []float32) float64 {
	var s float64
	for i := range a {
		s += float64(a[i]) * float64(b[i])
	}
	return s
}

func TestTokensAndTerms(t *testing.T) {
	got := Tokens("Hey Mel! Caroline's LGBTQ-group, naïve 2023 don’t")
	want := []string{"hey", "mel", "carolines", "lgbtq", "group", "naïve", "2023", "dont"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("Tokens = %q, want %q", got, want)
	}
	if got := Terms("I went to the painting classes"); fmt.Sprint(got) != "[went paint class]" {
		t.Fatalf("Terms = %q", got)
	}
	for in, want := range map[string]string{"running": "run", "painted": "paint", "stories": "story", "cats": "cats", "glass": "glass", "quickly": "quick"} {
		if got := Stem(in); got != want {
			t.Errorf("Stem(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestHashDeterministicGolden(t *testing.T) {
	h := NewHash(0)
	if h.Fingerprint() != "hash/1/768" || h.Dims() != 768 || !h.Sparse() {
		t.Fatalf("fingerprint %q dims %d", h.Fingerprint(), h.Dims())
	}
	v := h.EmbedText("Caroline went to the LGBTQ support group yesterday.")
	// Golden values pin the hash, tokenizer and weighting: a change here
	// must bump HashVersion.
	var nz []string
	for i, x := range v {
		if x != 0 && len(nz) < 4 {
			nz = append(nz, fmt.Sprintf("%d:%.6f", i, x))
		}
	}
	const golden = "[30:-0.096052 55:-0.096052 66:0.096052 69:0.096052]"
	if fmt.Sprint(nz) != golden {
		t.Fatalf("first nonzero entries %v, want %s", nz, golden)
	}
	t.Logf("first nonzero entries: %v", nz)
	w := NewHash(768).EmbedText("Caroline went to the LGBTQ support group yesterday.")
	for i := range v {
		if v[i] != w[i] {
			t.Fatalf("not deterministic at %d", i)
		}
	}
	if n := norm(v); math.Abs(n-1) > 1e-5 {
		t.Fatalf("norm %v", n)
	}
	if NewHash(100).Dims() != 768 {
		t.Fatal("dims below 768 must be raised")
	}
	if NewHash(1024).Fingerprint() != "hash/1/1024" {
		t.Fatal(NewHash(1024).Fingerprint())
	}
}

func TestHashIndependentAndSimilar(t *testing.T) {
	h := NewHash(0)
	ctx := context.Background()
	a, _ := h.Embed(ctx, []string{"I love painting sunsets by the lake"})
	b, _ := h.Embed(ctx, []string{"unrelated text about kernels", "I love painting sunsets by the lake", "more"})
	for i := range a[0] {
		if a[0][i] != b[1][i] {
			t.Fatal("a document's vector depends on the other documents")
		}
	}
	related := h.EmbedText("She painted a sunset at the lake last week")
	unrelated := h.EmbedText("The compiler rejects generic type aliases")
	if cr, cu := cos(a[0], related), cos(a[0], unrelated); cr <= cu+0.1 {
		t.Fatalf("related %v vs unrelated %v", cr, cu)
	}
	empty := h.EmbedText("the and of")
	if norm(empty) != 0 {
		t.Fatal("stop-word-only text should give the zero vector")
	}
	if h.Calibrate(0) != 0 || h.Calibrate(-1) != 0 {
		t.Fatal("calibrate of non-positive cosine must be 0")
	}
	if g := h.Calibrate(0.1712); math.Abs(float64(g)-DefaultMinScore) > 0.005 {
		t.Fatalf("calibrate(0.171) = %v, want ≈ 0.55", g)
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := h.Embed(cctx, []string{"x"}); err == nil {
		t.Fatal("cancelled context must fail")
	}
}

// fakeServer is a scripted OpenAI-compatible /v1/embeddings endpoint.
type fakeServer struct {
	dims     int
	requests atomic.Int32
	inputs   atomic.Int32
	delay    time.Duration
	stop     chan struct{}
	status   int
	wrongDim bool
	dropOne  bool
}

func (f *fakeServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
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

func newFake(t *testing.T, f *fakeServer) (*httptest.Server, *HTTP) {
	srv := httptest.NewServer(f)
	t.Cleanup(srv.Close)
	h, err := NewHTTP(HTTPConfig{BaseURL: srv.URL, Model: "nomic-embed-text", BatchSize: 3, Timeout: 2 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	return srv, h
}

func TestHTTPBatchingCacheAndNormalisation(t *testing.T) {
	t.Setenv("OPENAI_BASE_URL", "http://127.0.0.1:1/should-not-be-used")
	t.Setenv("OPENAI_API_KEY", "sk-env-should-not-be-used")
	f := &fakeServer{dims: 8}
	_, h := newFake(t, f)
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
	if h.Dims() != 8 || h.Fingerprint() != "http/nomic-embed-text/8" || h.Sparse() {
		t.Fatalf("dims %d fp %q", h.Dims(), h.Fingerprint())
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

func TestHTTPCacheBounded(t *testing.T) {
	f := &fakeServer{dims: 4}
	srv := httptest.NewServer(f)
	defer srv.Close()
	h, err := NewHTTP(HTTPConfig{BaseURL: srv.URL + "/v1", Model: "m", CacheSize: 2})
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

func TestHTTPErrors(t *testing.T) {
	ctx := context.Background()
	t.Run("timeout", func(t *testing.T) {
		f := &fakeServer{dims: 4, delay: 5 * time.Second, stop: make(chan struct{})}
		srv := httptest.NewServer(f)
		defer srv.Close()
		defer close(f.stop)
		h, _ := NewHTTP(HTTPConfig{BaseURL: srv.URL, Model: "m", Timeout: 200 * time.Millisecond})
		start := time.Now()
		_, err := h.Embed(ctx, []string{"x"})
		if err == nil || time.Since(start) > 2*time.Second || !strings.Contains(err.Error(), "timed out") {
			t.Fatalf("err %v after %v", err, time.Since(start))
		}
	})
	t.Run("wrong dims", func(t *testing.T) {
		f := &fakeServer{dims: 4, wrongDim: true}
		srv := httptest.NewServer(f)
		defer srv.Close()
		h, _ := NewHTTP(HTTPConfig{BaseURL: srv.URL, Model: "nomic-embed-text", Dims: 4})
		_, err := h.Embed(ctx, []string{"x"})
		if err == nil || !strings.Contains(err.Error(), "nomic-embed-text") || !strings.Contains(err.Error(), "returned 5 dimensions, expected 4") {
			t.Fatalf("err %v", err)
		}
	})
	t.Run("wrong count", func(t *testing.T) {
		_, h := newFake(t, &fakeServer{dims: 4, dropOne: true})
		_, err := h.Embed(ctx, []string{"x", "y"})
		if err == nil || !strings.Contains(err.Error(), "returned 1 vectors for 2 inputs") {
			t.Fatalf("err %v", err)
		}
	})
	t.Run("http 500", func(t *testing.T) {
		_, h := newFake(t, &fakeServer{dims: 4, status: 500})
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
		h, _ := NewHTTP(HTTPConfig{BaseURL: "http://" + addr, Model: "m"})
		_, err = h.Embed(ctx, []string{"x"})
		if err == nil || !strings.Contains(err.Error(), "embedding endpoint http://"+addr+"/v1 unreachable") {
			t.Fatalf("err %v", err)
		}
	})
	t.Run("config", func(t *testing.T) {
		for _, c := range []HTTPConfig{{Model: "m"}, {BaseURL: "http://x"}, {BaseURL: "ftp://x", Model: "m"}, {BaseURL: "http://x", Model: "m", Dims: -1}} {
			if _, err := NewHTTP(c); err == nil {
				t.Errorf("NewHTTP(%+v) accepted", c)
			}
		}
	})
}

func BenchmarkHashEmbed300(b *testing.B) {
	h := NewHash(0)
	text := strings.Repeat("Melanie painted a lake sunrise last year and signed up for pottery. ", 5)[:300]
	b.ReportAllocs()
	for b.Loop() {
		h.EmbedText(text)
	}
}
