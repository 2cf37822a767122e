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
	lkeys  keymap.List
	in     keymap.Input
	nav    keymap.Nav
	items  []PItem
	view   []int // indexes into items that pass the filter
	filter ListFilter
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
	p := &Pending{d: d, keys: d.Keys.Pending, lkeys: d.Keys.List, in: d.Keys.Input, nav: d.Keys.Nav,
		filter: NewListFilter("words, or field:style value:dry", []string{"field", "value", "current", "evidence"}, map[string]string{"f": "field", "v": "value"})}
	p.refreshKeys()
	return p
}

// Init loads the queue.
func (p *Pending) Init() tea.Cmd { return LoadPending(p.d) }

// Title is "Pending N" (or "Pending shown/N" when filtered).
func (p *Pending) Title() string {
	if p.filter.Text() != "" {
		return fmt.Sprintf("Pending %d/%d", len(p.view), len(p.items))
	}
	return fmt.Sprintf("Pending %d", len(p.items))
}

// FilterText is the filter as typed.
func (p *Pending) FilterText() string { return p.filter.Text() }

// InputActive reports whether the filter input has the keys.
func (p *Pending) InputActive() bool { return p.filter.Typing() }

// apply recomputes the filtered view; a changed filter puts the cursor on
// the first match, otherwise the selection follows its id.
func (p *Pending) apply(changed bool) {
	p.view = p.view[:0]
	for i, it := range p.items {
		if p.filter.Match(map[string]string{"field": it.P.Field, "value": it.P.Value, "current": it.Current, "evidence": it.P.Evidence}, "") {
			p.view = append(p.view, i)
		}
	}
	pos := p.cur.Pos
	p.cur.SetN(len(p.view))
	if changed {
		p.cur.Set(0)
	} else {
		p.cur.Set(pos)
		for vi, i := range p.view {
			if p.items[i].P.ID == p.selID {
				p.cur.Set(vi)
			}
		}
	}
	p.selID = p.SelectedID()
	p.refreshKeys()
}

func (p *Pending) selected() (PItem, bool) {
	if len(p.view) == 0 {
		return PItem{}, false
	}
	return p.items[p.view[p.cur.Pos]], true
}

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
	it, ok := p.selected()
	if !ok {
		return ""
	}
	return it.P.ID
}

func (p *Pending) refreshKeys() {
	has := len(p.view) > 0
	p.keys.Confirm.SetEnabled(has)
	p.keys.Reject.SetEnabled(has)
	p.lkeys.Filter.SetEnabled(len(p.items) > 0 || p.filter.Text() != "")
	p.lkeys.ClearFilter.SetEnabled(p.filter.Text() != "")
}

// SetItems replaces the data. The selection follows its id; when the entry
// is gone (confirmed or rejected) the cursor stays put, selecting the next.
func (p *Pending) SetItems(items []PItem) {
	p.items, p.loaded = items, true
	p.apply(false)
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
		if p.cur.HandleNav(msg, p.nav) || p.cur.Click(msg, 1) {
			p.selID = p.SelectedID()
		}
	case tea.KeyMsg:
		if p.filter.Typing() {
			if p.filter.Key(msg, p.in) {
				p.apply(true)
			}
			p.refreshKeys()
			return nil
		}
		if p.cur.HandleNav(msg, p.nav) {
			p.selID = p.SelectedID()
			return nil
		}
		switch {
		case key.Matches(msg, p.lkeys.Filter):
			p.filter.Start()
			return nil
		case key.Matches(msg, p.lkeys.ClearFilter):
			if p.filter.Clear() {
				p.apply(true)
			}
			return nil
		}
		it, ok := p.selected()
		if !ok {
			return nil
		}
		switch {
		case key.Matches(msg, p.keys.Confirm):
			p.selID = "" // the next entry takes the cursor
			return Work(ConfirmCmd(p.d, it))
		case key.Matches(msg, p.keys.Reject):
			q := fmt.Sprintf("Reject %s = “%s”?", Line(it.P.Field), Cut(Line(it.P.Value), 40))
			return Confirm(q, Work(RejectCmd(p.d, it.P)))
		}
	}
	return nil
}

// ConfirmCmd applies a pending inference; u undoes it (the field gets its
// previous value back and the review returns to the queue).
func ConfirmCmd(d Deps, it PItem) func() tea.Msg {
	pr := it.P
	return func() tea.Msg {
		prev, _ := d.Store.UserModel().Get(pr.Field)
		_, err := d.Store.Confirm(d.Ctx, pr.ID)
		if errors.Is(err, memcore.ErrUnknownField) {
			return MutatedMsg{Err: fmt.Errorf("cannot confirm %s: unknown user-model field; the entry stays queued", Line(pr.Field))}
		}
		if err != nil {
			return MutatedMsg{Err: fmt.Errorf("confirm: %w", err)}
		}
		verb := "="
		if memcore.IsListField(pr.Field) {
			verb = "+"
		}
		return MutatedMsg{Status: fmt.Sprintf("confirmed %s %s “%s” (u undoes)", Line(pr.Field), verb, Cut(Line(pr.Value), 40)),
			Undo: &Undo{Label: "confirm " + Line(pr.Field), N: 1, Run: func() error { return d.Store.UndoConfirm(d.Ctx, pr, prev) }}}
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
			Undo: &Undo{Label: "reject " + Line(pr.Field), N: 1, Run: func() error { return d.Store.RestorePending(d.Ctx, got) }}}
	}
}

// View renders the queue and the selected entry.
func (p *Pending) View() string {
	s := p.d.Styles
	var b strings.Builder
	head := s.Title.Render("Pending reviews") + s.Muted.Render(" · "+Count(len(p.items), "inference", "inferences")+" waiting · none reach a prompt until confirmed")
	if l := p.filter.Label(); l != "" {
		head = s.Title.Render("Pending reviews") + s.Muted.Render(fmt.Sprintf(" · %d of %s", len(p.view), Count(len(p.items), "inference", "inferences"))) + " " + s.Accent.Render(l)
	}
	b.WriteString(Cut(head, p.width) + "\n")
	switch {
	case p.err != nil:
		return b.String() + s.StatusErr.Render("cannot read pending reviews: "+Line(p.err.Error()))
	case !p.loaded:
		return b.String() + s.Muted.Render("loading…")
	case len(p.items) == 0:
		return p.withInput(b.String() + s.Muted.Render("Nothing to review."))
	case len(p.view) == 0:
		return p.withInput(b.String() + s.Muted.Render("No inference matches the filter. Press esc to clear it."))
	}
	fw := 30
	cw := (p.width - fw - 12) / 2
	start, end := p.cur.Range()
	var list []string
	for i := start; i < end; i++ {
		it := p.items[p.view[i]]
		sel := " "
		if i == p.cur.Pos {
			sel = ">"
		}
		cur := Line(it.Current)
		if cur == "" {
			cur = "(unset)"
		}
		// A list field gains the value ("+"); any other field takes it ("→").
		arrow := "→"
		if memcore.IsListField(it.P.Field) {
			arrow = "+"
		}
		line := fmt.Sprintf("%s %-*s %-*s %s %-*s %4.2f", sel, fw, Cut(Line(it.P.Field), fw), cw, Cut(cur, cw), arrow, cw, Cut(Line(it.P.Value), cw), it.P.Confidence)
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
	it, _ := p.selected()
	lbl := func(k string) string { return s.Label.Render(fmt.Sprintf("%-11s", k)) }
	cur := Line(it.Current)
	if cur == "" {
		cur = s.Muted.Render("(unset)")
	}
	if !it.Known {
		cur = s.Danger.Render("unknown field: confirm will fail")
	}
	proposed := s.OK.Render(Line(it.P.Value))
	if memcore.IsListField(it.P.Field) {
		proposed = s.OK.Render("+ "+Line(it.P.Value)) + s.Muted.Render("  (added to the list)")
	}
	rows := []string{
		lbl("field") + Line(it.P.Field),
		lbl("current") + cur,
		lbl("proposed") + proposed,
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
	return p.withInput(b.String())
}

// withInput puts the filter input on the pane's last line while typing.
func (p *Pending) withInput(body string) string {
	return withFilterInput(&p.filter, p.d, body, p.width, p.height)
}

// ShortHelp lists the main keys.
func (p *Pending) ShortHelp() []key.Binding {
	if p.filter.Typing() {
		return []key.Binding{p.in.Submit, p.in.Cancel}
	}
	return []key.Binding{p.keys.Confirm, p.keys.Reject, p.lkeys.Filter, p.lkeys.ClearFilter}
}

// FullHelp lists every key.
func (p *Pending) FullHelp() [][]key.Binding {
	if p.filter.Typing() {
		return [][]key.Binding{{p.in.Submit, p.in.Cancel}}
	}
	return [][]key.Binding{{p.nav.Up, p.nav.Down}, {p.keys.Confirm, p.keys.Reject}, {p.lkeys.Filter, p.lkeys.ClearFilter}}
}
