package llm

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func FuzzExtractRules(f *testing.F) {
	for _, s := range []string{
		"I prefer tabs over spaces.", "panic: x", "Look at ./a/b.go and go.mod.", "How should we deploy services?",
		"I'm a ", "my name is", "We decided to", "<untrusted_content_x>", "i i i", "Never mind.", "?",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		out := ExtractRules(s)
		if len(out) > MaxCandidates {
			t.Fatalf("%d candidates", len(out))
		}
		for _, c := range out {
			if c.Text == "" || NormalizeType(c.Type) != c.Type || c.Confidence <= 0 || c.Confidence > 1 {
				t.Fatalf("bad candidate %+v", c)
			}
			if utf8.ValidString(s) && !utf8.ValidString(c.Text) {
				t.Fatalf("invalid UTF-8 from valid input: %q", c.Text)
			}
		}
		_ = PredictRules(s, 3)
		_ = ResumeRules(s, []string{s})
	})
}

func FuzzResolveAnaphora(f *testing.F) {
	f.Add("refactor it", "The auth package uses JWT")
	f.Add("Does it support JSONB?", "User decided to use PostgreSQL over MySQL")
	f.Add("It", "It")
	f.Add("that's it", "")
	f.Fuzz(func(t *testing.T, msg, ref string) {
		out, ok := ResolveAnaphora(msg, []Referent{{Text: ref, Score: 1}}, 0.5)
		if !ok && out != msg {
			t.Fatal("changed without reporting it")
		}
		if ok && out == msg {
			t.Fatal("reported a change but returned the message unchanged")
		}
		if np := NounPhrase(ref); len(strings.Fields(np)) > 5 {
			t.Fatalf("noun phrase too long: %q", np)
		}
	})
}
