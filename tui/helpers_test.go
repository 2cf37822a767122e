package tui

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"

	"github.com/odekmem/odekmem/internal/testkit"
	"github.com/odekmem/odekmem/memcore"
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
	st, err := memcore.Open(dir, memcore.Options{Now: func() time.Time { return fixedNow }})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { st.Close() })
	return st
}

// demoStore opens a fresh copy of the demo store.
func demoStore(tb testing.TB) (*memcore.Store, string) {
	dir := copyDemo(tb)
	return openStore(tb, dir), dir
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
