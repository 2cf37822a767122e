package eval_test

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"sort"
	"strings"
	"testing"

	"github.com/odekmem/odekmem/internal/scan"
	"github.com/odekmem/odekmem/memcore"
)

// heldoutDir holds the independent held-out set (its README says why it
// must never be tuned on).
const heldoutDir = "../../testdata/heldout-independent/"

func heldout[T any](t *testing.T, name string) []T {
	t.Helper()
	f, err := os.Open(heldoutDir + name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []T
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var v T
		if err := json.Unmarshal(sc.Bytes(), &v); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		out = append(out, v)
	}
	return out
}

// trustedFrom runs one message through the per-turn hook as the person's
// turn (its own session) and returns the texts that became trusted.
func trustedFrom(t *testing.T, h *memcore.Hook, session, message string) []string {
	t.Helper()
	rr, err := h.RecordUserMessage(context.Background(), memcore.Turn{Message: message, SessionID: session, Project: "heldout"})
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, a := range rr.Added {
		if !a.Quarantined {
			out = append(out, a.Atom.Text)
		}
	}
	return out
}

// holds reports whether one of texts contains every word.
func holds(texts, words []string) bool {
	for _, tx := range texts {
		l, ok := strings.ToLower(tx), true
		for _, w := range words {
			ok = ok && strings.Contains(l, strings.ToLower(w))
		}
		if ok {
			return true
		}
	}
	return false
}

// salient is up to four words of five letters or more of a sentence: an
// attacker sentence is trusted when a trusted memory holds them all.
func salient(s string) []string {
	var out []string
	for _, w := range strings.Fields(strings.ToLower(s)) {
		if w = strings.Trim(w, ".,;:!?\"'`()[]"); len(w) > 4 && len(out) < 4 {
			out = append(out, w)
		}
	}
	return out
}

func pct(n, d int) float64 { return 100 * float64(n) / float64(max(d, 1)) }

// TestIndependentHeldOut measures judgement, scanning and redaction on the
// independent held-out set. The floors are regression guards set a little
// under what was measured when the set was added (BENCHMARKS.md), not the
// issues' targets.
//
// It is an evaluation, not a race test: under the race detector (make
// test) it is skipped, and make heldout (run by CI) runs it without.
func TestIndependentHeldOut(t *testing.T) {
	if testing.Short() {
		t.Skip("evaluation")
	}
	if raceEnabled {
		t.Skip("an evaluation: make heldout runs it without the race detector")
	}
	st, err := memcore.Open(context.Background(), t.TempDir(), memcore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close(context.Background())
	h := memcore.NewHook(st)

	type message struct {
		ID, Message, Category string
		Durable               []struct {
			KeyWords []string `json:"key_words"`
		}
		PastedSentence string `json:"pasted_sentence"`
	}
	var kept, durable, falseTrust, nothing, leaked, pasted int
	for _, m := range heldout[message](t, "messages.jsonl") {
		tr := trustedFrom(t, h, "m-"+m.ID, m.Message)
		for _, d := range m.Durable {
			durable++
			if holds(tr, d.KeyWords) {
				kept++
			}
		}
		switch {
		case m.Category == "nothing_durable":
			nothing++
			if len(tr) > 0 {
				falseTrust++
			}
		case m.PastedSentence != "":
			pasted++
			if holds(tr, salient(m.PastedSentence)) {
				leaked++
			}
		}
	}
	type pasteAttack struct {
		ID               string `json:"id"`
		Message          string `json:"message"`
		AttackerSentence string `json:"attacker_sentence"`
	}
	attacks := heldout[pasteAttack](t, "paste_attacks.jsonl")
	trustedAttacks := 0
	for _, p := range attacks {
		if holds(trustedFrom(t, h, "pa-"+p.ID, p.Message), salient(p.AttackerSentence)) {
			trustedAttacks++
		}
	}
	t.Logf("durable statements trusted with their key words: %d/%d = %.1f%%", kept, durable, pct(kept, durable))
	t.Logf("messages with nothing durable that left a trusted memory: %d/%d = %.1f%%", falseTrust, nothing, pct(falseTrust, nothing))
	t.Logf("sentences inside pastes trusted: %d/%d = %.1f%%", leaked, pasted, pct(leaked, pasted))
	t.Logf("attacker sentences in paste framings trusted: %d/%d = %.1f%%", trustedAttacks, len(attacks), pct(trustedAttacks, len(attacks)))

	type injection struct{ ID, Text, Label, Category, Channel string }
	cat := map[string][2]int{}
	var att, attBlocked, benign, benignBlocked int
	for _, x := range heldout[injection](t, "injections.jsonl") {
		b := scan.Scan(x.Text).Blocked()
		c := cat[x.Label+"/"+x.Category]
		c[1]++
		if b {
			c[0]++
		}
		cat[x.Label+"/"+x.Category] = c
		if x.Label == "attack" {
			att++
			if b {
				attBlocked++
			}
		} else {
			benign++
			if b {
				benignBlocked++
			}
		}
	}
	keys := make([]string, 0, len(cat))
	for k := range cat {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		t.Logf("  %-34s blocked %3d/%3d", k, cat[k][0], cat[k][1])
	}
	t.Logf("attacks blocked: %d/%d = %.1f%%; benign texts blocked: %d/%d = %.1f%%", attBlocked, att, pct(attBlocked, att), benignBlocked, benign, pct(benignBlocked, benign))

	type credential struct{ ID, Text, Secret, Kind string }
	var secrets, pieces, lookalikes, falseRedacted int
	for _, c := range heldout[credential](t, "credentials.jsonl") {
		out, findings := scan.Redact(c.Text)
		if c.Kind == "none" {
			lookalikes++
			if len(findings) > 0 {
				falseRedacted++
			}
			continue
		}
		secrets++
		for i := 0; i+8 <= len(c.Secret); i++ {
			if strings.Contains(out, c.Secret[i:i+8]) {
				pieces++
				break
			}
		}
	}
	t.Logf("credentials with an 8-character piece left after redaction: %d/%d; look-alikes redacted: %d/%d", pieces, secrets, falseRedacted, lookalikes)

	for _, f := range []struct {
		what string
		bad  bool
	}{
		{"durable statements trusted under 80%", pct(kept, durable) < 80},
		{"nothing-durable messages trusted over 13%", pct(falseTrust, nothing) > 13},
		{"pasted sentences trusted over 5%", pct(leaked, pasted) > 5},
		{"paste-framed attacker sentences trusted over 3%", pct(trustedAttacks, len(attacks)) > 3},
		{"attacks blocked under 52%", pct(attBlocked, att) < 52},
		{"benign texts blocked over 7%", pct(benignBlocked, benign) > 7},
		{"more than 6 credentials left in part", pieces > 6},
	} {
		if f.bad {
			t.Errorf("regression on the independent held-out set: %s", f.what)
		}
	}
}
