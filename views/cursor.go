package views

import (
	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/odekmem/odekmem/keymap"
)

// Cursor is a selection in a virtualised list of N rows shown H at a time:
// only rows Off..Off+H are ever rendered.
type Cursor struct {
	Pos, Off, N, H int
}

// SetN sets the row count and keeps the cursor in range.
func (c *Cursor) SetN(n int) { c.N = n; c.clamp() }

// SetH sets the visible height.
func (c *Cursor) SetH(h int) {
	if h < 1 {
		h = 1
	}
	c.H = h
	c.clamp()
}

// Move moves by d rows.
func (c *Cursor) Move(d int) { c.Pos += d; c.clamp() }

// Set moves to row i.
func (c *Cursor) Set(i int) { c.Pos = i; c.clamp() }

func (c *Cursor) clamp() {
	if c.Pos >= c.N {
		c.Pos = c.N - 1
	}
	if c.Pos < 0 {
		c.Pos = 0
	}
	if c.H < 1 {
		c.H = 1
	}
	if c.Pos < c.Off {
		c.Off = c.Pos
	}
	if c.Pos >= c.Off+c.H {
		c.Off = c.Pos - c.H + 1
	}
	if max := c.N - c.H; c.Off > max {
		c.Off = max
	}
	if c.Off < 0 {
		c.Off = 0
	}
}

// Range is the half-open range of visible rows.
func (c *Cursor) Range() (int, int) {
	end := c.Off + c.H
	if end > c.N {
		end = c.N
	}
	return c.Off, end
}

// HandleNav applies navigation keys and mouse wheel; it reports whether msg
// was a navigation.
func (c *Cursor) HandleNav(msg tea.Msg, k keymap.Nav) bool {
	switch msg := msg.(type) {
	case tea.MouseMsg:
		if msg.Action != tea.MouseActionPress {
			return false
		}
		switch msg.Button {
		case tea.MouseButtonWheelUp:
			c.Move(-3)
			return true
		case tea.MouseButtonWheelDown:
			c.Move(3)
			return true
		}
	case tea.KeyMsg:
		switch {
		case key.Matches(msg, k.Up):
			c.Move(-1)
		case key.Matches(msg, k.Down):
			c.Move(1)
		case key.Matches(msg, k.PageUp):
			c.Move(-c.H)
		case key.Matches(msg, k.PageDown):
			c.Move(c.H)
		case key.Matches(msg, k.Home):
			c.Set(0)
		case key.Matches(msg, k.End):
			c.Set(c.N - 1)
		default:
			return false
		}
		return true
	}
	return false
}

// Scroller is a read-only scrolled text: Off is the first shown line.
type Scroller struct {
	Lines []string
	Off   int
	H     int
}

// SetContent replaces the text, keeping the offset in range.
func (s *Scroller) SetContent(lines []string) { s.Lines = lines; s.clamp() }

func (s *Scroller) clamp() {
	if max := len(s.Lines) - s.H; s.Off > max {
		s.Off = max
	}
	if s.Off < 0 {
		s.Off = 0
	}
}

// HandleNav scrolls for navigation keys and wheel.
func (s *Scroller) HandleNav(msg tea.Msg, k keymap.Nav) bool {
	c := Cursor{Pos: s.Off, N: len(s.Lines), H: 1}
	if !c.HandleNav(msg, k) {
		return false
	}
	switch m := msg.(type) {
	case tea.KeyMsg:
		if key.Matches(m, k.PageUp) {
			c.Pos = s.Off - s.H
		} else if key.Matches(m, k.PageDown) {
			c.Pos = s.Off + s.H
		}
	}
	s.Off = c.Pos
	s.clamp()
	return true
}

// View returns the visible lines.
func (s *Scroller) View() []string {
	s.clamp()
	end := s.Off + s.H
	if end > len(s.Lines) {
		end = len(s.Lines)
	}
	return s.Lines[s.Off:end]
}

// Click moves the cursor to the row under a left click; top is the line
// of the pane where the first visible row is drawn. It reports whether the
// click landed on a row.
func (c *Cursor) Click(msg tea.MouseMsg, top int) bool {
	if msg.Action != tea.MouseActionPress || msg.Button != tea.MouseButtonLeft {
		return false
	}
	row := msg.Y - top
	if row < 0 || row >= c.H || c.Off+row >= c.N {
		return false
	}
	c.Set(c.Off + row)
	return true
}
