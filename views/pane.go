// Package views holds the TUI's panes, the contract they share and the
// message types that flow between them and the root model in package tui.
// Every memcore call a pane makes is a named tea.Cmd returning a typed
// message; nothing here does I/O inside Update or View.
package views

import (
	"context"
	"sync"
	"time"

	"github.com/charmbracelet/bubbles/help"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/odekmem/odekmem/keymap"
	"github.com/odekmem/odekmem/memcore"
	"github.com/odekmem/odekmem/memcore/review"
	"github.com/odekmem/odekmem/theme"
)

// Pane is the contract every pane meets. Update mutates the pane in place
// and returns a command; help.KeyMap reports the pane's own bindings, with
// the ones that do not apply disabled.
type Pane interface {
	Init() tea.Cmd
	Update(msg tea.Msg) tea.Cmd
	View() string
	SetSize(width, height int)
	help.KeyMap
}

// Titled is a pane with a title (shown in the tab bar and its header),
// which includes its count.
type Titled interface {
	Title() string
}

// Inputter is a pane that may be typing into a text input; while
// InputActive is true the root sends it every key (q does not quit).
type Inputter interface {
	InputActive() bool
}

// Selector is a pane with a selected atom.
type Selector interface {
	SelectedID() string
}

// Deps is what every pane needs: the store, keys, styles and clock.
type Deps struct {
	Ctx   context.Context
	Store *memcore.Store
	// Review keeps the history of the person's acts (each act records
	// its Undo there) that u takes back.
	Review *review.Session
	Keys   keymap.KeyMap
	Styles *theme.Styles
	// Now is the clock for ages and expiry (the store's clock).
	Now func() time.Time
	// HalfLife and TTL are decay_half_life_days and quarantine_ttl_days.
	HalfLife, TTL float64
	// Glamour is the detail view's markdown style, by glamour's standard
	// style names: "dark", "light" or "notty" (see renderMarkdown).
	Glamour string
	// Cache holds rendered markdown keyed by content and width.
	Cache *RenderCache
	// Seen records the quarantine entries the person has looked at, so
	// that compaction asks before dropping ones they have not.
	Seen *Seen
}

// Seen is a set of ids, safe for concurrent use.
type Seen struct {
	mu  sync.Mutex
	ids map[string]bool
}

// Mark records id as seen.
func (s *Seen) Mark(id string) {
	if s == nil || id == "" {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ids == nil {
		s.ids = map[string]bool{}
	}
	s.ids[id] = true
}

// Has reports whether id was seen.
func (s *Seen) Has(id string) bool {
	if s == nil {
		return false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.ids[id]
}

// NewDeps fills Deps from a store. st may be nil (benchmarks feed panes
// directly); then the design defaults are used.
func NewDeps(ctx context.Context, st *memcore.Store, styles *theme.Styles, glamourStyle string) Deps {
	cfg := memcore.DefaultConfig()
	now := time.Now
	if st != nil {
		cfg = st.Config()
		now = st.Now
	}
	if ctx == nil {
		ctx = context.Background()
	}
	if glamourStyle == "" {
		glamourStyle = "notty"
	}
	return Deps{
		Ctx: ctx, Store: st, Review: &review.Session{}, Keys: keymap.DefaultKeyMap(), Styles: styles, Now: now,
		HalfLife: cfg.DecayHalfLifeDays, TTL: cfg.QuarantineTTLDays,
		Glamour: glamourStyle, Cache: NewRenderCache(), Seen: &Seen{},
	}
}
