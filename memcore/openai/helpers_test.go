package openai

import (
	"testing"
	"time"

	"github.com/odekmem/odekmem/internal/chattest"
)

// fakeServer is the scripted OpenAI-compatible endpoint of
// internal/chattest, with this package's client.
type fakeServer struct{ *chattest.Server }

type handlerFunc = chattest.Handler

func newFake(t *testing.T, h handlerFunc) *fakeServer { return &fakeServer{chattest.New(t, h)} }

func (f *fakeServer) requests() []map[string]any { return f.Requests() }

func (f *fakeServer) client(t *testing.T) *chat {
	t.Helper()
	c, err := NewChat(ChatConfig{BaseURL: f.URL + "/v1", Model: "test-model", MaxTokens: 321, Temperature: 0.2, Timeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	return c.(*chat)
}

var (
	completion = chattest.Completion
	replies    = chattest.Replies
	messages   = func(t *testing.T, body map[string]any) [][2]string { t.Helper(); return chattest.Messages(t, body) }
)
