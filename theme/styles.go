package theme

import "github.com/charmbracelet/lipgloss"

// Styles are every style the TUI uses, built once from a Theme.
type Styles struct {
	App        lipgloss.Style
	Header     lipgloss.Style
	HeaderTag  lipgloss.Style
	Tab        lipgloss.Style
	TabActive  lipgloss.Style
	Title      lipgloss.Style
	Muted      lipgloss.Style
	Accent     lipgloss.Style
	Selected   lipgloss.Style
	Marked     lipgloss.Style
	Pin        lipgloss.Style
	OK         lipgloss.Style
	Warn       lipgloss.Style
	Danger     lipgloss.Style
	Info       lipgloss.Style
	Status     lipgloss.Style
	StatusErr  lipgloss.Style
	Prompt     lipgloss.Style
	Input      lipgloss.Style
	Box        lipgloss.Style
	BoxFocus   lipgloss.Style
	BarFull    lipgloss.Style
	BarEmpty   lipgloss.Style
	Invisible  lipgloss.Style
	Redaction  lipgloss.Style
	Label      lipgloss.Style
	ErrorTitle lipgloss.Style
	ErrorBox   lipgloss.Style
	Edge       map[string]lipgloss.Style
}

// NewStyles builds the styles for a theme.
func NewStyles(t Theme) *Styles {
	s := &Styles{}
	s.App = lipgloss.NewStyle().Foreground(t.Text)
	s.Header = lipgloss.NewStyle().Bold(true).Foreground(t.Accent)
	s.HeaderTag = lipgloss.NewStyle().Foreground(t.Warn).Bold(true)
	s.Tab = lipgloss.NewStyle().Foreground(t.Muted)
	s.TabActive = lipgloss.NewStyle().Bold(true).Foreground(t.SelectFg).Background(t.Selection)
	s.Title = lipgloss.NewStyle().Bold(true).Foreground(t.Text)
	s.Muted = lipgloss.NewStyle().Foreground(t.Muted)
	s.Accent = lipgloss.NewStyle().Foreground(t.Accent)
	s.Selected = lipgloss.NewStyle().Foreground(t.SelectFg).Background(t.Selection).Bold(true)
	s.Marked = lipgloss.NewStyle().Foreground(t.Warn).Bold(true)
	s.Pin = lipgloss.NewStyle().Foreground(t.Warn).Bold(true)
	s.OK = lipgloss.NewStyle().Foreground(t.OK)
	s.Warn = lipgloss.NewStyle().Foreground(t.Warn)
	s.Danger = lipgloss.NewStyle().Foreground(t.Danger).Bold(true)
	s.Info = lipgloss.NewStyle().Foreground(t.Info)
	s.Status = lipgloss.NewStyle().Foreground(t.OK)
	s.StatusErr = lipgloss.NewStyle().Foreground(t.Danger).Bold(true)
	s.Prompt = lipgloss.NewStyle().Foreground(t.Warn).Bold(true)
	s.Input = lipgloss.NewStyle().Foreground(t.Text)
	s.Box = lipgloss.NewStyle().Border(lipgloss.RoundedBorder()).BorderForeground(t.Border).Padding(0, 1)
	s.BoxFocus = s.Box.BorderForeground(t.Accent)
	s.BarFull = lipgloss.NewStyle().Foreground(t.Info)
	s.BarEmpty = lipgloss.NewStyle().Foreground(t.Subtle)
	s.Invisible = lipgloss.NewStyle().Foreground(t.Danger).Bold(true)
	s.Redaction = lipgloss.NewStyle().Foreground(t.Warn).Bold(true)
	s.Label = lipgloss.NewStyle().Foreground(t.Muted)
	s.ErrorTitle = lipgloss.NewStyle().Bold(true).Foreground(t.Danger)
	s.ErrorBox = lipgloss.NewStyle().Border(lipgloss.RoundedBorder()).BorderForeground(t.Danger).Padding(1, 2)
	s.Edge = map[string]lipgloss.Style{
		"temporal": lipgloss.NewStyle().Foreground(t.Temporal),
		"task":     lipgloss.NewStyle().Foreground(t.Task),
		"semantic": lipgloss.NewStyle().Foreground(t.Semantic),
	}
	return s
}

// EdgeStyle returns the style for an association kind.
func (s *Styles) EdgeStyle(kind string) lipgloss.Style {
	if st, ok := s.Edge[kind]; ok {
		return st
	}
	return s.Muted
}
