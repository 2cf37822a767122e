package tui

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/odekmem/odekmem/memcore"
	"github.com/odekmem/odekmem/theme"
	"github.com/odekmem/odekmem/views"
)

// TestConfirmUnknownFieldStays: Confirm's error for an unknown field
// (ErrInvalidArgument) is shown and the entry stays queued.
func TestConfirmUnknownFieldStays(t *testing.T) {
	dir := copyDemo(t)
	path := filepath.Join(dir, "user_model.json")
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	doc["pending_review"] = []any{map[string]any{
		"id": "0123456789abcdef0123456789abcdef", "field": "style.colour", "value": "teal",
		"evidence": "said so", "confidence": 0.5, "created_at": "2026-11-20T10:00:00Z"}}
	raw, _ = json.Marshal(doc)
	if err := os.WriteFile(path, raw, 0o600); err != nil {
		t.Fatal(err)
	}
	st := openStore(t, dir)
	m := newStatic(t, st, 100, 30)
	press(m, runes("3"))
	if !strings.Contains(m.View(), "unknown field") {
		t.Fatalf("unknown field not flagged:\n%s", m.View())
	}
	press(m, runes("c"))
	if !m.isErr || !strings.Contains(m.status, "unknown user-model field") {
		t.Fatalf("status %q (err=%v)", m.status, m.isErr)
	}
	if n := len(must(st.UserModel(context.Background())).Pending); n != 1 {
		t.Fatalf("%d pending after failed confirm, want 1", n)
	}
	if !strings.Contains(m.View(), "1 inference waiting") {
		t.Fatalf("entry left the list:\n%s", m.View())
	}
}

// TestQuitNotWhileTyping: q is text in an input; ctrl+c still quits.
func TestQuitNotWhileTyping(t *testing.T) {
	st, _ := demoStore(t)
	m := newStatic(t, st, 100, 30)
	press(m, runes("a"))
	_, cmd := m.Update(runes("q"))
	if cmd != nil {
		if _, ok := cmd().(tea.QuitMsg); ok {
			t.Fatal("q quit while typing")
		}
	}
	_, cmd = m.Update(tea.KeyMsg{Type: tea.KeyCtrlC})
	wantQuit(t, cmd, "ctrl+c")
}

// TestAddNote adds a note through the input; it is user_approved.
func TestAddNote(t *testing.T) {
	st, _ := demoStore(t)
	m := newStatic(t, st, 100, 30)
	press(m, runes("a"))
	press(m, typed("Prefers squash merges on payments-api")...)
	press(m, keyEnter)
	found := false
	for _, a := range must(st.List(context.Background(), memcore.Filter{Source: memcore.SourceUserApproved})) {
		if a.Text == "Prefers squash merges on payments-api" {
			found = true
		}
	}
	if !found {
		t.Fatalf("note not stored as user_approved; status %q", m.status)
	}
	if !strings.Contains(m.View(), "Atoms 208") {
		t.Fatal("list not reloaded")
	}
}

// TestBulkQuarantineForgetAndUndo selects two entries, forgets them with
// one y/N, and undoes both with one u.
func TestBulkQuarantineForgetAndUndo(t *testing.T) {
	st, _ := demoStore(t)
	m := newStatic(t, st, 100, 30)
	qs := must(st.Quarantined(context.Background()))
	ids := []string{qs[1].ID, qs[2].ID}
	press(m, runes("2"), keyDown, keySpace, keySpace, runes("d")) // entry 1 is past its TTL
	if m.mode != modePrompt || !strings.Contains(m.prompt.Question, "Forget 2") {
		t.Fatalf("no batch prompt: %q", m.prompt.Question)
	}
	press(m, runes("y"))
	if n := len(must(st.Quarantined(context.Background()))); n != 12 {
		t.Fatalf("%d quarantined after bulk forget, want 12", n)
	}
	press(m, runes("u"))
	for _, id := range ids {
		if _, q, err := st.Get(context.Background(), id); err != nil || q == nil {
			t.Fatalf("%s not back in quarantine after undo: %v", id, err)
		}
	}
}

// TestPinToggle pins and unpins the selected atom.
func TestPinToggle(t *testing.T) {
	st, _ := demoStore(t)
	m := newStatic(t, st, 100, 30)
	id := must(st.List(context.Background(), memcore.Filter{}))[0].ID
	press(m, keySpace)
	if a, _, _ := st.Get(context.Background(), id); !a.Pin {
		t.Fatal("space did not pin")
	}
	press(m, runes("P"))
	if a, _, _ := st.Get(context.Background(), id); a.Pin {
		t.Fatal("P did not unpin")
	}
}

// TestResizeEveryPane renders every pane at several sizes within bounds.
func TestResizeEveryPane(t *testing.T) {
	st, _ := demoStore(t)
	m := newStatic(t, st, 80, 24)
	for _, sz := range [][2]int{{80, 24}, {100, 30}, {160, 50}, {60, 16}} {
		m.Update(tea.WindowSizeMsg{Width: sz[0], Height: sz[1]})
		for i := 0; i < paneCount; i++ {
			press(m, runes(string(rune('1'+i))))
			lines := strings.Split(m.View(), "\n")
			if len(lines) != sz[1] {
				t.Errorf("%v pane %d: %d lines", sz, i+1, len(lines))
			}
			for _, l := range lines {
				if lipglossWidth(l) > sz[0] {
					t.Errorf("%v pane %d: wide line %q", sz, i+1, l)
				}
			}
		}
	}
}

// TestErrorView: the full-screen error shows the problem and quits on q.
func TestErrorView(t *testing.T) {
	em := newErrorModel(errors.New("open /nope: permission denied\x1b[31m"), theme.NewStyles(theme.Default()))
	em.Update(tea.WindowSizeMsg{Width: 80, Height: 24})
	v := em.View()
	if !strings.Contains(v, "permission denied") || strings.Contains(v, "\x1b") {
		t.Fatalf("error view:\n%q", v)
	}
	_, cmd := em.Update(runes("q"))
	wantQuit(t, cmd, "q")
}

// TestStoreTextSafeEndToEnd stores hostile text through memcore and renders
// every pane: no escape, C1 control or raw zero-width space reaches the
// screen, and the zero-width space is spelled out.
func TestStoreTextSafeEndToEnd(t *testing.T) {
	st, _ := demoStore(t)
	text := "deploy note \x1b[31mred\x1b[0m csi \u009b2J zero\u200bwidth"
	if _, err := st.Add(t.Context(), memcore.AddRequest{Text: text, Source: memcore.SourceUserSaid}); err != nil && !errors.Is(err, memcore.ErrBlocked) {
		t.Fatal(err)
	}
	if _, err := st.Add(t.Context(), memcore.AddRequest{Text: "web says " + text, Source: memcore.SourceWeb}); err != nil {
		t.Fatal(err)
	}
	m := newStatic(t, st, 120, 40)
	seenZW := false
	for i := 0; i < paneCount; i++ {
		press(m, runes(string(rune('1'+i))))
		if i == PaneQuarantine {
			press(m, runes("G"))
		}
		v := m.View()
		for _, bad := range []string{"\x1b", "\u009b", "\u200b"} {
			if strings.Contains(v, bad) {
				t.Errorf("pane %d shows %q", i+1, bad)
			}
		}
		seenZW = seenZW || strings.Contains(v, "⟨U+200B⟩")
	}
	if !seenZW {
		t.Error("the zero-width space is never shown as ⟨U+200B⟩")
	}
}

// TestCompact runs compact from the Budget pane and shows what it reclaimed.
func TestCompact(t *testing.T) {
	st, _ := demoStore(t)
	m := newStatic(t, st, 100, 40)
	press(m, runes("6"), runes("c"))
	// The demo has an expired quarantine entry nobody looked at: asked.
	if m.mode != modePrompt || !strings.Contains(m.prompt.Question, "expired quarantine entry you have not looked at") {
		t.Fatalf("compact did not ask first: mode %v %q", m.mode, m.prompt.Question)
	}
	press(m, runes("y"))
	if m.isErr || !strings.Contains(m.status, "compacted: ") || !strings.Contains(m.status, "dropped 1 expired quarantine entry") {
		t.Fatalf("status %q", m.status)
	}
	if !strings.Contains(m.View(), "last compact: ") {
		t.Fatalf("budget does not show the result:\n%s", m.View())
	}
	if m.busy != 0 {
		t.Fatalf("busy %d after the work finished", m.busy)
	}
}

// TestRecallPreview runs the hook for a message and shows blocks and atoms.
func TestRecallPreview(t *testing.T) {
	st, _ := demoStore(t)
	m := newStatic(t, st, 120, 60)
	press(m, runes("7"), keyEnter)
	press(m, typed("project:~/src/payments-api how do I fix the payouts timezone bug")...)
	press(m, keyEnter)
	v := m.View()
	for _, want := range []string{"Atoms", "COMP", "budget", "Blocks injected"} {
		if !strings.Contains(v, want) {
			t.Fatalf("recall lacks %q:\n%s", want, v)
		}
	}
	press(m, runes("G")) // scroll to the memory block at the end
	if v := m.View(); !strings.Contains(v, "Extended memory") {
		t.Fatalf("memory block not reachable:\n%s", v)
	}
}

// TestShowAssociationsFromAtoms: r in Atoms opens the graph centred there.
func TestShowAssociationsFromAtoms(t *testing.T) {
	st, _ := demoStore(t)
	m := newStatic(t, st, 100, 30)
	press(m, keyDown, keyDown, runes("r"))
	if m.Focus() != PaneAssoc {
		t.Fatalf("focus %d", m.Focus())
	}
	want := must(st.List(context.Background(), memcore.Filter{}))[2]
	if !strings.Contains(m.View(), want.Text[:30]) {
		t.Fatalf("graph not centred on %q:\n%s", want.Text, m.View())
	}
}

// TestForgetPinnedSaysSo (issue 26 polish): the y/N prompt of d on a
// pinned atom names the pin.
func TestForgetPinnedSaysSo(t *testing.T) {
	st, _ := demoStore(t)
	m := newStatic(t, st, 120, 40)
	a := m.Pane(PaneAtoms).(*views.Atoms)
	for i := 0; i < 207; i++ {
		if at, _, err := st.Get(context.Background(), a.SelectedID()); err == nil && at.Pin {
			press(m, runes("d"))
			if m.mode != modePrompt || !strings.Contains(m.prompt.Question, "Forget pinned") || !strings.Contains(m.prompt.Question, "never be evicted") {
				t.Fatalf("prompt %q", m.prompt.Question)
			}
			return
		}
		press(m, keyDown)
	}
	t.Fatal("no pinned atom in the demo")
}

// TestBatchPromoteShowsEveryFinding (issue 26 polish): the y/N question
// of a batch promote wraps over a few lines at 80 columns, so the
// scanner's findings are read whole before the person says yes.
func TestBatchPromoteShowsEveryFinding(t *testing.T) {
	st, _ := demoStore(t)
	m := newStatic(t, st, 80, 24)
	press(m, runes("2"), runes("A"), runes("p"))
	if m.mode != modePrompt {
		t.Fatal("no question")
	}
	q := m.prompt.Question
	_, findings, ok := strings.Cut(q, "The scanner found: ")
	if !ok {
		t.Fatalf("question %q names no findings", q)
	}
	v := m.View()
	flat := strings.Join(strings.Fields(v), " ")
	if !strings.Contains(flat, strings.Join(strings.Fields(findings), " ")) || !strings.Contains(v, "[y/N]") {
		t.Fatalf("the findings %q are not all on screen:\n%s", findings, v)
	}
	if n := strings.Count(v, "\n") + 1; n != 24 {
		t.Fatalf("screen has %d lines, want 24", n)
	}
}

// TestAddNoteNeverCutsALongNote (issue 26, annoyance 3): a note longer
// than atom_max_chars is refused with both lengths, not stored cut.
func TestAddNoteNeverCutsALongNote(t *testing.T) {
	st, _ := demoStore(t)
	m := newStatic(t, st, 120, 40)
	long := strings.Repeat("the payouts report reads from the replica ", 10)
	press(m, runes("a"))
	press(m, typed(long)...)
	press(m, keyEnter)
	if !m.isErr || !strings.Contains(m.status, "an atom holds at most 300") {
		t.Fatalf("status %q", m.status)
	}
	if n := len(must(st.List(context.Background(), memcore.Filter{}))); n != 207 {
		t.Fatalf("a cut note was stored: %d atoms", n)
	}
}

// TestCursorFollowsWhatChanged (issue 26's trial): after a adds a note the
// cursor is on it; after u undoes a forget, on the atom it brought back.
func TestCursorFollowsWhatChanged(t *testing.T) {
	st, _ := demoStore(t)
	m := newStatic(t, st, 120, 40)
	a := m.Pane(PaneAtoms).(*views.Atoms)
	press(m, keyDown, keyDown, keyDown, runes("a"))
	press(m, typed("Staging deploys need a second approver")...)
	press(m, keyEnter)
	if at, _, err := st.Get(context.Background(), a.SelectedID()); err != nil || at.Text != "Staging deploys need a second approver" {
		t.Fatalf("after add the cursor is on %q (%v)", at.Text, err)
	}
	press(m, keyDown, keyDown)
	gone := a.SelectedID()
	press(m, runes("d"), runes("y"))
	if a.SelectedID() == gone {
		t.Fatal("forget did not forget")
	}
	press(m, runes("u"))
	if a.SelectedID() != gone {
		t.Fatalf("after undo the cursor is on %s, not on the atom brought back (%s)", a.SelectedID(), gone)
	}
}
