// Package keymap defines the TUI's key bindings: one struct of key.Binding
// per scope, built by DefaultKeyMap and passed down. Nothing here is a
// mutable global; panes disable the bindings that do not apply so the help
// bar tells the truth.
package keymap

import "github.com/charmbracelet/bubbles/key"

// KeyMap holds every scope.
type KeyMap struct {
	Global     Global
	Nav        Nav
	Atoms      Atoms
	Quarantine Quarantine
	Pending    Pending
	Lane       Lane
	UserModel  UserModel
	Assoc      Assoc
	Budget     Budget
	Recall     Recall
	Input      Input
	// List is the "/" filter every list pane shares (each pane takes its
	// own copy, so enabling it in one pane does not touch another).
	List List
}

// Global keys work in every pane (except while typing into an input).
type Global struct {
	Quit     key.Binding
	NextPane key.Binding
	PrevPane key.Binding
	Panes    [9]key.Binding
	Help     key.Binding
	Undo     key.Binding
	// CopyID copies the selected atom's id to the clipboard (OSC 52).
	CopyID key.Binding
	// Dismiss closes the store-damage banner.
	Dismiss key.Binding
}

// List filters a list pane.
type List struct {
	Filter      key.Binding
	ClearFilter key.Binding
}

// Nav moves a cursor through a list or scrolls a view.
type Nav struct {
	Up       key.Binding
	Down     key.Binding
	PageUp   key.Binding
	PageDown key.Binding
	Home     key.Binding
	End      key.Binding
}

// Atoms is the live-atom list and its detail view.
type Atoms struct {
	Filter      key.Binding
	ClearFilter key.Binding
	Type        key.Binding
	Source      key.Binding
	Project     key.Binding
	Session     key.Binding
	Detail      key.Binding
	Back        key.Binding
	Pin         key.Binding
	Forget      key.Binding
	Add         key.Binding
	Search      key.Binding
	Graph       key.Binding
}

// Quarantine is the quarantine list.
type Quarantine struct {
	Toggle  key.Binding
	All     key.Binding
	Promote key.Binding
	Forget  key.Binding
}

// Pending is the pending-review queue.
type Pending struct {
	Confirm key.Binding
	Reject  key.Binding
}

// Lane is "from your messages — keep?": candidates from the person's own
// messages the judgement was not sure about.
type Lane struct {
	Keep        key.Binding
	Drop        key.Binding
	KeepSession key.Binding
}

// UserModel is the confirmed user model.
type UserModel struct {
	Edit   key.Binding
	Remove key.Binding
}

// Assoc is the association graph.
type Assoc struct {
	Recentre key.Binding
	Back     key.Binding
	Deeper   key.Binding
	Shallow  key.Binding
	Sync     key.Binding
}

// Budget is the size budget view.
type Budget struct {
	Compact key.Binding
}

// Recall is the recall preview.
type Recall struct {
	Edit key.Binding
}

// Input is any single-line text input.
type Input struct {
	Submit key.Binding
	Cancel key.Binding
}

// DefaultKeyMap returns the default bindings.
func DefaultKeyMap() KeyMap {
	k := KeyMap{}
	k.Global = Global{
		Quit:     key.NewBinding(key.WithKeys("q", "ctrl+c"), key.WithHelp("q", "quit")),
		NextPane: key.NewBinding(key.WithKeys("tab"), key.WithHelp("tab", "next pane")),
		PrevPane: key.NewBinding(key.WithKeys("shift+tab"), key.WithHelp("shift+tab", "prev pane")),
		Help:     key.NewBinding(key.WithKeys("?"), key.WithHelp("?", "help")),
		Undo:     key.NewBinding(key.WithKeys("u"), key.WithHelp("u", "undo"), key.WithDisabled()),
		CopyID:   key.NewBinding(key.WithKeys("Y"), key.WithHelp("Y", "copy id"), key.WithDisabled()),
		Dismiss:  key.NewBinding(key.WithKeys("D"), key.WithHelp("D", "dismiss banner"), key.WithDisabled()),
	}
	k.List = List{
		Filter:      key.NewBinding(key.WithKeys("/"), key.WithHelp("/", "filter")),
		ClearFilter: key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "clear filter"), key.WithDisabled()),
	}
	names := []string{"atoms", "quarantine", "pending", "user model", "associations", "budget", "recall", "contradictions", "lane"}
	for i := range k.Global.Panes {
		d := string(rune('1' + i))
		k.Global.Panes[i] = key.NewBinding(key.WithKeys(d), key.WithHelp(d, names[i]))
	}
	k.Nav = Nav{
		Up:       key.NewBinding(key.WithKeys("up", "k"), key.WithHelp("↑/k", "up")),
		Down:     key.NewBinding(key.WithKeys("down", "j"), key.WithHelp("↓/j", "down")),
		PageUp:   key.NewBinding(key.WithKeys("pgup", "ctrl+b"), key.WithHelp("pgup", "page up")),
		PageDown: key.NewBinding(key.WithKeys("pgdown", "ctrl+f"), key.WithHelp("pgdn", "page down")),
		Home:     key.NewBinding(key.WithKeys("home", "g"), key.WithHelp("g/home", "top")),
		End:      key.NewBinding(key.WithKeys("end", "G"), key.WithHelp("G/end", "bottom")),
	}
	k.Atoms = Atoms{
		Filter:      key.NewBinding(key.WithKeys("/"), key.WithHelp("/", "filter")),
		ClearFilter: key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "clear filter"), key.WithDisabled()),
		Type:        key.NewBinding(key.WithKeys("t"), key.WithHelp("t", "type")),
		Source:      key.NewBinding(key.WithKeys("s"), key.WithHelp("s", "source")),
		Project:     key.NewBinding(key.WithKeys("p"), key.WithHelp("p", "project")),
		Session:     key.NewBinding(key.WithKeys("S"), key.WithHelp("S", "session")),
		Detail:      key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "detail")),
		Back:        key.NewBinding(key.WithKeys("esc", "backspace", "left"), key.WithHelp("esc", "back"), key.WithDisabled()),
		Pin:         key.NewBinding(key.WithKeys(" ", "P"), key.WithHelp("space/P", "pin")),
		Forget:      key.NewBinding(key.WithKeys("d"), key.WithHelp("d", "forget")),
		Add:         key.NewBinding(key.WithKeys("a"), key.WithHelp("a", "add note")),
		Search:      key.NewBinding(key.WithKeys("ctrl+s", "f"), key.WithHelp("f", "search")),
		Graph:       key.NewBinding(key.WithKeys("r"), key.WithHelp("r", "related graph")),
	}
	k.Quarantine = Quarantine{
		Toggle:  key.NewBinding(key.WithKeys(" "), key.WithHelp("space", "select")),
		All:     key.NewBinding(key.WithKeys("A"), key.WithHelp("A", "all/none")),
		Promote: key.NewBinding(key.WithKeys("p"), key.WithHelp("p", "promote")),
		Forget:  key.NewBinding(key.WithKeys("d"), key.WithHelp("d", "forget")),
	}
	k.Pending = Pending{
		// Not y: y answers the y/N prompt, and a y typed twice must not
		// confirm the next review after answering one.
		Confirm: key.NewBinding(key.WithKeys("c"), key.WithHelp("c", "confirm")),
		Reject:  key.NewBinding(key.WithKeys("n", "x"), key.WithHelp("n/x", "reject")),
	}
	k.Lane = Lane{
		// The keys of the Pending pane, for the same act: c keeps, n/x
		// drops (u takes either back); S keeps the whole session of the
		// selected entry.
		Keep:        key.NewBinding(key.WithKeys("c"), key.WithHelp("c", "keep")),
		Drop:        key.NewBinding(key.WithKeys("n", "x"), key.WithHelp("n/x", "drop")),
		KeepSession: key.NewBinding(key.WithKeys("S"), key.WithHelp("S", "keep the session")),
	}
	k.UserModel = UserModel{
		Edit:   key.NewBinding(key.WithKeys("e", "enter"), key.WithHelp("e", "edit value")),
		Remove: key.NewBinding(key.WithKeys("d"), key.WithHelp("d", "remove value")),
	}
	k.Assoc = Assoc{
		Recentre: key.NewBinding(key.WithKeys("enter", "right", "l"), key.WithHelp("enter/→", "recentre")),
		Back:     key.NewBinding(key.WithKeys("left", "backspace", "h"), key.WithHelp("←", "back"), key.WithDisabled()),
		Deeper:   key.NewBinding(key.WithKeys("+", "="), key.WithHelp("+", "depth 2")),
		Shallow:  key.NewBinding(key.WithKeys("-"), key.WithHelp("-", "depth 1"), key.WithDisabled()),
		Sync:     key.NewBinding(key.WithKeys("s"), key.WithHelp("s", "centre on atoms selection")),
	}
	k.Budget = Budget{
		Compact: key.NewBinding(key.WithKeys("c"), key.WithHelp("c", "compact")),
	}
	k.Recall = Recall{
		Edit: key.NewBinding(key.WithKeys("enter", "i", "/"), key.WithHelp("enter", "type a message")),
	}
	k.Input = Input{
		Submit: key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "submit")),
		Cancel: key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "cancel")),
	}
	return k
}
