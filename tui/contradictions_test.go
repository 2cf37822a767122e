package tui

import (
	"context"
	"strings"
	"testing"

	"github.com/odekmem/odekmem/memcore"
)

// TestE2EContradictionsPane: a newer decision replaced an older one; the
// Contradictions pane (8) shows the pair, "n" keeps the newer one, the
// pair leaves the list, the store records keep-new, and recall still never
// ranks the superseded decision above its successor.
func TestE2EContradictionsPane(t *testing.T) {
	t.Parallel()
	st, _ := demoStoreWithout(t, "contradictions.json") // only this test's pair waits
	ctx := context.Background()
	add := func(text string) memcore.Atom {
		r, err := st.Add(ctx, memcore.AddRequest{Text: text, Type: memcore.TypeDecision, Source: memcore.SourceUserApproved})
		if err != nil || r.Quarantined {
			t.Fatalf("add %q: %v %+v", text, err, r)
		}
		return r.Atom
	}
	old := add("Decided to use Jenkins for CI builds")
	newer := add("Decided to use Buildkite for CI builds")
	cs, err := st.DetectContradictions(ctx, newer.ID)
	if err != nil || len(cs) != 1 || cs[0].Old != old.ID {
		t.Fatalf("premise: %+v %v", cs, err)
	}
	tm := startApp(t, st)
	waitOut(t, tm, "Atoms ·")
	send(tm, runes("8"))
	waitOut(t, tm, "Contradictions · 1 pair waiting", "Jenkins for CI builds", "Buildkite for CI builds", "keep new")
	send(tm, runes("n"))
	waitOut(t, tm, "No contradictions waiting")
	m := finish(t, tm)
	if m.Focus() != PaneContradictions {
		t.Errorf("focus %d", m.Focus())
	}
	all := must(st.Contradictions(ctx, true))
	if len(all) != 1 || all[0].Resolution != memcore.ResolveKeepNew || len(must(st.Contradictions(ctx, false))) != 0 {
		t.Fatalf("store after n: %+v", all)
	}
	if succ, ok := supersededBy(st, old.ID); !ok || succ != newer.ID {
		t.Fatalf("keep-new: the older decision is not superseded (%q %v)", succ, ok)
	}
}

// supersededBy is the atom that supersedes id by the recorded
// contradictions (an undecided one and keep-new supersede the older atom,
// keep-old the newer), and whether there is one.
func supersededBy(st *memcore.Store, id string) (string, bool) {
	for _, c := range must(st.Contradictions(context.Background(), true)) {
		switch {
		case (c.Resolution == "" || c.Resolution == memcore.ResolveKeepNew) && c.Old == id:
			return c.New, true
		case c.Resolution == memcore.ResolveKeepOld && c.New == id:
			return c.Old, true
		}
	}
	return "", false
}

// TestAddNoteChecksContradictions (issue 26, annoyance 1): a note added
// with a in the TUI is checked against older memories as the CLI's add
// is; the status line names the one it supersedes and pane 8 lists it.
func TestAddNoteChecksContradictions(t *testing.T) {
	st, _ := demoStoreWithout(t, "contradictions.json") // only the note's pair waits
	ctx := context.Background()
	r, err := st.Add(ctx, memcore.AddRequest{Text: "The staging region is eu-west-1", Type: memcore.TypeFact, Source: memcore.SourceUserApproved})
	if err != nil || r.Quarantined {
		t.Fatalf("add: %v %+v", err, r)
	}
	m := newStatic(t, st, 120, 30)
	press(m, runes("a"))
	press(m, typed("The staging region is us-east-2")...)
	press(m, keyEnter)
	if !strings.Contains(m.status, "supersedes “The staging region is eu-west-1”") || !strings.Contains(m.status, "8 Contradictions") {
		t.Fatalf("status %q does not name the superseded memory", m.status)
	}
	cs := must(st.Contradictions(ctx, false))
	if len(cs) != 1 || cs[0].Old != r.Atom.ID {
		t.Fatalf("contradictions %+v", cs)
	}
}
