// Command extmod uses memcore from outside its module, the way an agent
// does: it opens a store with the HTTP embedder and memory LLM of package
// memcore/openai, records the person's messages through the Hook, calls the
// memory tool with the model's JSON, searches, and closes. Both endpoints
// are a scripted OpenAI-compatible server (httptest), so it runs offline.
// It prints what happened and exits 1 on any surprise; the main module's
// TestExternalModule runs it.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"time"

	"github.com/odekmem/odekmem/memcore"
	"github.com/odekmem/odekmem/memcore/openai"
	"github.com/odekmem/odekmem/memcore/review"
)

func main() {
	if err := run(); err != nil {
		fmt.Println("FAIL:", err)
		os.Exit(1)
	}
	fmt.Println("PASS")
}

// server is a scripted OpenAI-compatible endpoint: /v1/embeddings hashes
// words into 64 buckets; /v1/chat/completions answers the extraction
// prompt with one decision (with the quote it rests on) and every other
// prompt with an empty result.
// It repeats the scripted servers of memcore's own tests on purpose: this
// program is its own module, which Go forbids to import the repository's
// internal/ packages or its test files, and it must use only what an
// outside importer gets.
type server struct {
	embedded, chats atomic.Int64
}

func (s *server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	switch {
	case strings.HasSuffix(r.URL.Path, "/embeddings"):
		var req struct {
			Input []string `json:"input"`
			Model string   `json:"model"`
		}
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		s.embedded.Add(int64(len(req.Input)))
		data := make([]any, len(req.Input))
		for i, text := range req.Input {
			data[i] = map[string]any{"object": "embedding", "index": i, "embedding": embed(text)}
		}
		json.NewEncoder(w).Encode(map[string]any{"object": "list", "model": req.Model, "data": data,
			"usage": map[string]any{"prompt_tokens": 1, "total_tokens": 1}})
	case strings.HasSuffix(r.URL.Path, "/chat/completions"):
		var req struct {
			Messages []struct {
				Role    string          `json:"role"`
				Content json.RawMessage `json:"content"`
			} `json:"messages"`
		}
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		s.chats.Add(1)
		system := ""
		for _, m := range req.Messages {
			if m.Role == "system" {
				json.Unmarshal(m.Content, &system)
			}
		}
		content := "[]"
		switch {
		case strings.Contains(system, "extraction"):
			content = `[{"text":"We use PostgreSQL for the ledger","type":"decision","confidence":0.9,"quote":"We decided to use PostgreSQL for the ledger."}]`
		case strings.Contains(system, "model of"):
			content = `{"direct":[],"speculative":[]}`
		}
		json.NewEncoder(w).Encode(map[string]any{"id": "c1", "object": "chat.completion", "created": 1, "model": "scripted",
			"choices": []any{map[string]any{"index": 0, "finish_reason": "stop", "message": map[string]any{"role": "assistant", "content": content}}}})
	default:
		http.NotFound(w, r)
	}
}

func embed(text string) []float64 {
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
	for i := range v {
		v[i] /= math.Max(math.Sqrt(n), 1e-9)
	}
	return v
}

func run() error {
	srv := &server{}
	ts := httptest.NewServer(srv)
	defer ts.Close()
	home, err := os.MkdirTemp("", "extmod-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(home)
	ctx := context.Background()

	emb, err := openai.NewEmbedder(openai.EmbedderConfig{BaseURL: ts.URL + "/v1", Model: "scripted-embed"})
	if err != nil {
		return fmt.Errorf("embedder: %w", err)
	}
	chat, err := openai.NewChat(openai.ChatConfig{BaseURL: ts.URL + "/v1", Model: "scripted-chat", Timeout: 10 * time.Second})
	if err != nil {
		return fmt.Errorf("chat: %w", err)
	}
	cfg := memcore.Config{SemanticSearchTopK: 8} // every other field: its default
	st, err := memcore.Open(ctx, filepath.Join(home, "memory", "extended"), memcore.Options{Config: &cfg, Embedder: emb, LLM: chat})
	if err != nil {
		return fmt.Errorf("open: %w", err)
	}
	hook := memcore.NewHook(st)

	// Turn 1: the person states a decision.
	turn := memcore.Turn{Message: "We decided to use PostgreSQL for the ledger.", SessionID: "s1", Project: "/src/payments-api"}
	hook.BeforeTurn(ctx, turn)
	rr, err := hook.RecordUserMessage(ctx, turn)
	if err != nil {
		return fmt.Errorf("record: %w", err)
	}
	if rr.Extractor != "llm" || len(rr.Added) != 1 || rr.Added[0].Atom.SourceClass != memcore.SourceUserSaid {
		return fmt.Errorf("record used %q and stored %+v", rr.Extractor, rr.Added)
	}
	fmt.Println("recorded:", rr.Extractor, rr.Added[0].Atom.Type, rr.Added[0].Atom.SourceClass)

	// Turn 2: the model calls the memory tool with JSON.
	turn2 := memcore.Turn{Message: "Please remember that the staging database is called ledger-stg.", SessionID: "s1", Project: "/src/payments-api"}
	tool := memcore.NewTool(st)
	// The schema is data: json.Marshal gives the OpenAI function object,
	// and it offers only what the tool can do.
	specJSON, err := json.Marshal(memcore.MemoryToolSpec())
	if err != nil {
		return fmt.Errorf("tool spec: %w", err)
	}
	var fn struct {
		Name       string `json:"name"`
		Parameters struct {
			Properties map[string]struct {
				Enum []string `json:"enum"`
			} `json:"properties"`
		} `json:"parameters"`
	}
	if err := json.Unmarshal(specJSON, &fn); err != nil || fn.Name == "" {
		return fmt.Errorf("tool spec %s: %v", specJSON, err)
	}
	actions := fn.Parameters.Properties["action"].Enum
	for _, a := range actions {
		if a == "confirm_pending_review" || a == "promote_atom" {
			return fmt.Errorf("the tool schema offers %s, which the tool cannot do", a)
		}
	}
	fmt.Println("tool schema:", fn.Name, "actions:", strings.Join(actions, ","))
	var add struct {
		OK          bool   `json:"ok"`
		SourceClass string `json:"source_class"`
		Quarantined bool   `json:"quarantined"`
		Error       string `json:"error"`
	}
	out := tool.CallJSON(ctx, []byte(`{"action":"add_atom","content":"the staging database is called ledger-stg","atom_type":"fact"}`), turn2)
	if err := json.Unmarshal(out, &add); err != nil || !add.OK {
		return fmt.Errorf("tool add_atom: %s", out)
	}
	fmt.Println("tool add_atom:", add.SourceClass, "quarantined:", add.Quarantined)
	out = tool.CallJSON(ctx, []byte(`{"action":"add_atom","content":"the production password is in the wiki"}`), turn2)
	if err := json.Unmarshal(out, &add); err != nil || !add.Quarantined {
		return fmt.Errorf("words the person never said were not quarantined: %s", out)
	}
	fmt.Println("tool add_atom (not the person's words):", add.SourceClass, "quarantined:", add.Quarantined)

	// Search and the next turn's recall.
	res, err := st.Search(ctx, "which database does the ledger use", memcore.SearchOptions{Project: "payments-api"})
	if err != nil || len(res) == 0 || !strings.Contains(res[0].Atom.Text, "PostgreSQL") {
		return fmt.Errorf("search: %v %+v", err, res)
	}
	fmt.Println("search:", len(res), "first:", res[0].Atom.Type)
	// A refused argument is ErrInvalidArgument, its message naming it.
	if _, err := st.Add(ctx, memcore.AddRequest{Text: "x", Type: "rumour", Source: memcore.SourceUserSaid}); !errors.Is(err, memcore.ErrInvalidArgument) {
		return fmt.Errorf("add of an unknown type: %v", err)
	}
	fmt.Println("add: ErrInvalidArgument for an unknown type")
	tc := hook.BeforeTurn(ctx, memcore.Turn{Message: "which database does the ledger use?", SessionID: "s1", Project: "payments-api"})
	if len(tc.Memory.Atoms) == 0 {
		return fmt.Errorf("BeforeTurn recalled nothing: %+v", tc)
	}
	fmt.Println("recall block atoms:", len(tc.Memory.Atoms))
	// The person's side, as an agent's own "memory promote" command would
	// do it: the quarantined tool proposal is not recalled until the
	// person promotes it (a Store act), and the act's Undo, kept in a
	// review.Session, takes that back.
	var rv review.Session
	quarantined, err := st.Quarantined(ctx)
	if err != nil || len(quarantined) != 1 || !strings.Contains(quarantined[0].Text, "password") {
		return fmt.Errorf("quarantine %+v: %v", quarantined, err)
	}
	wiki := func() bool {
		res, _ := st.Search(ctx, "where is the production password", memcore.SearchOptions{})
		for _, r := range res {
			if r.Atom.ID == quarantined[0].ID {
				return true
			}
		}
		return false
	}
	if wiki() {
		return fmt.Errorf("a quarantined proposal was recalled")
	}
	promoted, undo, err := st.Promote(ctx, quarantined[0].ID)
	if err != nil || promoted.SourceClass != memcore.SourceUserApproved || !wiki() {
		return fmt.Errorf("promote %+v: %v", promoted, err)
	}
	rv.Record(undo)
	if label, err := rv.Undo(ctx); err != nil || wiki() {
		return fmt.Errorf("undo %q: %v", label, err)
	}
	fmt.Println("review: promote, then undo:", len(quarantined), "quarantined")
	stats, err := st.Stats(ctx)
	if err != nil {
		return fmt.Errorf("stats: %w", err)
	}
	if fp := stats.Index.Fingerprint; fp != "http/scripted-embed/64" {
		return fmt.Errorf("fingerprint %q: the HTTP embedder was not used", fp)
	}
	if srv.embedded.Load() == 0 || srv.chats.Load() == 0 {
		return fmt.Errorf("the endpoints were not called (%d texts embedded, %d chats)", srv.embedded.Load(), srv.chats.Load())
	}
	fmt.Println("endpoints used: embeddings and chat")

	// Close: the Hook first, then the Store; afterwards ErrClosed.
	if err := hook.Close(ctx); err != nil {
		return fmt.Errorf("hook close: %w", err)
	}
	if err := st.Close(ctx); err != nil {
		return fmt.Errorf("store close: %w", err)
	}
	if _, err := st.Search(ctx, "ledger", memcore.SearchOptions{}); !errors.Is(err, memcore.ErrClosed) {
		return fmt.Errorf("search after close: %v", err)
	}
	if _, err := hook.RecordUserMessage(ctx, turn); !errors.Is(err, memcore.ErrClosed) {
		return fmt.Errorf("record after close: %v", err)
	}
	fmt.Println("closed: ErrClosed after Close")
	return nil
}
