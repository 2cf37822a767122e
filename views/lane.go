package views

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/odekmem/odekmem/keymap"
	"github.com/odekmem/odekmem/memcore"
)

// The Lane pane: "from your messages — keep?". Sentences from the
// person's own messages that per-turn extraction was not sure about wait
// here, never recalled: c keeps one as the person's (user_approved, with
// the message as evidence), n/x drops it, S keeps every entry of the
// selected entry's session; u takes any of these back.

// LaneLoadedMsg carries the lane.
type LaneLoadedMsg = LoadedMsg[memcore.LaneEntry]

// LoadLane reads the lane, newest first.
func LoadLane(d Deps) tea.Cmd {
	return loadItems(d, func(st *memcore.Store) ([]memcore.LaneEntry, error) { return st.Lane(d.Ctx) })
}

// Lane is the pane of the lane.
type Lane struct {
	filterBar
	listPane[memcore.LaneEntry]
	keys keymap.Lane
}

// NewLane returns the Lane pane.
func NewLane(d Deps) *Lane {
	p := &Lane{keys: d.Keys.Lane,
		filterBar: newFilterBar(d, NewListFilter("words, or type:convention session:s1", []string{"type", "session", "why", "text"}, map[string]string{"t": "type", "s": "session"}))}
	p.listPane = newListPane(d, &p.filterBar, LoadLane, func(e memcore.LaneEntry) string { return e.ID }, func(f *ListFilter, e memcore.LaneEntry) bool {
		return f.Match(map[string]string{"type": string(e.Type), "session": e.Context.SessionID, "why": e.Why, "text": e.Text}, e.Text)
	})
	p.changed = p.refreshKeys
	p.refresh()
	return p
}

// Title is "Lane N" (or "Lane shown/N" when filtered).
func (p *Lane) Title() string { return p.title("Lane") }

func (p *Lane) refreshKeys() {
	has := len(p.view) > 0
	p.keys.Keep.SetEnabled(has)
	p.keys.Drop.SetEnabled(has)
	it, _ := p.selected()
	p.keys.KeepSession.SetEnabled(has && it.Context.SessionID != "")
}

// Update handles keys and results.
func (p *Lane) Update(msg tea.Msg) tea.Cmd {
	if cmd, done := p.updateList(msg); done {
		return cmd
	}
	k, isKey := msg.(tea.KeyMsg)
	it, ok := p.selected()
	if !isKey || !ok {
		return nil
	}
	switch {
	case key.Matches(k, p.keys.Keep):
		p.selID = "" // the next entry takes the cursor
		return Work(KeepCmd(p.d, it))
	case key.Matches(k, p.keys.Drop):
		p.selID = ""
		return Work(DropCmd(p.d, it))
	case key.Matches(k, p.keys.KeepSession) && it.Context.SessionID != "":
		n := 0
		for _, e := range p.items {
			if e.Context.SessionID == it.Context.SessionID {
				n++
			}
		}
		q := fmt.Sprintf("Keep all %d from session %s as your own?", n, Cut(Line(it.Context.SessionID), 24))
		return Confirm(q, Work(KeepSessionCmd(p.d, it.Context.SessionID)))
	}
	return nil
}

// KeepCmd keeps a lane entry; u undoes it.
func KeepCmd(d Deps, e memcore.LaneEntry) func() tea.Msg {
	return func() tea.Msg {
		rs, u, err := d.Store.Keep(d.Ctx, e.ID)
		if err != nil {
			return MutatedMsg{Err: fmt.Errorf("keep: %w", err)}
		}
		d.Review.Record(u)
		r := rs[0]
		what := "kept as yours"
		if r.Quarantined {
			what = "held in quarantine (" + r.Reason + ")"
		}
		return MutatedMsg{Status: fmt.Sprintf("%s: “%s” (u undoes)", what, Cut(Line(e.Text), 50)), Undo: storeUndo(d, "keep", 1)}
	}
}

// DropCmd drops a lane entry; u undoes it.
func DropCmd(d Deps, e memcore.LaneEntry) func() tea.Msg {
	return func() tea.Msg {
		_, u, err := d.Store.Drop(d.Ctx, e.ID)
		if err != nil {
			return MutatedMsg{Err: fmt.Errorf("drop: %w", err)}
		}
		d.Review.Record(u)
		return MutatedMsg{Status: fmt.Sprintf("dropped “%s” (u undoes)", Cut(Line(e.Text), 50)), Undo: storeUndo(d, "drop", 1)}
	}
}

// KeepSessionCmd keeps every entry of a session; one u undoes it all.
func KeepSessionCmd(d Deps, session string) func() tea.Msg {
	return func() tea.Msg {
		lane, err := d.Store.Lane(d.Ctx, session)
		if err == nil && len(lane) == 0 {
			err = fmt.Errorf("%w: no lane entry from session %s", memcore.ErrNotFound, session)
		}
		var rs []memcore.AddResult
		var u memcore.Undo
		if err == nil {
			ids := make([]string, len(lane))
			for i, e := range lane {
				ids[i] = e.ID
			}
			rs, u, err = d.Store.Keep(d.Ctx, ids...)
		}
		if err != nil {
			return MutatedMsg{Err: fmt.Errorf("keep session: %w", err)}
		}
		d.Review.Record(u)
		return MutatedMsg{Status: fmt.Sprintf("kept %d from session %s (u undoes)", len(rs), Cut(Line(session), 24)), Undo: storeUndo(d, "keep session", 1)}
	}
}

// View renders the lane and the selected entry with its message.
func (p *Lane) View() string {
	s := p.d.Styles
	head := p.head("From your messages — keep?", "entry", "entries", " · never recalled until kept")
	top, done := p.listStates(head, "the lane", "Nothing waits: every sentence was clear enough.", "No entry matches the filter. Press esc to clear it.")
	if done {
		return top
	}
	var b strings.Builder
	b.WriteString(top)
	tw := 11
	b.WriteString(p.rows(func(e memcore.LaneEntry, sel string, selected bool) string {
		line := fmt.Sprintf("%s %-*s %s", sel, tw, Cut(string(e.Type), tw), Cut(Line(e.Text), max(10, p.width-tw-4)))
		if selected {
			line = s.Selected.Render(Fit(line, p.width))
		}
		return line
	}))
	e, _ := p.selected()
	lbl := func(k string) string { return s.Label.Render(fmt.Sprintf("%-11s", k)) }
	rows := []string{
		lbl("why") + Line(orDash(e.Why)),
		lbl("session") + Line(orDash(e.Context.SessionID)) + s.Muted.Render(fmt.Sprintf("  turn %d", e.Context.Turn)),
		lbl("created") + e.CreatedAt.UTC().Format("2006-01-02 15:04"),
	}
	if e.Quote != "" {
		rows = append(rows, lbl("quote")+Cut(Line(e.Quote), p.width-11))
	}
	msg := Wrap(Line(orDash(e.Message)), p.width-11)
	for i, l := range strings.Split(msg, "\n") {
		if i == 4 {
			rows = append(rows, strings.Repeat(" ", 11)+s.Muted.Render("…"))
			break
		}
		if i == 0 {
			rows = append(rows, lbl("message")+l)
		} else {
			rows = append(rows, strings.Repeat(" ", 11)+l)
		}
	}
	b.WriteString(strings.Join(rows, "\n"))
	return p.withInput(b.String())
}

// ShortHelp lists the main keys.
func (p *Lane) ShortHelp() []key.Binding {
	return p.shortHelp(p.keys.Keep, p.keys.Drop, p.keys.KeepSession)
}

// FullHelp lists every key.
func (p *Lane) FullHelp() [][]key.Binding {
	return p.fullHelp([]key.Binding{p.nav.Up, p.nav.Down}, []key.Binding{p.keys.Keep, p.keys.Drop, p.keys.KeepSession})
}
