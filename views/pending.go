package views

import (
	"errors"
	"fmt"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/odekmem/odekmem/keymap"
	"github.com/odekmem/odekmem/memcore"
)

// PItem is a pending review with the field's current confirmed value.
type PItem struct {
	P       memcore.PendingReview
	Current string
	Known   bool
}

// PendingLoadedMsg carries the pending-review queue.
type PendingLoadedMsg struct {
	Items []PItem
	Err   error
}

// LoadPending reads the queue and the current values.
func LoadPending(d Deps) tea.Cmd {
	return func() tea.Msg {
		if d.Store == nil {
			return PendingLoadedMsg{}
		}
		um := d.Store.UserModel()
		var items []PItem
		for _, p := range um.Pending {
			cur, known := um.Get(p.Field)
			items = append(items, PItem{P: p, Current: cur, Known: known})
		}
		return PendingLoadedMsg{Items: items}
	}
}

// Pending is the pane of user-model inferences waiting for a person.
type Pending struct {
	d      Deps
	keys   keymap.Pending
	nav    keymap.Nav
	items  []PItem
	cur    Cursor
	selID  string
	loaded bool
	err    error
	width  int
	height int
	listH  int
}

// NewPending returns the Pending pane.
func NewPending(d Deps) *Pending {
	p := &Pending{d: d, keys: d.Keys.Pending, nav: d.Keys.Nav}
	p.refreshKeys()
	return p
}

// Init loads the queue.
func (p *Pending) Init() tea.Cmd { return LoadPending(p.d) }

// Title is "Pending N".
func (p *Pending) Title() string { return fmt.Sprintf("Pending %d", len(p.items)) }

// SetSize sets the size.
func (p *Pending) SetSize(w, h int) {
	p.width, p.height = w, h
	p.listH = (h - 2) / 2
	if p.listH < 3 {
		p.listH = 3
	}
	p.cur.SetH(p.listH)
}

// SelectedID is the selected entry's id.
func (p *Pending) SelectedID() string {
	if len(p.items) == 0 {
		return ""
	}
	return p.items[p.cur.Pos].P.ID
}

func (p *Pending) refreshKeys() {
	has := len(p.items) > 0
	p.keys.Confirm.SetEnabled(has)
	p.keys.Reject.SetEnabled(has)
}

// SetItems replaces the data. The selection follows its id; when the entry
// is gone (confirmed or rejected) the cursor stays put, selecting the next.
func (p *Pending) SetItems(items []PItem) {
	pos := p.cur.Pos
	p.items, p.loaded = items, true
	p.cur.SetN(len(items))
	p.cur.Set(pos)
	for i, it := range items {
		if it.P.ID == p.selID {
			p.cur.Set(i)
		}
	}
	p.selID = p.SelectedID()
	p.refreshKeys()
}

// Update handles keys and results.
func (p *Pending) Update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case PendingLoadedMsg:
		p.err = msg.Err
		if msg.Err == nil {
			p.SetItems(msg.Items)
		}
	case ReloadMsg:
		return LoadPending(p.d)
	case tea.MouseMsg:
		if p.cur.HandleNav(msg, p.nav) {
			p.selID = p.SelectedID()
		}
	case tea.KeyMsg:
		if p.cur.HandleNav(msg, p.nav) {
			p.selID = p.SelectedID()
			return nil
		}
		if len(p.items) == 0 {
			return nil
		}
		it := p.items[p.cur.Pos]
		switch {
		case key.Matches(msg, p.keys.Confirm):
			p.selID = "" // the next entry takes the cursor
			return Work(ConfirmCmd(p.d, it.P))
		case key.Matches(msg, p.keys.Reject):
			q := fmt.Sprintf("Reject %s = “%s”?", Line(it.P.Field), Cut(Line(it.P.Value), 40))
			return Confirm(q, Work(RejectCmd(p.d, it.P)))
		}
	}
	return nil
}

// ConfirmCmd applies a pending inference.
func ConfirmCmd(d Deps, pr memcore.PendingReview) func() tea.Msg {
	return func() tea.Msg {
		_, err := d.Store.Confirm(d.Ctx, pr.ID)
		if errors.Is(err, memcore.ErrUnknownField) {
			return MutatedMsg{Err: fmt.Errorf("cannot confirm %s: unknown user-model field; the entry stays queued", Line(pr.Field))}
		}
		if err != nil {
			return MutatedMsg{Err: fmt.Errorf("confirm: %w", err)}
		}
		return MutatedMsg{Status: fmt.Sprintf("confirmed %s = “%s”", Line(pr.Field), Cut(Line(pr.Value), 40))}
	}
}

// RejectCmd drops a pending inference; u undoes it.
func RejectCmd(d Deps, pr memcore.PendingReview) func() tea.Msg {
	return func() tea.Msg {
		got, err := d.Store.Reject(d.Ctx, pr.ID)
		if err != nil {
			return MutatedMsg{Err: fmt.Errorf("reject: %w", err)}
		}
		return MutatedMsg{Status: fmt.Sprintf("rejected %s (u undoes)", Line(pr.Field)),
			Undo: &Undo{Label: "reject " + Line(pr.Field), Pending: &got}}
	}
}

// View renders the queue and the selected entry.
func (p *Pending) View() string {
	s := p.d.Styles
	var b strings.Builder
	b.WriteString(s.Title.Render("Pending reviews") + s.Muted.Render(fmt.Sprintf(" · %d inferences waiting · none reach a prompt until confirmed", len(p.items))) + "\n")
	switch {
	case p.err != nil:
		return b.String() + s.StatusErr.Render("cannot read pending reviews: "+Line(p.err.Error()))
	case !p.loaded:
		return b.String() + s.Muted.Render("loading…")
	case len(p.items) == 0:
		return b.String() + s.Muted.Render("Nothing to review.")
	}
	fw := 30
	cw := (p.width - fw - 12) / 2
	start, end := p.cur.Range()
	var list []string
	for i := start; i < end; i++ {
		it := p.items[i]
		sel := " "
		if i == p.cur.Pos {
			sel = ">"
		}
		cur := Line(it.Current)
		if cur == "" {
			cur = "(unset)"
		}
		line := fmt.Sprintf("%s %-*s %-*s → %-*s %4.2f", sel, fw, Cut(Line(it.P.Field), fw), cw, Cut(cur, cw), cw, Cut(Line(it.P.Value), cw), it.P.Confidence)
		if i == p.cur.Pos {
			line = s.Selected.Render(Fit(line, p.width))
		}
		list = append(list, line)
	}
	for len(list) < p.listH {
		list = append(list, "")
	}
	b.WriteString(strings.Join(list, "\n"))
	b.WriteString("\n" + s.Muted.Render(strings.Repeat("─", p.width)) + "\n")
	it := p.items[p.cur.Pos]
	lbl := func(k string) string { return s.Label.Render(fmt.Sprintf("%-11s", k)) }
	cur := Line(it.Current)
	if cur == "" {
		cur = s.Muted.Render("(unset)")
	}
	if !it.Known {
		cur = s.Danger.Render("unknown field: confirm will fail")
	}
	rows := []string{
		lbl("field") + Line(it.P.Field),
		lbl("current") + cur,
		lbl("proposed") + s.OK.Render(Line(it.P.Value)),
		lbl("confidence") + fmt.Sprintf("%.2f", it.P.Confidence),
		lbl("created") + it.P.CreatedAt.UTC().Format("2006-01-02 15:04"),
	}
	ev := Wrap(Line(orDash(it.P.Evidence)), p.width-11)
	for i, l := range strings.Split(ev, "\n") {
		if i == 0 {
			rows = append(rows, lbl("evidence")+l)
		} else {
			rows = append(rows, strings.Repeat(" ", 11)+l)
		}
	}
	b.WriteString(strings.Join(rows, "\n"))
	return b.String()
}

// ShortHelp lists the main keys.
func (p *Pending) ShortHelp() []key.Binding { return []key.Binding{p.keys.Confirm, p.keys.Reject} }

// FullHelp lists every key.
func (p *Pending) FullHelp() [][]key.Binding {
	return [][]key.Binding{{p.nav.Up, p.nav.Down}, {p.keys.Confirm, p.keys.Reject}}
}
