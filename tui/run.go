package tui

import (
	"context"
	"errors"
	"os"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/muesli/termenv"

	"github.com/odekmem/odekmem/internal/config"
	"github.com/odekmem/odekmem/memcore"
	"github.com/odekmem/odekmem/theme"
	"github.com/odekmem/odekmem/views"
)

// terminal is what Run decides about the terminal before the program
// starts: the colour profile (NO_COLOR gives Ascii), the background and so
// the glamour style.
type terminal struct {
	Profile termenv.Profile
	Dark    bool
}

// detectTerminal reads the colour profile from the environment (NO_COLOR
// gives Ascii) and the background from lipgloss, which bubbletea's package
// init already asked the terminal once, before any input is read.
func detectTerminal() terminal {
	out := termenv.NewOutput(os.Stdout)
	return terminal{Profile: out.EnvColorProfile(), Dark: lipgloss.HasDarkBackground()}
}

// Apply configures lipgloss and returns the glamour style to use.
func (t terminal) Apply() string {
	lipgloss.SetColorProfile(t.Profile)
	lipgloss.SetHasDarkBackground(t.Dark)
	switch {
	case t.Profile == termenv.Ascii:
		return "notty"
	case t.Dark:
		return "dark"
	default:
		return "light"
	}
}

// Run opens the TUI on an open store and blocks until the person quits.
// title is shown in the header ("demo" for the demo store).
func Run(ctx context.Context, st *memcore.Store, settings config.Settings, title string) error {
	if st == nil {
		return RunError(ctx, errors.New("no store"))
	}
	opts := DefaultOptions(title)
	opts.Glamour = detectTerminal().Apply()
	opts.Styles = theme.NewStyles(theme.Default())
	p := tea.NewProgram(New(ctx, st, opts), tea.WithAltScreen(), tea.WithMouseCellMotion(), tea.WithContext(ctx))
	_, err := p.Run()
	if errors.Is(err, tea.ErrProgramKilled) && ctx.Err() != nil {
		return ctx.Err()
	}
	return err
}

// RunError shows a full-screen error (for a store that cannot be opened)
// until the person presses q, esc or ctrl-c.
func RunError(ctx context.Context, err error) error {
	detectTerminal().Apply()
	p := tea.NewProgram(newErrorModel(err, theme.NewStyles(theme.Default())), tea.WithAltScreen(), tea.WithContext(ctx))
	_, runErr := p.Run()
	if runErr != nil {
		return runErr
	}
	return err
}

// errorModel shows an error that leaves nothing usable and quits on q.
type errorModel struct {
	err           error
	styles        *theme.Styles
	width, height int
}

// newErrorModel returns the full-screen error model.
func newErrorModel(err error, s *theme.Styles) *errorModel {
	return &errorModel{err: err, styles: s, width: 80, height: 24}
}

// Init does nothing.
func (m *errorModel) Init() tea.Cmd { return nil }

// Update quits on q, esc or ctrl-c and tracks the size.
func (m *errorModel) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.width, m.height = msg.Width, msg.Height
	case tea.KeyMsg:
		switch msg.String() {
		case "q", "esc", "ctrl+c", "enter":
			return m, tea.Quit
		}
	}
	return m, nil
}

// View draws the error in a box.
func (m *errorModel) View() string { return errorView(m.styles, m.err, m.width, m.height) }

func errorView(s *theme.Styles, err error, w, h int) string {
	inner := w - 8
	if inner < 20 {
		inner = 20
	}
	body := s.ErrorTitle.Render("odekmem cannot open the store") + "\n\n" +
		views.Wrap(views.Safe(err.Error()), inner) + "\n\n" +
		s.Muted.Render("Check --home / ODEK_HOME and the store directory's permissions. Press q to quit.")
	box := s.ErrorBox.Width(inner).Render(body)
	return lipgloss.Place(w, h, lipgloss.Center, lipgloss.Center, box)
}
