package views

import (
	"fmt"
	"math"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/odekmem/odekmem/keymap"
	"github.com/odekmem/odekmem/memcore"
	"github.com/odekmem/odekmem/memcore/scan"
)

// QItem is one quarantine entry with the scanner's findings on its text and
// the days left before the TTL removes it (NaN when the TTL is off).
type QItem struct {
	Q        memcore.QuarantinedAtom
	Findings []scan.Finding
	DaysLeft float64
}

// QuarantineLoadedMsg carries the quarantine.
type QuarantineLoadedMsg struct {
	Items []QItem
	Err   error
}

// LoadQuarantine reads the quarantine and scans each entry.
func LoadQuarantine(d Deps) tea.Cmd {
	return func() tea.Msg {
		if d.Store == nil {
			return QuarantineLoadedMsg{}
		}
		return QuarantineLoadedMsg{Items: BuildQItems(d, d.Store.Quarantined())}
	}
}

// BuildQItems scans entries and computes their expiry.
func BuildQItems(d Deps, qs []memcore.QuarantinedAtom) []QItem {
	now := d.Now()
	items := make([]QItem, len(qs))
	for i, q := range qs {
		left := math.NaN()
		if exp := q.ExpiresAt(d.TTL); !exp.IsZero() {
			left = exp.Sub(now).Hours() / 24
		}
		items[i] = QItem{Q: q, Findings: scan.Scan(q.Text).Findings, DaysLeft: left}
	}
	return items
}

// Quarantine is the pane of tainted and scan-rejected atoms.
type Quarantine struct {
	d      Deps
	keys   keymap.Quarantine
	nav    keymap.Nav
	items  []QItem
	cur    Cursor
	marked map[string]bool
	selID  string
	loaded bool
	err    error
	width  int
	height int
	listH  int
}

// NewQuarantine returns the Quarantine pane.
func NewQuarantine(d Deps) *Quarantine {
	q := &Quarantine{d: d, keys: d.Keys.Quarantine, nav: d.Keys.Nav, marked: map[string]bool{}}
	q.refreshKeys()
	return q
}

// Init loads the quarantine.
func (q *Quarantine) Init() tea.Cmd { return LoadQuarantine(q.d) }

// Title is "Quarantine N".
func (q *Quarantine) Title() string { return fmt.Sprintf("Quarantine %d", len(q.items)) }

// SelectedID is the selected entry's id.
func (q *Quarantine) SelectedID() string {
	if len(q.items) == 0 {
		return ""
	}
	return q.items[q.cur.Pos].Q.ID
}

// SetSize splits the body between the list and the selected entry.
func (q *Quarantine) SetSize(w, h int) {
	q.width, q.height = w, h
	q.listH = (h - 2) / 2
	if q.listH < 3 {
		q.listH = 3
	}
	q.cur.SetH(q.listH)
}

// SetItems replaces the data, keeping the selection by id.
func (q *Quarantine) SetItems(items []QItem) {
	q.items, q.loaded = items, true
	q.cur.SetN(len(items))
	live := map[string]bool{}
	for i, it := range items {
		live[it.Q.ID] = true
		if it.Q.ID == q.selID {
			q.cur.Set(i)
		}
	}
	for id := range q.marked {
		if !live[id] {
			delete(q.marked, id)
		}
	}
	q.selID = q.SelectedID()
	q.refreshKeys()
}

func (q *Quarantine) refreshKeys() {
	has := len(q.items) > 0
	q.keys.Toggle.SetEnabled(has)
	q.keys.All.SetEnabled(has)
	q.keys.Promote.SetEnabled(has)
	q.keys.Forget.SetEnabled(has)
	if n := len(q.marked); n > 0 {
		q.keys.Promote.SetHelp("p", fmt.Sprintf("promote %d", n))
		q.keys.Forget.SetHelp("d", fmt.Sprintf("forget %d", n))
	} else {
		q.keys.Promote.SetHelp("p", "promote")
		q.keys.Forget.SetHelp("d", "forget")
	}
}

// targets are the marked entries, or the selected one.
func (q *Quarantine) targets() []string {
	var ids []string
	for _, it := range q.items {
		if q.marked[it.Q.ID] {
			ids = append(ids, it.Q.ID)
		}
	}
	if len(ids) == 0 && len(q.items) > 0 {
		ids = []string{q.items[q.cur.Pos].Q.ID}
	}
	return ids
}

// Update handles keys and the pane's results.
func (q *Quarantine) Update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case QuarantineLoadedMsg:
		q.err = msg.Err
		if msg.Err == nil {
			q.SetItems(msg.Items)
		}
	case ReloadMsg:
		return LoadQuarantine(q.d)
	case tea.MouseMsg:
		if q.cur.HandleNav(msg, q.nav) {
			q.selID = q.SelectedID()
		}
	case tea.KeyMsg:
		if q.cur.HandleNav(msg, q.nav) {
			q.selID = q.SelectedID()
			return nil
		}
		k := q.keys
		switch {
		case key.Matches(msg, k.Toggle):
			id := q.SelectedID()
			if q.marked[id] {
				delete(q.marked, id)
			} else {
				q.marked[id] = true
			}
			q.cur.Move(1)
			q.selID = q.SelectedID()
		case key.Matches(msg, k.All):
			if len(q.marked) == len(q.items) {
				q.marked = map[string]bool{}
			} else {
				for _, it := range q.items {
					q.marked[it.Q.ID] = true
				}
			}
		case key.Matches(msg, k.Promote):
			ids := q.targets()
			if len(ids) > 1 {
				return Confirm(fmt.Sprintf("Promote %d atoms to the live store as user_approved?", len(ids)), Work(PromoteCmd(q.d, ids)))
			}
			return Work(PromoteCmd(q.d, ids))
		case key.Matches(msg, k.Forget):
			ids := q.targets()
			if len(ids) == 0 {
				return nil
			}
			question := fmt.Sprintf("Forget %d quarantined atoms?", len(ids))
			if len(ids) == 1 {
				question = fmt.Sprintf("Forget quarantined “%s”?", Cut(Line(q.item(ids[0]).Q.Text), 40))
			}
			return Confirm(question, Work(ForgetCmd(q.d, ids)))
		}
		q.refreshKeys()
	}
	return nil
}

func (q *Quarantine) item(id string) QItem {
	for _, it := range q.items {
		if it.Q.ID == id {
			return it
		}
	}
	return QItem{}
}

// PromoteCmd promotes quarantined atoms to user_approved.
func PromoteCmd(d Deps, ids []string) func() tea.Msg {
	return func() tea.Msg {
		var last memcore.Atom
		for i, id := range ids {
			at, err := d.Store.Promote(d.Ctx, id)
			if err != nil {
				return MutatedMsg{Err: fmt.Errorf("promote (%d of %d done): %w", i, len(ids), err)}
			}
			last = at
		}
		if len(ids) == 1 {
			return MutatedMsg{Status: fmt.Sprintf("promoted “%s” as user_approved", Cut(Line(last.Text), 50))}
		}
		return MutatedMsg{Status: fmt.Sprintf("promoted %d atoms as user_approved", len(ids))}
	}
}

// View renders the list and the selected entry with its findings.
func (q *Quarantine) View() string {
	s := q.d.Styles
	var b strings.Builder
	head := s.Title.Render("Quarantine") + s.Muted.Render(fmt.Sprintf(" · %d entries · TTL %.0f days", len(q.items), q.d.TTL))
	if n := len(q.marked); n > 0 {
		head += " " + s.Marked.Render(fmt.Sprintf("%d selected", n))
	}
	b.WriteString(head + "\n")
	switch {
	case q.err != nil:
		b.WriteString(s.StatusErr.Render("cannot read quarantine: " + Line(q.err.Error())))
		return b.String()
	case !q.loaded:
		b.WriteString(s.Muted.Render("loading…"))
		return b.String()
	case len(q.items) == 0:
		b.WriteString(s.Muted.Render("Quarantine is empty: nothing untrusted is waiting for you."))
		return b.String()
	}
	textW := q.width - 4 - 16 - 14 - 8
	start, end := q.cur.Range()
	var list []string
	for i := start; i < end; i++ {
		it := q.items[i]
		mark := "[ ]"
		if q.marked[it.Q.ID] {
			mark = "[x]"
		}
		sel := " "
		if i == q.cur.Pos {
			sel = ">"
		}
		reason := reasonShort(it.Q.Reason)
		line := fmt.Sprintf("%s%s %-15s %-13s %7s %s", sel, mark, Cut(Line(it.Q.SourceClass), 15), Cut(reason, 13),
			daysLeft(it.DaysLeft), Cut(Line(it.Q.Text), textW))
		switch {
		case i == q.cur.Pos:
			line = s.Selected.Render(Fit(line, q.width))
		case q.marked[it.Q.ID]:
			line = s.Marked.Render(line)
		}
		list = append(list, line)
	}
	for len(list) < q.listH {
		list = append(list, "")
	}
	b.WriteString(strings.Join(list, "\n"))
	b.WriteString("\n" + s.Muted.Render(strings.Repeat("─", q.width)) + "\n")
	b.WriteString(q.entryView(q.items[q.cur.Pos]))
	return b.String()
}

func reasonShort(r string) string {
	r = Line(r)
	if k, _, ok := strings.Cut(r, ":"); ok {
		return k
	}
	return r
}

func daysLeft(d float64) string {
	switch {
	case math.IsNaN(d):
		return "no TTL"
	case d <= 0:
		return "expired"
	case d < 1:
		return fmt.Sprintf("%dh left", int(d*24))
	}
	return fmt.Sprintf("%dd left", int(d))
}

// entryView shows one entry: text with invisible characters and redactions
// highlighted, provenance, reason and findings.
func (q *Quarantine) entryView(it QItem) string {
	s := q.d.Styles
	w := q.width
	var lines []string
	text := Wrap(Safe(it.Q.Text), w-2)
	for _, l := range strings.Split(text, "\n") {
		lines = append(lines, "  "+Mark(l, s.Invisible, s.Redaction))
	}
	ctx := it.Q.Context
	lines = append(lines, s.Label.Render("source ")+Line(it.Q.SourceClass)+s.Label.Render("  type ")+Line(it.Q.Type)+
		s.Label.Render("  project ")+Line(orDash(ctx.Project))+s.Label.Render("  session ")+Line(orDash(ctx.SessionID)))
	lines = append(lines, s.Label.Render("reason ")+s.Warn.Render(Line(it.Q.Reason)))
	if len(it.Findings) == 0 {
		lines = append(lines, s.Label.Render("findings ")+"none on the stored text")
	}
	for _, f := range it.Findings {
		sev := s.Warn.Render(f.Severity.String())
		if f.Severity == scan.Block {
			sev = s.Danger.Render(f.Severity.String())
		}
		l := fmt.Sprintf("%s %s/%s %s", sev, Line(string(f.Kind)), Line(f.Rule), Mark(Line(f.Match), s.Invisible, s.Redaction))
		if f.Reason != "" {
			l += s.Muted.Render(" — " + Line(f.Reason))
		}
		for i, wl := range strings.Split(Wrap(l, w-2), "\n") {
			if i == 0 {
				lines = append(lines, "• "+wl)
			} else {
				lines = append(lines, "  "+wl)
			}
		}
		if f.Hidden != "" {
			lines = append(lines, "  "+s.Label.Render("hidden text: ")+s.Invisible.Render(Line(f.Hidden)))
		}
	}
	return strings.Join(lines, "\n")
}

// ShortHelp lists the main keys.
func (q *Quarantine) ShortHelp() []key.Binding {
	k := q.keys
	return []key.Binding{k.Toggle, k.All, k.Promote, k.Forget}
}

// FullHelp lists every key.
func (q *Quarantine) FullHelp() [][]key.Binding {
	k := q.keys
	return [][]key.Binding{{q.nav.Up, q.nav.Down, q.nav.PageUp, q.nav.PageDown}, {k.Toggle, k.All, k.Promote, k.Forget}}
}
