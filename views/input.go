package views

import (
	"strings"
	"unicode"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
)

// Input is a minimal single-line text input. (bubbles/textinput needs a
// clipboard module that go.mod does not carry.) Control characters are
// never inserted, so a pasted escape sequence cannot reach the terminal.
type Input struct {
	Prompt      string
	Placeholder string
	value       []rune
	pos         int
}

// Value is the text typed so far.
func (in *Input) Value() string { return string(in.value) }

// SetValue replaces the text and moves the cursor to its end.
func (in *Input) SetValue(s string) {
	in.value = in.value[:0]
	for _, r := range s {
		if !unicode.IsControl(r) {
			in.value = append(in.value, r)
		}
	}
	in.pos = len(in.value)
}

// Reset clears the input.
func (in *Input) Reset() { in.value, in.pos = nil, 0 }

// Update edits the text for one key and reports whether it changed.
func (in *Input) Update(msg tea.KeyMsg) bool {
	switch msg.Type {
	case tea.KeyRunes, tea.KeySpace:
		rs := msg.Runes
		if msg.Type == tea.KeySpace {
			rs = []rune{' '}
		}
		ins := make([]rune, 0, len(rs))
		for _, r := range rs {
			if r == '\n' || r == '\t' {
				r = ' '
			}
			if !unicode.IsControl(r) {
				ins = append(ins, r)
			}
		}
		if len(ins) == 0 {
			return false
		}
		v := make([]rune, 0, len(in.value)+len(ins))
		v = append(v, in.value[:in.pos]...)
		v = append(v, ins...)
		v = append(v, in.value[in.pos:]...)
		in.value = v
		in.pos += len(ins)
		return true
	case tea.KeyBackspace:
		if in.pos > 0 {
			in.value = append(in.value[:in.pos-1], in.value[in.pos:]...)
			in.pos--
			return true
		}
	case tea.KeyDelete:
		if in.pos < len(in.value) {
			in.value = append(in.value[:in.pos], in.value[in.pos+1:]...)
			return true
		}
	case tea.KeyLeft:
		if in.pos > 0 {
			in.pos--
		}
	case tea.KeyRight:
		if in.pos < len(in.value) {
			in.pos++
		}
	case tea.KeyHome, tea.KeyCtrlA:
		in.pos = 0
	case tea.KeyEnd, tea.KeyCtrlE:
		in.pos = len(in.value)
	case tea.KeyCtrlU:
		if len(in.value) > 0 {
			in.value, in.pos = nil, 0
			return true
		}
	case tea.KeyCtrlW:
		i := in.pos
		for i > 0 && in.value[i-1] == ' ' {
			i--
		}
		for i > 0 && in.value[i-1] != ' ' {
			i--
		}
		if i != in.pos {
			in.value = append(in.value[:i], in.value[in.pos:]...)
			in.pos = i
			return true
		}
	}
	return false
}

// View renders the prompt and text in width cells, scrolled so the cursor
// stays visible. The cursor is drawn with cursor (a plain "_" shows at the
// end so it is visible without colour).
func (in *Input) View(width int, prompt, text, cursor lipgloss.Style) string {
	p := prompt.Render(in.Prompt)
	avail := width - lipgloss.Width(p) - 1
	if avail < 4 {
		avail = 4
	}
	if len(in.value) == 0 && in.Placeholder != "" {
		return p + cursor.Render("_") + Cut(prompt.Faint(true).Render(in.Placeholder), avail)
	}
	start := 0
	if in.pos > avail {
		start = in.pos - avail
	}
	end := start + avail
	if end > len(in.value) {
		end = len(in.value)
	}
	var b strings.Builder
	b.WriteString(p)
	b.WriteString(text.Render(Line(string(in.value[start:in.pos]))))
	if in.pos < len(in.value) {
		b.WriteString(cursor.Render(Line(string(in.value[in.pos]))))
		if in.pos+1 < end {
			b.WriteString(text.Render(Line(string(in.value[in.pos+1 : end]))))
		}
	} else {
		b.WriteString(cursor.Render("_"))
	}
	return b.String()
}
