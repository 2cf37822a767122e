package main

// What waits for the person in the demo store besides the quarantine and
// the pending reviews: contradictions (a newer decision that superseded an
// older one) and the lane (sentences from the person's own messages the
// judgement was not sure about). Both are odekmem's own files, written with
// memcore's own types so they read back exactly as memcore reads them.

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/odekmem/odekmem/memcore"
)

// superseded names each contradiction of the demo by the start of both
// atoms' texts, with the subject memcore's offline rule reports for the
// pair (TestContradictionsAreWhatMemcoreFinds checks that the rule finds
// exactly these).
var superseded = []struct{ old, new, subject string }{
	{"Decided to keep the cart in a small zustand store", "Decided to move the cart from zustand to TanStack Query", "zustand"},
	{"Decided to rate limit in-process with golang.org/x/time/rate", "Decided to move rate limiting from golang.org/x/time/rate", "golang.org/x/time/rate"},
}

// supersedePair is one contradiction: newer replaces older.
type supersedePair struct {
	older, newer *liveAtom
	subject      string
}

// findSuperseded resolves the superseded table against the parsed atoms.
func findSuperseded(atoms []*liveAtom) ([]supersedePair, error) {
	find := func(prefix string) (*liveAtom, error) {
		var hit *liveAtom
		for _, a := range atoms {
			if strings.HasPrefix(a.Text, prefix) {
				if hit != nil {
					return nil, fmt.Errorf("superseded: %q names more than one atom", prefix)
				}
				hit = a
			}
		}
		if hit == nil {
			return nil, fmt.Errorf("superseded: %q names no atom", prefix)
		}
		return hit, nil
	}
	var out []supersedePair
	for _, s := range superseded {
		o, err := find(s.old)
		if err != nil {
			return nil, err
		}
		n, err := find(s.new)
		if err != nil {
			return nil, err
		}
		if o.Type != n.Type || !mustTime(o.CreatedAt).Before(mustTime(n.CreatedAt)) {
			return nil, fmt.Errorf("superseded: %q must be an older atom of the type of %q", s.old, s.new)
		}
		out = append(out, supersedePair{older: o, newer: n, subject: s.subject})
	}
	return out, nil
}

// contradictionsFile is the shape of contradictions.json (memcore's is
// unexported).
type contradictionsFile struct {
	Version        string                  `json:"version"`
	Contradictions []memcore.Contradiction `json:"contradictions"`
}

// contradictions records each pair the way memcore's offline rule does
// when the newer atom is stored: found a few seconds after it, unresolved.
func (g *gen) contradictions(pairs []supersedePair) contradictionsFile {
	f := contradictionsFile{Version: "1", Contradictions: []memcore.Contradiction{}}
	for _, p := range pairs {
		at := mustTime(p.newer.CreatedAt).Truncate(time.Second).Add(time.Duration(1+g.rng.IntN(5)) * time.Second)
		f.Contradictions = append(f.Contradictions, memcore.Contradiction{ID: g.id(), Old: p.older.ID, New: p.newer.ID,
			Subject: p.subject, Method: "rule", CreatedAt: mustTime(g.ts(at))})
	}
	return f
}

// lane is what per-turn extraction left for the person: one example of
// each reason the judgement holds a sentence back. Text is the person's
// words verbatim, except for the memory LLM's memory (then Quote is what
// it claimed to rest on, which is not in the message).
func (g *gen) lane() []memcore.LaneEntry {
	type l struct {
		session, project string
		turn             int
		age              time.Duration // created_at = now - age
		typ, text, quote string
		why, message     string
	}
	h := time.Hour
	entries := []l{
		{"s-2026-11-27-a", "~/src/payments-api", 5, 49*h + 25*time.Minute, "preference",
			"I'd rather the reports package never queried the ledger tables directly", "",
			"may be a one-off remark (score 0.56)",
			"ok, the replica query works. I'd rather the reports package never queried the ledger tables directly, but fine for now"},
		{"s-2026-11-28-a", "~/src/payments-api", 3, 26*h + 10*time.Minute, "convention",
			"Run the unit tests only and skip the integration tag", "",
			"a command that may be meant for this task only",
			"Run the unit tests only and skip the integration tag. The testcontainers image pull takes forever on this hotel wifi."},
		{"s-2026-11-28-a", "~/src/payments-api", 6, 25*h + 55*time.Minute, "convention",
			"we don't enforce wrapcheck in this repo", "",
			"right under a paste, may be its last line",
			"golangci-lint output:\n" +
				"internal/reports/payouts.go:57:9: error returned from external package is unwrapped: sig: func (github.com/jackc/pgx/v5.Row).Scan(dest ...any) error (wrapcheck)\n" +
				"internal/reports/payouts.go:88:2: ineffectual assignment to err (ineffassign)\n" +
				"we don't enforce wrapcheck in this repo\n" +
				"just fix the ineffassign one"},
		{"s-2026-11-28-a", "~/src/payments-api", 9, 25*h + 40*time.Minute, "convention",
			"Payout CSV exports show amounts in major units with two decimals, never in minor units",
			"payout CSVs always show amounts with two decimals",
			"the memory LLM's quote does not verify: the quote is not in the person's message",
			"merchants keep asking why the CSV says 41250 when they were paid 412.50. can the payouts export show 412.50?"},
	}
	out := make([]memcore.LaneEntry, 0, len(entries))
	for _, e := range entries {
		out = append(out, memcore.LaneEntry{ID: g.id(), Text: e.text, Type: memcore.Type(e.typ), Quote: e.quote, Why: e.why, Message: e.message,
			Context:   memcore.AtomContext{SessionID: e.session, Turn: e.turn, Project: e.project},
			CreatedAt: mustTime(g.ts(g.now.Add(-e.age)))})
	}
	// Newest first, as memcore writes the lane.
	sort.SliceStable(out, func(i, j int) bool { return out[i].CreatedAt.After(out[j].CreatedAt) })
	return out
}

// mustTime parses a timestamp the generator wrote itself.
func mustTime(s string) time.Time {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		panic(err)
	}
	return t
}
