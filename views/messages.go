package views

import (
	tea "github.com/charmbracelet/bubbletea"
)

// ReloadMsg asks every pane to reload its data from the store (sent by the
// root after a write or when another process changed the store).
type ReloadMsg struct {
	// Select, when set, is the atom the Atoms pane selects once it has
	// reloaded: the note just added, the atom an undo brought back.
	Select string
}

// StatusMsg sets the footer status line; it clears itself after a while.
type StatusMsg struct {
	Text string
	Err  bool
}

// ConfirmMsg asks the root for a y/N prompt. Yes runs only on "y"; any
// other key is No.
type ConfirmMsg struct {
	Question string
	Yes      tea.Cmd
}

// MutatedMsg reports a finished write. The root shows Status (or Err),
// remembers Undo and tells every pane to reload.
type MutatedMsg struct {
	Status string
	Err    error
	Undo   *Undo
	// Select is the atom the Atoms pane selects after reloading.
	Select string
}

// Undo is a write the session can take back with u: promote, confirm,
// reject and forget (one at a time or in a batch).
type Undo struct {
	// Label names the act ("forget", "promote 3").
	Label string
	// Run takes the act back; the root runs it in a command.
	Run func() error
	// N is how many items Run restores.
	N int
	// Select is the atom to select once it is back ("" none).
	Select string
}

// WorkStartedMsg and WorkDoneMsg bracket work that shows the spinner.
type WorkStartedMsg struct{}

// WorkDoneMsg carries the result of work started by Work.
type WorkDoneMsg struct{ Msg tea.Msg }

// Work runs fn in the background with the root's spinner showing.
func Work(fn func() tea.Msg) tea.Cmd {
	return tea.Batch(
		func() tea.Msg { return WorkStartedMsg{} },
		func() tea.Msg { return WorkDoneMsg{Msg: fn()} },
	)
}

// ShowAssociationsMsg asks the root to focus the associations pane centred
// on an atom.
type ShowAssociationsMsg struct{ ID string }

// CentreMsg centres the associations pane on an atom.
type CentreMsg struct{ ID string }

// Status returns a command that sets the status line.
func Status(text string, isErr bool) tea.Cmd {
	return func() tea.Msg { return StatusMsg{Text: text, Err: isErr} }
}

// Confirm returns a command asking for a y/N prompt.
func Confirm(question string, yes tea.Cmd) tea.Cmd {
	return func() tea.Msg { return ConfirmMsg{Question: question, Yes: yes} }
}
