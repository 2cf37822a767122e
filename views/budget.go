package views

import (
	"fmt"
	"math"
	"sort"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/odekmem/odekmem/internal/humanize"
	"github.com/odekmem/odekmem/keymap"
	"github.com/odekmem/odekmem/memcore"
)

// BudgetLoadedMsg carries the store's size budget and what goes next.
type BudgetLoadedMsg struct {
	Stats    memcore.Stats
	Evict    []memcore.Scored
	Expiring []QItem
	Done     int64
	Total    int64
	Running  bool
	Err      error
}

// CompactedMsg carries a finished compaction.
type CompactedMsg struct {
	Res memcore.CompactResult
	Err error
}

type budgetPollMsg struct{}

// LoadBudget reads stats, the next evictions, expiring quarantine and the
// index rebuild progress.
func LoadBudget(d Deps) tea.Cmd {
	return func() tea.Msg {
		if d.Store == nil {
			return BudgetLoadedMsg{}
		}
		stats, err := d.Store.Stats(d.Ctx)
		if err != nil {
			return BudgetLoadedMsg{Err: err}
		}
		evict, err := d.Store.NextEvictions(d.Ctx, 10)
		if err != nil {
			return BudgetLoadedMsg{Err: err}
		}
		quar, err := d.Store.Quarantined(d.Ctx)
		if err != nil {
			return BudgetLoadedMsg{Err: err}
		}
		m := BudgetLoadedMsg{Stats: stats, Evict: evict}
		items := BuildQItems(d, quar)
		sort.SliceStable(items, func(i, j int) bool { return items[i].DaysLeft < items[j].DaysLeft })
		for _, it := range items {
			if !math.IsNaN(it.DaysLeft) && len(m.Expiring) < 5 {
				m.Expiring = append(m.Expiring, it)
			}
		}
		m.Done, m.Total, m.Running = stats.Index.Done, stats.Index.Total, stats.Index.Rebuilding
		return m
	}
}

// CompactCmd compacts the store.
func CompactCmd(d Deps) func() tea.Msg {
	return func() tea.Msg {
		res, err := d.Store.Compact(d.Ctx)
		return CompactedMsg{Res: res, Err: err}
	}
}

// Budget shows disk use against the cap, counts and what eviction takes
// next; c compacts.
type Budget struct {
	d          Deps
	keys       keymap.Budget
	nav        keymap.Nav
	data       BudgetLoadedMsg
	loaded     bool
	compacting bool
	last       *memcore.CompactResult
	scroll     Scroller
	width      int
	polling    bool
}

// NewBudget returns the pane.
func NewBudget(d Deps) *Budget { return &Budget{d: d, keys: d.Keys.Budget, nav: d.Keys.Nav} }

// Init loads the budget.
func (b *Budget) Init() tea.Cmd { return LoadBudget(b.d) }

// Title is "Budget P%".
func (b *Budget) Title() string {
	if !b.loaded || b.data.Stats.CapBytes == 0 {
		return "Budget"
	}
	return fmt.Sprintf("Budget %.0f%%", 100*float64(b.data.Stats.TotalBytes)/float64(b.data.Stats.CapBytes))
}

// SetSize sets the size.
func (b *Budget) SetSize(w, h int) {
	b.width = w
	b.scroll.H = h - 1
	b.render()
}

func (b *Budget) poll() tea.Cmd {
	if b.polling || !(b.compacting || b.data.Running) {
		return nil
	}
	b.polling = true
	return tea.Tick(400*time.Millisecond, func(time.Time) tea.Msg { return budgetPollMsg{} })
}

// Update handles keys and results.
func (b *Budget) Update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case BudgetLoadedMsg:
		if msg.Err == nil {
			b.data, b.loaded = msg, true
			b.render()
		}
		return b.poll()
	case budgetPollMsg:
		b.polling = false
		return LoadBudget(b.d)
	case ReloadMsg:
		return LoadBudget(b.d)
	case compactStartMsg:
		if b.compacting {
			return nil
		}
		b.compacting = true
		b.keys.Compact.SetEnabled(false)
		b.render()
		return tea.Batch(Work(CompactCmd(b.d)), b.poll())
	case CompactedMsg:
		b.compacting = false
		b.keys.Compact.SetEnabled(true)
		if msg.Err != nil {
			return func() tea.Msg { return MutatedMsg{Err: fmt.Errorf("compact: %w", msg.Err)} }
		}
		r := msg.Res
		b.last = &r
		b.render()
		return func() tea.Msg { return MutatedMsg{Status: "compacted: " + CompactWords(r)} }
	case tea.MouseMsg:
		b.scroll.HandleNav(msg, b.nav)
	case tea.KeyMsg:
		if b.scroll.HandleNav(msg, b.nav) {
			return nil
		}
		if key.Matches(msg, b.keys.Compact) && !b.compacting {
			// Compaction drops expired quarantine entries: ask first when
			// the person has not looked at some of them. What is expired
			// is read now, not taken from the last load (which may not
			// have arrived yet, or be minutes old).
			return Work(compactCheckCmd(b.d))
		}
	case compactCheckMsg:
		if msg.err != nil {
			return func() tea.Msg { return MutatedMsg{Err: fmt.Errorf("compact: %w", msg.err)} }
		}
		if n := len(msg.unseen); n > 0 {
			what := fmt.Sprintf("%d expired quarantine entries you have not looked at", n)
			if n == 1 {
				what = fmt.Sprintf("an expired quarantine entry you have not looked at (%s “%s”)",
					Line(msg.unseen[0].Q.SourceClass), Cut(Line(msg.unseen[0].Q.Text), 30))
			}
			return Confirm("Compact anyway? It drops "+what+" (see 2 Quarantine)", b.startCompact())
		}
		return b.startCompact()
	}
	return nil
}

// compactCheckMsg carries the expired quarantine entries the person has
// not looked at, read when c was pressed.
type compactCheckMsg struct {
	unseen []QItem
	err    error
}

func compactCheckCmd(d Deps) func() tea.Msg {
	return func() tea.Msg {
		quar, err := d.Store.Quarantined(d.Ctx)
		if err != nil {
			return compactCheckMsg{err: err}
		}
		var unseen []QItem
		for _, it := range BuildQItems(d, quar) {
			if !math.IsNaN(it.DaysLeft) && it.DaysLeft <= 0 && !d.Seen.Has(it.Q.ID) {
				unseen = append(unseen, it)
			}
		}
		return compactCheckMsg{unseen: unseen}
	}
}

// startCompact returns the command that marks the pane busy and compacts
// (it runs only when the prompt, if any, is answered yes).
func (b *Budget) startCompact() tea.Cmd {
	return func() tea.Msg { return compactStartMsg{} }
}

type compactStartMsg struct{}

// CompactWords says what a compaction did in words (see
// humanize.Compaction).
func CompactWords(r memcore.CompactResult) string {
	return humanize.Compaction(r.Before, r.After, r.Reclaimed, r.Expired, r.Vectors)
}

func (b *Budget) render() {
	s := b.d.Styles
	if !b.loaded {
		b.scroll.SetContent([]string{s.Muted.Render("loading…")})
		return
	}
	st := b.data.Stats
	w := b.width
	var lines []string
	capb := st.CapBytes
	pct := 0.0
	if capb > 0 {
		pct = 100 * float64(st.TotalBytes) / float64(capb)
	}
	lines = append(lines, fmt.Sprintf("%s %s of %s (%.1f%%)", s.Label.Render("total"), Bytes(st.TotalBytes), Bytes(capb), pct))
	barW := w - 12 - 1 - 12 - 8
	if barW > 50 {
		barW = 50
	}
	if barW < 10 {
		barW = 10
	}
	names := make([]string, 0, len(st.Components))
	for k := range st.Components {
		names = append(names, k)
	}
	sort.Strings(names)
	lines = append(lines, b.bar("all", st.TotalBytes, capb, barW))
	for _, n := range names {
		lines = append(lines, b.bar(n, st.Components[n], capb, barW))
	}
	if len(st.OtherFiles) > 0 {
		lines = append(lines, s.Muted.Render(Safe(fmt.Sprintf("  other: %d files odekmem does not know, left untouched (%s)", len(st.OtherFiles), strings.Join(st.OtherFiles, ", ")))))
	}
	lines = append(lines, "")
	lines = append(lines, s.Accent.Render("Counts")+s.Muted.Render(fmt.Sprintf("  %d live (%d pinned) · %d quarantined · %d pending · %d links", st.Live, st.Pinned, st.Quarantine, st.Pending, st.Links)))
	left := countLines("by type", st.ByType)
	right := countLines("by source (live + quarantine)", st.BySource)
	colW := (w - 2) / 2
	if colW > 34 {
		colW = 34
	}
	for i := 0; i < len(left) || i < len(right); i++ {
		var l, r string
		if i < len(left) {
			l = left[i]
		}
		if i < len(right) {
			r = right[i]
		}
		lines = append(lines, "  "+Fit(l, colW)+r)
	}
	lines = append(lines, "")
	idx := st.Index
	cache := "vector cache saved"
	if idx.Stale > 0 {
		cache = fmt.Sprintf("%d recent changes not yet in the saved vector cache (c saves them)", idx.Stale)
	}
	il := fmt.Sprintf("%s %s search · %d vectors × %d dims · %s", s.Label.Render("index"), Line(idx.Kind), idx.Vectors, idx.Dims, cache)
	lines = append(lines, il)
	if b.data.Running {
		frac := 0.0
		if b.data.Total > 0 {
			frac = float64(b.data.Done) / float64(b.data.Total)
		}
		lines = append(lines, fmt.Sprintf("%s %s %d/%d", s.Label.Render("rebuild"), b.progress(frac, barW), b.data.Done, b.data.Total))
	}
	if b.compacting {
		lines = append(lines, s.Warn.Render("compacting…"))
	} else if b.last != nil {
		r := b.last
		lines = append(lines, s.OK.Render("last compact: "+CompactWords(*r)))
	}
	lines = append(lines, "")
	lines = append(lines, s.Accent.Render("Next evictions")+s.Muted.Render(" (lowest retention, unpinned)"))
	if len(b.data.Evict) == 0 {
		lines = append(lines, s.Muted.Render("  none: every live atom is pinned or the store is empty"))
	}
	for _, e := range b.data.Evict {
		lines = append(lines, fmt.Sprintf("  %5.3f  %-11s %s", e.Retention, Line(e.Atom.Type), Cut(Line(e.Atom.Text), w-23)))
	}
	lines = append(lines, "")
	lines = append(lines, s.Accent.Render("Quarantine expiring soon")+s.Muted.Render(fmt.Sprintf(" (TTL %.0f days)", b.d.TTL)))
	if len(b.data.Expiring) == 0 {
		lines = append(lines, s.Muted.Render("  none"))
	}
	for _, it := range b.data.Expiring {
		lines = append(lines, fmt.Sprintf("  %8s  %-14s %s", daysLeft(it.DaysLeft), Cut(Line(it.Q.SourceClass), 14), Cut(Line(it.Q.Text), w-30)))
	}
	if len(st.Problems) > 0 {
		lines = append(lines, "", s.Danger.Render(fmt.Sprintf("%d problems found while loading", len(st.Problems))))
		for _, p := range st.Problems {
			lines = append(lines, "  "+Line(p.String()))
		}
	}
	b.scroll.SetContent(lines)
}

func countLines[K ~string](title string, m map[K]int) []string {
	keys := make([]K, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if m[keys[i]] != m[keys[j]] {
			return m[keys[i]] > m[keys[j]]
		}
		return keys[i] < keys[j]
	})
	out := []string{title}
	for _, k := range keys {
		out = append(out, fmt.Sprintf("  %-16s %5d", Cut(Line(k), 16), m[k]))
	}
	return out
}

func (b *Budget) bar(name string, n, capb int64, w int) string {
	s := b.d.Styles
	frac := 0.0
	if capb > 0 {
		frac = float64(n) / float64(capb)
	}
	return fmt.Sprintf("  %-12s %s %10s %5.1f%%", Cut(Line(name), 12), b.progress(frac, w), Bytes(n), 100*frac) + s.Muted.Render("")
}

func (b *Budget) progress(frac float64, w int) string {
	s := b.d.Styles
	frac = max(0, min(1, frac))
	// Eighths of a cell, so small shares differ: at 50 cells one eighth
	// is 0.25%; anything above zero shows at least one.
	eighths := int(math.Round(frac * float64(w) * 8))
	if eighths == 0 && frac > 0 {
		eighths = 1
	}
	full, part := eighths/8, eighths%8
	bar := strings.Repeat("█", full)
	empty := w - full
	if part > 0 {
		bar += string([]rune("▏▎▍▌▋▊▉")[part-1])
		empty--
	}
	return s.BarFull.Render(bar) + s.BarEmpty.Render(strings.Repeat("░", empty))
}

// View renders the pane.
func (b *Budget) View() string {
	s := b.d.Styles
	head := s.Title.Render("Budget") + s.Muted.Render(" · disk use against max_size_mb")
	return head + "\n" + strings.Join(b.scroll.View(), "\n")
}

// ShortHelp lists the keys.
func (b *Budget) ShortHelp() []key.Binding { return []key.Binding{b.keys.Compact, b.nav.Down} }

// FullHelp lists the keys.
func (b *Budget) FullHelp() [][]key.Binding {
	return [][]key.Binding{{b.nav.Up, b.nav.Down, b.nav.PageUp, b.nav.PageDown}, {b.keys.Compact}}
}
