package tui

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/exp/golden"
	"github.com/charmbracelet/x/exp/teatest"

	"github.com/odekmem/odekmem/memcore"
)

// startApp runs the real program on st at 120×40 with live refresh on.
func startApp(t *testing.T, st *memcore.Store) *teatest.TestModel {
	t.Helper()
	return startAppSize(t, st, 120, 40, appOptions())
}

// (a) promote a quarantined atom; it shows in Atoms as user_approved.
func TestE2EPromote(t *testing.T) {
	t.Parallel()
	st, tm := startDemo(t, 120, 40)
	q := must(st.Quarantined(context.Background()))[0]
	send(tm, runes("2"))
	waitOut(t, tm, "Quarantine · 14 entries")
	send(tm, runes("p"))
	waitOut(t, tm, "as user_approved", "Quarantine 13")
	send(tm, runes("1"), runes("/"))
	tm.Type("Stripe Sigma")
	send(tm, keyEnter)
	waitRe(t, tm, regexp.MustCompile(`user_approved[^\n]*Subagent summary: reconciliation`))
	finish(t, tm)
	at, qa, err := st.Get(context.Background(), q.ID)
	if err != nil || qa != nil {
		t.Fatalf("Get after promote: %v (quarantined=%v)", err, qa != nil)
	}
	if at.SourceClass != memcore.SourceUserApproved {
		t.Fatalf("source = %s, want user_approved", at.SourceClass)
	}
}

// (b) confirm one pending review, reject another; check user_model.json.
func TestE2EConfirmReject(t *testing.T) {
	t.Parallel()
	st, dir := demoStore(t)
	pend := must(st.UserModel(context.Background())).Pending
	first, second := pend[0], pend[1]
	tm := startApp(t, st)
	waitOut(t, tm, "Atoms 207")
	send(tm, runes("3"))
	waitOut(t, tm, "Pending reviews · 5")
	send(tm, runes("c"))
	waitOut(t, tm, "confirmed "+first.Field, "Pending 4")
	send(tm, runes("n"))
	waitOut(t, tm, "[y/N]")
	send(tm, runes("y"))
	waitOut(t, tm, "rejected "+second.Field, "Pending 3")
	finish(t, tm)

	raw, err := os.ReadFile(filepath.Join(dir, "user_model.json"))
	if err != nil {
		t.Fatal(err)
	}
	var um memcore.UserModel
	if err := json.Unmarshal(raw, &um); err != nil {
		t.Fatal(err)
	}
	if got, _ := um.Get(first.Field); !strings.Contains(got, first.Value) {
		t.Errorf("%s = %q after confirm, want %q", first.Field, got, first.Value)
	}
	if got, _ := um.Get(second.Field); got == second.Value {
		t.Errorf("%s took the rejected value", second.Field)
	}
	for _, p := range um.Pending {
		if p.ID == first.ID || p.ID == second.ID {
			t.Errorf("pending %s (%s) still queued", p.ID, p.Field)
		}
	}
	if len(um.Pending) != len(pend)-2 {
		t.Errorf("%d pending left, want %d", len(um.Pending), len(pend)-2)
	}
}

// (c) forget asks y/N: n keeps the atom, y removes it, u brings it back.
func TestE2EForgetUndo(t *testing.T) {
	t.Parallel()
	st, tm := startDemo(t, 120, 40)
	id := must(st.List(context.Background(), memcore.Filter{}))[0].ID
	send(tm, runes("d"))
	waitOut(t, tm, "[y/N]")
	send(tm, runes("n"))
	waitOut(t, tm, "cancelled")
	if _, _, err := st.Get(context.Background(), id); err != nil {
		t.Fatalf("atom gone after answering n: %v", err)
	}
	send(tm, runes("d"))
	waitOut(t, tm, "[y/N]")
	send(tm, runes("y"))
	waitOut(t, tm, "Atoms 206")
	if _, _, err := st.Get(context.Background(), id); !errors.Is(err, memcore.ErrNotFound) {
		t.Fatalf("Get after forget: %v, want ErrNotFound", err)
	}
	send(tm, runes("u"))
	waitOut(t, tm, "undid", "Atoms 207")
	finish(t, tm)
	if _, _, err := st.Get(context.Background(), id); err != nil {
		t.Fatalf("atom not back after undo: %v", err)
	}
}

// (d) filter as you type narrows the list.
func TestE2EFilter(t *testing.T) {
	t.Parallel()
	st, _ := demoStore(t)
	n := 0
	for _, a := range must(st.List(context.Background(), memcore.Filter{})) {
		if strings.Contains(strings.ToLower(a.Text), "timestamptz") {
			n++
		}
	}
	if n == 0 || n == 207 {
		t.Fatalf("bad fixture: %d matches", n)
	}
	tm := startApp(t, st)
	waitOut(t, tm, "Atoms 207")
	send(tm, runes("/"))
	tm.Type("timestamptz")
	waitOut(t, tm, fmt.Sprintf("Atoms %d/207", n))
	tm.Type("q") // typing: q is text, not quit
	waitOut(t, tm, "Atoms 0/207")
	send(tm, tea.KeyMsg{Type: tea.KeyBackspace}, keyEnter)
	waitOut(t, tm, fmt.Sprintf("Atoms %d/207", n))
	m := finish(t, tm)
	if got := m.Pane(PaneAtoms).(interface{ Title() string }).Title(); got != fmt.Sprintf("Atoms %d/207", n) {
		t.Errorf("title %q", got)
	}
}

// (e) every pane by digit, then tab and shift+tab, each showing its title.
func TestE2EPanes(t *testing.T) {
	t.Parallel()
	st, dir := demoStore(t)
	tm := startApp(t, st)
	titles := []string{"Atoms · 207 of 207 live", "Quarantine · 14 entries", "Pending reviews · 5",
		"User model · confirmed", "Associations · depth 1", "Budget · disk use", "Recall preview ·", "Contradictions ·", "From your messages — keep?"}
	waitOut(t, tm, titles[0])
	for i := 1; i < len(titles); i++ {
		send(tm, runes(fmt.Sprint(i+1)))
		waitOut(t, tm, titles[i])
	}
	for i := 0; i < len(titles); i++ { // last → 1 → … → last
		send(tm, keyTab)
		waitOut(t, tm, titles[i])
	}
	send(tm, tea.KeyMsg{Type: tea.KeyShiftTab})
	waitOut(t, tm, titles[len(titles)-2])
	send(tm, runes("3"))
	waitOut(t, tm, titles[2])
	m := finish(t, tm)
	if m.Focus() != PanePending {
		t.Errorf("focus %d, want pending", m.Focus())
	}
	// The real program's final frame, as a golden.
	m.status = ""
	golden.RequireEqual(t, screen(m, dir))
}

// (f) another process (a second Store on the same dir) adds an atom; it
// appears within ~2 s and the selection stays on the same atom.
func TestE2ELiveRefresh(t *testing.T) {
	t.Parallel()
	st, dir := demoStore(t)
	tm := startApp(t, st)
	waitOut(t, tm, "Atoms 207")
	send(tm, keyDown, keyDown)
	waitRe(t, tm, regexp.MustCompile(`> +observation`))
	other := openStore(t, dir)
	if _, err := other.Add(context.Background(), memcore.AddRequest{
		Text: "Live refresh canary: the TUI shows atoms another process adds", Source: memcore.SourceUserSaid, Type: memcore.TypeFact,
	}); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	teatest.WaitFor(t, tm.Output(), func(b []byte) bool { return bytes.Contains(b, []byte("Live refresh canary")) },
		teatest.WithDuration(15*time.Second), teatest.WithCheckInterval(20*time.Millisecond))
	t.Logf("seen after %v", time.Since(start))
	m := finish(t, tm)
	want := must(st.List(context.Background(), memcore.Filter{}))[3].ID // was row 2; the new atom is row 0
	if got := m.Pane(PaneAtoms).(interface{ SelectedID() string }).SelectedID(); got != want {
		t.Errorf("selection moved: %s, want %s", got, want)
	}
}
