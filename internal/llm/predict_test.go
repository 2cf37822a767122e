package llm

import (
	"context"
	"net/http"
	"strings"
	"testing"
)

func TestPredictIntentsLLM(t *testing.T) {
	long := strings.Repeat("very ", 60) + "long question?"
	tests := []struct {
		name, reply string
		max         int
		want        []string
		wantErr     error
	}{
		{"strings", `["how do I migrate refresh tokens?","which tests should I update?","what replaces JWT?"]`, 3,
			[]string{"how do I migrate refresh tokens?", "which tests should I update?", "what replaces JWT?"}, nil},
		{"capped and deduped", `["  a?  ","A?","b?","c?","d?"]`, 2, []string{"a?", "b?"}, nil},
		{"fenced object wrapper", "```json\n{\"intents\":[\"x?\",\"\",\"- y?\"]}\n```", 3, []string{"x?", "y?"}, nil},
		{"objects", `[{"intent":"p?"},{"question":"q?"},{"other":"z"}]`, 3, []string{"p?", "q?"}, nil},
		{"prose", `Sure! ["one?"] Let me know.`, 3, []string{"one?"}, nil},
		{"malformed", `["a?", "b?",]`, 3, nil, ErrMalformedJSON},
		{"no json", `I think they will ask about tests.`, 3, nil, ErrNoJSON},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := newFake(t, replies(tc.reply))
			got, err := PredictIntents(context.Background(), f.client(t), "Refactor the auth package to remove JWT.",
				[]string{"earlier message"}, `{"technical":{"languages":["Go"]}}`, tc.max)
			if !wantErr(t, tc.wantErr, err, got, got == nil) {
				return
			}
			if strings.Join(got, "|") != strings.Join(tc.want, "|") {
				t.Errorf("got %q, want %q", got, tc.want)
			}
			msgs := messages(t, f.requests()[0])
			if !strings.Contains(msgs[0][1], "up to 3") && tc.max == 3 {
				t.Errorf("system prompt lacks the max: %q", msgs[0][1])
			}
			for _, want := range []string{"Refactor the auth package", "earlier message", `"languages"`} {
				if !strings.Contains(msgs[1][1], want) {
					t.Errorf("user message lacks %q", want)
				}
			}
		})
	}
	t.Run("clipped", func(t *testing.T) {
		f := newFake(t, replies(`["`+long+`"]`))
		got, err := PredictIntents(context.Background(), f.client(t), "x", nil, "", 3)
		if err != nil || len(got) != 1 || len([]rune(got[0])) > MaxIntentRunes {
			t.Errorf("got %q, %v", got, err)
		}
	})
	t.Run("http error", func(t *testing.T) {
		f := newFake(t, func(w http.ResponseWriter, _ *http.Request, _ map[string]any, _ int) {
			http.Error(w, "no", http.StatusInternalServerError)
		})
		if _, err := PredictIntents(context.Background(), f.client(t), "x", nil, "", 3); err == nil || !strings.Contains(err.Error(), "HTTP 500") {
			t.Errorf("err = %v", err)
		}
	})
	t.Run("max zero makes no call", func(t *testing.T) {
		c := ClientFunc(func(context.Context, Request) (string, error) { t.Error("called"); return "", nil })
		if got, err := PredictIntents(context.Background(), c, "x", nil, "", 0); got != nil || err != nil {
			t.Errorf("got %v, %v", got, err)
		}
	})
}

func TestPredictRules(t *testing.T) {
	tests := []struct {
		msg  string
		max  int
		want []string
	}{
		{"Refactor the auth package to remove JWT.", 3, []string{"which tests cover the auth package?", "how should the auth package be structured?", "what depends on JWT?"}},
		{"the build fails with a panic", 3, []string{"what caused this error before?", "how was this fixed last time?"}},
		{"Add rate limiting to the API gateway", 5, []string{"what conventions apply to rate limiting?", "how should rate limiting be tested?"}},
		{"We need to migrate the billing service", 2, []string{"what depends on the billing service?", "which tests cover the billing service?"}},
		{"let's deploy the release today", 3, []string{"what is the release process?"}},
		{"thanks!", 3, nil},
		{"Refactor it", 3, nil},
		{"Refactor the auth package", 0, nil},
	}
	for _, tc := range tests {
		got := PredictRules(tc.msg, tc.max)
		if strings.Join(got, "|") != strings.Join(tc.want, "|") {
			t.Errorf("PredictRules(%q, %d) = %q, want %q", tc.msg, tc.max, got, tc.want)
		}
	}
	got, err := PredictIntents(context.Background(), nil, "Refactor the auth package.", nil, "", 1)
	if err != nil || len(got) != 1 || got[0] != "which tests cover the auth package?" {
		t.Errorf("nil client: %q, %v", got, err)
	}
}
