// Package tui is odekmem's review TUI: the root Bubble Tea model that owns
// focus, input mode, the y/N prompt, undo, the spinner, the status line and
// the live-refresh tick, and delegates everything else to the panes in
// package views.
package tui

import (
	"context"
	"errors"
	"io"
	"time"

	"github.com/charmbracelet/bubbles/help"
	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/spinner"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/odekmem/odekmem/keymap"
	"github.com/odekmem/odekmem/memcore"
	"github.com/odekmem/odekmem/theme"
	"github.com/odekmem/odekmem/views"
)

// Pane indexes, in tab order.
const (
	PaneAtoms = iota
	PaneQuarantine
	PanePending
	PaneUserModel
	PaneAssoc
	PaneBudget
	PaneRecall
	PaneContradictions
	PaneLane
	paneCount
)

// Options configure the root model.
type Options struct {
	// Title is shown in the header ("demo" for the demo store).
	Title string
	// Glamour is the glamour style: "dark", "light" or "notty".
	Glamour string
	// RefreshEvery is the live-refresh period; 0 disables the tick.
	RefreshEvery time.Duration
	// StatusTTL is how long a status line stays; 0 keeps it.
	StatusTTL time.Duration
	// Animate runs the spinner's animation while work is in flight.
	Animate bool
	// Styles default to theme.NewStyles(theme.Default()).
	Styles *theme.Styles
	// Clipboard receives the OSC 52 sequence that copies an id (Y); nil
	// means the terminal (stdout).
	Clipboard io.Writer
}

// DefaultOptions are the options Run uses.
func DefaultOptions(title string) Options {
	return Options{Title: title, Glamour: "dark", RefreshEvery: 700 * time.Millisecond, StatusTTL: 3 * time.Second, Animate: true}
}

type mode int

const (
	modeNormal mode = iota
	modePrompt
)

// Model is the root model.
type Model struct {
	d       views.Deps
	opts    Options
	keys    keymap.Global
	panes   []views.Pane
	focus   int
	mode    mode
	prompt  views.ConfirmMsg
	width   int
	height  int
	help    help.Model
	spin    spinner.Model
	busy    int
	status  string
	isErr   bool
	seq     int
	undo    []views.Undo
	fatal   error
	ticking bool
	// damage is what the store reported moving aside or repairing; the
	// banner shows it until dismissed.
	damage    []memcore.Problem
	dismissed int // problems the person has dismissed (a prefix of damage)
}

type refreshTickMsg struct{}

type refreshedMsg struct {
	changed bool
	err     error
}

type clearStatusMsg struct{ seq int }

type undoneMsg struct {
	status   string
	err      error
	undo     views.Undo
	selectID string // the atom the undo brought back
}

// New builds the root model over an open store.
func New(ctx context.Context, st *memcore.Store, opts Options) *Model {
	if opts.Styles == nil {
		opts.Styles = theme.NewStyles(theme.Default())
	}
	d := views.NewDeps(ctx, st, opts.Styles, opts.Glamour)
	m := &Model{d: d, opts: opts, keys: d.Keys.Global, width: 80, height: 24}
	m.panes = []views.Pane{
		views.NewAtoms(d),
		views.NewQuarantine(d),
		views.NewPending(d),
		views.NewUserModel(d),
		views.NewAssoc(d),
		views.NewBudget(d),
		views.NewRecall(d),
		views.NewContradictions(d),
		views.NewLane(d),
	}
	m.help = help.New()
	m.help.Styles.ShortKey = opts.Styles.Accent
	m.help.Styles.FullKey = opts.Styles.Accent
	m.help.Styles.ShortDesc = opts.Styles.Muted
	m.help.Styles.FullDesc = opts.Styles.Muted
	m.spin = spinner.New(spinner.WithSpinner(spinner.Dot), spinner.WithStyle(opts.Styles.Accent))
	if st != nil {
		m.damage = st.Problems()
	}
	m.refreshKeys()
	m.resize()
	return m
}

// Pane returns pane i (for tests).
func (m *Model) Pane(i int) views.Pane { return m.panes[i] }

// Focus is the focused pane's index.
func (m *Model) Focus() int { return m.focus }

// Init loads every pane and starts the live-refresh tick.
func (m *Model) Init() tea.Cmd {
	cmds := make([]tea.Cmd, 0, len(m.panes)+1)
	for _, p := range m.panes {
		cmds = append(cmds, p.Init())
	}
	cmds = append(cmds, m.tick())
	return tea.Batch(cmds...)
}

func (m *Model) tick() tea.Cmd {
	if m.opts.RefreshEvery <= 0 || m.d.Store == nil {
		return nil
	}
	return tea.Tick(m.opts.RefreshEvery, func(time.Time) tea.Msg { return refreshTickMsg{} })
}

// refreshCmd asks the store whether another process changed it.
func refreshCmd(st *memcore.Store) tea.Cmd {
	return func() tea.Msg {
		changed, err := st.Refresh(context.Background())
		return refreshedMsg{changed: changed, err: err}
	}
}

// Update routes a message: keys to the focused pane (or the prompt),
// results to every pane (each takes its own), root concerns here.
func (m *Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.width, m.height = msg.Width, msg.Height
		m.resize()
		return m, nil
	case tea.KeyMsg:
		return m, m.afterInput(m.keyMsg(msg))
	case tea.MouseMsg:
		return m, m.afterInput(m.mouse(msg))
	case refreshTickMsg:
		return m, refreshCmd(m.d.Store)
	case refreshedMsg:
		cmds := []tea.Cmd{m.tick()}
		if msg.err != nil {
			if errors.Is(msg.err, memcore.ErrClosed) {
				m.fatal = msg.err
				return m, nil
			}
			cmds = append(cmds, m.setStatus("refresh: "+msg.err.Error(), true))
		} else if msg.changed {
			cmds = append(cmds, m.broadcast(views.ReloadMsg{}))
		}
		m.noteDamage()
		return m, tea.Batch(cmds...)
	case views.StatusMsg:
		return m, m.setStatus(msg.Text, msg.Err)
	case clearStatusMsg:
		if msg.seq == m.seq {
			m.status = ""
		}
		return m, nil
	case views.ConfirmMsg:
		m.mode, m.prompt = modePrompt, msg
		return m, nil
	case views.MutatedMsg:
		return m, m.mutated(msg)
	case copiedMsg:
		if msg.err != nil {
			return m, m.setStatus("copy id: "+msg.err.Error(), true)
		}
		return m, m.setStatus("copied id "+msg.id+" to the clipboard (OSC 52; the terminal must allow it)", false)
	case undoneMsg:
		if msg.err != nil {
			m.undo = append(m.undo, msg.undo)
			m.refreshKeys()
			return m, tea.Batch(m.setStatus("undo: "+msg.err.Error(), true), m.broadcast(views.ReloadMsg{}))
		}
		return m, tea.Batch(m.setStatus(msg.status, false), m.broadcast(views.ReloadMsg{Select: msg.selectID}))
	case views.WorkStartedMsg:
		m.busy++
		if m.busy == 1 && m.opts.Animate {
			return m, m.spin.Tick
		}
		return m, nil
	case views.WorkDoneMsg:
		m.busy--
		return m.Update(msg.Msg)
	case spinner.TickMsg:
		if m.busy <= 0 || !m.opts.Animate {
			return m, nil
		}
		var cmd tea.Cmd
		m.spin, cmd = m.spin.Update(msg)
		return m, cmd
	case views.ShowAssociationsMsg:
		m.setFocus(PaneAssoc)
		return m, m.panes[PaneAssoc].Update(views.CentreMsg{ID: msg.ID})
	case nil:
		return m, nil
	}
	if views.SyncRequested(msg) {
		return m, m.follow()
	}
	return m, m.broadcast(msg)
}

func (m *Model) broadcast(msg tea.Msg) tea.Cmd {
	cmds := make([]tea.Cmd, 0, len(m.panes))
	for _, p := range m.panes {
		cmds = append(cmds, p.Update(msg))
	}
	m.refreshKeys()
	return tea.Batch(cmds...)
}

func (m *Model) inputActive() bool {
	if in, ok := m.panes[m.focus].(views.Inputter); ok {
		return in.InputActive()
	}
	return false
}

// keyMsg takes a key message as Bubble Tea v1 delivers it. Keys that
// arrive in one read (a fast typist, ssh, tmux send-keys, an unbracketed
// paste) come as one message with several runes: outside a text input
// each rune is its own key, inside one they are inserted together. A
// bracketed paste goes into an open input whole and is otherwise ignored,
// so pasted text never acts as commands. Neither a burst nor a paste
// ever answers a y/N prompt.
func (m *Model) keyMsg(msg tea.KeyMsg) tea.Cmd {
	if msg.Type != tea.KeyRunes || (len(msg.Runes) <= 1 && !msg.Paste) || m.fatal != nil {
		return m.updateKey(msg)
	}
	if m.mode == modePrompt {
		m.mode = modeNormal
		return m.setStatus("cancelled (keys that arrive together never answer a prompt)", false)
	}
	if m.inputActive() {
		return m.updateKey(msg)
	}
	if msg.Paste {
		return m.setStatus("paste ignored: open an input first (/ filter, f search, a add note)", false)
	}
	var cmds []tea.Cmd
	for _, r := range msg.Runes {
		if m.inputActive() {
			// A key of the burst opened an input (/proj): the rest is text.
			cmds = append(cmds, m.updateKey(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{r}}))
			continue
		}
		k := tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{r}}
		if r == ' ' {
			k = tea.KeyMsg{Type: tea.KeySpace, Runes: []rune{' '}}
		}
		cmds = append(cmds, m.updateKey(k))
		if m.mode == modePrompt {
			break // defensive: a prompt opened mid-burst takes no more keys
		}
	}
	return tea.Sequence(cmds...)
}

// afterInput runs after every key and mouse message: the quarantine entry
// on screen counts as seen.
func (m *Model) afterInput(cmd tea.Cmd) tea.Cmd {
	if s, ok := m.panes[m.focus].(interface{ MarkSeen() }); ok && m.mode == modeNormal {
		s.MarkSeen()
	}
	m.refreshKeys()
	return cmd
}

func (m *Model) updateKey(msg tea.KeyMsg) tea.Cmd {
	if m.fatal != nil {
		if key.Matches(msg, m.keys.Quit) || msg.String() == "esc" {
			return tea.Quit
		}
		return nil
	}
	if msg.Type == tea.KeyCtrlC {
		return tea.Quit
	}
	if m.mode == modePrompt {
		m.mode = modeNormal
		if msg.String() == "y" && !msg.Paste {
			return m.prompt.Yes
		}
		return m.setStatus("cancelled", false)
	}
	if m.inputActive() {
		cmd := m.panes[m.focus].Update(msg)
		m.refreshKeys()
		return cmd
	}
	k := m.keys
	switch {
	case m.help.ShowAll && (msg.Type == tea.KeyEsc || key.Matches(msg, k.Help)):
		m.help.ShowAll = false
		m.resize()
		return nil
	case key.Matches(msg, k.Quit):
		return tea.Quit
	case key.Matches(msg, k.NextPane):
		return m.setFocus((m.focus + 1) % len(m.panes))
	case key.Matches(msg, k.PrevPane):
		return m.setFocus((m.focus + len(m.panes) - 1) % len(m.panes))
	case key.Matches(msg, k.Help):
		m.help.ShowAll = true
		m.resize()
		return nil
	case key.Matches(msg, k.Undo):
		return m.undoLast()
	case key.Matches(msg, k.Dismiss):
		m.dismissed = len(m.damage)
		m.resize()
		return m.setStatus("damage banner dismissed; 6 Budget still lists the problems", false)
	case key.Matches(msg, k.CopyID):
		return m.copyID()
	case msg.String() == "/":
		_, filters := m.panes[m.focus].(views.Filterable)
		_, types := m.panes[m.focus].(views.Inputter)
		if !filters && !types {
			return m.setStatus(paneNames[m.focus]+" has no list to filter", false)
		}
	}
	for i, b := range k.Panes {
		if key.Matches(msg, b) {
			return m.setFocus(i)
		}
	}
	cmd := m.panes[m.focus].Update(msg)
	m.refreshKeys()
	return cmd
}

// setFocus moves focus; entering the associations pane follows the atom
// selected in Atoms.
func (m *Model) setFocus(i int) tea.Cmd {
	m.focus = i
	m.refreshKeys()
	if m.help.ShowAll {
		m.resize()
	}
	if i == PaneAssoc {
		return m.follow()
	}
	return nil
}

// follow centres the associations pane on the atom selected in Atoms.
func (m *Model) follow() tea.Cmd {
	sel, ok := m.panes[PaneAtoms].(views.Selector)
	if !ok {
		return nil
	}
	if f, ok := m.panes[PaneAssoc].(interface{ Follow(string) tea.Cmd }); ok {
		return f.Follow(sel.SelectedID())
	}
	return nil
}

func (m *Model) refreshKeys() {
	m.keys.Undo.SetEnabled(len(m.undo) > 0)
	m.keys.Dismiss.SetEnabled(m.dismissed < len(m.damage))
	m.keys.CopyID.SetEnabled(m.mode == modeNormal && !m.inputActive() && m.selectedID() != "")
}
