package cli_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/odekmem/odekmem/internal/cli"
)

// TestAddCreatesLinks: a person's add links the new atom like any other
// write when associations are enabled (issue 15 item 5).
func TestAddCreatesLinks(t *testing.T) {
	home := newHome(t)
	first := run(t, home, "", "add", "The ledger service stores amounts in integer cents", "--session", "s1", "--project", "ledger", "--type", "decision")
	second := run(t, home, "", "add", "The ledger service rounds amounts half to even", "--session", "s1", "--project", "ledger", "--type", "decision")
	if first.code != 0 || second.code != 0 {
		t.Fatalf("add: %+v %+v", first, second)
	}
	a, b := strings.TrimSpace(first.stdout), strings.TrimSpace(second.stdout)
	r := run(t, home, "", "show", b, "--json")
	var show cli.ShowResult
	if err := json.Unmarshal([]byte(r.stdout), &show); err != nil {
		t.Fatalf("show: %v %s", err, r.stdout)
	}
	linked := false
	for _, l := range show.Links {
		if l.ID == a {
			linked = true
		}
	}
	if !linked {
		t.Fatalf("the second add is not linked to the first: %+v", show.Links)
	}
}

// TestUnknownFileSurvivesCLIVerbsAndShowsInStats: odek's nudges.json is
// left byte for byte by every verb and counted as "other" in stats.
func TestUnknownFileSurvivesCLIVerbsAndShowsInStats(t *testing.T) {
	home := newHome(t)
	store := filepath.Join(home, "memory", "extended")
	nudges := filepath.Join(store, "nudges.json")
	content := []byte(strings.Repeat(`{"nudge": "run the migrations check"}`+"\n", 200))
	if err := os.WriteFile(nudges, content, 0o644); err != nil {
		t.Fatal(err)
	}
	os.Chmod(nudges, 0o644)
	add := run(t, home, "", "add", "Deploys go out on Tuesdays")
	id := strings.TrimSpace(add.stdout)
	exp := filepath.Join(t.TempDir(), "out.jsonl")
	for _, args := range [][]string{{"list"}, {"pin", id}, {"unpin", id}, {"export", exp}, {"compact"}, {"forget", id}, {"import", exp}} {
		if r := run(t, home, "", args...); r.code != 0 {
			t.Fatalf("%v: %+v", args, r)
		}
	}
	r := run(t, home, "", "stats")
	if r.code != 0 || !strings.Contains(r.stdout, "other") {
		t.Fatalf("stats does not show other: %s", r.stdout)
	}
	b, err := os.ReadFile(nudges)
	fi, _ := os.Stat(nudges)
	if err != nil || string(b) != string(content) || fi.Mode().Perm() != 0o644 {
		t.Fatalf("nudges.json touched: %v, mode %v", err, fi.Mode())
	}
}

// TestAttackExportToPreparedSymlink: `odekmem export PATH` where PATH is a
// link refuses and leaves the link's target alone (issue 10 item 13).
func TestAttackExportToPreparedSymlink(t *testing.T) {
	home := newHome(t)
	run(t, home, "", "add", "Our staging DB is shared with QA")
	d := t.TempDir()
	victim := filepath.Join(d, "authorized_keys")
	os.WriteFile(victim, []byte("ssh-ed25519 AAAA person\n"), 0o600)
	p := filepath.Join(d, "export.jsonl")
	os.Symlink(victim, p)
	r := run(t, home, "", "export", p)
	if r.code == 0 || !strings.Contains(r.stderr, "symbolic link") {
		t.Fatalf("export through a link: %+v", r)
	}
	if b, _ := os.ReadFile(victim); string(b) != "ssh-ed25519 AAAA person\n" {
		t.Fatalf("link target written: %q", b)
	}
}
