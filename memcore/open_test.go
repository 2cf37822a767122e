package memcore_test

import (
	"context"
	"encoding/json"
	"errors"
	"hash/fnv"
	"math"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/odekmem/odekmem/internal/vocab"
	"github.com/odekmem/odekmem/memcore"
	"github.com/odekmem/odekmem/memcore/openai"
)

// hEmbedServer is a scripted OpenAI-compatible /v1/embeddings endpoint:
// each word of a text lands in one of 64 buckets, so texts sharing words
// are close. It counts the texts it embedded.
type hEmbedServer struct {
	srv   *httptest.Server
	texts atomic.Int64
}

func hNewEmbedServer(t *testing.T) *hEmbedServer {
	e := &hEmbedServer{}
	e.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !strings.HasSuffix(r.URL.Path, "/embeddings") {
			http.NotFound(w, r)
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
		e.texts.Add(int64(len(req.Input)))
		data := make([]any, len(req.Input))
		for i, text := range req.Input {
			v := make([]float64, 64)
			for _, w := range strings.Fields(strings.ToLower(text)) {
				h := fnv.New32a()
				h.Write([]byte(strings.Trim(w, ".,?!")))
				v[h.Sum32()%64]++
			}
			var n float64
			for _, x := range v {
				n += x * x
			}
			for j := range v {
				v[j] /= math.Max(math.Sqrt(n), 1e-9)
			}
			data[i] = map[string]any{"object": "embedding", "index": i, "embedding": v}
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{"object": "list", "model": req.Model, "data": data,
			"usage": map[string]any{"prompt_tokens": 1, "total_tokens": 1}})
	}))
	t.Cleanup(e.srv.Close)
	return e
}

func extractOne(task, user string) (string, int) {
	if task == "extract" {
		return `[{"text":"We use PostgreSQL for the ledger","type":"decision","confidence":0.9,"quote":"We decided on PostgreSQL for the ledger."}]`, 0
	}
	return noLLMAnswer(task, user)
}

// TestOpenWithOpenAIClients: the clients of memcore/openai, passed in
// Options, are the ones the store and its Hook use.
func TestOpenWithOpenAIClients(t *testing.T) {
	emb := hNewEmbedServer(t)
	chat := hNewFake(t, extractOne)
	e, err := openai.NewEmbedder(openai.EmbedderConfig{BaseURL: emb.srv.URL + "/v1", Model: "test-embed"})
	if err != nil {
		t.Fatal(err)
	}
	c, err := openai.NewChat(openai.ChatConfig{BaseURL: chat.srv.URL + "/v1", Model: "test-memory", Timeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	st, err := memcore.Open(context.Background(), t.TempDir(), memcore.Options{Embedder: e, LLM: c})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close(context.Background())
	h := memcore.NewHook(st)
	defer h.Close(context.Background())
	rr, err := h.RecordUserMessage(context.Background(), memcore.Turn{Message: "We decided on PostgreSQL for the ledger.", SessionID: "s1"})
	if err != nil {
		t.Fatal(err)
	}
	if rr.Extractor != "llm" || chat.count("extract") != 1 {
		t.Fatalf("the LLM was not used: extractor %q, %d extract calls", rr.Extractor, chat.count("extract"))
	}
	if fp := must(st.Stats(context.Background())).Index.Fingerprint; fp != "http/test-embed/64" {
		t.Fatalf("fingerprint %q: the HTTP embedder was not used", fp)
	}
	if emb.texts.Load() == 0 {
		t.Fatal("the embedding server was never called")
	}
	res, err := st.Search(context.Background(), "PostgreSQL for the ledger", memcore.SearchOptions{})
	if err != nil || len(res) != 1 {
		t.Fatalf("search: %v %+v", err, res)
	}
}

// TestOpenDefaultsToTheOfflineEmbedder: with no Options.Embedder the store
// embeds with the 768-wide hash embedder, and nothing is sent anywhere.
func TestOpenDefaultsToTheOfflineEmbedder(t *testing.T) {
	st, err := memcore.Open(context.Background(), t.TempDir(), memcore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close(context.Background())
	if _, err := st.Add(context.Background(), memcore.AddRequest{Text: "we deploy on fridays", Source: memcore.SourceUserSaid}); err != nil {
		t.Fatal(err)
	}
	if s := must(st.Stats(context.Background())); s.Index.Fingerprint != "hash/1/768" || s.Index.Dims != 768 {
		t.Fatalf("default embedder: %q, %d dims", s.Index.Fingerprint, s.Index.Dims)
	}
}

func TestClosedStoreReturnsErrClosed(t *testing.T) {
	st, err := memcore.Open(context.Background(), t.TempDir(), memcore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	r, err := st.Add(ctx, memcore.AddRequest{Text: "we deploy on fridays", Source: memcore.SourceUserSaid})
	if err != nil {
		t.Fatal(err)
	}
	id := r.Atom.ID
	if err := st.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	calls := map[string]func() error{
		"Add": func() error {
			_, err := st.Add(ctx, memcore.AddRequest{Text: "x y z", Source: memcore.SourceUserSaid})
			return err
		},
		"AddBatch": func() error { _, _, err := st.AddBatch(ctx, []memcore.AddRequest{{Text: "x y z"}}); return err },
		"Search":   func() error { _, err := st.Search(ctx, "deploy fridays", memcore.SearchOptions{}); return err },
		"Recall":   func() error { _, err := st.Recall(ctx, "deploy fridays", memcore.SearchOptions{}); return err },
		"Get":      func() error { _, _, err := st.Get(ctx, id); return err },
		"Forget":   func() error { _, _, _, err := st.Forget(ctx, id); return err },
		"Promote":  func() error { _, _, err := st.Promote(ctx, id); return err },
		"SetPin":   func() error { _, _, err := st.SetPin(ctx, id, true); return err },
		"Confirm":  func() error { _, _, err := st.Confirm(ctx, "p-1"); return err },
		"Reject":   func() error { _, _, err := st.Reject(ctx, "p-1"); return err },
		"Compact":  func() error { _, err := st.Compact(ctx); return err },
		"Refresh":  func() error { _, err := st.Refresh(ctx); return err },
		"Export":   func() error { return st.Export(ctx, &strings.Builder{}) },
		"Import":   func() error { _, err := st.Import(ctx, strings.NewReader(""), memcore.ImportOptions{}); return err },
		"Associate": func() error {
			_, err := memcore.Associate(st, ctx, id)
			return err
		},
		"List":           func() error { _, err := st.List(ctx, memcore.Filter{}); return err },
		"Quarantined":    func() error { _, err := st.Quarantined(ctx); return err },
		"UserModel":      func() error { _, err := st.UserModel(ctx); return err },
		"Links":          func() error { _, err := st.Links(ctx, id); return err },
		"Stats":          func() error { _, err := st.Stats(ctx); return err },
		"NextEvictions":  func() error { _, err := st.NextEvictions(ctx, 3); return err },
		"Contradictions": func() error { _, err := st.Contradictions(ctx, true); return err },
		"AgentSessions":  func() error { _, err := st.AgentSessions(ctx); return err },
		"Lane":           func() error { _, err := st.Lane(ctx); return err },
		"Keep":           func() error { _, _, err := st.Keep(ctx, "0123abcd"); return err },
		"Drop":           func() error { _, _, err := st.Drop(ctx, "0123abcd"); return err },
		"ExportFile":     func() error { return memcore.ExportFile(st, ctx, filepath.Join(t.TempDir(), "export.jsonl")) },
		"RecordAgentMessage": func() error {
			_, err := st.RecordAgentMessage(ctx, "claude-code", "s1", "/p", "hi", time.Now())
			return err
		},
		"DetectContradictions": func() error { _, err := st.DetectContradictions(ctx, id); return err },
		"EditUserModel":        func() error { _, err := st.EditUserModel(ctx, "style.tone", "direct"); return err },
		"ResolveContradiction": func() error {
			_, _, err := st.ResolveContradiction(ctx, "c-1", memcore.ResolveKeepNew)
			return err
		},
	}
	// Every exported method is in the table, but the accessors of what Open
	// was given or found (no store read) and Close itself.
	accessors := map[string]bool{"Close": true, "Dir": true, "Config": true, "Now": true, "Problems": true}
	ty := reflect.TypeOf(st)
	for i := 0; i < ty.NumMethod(); i++ {
		if name := ty.Method(i).Name; calls[name] == nil && !accessors[name] {
			t.Errorf("Store.%s is not checked after Close", name)
		}
	}
	for name, call := range calls {
		if err := call(); !errors.Is(err, memcore.ErrClosed) {
			t.Errorf("%s after Close: %v, want ErrClosed", name, err)
		}
	}
	if err := st.Close(context.Background()); err != nil {
		t.Errorf("second Close: %v", err)
	}
}

// inferToneFake is a model whose user-state inference proposes one
// pending guess (style.tone = direct) and that answers nothing else.
func inferToneFake(t *testing.T) *hFake {
	return hNewFake(t, func(task, user string) (string, int) {
		if task == "infer" {
			return `{"direct":[],"speculative":[{"field":"style.tone","value":"direct","evidence":"said so","confidence":0.8}]}`, 0
		}
		return noLLMAnswer(task, user)
	})
}

func TestHookCloseWaitsForInference(t *testing.T) {
	f := inferToneFake(t)
	f.delay = 300 * time.Millisecond
	st := hOpen(t, f.client(t, 5), func(c *memcore.Config) { c.UserStateTurnInterval = 1 })
	h := memcore.NewHook(st)
	rr, err := h.RecordUserMessage(context.Background(), memcore.Turn{Message: "hello there", SessionID: "s1"})
	if err != nil || !rr.Inference {
		t.Fatalf("inference not started: %v %+v", err, rr)
	}
	if err := h.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	// Close returned only after the inference wrote its result.
	if p := must(st.UserModel(context.Background())).Pending; len(p) != 1 || p[0].Value != "direct" {
		t.Fatalf("pending after Close: %+v", p)
	}
	if _, err := h.RecordUserMessage(context.Background(), memcore.Turn{Message: "more", SessionID: "s1"}); !errors.Is(err, memcore.ErrClosed) {
		t.Fatalf("RecordUserMessage after Close: %v", err)
	}
	if tc := h.BeforeTurn(context.Background(), memcore.Turn{Message: "more"}); tc.Message != "more" || len(tc.Blocks) != 0 {
		t.Fatalf("BeforeTurn after Close: %+v", tc)
	}
}

func TestHookCloseCancelsWhenCtxEnds(t *testing.T) {
	f := inferToneFake(t)
	st := hOpen(t, f.client(t, 30), func(c *memcore.Config) {
		c.UserStateTurnInterval, c.HookTimeoutSeconds, c.NoAutoExtract = 1, 30, true
	})
	h := memcore.NewHook(st)
	f.mu.Lock()
	f.delay = time.Minute // the inference call hangs until cancelled
	f.mu.Unlock()
	if rr, _ := h.RecordUserMessage(context.Background(), memcore.Turn{Message: "hello there", SessionID: "s1"}); !rr.Inference {
		t.Fatal("inference not started")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	start := time.Now()
	if err := h.Close(ctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Close: %v, want the ctx's deadline", err)
	}
	if time.Since(start) > 20*time.Second {
		t.Fatal("Close did not cancel the hanging inference")
	}
	if len(must(st.UserModel(context.Background())).Pending) != 0 {
		t.Fatalf("a cancelled inference queued %+v", must(st.UserModel(context.Background())).Pending)
	}
	if err := st.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
}

func TestMissingIDErrors(t *testing.T) {
	st, err := memcore.Open(context.Background(), t.TempDir(), memcore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close(context.Background())
	ctx := context.Background()
	unknown := vocab.NewID() // well-formed, never stored
	cases := []struct {
		name string
		call func(id string) error
	}{
		{"Forget", func(id string) error { _, _, _, err := st.Forget(ctx, id); return err }},
		{"Get", func(id string) error { _, _, err := st.Get(ctx, id); return err }},
		{"SetPin", func(id string) error { _, _, err := st.SetPin(ctx, id, true); return err }},
		{"Promote", func(id string) error { _, _, err := st.Promote(ctx, id); return err }},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			for _, bad := range []string{"not-an-id", "../etc/passwd", "", strings.Repeat("a", 31)} {
				if err := tc.call(bad); !errors.Is(err, memcore.ErrInvalidArgument) {
					t.Errorf("%q: %v, want ErrInvalidArgument", bad, err)
				}
			}
			if err := tc.call(unknown); !errors.Is(err, memcore.ErrNotFound) || errors.Is(err, memcore.ErrInvalidArgument) {
				t.Errorf("unknown well-formed id: %v, want ErrNotFound", err)
			}
		})
	}
}

func TestSearchProjectNormalisedLikeTheHook(t *testing.T) {
	st, err := memcore.Open(context.Background(), t.TempDir(), memcore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close(context.Background())
	ctx := context.Background()
	for _, a := range []struct{ text, project string }{
		{"the payments ledger uses PostgreSQL", "/home/me/src/Payments-API/"},
		{"the search ledger uses Elasticsearch", "/home/me/src/search"},
	} {
		if _, err := st.Add(ctx, memcore.AddRequest{Text: a.text, Source: memcore.SourceUserSaid, Context: memcore.AtomContext{Project: a.project}}); err != nil {
			t.Fatal(err)
		}
	}
	zero := 0.0
	for _, p := range []string{"payments-api", "Payments-API", "/work/payments-api", `C:\src\payments-api`} {
		res, err := st.Search(ctx, "ledger uses", memcore.SearchOptions{Project: p, MinScore: &zero})
		if err != nil || len(res) != 1 || !strings.Contains(res[0].Atom.Text, "PostgreSQL") {
			t.Errorf("project %q: %v %d results", p, err, len(res))
		}
	}
}
