package cli

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/odekmem/odekmem/internal/humanize"
	"github.com/odekmem/odekmem/internal/scan"
	"github.com/odekmem/odekmem/internal/score"
	"github.com/odekmem/odekmem/internal/vocab"
	"github.com/odekmem/odekmem/memcore"
)

// age is an age for a table ("now", "5m", "3h", "12d").
func age(d time.Duration) string { return humanize.Age(d, "now") }

func clip(s string, n int) string {
	s = strings.Join(strings.Fields(scan.Visible(s)), " ")
	r := []rune(s)
	if len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}

func cmdList(c *ctx) error {
	if len(c.p.pos) != 0 {
		return usagef("list takes no arguments")
	}
	if c.p.bools["quarantine"] {
		return cmdQuarantine(c)
	}
	f := memcore.Filter{Type: memcore.Type(c.p.flags["type"]), Source: memcore.Source(c.p.flags["source"]), Project: c.p.flags["project"], Session: c.p.flags["session"]}
	if f.Type != "" && !vocab.ValidType(f.Type) {
		return usagef("unknown type %q: allowed %s", f.Type, strings.Join(vocab.AtomTypes, ", "))
	}
	if f.Source != "" && !vocab.ValidSource(f.Source) {
		return usagef("unknown source %q: allowed %s", f.Source, strings.Join(vocab.SourceClasses, ", "))
	}
	atoms, err := c.store.List(c, f)
	if err != nil {
		return err
	}
	if c.json {
		if atoms == nil {
			atoms = []memcore.Atom{}
		}
		return c.emitJSON(atoms)
	}
	now := c.store.Now()
	tw := c.table("ID\tTYPE\tSOURCE\tCONF\tAGE\tPIN\tTEXT")
	for _, a := range atoms {
		pin := ""
		if a.Pin {
			pin = "pin"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%.2f\t%s\t%s\t%s\n", a.ID, a.Type, a.SourceClass, score.Confidence(a.Confidence), age(now.Sub(a.CreatedAt)), pin, clip(a.Text, 80))
	}
	tw.Flush()
	if len(atoms) == 0 {
		fmt.Fprintln(c.env.Stderr, "(no atoms)")
	}
	return nil
}

// ShowResult is show's --json output.
type ShowResult struct {
	Atom          memcore.Atom   `json:"atom"`
	Quarantined   bool           `json:"quarantined"`
	Reason        string         `json:"reason,omitempty"`
	QuarantinedAt *time.Time     `json:"quarantined_at,omitempty"`
	ExpiresAt     *time.Time     `json:"expires_at,omitempty"`
	Retention     float64        `json:"retention"`
	Decay         float64        `json:"decay"`
	AgeDays       float64        `json:"age_days"`
	Findings      []scan.Finding `json:"findings,omitempty"`
	Links         []memcore.Link `json:"links"`
}

// indentLines indents every line of s after the first by pad.
func indentLines(s, pad string) string {
	return strings.ReplaceAll(strings.TrimSpace(s), "\n", "\n"+pad)
}

func cmdShow(c *ctx) error {
	id, err := atomArg(c, "show <atom-id>")
	if err != nil {
		return err
	}
	a, q, err := c.store.Get(c, id)
	if err != nil {
		return err
	}
	now, cfg := c.store.Now(), c.store.Config()
	hl := cfg.HalfLifeFor(a) // per type; pinned atoms do not decay
	links, err := c.store.Links(c, a.ID)
	if err != nil {
		return err
	}
	r := ShowResult{Atom: a, Retention: score.Retention(a.Confidence, a.CreatedAt, now, hl, a.SourceClass), AgeDays: score.AgeDays(a.CreatedAt, now), Decay: score.Decay(score.AgeDays(a.CreatedAt, now), hl), Links: links}
	if r.Links == nil {
		r.Links = []memcore.Link{}
	}
	if q != nil {
		r.Quarantined, r.Reason = true, q.Reason
		qa := q.QuarantinedAt
		r.QuarantinedAt = &qa
		if exp := q.ExpiresAt(cfg.QuarantineTTLDays); !exp.IsZero() {
			r.ExpiresAt = &exp
		}
		r.Findings = scan.Scan(a.Text).Findings
	}
	if c.json {
		return c.emitJSON(r)
	}
	c.out("id:          %s\n", a.ID)
	c.out("type:        %s\n", a.Type)
	c.out("source:      %s\n", a.SourceClass)
	c.out("created:     %s (%s)\n", a.CreatedAt.Format(time.RFC3339), humanize.Age(now.Sub(a.CreatedAt), "just now")+agoSuffix(now.Sub(a.CreatedAt)))
	c.out("confidence:  %.2f\n", score.Confidence(a.Confidence))
	c.out("pinned:      %v\n", a.Pin)
	c.out("retention:   %.3f (decay %.3f, trust %.0f)\n", r.Retention, r.Decay, score.Trust(a.SourceClass))
	if ctxs := contextWords(a.Context); ctxs != "" {
		c.out("context:     %s\n", ctxs)
	}
	if o := a.Origin; o != nil {
		c.out("origin:      promoted %s from %s (%s), quarantined %s\n", o.PromotedAt.Format(time.RFC3339), scan.Visible(string(o.SourceClass)),
			scan.Visible(o.Reason), o.QuarantinedAt.Format(time.RFC3339))
		for _, f := range o.Findings {
			c.out("             finding %s %s/%s: %s\n", scan.Visible(f.Severity), scan.Visible(f.Kind), scan.Visible(f.Rule), scan.Visible(f.Reason))
		}
		for _, note := range originNotes(o) {
			c.out("             %s\n", note)
		}
		if o.Evidence != "" {
			c.out("evidence:    %s\n", indentLines(scan.Visible(o.Evidence), "             "))
		}
	}
	if a.Quote != "" {
		c.out("quote:       %s\n", indentLines(scan.Visible(a.Quote), "             "))
	}
	if q != nil {
		c.out("quarantined: %s — %s\n", q.QuarantinedAt.Format(time.RFC3339), scan.Visible(q.Reason))
		if r.ExpiresAt != nil {
			c.out("expires:     %s\n", r.ExpiresAt.Format(time.RFC3339))
		}
		for _, f := range r.Findings {
			c.out("finding:     %s %s/%s: %s %q\n", f.Severity, f.Kind, f.Rule, f.Reason, f.Match)
			if f.Hidden != "" {
				c.out("             hidden text: %q\n", f.Hidden)
			}
		}
	}
	for _, l := range r.Links {
		la, _, err := c.store.Get(c, l.ID)
		if err == nil {
			c.out("link:        %-8s %s  %s\n", l.Kind, l.ID, clip(la.Text, 60))
		}
	}
	c.out("\n%s\n", scan.Visible(a.Text))
	return nil
}

// agoSuffix is " ago" after an age of a minute or more ("5m ago"; under a
// minute it is "just now").
func agoSuffix(d time.Duration) string {
	if d < time.Minute {
		return ""
	}
	return " ago"
}

// contextWords is where an atom was said, naming only what is known:
// "session s1, turn 3, project payments-api", "project payments-api".
func contextWords(x memcore.AtomContext) string {
	var parts []string
	if x.SessionID != "" {
		parts = append(parts, fmt.Sprintf("session %s, turn %d", scan.Visible(x.SessionID), x.Turn))
	}
	if x.Project != "" {
		parts = append(parts, "project "+scan.Visible(x.Project))
	}
	return strings.Join(parts, ", ")
}

// originNotes says what promote changed, one note a line.
func originNotes(o *memcore.Origin) []string {
	var out []string
	if o.HiddenRemoved {
		out = append(out, "hidden characters were removed on promote")
	}
	if o.Redacted {
		out = append(out, "secrets were redacted on promote")
	}
	if o.StillBlocked {
		out = append(out, "the text still fails the scan: it is never injected into a prompt")
	}
	return out
}

func parseConfidence(s string) (float64, error) {
	if s == "" {
		return 0, nil
	}
	x, err := strconv.ParseFloat(s, 64)
	if err != nil || x < 0 || x > 1 {
		return 0, usagef("--confidence must be a number from 0 to 1, got %q", s)
	}
	return x, nil
}

func cmdAdd(c *ctx) error {
	text, err := textArg(c, "add", "add <text>")
	if err != nil {
		return err
	}
	typ := c.p.flags["type"]
	if typ != "" && !vocab.ValidType(typ) {
		return usagef("unknown type %q: allowed %s", typ, strings.Join(vocab.AtomTypes, ", "))
	}
	conf, err := parseConfidence(c.p.flags["confidence"])
	if err != nil {
		return err
	}
	if err := checkNoteLength(c, text); err != nil {
		return err
	}
	typeGiven, inferred := typ != "", false
	if !typeGiven {
		typ, inferred = inferType(text)
	}
	res, err := c.store.Add(c, memcore.AddRequest{Text: text, Type: memcore.Type(typ), Source: memcore.SourceUserApproved, Confidence: conf, Pin: c.p.bools["pin"],
		Context: memcore.AtomContext{Project: c.p.flags["project"], SessionID: c.p.flags["session"]}, Link: true})
	if err != nil {
		return err
	}
	checkSupersedes(c, res)
	if c.json {
		if err := c.emitJSON(res); err != nil {
			return err
		}
	} else {
		switch {
		case res.Quarantined:
			c.out("%s quarantined: %s\n", res.Atom.ID, scan.Visible(res.Reason))
		case res.Refreshed:
			c.out("%s refreshed (same as an existing atom)\n", res.Atom.ID)
		default:
			c.out("%s\n", res.Atom.ID)
		}
		if res.Redacted {
			c.warn("secrets were redacted before storing")
		}
		if len(res.Evicted) > 0 {
			c.warn("evicted %d atoms to stay under the size cap", len(res.Evicted))
		}
	}
	switch {
	case typeGiven || res.Refreshed || res.Duplicate:
	case inferred:
		c.warn("type %s, from the wording, as per-turn extraction labels it (--type chooses another)", typ)
	default:
		c.warn("type %s, the default: the wording matched no rule (--type chooses another)", typ)
	}
	if res.Quarantined {
		return blockedError{fmt.Sprintf("the note was not added to the live store: it waits in quarantine (odekmem show %s)", res.Atom.ID[:min(len(res.Atom.ID), 8)])}
	}
	return nil
}

// checkNoteLength refuses a note the store would cut: atom_max_chars
// bounds an atom's text in bytes, after secrets are redacted (as
// memcore's Add measures it). add never stores half a note.
func checkNoteLength(c *ctx, text string) error {
	limit := c.store.Config().AtomMaxChars
	n := len(scan.Scan(strings.TrimSpace(text)).Redacted)
	if limit <= 0 || n <= limit {
		return nil
	}
	return fmt.Errorf("add: the note is %d bytes; an atom holds at most %d (atom_max_chars) and add never cuts a note: split it into shorter notes, or raise the limit (--memory-extended-atom-max-chars %d, or memory.extended.atom_max_chars in config.json)", n, limit, n)
}
