// Package theme holds odekmem's semantic colours and the styles built from
// them. Views never invent colours inline: they take a *Styles built once by
// NewStyles.
package theme

import "github.com/charmbracelet/lipgloss"

// Theme is a set of semantic, background-adaptive colours. Each colour has a
// light-background and a dark-background variant; lipgloss picks one from the
// background it detected before the program started.
type Theme struct {
	Text      lipgloss.AdaptiveColor
	Muted     lipgloss.AdaptiveColor
	Subtle    lipgloss.AdaptiveColor
	Accent    lipgloss.AdaptiveColor
	Selection lipgloss.AdaptiveColor
	SelectFg  lipgloss.AdaptiveColor
	Border    lipgloss.AdaptiveColor
	OK        lipgloss.AdaptiveColor
	Warn      lipgloss.AdaptiveColor
	Danger    lipgloss.AdaptiveColor
	Info      lipgloss.AdaptiveColor
	// Temporal, Task and Semantic colour association edges.
	Temporal lipgloss.AdaptiveColor
	Task     lipgloss.AdaptiveColor
	Semantic lipgloss.AdaptiveColor
}

// Default is the built-in theme, readable on light and dark terminals.
func Default() Theme {
	return Theme{
		Text:      lipgloss.AdaptiveColor{Light: "#1f2328", Dark: "#e6edf3"},
		Muted:     lipgloss.AdaptiveColor{Light: "#6e7781", Dark: "#8b949e"},
		Subtle:    lipgloss.AdaptiveColor{Light: "#d0d7de", Dark: "#30363d"},
		Accent:    lipgloss.AdaptiveColor{Light: "#8250df", Dark: "#bc8cff"},
		Selection: lipgloss.AdaptiveColor{Light: "#ddf4ff", Dark: "#1f3a5f"},
		SelectFg:  lipgloss.AdaptiveColor{Light: "#0a3069", Dark: "#ffffff"},
		Border:    lipgloss.AdaptiveColor{Light: "#8c959f", Dark: "#484f58"},
		OK:        lipgloss.AdaptiveColor{Light: "#1a7f37", Dark: "#3fb950"},
		Warn:      lipgloss.AdaptiveColor{Light: "#9a6700", Dark: "#d29922"},
		Danger:    lipgloss.AdaptiveColor{Light: "#cf222e", Dark: "#f85149"},
		Info:      lipgloss.AdaptiveColor{Light: "#0969da", Dark: "#58a6ff"},
		Temporal:  lipgloss.AdaptiveColor{Light: "#0969da", Dark: "#58a6ff"},
		Task:      lipgloss.AdaptiveColor{Light: "#1a7f37", Dark: "#3fb950"},
		Semantic:  lipgloss.AdaptiveColor{Light: "#8250df", Dark: "#bc8cff"},
	}
}
