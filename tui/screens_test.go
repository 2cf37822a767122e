package tui

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/odekmem/odekmem/views"
)

// TestScreensDoc regenerates SCREENS.md's captures (ASCII, 100 columns)
// when SCREENS=1; the key table below them is kept as written.
func TestScreensDoc(t *testing.T) {
	if os.Getenv("SCREENS") == "" {
		t.Skip("set SCREENS=1 to regenerate SCREENS.md")
	}
	st, dir := demoStore(t)
	shots := []struct {
		title string
		setup func(m *Model)
	}{
		{"1 Atoms — list", func(m *Model) {}},
		{"1 Atoms — filter `type:decision project:payments`", func(m *Model) {
			press(m, runes("/"))
			press(m, typed("type:decision project:payments")...)
			press(m, keyEnter)
		}},
		{"1 Atoms — detail (enter)", func(m *Model) { press(m, keyDown, keyDown, keyDown, keyDown, keyDown, keyDown, keyEnter) }},
		{"1 Atoms — semantic search (f)", func(m *Model) {
			press(m, runes("f"))
			press(m, typed("payouts timezone bug")...)
			press(m, keyEnter)
		}},
		{"2 Quarantine — a scan-rejected entry with its findings, one selected", func(m *Model) {
			press(m, runes("2"))
			for i := 0; i < 10; i++ {
				press(m, keyDown)
			}
			press(m, keySpace, runes("k"))
		}},
		{"2 Quarantine — a redacted credential", func(m *Model) {
			press(m, runes("2"))
			for i := 0; i < 6; i++ {
				press(m, keyDown)
			}
		}},
		{"3 Pending reviews", func(m *Model) { press(m, runes("3")) }},
		{"4 User model", func(m *Model) { press(m, runes("4")) }},
		{"5 Associations — depth 2", func(m *Model) {
			press(m, keyDown, keyDown, keyDown, keyDown, keyDown, keyDown, runes("5"), runes("+"))
		}},
		{"6 Budget", func(m *Model) {
			press(m, runes("6"))
			msg := views.LoadBudget(m.d)().(views.BudgetLoadedMsg)
			m.Update(msg)
		}},
		{"7 Recall preview", func(m *Model) {
			press(m, runes("7"), keyEnter)
			press(m, typed("where did we leave off on the payouts report")...)
			press(m, keyEnter)
		}},
		{"Forget asks y/N (default No)", func(m *Model) { press(m, runes("d")) }},
		{"Full help (?)", func(m *Model) { press(m, runes("?")) }},
	}
	var b strings.Builder
	b.WriteString("# odekmem TUI screens\n\n")
	b.WriteString("Captured from `odekmem demo` (the bundled demo store) at 100×30 in the ASCII colour profile\n")
	b.WriteString("(as with NO_COLOR), clock fixed at 2026-11-29 12:00 UTC. Regenerate with\n")
	b.WriteString("`SCREENS=1 go test ./tui/ -run TestScreensDoc` (the key table is kept in `screens_keys.md`).\n\n")
	for _, s := range shots {
		m := newStatic(t, st, 100, 30)
		s.setup(m)
		if !strings.Contains(s.title, "y/N") {
			m.status = ""
		}
		fmt.Fprintf(&b, "## %s\n\n```text\n%s\n```\n\n", s.title, screen(m, dir))
	}
	keys, err := os.ReadFile("screens_keys.md")
	if err != nil {
		t.Fatal(err)
	}
	b.Write(keys)
	if err := os.WriteFile("SCREENS.md", []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}
