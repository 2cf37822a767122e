package views

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/odekmem/odekmem/internal/umfield"
	"github.com/odekmem/odekmem/keymap"
	"github.com/odekmem/odekmem/memcore"
)

// UserModelLoadedMsg carries the user model.
type UserModelLoadedMsg struct {
	Model memcore.UserModel
	Err   error
}

// LoadUserModel reads the user model.
func LoadUserModel(d Deps) tea.Cmd {
	return func() tea.Msg {
		if d.Store == nil {
			return UserModelLoadedMsg{}
		}
		m, err := d.Store.UserModel(d.Ctx)
		return UserModelLoadedMsg{Model: m, Err: err}
	}
}

// EditUserModelCmd sets (or, with an empty value, removes) a confirmed
// user-model field as the person's act; u undoes it.
func EditUserModelCmd(d Deps, field, value string) func() tea.Msg {
	return func() tea.Msg {
		u, err := d.Store.EditUserModel(d.Ctx, field, value)
		if err != nil {
			return MutatedMsg{Err: fmt.Errorf("edit %s: %w", field, err)}
		}
		d.Review.Record(u)
		if strings.TrimSpace(value) == "" {
			return MutatedMsg{Status: fmt.Sprintf("removed %s (u undoes)", field), Undo: storeUndo(d, "remove "+field, 1)}
		}
		return MutatedMsg{Status: fmt.Sprintf("set %s = %s (u undoes)", field, Cut(Line(value), 40)), Undo: storeUndo(d, "edit "+field, 1)}
	}
}

// UserModel is the confirmed user model: one row per field, e edits the
// selected value, d removes it.
type UserModel struct {
	filterBar
	d      Deps
	keys   keymap.UserModel
	height int
	nav    keymap.Nav
	model  memcore.UserModel
	loaded bool
	scroll Scroller
	width  int
	// rows are the fields shown, in order, with the line each starts on.
	rows []umRow
	sel  int
	// editing is set while the value of rows[sel] is being typed.
	editing bool
	edit    Input
}

type umRow struct {
	field string
	line  int
}

// NewUserModel returns the pane.
func NewUserModel(d Deps) *UserModel {
	u := &UserModel{d: d, nav: d.Keys.Nav, keys: d.Keys.UserModel,
		filterBar: newFilterBar(d, NewListFilter("words, or field:tools value:go", []string{"field", "value"}, map[string]string{"f": "field", "v": "value"}))}
	u.lkeys.ClearFilter.SetEnabled(false)
	return u
}

// Init loads the model.
func (u *UserModel) Init() tea.Cmd { return LoadUserModel(u.d) }

// Title is "User model N" (N confirmed values).
func (u *UserModel) Title() string { return fmt.Sprintf("User model %d", len(u.model.Values())) }

// InputActive reports whether the filter or the value input has the keys.
func (u *UserModel) InputActive() bool { return u.editing || u.filter.Typing() }

// SetSize sets the size.
func (u *UserModel) SetSize(w, h int) {
	u.width, u.height = w, h
	u.scroll.H = h - 1
	u.render()
}

// selected is the field under the cursor ("" when none is shown).
func (u *UserModel) selected() string {
	if u.sel < 0 || u.sel >= len(u.rows) {
		return ""
	}
	return u.rows[u.sel].field
}

// Update handles the cursor, edits and the load result.
func (u *UserModel) Update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case UserModelLoadedMsg:
		if msg.Err == nil {
			u.model, u.loaded = msg.Model, true
			u.render()
		}
	case ReloadMsg:
		return LoadUserModel(u.d)
	case tea.MouseMsg:
		u.scroll.HandleNav(msg, u.nav)
	case tea.KeyMsg:
		if u.editing {
			return u.updateEdit(msg)
		}
		var cmd tea.Cmd
		_, changed := u.filterKey(msg, func() bool {
			switch {
			case key.Matches(msg, u.nav.Up):
				u.move(-1)
			case key.Matches(msg, u.nav.Down):
				u.move(1)
			case key.Matches(msg, u.nav.Home):
				u.move(-len(u.rows))
			case key.Matches(msg, u.nav.End):
				u.move(len(u.rows))
			case key.Matches(msg, u.nav.PageUp, u.nav.PageDown):
				u.scroll.HandleNav(msg, u.nav)
			case key.Matches(msg, u.keys.Edit) && u.selected() != "":
				v, _ := u.model.Get(u.selected())
				u.editing = true
				u.edit.Prompt = u.selected() + " = "
				u.edit.SetValue(v)
			case key.Matches(msg, u.keys.Remove) && u.selected() != "":
				f := u.selected()
				if v, _ := u.model.Get(f); v != "" {
					cmd = Confirm(fmt.Sprintf("Remove %s (“%s”) from the user model?", f, Cut(Line(v), 40)), Work(EditUserModelCmd(u.d, f, "")))
				}
			default:
				return false
			}
			return true
		})
		if changed {
			u.sel, u.scroll.Off = 0, 0
		}
		u.render()
		u.lkeys.ClearFilter.SetEnabled(u.filter.Text() != "")
		return cmd
	}
	return nil
}

func (u *UserModel) updateEdit(msg tea.KeyMsg) tea.Cmd {
	switch {
	case key.Matches(msg, u.in.Cancel):
		u.editing = false
		return nil
	case key.Matches(msg, u.in.Submit):
		u.editing = false
		f, v := u.selected(), strings.TrimSpace(u.edit.Value())
		if cur, _ := u.model.Get(f); f == "" || v == cur {
			return nil
		}
		if v == "" {
			return Confirm(fmt.Sprintf("Remove %s from the user model?", f), Work(EditUserModelCmd(u.d, f, "")))
		}
		return Work(EditUserModelCmd(u.d, f, v))
	}
	u.edit.Update(msg)
	return nil
}

// move moves the cursor by n rows and keeps its line in view.
func (u *UserModel) move(n int) {
	u.sel = max(0, min(len(u.rows)-1, u.sel+n))
}

var sections = []struct{ prefix, title string }{
	{"style.", "Style"},
	{"technical.", "Technical"},
	{"focus.", "Current focus"},
	{"interaction.", "Interaction patterns"},
}

func (u *UserModel) render() {
	s := u.d.Styles
	if !u.loaded {
		u.scroll.SetContent([]string{s.Muted.Render("loading…")})
		return
	}
	vals := map[string]string{}
	for _, kv := range u.model.Values() {
		vals[kv[0]] = kv[1]
	}
	var lines []string
	u.rows = u.rows[:0]
	for _, sec := range sections {
		title := len(lines)
		lines = append(lines, s.Accent.Render(sec.title))
		n := 0
		shown := 0
		for _, f := range umfield.Fields {
			if !strings.HasPrefix(f, sec.prefix) {
				continue
			}
			if !u.filter.Match(map[string]string{"field": f, "value": vals[f]}, "") {
				continue
			}
			shown++
			name := strings.ReplaceAll(strings.TrimPrefix(f, sec.prefix), "_", " ")
			v, ok := vals[f]
			val := Line(v)
			if !ok || v == "" {
				val = s.Muted.Render("–")
			} else {
				n++
			}
			label := s.Label.Render(fmt.Sprintf("%-22s", name))
			mark := "  "
			if len(u.rows) == u.sel {
				label, mark = s.Selected.Render(fmt.Sprintf("%-22s", name)), s.Accent.Render("▸ ")
			}
			u.rows = append(u.rows, umRow{field: f, line: len(lines)})
			wrapped := strings.Split(Wrap(val, u.width-26), "\n")
			for i, l := range wrapped {
				if i == 0 {
					lines = append(lines, mark+label+" "+l)
				} else {
					lines = append(lines, strings.Repeat(" ", 25)+l)
				}
			}
		}
		if shown == 0 {
			lines = lines[:title] // the filter hides the whole section
			continue
		}
		lines = append(lines, "")
	}
	if len(lines) == 0 {
		lines = append(lines, s.Muted.Render("No field matches the filter. Press esc to clear it."), "")
	}
	if n := len(u.model.Pending); n > 0 {
		verb := "wait"
		if n == 1 {
			verb = "waits"
		}
		lines = append(lines, s.Muted.Render(fmt.Sprintf("%s %s in Pending (3); not part of the model until confirmed.", Count(n, "inference", "inferences"), verb)))
	}
	u.scroll.SetContent(lines)
	if u.sel >= len(u.rows) && len(u.rows) > 0 {
		u.sel = len(u.rows) - 1
		u.render()
		return
	}
	if u.sel < len(u.rows) {
		// Keep the cursor's line (and its section title) in view.
		l := u.rows[u.sel].line
		if l < u.scroll.Off+1 {
			u.scroll.Off = max(0, l-1)
		} else if u.scroll.H > 0 && l >= u.scroll.Off+u.scroll.H {
			u.scroll.Off = l - u.scroll.H + 1
		}
		u.scroll.clamp()
	}
}

// View renders the model.
func (u *UserModel) View() string {
	s := u.d.Styles
	head := s.Title.Render("User model") + s.Muted.Render(" · confirmed values only · e edits, d removes, u undoes")
	if l := u.filter.Label(); l != "" {
		head += " " + s.Accent.Render(l)
	}
	body := Cut(head, u.width) + "\n" + strings.Join(u.scroll.View(), "\n")
	if u.editing {
		// What the field takes, above the input: a wrong value's error
		// need not be the first place a person learns it.
		hint := "free text; empty removes it"
		if words, ok := umfield.StyleVocabulary[u.selected()]; ok {
			hint = "one to three of: " + strings.Join(words, ", ")
		} else if umfield.IsList(u.selected()) {
			hint = "comma-separated items, exactly the ones the field should hold; empty removes them"
		}
		return FitLines(body, u.width, u.height-2) + "\n" + s.Muted.Render(Cut(hint, u.width)) + "\n" + u.edit.View(u.width, s.Prompt, s.Input, s.Selected)
	}
	return withFilterInput(&u.filter, u.d, body, u.width, u.height)
}

// ShortHelp lists the keys.
func (u *UserModel) ShortHelp() []key.Binding {
	if u.filter.Typing() || u.editing {
		return []key.Binding{u.in.Submit, u.in.Cancel}
	}
	return []key.Binding{u.keys.Edit, u.keys.Remove, u.lkeys.Filter, u.lkeys.ClearFilter, u.nav.Up, u.nav.Down}
}

// FullHelp lists the keys.
func (u *UserModel) FullHelp() [][]key.Binding {
	if u.editing {
		return [][]key.Binding{{u.in.Submit, u.in.Cancel}}
	}
	return u.fullHelp([]key.Binding{u.keys.Edit, u.keys.Remove}, []key.Binding{u.nav.Up, u.nav.Down, u.nav.PageUp, u.nav.PageDown})
}
