package tui

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"regexp"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/exp/teatest"

	"github.com/odekmem/odekmem/internal/testkit"
	"github.com/odekmem/odekmem/memcore"
	"github.com/odekmem/odekmem/views"
)

// fixedNow is the clock every test store uses, so ages are stable.
var fixedNow = time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)

// copyDemo copies testdata/demo into a temp dir and returns the dir.
func copyDemo(tb testing.TB) string {
	tb.Helper()
	dst := filepath.Join(tb.TempDir(), "extended")
	testkit.CopyDir(tb, filepath.Join("..", "testdata", "demo"), dst)
	return dst
}

func openStore(tb testing.TB, dir string) *memcore.Store {
	tb.Helper()
	st, err := memcore.Open(context.Background(), dir, memcore.Options{Now: func() time.Time { return fixedNow }})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { st.Close(context.Background()) })
	return st
}

// demoStore opens a fresh copy of the demo store.
func demoStore(tb testing.TB) (*memcore.Store, string) {
	dir := copyDemo(tb)
	return openStore(tb, dir), dir
}

// demoStoreWithout opens a fresh copy of the demo store without some of
// its files: "lane.json" empties the lane, "contradictions.json" leaves no
// contradiction waiting, for tests that count their own.
func demoStoreWithout(tb testing.TB, files ...string) (*memcore.Store, string) {
	tb.Helper()
	dir := copyDemo(tb)
	for _, f := range files {
		if err := os.Remove(filepath.Join(dir, f)); err != nil {
			tb.Fatal(err)
		}
	}
	return openStore(tb, dir), dir
}

// startDemo runs the real program at w×h (live refresh on) on a copy of
// the demo store and waits for the first frame.
func startDemo(t *testing.T, w, h int) (*memcore.Store, *teatest.TestModel) {
	t.Helper()
	st, _ := demoStore(t)
	tm := startAppSize(t, st, w, h, appOptions())
	waitOut(t, tm, "Atoms 207")
	return st, tm
}

// wantQuit fails t unless cmd (what key produced) quits the program.
func wantQuit(t *testing.T, cmd tea.Cmd, key string) {
	t.Helper()
	if cmd == nil {
		t.Fatalf("%s did nothing", key)
	}
	if _, ok := cmd().(tea.QuitMsg); !ok {
		t.Fatalf("%s did not quit", key)
	}
}

// staticOptions have no ticks, so commands can be run synchronously.
func staticOptions() Options {
	return Options{Title: "demo", Glamour: "notty"}
}

// drive runs cmd and every command it leads to, feeding each message to
// m, breadth first. Options without ticks keep this finite.
func drive(m *Model, cmd tea.Cmd) {
	queue := []tea.Cmd{cmd}
	for n := 0; len(queue) > 0 && n < 10000; n++ {
		c := queue[0]
		queue = queue[1:]
		if c == nil {
			continue
		}
		msg := c()
		switch msg := msg.(type) {
		case nil:
		case tea.BatchMsg:
			queue = append(queue, msg...)
		case tea.QuitMsg:
		default:
			_, next := m.Update(msg)
			queue = append(queue, next)
		}
	}
}

// newStatic builds a model at a size and loads every pane.
func newStatic(tb testing.TB, st *memcore.Store, w, h int) *Model {
	m := New(context.Background(), st, staticOptions())
	m.Update(tea.WindowSizeMsg{Width: w, Height: h})
	drive(m, m.Init())
	return m
}

// press sends keys (as typed runes or named keys) and drives the results.
func press(m *Model, keys ...tea.KeyMsg) {
	for _, k := range keys {
		_, cmd := m.Update(k)
		drive(m, cmd)
	}
}

func runes(s string) tea.KeyMsg { return tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(s)} }

func typed(s string) []tea.KeyMsg {
	var out []tea.KeyMsg
	for _, r := range s {
		if r == ' ' {
			out = append(out, tea.KeyMsg{Type: tea.KeySpace, Runes: []rune{' '}})
			continue
		}
		out = append(out, runes(string(r)))
	}
	return out
}

var (
	keyEnter = tea.KeyMsg{Type: tea.KeyEnter}
	keyEsc   = tea.KeyMsg{Type: tea.KeyEsc}
	keyDown  = tea.KeyMsg{Type: tea.KeyDown}
	keyUp    = tea.KeyMsg{Type: tea.KeyUp}
	keyTab   = tea.KeyMsg{Type: tea.KeyTab}
	keySpace = tea.KeyMsg{Type: tea.KeySpace, Runes: []rune{' '}}
)

func lipglossWidth(s string) int { return lipgloss.Width(s) }

// waitOut waits until every want has appeared in output not yet read (up
// to 30 s: an upper bound for a loaded machine, not a timing claim).
// Things that change in one frame must be awaited in one call: a call
// consumes the output it reads.
func waitOut(t *testing.T, tm *teatest.TestModel, wants ...string) {
	t.Helper()
	teatest.WaitFor(t, tm.Output(), func(b []byte) bool {
		for _, w := range wants {
			if !bytes.Contains(b, []byte(w)) {
				return false
			}
		}
		return true
	}, teatest.WithDuration(30*time.Second), teatest.WithCheckInterval(20*time.Millisecond))
}

func waitRe(t *testing.T, tm *teatest.TestModel, re *regexp.Regexp) {
	t.Helper()
	teatest.WaitFor(t, tm.Output(), func(b []byte) bool { return re.Match(b) },
		teatest.WithDuration(30*time.Second), teatest.WithCheckInterval(20*time.Millisecond))
}

func send(tm *teatest.TestModel, keys ...tea.KeyMsg) {
	for _, k := range keys {
		tm.Send(k)
	}
}

func finish(t *testing.T, tm *teatest.TestModel) *Model {
	t.Helper()
	tm.Send(runes("q"))
	return tm.FinalModel(t, teatest.WithFinalTimeout(5*time.Second)).(*Model)
}

// startAppSize runs the real program on st at w×h.
func startAppSize(t *testing.T, st *memcore.Store, w, h int, opts Options) *teatest.TestModel {
	t.Helper()
	tm := teatest.NewTestModel(t, New(context.Background(), st, opts), teatest.WithInitialTermSize(w, h))
	t.Cleanup(func() {
		tm.Send(tea.KeyMsg{Type: tea.KeyCtrlC})
		tm.WaitFinished(t, teatest.WithFinalTimeout(5*time.Second))
	})
	return tm
}

func appOptions() Options {
	o := DefaultOptions("demo")
	o.Glamour = "notty"
	return o
}

func paste(s string) tea.KeyMsg { return tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(s), Paste: true} }

func selectedID(m *Model, pane int) string {
	return m.Pane(pane).(views.Selector).SelectedID()
}
