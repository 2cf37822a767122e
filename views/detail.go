package views

import (
	"fmt"
	"strings"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/odekmem/odekmem/internal/score"
	"github.com/odekmem/odekmem/memcore"
)

// DetailMsg carries an atom's detail, rendered (RenderMarkdown).
type DetailMsg struct {
	ID    string
	Width int
	Atom  memcore.Atom
	Out   string
	Err   error
}

// Detail shows one atom rendered as markdown: full text, provenance,
// context, score parts and related atoms. Loading and rendering happen in
// a command; renders are cached by (content, width).
type Detail struct {
	d       Deps
	ID      string
	Atom    memcore.Atom
	width   int
	scroll  Scroller
	loading bool
	err     error
}

// NewDetail returns an empty detail view.
func NewDetail(d Deps) *Detail { return &Detail{d: d} }

// SetSize sets the view's size.
func (v *Detail) SetSize(w, h int) {
	v.width = w
	v.scroll.H = h
}

// Load starts loading an atom's detail.
func (v *Detail) Load(id string) tea.Cmd {
	if v.ID != id {
		v.scroll.Off = 0
	}
	v.ID, v.loading, v.err = id, true, nil
	return DetailCmd(v.d, id, v.width)
}

// Update takes a DetailMsg for the atom it shows.
func (v *Detail) Update(msg DetailMsg) {
	if msg.ID != v.ID {
		return
	}
	v.loading = false
	v.err = msg.Err
	if msg.Err == nil {
		v.Atom = msg.Atom
		v.scroll.SetContent(strings.Split(strings.Trim(msg.Out, "\n"), "\n"))
	}
}

// Position is where the view is scrolled ("lines 1–18 of 40 ↓"), or ""
// when everything fits.
func (v *Detail) Position() string {
	n := len(v.scroll.Lines)
	if n <= v.scroll.H || v.scroll.H <= 0 {
		return ""
	}
	v.scroll.clamp()
	end := v.scroll.Off + v.scroll.H
	if end > n {
		end = n
	}
	more := ""
	switch {
	case v.scroll.Off == 0:
		more = " ↓"
	case end == n:
		more = " ↑"
	default:
		more = " ↑↓"
	}
	return fmt.Sprintf("lines %d–%d of %d%s", v.scroll.Off+1, end, n, more)
}

// HandleNav scrolls.
func (v *Detail) HandleNav(msg tea.Msg) bool { return v.scroll.HandleNav(msg, v.d.Keys.Nav) }

// View renders the visible part.
func (v *Detail) View() string {
	s := v.d.Styles
	if v.err != nil {
		return s.StatusErr.Render("cannot show atom: " + Line(v.err.Error()))
	}
	if v.loading && len(v.scroll.Lines) == 0 {
		return s.Muted.Render("rendering…")
	}
	return strings.Join(v.scroll.View(), "\n")
}

// DetailCmd reads an atom, its links and neighbours, and renders them.
func DetailCmd(d Deps, id string, width int) tea.Cmd {
	return func() tea.Msg {
		at, q, err := d.Store.Get(d.Ctx, id)
		if err != nil {
			return DetailMsg{ID: id, Width: width, Err: err}
		}
		links, err := d.Store.Links(d.Ctx, id)
		if err != nil {
			return DetailMsg{ID: id, Width: width, Err: err}
		}
		var rel []related
		for _, l := range links {
			n, _, err := d.Store.Get(d.Ctx, l.ID)
			if err != nil {
				continue
			}
			rel = append(rel, related{Kind: l.Kind, Atom: n})
		}
		md := AtomMarkdown(at, q, rel, d.Now(), d.halfLifeFor(at))
		out, err := RenderMarkdown(d, md, width)
		return DetailMsg{ID: id, Width: width, Atom: at, Out: out, Err: err}
	}
}

type related struct {
	Kind string
	Atom memcore.Atom
}

// mdEscape makes store text safe for the terminal and inert as markdown.
func mdEscape[S ~string](str S) string {
	s := Line(str)
	var b strings.Builder
	for _, r := range s {
		if strings.ContainsRune("\\`*_{}[]()#+-.!|<>", r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// AtomMarkdown is the markdown the detail view renders.
func AtomMarkdown(at memcore.Atom, q *memcore.QuarantinedAtom, rel []related, now time.Time, halfLife float64) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# %s · %s\n\n", mdEscape(at.Type), mdEscape(at.SourceClass))
	fmt.Fprintf(&b, "%s\n\n", mdEscape(at.Text))
	if at.Quote != "" {
		// The person's words a memory LLM's wording rests on.
		fmt.Fprintf(&b, "> %s\n\n(the person's words this memory rests on)\n\n", mdEscape(Line(at.Quote)))
	}
	b.WriteString("## Provenance\n\n")
	fmt.Fprintf(&b, "- id: %s\n", mdEscape(at.ID))
	fmt.Fprintf(&b, "- source class: %s\n", mdEscape(at.SourceClass))
	fmt.Fprintf(&b, "- created: %s\n", at.CreatedAt.UTC().Format("2006-01-02 15:04 MST"))
	pin := "no"
	if at.Pin {
		pin = "yes (never evicted)"
	}
	fmt.Fprintf(&b, "- pinned: %s\n", pin)
	if q != nil {
		fmt.Fprintf(&b, "- quarantined: %s (%s)\n", q.QuarantinedAt.UTC().Format("2006-01-02 15:04"), mdEscape(q.Reason))
	}
	if o := at.Origin; o != nil {
		fmt.Fprintf(&b, "- promoted from: %s (%s), quarantined %s, promoted %s\n", mdEscape(o.SourceClass), mdEscape(o.Reason),
			o.QuarantinedAt.UTC().Format("2006-01-02 15:04"), o.PromotedAt.UTC().Format("2006-01-02 15:04"))
		for _, f := range o.Findings {
			fmt.Fprintf(&b, "- finding at promote: %s %s/%s: %s\n", mdEscape(f.Severity), mdEscape(f.Kind), mdEscape(f.Rule), mdEscape(f.Reason))
		}
		if o.HiddenRemoved {
			b.WriteString("- hidden characters were removed on promote\n")
		}
		if o.Redacted {
			b.WriteString("- secrets were redacted on promote\n")
		}
		if o.StillBlocked {
			b.WriteString("- still fails the scan: never injected into a prompt\n")
		}
		if o.Evidence != "" {
			fmt.Fprintf(&b, "- evidence (the message it came from): %s\n", mdEscape(Cut(Line(o.Evidence), 400)))
		}
	}
	b.WriteString("\n## Context\n\n")
	fmt.Fprintf(&b, "- session: %s\n", orDash(mdEscape(at.Context.SessionID)))
	fmt.Fprintf(&b, "- turn: %d\n", at.Context.Turn)
	fmt.Fprintf(&b, "- project: %s\n", orDash(mdEscape(at.Context.Project)))
	age := score.AgeDays(at.CreatedAt, now)
	decay := score.Decay(age, halfLife)
	b.WriteString("\n## Score\n\n")
	fmt.Fprintf(&b, "- confidence: %.2f\n", score.Confidence(at.Confidence))
	fmt.Fprintf(&b, "- age: %.1f days\n", age)
	switch {
	case halfLife > 0:
		fmt.Fprintf(&b, "- decay: %.3f (half-life %.0f days)\n", decay, halfLife)
	case at.Pin:
		b.WriteString("- decay: none (pinned)\n")
	default:
		b.WriteString("- decay: none (this type does not decay)\n")
	}
	fmt.Fprintf(&b, "- trust: %.0f\n", score.Trust(at.SourceClass))
	fmt.Fprintf(&b, "- retention: %.3f\n", score.Retention(at.Confidence, at.CreatedAt, now, halfLife, at.SourceClass))
	b.WriteString("\n## Related atoms\n\n")
	if len(rel) == 0 {
		b.WriteString("None.\n")
	}
	for _, r := range rel {
		fmt.Fprintf(&b, "- %s → %s: %s\n", mdEscape(orDash(r.Kind)), mdEscape(r.Atom.Type), mdEscape(TruncRunes(r.Atom.Text, 120)))
	}
	return b.String()
}

func orDash(s string) string {
	if s == "" {
		return "–"
	}
	return s
}

// TruncRunes cuts s to n runes with an ellipsis.
func TruncRunes(s string, n int) string {
	if len([]rune(s)) <= n {
		return s
	}
	return string([]rune(s)[:n-1]) + "…"
}

// RenderMarkdown renders AtomMarkdown's document with the chosen style
// (renderMarkdown), cached by (content, width).
func RenderMarkdown(d Deps, md string, width int) (string, error) {
	if width < 20 {
		width = 20
	}
	key := d.Glamour + "\x00" + md
	if out, ok := d.Cache.Get(key, width); ok {
		return out, nil
	}
	out := renderMarkdown(md, d.Glamour, width-4)
	d.Cache.Put(key, width, out)
	return out, nil
}
