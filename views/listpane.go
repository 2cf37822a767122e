package views

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/odekmem/odekmem/keymap"
	"github.com/odekmem/odekmem/memcore"
)

// filterBar is the "/" filter with its keys, as every filtering pane has
// it: the input while typing, the help while typing, and the keys enabled
// only when there is something to filter or clear. A pane embeds it to be
// Filterable and an Inputter.
type filterBar struct {
	filter ListFilter
	lkeys  keymap.List
	in     keymap.Input
}

func newFilterBar(d Deps, f ListFilter) filterBar {
	return filterBar{filter: f, lkeys: d.Keys.List, in: d.Keys.Input}
}

// FilterText is the filter as typed.
func (f *filterBar) FilterText() string { return f.filter.Text() }

// InputActive reports whether the filter input has the keys.
func (f *filterBar) InputActive() bool { return f.filter.Typing() }

// filterKey handles a key for the filter: typing into it, or / and esc.
// It reports whether the key was the filter's, and whether the filter text
// changed (the pane then recomputes its view).
func (f *filterBar) filterKey(msg tea.KeyMsg, nav func() bool) (handled, changed bool) {
	switch {
	case f.filter.Typing():
		return true, f.filter.Key(msg, f.in)
	case nav():
		return true, false
	case key.Matches(msg, f.lkeys.Filter):
		f.filter.Start()
		return true, false
	case key.Matches(msg, f.lkeys.ClearFilter):
		return true, f.filter.Clear()
	}
	return false, false
}

// refreshFilterKeys enables / when there are rows (or a filter to edit)
// and esc when a filter is set.
func (f *filterBar) refreshFilterKeys(rows int) {
	f.lkeys.Filter.SetEnabled(rows > 0 || f.filter.Text() != "")
	f.lkeys.ClearFilter.SetEnabled(f.filter.Text() != "")
}

// shortHelp is the pane's keys followed by the filter's, or only submit
// and cancel while typing.
func (f *filterBar) shortHelp(keys ...key.Binding) []key.Binding {
	if f.filter.Typing() {
		return []key.Binding{f.in.Submit, f.in.Cancel}
	}
	return append(keys, f.lkeys.Filter, f.lkeys.ClearFilter)
}

// fullHelp is the pane's key groups followed by the filter's, or only
// submit and cancel while typing.
func (f *filterBar) fullHelp(groups ...[]key.Binding) [][]key.Binding {
	if f.filter.Typing() {
		return [][]key.Binding{{f.in.Submit, f.in.Cancel}}
	}
	return append(groups, []key.Binding{f.lkeys.Filter, f.lkeys.ClearFilter})
}

// LoadedMsg carries the items a list pane's loader read, or why it could
// not read them. Each pane has its own instance (PendingLoadedMsg …), so a
// pane only ever takes its own.
type LoadedMsg[T any] struct {
	Items []T
	Err   error
	// Seq is the load's number in its pane (0 from a loader called
	// directly): a pane never lets an older load replace a newer one.
	Seq uint64
}

// listPane is what the review panes (Pending, Quarantine, Contradictions)
// share: loaded items, the filtered view over them, a cursor whose
// selection follows its id across reloads, the split between the list and
// the selected entry, and the states every list shows (error, loading,
// empty, nothing matches).
// What stays in each pane (its constructor, title, keys and what they do)
// has the same shape from pane to pane, which the duplicates tool pairs,
// but nothing left in common to share.
type listPane[T any] struct {
	// bar is the pane's filter (the pane embeds it); nil when the pane
	// has none and every item shows.
	bar    *filterBar
	d      Deps
	nav    keymap.Nav
	items  []T
	view   []int // indexes into items that pass the filter
	cur    Cursor
	selID  string
	loaded bool
	err    error
	// seq numbers the loads started; shown is the newest applied. Loads
	// run concurrently, and one started before an act may finish after
	// the reload that followed it: it is dropped, not drawn.
	seq, shown uint64
	width      int
	height     int
	listH      int

	id func(T) string
	// match reports whether an item passes the filter (used with bar).
	match func(*ListFilter, T) bool
	// load reads the items (Init and every reload).
	load func(Deps) tea.Cmd
	// replacing, when set, sees new items before they replace the old.
	replacing func([]T)
	// changed runs after the view or selection changed (the pane enables
	// its keys).
	changed func()
}

func newListPane[T any](d Deps, bar *filterBar, load func(Deps) tea.Cmd, id func(T) string, match func(*ListFilter, T) bool) listPane[T] {
	return listPane[T]{bar: bar, d: d, nav: d.Keys.Nav, load: load, id: id, match: match}
}

// loadItems is a list pane's loader: read runs as a command, off the UI,
// and its items (or its error) come back as the pane's LoadedMsg. Without
// a store (benchmarks feed panes directly) the list is empty.
func loadItems[T any](d Deps, read func(*memcore.Store) ([]T, error)) tea.Cmd {
	return func() tea.Msg {
		if d.Store == nil {
			return LoadedMsg[T]{}
		}
		items, err := read(d.Store)
		return LoadedMsg[T]{Items: items, Err: err}
	}
}

// Init loads the items.
func (l *listPane[T]) Init() tea.Cmd { return l.reload() }

// reload starts a numbered load.
func (l *listPane[T]) reload() tea.Cmd {
	cmd := l.load(l.d)
	if cmd == nil {
		return nil
	}
	l.seq++
	n := l.seq
	return func() tea.Msg {
		msg := cmd()
		if m, ok := msg.(LoadedMsg[T]); ok {
			m.Seq = n
			return m
		}
		return msg
	}
}

// filterText is the filter as typed, "" when there is none.
func (l *listPane[T]) filterText() string {
	if l.bar == nil {
		return ""
	}
	return l.bar.filter.Text()
}

// title is "Name N", or "Name shown/N" when filtered.
func (l *listPane[T]) title(name string) string {
	if l.filterText() != "" {
		return fmt.Sprintf("%s %d/%d", name, len(l.view), len(l.items))
	}
	return fmt.Sprintf("%s %d", name, len(l.items))
}

func (l *listPane[T]) selected() (T, bool) {
	if len(l.view) == 0 {
		var zero T
		return zero, false
	}
	return l.items[l.view[l.cur.Pos]], true
}

// SelectedID is the selected entry's id.
func (l *listPane[T]) SelectedID() string {
	it, ok := l.selected()
	if !ok {
		return ""
	}
	return l.id(it)
}

// SetSize splits the body between the list and the selected entry.
func (l *listPane[T]) SetSize(w, h int) {
	l.width, l.height = w, h
	l.listH = max((h-2)/2, 3)
	l.cur.SetH(l.listH)
}

// SetItems replaces the data. The selection follows its id; when the entry
// is gone (acted on) the cursor stays put, selecting the next.
func (l *listPane[T]) SetItems(items []T) {
	if l.replacing != nil {
		l.replacing(items)
	}
	l.items, l.loaded = items, true
	l.apply(false)
}

// apply recomputes the filtered view; a changed filter puts the cursor on
// the first match, otherwise the selection follows its id.
func (l *listPane[T]) apply(changed bool) {
	l.view = l.view[:0]
	for i, it := range l.items {
		if l.bar == nil || l.match(&l.bar.filter, it) {
			l.view = append(l.view, i)
		}
	}
	pos := l.cur.Pos
	l.cur.SetN(len(l.view))
	if changed {
		l.cur.Set(0)
	} else {
		l.cur.Set(pos)
		for vi, i := range l.view {
			if l.id(l.items[i]) == l.selID {
				l.cur.Set(vi)
			}
		}
	}
	l.selID = l.SelectedID()
	l.refresh()
}

func (l *listPane[T]) refresh() {
	if l.bar != nil {
		l.bar.refreshFilterKeys(len(l.items))
	}
	if l.changed != nil {
		l.changed()
	}
}

// updateList handles what every list does with a message: its load
// result, a reload, the mouse, navigation and the filter. It reports
// whether msg was handled, with the command to run.
func (l *listPane[T]) updateList(msg tea.Msg) (tea.Cmd, bool) {
	switch msg := msg.(type) {
	case LoadedMsg[T]:
		if msg.Seq != 0 {
			if msg.Seq < l.shown {
				return nil, true // an older load than the one on screen
			}
			l.shown = msg.Seq
		}
		l.err = msg.Err
		if msg.Err == nil {
			l.SetItems(msg.Items)
		}
		return nil, true
	case ReloadMsg:
		return l.reload(), true
	case tea.MouseMsg:
		if l.cur.HandleNav(msg, l.nav) || l.cur.Click(msg, 1) {
			l.selID = l.SelectedID()
		}
		return nil, true
	case tea.KeyMsg:
		nav := func() bool {
			if !l.cur.HandleNav(msg, l.nav) {
				return false
			}
			l.selID = l.SelectedID()
			return true
		}
		if l.bar == nil {
			return nil, nav()
		}
		handled, changed := l.bar.filterKey(msg, nav)
		if changed {
			l.apply(true)
		} else if handled {
			l.refresh()
		}
		return nil, handled
	}
	return nil, false
}

// head is the pane's header: its name and the count of its entries with
// what follows it, or how many of them the filter shows and the filter.
func (l *listPane[T]) head(name, one, many, after string) string {
	s := l.d.Styles
	if lb := l.filterLabel(); lb != "" {
		return s.Title.Render(name) + s.Muted.Render(fmt.Sprintf(" · %d of %s", len(l.view), Count(len(l.items), one, many))) + " " + s.Accent.Render(lb)
	}
	return s.Title.Render(name) + s.Muted.Render(" · "+Count(len(l.items), one, many)+after)
}

// listStates is the header line plus, when the list has nothing to show,
// what it says instead (and true): the read error, loading, the empty
// text, or that nothing matches the filter.
func (l *listPane[T]) listStates(head, what, empty, noMatch string) (string, bool) {
	s := l.d.Styles
	top := Cut(head, l.width) + "\n"
	switch {
	case l.err != nil:
		return top + s.StatusErr.Render("cannot read "+what+": "+Line(l.err.Error())), true
	case !l.loaded:
		return top + s.Muted.Render("loading…"), true
	case len(l.items) == 0:
		return l.withInput(top + s.Muted.Render(empty)), true
	case len(l.view) == 0:
		return l.withInput(top + s.Muted.Render(noMatch)), true
	}
	return top, false
}

// rows renders the visible rows (row gets the item, its marker "> " or
// "  " and whether it is the selected one), pads the list to its height
// and closes it with a rule.
func (l *listPane[T]) rows(row func(it T, sel string, selected bool) string) string {
	start, end := l.cur.Range()
	var list []string
	for i := start; i < end; i++ {
		sel := " "
		if i == l.cur.Pos {
			sel = ">"
		}
		list = append(list, row(l.items[l.view[i]], sel, i == l.cur.Pos))
	}
	for len(list) < l.listH {
		list = append(list, "")
	}
	return strings.Join(list, "\n") + "\n" + l.d.Styles.Muted.Render(strings.Repeat("─", l.width)) + "\n"
}

// filterLabel is the header fragment for a set filter, or "".
func (l *listPane[T]) filterLabel() string {
	if l.bar == nil {
		return ""
	}
	return l.bar.filter.Label()
}

// withInput puts the filter input on the pane's last line while typing.
func (l *listPane[T]) withInput(body string) string {
	if l.bar == nil {
		return body
	}
	return withFilterInput(&l.bar.filter, l.d, body, l.width, l.height)
}
