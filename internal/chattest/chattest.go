// Package chattest is a scripted OpenAI-compatible chat completions
// endpoint on loopback for tests: the real openai-go client talks to it
// over HTTP, and the test decides each answer and reads each request.
package chattest

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
)

// Handler answers the n-th request (0-based) given its decoded body.
type Handler func(w http.ResponseWriter, r *http.Request, body map[string]any, n int)

// Server records every request to /v1/chat/completions and answers it
// with its Handler; other paths are 404s, bodies that are not JSON 400s.
type Server struct {
	*httptest.Server
	mu      sync.Mutex
	bodies  []map[string]any
	headers []http.Header
}

// New starts a Server closed at the end of the test.
func New(t testing.TB, h Handler) *Server {
	t.Helper()
	s := &Server{}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
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
		s.mu.Lock()
		n := len(s.bodies)
		s.bodies = append(s.bodies, body)
		s.headers = append(s.headers, r.Header.Clone())
		s.mu.Unlock()
		h(w, r, body, n)
	}))
	t.Cleanup(s.Close)
	return s
}

// Requests returns the decoded bodies received so far.
func (s *Server) Requests() []map[string]any {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]map[string]any(nil), s.bodies...)
}

// Headers returns the headers of the requests received so far.
func (s *Server) Headers() []http.Header {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]http.Header(nil), s.headers...)
}

// Completion writes a chat.completion body with content.
func Completion(w http.ResponseWriter, content string) {
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

// Replies answers every request with content.
func Replies(content string) Handler {
	return func(w http.ResponseWriter, _ *http.Request, _ map[string]any, _ int) { Completion(w, content) }
}

// Messages returns the (role, content) pairs of a request body.
func Messages(t testing.TB, body map[string]any) [][2]string {
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
