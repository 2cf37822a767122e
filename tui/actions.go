package tui

// The root model's own acts: applying a pane's mutation (status, undo
// stack, reload), undo, copying the selected id, and noting store damage.

import (
	"fmt"
	"os"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/muesli/termenv"

	"github.com/odekmem/odekmem/views"
)

func (m *Model) mutated(msg views.MutatedMsg) tea.Cmd {
	var st tea.Cmd
	if msg.Undo != nil {
		m.undo = append(m.undo, *msg.Undo)
		if len(m.undo) > 50 {
			m.undo = m.undo[1:]
		}
	}
	if msg.Err != nil {
		st = m.setStatus(msg.Err.Error(), true)
	} else if msg.Status != "" {
		st = m.setStatus(msg.Status, false)
	}
	m.refreshKeys()
	return tea.Batch(st, m.broadcast(views.ReloadMsg{Select: msg.Select}))
}

func (m *Model) setStatus(text string, isErr bool) tea.Cmd {
	m.seq++
	m.status, m.isErr = views.Line(text), isErr
	if m.opts.StatusTTL <= 0 {
		return nil
	}
	seq := m.seq
	return tea.Tick(m.opts.StatusTTL, func(time.Time) tea.Msg { return clearStatusMsg{seq: seq} })
}

func (m *Model) undoLast() tea.Cmd {
	if len(m.undo) == 0 {
		return nil
	}
	u := m.undo[len(m.undo)-1]
	m.undo = m.undo[:len(m.undo)-1]
	m.refreshKeys()
	return views.Work(func() tea.Msg {
		if err := u.Run(); err != nil {
			return undoneMsg{err: err, undo: u}
		}
		return undoneMsg{status: fmt.Sprintf("undid %s (%d restored)", u.Label, u.N), selectID: u.Select}
	})
}

type copiedMsg struct {
	id  string
	err error
}

// copyID copies the selected id with OSC 52, which works over ssh and in
// tmux (with set-clipboard on) without a clipboard program. Ids are the
// store's own hex alphabet, and OSC 52 carries them base64-encoded.
func (m *Model) copyID() tea.Cmd {
	id := m.selectedID()
	if id == "" {
		return nil
	}
	w := m.opts.Clipboard
	if w == nil {
		w = os.Stdout
	}
	return func() tea.Msg {
		termenv.NewOutput(w).Copy(id)
		return copiedMsg{id: views.Line(id)}
	}
}

// selectedID is the id of what the focused pane has selected, if anything.
func (m *Model) selectedID() string {
	if sel, ok := m.panes[m.focus].(views.Selector); ok {
		return sel.SelectedID()
	}
	return ""
}

// noteDamage picks up damage the store found since the last look (on
// open, or when a reload met a damaged file).
func (m *Model) noteDamage() {
	if m.d.Store == nil {
		return
	}
	if ps := m.d.Store.Problems(); len(ps) > len(m.damage) {
		m.damage = ps
		m.resize()
	}
}
