package scan_test

import (
	"bufio"
	"encoding/json"
	"os"
	"testing"

	"github.com/odekmem/odekmem/internal/scan"
	"github.com/odekmem/odekmem/internal/testcreds"
)

// freshMaxLeaked and freshMaxChanged are the counts on
// testdata/credentials/fresh-dev.jsonl when the test was last tightened;
// a change that raises either fails.
const (
	freshMaxLeaked  = 1
	freshMaxChanged = 0
)

// TestFreshDevCredentials redacts the lines of the fresh development set
// (testdata/credentials/fresh-dev.jsonl, written before the detectors
// were read): a credential leaks when any 8-character piece of its
// secret survives, a look-alike (kind "none") fails when redaction
// changes it at all.
func TestFreshDevCredentials(t *testing.T) {
	f, err := os.Open("testdata/credentials/fresh-dev.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var creds, looks, leaked, changed int
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var c struct{ Text, Secret, Kind string }
		if err := json.Unmarshal(sc.Bytes(), &c); err != nil {
			t.Fatalf("fresh-dev.jsonl: %v", err)
		}
		red, fs := scan.Redact(c.Text)
		if c.Secret == "" {
			looks++
			if red != c.Text {
				changed++
				rules := make([]string, 0, len(fs))
				for _, f := range fs {
					rules = append(rules, f.Rule)
				}
				t.Logf("look-alike changed %v:\n  %q\n  %q", rules, c.Text, red)
			}
			continue
		}
		creds++
		if l := testcreds.Leaks(testcreds.Markers(red), c.Secret); l != "" {
			leaked++
			t.Logf("leak %s: %q survives: %.300q", c.Kind, l, red)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	t.Logf("%d credentials, %d leaked; %d look-alikes, %d changed", creds, leaked, looks, changed)
	if leaked > freshMaxLeaked {
		t.Errorf("%d credentials leaked, at most %d allowed", leaked, freshMaxLeaked)
	}
	if changed > freshMaxChanged {
		t.Errorf("%d look-alikes changed, at most %d allowed", changed, freshMaxChanged)
	}
}
