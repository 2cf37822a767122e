package tui

import (
	"fmt"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/odekmem/odekmem/views"
)

// sizesMasked masks the byte counts and bars of the Budget pane: a
// directory's allocated size differs between file systems by a block.
func sizesMasked(s string) string {
	return sizeLine.ReplaceAllStringFunc(s, func(l string) string { return sizeDigits.ReplaceAllString(l, "#") })
}

var (
	sizeLine   = regexp.MustCompile(`(?m)^.*[KMG]iB.*$`)
	sizeDigits = regexp.MustCompile(`[0-9.]+|[█▏▎▍▌▋▊▉░ ]+`)
)

// screensDoc is the page of the docs that shows every pane.
const screensDoc = "../docs/tui-screens.md"

// TestScreensDoc keeps docs/tui-screens.md what the TUI draws (ASCII, 100
// columns): it fails when a screen changed and the page was not
// regenerated; SCREENS=1 rewrites the page.
func TestScreensDoc(t *testing.T) {
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
		{"1 Atoms — detail (enter)", func(m *Model) { press(m, keyDown, keyDown, keyDown, keyDown, keyDown, keyDown, keyDown, keyEnter) }},
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
			press(m, keyDown, keyDown, keyDown, keyDown, keyDown, keyDown, keyDown, runes("5"), runes("+"))
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
		{"8 Contradictions", func(m *Model) { press(m, runes("8")) }},
		{"9 From your messages — keep?", func(m *Model) { press(m, runes("9")) }},
		{"Forget asks y/N (default No)", func(m *Model) { press(m, runes("d")) }},
		{"Full help (?)", func(m *Model) { press(m, runes("?")) }},
	}
	var b strings.Builder
	b.WriteString("# What each pane looks like\n\n")
	b.WriteString("Captured from `odekmem demo` (the bundled demo store) at 100×30 in the ASCII colour profile\n")
	b.WriteString("(as with NO_COLOR), clock fixed at 2026-11-29 12:00 UTC. `go test ./tui/` checks that this\n")
	b.WriteString("page is what the TUI draws; `SCREENS=1 go test ./tui/ -run TestScreensDoc` regenerates it. The keys\n")
	b.WriteString("are in [tui.md](tui.md).\n\n")
	for _, s := range shots {
		m := newStatic(t, st, 100, 30)
		s.setup(m)
		if !strings.Contains(s.title, "y/N") {
			m.status = ""
		}
		fmt.Fprintf(&b, "## %s\n\n```text\n%s\n```\n\n", s.title, screen(m, dir))
	}
	got := strings.TrimRight(b.String(), "\n") + "\n"
	if os.Getenv("SCREENS") != "" {
		if err := os.WriteFile(screensDoc, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(screensDoc)
	if err != nil || sizesMasked(string(want)) != sizesMasked(got) {
		t.Errorf("%s is not what the TUI draws (%v): regenerate it with SCREENS=1 go test ./tui/ -run TestScreensDoc", screensDoc, err)
	}
}
