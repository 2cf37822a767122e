package views

import (
	"fmt"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/odekmem/odekmem/memcore"
)

// ForgetCmd forgets atoms (live or quarantined); u brings them back with
// their links.
func ForgetCmd(d Deps, ids []string) func() tea.Msg {
	return func() tea.Msg {
		var last memcore.Atom
		for i, id := range ids {
			at, _, u, err := d.Store.Forget(d.Ctx, id)
			if err != nil {
				return MutatedMsg{Err: fmt.Errorf("forget: %w", err), Undo: storeUndo(d, "forget", i)}
			}
			d.Review.Record(u)
			last = at
		}
		st := fmt.Sprintf("forgot %d atoms (u undoes)", len(ids))
		if len(ids) == 1 {
			st = fmt.Sprintf("forgot “%s” (u undoes)", Cut(Line(last.Text), 50))
		}
		u := storeUndo(d, "forget", len(ids))
		if u != nil {
			u.Select = ids[0] // undo selects what it brought back
		}
		return MutatedMsg{Status: st, Undo: u}
	}
}

// storeUndo is the Undo of an act that made n changes through the store,
// each recorded in d.Review: it takes back the session's latest n acts
// (review.Session.Undo), newest first, so a
// batch comes back whole, links between its atoms included. The label
// names the act; with n > 1 it gets the count. Nil when n is 0.
func storeUndo(d Deps, label string, n int) *Undo {
	if n == 0 {
		return nil
	}
	if n > 1 {
		label = fmt.Sprintf("%s %d", label, n)
	}
	return &Undo{Label: label, N: n, Run: func() error {
		for i := 0; i < n; i++ {
			if _, err := d.Review.Undo(d.Ctx); err != nil {
				return err
			}
		}
		return nil
	}}
}
