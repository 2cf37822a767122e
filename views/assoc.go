package views

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/odekmem/odekmem/internal/score"
	"github.com/odekmem/odekmem/keymap"
	"github.com/odekmem/odekmem/memcore"
)

// GEdge is an association to a neighbour, with the neighbour's own
// neighbours at depth 2.
type GEdge struct {
	Kind     string
	Atom     memcore.Atom
	Children []GEdge
	More     int // neighbours left out
}

// Graph is an atom's neighbourhood.
type Graph struct {
	Centre memcore.Atom
	Edges  []GEdge
}

// AssocLoadedMsg carries a neighbourhood.
type AssocLoadedMsg struct {
	ID    string
	Depth int
	Graph Graph
	Err   error
}

const maxChildren = 6

// LoadGraph reads an atom's neighbourhood to depth 1 or 2.
func LoadGraph(d Deps, id string, depth int) tea.Cmd {
	return func() tea.Msg {
		if d.Store == nil || id == "" {
			return AssocLoadedMsg{ID: id, Depth: depth}
		}
		at, _, err := d.Store.Get(d.Ctx, id)
		if err != nil {
			return AssocLoadedMsg{ID: id, Depth: depth, Err: err}
		}
		g := Graph{Centre: at}
		seen := map[string]bool{id: true}
		links, err := d.Store.Links(d.Ctx, id)
		if err != nil {
			return AssocLoadedMsg{ID: id, Depth: depth, Err: err}
		}
		for _, l := range links {
			seen[l.ID] = true
		}
		for _, l := range links {
			n, _, err := d.Store.Get(d.Ctx, l.ID)
			if err != nil {
				continue
			}
			e := GEdge{Kind: l.Kind, Atom: n}
			if depth > 1 {
				links2, err := d.Store.Links(d.Ctx, l.ID)
				if err != nil {
					return AssocLoadedMsg{ID: id, Depth: depth, Err: err}
				}
				for _, l2 := range links2 {
					if seen[l2.ID] {
						continue
					}
					if len(e.Children) >= maxChildren {
						e.More++
						continue
					}
					n2, _, err := d.Store.Get(d.Ctx, l2.ID)
					if err != nil {
						continue
					}
					e.Children = append(e.Children, GEdge{Kind: l2.Kind, Atom: n2})
				}
			}
			g.Edges = append(g.Edges, e)
		}
		return AssocLoadedMsg{ID: id, Depth: depth, Graph: g}
	}
}

type gRow struct {
	level int
	last  bool
	plast bool // the parent is the last level-1 edge
	edge  GEdge
	more  int
}

// Assoc draws the selected atom's neighbourhood as a tree with labelled
// edges, and moves along them.
type Assoc struct {
	filterBar
	d       Deps
	keys    keymap.Assoc
	nav     keymap.Nav
	centre  string
	follow  string
	history []string
	depth   int
	graph   Graph
	loaded  bool
	err     error
	rows    []gRow
	cur     Cursor
	width   int
	height  int
}

// NewAssoc returns the pane.
func NewAssoc(d Deps) *Assoc {
	a := &Assoc{d: d, keys: d.Keys.Assoc, nav: d.Keys.Nav, depth: 1,
		filterBar: newFilterBar(d, NewListFilter("neighbour words, or kind:task type:decision source:user_said",
			[]string{"kind", "type", "source"}, map[string]string{"k": "kind", "t": "type", "src": "source"}))}
	a.refreshKeys()
	return a
}

// Init does nothing: the pane follows the Atoms selection when focused.
func (a *Assoc) Init() tea.Cmd { return nil }

// Title is "Associations N" (neighbours of the centre).
func (a *Assoc) Title() string {
	if a.centre == "" {
		return "Associations"
	}
	return fmt.Sprintf("Associations %d", len(a.graph.Edges))
}

func (a *Assoc) matches(e GEdge) bool {
	return a.filter.Match(map[string]string{"kind": e.Kind, "type": string(e.Atom.Type), "source": string(e.Atom.SourceClass)}, e.Atom.Text)
}

// SelectedID is the selected neighbour (or the centre).
func (a *Assoc) SelectedID() string {
	if len(a.rows) == 0 {
		return a.centre
	}
	return a.rows[a.cur.Pos].edge.Atom.ID
}

// SetSize sets the size.
func (a *Assoc) SetSize(w, h int) {
	a.width, a.height = w, h
	a.cur.SetH(h - 7)
}

// Follow centres on the Atoms selection when it changed since last time.
func (a *Assoc) Follow(id string) tea.Cmd {
	if id == "" || id == a.follow {
		return nil
	}
	a.follow = id
	a.history = nil
	return a.setCentre(id)
}

func (a *Assoc) setCentre(id string) tea.Cmd {
	a.centre = id
	a.loaded = false
	a.refreshKeys()
	return LoadGraph(a.d, id, a.depth)
}

func (a *Assoc) refreshKeys() {
	a.keys.Back.SetEnabled(len(a.history) > 0)
	a.keys.Recentre.SetEnabled(len(a.rows) > 0)
	a.keys.Deeper.SetEnabled(a.depth < 2)
	a.keys.Shallow.SetEnabled(a.depth > 1)
	a.lkeys.Filter.SetEnabled(a.centre != "")
	a.lkeys.ClearFilter.SetEnabled(a.filter.Text() != "")
}

// flatten lays the graph out as rows. With a filter, a neighbour shows
// when it or one of its own neighbours matches (the path to a match stays
// visible). A changed filter puts the cursor on the first row; otherwise
// the selection follows its atom.
func (a *Assoc) flatten(changed bool) {
	sel := a.SelectedID()
	a.rows = a.rows[:0]
	type kept struct {
		e        GEdge
		children []GEdge
	}
	var edges []kept
	for _, e := range a.graph.Edges {
		var ch []GEdge
		for _, c := range e.Children {
			if a.matches(c) || a.matches(e) {
				ch = append(ch, c)
			}
		}
		if a.matches(e) || len(ch) > 0 {
			edges = append(edges, kept{e: e, children: ch})
		}
	}
	for i, k := range edges {
		last := i == len(edges)-1
		a.rows = append(a.rows, gRow{level: 1, last: last, edge: k.e})
		more := 0
		if a.filter.Text() == "" {
			more = k.e.More
		}
		for j, c := range k.children {
			a.rows = append(a.rows, gRow{level: 2, last: j == len(k.children)-1 && more == 0, plast: last, edge: c})
		}
		if more > 0 {
			a.rows = append(a.rows, gRow{level: 2, last: true, plast: last, more: more, edge: GEdge{Atom: k.e.Atom}})
		}
	}
	a.cur.SetN(len(a.rows))
	a.cur.Set(0)
	if changed {
		return
	}
	for i, r := range a.rows {
		if r.edge.Atom.ID == sel && r.more == 0 {
			a.cur.Set(i)
			break
		}
	}
}

// Update handles keys and results.
func (a *Assoc) Update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case AssocLoadedMsg:
		if msg.ID != a.centre || msg.Depth != a.depth {
			return nil
		}
		a.err, a.loaded = msg.Err, true
		a.graph = msg.Graph
		a.flatten(false)
		a.refreshKeys()
	case CentreMsg:
		if a.centre != "" && a.centre != msg.ID {
			a.history = append(a.history, a.centre)
		}
		a.follow = msg.ID
		return a.setCentre(msg.ID)
	case ReloadMsg:
		if a.centre != "" {
			return LoadGraph(a.d, a.centre, a.depth)
		}
	case tea.MouseMsg:
		if !a.cur.HandleNav(msg, a.nav) {
			a.cur.Click(msg, assocRowsTop)
		}
	case tea.KeyMsg:
		if handled, changed := a.filterKey(msg, func() bool { return a.cur.HandleNav(msg, a.nav) }); handled {
			if changed {
				a.flatten(true)
			}
			a.refreshKeys()
			return nil
		}
		k := a.keys
		switch {
		case key.Matches(msg, k.Recentre):
			if len(a.rows) == 0 || a.rows[a.cur.Pos].more > 0 {
				return nil
			}
			a.history = append(a.history, a.centre)
			return a.setCentre(a.rows[a.cur.Pos].edge.Atom.ID)
		case key.Matches(msg, k.Back):
			if n := len(a.history); n > 0 {
				id := a.history[n-1]
				a.history = a.history[:n-1]
				return a.setCentre(id)
			}
		case key.Matches(msg, k.Deeper):
			a.depth = 2
			return a.setCentre(a.centre)
		case key.Matches(msg, k.Shallow):
			a.depth = 1
			return a.setCentre(a.centre)
		case key.Matches(msg, k.Sync):
			a.follow = ""
			return func() tea.Msg { return syncAssocMsg{} }
		}
	}
	return nil
}

// assocRowsTop is the pane line of the first tree row: the header and the
// centre box (border, meta line, two text lines, border) come first.
const assocRowsTop = 6

// syncAssocMsg asks the root to re-follow the Atoms selection (handled by
// the root through Follow); it is harmless when unhandled.
type syncAssocMsg struct{}

// SyncRequested reports whether msg asks to follow the Atoms selection.
func SyncRequested(msg tea.Msg) bool { _, ok := msg.(syncAssocMsg); return ok }

// countWords counts what the tree draws: the direct neighbours shown (of
// how many, under a filter) and the atoms drawn at depth 2.
func (a *Assoc) countWords() string {
	direct, second, hidden := 0, 0, 0
	for _, r := range a.rows {
		switch {
		case r.more > 0:
			hidden += r.more
		case r.level == 1:
			direct++
		default:
			second++
		}
	}
	out := Count(direct, "neighbour", "neighbours")
	if direct != len(a.graph.Edges) {
		out = fmt.Sprintf("%d of %s", direct, Count(len(a.graph.Edges), "neighbour", "neighbours"))
	}
	if a.depth > 1 {
		out += fmt.Sprintf(", %d at depth 2", second)
		if hidden > 0 {
			out += fmt.Sprintf(" (+%d not drawn)", hidden)
		}
	}
	return out
}

// View draws the centre box and the tree of neighbours.
func (a *Assoc) View() string {
	s := a.d.Styles
	head := s.Title.Render("Associations") + s.Muted.Render(fmt.Sprintf(" · depth %d · %s", a.depth, a.countWords()))
	if l := a.filter.Label(); l != "" {
		head += " " + s.Accent.Render(l)
	}
	if n := len(a.history); n > 0 {
		head += s.Muted.Render(fmt.Sprintf(" · %d back", n))
	}
	var b strings.Builder
	b.WriteString(head + "\n")
	switch {
	case a.centre == "":
		return b.String() + s.Muted.Render("Select an atom in Atoms (1) and come back, or press r there.")
	case a.err != nil:
		return b.String() + s.StatusErr.Render("cannot load the atom: "+Line(a.err.Error()))
	case !a.loaded:
		return b.String() + s.Muted.Render("loading…")
	}
	c := a.graph.Centre
	boxW := a.width - 4
	if boxW > 96 {
		boxW = 96
	}
	meta := fmt.Sprintf("%s · %s · %s · %s", Line(c.Type), Line(c.SourceClass), Age(score.AgeDays(c.CreatedAt, a.d.Now())), ShortID(c.ID))
	if c.Pin {
		meta += " · pinned"
	}
	text := Cut(Line(c.Text), 2*(boxW-2))
	wrapped := strings.Split(Wrap(text, boxW-2), "\n")
	if len(wrapped) > 2 {
		wrapped = wrapped[:2]
	}
	for len(wrapped) < 2 {
		wrapped = append(wrapped, "")
	}
	box := s.BoxFocus.Width(boxW).Render(s.Accent.Render(meta) + "\n" + strings.Join(wrapped, "\n"))
	b.WriteString(box + "\n")
	if len(a.rows) == 0 {
		if a.filter.Text() != "" && len(a.graph.Edges) > 0 {
			b.WriteString(s.Muted.Render("  No neighbour matches the filter. Press esc to clear it."))
		} else {
			b.WriteString(s.Muted.Render("  No associations."))
		}
		return withFilterInput(&a.filter, a.d, b.String(), a.width, a.height)
	}
	start, end := a.cur.Range()
	for i := start; i < end; i++ {
		r := a.rows[i]
		var prefix string
		if r.level == 1 {
			prefix = " ├─"
			if r.last {
				prefix = " └─"
			}
		} else {
			pipe := " │ "
			if r.plast {
				pipe = "   "
			}
			prefix = pipe + "  ├─"
			if r.last {
				prefix = pipe + "  └─"
			}
		}
		sel := " "
		if i == a.cur.Pos {
			sel = ">"
		}
		var line string
		if r.more > 0 {
			line = sel + prefix + s.Muted.Render(fmt.Sprintf(" … %d more", r.more))
		} else {
			kind := orDash(Line(r.edge.Kind))
			label := s.EdgeStyle(r.edge.Kind).Render(kind) + "─▶ "
			body := fmt.Sprintf("%-11s %s", Line(r.edge.Atom.Type), Line(r.edge.Atom.Text))
			line = sel + prefix + label + body
			if i == a.cur.Pos {
				line = s.Selected.Render(Fit(sel+prefix+kind+"─▶ "+body, a.width))
			}
		}
		b.WriteString(Cut(line, a.width) + "\n")
	}
	return withFilterInput(&a.filter, a.d, strings.TrimSuffix(b.String(), "\n"), a.width, a.height)
}

// ShortHelp lists the main keys.
func (a *Assoc) ShortHelp() []key.Binding {
	k := a.keys
	return a.shortHelp(k.Recentre, k.Back, k.Deeper, k.Shallow)
}

// FullHelp lists every key.
func (a *Assoc) FullHelp() [][]key.Binding {
	k := a.keys
	return a.fullHelp([]key.Binding{a.nav.Up, a.nav.Down}, []key.Binding{k.Recentre, k.Back, k.Deeper, k.Shallow, k.Sync})
}
