package tui

// Issue 14: the "/" filter in every pane and where the cursor lands
// after it, and search that starts fresh. The real program under teatest.

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/odekmem/odekmem/memcore"
	"github.com/odekmem/odekmem/views"
)

// Item 3: a changed filter puts the cursor on the first match, typed or
// cycled with p; live reloads with the same filter keep the selection.
func TestCursorAfterFilter(t *testing.T) {
	t.Parallel()
	st, tm := startDemo(t, 120, 40)
	for i := 0; i < 25; i++ {
		send(tm, keyDown)
	}
	tm.Send(runes("/payouts"))
	waitOut(t, tm, "filter: payouts")
	send(tm, keyEnter)
	waitOut(t, tm, "esc clear filter") // the input closed
	m := finish(t, tm)
	first := ""
	for _, a := range must(st.List(context.Background(), memcore.Filter{})) {
		if strings.Contains(strings.ToLower(a.Text), "payouts") {
			first = a.ID
			break
		}
	}
	if got := selectedID(m, PaneAtoms); got != first {
		t.Errorf("cursor on %s after the filter, want the first (newest) match %s", got, first)
	}

	m = newStatic(t, st, 120, 40)
	for i := 0; i < 25; i++ {
		press(m, keyDown)
	}
	press(m, runes("p")) // cycle the project filter
	pa := m.Pane(PaneAtoms).(*views.Atoms)
	proj := strings.TrimPrefix(strings.Fields(pa.FilterText())[0], "project:")
	for _, a := range must(st.List(context.Background(), memcore.Filter{})) {
		if strings.Contains(strings.ToLower(a.Context.Project), proj) {
			first = a.ID
			break
		}
	}
	if got := selectedID(m, PaneAtoms); got != first {
		t.Errorf("cursor on %s after cycling p, want the first match %s", got, first)
	}
}

// Item 4: "/" filters every list pane the same way; a pane with no list
// says so instead of ignoring the key.
func TestSlashFiltersEveryPane(t *testing.T) {
	// Driven synchronously (each key's commands run to completion before
	// the next key), so nothing here waits on the machine's speed.
	st, _ := demoStore(t)
	m := newStatic(t, st, 120, 40)
	see := func(wants ...string) {
		t.Helper()
		v := m.View()
		for _, w := range wants {
			if !strings.Contains(v, w) {
				t.Fatalf("screen lacks %q:\n%s", w, v)
			}
		}
	}
	// Quarantine by source, by reason and by text.
	press(m, runes("2"), runes("/"))
	press(m, typed("source:web")...)
	see("Quarantine 2/14", "filter: source:web")
	press(m, keyEnter, keyEsc)
	see("Quarantine 14")
	press(m, runes("/"))
	press(m, typed("reason:scan_rejected")...)
	rejected := 0
	for _, q := range must(st.Quarantined(context.Background())) {
		if views.ScanRejected(q) {
			rejected++
		}
	}
	see(fmt.Sprintf("Quarantine %d/14", rejected))
	press(m, keyEnter, keyEsc, runes("/"))
	press(m, typed("kubectl")...)
	see("Quarantine 1/14", "kubectl get pods")
	press(m, keyEnter)
	// Pending by field.
	press(m, runes("3"), runes("/"))
	press(m, typed("field:style")...)
	see("Pending 2/5", "filter: field:style")
	press(m, keyEnter)
	// User model by field or value.
	press(m, runes("4"), runes("/"))
	press(m, typed("tools")...)
	see("filter: tools", "golangci-lint")
	press(m, keyEnter)
	// Associations by neighbour.
	press(m, runes("1"), keyDown, keyDown, keyDown, keyDown, keyDown, keyDown, keyDown, runes("5"))
	see("Associations · depth 1")
	press(m, runes("/"))
	press(m, typed("type:convention")...)
	see("filter: type:convention", "─▶ convention")
	press(m, keyEnter)
	// Budget has no list.
	press(m, runes("6"), runes("/"))
	see("Budget has no list to filter")
	a := m.Pane(PaneAssoc).(*views.Assoc)
	if !strings.Contains(a.View(), "convention") || strings.Contains(a.View(), "─▶ file ") {
		t.Errorf("graph filter shows other neighbours:\n%s", a.View())
	}
}

// Item 8: a new search starts empty (↑ brings back the last query) and
// stays within the active filter.
func TestFreshSearch(t *testing.T) {
	t.Parallel()
	_, tm := startDemo(t, 120, 40)
	tm.Send(runes("f"))
	tm.Type("payouts timezone")
	send(tm, keyEnter)
	waitOut(t, tm, `search "payouts timezone"`)
	send(tm, keyEsc, runes("f"))
	tm.Type("stripe webhook")
	send(tm, keyEnter)
	waitOut(t, tm, `search "stripe webhook"`)
	send(tm, keyEsc, runes("f"), keyUp, keyUp)
	waitOut(t, tm, "search: payouts timezone")
	send(tm, keyEsc)
	tm.Send(runes("/type:decision"))
	send(tm, keyEnter, runes("f"))
	tm.Type("payouts")
	send(tm, keyEnter)
	waitOut(t, tm, `search "payouts"`, "within type:decision")
	m := finish(t, tm)
	a := m.Pane(PaneAtoms).(*views.Atoms)
	v := a.View()
	rows := 0
	for _, l := range strings.Split(v, "\n")[2:] {
		if strings.TrimSpace(l) == "" || strings.HasPrefix(l, "matched: ") {
			continue // the legend
		}
		rows++
		if !strings.Contains(l, "decision") {
			t.Errorf("search within type:decision shows %q", l)
		}
	}
	if rows == 0 {
		t.Fatalf("no results:\n%s", v)
	}
}

// Item 3 in the other list panes: a changed filter selects the first match.
func TestCursorAfterFilterEveryPane(t *testing.T) {
	st, _ := demoStore(t)
	m := newStatic(t, st, 120, 40)
	press(m, runes("2"), runes("G"))
	press(m, runes("/"))
	press(m, typed("source:tool_output")...)
	press(m, keyEnter)
	var first string
	for _, q := range must(st.Quarantined(context.Background())) {
		if q.SourceClass == "tool_output" {
			first = q.ID
			break
		}
	}
	if got := selectedID(m, PaneQuarantine); got != first {
		t.Errorf("quarantine: cursor on %s after the filter, want the first match %s", got, first)
	}
	press(m, runes("3"), runes("G"), runes("/"))
	press(m, typed("field:style")...)
	for _, p := range must(st.UserModel(context.Background())).Pending {
		if strings.HasPrefix(p.Field, "style.") {
			first = p.ID
			break
		}
	}
	if got := selectedID(m, PanePending); got != first {
		t.Errorf("pending: cursor on %s after the filter, want the first match %s", got, first)
	}
}
