package views

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/odekmem/odekmem/keymap"
	"github.com/odekmem/odekmem/memcore"
)

// RecallResultMsg carries what the agent would receive for a message.
type RecallResultMsg struct {
	Message string
	TC      memcore.TurnContext
	Err     error
}

// RecallCmd runs the agent hook's BeforeTurn for a message on a fresh hook
// (first turn of a session). It may call the memory LLM. A leading
// "project:NAME" token sets the turn's project.
func RecallCmd(d Deps, msg string) func() tea.Msg {
	return func() tea.Msg {
		project := ""
		if f := strings.Fields(msg); len(f) > 0 && strings.HasPrefix(f[0], "project:") {
			project = strings.TrimPrefix(f[0], "project:")
			msg = strings.TrimSpace(strings.TrimPrefix(msg, f[0]))
		}
		hook := memcore.NewHook(d.Store)
		tc := hook.BeforeTurn(d.Ctx, memcore.Turn{Message: msg, Project: project, SessionID: "odekmem-tui-preview"})
		return RecallResultMsg{Message: msg, TC: tc}
	}
}

// Recall previews exactly what the agent would receive for a message.
type Recall struct {
	d       Deps
	keys    keymap.Recall
	nav     keymap.Nav
	in      keymap.Input
	input   Input
	typing  bool
	running bool
	res     *RecallResultMsg
	scroll  Scroller
	width   int
}

// NewRecall returns the pane.
func NewRecall(d Deps) *Recall {
	r := &Recall{d: d, keys: d.Keys.Recall, nav: d.Keys.Nav, in: d.Keys.Input}
	r.input.Prompt = "message: "
	r.input.Placeholder = "what the person says next (prefix project:NAME to set the project)"
	return r
}

// Init does nothing until a message is typed.
func (r *Recall) Init() tea.Cmd { return nil }

// Title is "Recall" (with the atom count of the last preview).
func (r *Recall) Title() string {
	if r.res == nil {
		return "Recall"
	}
	return fmt.Sprintf("Recall %d", len(r.res.TC.Memory.Atoms))
}

// InputActive reports typing.
func (r *Recall) InputActive() bool { return r.typing }

// SetSize sets the size.
func (r *Recall) SetSize(w, h int) {
	r.width = w
	r.scroll.H = h - 3
	r.render()
}

// Update handles keys and the preview result.
func (r *Recall) Update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case RecallResultMsg:
		r.running = false
		r.res = &msg
		r.scroll.Off = 0
		r.render()
		if msg.Err != nil {
			return Status("recall: "+msg.Err.Error(), true)
		}
	case tea.MouseMsg:
		r.scroll.HandleNav(msg, r.nav)
	case tea.KeyMsg:
		if r.typing {
			switch {
			case key.Matches(msg, r.in.Cancel):
				r.typing = false
			case key.Matches(msg, r.in.Submit):
				r.typing = false
				v := strings.TrimSpace(r.input.Value())
				if v == "" || r.d.Store == nil {
					return nil
				}
				r.running = true
				r.render()
				return Work(RecallCmd(r.d, v))
			default:
				r.input.Update(msg)
			}
			return nil
		}
		if r.scroll.HandleNav(msg, r.nav) {
			return nil
		}
		if key.Matches(msg, r.keys.Edit) {
			r.typing = true
		}
	}
	return nil
}

func (r *Recall) render() {
	s := r.d.Styles
	w := r.width
	if r.running {
		r.scroll.SetContent([]string{s.Muted.Render("building the turn context…")})
		return
	}
	if r.res == nil {
		r.scroll.SetContent([]string{s.Muted.Render("Press enter and type a message to see exactly what the agent would receive.")})
		return
	}
	tc := r.res.TC
	var lines []string
	add := func(l ...string) { lines = append(lines, l...) }
	section := func(t string) { add("", s.Accent.Render(t)) }
	add(s.Label.Render("message  ") + Line(tc.Message))
	if tc.Resolved {
		add(s.Muted.Render("         (pronoun resolved against recent atoms)"))
	}
	m := tc.Memory
	add(fmt.Sprintf("%s%d of %d chars · %d atoms · %d cut · %d dropped · reranked: %v",
		s.Label.Render("budget   "), m.Used, m.Budget, len(m.Atoms), len(m.Cut), len(m.Dropped), tc.Reranked))
	if len(tc.Intents) > 0 {
		section("Predicted intents")
		for _, in := range tc.Intents {
			add("  • " + Line(in))
		}
	}
	section("Atoms")
	if len(m.Atoms) == 0 {
		add(s.Muted.Render("  none qualified"))
	} else {
		add(s.Label.Render("   COMP   SIM   RET  VIA            TYPE        TEXT"))
	}
	for _, a := range m.Atoms {
		add(fmt.Sprintf("  %5.3f %5.3f %5.3f  %-14s %-11s %s", a.Composite, a.Sim, a.Retention, Cut(Line(orDash(a.Via)), 14),
			Line(a.Atom.Type), Cut(Line(a.Atom.Text), w-53)))
	}
	if len(m.Cut) > 0 {
		add(s.Warn.Render(fmt.Sprintf("  cut for budget: %s", Line(strings.Join(shortIDs(m.Cut), ", ")))))
	}
	if len(m.Dropped) > 0 {
		add(s.Danger.Render(fmt.Sprintf("  dropped by the final scan: %s", Line(strings.Join(shortIDs(m.Dropped), ", ")))))
	}
	if tc.StyleBlock != "" {
		section("Style block")
		add(indent(Safe(tc.StyleBlock), w)...)
	}
	if tc.UserState != "" {
		section("User-state block")
		add(indent(Safe(tc.UserState), w)...)
	}
	if tc.ResumeBlock != "" {
		section("Return-after-break block")
		add(indent(Safe(tc.ResumeBlock), w)...)
	}
	section(fmt.Sprintf("Blocks injected (%d, in order)", len(tc.Blocks)))
	for i, bl := range tc.Blocks {
		add(s.Muted.Render(fmt.Sprintf("  ── block %d ──", i+1)))
		add(indent(Safe(bl), w)...)
	}
	if len(tc.Warnings) > 0 {
		section("Warnings")
		for _, wn := range tc.Warnings {
			add("  " + s.Warn.Render(Line(wn)))
		}
	}
	r.scroll.SetContent(lines)
}

func shortIDs(ids []string) []string {
	out := make([]string, len(ids))
	for i, id := range ids {
		out[i] = ShortID(id)
	}
	return out
}

func indent(text string, w int) []string {
	var out []string
	for _, l := range strings.Split(strings.TrimRight(text, "\n"), "\n") {
		for _, wl := range strings.Split(Wrap(strings.ReplaceAll(l, "\t", "  "), w-4), "\n") {
			out = append(out, "    "+wl)
		}
	}
	return out
}

// View renders the input and the preview.
func (r *Recall) View() string {
	s := r.d.Styles
	head := s.Title.Render("Recall preview") + s.Muted.Render(" · exactly what the agent would receive (memcore hook, BeforeTurn)")
	var in string
	if r.typing {
		in = r.input.View(r.width, s.Prompt, s.Input, s.Selected)
	} else {
		v := r.input.Value()
		if v == "" {
			in = s.Muted.Render("message: (press enter to type)")
		} else {
			in = s.Label.Render("message: ") + Line(v)
		}
	}
	return head + "\n" + Cut(in, r.width) + "\n" + s.Muted.Render(strings.Repeat("─", r.width)) + "\n" + strings.Join(r.scroll.View(), "\n")
}

// ShortHelp lists the keys.
func (r *Recall) ShortHelp() []key.Binding {
	if r.typing {
		return []key.Binding{r.in.Submit, r.in.Cancel}
	}
	return []key.Binding{r.keys.Edit, r.nav.Down}
}

// FullHelp lists the keys.
func (r *Recall) FullHelp() [][]key.Binding {
	if r.typing {
		return [][]key.Binding{{r.in.Submit, r.in.Cancel}}
	}
	return [][]key.Binding{{r.nav.Up, r.nav.Down, r.nav.PageUp, r.nav.PageDown}, {r.keys.Edit}}
}
