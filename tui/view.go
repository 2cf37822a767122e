package tui

import (
	"fmt"
	"sort"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"

	"github.com/odekmem/odekmem/views"
)

var paneNames = [paneCount]string{"Atoms", "Quarantine", "Pending", "User model", "Associations", "Budget", "Recall", "Contradictions", "Lane"}

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
	if banner := m.banner(); banner != "" {
		b.WriteString(banner)
		b.WriteString("\n")
	}
	w, h := bodySize(m.width, m.height, m.extraHelp()+m.bannerRows()+m.promptRows()-1)
	b.WriteString(views.FitLines(m.panes[m.focus].View(), w, h))
	b.WriteString("\n")
	b.WriteString(m.statusLine())
	b.WriteString("\n")
	if m.help.ShowAll {
		b.WriteString(m.help.FullHelpView(m.helpKeys().FullHelp()))
	} else {
		b.WriteString(m.shortHelp())
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

var shortNames = [paneCount]string{"Atoms", "Quar", "Pend", "Model", "Assoc", "Budget", "Recall", "Contra", "Lane"}

// letters abbreviate the panes when even the short names do not fit:
// Q14 is the quarantine with 14 entries.
var letters = [paneCount]string{"A", "Q", "P", "M", "G", "B", "R", "C", "L"}

// tabLayout is the tab bar's text and each tab's cell range. Tiers, tried
// in order until one fits: full titles; short names with counts
// ("2 Quar 14"); letters with counts ("2 Q14"); letters with counts
// without digits; digits only. The focused tab always keeps its full
// title.
func (m *Model) tabLayout() (string, [][2]int) {
	s := m.opts.Styles
	titles := make([]string, len(m.panes))
	counts := make([]string, len(m.panes))
	for i, p := range m.panes {
		titles[i] = paneNames[i]
		if t, ok := p.(views.Titled); ok {
			titles[i] = t.Title()
		}
		counts[i] = strings.TrimSpace(strings.TrimPrefix(titles[i], paneNames[i]))
	}
	// A pane added without a short name or letter falls back to its name
	// and its name's first letter.
	short := func(i int) string {
		if shortNames[i] != "" {
			return shortNames[i]
		}
		return paneNames[i]
	}
	letter := func(i int) string {
		if letters[i] != "" {
			return letters[i]
		}
		return string([]rune(paneNames[i] + "?")[0])
	}
	pad := " "
	focusShort, focusBare := false, false
	hideIdle := false // leave out the lane's tab while nothing waits there
	build := func(label func(i int) string) (string, [][2]int) {
		var b strings.Builder
		spans := make([][2]int, len(m.panes))
		x := 0
		for i := range m.panes {
			if hideIdle && i == PaneLane && i != m.focus && counts[i] == "0" {
				spans[i] = [2]int{x, x}
				continue
			}
			var part string
			if i == m.focus {
				title := titles[i]
				switch {
				case focusBare: // the pane's own header has its count
					title = short(i)
				case focusShort:
					title = strings.TrimSpace(short(i) + " " + counts[i])
				}
				part = s.TabActive.Render("[" + fmt.Sprintf("%d %s", i+1, title) + "]")
				if pad == "" && i > 0 {
					part = " " + part
				}
			} else {
				part = s.Tab.Render(pad + label(i) + pad)
			}
			w := lipgloss.Width(part)
			spans[i] = [2]int{x, x + w}
			x += w
			b.WriteString(part)
		}
		return b.String(), spans
	}
	// attention keeps only the counts that ask for the person: what waits
	// in quarantine, pending review and contradictions.
	attention := func(i int) string {
		switch i {
		case PaneQuarantine, PanePending, PaneContradictions, PaneLane:
			if counts[i] != "0" {
				return counts[i]
			}
		}
		return ""
	}
	tiers := []struct {
		pad        string
		focusShort bool
		focusBare  bool
		hideIdle   bool
		label      func(i int) string
	}{
		{" ", false, false, true, func(i int) string { return fmt.Sprintf("%d %s", i+1, titles[i]) }},
		{" ", false, false, true, func(i int) string { return strings.TrimSpace(fmt.Sprintf("%d %s %s", i+1, short(i), counts[i])) }},
		// 80 columns: every name readable, and the counts that wait for
		// the person: "[1 Atoms 205] 2 Quar(14) 3 Pend(5) 4 Model …".
		// In every tier the lane's tab shows only while something waits
		// in it or it has the focus (9 always goes there).
		{"", true, false, true, func(i int) string {
			if a := attention(i); a != "" {
				return fmt.Sprintf(" %d %s(%s)", i+1, short(i), a)
			}
			return fmt.Sprintf(" %d %s", i+1, short(i))
		}},
		// 80 columns with the lane and contradictions waiting: the names
		// stay readable, each against its key ("2Quar(14) 3Pend(5) …"),
		// and the focused tab drops its count (its header shows it).
		{"", false, true, true, func(i int) string {
			if a := attention(i); a != "" {
				return fmt.Sprintf(" %d%s(%s)", i+1, short(i), a)
			}
			return fmt.Sprintf(" %d%s", i+1, short(i))
		}},
		{" ", false, false, true, func(i int) string { return fmt.Sprintf("%d %s%s", i+1, letter(i), counts[i]) }},
		{" ", false, false, true, func(i int) string { return letter(i) + counts[i] }},
	}
	for _, tier := range tiers {
		pad, focusShort, focusBare, hideIdle = tier.pad, tier.focusShort, tier.focusBare, tier.hideIdle
		if line, spans := build(tier.label); lipgloss.Width(line) <= m.width {
			return line, spans
		}
	}
	pad, focusShort, focusBare, hideIdle = " ", false, false, false
	line, spans := build(func(i int) string { return fmt.Sprintf("%d", i+1) })
	return views.Cut(line, m.width), spans
}

// tabs draws the tab bar.
func (m *Model) tabs() string {
	line, _ := m.tabLayout()
	return line
}

// bannerRows is how many lines the damage banner takes (0 when none).
func (m *Model) bannerRows() int {
	n := len(m.damage) - m.dismissed
	if n <= 0 {
		return 0
	}
	if n > maxBannerProblems {
		return maxBannerProblems + 2
	}
	return n + 1
}

// banner names what the store found damaged and what it did (moved the
// damaged file aside, and where), until the person dismisses it with D.
func (m *Model) banner() string {
	ps := m.damage[m.dismissed:]
	if len(ps) == 0 {
		return ""
	}
	s := m.opts.Styles
	dir := ""
	if m.d.Store != nil {
		dir = m.d.Store.Dir()
	}
	lines := []string{views.Cut(s.Danger.Render("⚠ The store reported "+views.Count(len(ps), "problem", "problems")+" when it was read")+
		s.Muted.Render(" · D dismisses · damaged files are moved aside, never deleted, under "+views.Line(dir)), m.width)}
	for i, p := range ps {
		if i == maxBannerProblems {
			lines = append(lines, views.Cut(s.Muted.Render(fmt.Sprintf("  … %d more in 6 Budget", len(ps)-i)), m.width))
			break
		}
		// What was done (and where a damaged file went) first: the
		// problem's own text may be long.
		lines = append(lines, views.Cut("  "+s.Warn.Render(views.Line(p.File))+": "+views.Line(p.Action)+s.Muted.Render(" — "+views.Line(p.Problem)), m.width))
	}
	return strings.Join(lines, "\n")
}

// maxPromptRows bounds how many lines a y/N question takes.
const maxPromptRows = 6

// promptLines is the y/N question wrapped to the width, " [y/N]" on its
// last line.
func (m *Model) promptLines() []string {
	q := views.Line(m.prompt.Question) + " [y/N]"
	lines := strings.Split(views.Wrap(q, max(m.width, 10)), "\n")
	if len(lines) > maxPromptRows {
		lines = lines[:maxPromptRows]
		lines[maxPromptRows-1] = views.Cut(strings.TrimSuffix(lines[maxPromptRows-1], " [y/N]")+" and more", m.width-len(" [y/N]")) + " [y/N]"
	}
	if last := lines[len(lines)-1]; !strings.HasSuffix(last, "[y/N]") {
		lines[len(lines)-1] = views.Cut(last, m.width-len(" [y/N]")) + " [y/N]"
	}
	return lines
}

// maxStatusRows bounds how many lines a status message takes.
const maxStatusRows = 3

// promptRows is how many lines the status line takes: a question's
// lines, or a long status message wrapped (an error that names what a
// field allows, what a compaction did), 1 otherwise.
func (m *Model) promptRows() int {
	if m.mode == modePrompt {
		return len(m.promptLines())
	}
	return len(m.statusLines())
}

// statusLines is the spinner and the status message, wrapped to the
// width over up to maxStatusRows lines.
func (m *Model) statusLines() []string {
	var line string
	if m.busy > 0 {
		line = m.spin.View() + " "
	}
	if m.status == "" {
		return []string{line}
	}
	text := m.status
	if m.isErr {
		text = "✗ " + text
	}
	lines := strings.Split(views.Wrap(line+views.Line(text), max(m.width, 10)), "\n")
	if len(lines) > maxStatusRows {
		lines = lines[:maxStatusRows]
		lines[maxStatusRows-1] = views.Cut(lines[maxStatusRows-1]+" …", m.width)
	}
	return lines
}

func (m *Model) statusLine() string {
	s := m.opts.Styles
	if m.mode == modePrompt {
		// A long question (a batch promote and its findings) wraps over
		// up to maxPromptRows lines; it is cut after that, never "[y/N]":
		// the person must see that anything but y is No.
		lines := m.promptLines()
		for i := range lines {
			lines[i] = s.Prompt.Render(lines[i])
		}
		return strings.Join(lines, "\n")
	}
	lines := m.statusLines()
	style := s.Status
	if m.isErr {
		style = s.StatusErr
	}
	for i := range lines {
		lines[i] = views.Cut(style.Render(lines[i]), m.width)
	}
	return strings.Join(lines, "\n")
}

// shortHelp is the one-line help bar. "? help" and "q quit" always show;
// when the keys do not fit, the least important ones drop first (the
// pane's own keys are listed most important first, then esc, undo and
// tab), and what is left keeps its order.
func (m *Model) shortHelp() string {
	km := m.helpKeys()
	keys := km.short
	var enabled []key.Binding
	for _, k := range keys {
		if k.Enabled() {
			enabled = append(enabled, k)
		}
	}
	if m.mode == modePrompt || m.inputActive() {
		return views.Cut(m.help.ShortHelpView(enabled), m.width)
	}
	g := m.keys
	must := []key.Binding{g.Help, g.Quit}
	rank := func(b key.Binding) int { // lower keeps longer
		h := b.Help().Key
		switch h {
		case g.Help.Help().Key, g.Quit.Help().Key:
			return -2
		case "esc":
			return -1
		}
		for i, k := range enabled {
			if k.Help().Key == h && k.Help().Desc == b.Help().Desc {
				return i
			}
		}
		return len(enabled)
	}
	order := make([]key.Binding, len(enabled))
	copy(order, enabled)
	sort.SliceStable(order, func(i, j int) bool { return rank(order[i]) < rank(order[j]) })
	keep := map[int]bool{}
	idx := func(b key.Binding) int {
		for i, k := range enabled {
			if k.Help() == b.Help() {
				return i
			}
		}
		return -1
	}
	for _, b := range must {
		keep[idx(b)] = true
	}
	h := m.help
	h.Width = 0 // measure here; help's own cut would drop "? help" first
	render := func() string {
		var out []key.Binding
		for i, k := range enabled {
			if keep[i] {
				out = append(out, k)
			}
		}
		return h.ShortHelpView(out)
	}
	for _, b := range order {
		i := idx(b)
		if keep[i] {
			continue
		}
		keep[i] = true
		if lipgloss.Width(render()) > m.width {
			delete(keep, i)
		}
	}
	return views.Cut(render(), m.width)
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
	short := append(append([]key.Binding{}, p.ShortHelp()...), g.CopyID, g.Undo, g.Dismiss, g.NextPane, g.Help, g.Quit)
	// The full help lists u even before there is anything to undo: it is
	// where a person learns that every act can be taken back.
	undo := g.Undo
	if !undo.Enabled() {
		undo = key.NewBinding(key.WithKeys("u"), key.WithHelp("u", "undo your last act (nothing yet)"))
	}
	full := append(append([][]key.Binding{}, p.FullHelp()...),
		[]key.Binding{g.NextPane, g.PrevPane, undo, g.CopyID, g.Dismiss, g.Help, g.Quit})
	digits := key.NewBinding(key.WithKeys("1", "2", "3", "4", "5", "6", "7", "8", "9"), key.WithHelp("1-9", "go to pane"))
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

func (m *Model) resize() {
	extra := 0
	if m.help.ShowAll {
		extra = m.fullHelpHeight() - helpRows
		if extra < 0 {
			extra = 0
		}
	}
	w, h := bodySize(m.width, m.height, extra+m.bannerRows())
	m.help.Width = m.width
	for _, p := range m.panes {
		p.SetSize(w, h)
	}
}

func (m *Model) fullHelpHeight() int {
	return strings.Count(m.help.FullHelpView(m.helpKeys().FullHelp()), "\n") + 1
}

// mouse handles a click on the tab bar (focus that pane) and passes other
// mouse messages to the focused pane with Y counted from the pane's top.
func (m *Model) mouse(msg tea.MouseMsg) tea.Cmd {
	if m.fatal != nil || m.mode == modePrompt {
		return nil
	}
	if msg.Y == headerRows && msg.Action == tea.MouseActionPress && msg.Button == tea.MouseButtonLeft {
		_, spans := m.tabLayout()
		for i, sp := range spans {
			if msg.X >= sp[0] && msg.X < sp[1] {
				return m.setFocus(i)
			}
		}
		return nil
	}
	msg.Y -= headerRows + tabRows + m.bannerRows()
	return m.panes[m.focus].Update(msg)
}
