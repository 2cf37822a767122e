package llm

import (
	"context"
	"errors"
	"strings"
	"testing"
)

func TestRerank(t *testing.T) {
	cands := []RerankItem{{"a1", "User prefers tabs"}, {"b2", "Project uses PostgreSQL"}, {"c3", "Auth uses JWT"}, {"d4", "Tests are table-driven"}}
	tests := []struct {
		name, reply string
		want        string
		wantErr     error
	}{
		{"ids", `["c3","a1","d4","b2"]`, "c3 a1 d4 b2", nil},
		{"missing appended in order", `["d4"]`, "d4 a1 b2 c3", nil},
		{"unknown and duplicates", `["zz","c3","c3","b2","x"]`, "c3 b2 a1 d4", nil},
		{"zero-based indices", `[2,0]`, "c3 a1 b2 d4", nil},
		{"one-based indices", `[4,3,2,1]`, "d4 c3 b2 a1", nil},
		{"index strings", `["[2]","1"]`, "c3 b2 a1 d4", nil},
		{"objects", `{"results":[{"id":"b2"},{"index":3}]}`, "b2 d4 a1 c3", nil},
		{"fenced", "```json\n[\"b2\",\"a1\"]\n```", "b2 a1 c3 d4", nil},
		{"nothing usable", `["nope"]`, "a1 b2 c3 d4", nil},
		{"malformed", `["c3",`, "", ErrMalformedJSON},
		{"duplicate keys", `[{"id":"a1","ID":"b2"}]`, "", ErrDuplicateKey},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := newFake(t, replies(tc.reply))
			got, err := Rerank(context.Background(), f.client(t), "how do we store sessions?", cands)
			if !wantErr(t, tc.wantErr, err, got, got == nil) {
				return
			}
			if strings.Join(got, " ") != tc.want {
				t.Errorf("got %v, want %s", got, tc.want)
			}
			user := messages(t, f.requests()[0])[1][1]
			if !strings.Contains(user, "[2] id=c3: Auth uses JWT") || !strings.Contains(user, "how do we store sessions?") {
				t.Errorf("prompt:\n%s", user)
			}
		})
	}
}

func TestRerankEdges(t *testing.T) {
	if _, err := Rerank(context.Background(), nil, "q", []RerankItem{{"a", "x"}, {"b", "y"}}); !errors.Is(err, ErrNoLLM) {
		t.Errorf("nil client: %v", err)
	}
	called := false
	c := ClientFunc(func(context.Context, Request) (string, error) { called = true; return "[]", nil })
	if got, err := Rerank(context.Background(), c, "q", []RerankItem{{"a", "x"}}); err != nil || len(got) != 1 || called {
		t.Errorf("single candidate: %v %v called=%v", got, err, called)
	}
	if got, err := Rerank(context.Background(), c, "q", nil); err != nil || len(got) != 0 {
		t.Errorf("no candidates: %v %v", got, err)
	}
	bad := ClientFunc(func(context.Context, Request) (string, error) { return "", errors.New("down") })
	if _, err := Rerank(context.Background(), bad, "q", []RerankItem{{"a", "x"}, {"b", "y"}}); err == nil || !strings.Contains(err.Error(), "rerank") {
		t.Errorf("client error: %v", err)
	}
}
