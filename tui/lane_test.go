package tui

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/charmbracelet/x/exp/golden"

	"github.com/odekmem/odekmem/memcore"
)

// laneStore is the demo store with its lane replaced by three entries: two
// from session s-lane-a, one from s-lane-b. The lane is odekmem's own
// file, which only the Hook's judgement fills; the test writes it as the
// demo generator does.
func laneStore(t *testing.T) *memcore.Store {
	t.Helper()
	dir := copyDemo(t)
	lane := []memcore.LaneEntry{
		{ID: "1a2e0000000000000000000000000001", Text: "Give me the shell command first, then the explanation.", Type: "preference", Why: "a command that may be meant for this task only",
			Message: "Give me the shell command first, then the explanation. Now, the flaky test…", Context: memcore.AtomContext{SessionID: "s-lane-a", Turn: 1}, CreatedAt: fixedNow},
		{ID: "1a2e0000000000000000000000000002", Text: "We only follow our own style guide here.", Type: "convention", Why: "right under a paste, may be its last line",
			Message: "The fork's guide says: …\nWe only follow our own style guide here.", Context: memcore.AtomContext{SessionID: "s-lane-a", Turn: 2}, CreatedAt: fixedNow},
		{ID: "1a2e0000000000000000000000000003", Text: "Staging resets every night at two.", Type: "fact", Why: "may be a one-off remark (score 0.41)",
			Message: "Staging resets every night at two.", Context: memcore.AtomContext{SessionID: "s-lane-b", Turn: 1}, CreatedAt: fixedNow},
	}
	b, err := json.Marshal(lane)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "lane.json"), b, 0o600); err != nil {
		t.Fatal(err)
	}
	return openStore(t, dir)
}

// liveText reports whether a live atom has text, and its source class.
func liveText(t *testing.T, st *memcore.Store, text string) (memcore.Source, bool) {
	t.Helper()
	for _, a := range must(st.List(context.Background(), memcore.Filter{})) {
		if a.Text == text {
			return a.SourceClass, true
		}
	}
	return "", false
}

// keptNow returns the lane texts that are live as user_approved.
func keptNow(t *testing.T, st *memcore.Store, texts []string) []string {
	var out []string
	for _, text := range texts {
		if src, ok := liveText(t, st, text); ok && src == memcore.SourceUserApproved {
			out = append(out, text)
		}
	}
	return out
}

// TestE2ELane: the lane under teatest: c keeps the selected entry as the
// person's own (user_approved), n drops one, u takes the last act back, S
// keeps the selected entry's whole session after a y/N prompt.
func TestE2ELane(t *testing.T) {
	t.Parallel()
	st := laneStore(t)
	all := []string{}
	for _, e := range must(st.Lane(context.Background())) {
		all = append(all, e.Text)
	}
	tm := startApp(t, st)
	send(tm, runes("9"))
	waitOut(t, tm, "From your messages — keep?", "3 entries")

	// Keep the selected entry; it is live as the person's.
	send(tm, runes("c"))
	waitOut(t, tm, "kept as yours", "Lane 2")
	kept := keptNow(t, st, all)
	if len(kept) != 1 {
		t.Fatalf("after one keep, live %v", kept)
	}
	// Undo puts it back in the lane.
	send(tm, runes("u"))
	waitOut(t, tm, "undid keep", "Lane 3")
	if k := keptNow(t, st, all); len(k) != 0 {
		t.Fatalf("undo left %v live", k)
	}
	if n := len(must(st.Lane(context.Background()))); n != 3 {
		t.Fatalf("%d entries after the undo, want 3", n)
	}
	// Drop the selected entry.
	send(tm, runes("n"))
	waitOut(t, tm, "dropped", "Lane 2")
	left := must(st.Lane(context.Background()))
	if len(left) != 2 {
		t.Fatalf("%d entries after the drop", len(left))
	}
	// Keep the selected entry's session in bulk, after the prompt.
	send(tm, runes("S"))
	waitOut(t, tm, "Keep all", "as your own?")
	send(tm, runes("y"))
	waitOut(t, tm, "kept ")
	bulk := keptNow(t, st, all)
	if len(bulk) == 0 {
		t.Fatal("the bulk keep stored nothing")
	}
	for _, e := range must(st.Lane(context.Background())) {
		for _, k := range bulk {
			if e.Text == k {
				t.Fatalf("%q is both kept and in the lane", k)
			}
		}
	}
	// One u takes the whole session back. Each wait is on the act's own
	// status, which comes after the store's act has finished (a reload
	// racing it may redraw the tab bar before or after; the store is
	// checked instead).
	send(tm, runes("u"))
	waitOut(t, tm, "undid keep session")
	finish(t, tm)
	if k := keptNow(t, st, all); len(k) != 0 {
		t.Fatalf("undo of the bulk keep left %v live", k)
	}
	if lane := must(st.Lane(context.Background())); len(lane) != 2 {
		t.Fatalf("%d entries after undoing the bulk keep, want 2", len(lane))
	}
}

// TestGoldenLane captures the lane with three entries at 80×24 and
// 120×40 (ASCII profile; -update rewrites testdata).
func TestGoldenLane(t *testing.T) {
	st := laneStore(t)
	for _, sz := range [][2]int{{80, 24}, {120, 40}} {
		t.Run(fmt.Sprintf("%dx%d", sz[0], sz[1]), func(t *testing.T) {
			m := newStatic(t, st, sz[0], sz[1])
			press(m, runes("9"))
			m.status = ""
			out := screen(m, st.Dir())
			if n := strings.Count(string(out), "\n") + 1; n != sz[1] {
				t.Errorf("screen has %d lines, want %d", n, sz[1])
			}
			for i, l := range strings.Split(string(out), "\n") {
				if w := lipglossWidth(l); w > sz[0] {
					t.Errorf("line %d is %d cells wide, want ≤ %d: %q", i, w, sz[0], l)
				}
			}
			golden.RequireEqual(t, out)
		})
	}
}
