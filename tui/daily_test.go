package tui

import (
	"bytes"
	"context"
	"encoding/base64"
	"fmt"
	"github.com/charmbracelet/lipgloss"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/exp/teatest"

	"github.com/odekmem/odekmem/internal/demo"
	"github.com/odekmem/odekmem/internal/humanize"
	"github.com/odekmem/odekmem/memcore"
	"github.com/odekmem/odekmem/views"
)

// Issue 14, items 2-12: the TUI behaves like the terminal tools people
// use every day. Each test drives the real program under teatest (or the
// root model directly where only the final state matters).

// Item 2: "jjj" arriving in one read moves three rows; "/timestamptz" in
// one read opens the filter and types the word; a bracketed paste goes
// into the input whole; outside an input a paste does nothing.
func TestBurstOfKeysInOneMessage(t *testing.T) {
	t.Parallel()
	st, tm := startDemo(t, 120, 40)
	atoms := must(st.List(context.Background(), memcore.Filter{}))
	tm.Send(runes("jjj")) // one message, three keys
	waitRe(t, tm, regexp.MustCompile(`> +intent +user_said`))
	tm.Send(runes("/timestamptz")) // opens the filter, then text
	n := 0
	for _, a := range atoms {
		if strings.Contains(strings.ToLower(a.Text), "timestamptz") {
			n++
		}
	}
	waitOut(t, tm, fmt.Sprintf("Atoms %d/207", n), "filter: timestamptz")
	send(tm, tea.KeyMsg{Type: tea.KeyCtrlU}, paste("payouts report\nendpoint"), keyEnter)
	waitOut(t, tm, "filter: payouts report endpoint")
	send(tm, keyEsc)
	waitOut(t, tm, "Atoms 207")
	tm.Send(paste("dy")) // never a command: no forget prompt, nothing forgotten
	waitOut(t, tm, "paste ignored")
	m := finish(t, tm)
	if m.mode == modePrompt || len(must(st.List(context.Background(), memcore.Filter{}))) != 207 {
		t.Fatalf("a paste acted as keys: mode %v, %d atoms", m.mode, len(must(st.List(context.Background(), memcore.Filter{}))))
	}
	if got := selectedID(m, PaneAtoms); got != atoms[0].ID {
		t.Errorf("after clearing the filter the cursor is on %s, want the first atom", got)
	}
}

// Item 2 and issue 10 item 10: keys that arrive together never answer a
// prompt, so "dyy" in one read cannot forget.
func TestBurstNeverAnswersPrompt(t *testing.T) {
	st, _ := demoStore(t)
	m := newStatic(t, st, 100, 30)
	press(m, runes("d"))
	if m.mode != modePrompt {
		t.Fatal("d did not ask")
	}
	press(m, runes("yy"))
	if m.mode == modePrompt || len(must(st.List(context.Background(), memcore.Filter{}))) != 207 {
		t.Fatalf("a burst answered the prompt: %d atoms", len(must(st.List(context.Background(), memcore.Filter{}))))
	}
	press(m, runes("d"), paste("y"))
	if len(must(st.List(context.Background(), memcore.Filter{}))) != 207 {
		t.Fatal("a pasted y answered the prompt")
	}
}

// Item 5: esc closes the full help; with a filter set the help bar shows
// "esc clear filter"; at 80×24 "? help" is always on the help bar.
func TestEscInHelp(t *testing.T) {
	t.Parallel()
	_, tm := startDemo(t, 120, 40)
	send(tm, runes("?"))
	waitOut(t, tm, "go to pane")
	send(tm, keyEsc)
	teatest.WaitFor(t, tm.Output(), func(b []byte) bool {
		return bytes.Contains(b, []byte("? help")) && !bytes.Contains(b, []byte("go to pane"))
	}, teatest.WithDuration(30*time.Second))
	send(tm, runes("t"))
	waitOut(t, tm, "esc clear filter")
	m := finish(t, tm)
	if m.help.ShowAll {
		t.Error("full help still open")
	}
}

// Items 5 and 6: at 80×24 every pane's tab keeps its name, with the
// counts that wait for the person (issue 26: "5 G  6 B1%  7 R" was
// cryptic), and the help bar ends with "? help • q quit", in every pane
// and state. The store is the demo's without its contradictions and lane:
// with their counts too (the demo has 2 and 4 waiting) the names do not
// fit in 80 columns and the bar falls back to letters ("2 Q14  3 P5 …
// 8 C2  9 L4", see the 80×24 goldens).
func Test80x24TabAndHelpBars(t *testing.T) {
	st, _ := demoStoreWithout(t, "contradictions.json", "lane.json")
	tm := startAppSize(t, st, 80, 24, appOptions())
	waitOut(t, tm, "Atoms 207")
	send(tm, runes("2"))
	waitOut(t, tm, "[2 Quar 14]", "1 Atoms", "3 Pend(5)", "4 Model", "5 Assoc", "6 Budget", "7 Recall", "8 Contra", "? help • q quit")
	finish(t, tm)

	sm := newStatic(t, st, 80, 24)
	states := []struct {
		name string
		keys []tea.KeyMsg
		tabs []string
	}{
		{"atoms", []tea.KeyMsg{runes("1")}, []string{"[1 Atoms 207]", "2 Quar(14)", "3 Pend(5)", "4 Model"}},
		{"atoms filtered", []tea.KeyMsg{runes("1"), runes("t")}, []string{"[1 Atoms ", "2 Quar(14)"}},
		{"quarantine", []tea.KeyMsg{runes("2")}, []string{"1 Atoms", "[2 Quar 14]", "3 Pend(5)", "4 Model"}},
		{"quarantine selection", []tea.KeyMsg{runes("2"), keySpace, keySpace}, []string{"[2 Quar 14]"}},
		{"pending", []tea.KeyMsg{runes("3")}, []string{"1 Atoms", "2 Quar(14)", "[3 Pend 5]"}},
		{"user model", []tea.KeyMsg{runes("4")}, []string{"2 Quar(14)", "3 Pend(5)", "[4 Model 13]"}},
		{"associations", []tea.KeyMsg{runes("5")}, []string{"2 Quar(14)", "3 Pend(5)", "[5 Assoc"}},
		{"budget", []tea.KeyMsg{runes("6")}, []string{"2 Quar(14)", "3 Pend(5)", "[6 Budget"}},
		{"recall", []tea.KeyMsg{runes("7")}, []string{"2 Quar(14)", "3 Pend(5)", "[7 Recall"}},
		{"contradictions", []tea.KeyMsg{runes("8")}, []string{"2 Quar(14)", "3 Pend(5)", "[8 Contra"}},
	}
	for _, s := range states {
		press(sm, keyEsc, keyEsc)
		press(sm, s.keys...)
		lines := strings.Split(sm.View(), "\n")
		for _, want := range s.tabs {
			if !strings.Contains(lines[1], want) {
				t.Errorf("%s: tab bar %q lacks %q", s.name, lines[1], want)
			}
		}
		if last := lines[len(lines)-1]; !strings.HasSuffix(last, "? help • q quit") {
			t.Errorf("%s: help bar %q does not end with ? help • q quit", s.name, last)
		}
	}

	// The demo as a newcomer sees it, with contradictions and the lane
	// waiting too: every tab still has a readable name at 80 columns.
	full, _ := demoStore(t)
	fm := newStatic(t, full, 80, 24)
	for _, s := range []struct {
		keys []tea.KeyMsg
		tabs []string
	}{
		{[]tea.KeyMsg{runes("1")}, []string{"[1 Atoms]", "2Quar(14)", "3Pend(5)", "4Model", "5Assoc", "6Budget", "7Recall", "8Contra(2)", "9Lane(4)"}},
		{[]tea.KeyMsg{runes("9")}, []string{"1Atoms", "2Quar(14)", "8Contra(2)", "[9 Lane]"}},
	} {
		press(fm, keyEsc, keyEsc)
		press(fm, s.keys...)
		line := strings.Split(fm.View(), "\n")[1]
		if w := lipgloss.Width(line); w > 80 {
			t.Errorf("tab bar is %d wide: %q", w, line)
		}
		for _, want := range s.tabs {
			if !strings.Contains(line, want) {
				t.Errorf("full demo: tab bar %q lacks %q", line, want)
			}
		}
	}
}

// Item 7: a damaged atoms.json shows a banner naming the file and where
// it was moved and what came back (issue 26: the notes, at once, as
// recovered quarantine); it stays across panes and keys until D
// dismisses it.
func TestDamageBanner(t *testing.T) {
	t.Parallel()
	dir := copyDemo(t)
	if err := os.WriteFile(filepath.Join(dir, "atoms.json"), []byte("garbage{"), 0o600); err != nil {
		t.Fatal(err)
	}
	st := openStore(t, dir)
	tm := startAppSize(t, st, 120, 40, appOptions())
	waitOut(t, tm, "The store reported 2 problems", "atoms.json: kept 0 intact records", "saved to corrupt/atoms.json.", "invalid JSON", "D dismisses",
		"No live atom could be read")
	send(tm, runes("2"))
	waitOut(t, tm, "Quarantine · 221 entries", "recovered")
	send(tm, keyDown, runes("3"))
	waitOut(t, tm, "Pending reviews")
	m := finish(t, tm)
	// Still there after other panes and keys (the renderer only redraws
	// lines that change, so look at the final frame).
	if v := m.View(); !strings.Contains(v, "saved to corrupt/atoms.json.") || !strings.Contains(v, "Pending reviews") {
		t.Errorf("banner gone before it was dismissed:\n%s", v)
	}
	m.opts.StatusTTL, m.opts.RefreshEvery = 0, 0 // drive the rest synchronously
	press(m, runes("D"))
	if !strings.Contains(m.status, "banner dismissed") {
		t.Errorf("status %q", m.status)
	}
	if v := m.View(); strings.Contains(v, "corrupt/atoms.json") || strings.Contains(v, "The store reported") {
		t.Errorf("banner still shown after D:\n%s", v)
	}
	if n := strings.Count(m.View(), "\n") + 1; n != 40 {
		t.Errorf("screen has %d lines after dismissing, want 40", n)
	}
	moved, _ := filepath.Glob(filepath.Join(dir, "corrupt", "atoms.json.*"))
	if len(moved) != 1 {
		t.Fatalf("damaged file not in corrupt/: %v", moved)
	}
}

// Item 9: one clock. The demo copy is re-dated to now and opened on the
// real clock; the quarantine pane's expiry matches what any other
// process (the CLI) computes, and a write from another process removes
// nothing the TUI shows as live.
func TestOneClock(t *testing.T) {
	t.Parallel()
	dir := copyDemo(t)
	if err := demo.Redate(dir, demo.Epoch, time.Now()); err != nil {
		t.Fatal(err)
	}
	st, err := memcore.Open(context.Background(), dir, memcore.Options{}) // the real clock, as the CLI
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close(context.Background()) })
	tm := startAppSize(t, st, 120, 40, appOptions())
	waitOut(t, tm, "Atoms 207")
	send(tm, runes("2"))
	ttl := st.Config().QuarantineTTLDays
	var wants []string
	var liveBefore []string
	for _, q := range must(st.Quarantined(context.Background())) {
		if q.ExpiresAt(ttl).After(time.Now().Add(time.Minute)) {
			liveBefore = append(liveBefore, q.ID)
		}
	}
	live := 0
	for _, q := range must(st.Quarantined(context.Background()))[:5] {
		left := time.Until(q.ExpiresAt(ttl))
		switch {
		case left <= 0:
			wants = append(wants, "expired")
		default:
			// The CLI's rounding: a time left is rounded up.
			wants = append(wants, humanize.Until(left)+" left")
			live++
		}
	}
	waitOut(t, tm, append([]string{"Quarantine · 14 entries"}, wants...)...)
	other, err := memcore.Open(context.Background(), dir, memcore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := other.Add(context.Background(), memcore.AddRequest{Text: "One clock canary from another process", Source: memcore.SourceUserSaid}); err != nil {
		t.Fatal(err)
	}
	other.Close(context.Background())
	send(tm, runes("1"))
	waitOut(t, tm, "Atoms 208") // the TUI saw the other process's write
	finish(t, tm)
	if live == 0 {
		t.Fatal("fixture: no live entry among the first five")
	}
	kept := map[string]bool{}
	for _, q := range must(st.Quarantined(context.Background())) {
		kept[q.ID] = true
	}
	for _, q := range liveBefore {
		if !kept[q] {
			t.Errorf("entry %s, live on the TUI's clock, was dropped by another process's write", q)
		}
	}
}

// Item 10: compact says what happened in words and asks before dropping
// an expired entry the person has not looked at; once looked at, it does
// not ask.
func TestCompactWordsAndAsks(t *testing.T) {
	st, _ := demoStore(t)
	m := newStatic(t, st, 100, 40)
	press(m, runes("6"), runes("c"))
	if m.mode != modePrompt || !strings.Contains(m.prompt.Question, "not looked at") {
		t.Fatalf("compact did not ask: %q", m.prompt.Question)
	}
	press(m, runes("n"))
	if len(must(st.Quarantined(context.Background()))) != 14 {
		t.Fatal("answering n still compacted")
	}
	press(m, runes("2"), runes("g"), runes("6"), runes("c")) // the expired entry is first: now seen
	if m.mode == modePrompt {
		t.Fatalf("asked again about an entry the person looked at: %q", m.prompt.Question)
	}
	if !strings.Contains(m.status, "compacted: ") || !strings.Contains(m.status, "dropped 1 expired quarantine entry") {
		t.Fatalf("status %q", m.status)
	}
	for _, r := range []memcore.CompactResult{{Before: 1004 << 10, After: 1192 << 10, Reclaimed: -188 << 10, Vectors: 205}} {
		if got := views.CompactWords(r); !strings.HasPrefix(got, "grew by 188.0 KiB") || !strings.Contains(got, "the vector cache was rebuilt") {
			t.Errorf("CompactWords = %q", got)
		}
	}
	if got := views.CompactWords(memcore.CompactResult{Before: 2048, After: 1024, Reclaimed: 1024}); got != "reclaimed 1.0 KiB (2.0 KiB → 1.0 KiB)" {
		t.Errorf("CompactWords = %q", got)
	}
}

// Item 11: the smaller things.
func TestSmallerThings(t *testing.T) {
	st, _ := demoStore(t)
	m := newStatic(t, st, 100, 30)
	pend := must(st.UserModel(context.Background())).Pending
	for _, p := range pend[1:] {
		if _, _, err := st.Reject(context.Background(), p.ID); err != nil {
			t.Fatal(err)
		}
	}
	press(m, runes("3"))
	drive(m, func() tea.Msg { return views.ReloadMsg{} })
	if v := m.View(); !strings.Contains(v, "1 inference waiting") {
		t.Errorf("pending header not singular:\n%s", v)
	}
	press(m, runes("2"), keySpace, keySpace)
	if v := m.View(); !strings.Contains(v, "TTL 7 days · 2 selected") {
		t.Errorf("quarantine header lacks the separator:\n%s", v)
	}
	press(m, runes("1"))
	for i := 0; i < 6; i++ {
		press(m, keyDown)
	}
	press(m, runes("5"))
	if v := m.View(); regexp.MustCompile(`─[a-z]+ +─▶`).MatchString(v) || !strings.Contains(v, "─temporal─▶") {
		t.Errorf("edge labels padded:\n%s", v)
	}
	press(m, runes("7"), keyEnter)
	press(m, typed("can you give me a summary of the risky changes before I approve the migration")...)
	press(m, keyEnter)
	if v := m.View(); strings.Contains(v, "observati…") || !strings.Contains(v, "observation") {
		t.Errorf("type names cut:\n%s", v)
	}
	press(m, runes("1"))
	if v := m.View(); !strings.Contains(v, "* pinned") {
		t.Errorf("no legend for the pin mark:\n%s", v)
	}
	press(m, runes("2"))
	var rejRow, taintRow string
	row := regexp.MustCompile(`^ \[[ x]\]`)
	for _, l := range strings.Split(m.View(), "\n") {
		if strings.Contains(l, "scan_rejected") && rejRow == "" && row.MatchString(l) {
			rejRow = l
		}
		if strings.Contains(l, " tainted ") && taintRow == "" && row.MatchString(l) {
			taintRow = l
		}
	}
	if !strings.HasPrefix(rejRow[4:], "✗") || !strings.HasPrefix(taintRow[4:], " ") {
		t.Errorf("scan-rejected rows not marked apart from tainted ones:\n%q\n%q", rejRow, taintRow)
	}
	// Pending: a list field gains the value (+), others take it (→).
	st2, _ := demoStore(t)
	m2 := newStatic(t, st2, 100, 30)
	press(m2, runes("3"))
	v := m2.View()
	if !regexp.MustCompile(`technical\.tools .*\+ testcontainers-go`).MatchString(v) || !regexp.MustCompile(`style\.humor .*→ dry`).MatchString(v) {
		t.Errorf("pending does not tell appends from replacements:\n%s", v)
	}
}

// Item 11: the detail view shows where it is scrolled at 80×24.
func TestDetailScrollIndicator(t *testing.T) {
	st, _ := demoStore(t)
	m := newStatic(t, st, 80, 24)
	press(m, keyEnter)
	if v := m.View(); !regexp.MustCompile(`detail · lines 1–\d+ of \d+ ↓`).MatchString(v) {
		t.Fatalf("no scroll indicator:\n%s", v)
	}
	press(m, runes("G"))
	if v := m.View(); !regexp.MustCompile(`detail · lines \d+–(\d+) of (\d+) ↑`).MatchString(v) {
		t.Fatalf("no scroll indicator at the end:\n%s", v)
	}
}

// Item 11: clicking a tab focuses it; clicking a row selects it.
func TestMouseClicks(t *testing.T) {
	t.Parallel()
	st, tm := startDemo(t, 120, 40)
	atoms := must(st.List(context.Background(), memcore.Filter{}))
	click := func(x, y int) tea.MouseMsg {
		return tea.MouseMsg{X: x, Y: y, Action: tea.MouseActionPress, Button: tea.MouseButtonLeft}
	}
	// Row 5 of the list: header, tabs, pane title, column header, rows.
	tm.Send(click(10, 4+5))
	waitRe(t, tm, regexp.MustCompile(`> +preference +user_said`))
	m := newStatic(t, st, 120, 40) // the same tab bar, loaded
	_, spans := m.tabLayout()
	tm.Send(click(spans[PanePending][0]+2, 1))
	waitOut(t, tm, "Pending reviews")
	tm.Send(click(5, 3+2)) // third pending row
	waitOut(t, tm, "field      "+must(st.UserModel(context.Background())).Pending[2].Field)
	fm := finish(t, tm)
	if got := selectedID(fm, PaneAtoms); got != atoms[5].ID {
		t.Errorf("click selected %s, want row 5 %s", got, atoms[5].ID)
	}
	if fm.Focus() != PanePending {
		t.Errorf("tab click focused %d", fm.Focus())
	}
}

// Item 12: Y copies the selected atom's id with OSC 52 and says so.
func TestCopyIDOSC52(t *testing.T) {
	st, _ := demoStore(t)
	var clip bytes.Buffer
	o := staticOptions()
	o.Clipboard = &clip
	m := New(context.Background(), st, o)
	m.Update(tea.WindowSizeMsg{Width: 100, Height: 30})
	drive(m, m.Init())
	press(m, keyDown, runes("Y"))
	id := must(st.List(context.Background(), memcore.Filter{}))[1].ID
	want := "\x1b]52;c;" + base64.StdEncoding.EncodeToString([]byte(id))
	if !strings.Contains(clip.String(), want) {
		t.Fatalf("clipboard got %q, want %q", clip.String(), want)
	}
	if !strings.Contains(m.status, "copied id "+id) {
		t.Fatalf("status %q", m.status)
	}
	clip.Reset()
	press(m, runes("2"), runes("Y"))
	qid := must(st.Quarantined(context.Background()))[0].ID
	if !strings.Contains(clip.String(), base64.StdEncoding.EncodeToString([]byte(qid))) {
		t.Fatalf("Y in Quarantine copied %q, want %s", clip.String(), qid)
	}
}

// Item 10 in the real program: compact asks about the expired entry
// nobody looked at, then says what happened in words.
func TestCompactAsksInProgram(t *testing.T) {
	t.Parallel()
	st, tm := startDemo(t, 120, 40)
	send(tm, runes("6"))
	waitOut(t, tm, "Budget · disk use")
	send(tm, runes("c"))
	waitOut(t, tm, "Compact anyway? It drops an expired quarantine entry you have not looked at", "[y/N]")
	send(tm, runes("y"))
	waitRe(t, tm, regexp.MustCompile(`compacted: dropped 1 expired quarantine entry; (reclaimed|grew by|same size)`))
	finish(t, tm)
	if n := len(must(st.Quarantined(context.Background()))); n != 13 {
		t.Errorf("%d quarantined after compact, want 13", n)
	}
}

// TestUserModelValuesCanBeEditedAndRemoved (issue 26, annoyance 8): a
// confirmed value is edited with e and removed with d (after y/N) on the
// User model pane, and u takes each back.
func TestUserModelValuesCanBeEditedAndRemoved(t *testing.T) {
	t.Parallel()
	st, tm := startDemo(t, 120, 40)
	get := func(f string) string { v, _ := must(st.UserModel(context.Background())).Get(f); return v }
	if get("style.verbosity") != "low" {
		t.Fatalf("premise: style.verbosity = %q", get("style.verbosity"))
	}
	send(tm, runes("4"))
	waitOut(t, tm, "e edits, d removes")
	send(tm, runes("e"))
	waitOut(t, tm, "style.verbosity = low")
	send(tm, tea.KeyMsg{Type: tea.KeyCtrlU})
	send(tm, runes("high"), keyEnter)
	waitOut(t, tm, "set style.verbosity = high (u undoes)")
	send(tm, keyDown, keyDown, runes("d"))
	waitOut(t, tm, "Remove style.formality (“casual”) from the user model?")
	send(tm, runes("y"))
	waitOut(t, tm, "removed style.formality (u undoes)")
	send(tm, runes("u"))
	waitOut(t, tm, "undid remove style.formality")
	finish(t, tm)
	if get("style.verbosity") != "high" || get("style.formality") != "casual" {
		t.Fatalf("after edit, remove and one undo: verbosity %q, formality %q", get("style.verbosity"), get("style.formality"))
	}
}

// TestDetailShowsItsLastLineAt80Columns (issue 26 polish): scrolled to
// the end at 80×24, the detail view shows the last line of the atom's
// page; a pinned atom's decay reads "none (pinned)", not "half-life 0".
func TestDetailShowsItsLastLineAt80Columns(t *testing.T) {
	st, _ := demoStore(t)
	m := newStatic(t, st, 80, 24)
	press(m, keyEnter)
	a := m.Pane(PaneAtoms).(*views.Atoms)
	press(m, runes("G"))
	v := a.View()
	if !strings.Contains(v, " ↑") {
		t.Fatalf("not scrolled to the end:\n%s", v)
	}
	// "lines A–N of N ↑" in the header, then exactly N-A+1 lines of page.
	var from, to, of int
	lines := strings.Split(v, "\n")
	if _, err := fmt.Sscanf(lines[0][strings.Index(lines[0], "lines "):], "lines %d–%d of %d", &from, &to, &of); err != nil || to != of {
		t.Fatalf("header %q: %v", lines[0], err)
	}
	if len(lines)-1 < to-from+1 {
		t.Fatalf("header says lines %d–%d but the view has %d lines below it:\n%s", from, to, len(lines)-1, v)
	}
	// The newest atom's page (the move of rate limiting to Redis) ends
	// with its last related atom, the rate limiting intent.
	if !strings.Contains(lines[to-from+1], "burst 200") {
		t.Fatalf("the page's last line is not on screen (line %d is %q):\n%s", to-from+1, lines[to-from+1], v)
	}
	for _, at := range must(st.List(context.Background(), memcore.Filter{})) {
		if at.Pin {
			md := views.AtomMarkdown(at, nil, nil, fixedNow, 0)
			if !strings.Contains(md, "decay: none (pinned)") || strings.Contains(md, "half-life 0") {
				t.Fatalf("pinned atom's decay:\n%s", md)
			}
			return
		}
	}
	t.Fatal("the demo has no pinned atom")
}
