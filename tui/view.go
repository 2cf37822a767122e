package tui

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/lipgloss"

	"github.com/odekmem/odekmem/views"
)

var paneNames = [paneCount]string{"Atoms", "Quarantine", "Pending", "User model", "Associations", "Budget", "Recall"}

// View draws header, tabs, the focused pane, the status line and help.
func (m *Model) View() string {
	s := m.opts.Styles
	if m.fatal != nil {
		return errorView(s, m.fatal, m.width, m.height)
	}
	var b strings.Builder
	b.WriteString(m.header())
	b.WriteString("\n")
	b.WriteString(m.tabs())
	b.WriteString("\n")
	w, h := bodySize(m.width, m.height, m.extraHelp())
	b.WriteString(views.FitLines(m.panes[m.focus].View(), w, h))
	b.WriteString("\n")
	b.WriteString(m.statusLine())
	b.WriteString("\n")
	if m.help.ShowAll {
		b.WriteString(m.help.FullHelpView(m.helpKeys().FullHelp()))
	} else {
		b.WriteString(views.Cut(m.help.ShortHelpView(m.helpKeys().ShortHelp()), m.width))
	}
	return b.String()
}

func (m *Model) extraHelp() int {
	if !m.help.ShowAll {
		return 0
	}
	if e := m.fullHelpHeight() - helpRows; e > 0 {
		return e
	}
	return 0
}

func (m *Model) header() string {
	s := m.opts.Styles
	h := s.Header.Render("odekmem")
	if m.opts.Title != "" {
		h += " " + s.HeaderTag.Render("["+views.Line(m.opts.Title)+"]")
	}
	if m.d.Store != nil {
		h += " " + s.Muted.Render(views.Line(m.d.Store.Dir()))
	}
	return views.Cut(h, m.width)
}

var shortNames = [paneCount]string{"Atoms", "Quar", "Pend", "Model", "Assoc", "Budget", "Recall"}

// tabs draws the tab bar: full titles when they fit, then short names,
// then digits with only the focused tab titled.
func (m *Model) tabs() string {
	s := m.opts.Styles
	titles := make([]string, len(m.panes))
	for i, p := range m.panes {
		titles[i] = paneNames[i]
		if t, ok := p.(views.Titled); ok {
			titles[i] = t.Title()
		}
	}
	build := func(label func(i int) string) string {
		parts := make([]string, len(m.panes))
		for i := range m.panes {
			if i == m.focus {
				parts[i] = s.TabActive.Render("[" + fmt.Sprintf("%d %s", i+1, titles[i]) + "]")
			} else {
				parts[i] = s.Tab.Render(" " + label(i) + " ")
			}
		}
		return strings.Join(parts, "")
	}
	line := build(func(i int) string { return fmt.Sprintf("%d %s", i+1, titles[i]) })
	if lipgloss.Width(line) > m.width {
		line = build(func(i int) string {
			t := titles[i]
			if strings.HasPrefix(t, paneNames[i]) {
				t = shortNames[i] + strings.TrimPrefix(t, paneNames[i])
			}
			return fmt.Sprintf("%d %s", i+1, t)
		})
	}
	if lipgloss.Width(line) > m.width {
		line = build(func(i int) string { return fmt.Sprintf("%d", i+1) })
	}
	return views.Cut(line, m.width)
}

func (m *Model) statusLine() string {
	s := m.opts.Styles
	if m.mode == modePrompt {
		return views.Cut(s.Prompt.Render(views.Line(m.prompt.Question)+" [y/N]"), m.width)
	}
	var line string
	if m.busy > 0 {
		line = m.spin.View() + " "
	}
	if m.status != "" {
		if m.isErr {
			line += s.StatusErr.Render("✗ " + m.status)
		} else {
			line += s.Status.Render(m.status)
		}
	}
	return views.Cut(line, m.width)
}

// keyMap joins the focused pane's keys and the global ones for help.
type keyMap struct {
	short []key.Binding
	full  [][]key.Binding
}

func (k keyMap) ShortHelp() []key.Binding  { return k.short }
func (k keyMap) FullHelp() [][]key.Binding { return k.full }

func (m *Model) helpKeys() keyMap {
	p := m.panes[m.focus]
	g := m.keys
	if m.mode == modePrompt {
		y := key.NewBinding(key.WithKeys("y"), key.WithHelp("y", "yes"))
		n := key.NewBinding(key.WithKeys("n"), key.WithHelp("any other key", "no"))
		return keyMap{short: []key.Binding{y, n}, full: [][]key.Binding{{y, n}}}
	}
	if m.inputActive() {
		return keyMap{short: p.ShortHelp(), full: p.FullHelp()}
	}
	short := append(append([]key.Binding{}, p.ShortHelp()...), g.Undo, g.NextPane, g.Help, g.Quit)
	full := append(append([][]key.Binding{}, p.FullHelp()...),
		[]key.Binding{g.NextPane, g.PrevPane, g.Undo, g.Help, g.Quit})
	digits := key.NewBinding(key.WithKeys("1", "2", "3", "4", "5", "6", "7"), key.WithHelp("1-7", "go to pane"))
	full[len(full)-1] = append(full[len(full)-1], digits)
	return keyMap{short: short, full: full}
}

// HelpKeys lists the enabled keys the help shows for the focused pane, in
// order (for tests and SCREENS.md).
func (m *Model) HelpKeys() []string {
	var out []string
	for _, col := range m.helpKeys().FullHelp() {
		for _, b := range col {
			if b.Enabled() {
				out = append(out, b.Help().Key)
			}
		}
	}
	return out
}
