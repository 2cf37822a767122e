package scan_test

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/odekmem/odekmem/internal/scan"
	"github.com/odekmem/odekmem/internal/testcreds"
)

// TestShapesRedacted redacts every generated credential shape
// (internal/testcreds.Shapes: a credential for every rule of gitleaks'
// default config and the generic and structured shapes), as written,
// split by zero-width characters and in fullwidth forms, alone, inside
// prose and after a label that is itself a key ("pwd: pwd: x"), for
// several seeds, and asserts that no 8-character piece of any
// secret survives.
func TestShapesRedacted(t *testing.T) {
	total, leaked := 0, 0
	kinds := map[string]bool{}
	for _, seed := range []uint64{1, 2, 3} {
		for _, c := range testcreds.Shapes(seed) {
			kinds[c.Kind] = true
			for _, v := range testcreds.Variants(c) {
				for _, text := range []string{v.Text, "Notes from the deploy, keep these: " + v.Text + "\nthen restart the workers.", c.Label + ": " + v.Text + " ; "} {
					total++
					red, fs := scan.Redact(text)
					if l := testcreds.Leaks(testcreds.Markers(red), v.Secret); l != "" || len(fs) == 0 {
						leaked++
						if leaked < 400 {
							t.Errorf("%s/%s (seed %d): %q survives: %q -> %q", c.Kind, v.Name, seed, l, text, red)
						}
					}
				}
			}
		}
	}
	t.Logf("%d kinds, %d texts, %d leaked", len(kinds), total, leaked)
}

// TestShapesCoverGitleaks checks that the generator has a credential for
// every rule id of gitleaks' default config (testdata/credentials), but
// the ones with no text form.
func TestShapesCoverGitleaks(t *testing.T) {
	f, err := os.Open("testdata/credentials/gitleaks-rule-ids.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	have := map[string]bool{}
	for _, c := range testcreds.Shapes(1) {
		have[strings.TrimPrefix(strings.TrimPrefix(c.Kind, "shape:"), "gitleaks:")] = true
	}
	for _, id := range testcreds.GitleaksNotApplicable {
		have[id] = true
	}
	var missing []string
	n := 0
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if id := strings.TrimSpace(sc.Text()); id != "" {
			n++
			if !have[id] {
				missing = append(missing, id)
			}
		}
	}
	sort.Strings(missing)
	if len(missing) > 0 {
		t.Errorf("%d of %d gitleaks rules have no generated credential: %v", len(missing), n, missing)
	}
}

// TestLookAlikesIntact checks that texts resembling credentials (commit
// hashes, UUIDs, lockfile and go.sum hashes, placeholders, base64 of
// prose, words after "password") pass redaction unchanged.
func TestLookAlikesIntact(t *testing.T) {
	for _, seed := range []uint64{1, 2, 3} {
		for _, text := range testcreds.LookAlikes(seed) {
			if red, fs := scan.Redact(text); red != text {
				rules := make([]string, 0, len(fs))
				for _, f := range fs {
					rules = append(rules, f.Rule)
				}
				t.Errorf("look-alike changed (%v):\n  %q\n  %q", rules, text, red)
			}
		}
	}
}

// BenchmarkRedact300 is the cost of redacting a 300-character developer
// note that holds no credential, and one that holds two.
func BenchmarkRedact300(b *testing.B) {
	clean := "Refactored the ingest loop so the watcher debounces file events for 250ms; the integration test in e2e/ingest_test.go now waits on the done channel instead of sleeping. Follow-up: the heroku deploy job still pins go 1.22, bump it after the release branch is cut and rerun make bench on the CI box."
	secret := "Deploy notes: export DATABASE_URL=postgres://app:Zq8vL2mPx9Rt@db.internal:5432/app and the CI token ghp_" + strings.Repeat("aB3dE5gH7jK9", 3) + " expires Friday; rotate both after the audit, then rerun the migrations and the smoke tests on staging."
	for _, tc := range []struct{ name, text string }{{"clean", clean}, {"secrets", secret}} {
		b.Run(tc.name, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				scan.Redact(tc.text)
			}
		})
	}
}

// TestBenignCorporaKeepTheirText redacts every benign line of the
// committed corpora (commits, docs, chat, developer notes) and allows at
// most 1 in 5,000 to change: model ids, package paths, example keys in
// documentation and words after "password" must pass as written.
func TestBenignCorporaKeepTheirText(t *testing.T) {
	files, _ := filepath.Glob("testdata/corpora/*.jsonl")
	files = append(files, "testdata/developer/generated.txt", "testdata/developer/handwritten.txt")
	n, changed := 0, 0
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range strings.Split(string(b), "\n") {
			text := line
			if strings.HasSuffix(f, ".jsonl") {
				var r struct {
					Text  string
					Label int
				}
				if json.Unmarshal([]byte(line), &r) != nil || r.Label != 0 {
					continue
				}
				text = r.Text
			}
			if text == "" {
				continue
			}
			n++
			if red, fs := scan.Redact(text); len(fs) > 0 {
				changed++
				t.Logf("%s: %.160q", filepath.Base(f), red)
			}
		}
	}
	t.Logf("%d benign lines, %d changed by redaction", n, changed)
	if changed*5000 > n {
		t.Errorf("%d of %d benign lines changed by redaction", changed, n)
	}
}
