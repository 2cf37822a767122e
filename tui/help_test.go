package tui

import (
	"reflect"
	"strings"
	"testing"

	"github.com/odekmem/odekmem/memcore"
)

// TestHelpKeysPerPane compares each pane's help with the keys that apply;
// disabled bindings (undo with nothing to undo, depth 1 at depth 1, back
// with no history, clear filter with no filter) are hidden.
func TestHelpKeysPerPane(t *testing.T) {
	st, _ := demoStore(t)
	nav := "↑/k ↓/j pgup pgdn g/home G/end"
	global := "tab shift+tab u ? q 1-9"   // the full help lists u even before there is anything to undo
	withID := "tab shift+tab u Y ? q 1-9" // Y copies the selected id
	// The demo store, but an empty lane for the case that says so.
	emptyLane, _ := demoStoreWithout(t, "lane.json")
	stores := map[string]*memcore.Store{"lane (empty)": emptyLane}
	tests := []struct {
		name  string
		setup func(m *Model)
		want  string
	}{
		{"atoms", func(m *Model) { press(m, runes("1")) },
			nav + " / t s p S enter space/P d a f r " + withID},
		{"atoms filtered", func(m *Model) { press(m, runes("1"), runes("t")) },
			nav + " / esc t s p S enter space/P d a f r " + withID},
		{"atoms detail", func(m *Model) { press(m, runes("1"), keyEnter) },
			nav + " esc space/P d a f r " + withID},
		{"atoms typing", func(m *Model) { press(m, runes("1"), runes("/")) },
			"enter esc"},
		{"quarantine", func(m *Model) { press(m, runes("2")) },
			"↑/k ↓/j pgup pgdn space A p d / " + withID},
		{"quarantine filtered", func(m *Model) { press(m, runes("2"), runes("/"), runes("w"), keyEnter) },
			"↑/k ↓/j pgup pgdn space A p d / esc " + withID},
		{"pending", func(m *Model) { press(m, runes("3")) },
			"↑/k ↓/j c n/x / " + withID},
		{"lane (empty)", func(m *Model) { press(m, runes("9")) },
			"↑/k ↓/j " + global},
		{"user model", func(m *Model) { press(m, runes("4")) },
			"e d ↑/k ↓/j pgup pgdn / " + global},
		{"associations", func(m *Model) { press(m, runes("5")) },
			"↑/k ↓/j enter/→ + s / " + withID},
		{"associations deeper with history", func(m *Model) { press(m, runes("5"), runes("+"), keyEnter) },
			"↑/k ↓/j enter/→ ← - s / " + withID},
		{"budget", func(m *Model) { press(m, runes("6")) },
			"↑/k ↓/j pgup pgdn c " + global},
		{"recall", func(m *Model) { press(m, runes("7")) },
			"↑/k ↓/j pgup pgdn enter " + global},
		{"recall typing", func(m *Model) { press(m, runes("7"), keyEnter) },
			"enter esc"},
		{"prompt", func(m *Model) { press(m, runes("1"), runes("d")) },
			"y any other key"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := st
			if stores[tt.name] != nil {
				s = stores[tt.name]
			}
			m := newStatic(t, s, 120, 40)
			tt.setup(m)
			got := m.HelpKeys()
			want := strings.Fields(tt.want)
			if tt.name == "prompt" {
				want = []string{"y", "any other key"}
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("help keys\n got: %q\nwant: %q", got, want)
			}
		})
	}
}

// TestUndoKeyAppearsAfterForget checks u is hidden until there is
// something to undo.
func TestUndoKeyAppearsAfterForget(t *testing.T) {
	st, _ := demoStore(t)
	m := newStatic(t, st, 120, 40)
	if m.keys.Undo.Enabled() {
		t.Fatal("undo enabled with nothing to undo")
	}
	press(m, runes("d"), runes("y"))
	if !m.keys.Undo.Enabled() {
		t.Fatal("undo disabled after a forget")
	}
	if !contains(m.HelpKeys(), "u") {
		t.Fatalf("help lacks u: %q", m.HelpKeys())
	}
	press(m, runes("u"))
	if m.keys.Undo.Enabled() {
		t.Fatal("undo still enabled after undoing the only write")
	}
}

func contains(xs []string, x string) bool {
	for _, s := range xs {
		if s == x {
			return true
		}
	}
	return false
}
