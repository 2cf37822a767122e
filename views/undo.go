package views

import (
	"fmt"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/odekmem/odekmem/memcore"
)

// forgotten is one atom Forget removed, with the links it had.
type forgotten struct {
	atom  memcore.Atom
	q     *memcore.QuarantinedAtom
	links []memcore.Link
}

// ForgetCmd forgets atoms (live or quarantined). Every atom's links are
// read before the first one goes (a batch's atoms may link each other),
// so u brings back the atoms and their links.
func ForgetCmd(d Deps, ids []string) func() tea.Msg {
	return func() tea.Msg {
		links := make(map[string][]memcore.Link, len(ids))
		for _, id := range ids {
			l, err := d.Store.Links(id)
			if err != nil {
				return MutatedMsg{Err: fmt.Errorf("forget: %w", err)}
			}
			links[id] = l
		}
		var done []forgotten
		for _, id := range ids {
			at, q, err := d.Store.Forget(d.Ctx, id)
			if err != nil {
				return MutatedMsg{Err: fmt.Errorf("forget: %w", err), Undo: forgetUndo(d, done)}
			}
			done = append(done, forgotten{atom: at, q: q, links: links[id]})
		}
		st := fmt.Sprintf("forgot %d atoms (u undoes)", len(ids))
		if len(ids) == 1 {
			st = fmt.Sprintf("forgot “%s” (u undoes)", Cut(Line(done[0].atom.Text), 50))
		}
		return MutatedMsg{Status: st, Undo: forgetUndo(d, done)}
	}
}

func forgetUndo(d Deps, done []forgotten) *Undo {
	if len(done) == 0 {
		return nil
	}
	label := "forget"
	if len(done) > 1 {
		label = fmt.Sprintf("forget %d", len(done))
	}
	return &Undo{Label: label, N: len(done), Run: func() error {
		// Every atom first, then every link, so links between atoms of
		// the batch come back too.
		for _, f := range done {
			if _, err := d.Store.Restore(d.Ctx, f.atom, f.q); err != nil {
				return err
			}
		}
		for _, f := range done {
			if err := d.Store.Relink(d.Ctx, f.atom.ID, f.links); err != nil {
				return err
			}
		}
		return nil
	}}
}
