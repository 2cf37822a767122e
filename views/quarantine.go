package views

import (
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/odekmem/odekmem/internal/humanize"
	"github.com/odekmem/odekmem/internal/scan"
	"github.com/odekmem/odekmem/keymap"
	"github.com/odekmem/odekmem/memcore"
)

// QItem is one quarantine entry with the scanner's findings on its text and
// the days left before the TTL removes it (NaN when the TTL is off).
type QItem struct {
	Q        memcore.QuarantinedAtom
	Findings []scan.Finding
	DaysLeft float64
}

// QuarantineLoadedMsg carries the quarantine.
type QuarantineLoadedMsg = LoadedMsg[QItem]

// LoadQuarantine reads the quarantine and scans each entry.
func LoadQuarantine(d Deps) tea.Cmd {
	return loadItems(d, func(st *memcore.Store) ([]QItem, error) {
		quar, err := st.Quarantined(d.Ctx)
		if err != nil {
			return nil, err
		}
		return BuildQItems(d, quar), nil
	})
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

// ScanRejected reports whether a quarantine entry was held by the scanner
// (its reason starts with scan_rejected), as opposed to only tainted.
func ScanRejected(q memcore.QuarantinedAtom) bool {
	return strings.HasPrefix(q.Reason, "scan_rejected")
}

// Quarantine is the pane of tainted and scan-rejected atoms.
type Quarantine struct {
	filterBar
	listPane[QItem]
	keys   keymap.Quarantine
	marked map[string]bool
}

// NewQuarantine returns the Quarantine pane.
func NewQuarantine(d Deps) *Quarantine {
	q := &Quarantine{keys: d.Keys.Quarantine, marked: map[string]bool{},
		filterBar: newFilterBar(d, NewListFilter("words, or source:web reason:scan type:fact project:… session:…",
			[]string{"source", "reason", "type", "project", "session"}, map[string]string{"src": "source", "t": "type", "p": "project"}))}
	q.listPane = newListPane(d, &q.filterBar, LoadQuarantine, func(it QItem) string { return it.Q.ID }, func(f *ListFilter, it QItem) bool {
		c := it.Q.Context
		return f.Match(map[string]string{"source": string(it.Q.SourceClass), "reason": it.Q.Reason, "type": string(it.Q.Type),
			"project": c.Project, "session": c.SessionID}, it.Q.Text)
	})
	q.changed = q.refreshKeys
	q.replacing = q.dropGoneMarks
	q.refresh()
	return q
}

// Title is "Quarantine N" (or "Quarantine shown/N" when filtered).
func (q *Quarantine) Title() string { return q.title("Quarantine") }

// MarkSeen records the selected entry as seen (the root calls it while
// the pane is on screen).
func (q *Quarantine) MarkSeen() { q.d.Seen.Mark(q.SelectedID()) }

// dropGoneMarks forgets the marks of entries that are not among items.
func (q *Quarantine) dropGoneMarks(items []QItem) {
	live := map[string]bool{}
	for _, it := range items {
		live[it.Q.ID] = true
	}
	for id := range q.marked {
		if !live[id] {
			delete(q.marked, id)
		}
	}
}

func (q *Quarantine) refreshKeys() {
	has := len(q.view) > 0
	q.keys.Toggle.SetEnabled(has)
	q.keys.All.SetEnabled(has)
	q.keys.Promote.SetEnabled(has)
	q.keys.Forget.SetEnabled(has)
	if n := q.markedShown(); n > 0 {
		q.keys.Promote.SetHelp("p", fmt.Sprintf("promote %d", n))
		q.keys.Forget.SetHelp("d", fmt.Sprintf("forget %d", n))
	} else {
		q.keys.Promote.SetHelp("p", "promote")
		q.keys.Forget.SetHelp("d", "forget")
	}
}

// targets are the marked entries the filter shows (an action never
// reaches an entry the person cannot see), or the selected one.
func (q *Quarantine) targets() []QItem {
	var out []QItem
	for _, i := range q.view {
		if it := q.items[i]; q.marked[it.Q.ID] {
			out = append(out, it)
		}
	}
	if it, ok := q.selected(); len(out) == 0 && ok {
		out = []QItem{it}
	}
	return out
}

// markedShown counts the marked entries the filter shows.
func (q *Quarantine) markedShown() int {
	n := 0
	for _, i := range q.view {
		if q.marked[q.items[i].Q.ID] {
			n++
		}
	}
	return n
}

// Update handles keys and the pane's results.
func (q *Quarantine) Update(msg tea.Msg) tea.Cmd {
	if cmd, done := q.updateList(msg); done {
		return cmd
	}
	switch msg := msg.(type) {
	case tea.KeyMsg:
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
			all := true
			for _, i := range q.view {
				all = all && q.marked[q.items[i].Q.ID]
			}
			for _, i := range q.view {
				if all {
					delete(q.marked, q.items[i].Q.ID)
				} else {
					q.marked[q.items[i].Q.ID] = true
				}
			}
		case key.Matches(msg, k.Promote):
			return q.promote()
		case key.Matches(msg, k.Forget):
			its := q.targets()
			if len(its) == 0 {
				return nil
			}
			question := fmt.Sprintf("Forget %s?", kinds(its))
			if len(its) == 1 {
				question = fmt.Sprintf("Forget quarantined “%s”?", Cut(Line(its[0].Q.Text), 40))
			}
			return Confirm(question, Work(ForgetCmd(q.d, ids(its))))
		}
		q.refreshKeys()
	}
	return nil
}

// promote asks first when more than one entry or any scan-rejected entry
// would go live: the question counts each kind and names what the scanner
// found. A single tainted entry is promoted at once (u undoes it).
func (q *Quarantine) promote() tea.Cmd {
	its := q.targets()
	if len(its) == 0 {
		return nil
	}
	cmd := Work(PromoteCmd(q.d, its))
	rejected := 0
	for _, it := range its {
		if ScanRejected(it.Q) {
			rejected++
		}
	}
	if len(its) == 1 && rejected == 0 {
		return cmd
	}
	question := fmt.Sprintf("Promote %s to the live store as user_approved?", kinds(its))
	if len(its) == 1 {
		question = fmt.Sprintf("Promote scan-rejected “%s” as user_approved?", Cut(Line(its[0].Q.Text), 30))
	}
	if rejected > 0 {
		question += " The scanner found: " + findingsSummary(its)
	}
	return Confirm(question, cmd)
}

// kinds is "13: 7 tainted, 6 scan-rejected" (or "1 tainted entry").
func kinds(its []QItem) string {
	rejected := 0
	for _, it := range its {
		if ScanRejected(it.Q) {
			rejected++
		}
	}
	tainted := len(its) - rejected
	switch {
	case rejected == 0:
		return Count(tainted, "tainted entry", "tainted entries")
	case tainted == 0:
		return Count(rejected, "scan-rejected entry", "scan-rejected entries")
	}
	return fmt.Sprintf("%d: %d tainted, %d scan-rejected", len(its), tainted, rejected)
}

// findingsSummary names the distinct findings (or reasons) of the
// scan-rejected entries among its.
func findingsSummary(its []QItem) string {
	var parts []string
	seen := map[string]bool{}
	add := func(s string) {
		if s != "" && !seen[s] {
			seen[s] = true
			parts = append(parts, s)
		}
	}
	for _, it := range its {
		if !ScanRejected(it.Q) {
			continue
		}
		for _, f := range it.Findings {
			if f.Severity == scan.Block {
				add(Line(string(f.Kind)) + "/" + Line(f.Rule))
			}
		}
		if len(it.Findings) == 0 {
			_, r, _ := strings.Cut(Line(it.Q.Reason), ":")
			add(strings.TrimSpace(r))
		}
	}
	if len(parts) == 0 {
		return "(no detail recorded)"
	}
	return strings.Join(parts, "; ")
}

func ids(its []QItem) []string {
	out := make([]string, len(its))
	for i, it := range its {
		out[i] = it.Q.ID
	}
	return out
}

// PromoteCmd promotes quarantined entries to user_approved. u undoes it:
// each entry goes back to the quarantine as it was, with its links.
func PromoteCmd(d Deps, its []QItem) func() tea.Msg {
	return func() tea.Msg {
		var last memcore.Atom
		for i, it := range its {
			at, u, err := d.Store.Promote(d.Ctx, it.Q.ID)
			if err != nil {
				return MutatedMsg{Err: fmt.Errorf("promote (%d of %d done): %w", i, len(its), err), Undo: storeUndo(d, "promote", i)}
			}
			d.Review.Record(u)
			last = at
		}
		if len(its) == 1 {
			return MutatedMsg{Status: fmt.Sprintf("promoted “%s” as user_approved (u undoes)", Cut(Line(last.Text), 50)), Undo: storeUndo(d, "promote", 1)}
		}
		return MutatedMsg{Status: fmt.Sprintf("promoted %d atoms as user_approved (u undoes)", len(its)), Undo: storeUndo(d, "promote", len(its))}
	}
}

// View renders the list and the selected entry with its findings.
func (q *Quarantine) View() string {
	s := q.d.Styles
	head := q.head("Quarantine", "entry", "entries", fmt.Sprintf(" · TTL %.0f days", q.d.TTL))
	if n := q.markedShown(); n > 0 {
		head += s.Muted.Render(" · ") + s.Marked.Render(fmt.Sprintf("%d selected", n))
	}
	for _, it := range q.items {
		if ScanRejected(it.Q) {
			head += s.Muted.Render(" · ") + s.Danger.Render("✗") + s.Muted.Render(" scan-rejected")
			break
		}
	}
	top, done := q.listStates(head, "quarantine", "Quarantine is empty: nothing untrusted is waiting for you.", "No entry matches the filter. Press esc to clear it.")
	if done {
		return top
	}
	var b strings.Builder
	b.WriteString(top)
	textW := q.width - 5 - 16 - 14 - 9
	b.WriteString(q.rows(func(it QItem, sel string, selected bool) string {
		mark := "[ ]"
		if q.marked[it.Q.ID] {
			mark = "[x]"
		}
		rej := " "
		if ScanRejected(it.Q) {
			rej = "✗"
		}
		reason := reasonShort(it.Q.Reason)
		rest := fmt.Sprintf(" %-15s %-13s %8s %s", Cut(Line(it.Q.SourceClass), 15), Cut(reason, 13),
			daysLeft(it.DaysLeft), Cut(Line(it.Q.Text), textW))
		switch {
		case selected:
			return s.Selected.Render(Fit(sel+mark+rej+rest, q.width))
		case q.marked[it.Q.ID]:
			return s.Marked.Render(sel+mark) + s.Danger.Render(rej) + s.Marked.Render(rest)
		}
		return sel + mark + s.Danger.Render(rej) + rest
	}))
	room := q.height - 1 - q.listH - 1
	if q.filter.Typing() {
		room--
	}
	it, _ := q.selected()
	b.WriteString(q.entryView(it, room))
	return q.withInput(b.String())
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
	}
	return humanize.Until(time.Duration(d*24*float64(time.Hour))) + " left"
}

// entryView shows one entry in at most room lines: provenance (source,
// reason) first, then the findings, then the text flattened to single
// lines, so nothing in the stored text can push the real provenance off
// the panel or draw lines that look like it.
func (q *Quarantine) entryView(it QItem, room int) string {
	s := q.d.Styles
	w := q.width
	if room < 3 {
		room = 3
	}
	ctx := it.Q.Context
	lines := []string{
		Cut(s.Label.Render("source ")+Line(it.Q.SourceClass)+s.Label.Render("  reason ")+s.Warn.Render(Line(it.Q.Reason)), w),
		Cut(s.Label.Render("type ")+Line(it.Q.Type)+s.Label.Render("  project ")+Line(orDash(ctx.Project))+
			s.Label.Render("  session ")+Line(orDash(ctx.SessionID)), w),
	}
	if len(it.Findings) == 0 {
		lines = append(lines, s.Label.Render("findings ")+"none on the stored text")
	}
	for _, f := range it.Findings {
		sev := s.Warn.Render(f.Severity.String())
		if f.Severity == scan.Block {
			sev = s.Danger.Render(f.Severity.String())
		}
		l := fmt.Sprintf("• %s %s/%s %s", sev, Line(string(f.Kind)), Line(f.Rule), Mark(Line(f.Match), s.Invisible, s.Redaction))
		if f.Reason != "" {
			l += s.Muted.Render(" — " + Line(f.Reason))
		}
		if f.Hidden != "" {
			l += s.Label.Render(" hidden text: ") + s.Invisible.Render(Line(f.Hidden))
		}
		lines = append(lines, Cut(l, w))
	}
	// The provenance and the first finding always show; the text gets
	// what is left (at least two lines) and later findings give way.
	keep := room - 2
	if keep < 3 {
		keep = 3
	}
	if len(lines) > keep {
		more := len(lines) - keep + 1
		lines = append(lines[:keep-1], s.Muted.Render(fmt.Sprintf("  … %d more findings", more)))
	}
	text := strings.Split(Wrap(Line(it.Q.Text), w-2), "\n")
	left := room - len(lines)
	if left < 2 {
		left = 2
	}
	if len(text) > left {
		text = append(text[:left-1], "…")
	}
	// A gutter marks every line of stored text as such: a wrapped line
	// cannot pass for one of the provenance lines above.
	for _, l := range text {
		lines = append(lines, s.Muted.Render("│ ")+Mark(l, s.Invisible, s.Redaction))
	}
	return strings.Join(lines, "\n")
}

// ShortHelp lists the main keys.
func (q *Quarantine) ShortHelp() []key.Binding {
	k := q.keys
	return q.shortHelp(k.Toggle, k.All, k.Promote, k.Forget)
}

// FullHelp lists every key.
func (q *Quarantine) FullHelp() [][]key.Binding {
	k := q.keys
	return q.fullHelp([]key.Binding{q.nav.Up, q.nav.Down, q.nav.PageUp, q.nav.PageDown}, []key.Binding{k.Toggle, k.All, k.Promote, k.Forget})
}
