package llm

import (
	"context"
	"errors"
	"strings"
	"testing"
)

func TestResumeRules(t *testing.T) {
	tests := []struct {
		name    string
		project string
		atoms   []string
		want    string
	}{
		{"decision and intent", "odek", []string{"User prefers tabs", "User decided to use PostgreSQL over MySQL", "User is going to add the migration for users"},
			"Where you left off: in odek, you decided to use PostgreSQL over MySQL. Next likely step: add the migration for users."},
		{"newest decision wins", "", []string{"User decided to use MySQL", "User chose PostgreSQL over MySQL", "User needs to write the schema"},
			"Where you left off: you chose PostgreSQL over MySQL. Next likely step: write the schema."},
		{"no decision", "api", []string{"User prefers table-driven tests", "User's goal is to ship v2 by March"},
			"Where you left off: in api, you prefer table-driven tests. Next likely step: ship v2 by March."},
		{"no step", "", []string{"User convention: always add tests"},
			"Where you left off: your convention: always add tests. Next likely step: continue from there."},
		{"empty", "odek", []string{" ", ""}, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := ResumeRules(tc.project, tc.atoms); got != tc.want {
				t.Errorf("got  %q\nwant %q", got, tc.want)
			}
		})
	}
}

// The fallback only uses words from the atoms and the project name.
func TestResumeRulesInventsNothing(t *testing.T) {
	atoms := []string{"User decided to use Redis for sessions", "User plans to benchmark the cache"}
	got := ResumeRules("shop", atoms)
	allowed := strings.ToLower(strings.Join(atoms, " ") + " shop where you left off in your next likely step continue from there are")
	for _, w := range strings.Fields(strings.ToLower(got)) {
		w = strings.Trim(w, ".,:")
		if !strings.Contains(allowed, w) {
			t.Errorf("word %q not from the atoms: %q", w, got)
		}
	}
}

func TestResumeSummaryLLM(t *testing.T) {
	tests := []struct {
		name, reply, want string
	}{
		{"exact", "Where you left off: switching sessions to Redis. Next likely step: benchmark the cache.",
			"Where you left off: switching sessions to Redis. Next likely step: benchmark the cache."},
		{"preamble and newlines", "Sure! Here it is:\n\nWhere you left off: switching to Redis.\nNext likely step: benchmark.",
			"Where you left off: switching to Redis. Next likely step: benchmark."},
		{"missing prefix", "\"You were moving sessions to Redis.\"", "Where you left off: You were moving sessions to Redis."},
		{"think block", "<think>hmm</think>Where you left off: x. Next likely step: y.", "Where you left off: x. Next likely step: y."},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := newFake(t, replies(tc.reply))
			got, err := ResumeSummary(context.Background(), f.client(t), "shop", []string{"User decided to use Redis for sessions"})
			if err != nil {
				t.Fatal(err)
			}
			if got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
			user := messages(t, f.requests()[0])[1][1]
			if !strings.Contains(user, "Project: shop") || !strings.Contains(user, "- User decided to use Redis for sessions") {
				t.Errorf("prompt:\n%s", user)
			}
		})
	}
	t.Run("empty reply", func(t *testing.T) {
		empty := ClientFunc(func(context.Context, Request) (string, error) { return "", nil })
		if _, err := ResumeSummary(context.Background(), empty, "shop", []string{"a"}); !errors.Is(err, ErrEmptyReply) {
			t.Errorf("err = %v", err)
		}
	})
	t.Run("nil client", func(t *testing.T) {
		got, err := ResumeSummary(context.Background(), nil, "shop", []string{"User plans to benchmark the cache"})
		if err != nil || !strings.HasPrefix(got, "Where you left off: in shop, ") {
			t.Errorf("got %q, %v", got, err)
		}
	})
	t.Run("no atoms no call", func(t *testing.T) {
		c := ClientFunc(func(context.Context, Request) (string, error) { t.Error("called"); return "", nil })
		if got, err := ResumeSummary(context.Background(), c, "shop", nil); got != "" || err != nil {
			t.Errorf("got %q, %v", got, err)
		}
	})
}
