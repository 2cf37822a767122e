package openai

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/odekmem/odekmem/memcore/llm"
)

func TestNewChatValidates(t *testing.T) {
	if _, err := NewChat(ChatConfig{Model: "m"}); err == nil {
		t.Error("missing base URL accepted")
	}
	if _, err := NewChat(ChatConfig{BaseURL: "http://x/v1"}); err == nil {
		t.Error("missing model accepted")
	}
}

func TestCompleteSendsConfig(t *testing.T) {
	// openai-go would otherwise read these; the client must ignore them.
	t.Setenv("OPENAI_BASE_URL", "http://127.0.0.1:1/nowhere")
	t.Setenv("OPENAI_API_KEY", "sk-from-env")
	f := newFake(t, replies("  hello  "))
	c := f.client(t)
	out, err := c.Complete(context.Background(), llm.Request{
		System:   "sys",
		Messages: []llm.Message{{Role: "user", Content: "u1"}, {Role: "assistant", Content: "a1"}, {Role: "odd", Content: "u2"}},
	})
	if err != nil {
		t.Fatal(err)
	}
	if out != "hello" {
		t.Errorf("content = %q, want trimmed %q", out, "hello")
	}
	body := f.requests()[0]
	if body["model"] != "test-model" {
		t.Errorf("model = %v", body["model"])
	}
	if body["max_tokens"] != float64(321) {
		t.Errorf("max_tokens = %v", body["max_tokens"])
	}
	if body["temperature"] != 0.2 {
		t.Errorf("temperature = %v", body["temperature"])
	}
	if _, ok := body["response_format"]; ok {
		t.Error("response_format sent without JSON")
	}
	got := messages(t, body)
	want := [][2]string{{"system", "sys"}, {"user", "u1"}, {"assistant", "a1"}, {"user", "u2"}}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("messages = %v, want %v", got, want)
	}
	if auth := f.Headers()[0].Get("Authorization"); auth != "Bearer unused" {
		t.Errorf("Authorization = %q, want the placeholder key, not the environment's", auth)
	}
}

func TestCompleteRequestOverrides(t *testing.T) {
	f := newFake(t, replies("ok"))
	c := f.client(t)
	temp := 0.0
	if _, err := c.Complete(context.Background(), llm.Request{Messages: []llm.Message{{Role: "user", Content: "x"}}, MaxTokens: 7, Temperature: &temp}); err != nil {
		t.Fatal(err)
	}
	body := f.requests()[0]
	if body["max_tokens"] != float64(7) || body["temperature"] != float64(0) {
		t.Errorf("overrides not applied: max_tokens=%v temperature=%v", body["max_tokens"], body["temperature"])
	}
}

func TestCompleteJSONMode(t *testing.T) {
	f := newFake(t, replies(`{"a":1}`))
	c := f.client(t)
	if _, err := c.Complete(context.Background(), llm.Request{Messages: []llm.Message{{Role: "user", Content: "x"}}, JSON: true}); err != nil {
		t.Fatal(err)
	}
	rf, _ := f.requests()[0]["response_format"].(map[string]any)
	if rf["type"] != "json_object" {
		t.Errorf("response_format = %v, want json_object", f.requests()[0]["response_format"])
	}
}

func TestCompleteJSONModeRejectedThenRetried(t *testing.T) {
	f := newFake(t, func(w http.ResponseWriter, _ *http.Request, body map[string]any, n int) {
		if _, ok := body["response_format"]; ok {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusBadRequest)
			fmt.Fprint(w, `{"error":{"message":"response_format is not supported by this model","type":"invalid_request_error"}}`)
			return
		}
		completion(w, `{"ok":true}`)
	})
	c := f.client(t)
	for i := 0; i < 2; i++ {
		out, err := c.Complete(context.Background(), llm.Request{Messages: []llm.Message{{Role: "user", Content: "x"}}, JSON: true})
		if err != nil {
			t.Fatalf("call %d: %v", i, err)
		}
		if out != `{"ok":true}` {
			t.Errorf("call %d: out = %q", i, out)
		}
	}
	reqs := f.requests()
	if len(reqs) != 3 {
		t.Fatalf("server saw %d requests, want 3 (rejected, retry, then no JSON mode)", len(reqs))
	}
	for i, want := range []bool{true, false, false} {
		if _, got := reqs[i]["response_format"]; got != want {
			t.Errorf("request %d: response_format sent = %v, want %v", i, got, want)
		}
	}
	if !c.jsonModeDisabled() {
		t.Error("jsonModeDisabled = false after rejection")
	}
}

func TestCompleteOther400NotRetried(t *testing.T) {
	f := newFake(t, func(w http.ResponseWriter, _ *http.Request, _ map[string]any, _ int) {
		w.WriteHeader(http.StatusBadRequest)
		fmt.Fprint(w, `{"error":{"message":"context length exceeded"}}`)
	})
	c := f.client(t)
	_, err := c.Complete(context.Background(), llm.Request{Messages: []llm.Message{{Role: "user", Content: "x"}}, JSON: true})
	if err == nil || !strings.Contains(err.Error(), "400") {
		t.Fatalf("err = %v, want HTTP 400", err)
	}
	if n := len(f.requests()); n != 1 {
		t.Errorf("retried an unrelated 400: %d requests", n)
	}
	if c.jsonModeDisabled() {
		t.Error("JSON mode disabled by an unrelated 400")
	}
}

func TestCompleteHTTP500(t *testing.T) {
	for _, tc := range []struct{ name, ctype, body string }{
		{"openai error json", "application/json", `{"error":{"message":"model crashed","type":"server_error"}}`},
		{"plain text", "text/plain", "upstream exploded"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFake(t, func(w http.ResponseWriter, _ *http.Request, _ map[string]any, _ int) {
				w.Header().Set("Content-Type", tc.ctype)
				w.WriteHeader(http.StatusInternalServerError)
				fmt.Fprint(w, tc.body)
			})
			c := f.client(t)
			_, err := c.Complete(context.Background(), llm.Request{Messages: []llm.Message{{Role: "user", Content: "x"}}})
			if err == nil {
				t.Fatal("no error")
			}
			msg := err.Error()
			for _, want := range []string{"HTTP 500", "test-model", f.URL + "/v1", "chat completion"} {
				if !strings.Contains(msg, want) {
					t.Errorf("error %q does not mention %q", msg, want)
				}
			}
			var h *HTTPError
			if !errors.As(err, &h) || h.StatusCode != 500 {
				t.Errorf("error is not an *HTTPError with status 500: %v", err)
			}
			if n := len(f.requests()); n != 1 {
				t.Errorf("requests = %d, want 1 (no retries)", n)
			}
		})
	}
}

func TestCompleteTimeout(t *testing.T) {
	f := newFake(t, func(w http.ResponseWriter, r *http.Request, _ map[string]any, _ int) {
		select {
		case <-r.Context().Done():
		case <-time.After(10 * time.Second):
		}
	})
	c, err := NewChat(ChatConfig{BaseURL: f.URL + "/v1", Model: "slow-model", Timeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	_, err = c.Complete(context.Background(), llm.Request{Messages: []llm.Message{{Role: "user", Content: "x"}}})
	elapsed := time.Since(start)
	if err == nil {
		t.Fatal("no error from a slow server")
	}
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("err = %v, want deadline exceeded", err)
	}
	if elapsed > 3*time.Second {
		t.Errorf("took %v, want about 1s", elapsed)
	}
	if !strings.Contains(err.Error(), "slow-model") {
		t.Errorf("error does not name the model: %v", err)
	}
}

func TestCompleteCallerContext(t *testing.T) {
	f := newFake(t, func(w http.ResponseWriter, r *http.Request, _ map[string]any, _ int) {
		<-r.Context().Done()
	})
	c := f.client(t)
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	if _, err := c.Complete(ctx, llm.Request{Messages: []llm.Message{{Role: "user", Content: "x"}}}); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("err = %v, want the caller's deadline", err)
	}
}

func TestCompleteEmptyReplies(t *testing.T) {
	for _, tc := range []struct{ name, body string }{
		{"no choices", `{"id":"x","object":"chat.completion","choices":[]}`},
		{"empty content", `{"id":"x","object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":""},"finish_reason":"stop"}]}`},
		{"blank content", `{"id":"x","object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":"  \n "},"finish_reason":"length"}]}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFake(t, func(w http.ResponseWriter, _ *http.Request, _ map[string]any, _ int) {
				w.Header().Set("Content-Type", "application/json")
				fmt.Fprint(w, tc.body)
			})
			_, err := f.client(t).Complete(context.Background(), llm.Request{Messages: []llm.Message{{Role: "user", Content: "x"}}})
			if !errors.Is(err, ErrEmptyReply) {
				t.Fatalf("err = %v, want ErrEmptyReply", err)
			}
			if !strings.Contains(err.Error(), "test-model") {
				t.Errorf("error does not name the model: %v", err)
			}
		})
	}
}

func TestCompleteConcurrent(t *testing.T) {
	f := newFake(t, func(w http.ResponseWriter, _ *http.Request, body map[string]any, _ int) {
		if _, ok := body["response_format"]; ok {
			w.WriteHeader(http.StatusBadRequest)
			fmt.Fprint(w, `{"error":{"message":"json mode unsupported"}}`)
			return
		}
		completion(w, "[]")
	})
	c := f.client(t)
	var wg sync.WaitGroup
	errs := make(chan error, 16)
	for i := 0; i < 16; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := c.Complete(context.Background(), llm.Request{Messages: []llm.Message{{Role: "user", Content: "x"}}, JSON: true}); err != nil {
				errs <- err
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}
