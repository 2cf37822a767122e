package views

import (
	"errors"
	"fmt"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/odekmem/odekmem/internal/umfield"
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
type PendingLoadedMsg = LoadedMsg[PItem]

// LoadPending reads the queue and the current values.
func LoadPending(d Deps) tea.Cmd {
	return loadItems(d, func(st *memcore.Store) ([]PItem, error) {
		um, err := st.UserModel(d.Ctx)
		if err != nil {
			return nil, err
		}
		var items []PItem
		for _, p := range um.Pending {
			cur, known := um.Get(p.Field)
			items = append(items, PItem{P: p, Current: cur, Known: known})
		}
		return items, nil
	})
}

// Pending is the pane of user-model inferences waiting for a person.
type Pending struct {
	filterBar
	listPane[PItem]
	keys keymap.Pending
}

// NewPending returns the Pending pane.
func NewPending(d Deps) *Pending {
	p := &Pending{keys: d.Keys.Pending,
		filterBar: newFilterBar(d, NewListFilter("words, or field:style value:dry", []string{"field", "value", "current", "evidence"}, map[string]string{"f": "field", "v": "value"}))}
	p.listPane = newListPane(d, &p.filterBar, LoadPending, func(it PItem) string { return it.P.ID }, func(f *ListFilter, it PItem) bool {
		return f.Match(map[string]string{"field": it.P.Field, "value": it.P.Value, "current": it.Current, "evidence": it.P.Evidence}, "")
	})
	p.changed = p.refreshKeys
	p.refresh()
	return p
}

// Title is "Pending N" (or "Pending shown/N" when filtered).
func (p *Pending) Title() string { return p.title("Pending") }

func (p *Pending) refreshKeys() {
	has := len(p.view) > 0
	p.keys.Confirm.SetEnabled(has)
	p.keys.Reject.SetEnabled(has)
}

// Update handles keys and results.
func (p *Pending) Update(msg tea.Msg) tea.Cmd {
	if cmd, done := p.updateList(msg); done {
		return cmd
	}
	k, isKey := msg.(tea.KeyMsg)
	it, ok := p.selected()
	if !isKey || !ok {
		return nil
	}
	switch {
	case key.Matches(k, p.keys.Confirm):
		p.selID = "" // the next entry takes the cursor
		return Work(ConfirmCmd(p.d, it))
	case key.Matches(k, p.keys.Reject):
		q := fmt.Sprintf("Reject %s = “%s”?", Line(it.P.Field), Cut(Line(it.P.Value), 40))
		return Confirm(q, Work(RejectCmd(p.d, it.P)))
	}
	return nil
}

// ConfirmCmd applies a pending inference; u undoes it (the field gets its
// previous value back and the review returns to the queue).
func ConfirmCmd(d Deps, it PItem) func() tea.Msg {
	pr := it.P
	return func() tea.Msg {
		_, u, err := d.Store.Confirm(d.Ctx, pr.ID)
		if errors.Is(err, memcore.ErrInvalidArgument) {
			return MutatedMsg{Err: fmt.Errorf("cannot confirm %s: %v; the entry stays queued", Line(pr.Field), err)}
		}
		if err != nil {
			return MutatedMsg{Err: fmt.Errorf("confirm: %w", err)}
		}
		d.Review.Record(u)
		verb := "="
		if umfield.IsList(pr.Field) {
			verb = "+"
		}
		return MutatedMsg{Status: fmt.Sprintf("confirmed %s %s “%s” (u undoes)", Line(pr.Field), verb, Cut(Line(pr.Value), 40)),
			Undo: storeUndo(d, "confirm "+Line(pr.Field), 1)}
	}
}

// RejectCmd drops a pending inference; u undoes it.
func RejectCmd(d Deps, pr memcore.PendingReview) func() tea.Msg {
	return func() tea.Msg {
		got, u, err := d.Store.Reject(d.Ctx, pr.ID)
		if err != nil {
			return MutatedMsg{Err: fmt.Errorf("reject: %w", err)}
		}
		d.Review.Record(u)
		return MutatedMsg{Status: fmt.Sprintf("rejected %s (u undoes)", Line(pr.Field)),
			Undo: storeUndo(d, "reject "+Line(got.Field), 1)}
	}
}

// View renders the queue and the selected entry.
func (p *Pending) View() string {
	s := p.d.Styles
	head := p.head("Pending reviews", "inference", "inferences", " waiting · none reach a prompt until confirmed")
	top, done := p.listStates(head, "pending reviews", "Nothing to review.", "No inference matches the filter. Press esc to clear it.")
	if done {
		return top
	}
	var b strings.Builder
	b.WriteString(top)
	fw := 30
	cw := (p.width - fw - 12) / 2
	b.WriteString(p.rows(func(it PItem, sel string, selected bool) string {
		cur := Line(it.Current)
		if cur == "" {
			cur = "(unset)"
		}
		// A list field gains the value ("+"); any other field takes it ("→").
		arrow := "→"
		if umfield.IsList(it.P.Field) {
			arrow = "+"
		}
		line := fmt.Sprintf("%s %-*s %-*s %s %-*s %4.2f", sel, fw, Cut(Line(it.P.Field), fw), cw, Cut(cur, cw), arrow, cw, Cut(Line(it.P.Value), cw), it.P.Confidence)
		if selected {
			line = s.Selected.Render(Fit(line, p.width))
		}
		return line
	}))
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
	if umfield.IsList(it.P.Field) {
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

// ShortHelp lists the main keys.
func (p *Pending) ShortHelp() []key.Binding {
	return p.shortHelp(p.keys.Confirm, p.keys.Reject)
}

// FullHelp lists every key.
func (p *Pending) FullHelp() [][]key.Binding {
	return p.fullHelp([]key.Binding{p.nav.Up, p.nav.Down}, []key.Binding{p.keys.Confirm, p.keys.Reject})
}
