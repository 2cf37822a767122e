package llm

import "testing"

func TestResolveAnaphora(t *testing.T) {
	pg := []Referent{{Text: "User decided to use PostgreSQL over MySQL", Type: "decision", Score: 0.8}}
	auth := []Referent{
		{Text: "User prefers tabs", Type: "preference", Score: 0.3},
		{Text: "The auth package uses JWT", Type: "fact", Score: 0.9},
	}
	tdt := []Referent{{Text: "Prefers table-driven tests", Type: "preference", Score: 0.7}}
	file := []Referent{{Text: "User referenced ./internal/auth/jwt.go", Type: "file", Score: 0.7}}
	tests := []struct {
		name string
		msg  string
		refs []Referent
		want string // "" = unchanged
	}{
		// referential: object of a verb or preposition
		{"refactor it", "refactor it", auth, "refactor the auth package"},
		{"test that", "Can you test that?", auth, "Can you test the auth package?"},
		{"move it", "Move it to the internal package.", auth, "Move the auth package to the internal package."},
		{"tests for it", "add tests for it please", auth, "add tests for the auth package please"},
		{"this so", "refactor this so it's cleaner", auth, "refactor the auth package so it's cleaner"},
		{"migrate those", "migrate those to v2", auth, "migrate the auth package to v2"},
		{"use it", "should we use it for the billing service?", pg, "should we use PostgreSQL for the billing service?"},
		{"about that", "what about that?", pg, "what about PostgreSQL?"},
		{"rename them", "rename them", tdt, "rename table-driven tests"},
		{"open file", "open it and fix the import", file, "open ./internal/auth/jwt.go and fix the import"},
		// referential: subject of an action verb
		{"does it support", "Does it support JSONB?", pg, "Does PostgreSQL support JSONB?"},
		{"it fails", "It fails on CI.", auth, "The auth package fails on CI."},
		{"that breaks", "That breaks the build every time.", auth, "The auth package breaks the build every time."},
		{"can that handle", "can that handle 10k writes a second?", pg, "can PostgreSQL handle 10k writes a second?"},
		{"doesn't compile", "it doesn't compile anymore", auth, "the auth package doesn't compile anymore"},
		{"clause subject", "ok, and it leaks memory", auth, "ok, and the auth package leaks memory"},
		{"capital path start", "It breaks on Windows.", file, "./internal/auth/jwt.go breaks on Windows."},
		// dummy / expletive / determiner: unchanged
		{"it works", "It works.", auth, ""},
		{"raining", "it is raining", auth, ""},
		{"seems", "it seems slow today", auth, ""},
		{"it's fine", "it's fine", auth, ""},
		{"that's it", "that's it", auth, ""},
		{"is it ok", "is it ok to merge?", auth, ""},
		{"depends", "it depends on the load", auth, ""},
		{"this is great", "this is great", auth, ""},
		{"determiner", "fix that function", auth, ""},
		{"complementizer", "test that the parser works", auth, ""},
		{"does it work", "does it work now?", auth, ""},
		{"first pronoun only", "It works, now refactor it", auth, ""},
		{"no pronoun", "refactor the scheduler", auth, ""},
		{"pronoun inside word", "iterate over items", auth, ""},
		// gate
		{"below gate", "refactor it", []Referent{{Text: "The auth package uses JWT", Score: 0.5}}, ""},
		{"no referents", "refactor it", nil, ""},
		{"no noun phrase", "refactor it", []Referent{{Text: "User convention: always add tests", Score: 0.9}}, ""},
	}
	if len(tests) < 20 {
		t.Fatal("need at least 20 cases")
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := ResolveAnaphora(tc.msg, tc.refs, 0.55)
			want := tc.want
			if want == "" {
				want = tc.msg
			}
			if got != want || ok != (tc.want != "") {
				t.Errorf("ResolveAnaphora(%q) = %q, %v; want %q, %v", tc.msg, got, ok, want, tc.want != "")
			}
		})
	}
}

func TestNounPhrase(t *testing.T) {
	for in, want := range map[string]string{
		"User decided to use PostgreSQL over MySQL":                 "PostgreSQL",
		"The auth package uses JWT":                                 "the auth package",
		"Prefers table-driven tests":                                "table-driven tests",
		"User prefers tabs over spaces":                             "tabs",
		"User referenced ./internal/auth/jwt.go":                    "./internal/auth/jwt.go",
		"We use Zap for logging":                                    "Zap",
		"User decided to migrate the billing service to Kubernetes": "the billing service",
		"PostgreSQL is our main database":                           "PostgreSQL",
		"User chose gRPC over REST":                                 "gRPC",
		"User convention: always add tests":                         "",
		"Tabs":                                                      "",
		"":                                                          "",
		"User prefers a very long list of many different small things": "",
	} {
		if got := NounPhrase(in); got != want {
			t.Errorf("NounPhrase(%q) = %q, want %q", in, got, want)
		}
	}
}
