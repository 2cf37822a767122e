package scan

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/odekmem/odekmem/internal/scan/internal/corpus"
)

// needSeeds are assignments of each shape the rules with a need prefilter
// look for, and near misses.
var needSeeds = []string{
	"DB_PASSWORD=hunter2xyz", "api_key: abcdef123456", `"client_secret": "s3cr3tvalue"`, "export GITHUB_TOKEN:=ghx12345",
	"token => 'abcd1234efgh'", `secret_key, "zzyyxx9988"`, "PASSWORD ?= letmein42", "auth=xyz12345", "pw: secret99x",
	"my password is hunter2", "the keyboard token auth pass secret credentials", "tokens | keys || passwords",
}

// TestSecretRuleNeedIsNecessary: a rule with a need prefilter never
// matches a text that holds none of its need bytes — checked on the
// assignments above and on every line of the scanner's developer,
// memory and attack sets — so skipping the pattern there changes nothing.
func TestSecretRuleNeedIsNecessary(t *testing.T) {
	texts := append([]string(nil), needSeeds...)
	for _, p := range []string{
		filepath.Join("testdata", "developer", "generated.txt"),
		filepath.Join("testdata", "developer", "handwritten.txt"),
		filepath.Join("testdata", "corpora", "memory-dev.jsonl"),
		filepath.Join("testdata", "corpora", "agent-dev.jsonl"),
	} {
		lines, err := corpus.Lines(p)
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range lines {
			var r struct{ Text string }
			if strings.HasSuffix(p, ".jsonl") && json.Unmarshal([]byte(l), &r) == nil {
				l = r.Text
			}
			texts = append(texts, l)
		}
	}
	rules := 0
	for ri := range secretRules {
		rule := &secretRules[ri]
		if rule.need == "" {
			continue
		}
		rules++
		matched := 0
		for _, s := range texts {
			if !rule.re.MatchString(s) {
				continue
			}
			matched++
			if !strings.ContainsAny(s, rule.need) {
				t.Fatalf("rule %s (%d) matches %q, which holds none of %q", rule.kind, ri, s, rule.need)
			}
			// And with its need bytes gone it cannot match.
			if cut := strings.Map(func(r rune) rune {
				if strings.ContainsRune(rule.need, r) {
					return ' '
				}
				return r
			}, s); rule.re.MatchString(cut) {
				t.Fatalf("rule %s (%d) matches %q without any of %q", rule.kind, ri, cut, rule.need)
			}
		}
		if matched == 0 {
			t.Errorf("rule %s (%d) matched no text: the test checks nothing for it", rule.kind, ri)
		}
	}
	if rules < 3 {
		t.Fatalf("%d rules with a need prefilter, want 3", rules)
	}
}

// FuzzSecretRuleNeed: the same on any text.
func FuzzSecretRuleNeed(f *testing.F) {
	for _, s := range needSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for ri := range secretRules {
			rule := &secretRules[ri]
			if rule.need != "" && !strings.ContainsAny(s, rule.need) && rule.re.MatchString(s) {
				t.Fatalf("rule %s (%d) matches %q, which holds none of %q", rule.kind, ri, s, rule.need)
			}
		}
	})
}
