package openai

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"
)

// fakeServer is a scripted OpenAI-compatible chat completions endpoint.
type fakeServer struct {
	*httptest.Server
	mu      sync.Mutex
	bodies  []map[string]any
	headers []http.Header
}

// handlerFunc answers the n-th request (0-based) given its decoded body.
type handlerFunc func(w http.ResponseWriter, r *http.Request, body map[string]any, n int)

func newFake(t *testing.T, h handlerFunc) *fakeServer {
	t.Helper()
	f := &fakeServer{}
	f.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.URL.Path != "/v1/chat/completions" {
			http.Error(w, "not found: "+r.URL.Path, http.StatusNotFound)
			return
		}
		raw, _ := io.ReadAll(r.Body)
		var body map[string]any
		if err := json.Unmarshal(raw, &body); err != nil {
			http.Error(w, "bad json", http.StatusBadRequest)
			return
		}
		f.mu.Lock()
		n := len(f.bodies)
		f.bodies = append(f.bodies, body)
		f.headers = append(f.headers, r.Header.Clone())
		f.mu.Unlock()
		h(w, r, body, n)
	}))
	t.Cleanup(f.Close)
	return f
}

func (f *fakeServer) requests() []map[string]any {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]map[string]any(nil), f.bodies...)
}

func (f *fakeServer) client(t *testing.T) *chat {
	t.Helper()
	c, err := NewChat(ChatConfig{BaseURL: f.URL + "/v1", Model: "test-model", MaxTokens: 321, Temperature: 0.2, Timeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	return c.(*chat)
}

// completion writes a chat.completion body with content.
func completion(w http.ResponseWriter, content string) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]any{
		"id": "chatcmpl-1", "object": "chat.completion", "created": 1, "model": "test-model",
		"choices": []any{map[string]any{
			"index":         0,
			"message":       map[string]any{"role": "assistant", "content": content},
			"finish_reason": "stop",
		}},
	})
}

// replies answers every request with content.
func replies(content string) handlerFunc {
	return func(w http.ResponseWriter, _ *http.Request, _ map[string]any, _ int) { completion(w, content) }
}

// messages returns the (role, content) pairs of a request body.
func messages(t *testing.T, body map[string]any) [][2]string {
	t.Helper()
	arr, _ := body["messages"].([]any)
	var out [][2]string
	for _, m := range arr {
		mm, _ := m.(map[string]any)
		role, _ := mm["role"].(string)
		content, _ := mm["content"].(string)
		out = append(out, [2]string{role, content})
	}
	return out
}
