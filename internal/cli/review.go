package cli

// The review verbs: forget, promote, pin, and the quarantine and pending-review queues a person works through.

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/odekmem/odekmem/internal/humanize"
	"github.com/odekmem/odekmem/internal/scan"
	"github.com/odekmem/odekmem/internal/umfield"
	"github.com/odekmem/odekmem/memcore"
)

func cmdForget(c *ctx) error {
	id, err := atomArg(c, "forget <atom-id>")
	if err != nil {
		return err
	}
	a, q, _, err := c.store.Forget(c, id)
	if err != nil {
		return err
	}
	if c.json {
		return c.emitJSON(map[string]any{"forgotten": a.ID, "was_quarantined": q != nil})
	}
	if q != nil {
		c.out("forgot %s (was quarantined)\n", a.ID)
	} else {
		c.out("forgot %s\n", a.ID)
	}
	return nil
}

func cmdPromote(c *ctx) error {
	id, err := atomArg(c, "promote <atom-id>")
	if err != nil {
		return err
	}
	a, _, err := c.store.Promote(c, id)
	if errors.Is(err, memcore.ErrInvalidArgument) {
		if _, q, gerr := c.store.Get(c, id); gerr == nil && q == nil {
			return fmt.Errorf("%s is live already: only quarantined atoms are promoted", id)
		}
	}
	if err != nil {
		return err
	}
	if c.json {
		return c.emitJSON(a)
	}
	c.out("promoted %s (user_approved)\n", a.ID)
	if scan.Scan(a.Text).Blocked() {
		c.warn("the promoted text still fails the scan and will be dropped from recall blocks: %s", scan.Scan(a.Text).RejectReason())
	}
	return nil
}

func cmdPin(c *ctx, pin bool) error {
	id, err := atomArg(c, "pin|unpin <atom-id>")
	if err != nil {
		return err
	}
	a, _, err := c.store.SetPin(c, id, pin)
	if errors.Is(err, memcore.ErrInvalidArgument) {
		if _, q, gerr := c.store.Get(c, id); gerr == nil && q != nil {
			return fmt.Errorf("that atom (%s) is quarantined: promote it first (odekmem promote %s)", id, id[:min(len(id), 8)])
		}
	}
	if err != nil {
		return err
	}
	if c.json {
		return c.emitJSON(a)
	}
	if pin {
		c.out("pinned %s\n", a.ID)
	} else {
		c.out("unpinned %s\n", a.ID)
	}
	return nil
}

// QuarantineEntry is quarantine's --json output element.
type QuarantineEntry struct {
	memcore.QuarantinedAtom
	ExpiresAt *time.Time     `json:"expires_at,omitempty"`
	Findings  []scan.Finding `json:"findings,omitempty"`
}

func cmdQuarantine(c *ctx) error {
	qs, err := c.store.Quarantined(c)
	if err != nil {
		return err
	}
	ttl := c.store.Config().QuarantineTTLDays
	if c.json {
		out := []QuarantineEntry{}
		for _, q := range qs {
			e := QuarantineEntry{QuarantinedAtom: q, Findings: scan.Scan(q.Text).Findings}
			if exp := q.ExpiresAt(ttl); !exp.IsZero() {
				e.ExpiresAt = &exp
			}
			out = append(out, e)
		}
		return c.emitJSON(out)
	}
	now := c.store.Now()
	tw := c.table("ID\tSOURCE\tEXPIRES\tREASON\tTEXT")
	for _, q := range qs {
		exp := "never"
		if e := q.ExpiresAt(ttl); !e.IsZero() {
			if e.Before(now) {
				exp = "expired"
			} else {
				exp = "in " + humanize.Until(e.Sub(now))
			}
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", q.ID, q.SourceClass, exp, clip(q.Reason, 40), clip(q.Text, 60))
	}
	tw.Flush()
	if len(qs) == 0 {
		fmt.Fprintln(c.env.Stderr, "(quarantine is empty)")
	}
	return nil
}

// PendingEntry is pending's --json output element.
type PendingEntry struct {
	memcore.PendingReview
	Current string `json:"current"`
}

func cmdPending(c *ctx) error {
	m, err := c.store.UserModel(c)
	if err != nil {
		return err
	}
	um, err := c.store.UserModel(c)
	ps := um.Pending
	if err != nil {
		return err
	}
	if c.json {
		out := []PendingEntry{}
		for _, p := range ps {
			cur, _ := m.Get(p.Field)
			out = append(out, PendingEntry{PendingReview: p, Current: cur})
		}
		return c.emitJSON(out)
	}
	tw := c.table("ID\tFIELD\tCHANGE\tCONF\tEVIDENCE")
	for _, p := range ps {
		cur, _ := m.Get(p.Field)
		fmt.Fprintf(tw, "%s\t%s\t%s\t%.2f\t%s\n", p.ID, clip(p.Field, 40), pendingChange(p.Field, cur, p.Value), p.Confidence, clip(p.Evidence, 50))
	}
	tw.Flush()
	if len(ps) == 0 {
		fmt.Fprintln(c.env.Stderr, "(no pending reviews)")
	}
	return nil
}

// pendingChange says what confirming a review does to the field: a list
// field gains an item ("+ testcontainers-go"), a scalar is replaced
// ("terse → direct", "∅ → direct").
func pendingChange(field, cur, proposed string) string {
	if umfield.IsList(field) {
		return "+ " + clip(proposed, 40)
	}
	if cur == "" {
		cur = "∅"
	}
	return clip(cur, 30) + " → " + clip(proposed, 30)
}

func cmdReview(c *ctx, confirm bool) error {
	if err := needArgs(c, 1, "confirm|reject <pending-id>"); err != nil {
		return err
	}
	id, err := resolvePendingID(c, c.p.pos[0])
	if err != nil {
		return err
	}
	var p memcore.PendingReview
	if confirm {
		p, _, err = c.store.Confirm(c, id)
	} else {
		p, _, err = c.store.Reject(c, id)
	}
	if err != nil {
		return err
	}
	if c.json {
		return c.emitJSON(map[string]any{"pending": p, "confirmed": confirm})
	}
	if confirm {
		verb := "="
		if umfield.IsList(p.Field) {
			verb = "+="
		}
		c.out("confirmed %s: %s %s %s\n", p.ID, scan.Visible(p.Field), verb, scan.Visible(p.Value))
	} else {
		c.out("rejected %s\n", p.ID)
	}
	return nil
}

// cmdModel lists the confirmed user model, or sets or removes one field
// as the person's edit (issue 26: a confirmed value could not be changed).
func cmdModel(c *ctx) error {
	pos := c.p.pos
	switch {
	case len(pos) == 0:
		m, err := c.store.UserModel(c)
		if err != nil {
			return err
		}
		if c.json {
			out := map[string]string{}
			for _, kv := range m.Values() {
				out[kv[0]] = kv[1]
			}
			return c.emitJSON(out)
		}
		for _, kv := range m.Values() {
			c.out("%-30s %s\n", kv[0], scan.Visible(kv[1]))
		}
		if len(m.Values()) == 0 {
			fmt.Fprintln(c.env.Stderr, "(no confirmed values; inferences wait in odekmem pending)")
		}
		return nil
	case pos[0] == "set" && len(pos) == 3, pos[0] == "unset" && len(pos) == 2:
		value := ""
		if pos[0] == "set" {
			value = pos[2]
			if strings.TrimSpace(value) == "" {
				return usagef("model set needs a value; use 'odekmem model unset %s' to remove it", pos[1])
			}
		}
		field := umfield.Canonical(pos[1])
		if field == "" {
			return usagef("unknown user-model field %q: one of %s", pos[1], strings.Join(umfield.Fields, ", "))
		}
		if _, err := c.store.EditUserModel(c, field, value); err != nil {
			return err
		}
		m, err := c.store.UserModel(c)
		if err != nil {
			return err
		}
		now, _ := m.Get(field)
		if c.json {
			return c.emitJSON(map[string]string{"field": field, "value": now})
		}
		if now == "" {
			c.out("removed %s\n", field)
		} else {
			c.out("%s = %s\n", field, scan.Visible(now))
		}
		return nil
	}
	return usagef("expected nothing, 'set <field> <value>' or 'unset <field>'")
}
