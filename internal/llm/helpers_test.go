package llm

import (
	"errors"
	"testing"
	"time"

	"github.com/odekmem/odekmem/internal/chattest"
	"github.com/odekmem/odekmem/memcore/openai"
)

// fakeServer is the scripted OpenAI-compatible endpoint of
// internal/chattest, with the openai client the memory tasks use.
type fakeServer struct{ *chattest.Server }

type handlerFunc = chattest.Handler

func newFake(t *testing.T, h handlerFunc) *fakeServer { return &fakeServer{chattest.New(t, h)} }

func (f *fakeServer) requests() []map[string]any { return f.Requests() }

func (f *fakeServer) client(t *testing.T) Client {
	t.Helper()
	c, err := openai.NewChat(openai.ChatConfig{BaseURL: f.URL + "/v1", Model: "test-model", MaxTokens: 321, Temperature: 0.2, Timeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

var (
	completion = chattest.Completion
	replies    = chattest.Replies
	messages   = func(t *testing.T, body map[string]any) [][2]string { t.Helper(); return chattest.Messages(t, body) }
)

// wantErr checks a table case's error. With want set, err must wrap it and
// no result may come with it (isNil reports whether got is nil); without,
// err must be nil. It reports whether the case goes on to check got.
func wantErr(t *testing.T, want, err error, got any, isNil bool) bool {
	t.Helper()
	if want == nil {
		if err != nil {
			t.Fatal(err)
		}
		return true
	}
	if !errors.Is(err, want) || !isNil {
		t.Fatalf("got %v, %v; want nil, %v", got, err, want)
	}
	return false
}
