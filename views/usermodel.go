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
		m, err := d.Store.UserModel()
		return UserModelLoadedMsg{Model: m, Err: err}
	}
}

// UserModel is the read-only view of the confirmed user model.
type UserModel struct {
	filterBar
	d      Deps
	height int
	nav    keymap.Nav
	model  memcore.UserModel
	loaded bool
	scroll Scroller
	width  int
}

// NewUserModel returns the pane.
func NewUserModel(d Deps) *UserModel {
	u := &UserModel{d: d, nav: d.Keys.Nav,
		filterBar: newFilterBar(d, NewListFilter("words, or field:tools value:go", []string{"field", "value"}, map[string]string{"f": "field", "v": "value"}))}
	u.lkeys.ClearFilter.SetEnabled(false)
	return u
}

// Init loads the model.
func (u *UserModel) Init() tea.Cmd { return LoadUserModel(u.d) }

// Title is "User model N" (N confirmed values).
func (u *UserModel) Title() string { return fmt.Sprintf("User model %d", len(u.model.Values())) }

// SetSize sets the size.
func (u *UserModel) SetSize(w, h int) {
	u.width, u.height = w, h
	u.scroll.H = h - 1
	u.render()
}

// Update handles scrolling and the load result.
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
		_, changed := u.filterKey(msg, func() bool { return u.scroll.HandleNav(msg, u.nav) })
		if changed {
			u.scroll.Off = 0
			u.render()
		}
		u.lkeys.ClearFilter.SetEnabled(u.filter.Text() != "")
	}
	return nil
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
			wrapped := strings.Split(Wrap(val, u.width-26), "\n")
			for i, l := range wrapped {
				if i == 0 {
					lines = append(lines, "  "+s.Label.Render(fmt.Sprintf("%-22s", name))+" "+l)
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
}

// View renders the model.
func (u *UserModel) View() string {
	s := u.d.Styles
	head := s.Title.Render("User model") + s.Muted.Render(" · confirmed values only · read-only")
	if l := u.filter.Label(); l != "" {
		head += " " + s.Accent.Render(l)
	}
	return withFilterInput(&u.filter, u.d, Cut(head, u.width)+"\n"+strings.Join(u.scroll.View(), "\n"), u.width, u.height)
}

// ShortHelp lists the keys.
func (u *UserModel) ShortHelp() []key.Binding {
	if u.filter.Typing() {
		return []key.Binding{u.in.Submit, u.in.Cancel}
	}
	return []key.Binding{u.lkeys.Filter, u.lkeys.ClearFilter, u.nav.Up, u.nav.Down}
}

// FullHelp lists the keys.
func (u *UserModel) FullHelp() [][]key.Binding {
	return u.fullHelp([]key.Binding{u.nav.Up, u.nav.Down, u.nav.PageUp, u.nav.PageDown})
}
