package llm

import (
	"fmt"
	"strings"
	"testing"
)

func TestExtractRules(t *testing.T) {
	tests := []struct {
		name string
		msg  string
		want []string // "type|text"
	}{
		// preferences
		{"prefer", "I prefer tabs over spaces.", []string{"preference|User prefers tabs over spaces"}},
		{"hate", "I hate long explanations.", []string{"preference|User hates long explanations"}},
		{"dont like", "Honestly, I don't like ORMs in Go services.", []string{"preference|User dislikes ORMs in Go services"}},
		{"would rather", "I'd rather keep functions small.", []string{"preference|User would rather keep functions small"}},
		{"want you always", "I want you to always answer in bullet points.", []string{"preference|User wants the assistant to always answer in bullet points"}},
		{"please never answers", "Please never use emojis in your answers.", []string{"preference|User wants the assistant to never use emojis in the assistant's answers"}},
		{"pronouns swapped", "I prefer my errors wrapped with context.", []string{"preference|User prefers their errors wrapped with context"}},
		// conventions
		{"please always", "Please always add tests after refactoring auth code.", []string{"convention|User convention: always add tests after refactoring auth code"}},
		{"never rule", "Never commit directly to main.", []string{"convention|User convention: never commit directly to main"}},
		{"we always", "we always squash merge PRs", []string{"convention|User convention: always squash merge PRs"}},
		{"we use X for Y", "We use Zap for logging.", []string{"convention|User uses Zap for logging"}},
		{"our convention", "Our convention is to prefix branches with the ticket id.", []string{"convention|User convention: prefix branches with the ticket id"}},
		// decisions
		{"decided", "We decided to use PostgreSQL over MySQL.", []string{"decision|User decided to use PostgreSQL over MySQL"}},
		{"we'll use", "We'll use NATS for the event bus.", []string{"decision|User decided to use NATS for the event bus"}},
		{"let's go with", "Let's go with Redis for the cache.", []string{"decision|User decided to go with Redis for the cache"}},
		{"chose over", "we chose gRPC over REST for internal services", []string{"decision|User chose gRPC over REST for internal services"}},
		{"switching", "We're switching from Jenkins to GitHub Actions.", []string{"decision|User decided to switch from Jenkins to GitHub Actions"}},
		// goals
		{"my goal", "My goal is to ship the beta by March.", []string{"goal|User's goal is to ship the beta by March"}},
		{"eventually", "I want to eventually open-source the CLI.", []string{"goal|User wants to eventually open-source the CLI"}},
		{"aim", "We aim to keep p99 latency under 50ms.", []string{"goal|User aims to keep p99 latency under 50ms"}},
		// intents
		{"going to", "I'm going to rewrite the scheduler next week.", []string{"intent|User is going to rewrite the scheduler next week"}},
		{"need to", "I need to migrate the billing service to Kubernetes.", []string{"intent|User needs to migrate the billing service to Kubernetes"}},
		// facts
		{"role", "I'm a backend engineer at Acme.", []string{"fact|User is a backend engineer"}},
		{"our backend", "Our backend uses Go and Postgres.", []string{"fact|User's backend uses Go and Postgres"}},
		// questions
		{"durable question", "How should we handle database migrations in production?", []string{"question|User asked: how should we handle database migrations in production?"}},
		// errors
		{"panic", "panic: assignment to entry in nil map", []string{"error|User encountered panic: assignment to entry in nil map"}},
		{"error colon", "The deploy died with error: connection refused on port 5432", []string{"error|User encountered error: connection refused on port 5432"}},
		{"typed error", "TypeError: Cannot read properties of undefined (reading 'map')", []string{"error|User encountered TypeError: Cannot read properties of undefined (reading 'map')"}},
		{"keeps failing", "The CI build keeps failing with exit code 137.", []string{"error|User reported: the CI build keeps failing with exit code 137"}},
		// files
		{"paths", "Look at ./internal/auth/jwt.go and src/x.ts, also /etc/nginx/nginx.conf and go.mod.", []string{
			"file|User referenced ./internal/auth/jwt.go", "file|User referenced src/x.ts",
			"file|User referenced /etc/nginx/nginx.conf", "file|User referenced go.mod"}},
		{"path in backticks with line", "The bug is in `pkg/store/atoms.go:42`.", []string{"file|User referenced pkg/store/atoms.go"}},
		{"multi", "We decided to use sqlc. The schema lives in db/schema.sql.", []string{
			"decision|User decided to use sqlc", "file|User referenced db/schema.sql"}},
		// negatives
		{"command run", "Run the tests.", nil},
		{"command fix", "fix this", nil},
		{"request", "Can you refactor it?", nil},
		{"request please", "Please rename the handler.", nil},
		{"deictic like", "I like this.", nil},
		{"deictic need", "I need to fix this", nil},
		{"one-off request", "I want you to fix the login bug.", nil},
		{"never mind", "Never mind, that's fine.", nil},
		{"ephemeral question", "What does this do?", nil},
		{"short question", "Why?", nil},
		{"thanks", "Thanks, looks good!", nil},
		{"not paths", "Use and/or logic; throughput is 10 req/s; see https://example.com/docs/x.go and node.js.", nil},
		{"empty", "   ", nil},
	}
	if len(tests) < 30 {
		t.Fatalf("only %d cases", len(tests))
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var got []string
			for _, x := range ExtractRules(tc.msg) {
				got = append(got, x.Type+"|"+x.Text)
				if x.Confidence <= 0 || x.Confidence > 1 {
					t.Errorf("confidence %v out of range", x.Confidence)
				}
			}
			if strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
				t.Errorf("ExtractRules(%q)\n got  %q\n want %q", tc.msg, got, tc.want)
			}
		})
	}
}

func TestExtractRulesCapAndDedupe(t *testing.T) {
	var b strings.Builder
	for i := 0; i < 40; i++ {
		fmt.Fprintf(&b, "I prefer option %d. I prefer option %d. ", i, i)
	}
	got := ExtractRules(b.String())
	if len(got) != MaxCandidates {
		t.Fatalf("got %d candidates, want %d", len(got), MaxCandidates)
	}
	if got[0].Text == got[1].Text {
		t.Error("duplicates not removed")
	}
}

func ExampleExtractRules() {
	msg := "We decided to use PostgreSQL over MySQL. I prefer table-driven tests. " +
		"Run the linter. The bug is in ./internal/auth/jwt.go"
	for _, c := range ExtractRules(msg) {
		fmt.Printf("%s (%.2f): %s\n", c.Type, c.Confidence, c.Text)
	}
	// Output:
	// decision (0.85): User decided to use PostgreSQL over MySQL
	// preference (0.80): User prefers table-driven tests
	// file (0.70): User referenced ./internal/auth/jwt.go
}
