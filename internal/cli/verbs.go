package cli

import (
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/odekmem/odekmem/memcore"
	"github.com/odekmem/odekmem/memcore/scan"
)

func age(d time.Duration) string {
	switch {
	case d < time.Minute:
		return "now"
	case d < time.Hour:
		return fmt.Sprintf("%dm", int(d.Minutes()))
	case d < 48*time.Hour:
		return fmt.Sprintf("%dh", int(d.Hours()))
	default:
		return fmt.Sprintf("%dd", int(d.Hours()/24))
	}
}

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
	f := memcore.Filter{Type: c.p.flags["type"], Source: c.p.flags["source"], Project: c.p.flags["project"], Session: c.p.flags["session"]}
	if f.Type != "" && !memcore.ValidType(f.Type) {
		return usagef("unknown type %q: allowed %s", f.Type, strings.Join(memcore.AtomTypes, ", "))
	}
	if f.Source != "" && !memcore.ValidSource(f.Source) {
		return usagef("unknown source %q: allowed %s", f.Source, strings.Join(memcore.SourceClasses, ", "))
	}
	atoms := c.store.List(f)
	if c.json {
		if atoms == nil {
			atoms = []memcore.Atom{}
		}
		return c.emitJSON(atoms)
	}
	now := c.store.Now()
	tw := tabwriter.NewWriter(c.env.Stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tTYPE\tSOURCE\tCONF\tAGE\tPIN\tTEXT")
	for _, a := range atoms {
		pin := ""
		if a.Pin {
			pin = "pin"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%.2f\t%s\t%s\t%s\n", a.ID, a.Type, a.SourceClass, a.EffectiveConfidence(), age(now.Sub(a.CreatedAt)), pin, clip(a.Text, 80))
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

func cmdShow(c *ctx) error {
	if err := needArgs(c, 1, "show <atom-id>"); err != nil {
		return err
	}
	id, err := resolveAtomID(c, c.p.pos[0])
	if err != nil {
		return err
	}
	a, q, err := c.store.Get(id)
	if err != nil {
		return err
	}
	now, cfg := c.store.Now(), c.store.Config()
	hl := cfg.HalfLifeFor(a) // per type; pinned atoms do not decay
	r := ShowResult{Atom: a, Retention: a.Retention(now, hl), AgeDays: a.AgeDays(now), Decay: memcore.Decay(a.AgeDays(now), hl), Links: c.store.Links(a.ID)}
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
	c.out("created:     %s (%s ago)\n", a.CreatedAt.Format(time.RFC3339), age(now.Sub(a.CreatedAt)))
	c.out("confidence:  %.2f\n", a.EffectiveConfidence())
	c.out("pinned:      %v\n", a.Pin)
	c.out("retention:   %.3f (decay %.3f, trust %.0f)\n", r.Retention, r.Decay, memcore.TrustBoost(a.SourceClass))
	if a.Context.SessionID != "" || a.Context.Project != "" {
		c.out("context:     session %s, turn %d, project %s\n", scan.Visible(a.Context.SessionID), a.Context.Turn, scan.Visible(a.Context.Project))
	}
	if o := a.Origin; o != nil {
		c.out("origin:      promoted %s from %s (%s), quarantined %s\n", o.PromotedAt.Format(time.RFC3339), scan.Visible(o.SourceClass),
			scan.Visible(o.Reason), o.QuarantinedAt.Format(time.RFC3339))
		for _, f := range o.Findings {
			c.out("             finding %s %s/%s: %s\n", scan.Visible(f.Severity), scan.Visible(f.Kind), scan.Visible(f.Rule), scan.Visible(f.Reason))
		}
		for _, note := range originNotes(o) {
			c.out("             %s\n", note)
		}
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
		la, _, err := c.store.Get(l.ID)
		if err == nil {
			c.out("link:        %-8s %s  %s\n", l.Kind, l.ID, clip(la.Text, 60))
		}
	}
	c.out("\n%s\n", scan.Visible(a.Text))
	return nil
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
	if len(c.p.pos) == 0 {
		return usagef("expected add <text>")
	}
	text := strings.Join(c.p.pos, " ")
	if err := boundText("add", text); err != nil {
		return err
	}
	typ := c.p.flags["type"]
	if typ != "" && !memcore.ValidType(typ) {
		return usagef("unknown type %q: allowed %s", typ, strings.Join(memcore.AtomTypes, ", "))
	}
	conf, err := parseConfidence(c.p.flags["confidence"])
	if err != nil {
		return err
	}
	res, err := c.store.Add(c, memcore.AddRequest{Text: text, Type: typ, Source: memcore.SourceUserApproved, Confidence: conf, Pin: c.p.bools["pin"],
		Context: memcore.AtomContext{Project: c.p.flags["project"], SessionID: c.p.flags["session"]}, Link: true})
	if err != nil {
		return err
	}
	checkSupersedes(c, res)
	if c.json {
		return c.emitJSON(res)
	}
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
	return nil
}

func cmdForget(c *ctx) error {
	if err := needArgs(c, 1, "forget <atom-id>"); err != nil {
		return err
	}
	id, err := resolveAtomID(c, c.p.pos[0])
	if err != nil {
		return err
	}
	a, q, err := c.store.Forget(c, id)
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
	if err := needArgs(c, 1, "promote <atom-id>"); err != nil {
		return err
	}
	id, err := resolveAtomID(c, c.p.pos[0])
	if err != nil {
		return err
	}
	a, err := c.store.Promote(c, id)
	if errors.Is(err, memcore.ErrNotQuarantined) {
		return fmt.Errorf("%s is live already: only quarantined atoms are promoted", id)
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
	if err := needArgs(c, 1, "pin|unpin <atom-id>"); err != nil {
		return err
	}
	id, err := resolveAtomID(c, c.p.pos[0])
	if err != nil {
		return err
	}
	a, err := c.store.SetPin(c, id, pin)
	if errors.Is(err, memcore.ErrNotLive) {
		if _, q, gerr := c.store.Get(id); gerr == nil && q != nil {
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
	qs := c.store.Quarantined()
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
	tw := tabwriter.NewWriter(c.env.Stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tSOURCE\tEXPIRES\tREASON\tTEXT")
	for _, q := range qs {
		exp := "never"
		if e := q.ExpiresAt(ttl); !e.IsZero() {
			if e.Before(now) {
				exp = "expired"
			} else {
				exp = "in " + age(e.Sub(now))
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
	m := c.store.UserModel()
	ps := c.store.Pending()
	if c.json {
		out := []PendingEntry{}
		for _, p := range ps {
			cur, _ := m.Get(p.Field)
			out = append(out, PendingEntry{PendingReview: p, Current: cur})
		}
		return c.emitJSON(out)
	}
	tw := tabwriter.NewWriter(c.env.Stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tFIELD\tCURRENT → PROPOSED\tCONF\tEVIDENCE")
	for _, p := range ps {
		cur, _ := m.Get(p.Field)
		if cur == "" {
			cur = "∅"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s → %s\t%.2f\t%s\n", p.ID, clip(p.Field, 40), clip(cur, 30), clip(p.Value, 30), p.Confidence, clip(p.Evidence, 50))
	}
	tw.Flush()
	if len(ps) == 0 {
		fmt.Fprintln(c.env.Stderr, "(no pending reviews)")
	}
	return nil
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
		p, err = c.store.Confirm(c, id)
	} else {
		p, err = c.store.Reject(c, id)
	}
	if err != nil {
		return err
	}
	if c.json {
		return c.emitJSON(map[string]any{"pending": p, "confirmed": confirm})
	}
	if confirm {
		c.out("confirmed %s: %s = %s\n", p.ID, scan.Visible(p.Field), scan.Visible(p.Value))
	} else {
		c.out("rejected %s\n", p.ID)
	}
	return nil
}

func cmdCompact(c *ctx) error {
	r, err := c.store.Compact(c)
	if err != nil {
		return err
	}
	if c.json {
		return c.emitJSON(r)
	}
	c.out("compacted: %s\n", r) // in words: "grew by 188.0 KiB: the vector cache was rebuilt (…)"
	return nil
}

func human(n int64) string {
	neg := ""
	if n < 0 {
		neg, n = "-", -n
	}
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%s%.1f MiB", neg, float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%s%.1f KiB", neg, float64(n)/(1<<10))
	}
	return fmt.Sprintf("%s%d B", neg, n)
}

func cmdStats(c *ctx) error {
	st := c.store.Stats()
	if c.json {
		return c.emitJSON(st)
	}
	c.out("store:      %s\n", st.Dir)
	capS := "no cap"
	if st.CapBytes > 0 {
		capS = fmt.Sprintf("%s (%.1f%%)", human(st.CapBytes), 100*float64(st.TotalBytes)/float64(st.CapBytes))
	}
	c.out("size:       %s of %s\n", human(st.TotalBytes), capS)
	for _, k := range sortedKeys(st.Components) {
		c.out("  %-13s %s\n", k, human(st.Components[k]))
	}
	c.out("atoms:      %d live (%d pinned), %d quarantined, %d pending reviews, %d links\n", st.Live, st.Pinned, st.Quarantine, st.Pending, st.Links)
	for _, g := range []struct {
		name string
		m    map[string]int
	}{{"by type", st.ByType}, {"by source", st.BySource}, {"by reason", st.ByReason}, {"by project", st.ByProject}} {
		if len(g.m) == 0 {
			continue
		}
		var parts []string
		for _, k := range sortedKeys(g.m) {
			parts = append(parts, fmt.Sprintf("%s %d", scan.Visible(k), g.m[k]))
		}
		c.out("%-11s %s\n", g.name+":", strings.Join(parts, ", "))
	}
	ix := st.Index
	c.out("index:      %s, %s, %d vectors of %d dims, %d changes not yet in the cache", ix.Kind, ix.Fingerprint, ix.Vectors, ix.Dims, ix.Stale)
	if ix.Rebuilding {
		c.out(", rebuilding %d/%d", ix.Done, ix.Total)
	}
	c.out("\n")
	if g := st.Guard; g != nil {
		c.out("guard:      %d checks, %d blocked, %d cache hits, %d outages (fell back to the local scanner)", g.Checks, g.Blocks, g.CacheHits, g.Outages)
		if g.LastError != "" {
			c.out("; last outage %s: %s", g.LastAt, scan.Visible(g.LastError))
		}
		c.out("\n")
	}
	return nil
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func cmdExport(c *ctx) error {
	if len(c.p.pos) > 1 {
		return usagef("expected export [FILE]")
	}
	if len(c.p.pos) == 0 || c.p.pos[0] == "-" {
		return c.store.Export(c.env.Stdout)
	}
	// Never through a link or into a prepared file (memcore.WriteNewFile);
	// the file gets the same escaping as stdout: `cat` of it is safe.
	return memcore.WriteNewFile(c.p.pos[0], func(w io.Writer) error {
		jw := newJSONWriter(w)
		if err := c.store.Export(jw); err != nil {
			return err
		}
		if err := jw.Flush(); err != nil {
			return fmt.Errorf("export: %w", err)
		}
		return nil
	})
}

func cmdTUI(c *ctx) error {
	if c.env.RunTUI == nil {
		return cmdStats(c)
	}
	return c.env.RunTUI(c, c.store, c.settings, "")
}

func cmdInit(c *ctx) error {
	if len(c.p.pos) != 0 {
		return usagef("init takes no arguments")
	}
	dir := c.settings.StoreDir()
	_, statErr := os.Lstat(dir)
	existed := statErr == nil
	st, err := openStore(c, dir)
	if err != nil {
		return err
	}
	// run reports damage found at open (exit status 3) after this returns.
	c.store = st
	defer st.Close()
	if c.json {
		return c.emitJSON(map[string]any{"store": dir, "created": !existed})
	}
	if existed {
		c.out("store %s exists already (%d live atoms); nothing changed\n", dir, st.Len())
	} else {
		c.out("created store %s\n", dir)
	}
	return nil
}

// boundText refuses input over maxMessage with an error naming the bound.
func boundText(verb, text string) error {
	if len(text) > maxMessage {
		return fmt.Errorf("%s: the text is %d bytes; at most %d are accepted", verb, len(text), maxMessage)
	}
	return nil
}
