package tui

import (
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/charmbracelet/x/exp/golden"

	"github.com/odekmem/odekmem/views"
)

var nonceRe = regexp.MustCompile(`untrusted_content_[0-9a-f]+`)

// screen is a View with the temp store path and random nonces masked.
func screen(m *Model, dir string) []byte {
	v := m.View()
	v = strings.ReplaceAll(v, dir, "<store>")
	v = nonceRe.ReplaceAllString(v, "untrusted_content_<nonce>")
	return []byte(v)
}

// TestGolden captures every pane on the demo store at 80×24 and 120×40.
func TestGolden(t *testing.T) {
	sizes := [][2]int{{80, 24}, {120, 40}}
	panes := []struct {
		name  string
		setup func(m *Model)
	}{
		{"atoms", func(m *Model) { press(m, runes("1")) }},
		{"atoms_detail", func(m *Model) { press(m, runes("1"), keyDown, keyDown, keyEnter) }},
		{"atoms_filter", func(m *Model) {
			press(m, runes("1"), runes("/"))
			press(m, typed("type:decision payouts")...)
			press(m, keyEnter)
		}},
		{"atoms_search", func(m *Model) {
			press(m, runes("1"), runes("f"))
			press(m, typed("payouts timezone bug")...)
			press(m, keyEnter)
		}},
		{"quarantine", func(m *Model) { press(m, runes("2")) }},
		{"quarantine_findings", func(m *Model) {
			press(m, runes("2"))
			for i := 0; i < 10; i++ {
				press(m, keyDown)
			}
			press(m, keySpace, runes("k"))
		}},
		{"pending", func(m *Model) { press(m, runes("3")) }},
		{"usermodel", func(m *Model) { press(m, runes("4")) }},
		{"assoc", func(m *Model) {
			press(m, runes("1"), keyDown, keyDown, keyDown, keyDown, keyDown, keyDown, keyDown, runes("5"), runes("+"))
		}},
		{"budget", func(m *Model) {
			press(m, runes("6"))
			// Directory sizes on disk vary by filesystem: pin them.
			msg := views.LoadBudget(m.d)().(views.BudgetLoadedMsg)
			msg.Stats.Components = map[string]int64{"atoms": 72 << 10, "chunks": 848 << 10, "associations": 64 << 10,
				"quarantine": 8 << 10, "user_model": 4 << 10, "contradictions": 4 << 10, "lane": 4 << 10, "directory": 4 << 10, "other": 0}
			msg.Stats.TotalBytes = 1008 << 10
			m.Update(msg)
		}},
		{"recall", func(m *Model) {
			press(m, runes("7"), keyEnter)
			press(m, typed("where did we leave off on the payouts report")...)
			press(m, keyEnter)
		}},
		{"contradictions", func(m *Model) { press(m, runes("8")) }},
		{"lane", func(m *Model) { press(m, runes("9")) }},
	}
	st, dir := demoStore(t) // read-only use: one store for every capture
	for _, p := range panes {
		for _, sz := range sizes {
			t.Run(fmt.Sprintf("%s_%dx%d", p.name, sz[0], sz[1]), func(t *testing.T) {
				m := newStatic(t, st, sz[0], sz[1])
				p.setup(m)
				m.status = "" // status lines clear themselves in the app
				out := screen(m, dir)
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
}
