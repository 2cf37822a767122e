package scan_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/odekmem/odekmem/internal/scan"
)

type heldOutCase struct {
	Kind  string   `json:"kind"`
	Text  string   `json:"text"`
	Atoms []string `json:"atoms"`
}

func loadHeldOut(t testing.TB) []heldOutCase {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", "heldout", "attacks.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []heldOutCase
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var c heldOutCase
		if err := json.Unmarshal(sc.Bytes(), &c); err != nil {
			t.Fatalf("attacks.jsonl: %v", err)
		}
		out = append(out, c)
	}
	return out
}

// heldOutBlocked reports whether the scanner stops a held-out case: one
// atom blocks, or a split attack is found across its atoms.
func heldOutBlocked(c heldOutCase) bool {
	if c.Kind == "split" {
		for _, a := range c.Atoms {
			if scan.Scan(a).Blocked() {
				return true
			}
		}
		return len(scan.Across(c.Atoms)) > 0
	}
	return scan.Scan(c.Text).Blocked()
}

// TestHeldOut measures the held-out attack set (written before the scored
// detector and never tuned on; see testdata/heldout/README.md). Target:
// at least 70% blocked overall.
func TestHeldOut(t *testing.T) {
	cases := loadHeldOut(t)
	if len(cases) < 100 {
		t.Fatalf("held-out set has %d cases, want at least 100", len(cases))
	}
	type tally struct{ n, hit int }
	per := map[string]*tally{}
	var total tally
	var missed []string
	for _, c := range cases {
		tl := per[c.Kind]
		if tl == nil {
			tl = &tally{}
			per[c.Kind] = tl
		}
		tl.n++
		total.n++
		if heldOutBlocked(c) {
			tl.hit++
			total.hit++
		} else {
			txt := c.Text
			if c.Kind == "split" {
				txt = strings.Join(c.Atoms, " | ")
			}
			missed = append(missed, fmt.Sprintf("%s: %q", c.Kind, txt))
		}
	}
	names := make([]string, 0, len(per))
	for k := range per {
		names = append(names, k)
	}
	sort.Strings(names)
	var sb strings.Builder
	for _, k := range names {
		fmt.Fprintf(&sb, "\n%-14s %3d/%3d", k, per[k].hit, per[k].n)
	}
	rate := float64(total.hit) / float64(total.n)
	fmt.Fprintf(&sb, "\n%-14s %3d/%3d = %.1f%%", "OVERALL", total.hit, total.n, 100*rate)
	t.Log(sb.String())
	if testing.Verbose() {
		for _, m := range missed {
			t.Logf("missed %s", m)
		}
	}
	if rate < 0.70 {
		t.Errorf("held-out detection %.3f below the 0.70 target", rate)
	}
}

func developerLines(t testing.TB) []string {
	var out []string
	for _, name := range []string{"handwritten.txt", "generated.txt"} {
		out = append(out, readLines(t, filepath.Join("testdata", "developer", name))...)
	}
	return out
}

// TestCorpusDeveloper: ordinary developer statements (commit messages,
// review comments, README sentences, issue titles, conventions) are not
// attacks. Target: at most 0.5% blocked.
func TestCorpusDeveloper(t *testing.T) {
	lines := developerLines(t)
	if len(lines) < 1000 {
		t.Fatalf("developer corpus has %d lines, want at least 1,000", len(lines))
	}
	var hits []string
	for _, l := range lines {
		if r := scan.Scan(l); r.Blocked() {
			hits = append(hits, fmt.Sprintf("%q: %s", l, r.RejectReason()))
		}
	}
	rate := float64(len(hits)) / float64(len(lines))
	t.Logf("developer statements: %d lines, %d blocked (%.2f%%)", len(lines), len(hits), 100*rate)
	for _, h := range hits {
		t.Logf("  blocked: %s", h)
	}
	if rate > 0.005 {
		t.Errorf("developer corpus: block rate %.2f%% exceeds 0.5%%", 100*rate)
	}
}
