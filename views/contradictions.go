package views

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/odekmem/odekmem/memcore"
)

// The Contradictions pane: pairs where a newer trusted memory replaced an
// older one on the same subject. The older one is superseded (kept, never
// recalled above the newer) until the person decides: keep the new one,
// keep the old one, or keep both.

// CItem is one contradiction with both atoms.
type CItem struct {
	C        memcore.Contradiction
	Old, New memcore.Atom
}

// ContradictionsLoadedMsg carries the pending contradictions.
type ContradictionsLoadedMsg = LoadedMsg[CItem]

// LoadContradictions reads the pending contradictions and their atoms.
func LoadContradictions(d Deps) tea.Cmd {
	return loadItems(d, func(st *memcore.Store) ([]CItem, error) {
		cs, err := st.Contradictions(d.Ctx, false)
		if err != nil {
			return nil, err
		}
		var items []CItem
		for _, c := range cs {
			o, _, err1 := st.Get(d.Ctx, c.Old)
			n, _, err2 := st.Get(d.Ctx, c.New)
			if err1 != nil || err2 != nil {
				continue
			}
			items = append(items, CItem{C: c, Old: o, New: n})
		}
		return items, nil
	})
}

// ContradictionKeys are the pane's decisions.
type ContradictionKeys struct {
	KeepNew, KeepOld, KeepBoth key.Binding
}

// DefaultContradictionKeys binds n, o and b.
func DefaultContradictionKeys() ContradictionKeys {
	return ContradictionKeys{
		KeepNew:  key.NewBinding(key.WithKeys("n"), key.WithHelp("n", "keep new")),
		KeepOld:  key.NewBinding(key.WithKeys("o"), key.WithHelp("o", "keep old")),
		KeepBoth: key.NewBinding(key.WithKeys("b"), key.WithHelp("b", "keep both")),
	}
}

// Contradictions is the pane. It has no filter: the list is short and
// every pair waits for a decision.
type Contradictions struct {
	listPane[CItem]
	keys ContradictionKeys
}

// NewContradictions returns the pane.
func NewContradictions(d Deps) *Contradictions {
	c := &Contradictions{listPane: newListPane[CItem](d, nil, LoadContradictions, func(it CItem) string { return it.C.ID }, nil), keys: DefaultContradictionKeys()}
	c.changed = c.refreshKeys
	c.refresh()
	return c
}

// Title is "Contradictions N".
func (c *Contradictions) Title() string { return c.title("Contradictions") }

func (c *Contradictions) refreshKeys() {
	has := len(c.items) > 0
	c.keys.KeepNew.SetEnabled(has)
	c.keys.KeepOld.SetEnabled(has)
	c.keys.KeepBoth.SetEnabled(has)
}

// Update handles keys and results.
func (c *Contradictions) Update(msg tea.Msg) tea.Cmd {
	if cmd, done := c.updateList(msg); done {
		return cmd
	}
	k, isKey := msg.(tea.KeyMsg)
	it, ok := c.selected()
	if !isKey || !ok {
		return nil
	}
	var how string
	switch {
	case key.Matches(k, c.keys.KeepNew):
		how = memcore.ResolveKeepNew
	case key.Matches(k, c.keys.KeepOld):
		how = memcore.ResolveKeepOld
	case key.Matches(k, c.keys.KeepBoth):
		how = memcore.ResolveKeepBoth
	default:
		return nil
	}
	c.selID = "" // the next entry takes the cursor
	return Work(ResolveContradictionCmd(c.d, it, how))
}

// ResolveContradictionCmd records the person's decision; u gives the
// contradiction back its earlier decision.
func ResolveContradictionCmd(d Deps, it CItem, how string) func() tea.Msg {
	return func() tea.Msg {
		_, u, err := d.Store.ResolveContradiction(d.Ctx, it.C.ID, how)
		if err != nil {
			return MutatedMsg{Err: fmt.Errorf("resolve: %w", err)}
		}
		d.Review.Record(u)
		what := map[string]string{
			memcore.ResolveKeepNew:  "kept the newer memory; the older stays superseded",
			memcore.ResolveKeepOld:  "kept the older memory; the newer is superseded",
			memcore.ResolveKeepBoth: "kept both; neither is superseded",
		}[how]
		return MutatedMsg{Status: what + ": “" + Cut(Line(it.New.Text), 40) + "” (u undoes)", Undo: storeUndo(d, "resolve", 1)}
	}
}

// View renders the list and the selected pair.
func (c *Contradictions) View() string {
	s := c.d.Styles
	head := c.head("Contradictions", "pair", "pairs", " waiting · the older memory is never recalled above the newer")
	top, done := c.listStates(head, "contradictions", "No contradictions waiting. When a new memory replaces an older one on the same subject, the pair shows up here.", "")
	if done {
		return top
	}
	var b strings.Builder
	b.WriteString(top)
	half := max((c.width-8)/2, 10)
	b.WriteString(c.rows(func(it CItem, sel string, selected bool) string {
		line := fmt.Sprintf("%s %-*s → %s", sel, half, Cut(Line(it.Old.Text), half), Cut(Line(it.New.Text), half))
		if selected {
			line = s.Selected.Render(Fit(line, c.width))
		}
		return line
	}))
	it, _ := c.selected()
	lbl := func(k string) string { return s.Label.Render(fmt.Sprintf("%-11s", k)) }
	now := c.d.Now
	atom := func(name string, a memcore.Atom, style func(...string) string) []string {
		meta := fmt.Sprintf("%s · %s · %s old", a.Type, a.SourceClass, Age(now().Sub(a.CreatedAt).Hours()/24))
		var rows []string
		for i, l := range strings.Split(Wrap(Line(a.Text), max(c.width-11, 10)), "\n") {
			if i == 0 {
				rows = append(rows, lbl(name)+style(l))
			} else {
				rows = append(rows, strings.Repeat(" ", 11)+style(l))
			}
		}
		return append(rows, strings.Repeat(" ", 11)+s.Muted.Render(meta))
	}
	rows := atom("older", it.Old, s.Warn.Render)
	rows = append(rows, atom("newer", it.New, s.OK.Render)...)
	found := "the offline rule"
	if it.C.Method == "llm" {
		found = "the memory LLM"
	}
	if it.C.Subject != "" {
		found += " (subject: " + Line(it.C.Subject) + ")"
	}
	rows = append(rows, lbl("found by")+found,
		lbl("decide")+s.Accent.Render("n")+" keep new  "+s.Accent.Render("o")+" keep old  "+s.Accent.Render("b")+" keep both")
	b.WriteString(strings.Join(rows, "\n"))
	return b.String()
}

// ShortHelp lists the main keys.
func (c *Contradictions) ShortHelp() []key.Binding {
	return []key.Binding{c.keys.KeepNew, c.keys.KeepOld, c.keys.KeepBoth}
}

// FullHelp lists every key.
func (c *Contradictions) FullHelp() [][]key.Binding {
	return [][]key.Binding{{c.nav.Up, c.nav.Down}, {c.keys.KeepNew, c.keys.KeepOld, c.keys.KeepBoth}}
}
