package views

import (
	"fmt"
	"sort"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/odekmem/odekmem/internal/scan"
	"github.com/odekmem/odekmem/internal/score"
	"github.com/odekmem/odekmem/keymap"
	"github.com/odekmem/odekmem/memcore"
)

// AtomRow is one live atom with the fields the list shows, computed once
// when the data loads (not per frame).
type AtomRow struct {
	Atom      memcore.Atom
	lower     string
	Age       float64
	Retention float64
}

// AtomsLoadedMsg carries the live atoms.
type AtomsLoadedMsg struct {
	Rows []AtomRow
	// Damaged is set when the store reported problems reading its files,
	// so an empty list is not mistaken for an empty store.
	Damaged bool
	Err     error
}

// SearchResultMsg carries a semantic search.
type SearchResultMsg struct {
	Query string
	// Filter is the Atoms filter the results were limited to ("" none).
	Filter  string
	Results []memcore.Scored
	Err     error
}

type atomsMode int

const (
	atomsList atomsMode = iota
	atomsDetail
	atomsSearch
)

type inputKind int

const (
	inputNone inputKind = iota
	inputFilter
	inputAdd
	inputSearch
)

// Atoms is the live-atom pane: a virtualised list with filters, a detail
// view, pin/forget/add and semantic search.
type Atoms struct {
	d    Deps
	keys keymap.Atoms
	nav  keymap.Nav
	in   keymap.Input

	rows    []AtomRow
	view    []int // indexes into rows that pass the filter
	cur     Cursor
	selID   string
	loaded  bool
	damaged bool
	pinned  bool // some atom in the view is pinned: the header explains *
	err     error
	filter  string
	applied string // the filter the view was last computed for
	parsed  atomFilter
	values  map[string][]string
	width   int
	height  int
	mode    atomsMode
	input   Input
	inKind  inputKind
	preEdit string

	detail   *Detail
	search   []memcore.Scored
	query    string
	sfilter  string // the filter the search honoured
	scur     Cursor
	fromMode atomsMode
	history  []string // past search queries, oldest first
	hpos     int      // position in history while browsing with ↑/↓
}

// NewAtoms returns the Atoms pane.
func NewAtoms(d Deps) *Atoms {
	a := &Atoms{d: d, keys: d.Keys.Atoms, nav: d.Keys.Nav, in: d.Keys.Input, values: map[string][]string{}}
	a.detail = NewDetail(d)
	a.refreshKeys()
	return a
}

// Init loads the atoms.
func (a *Atoms) Init() tea.Cmd { return LoadAtoms(a.d) }

// LoadAtoms lists the live atoms and precomputes their row fields.
func LoadAtoms(d Deps) tea.Cmd {
	return func() tea.Msg {
		if d.Store == nil {
			return AtomsLoadedMsg{}
		}
		atoms, err := d.Store.List(d.Ctx, memcore.Filter{})
		if err != nil {
			return AtomsLoadedMsg{Err: err}
		}
		return AtomsLoadedMsg{Rows: BuildRows(d, atoms), Damaged: len(d.Store.Problems()) > 0}
	}
}

// BuildRows computes the list fields for atoms (newest first as given).
func BuildRows(d Deps, atoms []memcore.Atom) []AtomRow {
	now := d.Now()
	rows := make([]AtomRow, len(atoms))
	for i, at := range atoms {
		rows[i] = AtomRow{
			Atom:      at,
			lower:     strings.ToLower(at.Text),
			Age:       score.AgeDays(at.CreatedAt, now),
			Retention: score.Retention(at.Confidence, at.CreatedAt, now, d.halfLifeFor(at), at.SourceClass),
		}
	}
	return rows
}

// SetRows replaces the data (used by the loader and by benchmarks).
func (a *Atoms) SetRows(rows []AtomRow) {
	a.rows = rows
	a.loaded = true
	a.values = map[string][]string{}
	seen := map[string]map[string]bool{"type": {}, "source": {}, "project": {}, "session": {}}
	for _, r := range rows {
		seen["type"][string(r.Atom.Type)] = true
		seen["source"][string(r.Atom.SourceClass)] = true
		seen["project"][r.Atom.Context.Project] = true
		seen["session"][r.Atom.Context.SessionID] = true
	}
	for k, m := range seen {
		for v := range m {
			if v != "" {
				a.values[k] = append(a.values[k], v)
			}
		}
		sort.Strings(a.values[k])
	}
	a.apply()
}

// Title is "Atoms N" (or "Atoms shown/N" when filtered).
func (a *Atoms) Title() string {
	if a.filter != "" {
		return fmt.Sprintf("Atoms %d/%d", len(a.view), len(a.rows))
	}
	return fmt.Sprintf("Atoms %d", len(a.rows))
}

// FilterText is the filter as typed.
func (a *Atoms) FilterText() string { return a.filter }

// InputActive reports whether a text input has the keys.
func (a *Atoms) InputActive() bool { return a.inKind != inputNone }

// SelectedID is the selected atom's id.
func (a *Atoms) SelectedID() string {
	if a.mode == atomsSearch && len(a.search) > 0 {
		return a.search[a.scur.Pos].Atom.ID
	}
	if a.mode == atomsDetail {
		return a.detail.ID
	}
	if len(a.view) == 0 {
		return ""
	}
	return a.rows[a.view[a.cur.Pos]].Atom.ID
}

func (a *Atoms) selected() (memcore.Atom, bool) {
	if a.mode == atomsSearch {
		if len(a.search) == 0 {
			return memcore.Atom{}, false
		}
		return a.search[a.scur.Pos].Atom, true
	}
	if a.mode == atomsDetail {
		return a.detail.Atom, a.detail.ID != ""
	}
	if len(a.view) == 0 {
		return memcore.Atom{}, false
	}
	return a.rows[a.view[a.cur.Pos]].Atom, true
}

// SetSize sets the pane's size.
func (a *Atoms) SetSize(w, h int) {
	a.width, a.height = w, h
	a.cur.SetH(h - 3)
	a.scur.SetH(h - 4)       // the search view's last line is its legend
	a.detail.SetSize(w, h-2) // the pane's header above, its input line below
}

func (a *Atoms) refreshKeys() {
	k := &a.keys
	list := a.mode == atomsList
	has := false
	if _, ok := a.selected(); ok {
		has = true
	}
	k.Filter.SetEnabled(list)
	k.ClearFilter.SetEnabled(list && a.filter != "")
	for _, b := range []*key.Binding{&k.Type, &k.Source, &k.Project, &k.Session} {
		b.SetEnabled(list && len(a.rows) > 0)
	}
	k.Detail.SetEnabled(a.mode != atomsDetail && has)
	k.Back.SetEnabled(a.mode != atomsList)
	k.Pin.SetEnabled(has)
	k.Forget.SetEnabled(has)
	k.Graph.SetEnabled(has)
	k.Add.SetEnabled(true)
	k.Search.SetEnabled(true)
}

// Update handles keys, mouse and the pane's own results.
func (a *Atoms) Update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case AtomsLoadedMsg:
		if msg.Err != nil {
			a.err = msg.Err
			return nil
		}
		a.err = nil
		a.damaged = msg.Damaged
		a.SetRows(msg.Rows)
		live := make(map[string]bool, len(msg.Rows))
		for i := range msg.Rows {
			live[msg.Rows[i].Atom.ID] = true
		}
		kept := a.search[:0]
		for _, r := range a.search { // forgotten atoms leave the results
			if live[r.Atom.ID] {
				kept = append(kept, r)
			}
		}
		a.search = kept
		a.scur.SetN(len(a.search))
		if a.mode == atomsDetail {
			if !live[a.detail.ID] { // forgotten: back to where we came from
				a.mode = a.fromMode
				a.refreshKeys()
				return nil
			}
			return a.detail.Load(a.detail.ID)
		}
		a.refreshKeys()
		return nil
	case ReloadMsg:
		if msg.Select != "" {
			a.selID = msg.Select // apply() selects it once the list is back
		}
		return LoadAtoms(a.d)
	case SearchResultMsg:
		if msg.Err != nil {
			return Status("search: "+msg.Err.Error(), true)
		}
		a.search, a.query, a.sfilter = msg.Results, msg.Query, msg.Filter
		a.scur = Cursor{H: a.height - 4}
		a.scur.SetN(len(a.search))
		a.mode = atomsSearch
		a.refreshKeys()
		return Status(fmt.Sprintf("%d results for %q", len(a.search), Line(msg.Query)), false)
	case DetailMsg:
		a.detail.Update(msg)
		return nil
	case tea.MouseMsg:
		if !a.navigate(msg) {
			a.click(msg)
		}
		a.refreshKeys()
		return nil
	case tea.KeyMsg:
		if a.inKind != inputNone {
			return a.updateInput(msg)
		}
		return a.updateKey(msg)
	}
	return nil
}

func (a *Atoms) navigate(msg tea.Msg) bool {
	switch a.mode {
	case atomsDetail:
		return a.detail.HandleNav(msg)
	case atomsSearch:
		return a.scur.HandleNav(msg, a.nav)
	}
	if a.cur.HandleNav(msg, a.nav) {
		a.remember()
		return true
	}
	return false
}

// click selects the row under a left click (list and search results sit
// below the pane header and the column header).
func (a *Atoms) click(msg tea.MouseMsg) {
	switch a.mode {
	case atomsList:
		if a.cur.Click(msg, 2) {
			a.remember()
		}
	case atomsSearch:
		a.scur.Click(msg, 2)
	}
}

func (a *Atoms) updateKey(msg tea.KeyMsg) tea.Cmd {
	k := a.keys
	if a.navigate(msg) {
		a.refreshKeys()
		return nil
	}
	switch {
	case key.Matches(msg, k.Back):
		switch a.mode {
		case atomsDetail:
			a.mode = a.fromMode
		case atomsSearch:
			a.mode = atomsList
		}
		a.refreshKeys()
	case key.Matches(msg, k.ClearFilter):
		a.filter = ""
		a.apply()
	case key.Matches(msg, k.Filter):
		a.inKind, a.preEdit = inputFilter, a.filter
		a.input.Prompt = "/ "
		a.input.Placeholder = "text, or type:decision project:webshop source:user_said session:…"
		a.input.SetValue(a.filter)
	case key.Matches(msg, k.Type):
		a.cycle("type")
	case key.Matches(msg, k.Source):
		a.cycle("source")
	case key.Matches(msg, k.Project):
		a.cycle("project")
	case key.Matches(msg, k.Session):
		a.cycle("session")
	case key.Matches(msg, k.Add):
		a.inKind = inputAdd
		a.input.Prompt = "note: "
		a.input.Placeholder = "a note to remember (stored as user_approved)"
		a.input.Reset()
	case key.Matches(msg, k.Search):
		// A new search starts empty; ↑ brings back earlier queries.
		a.inKind = inputSearch
		a.input.Prompt = "search: "
		a.input.Placeholder = "semantic search over trusted atoms (↑ history)"
		if a.filter != "" {
			a.input.Placeholder = "semantic search within filter " + Line(a.filter) + " (↑ history)"
		}
		a.input.Reset()
		a.hpos = len(a.history)
	case key.Matches(msg, k.Detail):
		at, ok := a.selected()
		if !ok {
			return nil
		}
		a.fromMode = a.mode
		a.mode = atomsDetail
		a.detail.Atom = at
		cmd := a.detail.Load(at.ID)
		a.refreshKeys()
		return cmd
	case key.Matches(msg, k.Pin):
		at, ok := a.selected()
		if !ok {
			return nil
		}
		return Work(PinCmd(a.d, at.ID, !at.Pin))
	case key.Matches(msg, k.Forget):
		at, ok := a.selected()
		if !ok {
			return nil
		}
		q := fmt.Sprintf("Forget %s “%s”?", Line(at.Type), Cut(Line(at.Text), 40))
		if at.Pin {
			q = fmt.Sprintf("Forget pinned %s “%s”? You pinned it so it would never be evicted.", Line(at.Type), Cut(Line(at.Text), 40))
		}
		return Confirm(q, Work(ForgetCmd(a.d, []string{at.ID})))
	case key.Matches(msg, k.Graph):
		id := a.SelectedID()
		if id == "" {
			return nil
		}
		return func() tea.Msg { return ShowAssociationsMsg{ID: id} }
	}
	return nil
}

func (a *Atoms) updateInput(msg tea.KeyMsg) tea.Cmd {
	kind := a.inKind
	switch {
	case key.Matches(msg, a.in.Cancel):
		a.inKind = inputNone
		if kind == inputFilter {
			a.filter = a.preEdit
			a.apply()
		}
		return nil
	case key.Matches(msg, a.in.Submit):
		a.inKind = inputNone
		v := strings.TrimSpace(a.input.Value())
		switch kind {
		case inputAdd:
			if v == "" {
				return nil
			}
			return Work(AddCmd(a.d, v))
		case inputSearch:
			if v == "" {
				return nil
			}
			if n := len(a.history); n == 0 || a.history[n-1] != v {
				a.history = append(a.history, v)
			}
			return Work(SearchCmd(a.d, v, a.filter))
		}
		a.refreshKeys()
		return nil
	}
	if kind == inputSearch && (msg.Type == tea.KeyUp || msg.Type == tea.KeyDown) {
		a.browseHistory(msg.Type == tea.KeyUp)
		return nil
	}
	if a.input.Update(msg) && kind == inputFilter {
		a.filter = a.input.Value()
		a.apply()
	}
	return nil
}

// browseHistory steps through earlier search queries (older with ↑).
func (a *Atoms) browseHistory(older bool) {
	if older && a.hpos > 0 {
		a.hpos--
	} else if !older && a.hpos < len(a.history) {
		a.hpos++
	} else {
		return
	}
	if a.hpos == len(a.history) {
		a.input.Reset()
		return
	}
	a.input.SetValue(a.history[a.hpos])
}

// PinCmd pins or unpins an atom.
func PinCmd(d Deps, id string, pin bool) func() tea.Msg {
	return func() tea.Msg {
		at, u, err := d.Store.SetPin(d.Ctx, id, pin)
		if err != nil {
			return MutatedMsg{Err: fmt.Errorf("pin: %w", err)}
		}
		d.Review.Record(u)
		verb, act := "unpinned", "unpin"
		if at.Pin {
			verb, act = "pinned", "pin"
		}
		return MutatedMsg{Status: fmt.Sprintf("%s “%s” (u undoes)", verb, Cut(Line(at.Text), 50)), Undo: storeUndo(d, act, 1)}
	}
}

// AddCmd stores a note as a user_approved atom.
func AddCmd(d Deps, text string) func() tea.Msg {
	return func() tea.Msg {
		// A note is never cut: one longer than atom_max_chars (after
		// redaction, as memcore counts) is refused with the lengths.
		if limit := d.Store.Config().AtomMaxChars; limit > 0 {
			if n := len(scan.Scan(strings.TrimSpace(text)).Redacted); n > limit {
				return MutatedMsg{Err: fmt.Errorf("the note is %d bytes; an atom holds at most %d (atom_max_chars): split it, or raise the limit", n, limit)}
			}
		}
		res, err := d.Store.Add(d.Ctx, memcore.AddRequest{Text: text, Source: memcore.SourceUserApproved, Type: memcore.TypeFact, Link: true})
		if err != nil && !(res.Quarantined && res.Atom.ID != "") {
			return MutatedMsg{Err: fmt.Errorf("add: %w", err)}
		}
		switch {
		case res.Quarantined:
			return MutatedMsg{Status: "note quarantined: " + Line(res.Reason)}
		case res.Refreshed:
			return MutatedMsg{Status: "refreshed an existing atom with the same text"}
		}
		st := fmt.Sprintf("added note %s (selected)", ShortID(res.Atom.ID))
		if n := len(res.Contradictions); n > 0 {
			old := "an older memory"
			if a, _, err := d.Store.Get(d.Ctx, res.Contradictions[0].Old); err == nil {
				old = "“" + Cut(Line(a.Text), 40) + "”"
			}
			if n > 1 {
				old = fmt.Sprintf("%d older memories", n)
			}
			st += "; it supersedes " + old + " — decide in 8 Contradictions"
		}
		return MutatedMsg{Status: st, Select: res.Atom.ID}
	}
}
