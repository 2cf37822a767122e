package cli_test

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestContradictionsAndResolve: adding a memory that replaces an older one
// says so, the pair is listed, and resolving it takes effect and empties
// the list; bad resolutions and ids are usage errors or named.
func TestContradictionsAndResolve(t *testing.T) {
	home := t.TempDir()
	if r := run(t, home, "", "init"); r.code != 0 {
		t.Fatalf("init: %+v", r)
	}
	if r := run(t, home, "", "add", "Decided to use PostgreSQL for billing", "--type", "decision"); r.code != 0 {
		t.Fatalf("add: %+v", r)
	}
	r := run(t, home, "", "add", "Decided to use MySQL for billing", "--type", "decision")
	if r.code != 0 || !strings.Contains(r.stderr, "supersedes") {
		t.Fatalf("second add: %+v", r)
	}
	r = run(t, home, "", "contradictions", "--json")
	var list []struct {
		ID, Old, New, Resolution string
		OldText                  string `json:"old_text"`
		NewText                  string `json:"new_text"`
	}
	if r.code != 0 || json.Unmarshal([]byte(r.stdout), &list) != nil || len(list) != 1 ||
		!strings.Contains(list[0].OldText, "PostgreSQL") || !strings.Contains(list[0].NewText, "MySQL") {
		t.Fatalf("contradictions: %+v %+v", r, list)
	}
	if r := run(t, home, "", "resolve", list[0].ID[:6], "keep-everything"); r.code != 2 {
		t.Fatalf("bad resolution: %+v", r)
	}
	if r := run(t, home, "", "resolve", "ffffffff", "keep-old"); r.code != 1 || !strings.Contains(r.stderr, "no contradiction") {
		t.Fatalf("unknown id: %+v", r)
	}
	if r := run(t, home, "", "resolve", list[0].ID[:6], "keep-old"); r.code != 0 || !strings.Contains(r.stdout, "keep-old") {
		t.Fatalf("resolve: %+v", r)
	}
	if r := run(t, home, "", "contradictions"); r.code != 0 || strings.Contains(r.stdout, "MySQL") {
		t.Fatalf("still pending: %+v", r)
	}
	r = run(t, home, "", "search", "decided to use for billing", "--json")
	var res []struct {
		Atom struct{ Text string } `json:"atom"`
	}
	json.Unmarshal([]byte(r.stdout), &res)
	if len(res) == 0 || !strings.Contains(res[0].Atom.Text, "PostgreSQL") {
		t.Fatalf("keep-old: the kept decision is not first: %+v", res)
	}
}
