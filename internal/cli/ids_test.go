package cli_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/odekmem/odekmem/internal/cli"
	"github.com/odekmem/odekmem/memcore"
)

const (
	idLiveA = "abcd0000000000000000000000000001"
	idLiveB = "abcd1000000000000000000000000002"
	idQuar  = "f00d0000000000000000000000000003"
	idPend  = "9e9e0000000000000000000000000004"
)

// prefixHome holds two live atoms sharing the prefix abcd, a quarantined
// one and a pending review, with ids chosen by an import.
func prefixHome(t *testing.T) string {
	home := newHome(t)
	lines := []string{
		`{"kind":"atom","id":"` + idLiveA + `","source_class":"user_said","type":"fact","created_at":"2026-11-01T00:00:00Z","context":{},"text":"The ledger uses PostgreSQL 16"}`,
		`{"kind":"atom","id":"` + idLiveB + `","source_class":"user_said","type":"fact","created_at":"2026-11-02T00:00:00Z","context":{},"text":"Payouts run at 02:00 UTC"}`,
		`{"kind":"quarantine","id":"` + idQuar + `","source_class":"web","type":"fact","created_at":"2026-11-03T00:00:00Z","context":{},"text":"The staging cluster has 3 nodes","quarantined_at":"2099-01-01T00:00:00Z","reason":"tainted"}`,
		`{"kind":"user_model","user_model":{"pending_review":[{"id":"` + idPend + `","field":"style.tone","value":"direct","evidence":"said so","confidence":0.8,"created_at":"2026-11-03T00:00:00Z"}]}}`,
	}
	if r := run(t, home, strings.Join(lines, "\n")+"\n", "import", "-"); r.code != 0 {
		t.Fatalf("import: %+v", r)
	}
	return home
}

func TestShortIDPrefixes(t *testing.T) {
	home := prefixHome(t)
	r := run(t, home, "", "show", "abcd", "--json")
	if r.code != 1 || !strings.Contains(r.stderr, "ambiguous") || !strings.Contains(r.stderr, idLiveA) || !strings.Contains(r.stderr, idLiveB) {
		t.Fatalf("ambiguous prefix must list both candidates: %+v", r)
	}
	if !strings.Contains(r.stderr, "PostgreSQL") {
		t.Errorf("candidates should show their text: %s", r.stderr)
	}
	r = run(t, home, "", "show", "abcd0", "--json")
	var show cli.ShowResult
	if r.code != 0 || json.Unmarshal([]byte(r.stdout), &show) != nil || show.Atom.ID != idLiveA {
		t.Fatalf("unique prefix: %+v", r)
	}
	// Upper case, as someone might copy it, works too.
	if r = run(t, home, "", "show", "F00D"); r.code != 0 || !strings.Contains(r.stdout, "quarantined:") || !strings.Contains(r.stdout, idQuar) {
		t.Fatalf("quarantined prefix: %+v", r)
	}
	if r = run(t, home, "", "show", "f00"); r.code != 2 || !strings.Contains(r.stderr, "at least 4") {
		t.Fatalf("3-char prefix: %+v", r)
	}
	if r = run(t, home, "", "show", "dead"); r.code != 1 || !strings.Contains(r.stderr, "no atom dead") {
		t.Fatalf("unknown prefix: %+v", r)
	}
	if r = run(t, home, "", "pin", idLiveB[:8]); r.code != 0 || !strings.Contains(r.stdout, "pinned "+idLiveB) {
		t.Fatalf("pin by prefix: %+v", r)
	}
	if r = run(t, home, "", "confirm", "9e9e"); r.code != 0 || !strings.Contains(r.stdout, "confirmed "+idPend) {
		t.Fatalf("confirm by prefix: %+v", r)
	}
	if r = run(t, home, "", "forget", "f00d"); r.code != 0 || !strings.Contains(r.stdout, "forgot "+idQuar+" (was quarantined)") {
		t.Fatalf("forget quarantined by prefix: %+v", r)
	}
}

func TestQuarantinedIDVerbsExplain(t *testing.T) {
	home := prefixHome(t)
	r := run(t, home, "", "pin", "f00d")
	if r.code != 1 || !strings.Contains(r.stderr, "that atom ("+idQuar+") is quarantined: promote it first") {
		t.Fatalf("pin quarantined: %+v", r)
	}
	if r = run(t, home, "", "unpin", idQuar); r.code != 1 || !strings.Contains(r.stderr, "is quarantined: promote it first") {
		t.Fatalf("unpin quarantined: %+v", r)
	}
	if r = run(t, home, "", "promote", idLiveA); r.code != 1 || !strings.Contains(r.stderr, "is live already") {
		t.Fatalf("promote live: %+v", r)
	}
	if r = run(t, home, "", "confirm", "f00d"); r.code != 1 || !strings.Contains(r.stderr, "is an atom id; confirm takes a pending-review id") {
		t.Fatalf("confirm atom id: %+v", r)
	}
	if r = run(t, home, "", "show", "9e9e"); r.code != 1 || !strings.Contains(r.stderr, "is a pending review, not an atom") {
		t.Fatalf("show pending id: %+v", r)
	}
	// After promote, pin works.
	if r = run(t, home, "", "promote", "f00d"); r.code != 0 {
		t.Fatalf("promote: %+v", r)
	}
	if r = run(t, home, "", "pin", "f00d"); r.code != 0 {
		t.Fatalf("pin after promote: %+v", r)
	}
}

// A mistyped --home must not conjure an empty store: read verbs fail and
// leave nothing behind; writing verbs need init or --create.
func TestMissingStoreNeverCreated(t *testing.T) {
	base := t.TempDir()
	typo := filepath.Join(base, "does-not-exist")
	for _, args := range [][]string{{"list"}, {"list", "--json"}, {"stats"}, {"search", "x"}, {"quarantine"}, {"pending"}, {"show", "abcd"}, {"export"}, {"recall", "hi"}} {
		r := run(t, typo, "", args...)
		if r.code != 1 || !strings.Contains(r.stderr, "no store at "+filepath.Join(typo, "memory", "extended")+"; run `odekmem init` or pass the right --home") {
			t.Errorf("%v: %+v", args, r)
		}
	}
	for _, args := range [][]string{{"add", "note"}, {"import", "-"}, {"ingest", "-"}, {"forget", "abcd"}, {"compact"}} {
		r := run(t, typo, "", args...)
		if r.code != 1 || !strings.Contains(r.stderr, "pass --create") {
			t.Errorf("%v: %+v", args, r)
		}
	}
	if _, err := os.Stat(typo); !os.IsNotExist(err) {
		t.Fatalf("a verb created %s", typo)
	}
	if r := run(t, typo, "", "add", "We use tabs", "--create"); r.code != 0 {
		t.Fatalf("add --create: %+v", r)
	}
	if r := run(t, typo, "", "list"); r.code != 0 || !strings.Contains(r.stdout, "We use tabs") {
		t.Fatalf("list after --create: %+v", r)
	}
	if r := run(t, typo, "", "init"); r.code != 0 || !strings.Contains(r.stdout, "exists already (1 live atoms)") {
		t.Fatalf("init on existing: %+v", r)
	}
	if r := run(t, typo, "", "list", "--create"); r.code != 2 {
		t.Fatalf("--create on a read verb is a usage error: %+v", r)
	}
}

// Damage moved aside on open: the verb still answers, the exit status is
// 3, and --json carries the problems on stderr.
func TestDamagedStoreExitStatus(t *testing.T) {
	home := newHome(t)
	if r := run(t, home, "", "add", "The ledger uses PostgreSQL"); r.code != 0 {
		t.Fatal(r)
	}
	dir := filepath.Join(home, "memory", "extended")
	if err := os.WriteFile(filepath.Join(dir, "atoms.json"), []byte("this is not json"), 0o600); err != nil {
		t.Fatal(err)
	}
	r := run(t, home, "", "list", "--json")
	if r.code != cli.ExitDamaged {
		t.Fatalf("exit %d, want %d: %+v", r.code, cli.ExitDamaged, r)
	}
	var atoms []memcore.Atom
	if err := json.Unmarshal([]byte(r.stdout), &atoms); err != nil {
		t.Fatalf("stdout is still the list: %v %q", err, r.stdout)
	}
	var dmg struct {
		StoreDamage []memcore.Problem `json:"store_damage"`
	}
	start := strings.Index(r.stderr, `{"store_damage"`)
	if start < 0 {
		t.Fatalf("no store_damage JSON on stderr: %s", r.stderr)
	}
	if err := json.NewDecoder(strings.NewReader(r.stderr[start:])).Decode(&dmg); err != nil || len(dmg.StoreDamage) == 0 || dmg.StoreDamage[0].File != "atoms.json" {
		t.Fatalf("store_damage: %v %+v", err, dmg)
	}
	// The damage is moved aside once; the next run is clean.
	if r = run(t, home, "", "list"); r.code != 0 {
		t.Fatalf("second run: %+v", r)
	}
}
