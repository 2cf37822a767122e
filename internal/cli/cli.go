// Package cli is odekmem's command line: every verb of NOTES.md over the
// memcore library. Main returns the process exit status: 0 ok, 1 failure
// (a message on stderr names the problem), 2 usage error.
package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/signal"
	"sort"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/odekmem/odekmem/memcore"
	"github.com/odekmem/odekmem/memcore/scan"
)

// Env is the process around the command line, replaceable in tests.
type Env struct {
	Stdout, Stderr io.Writer
	Stdin          io.Reader
	Getenv         func(string) string
	// StdinIsTerminal says whether progress bars may be drawn.
	StderrIsTerminal bool
	// Demo is the bundled demo store (the contents of an extended/ dir).
	Demo fs.FS
	// RunTUI opens the review TUI on a store; nil means no TUI is built in.
	RunTUI func(ctx context.Context, st *memcore.Store, settings memcore.Settings, title string) error
	// RunTUIError shows a full-screen error when the TUI's store cannot be
	// opened; nil means print it like any other error.
	RunTUIError func(ctx context.Context, err error) error
	// ProjectDir is where ./odek.json is looked for ("" = working dir).
	ProjectDir string
}

// command is one verb.
type command struct {
	name    string
	args    string
	summary string
	flags   flagSpec
	run     func(c *ctx) error
	noStore bool
}

// ctx carries one invocation.
type ctx struct {
	context.Context
	env      Env
	p        *parsed
	settings memcore.Settings
	store    *memcore.Store
	json     bool
}

func (c *ctx) out(format string, a ...any) { fmt.Fprintf(c.env.Stdout, format, a...) }
func (c *ctx) warn(format string, a ...any) {
	fmt.Fprintf(c.env.Stderr, "odekmem: %s\n", safeText(fmt.Sprintf(format, a...)))
}

// safeText is what may reach a terminal or log: secrets redacted (an error
// can quote a base URL with a password, or a value from a file) and
// control characters removed.
func safeText(s string) string {
	r, _ := scan.Redact(s)
	return scan.Visible(r)
}

func (c *ctx) emitJSON(v any) error {
	enc := json.NewEncoder(c.env.Stdout)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

var commands []*command

func init() {
	commands = []*command{
		{name: "list", args: "", summary: "list live atoms (or --quarantine)", flags: flagSpec{"quarantine": false, "type": true, "source": true, "project": true, "session": true, "json": false}, run: cmdList},
		{name: "show", args: "<atom-id>", summary: "show one atom with provenance, score parts and links", flags: flagSpec{"json": false}, run: cmdShow},
		{name: "add", args: "<text>", summary: "add a user_approved atom", flags: flagSpec{"type": true, "confidence": true, "pin": false, "project": true, "session": true, "json": false}, run: cmdAdd},
		{name: "search", args: "<query>", summary: "search trusted atoms, with ids and scores", flags: flagSpec{"json": false, "explain": false, "k": true, "type": true, "source": true, "project": true}, run: cmdSearch},
		{name: "recall", args: "<message>", summary: "print the exact context the agent would get", flags: flagSpec{"json": false, "project": true, "session": true}, run: cmdRecall},
		{name: "ingest", args: "[FILE|-]", summary: "run per-turn extraction over user messages", flags: flagSpec{"session": true, "project": true, "json": false}, run: cmdIngest},
		{name: "forget", args: "<atom-id>", summary: "remove an atom from the live store or quarantine", flags: flagSpec{"json": false}, run: cmdForget},
		{name: "promote", args: "<atom-id>", summary: "move a quarantined atom to the live store as user_approved", flags: flagSpec{"json": false}, run: cmdPromote},
		{name: "pin", args: "<atom-id>", summary: "pin a live atom so it is never evicted", flags: flagSpec{"json": false}, run: func(c *ctx) error { return cmdPin(c, true) }},
		{name: "unpin", args: "<atom-id>", summary: "unpin a live atom", flags: flagSpec{"json": false}, run: func(c *ctx) error { return cmdPin(c, false) }},
		{name: "quarantine", args: "", summary: "list tainted atoms awaiting promotion", flags: flagSpec{"json": false}, run: cmdQuarantine},
		{name: "pending", args: "", summary: "list pending user-model inferences", flags: flagSpec{"json": false}, run: cmdPending},
		{name: "confirm", args: "<pending-id>", summary: "apply a pending inference to the user model", flags: flagSpec{"json": false}, run: func(c *ctx) error { return cmdReview(c, true) }},
		{name: "reject", args: "<pending-id>", summary: "drop a pending inference", flags: flagSpec{"json": false}, run: func(c *ctx) error { return cmdReview(c, false) }},
		{name: "compact", args: "", summary: "rewrite the vector cache and metadata; report bytes reclaimed", flags: flagSpec{"json": false}, run: cmdCompact},
		{name: "stats", args: "", summary: "budget by component, counts, index state", flags: flagSpec{"json": false}, run: cmdStats},
		{name: "export", args: "[FILE]", summary: "write the store as JSONL (stdout without FILE)", flags: flagSpec{}, run: cmdExport},
		{name: "import", args: "FILE", summary: "read JSONL written by export", flags: flagSpec{"json": false}, run: cmdImport},
		{name: "scan", args: "[text]", summary: "scan text (or stdin lines) and print findings", flags: flagSpec{"json": false}, run: cmdScan, noStore: true},
		{name: "eval", args: "locomo FILE", summary: "retrieval evaluation on a LoCoMo-format file", flags: flagSpec{"k": true, "json": false, "limit": true}, run: cmdEval, noStore: true},
		{name: "demo", args: "", summary: "open a fresh copy of the bundled demo store", flags: flagSpec{"print": false}, run: cmdDemo, noStore: true},
		{name: "tui", args: "", summary: "open the review TUI (the default with no verb)", flags: flagSpec{}, run: cmdTUI},
		{name: "mcp", args: "", summary: "serve the memory to an agent over MCP (stdio, or --http ADDR)", flags: flagSpec{"http": true, "allow-remote": false, "token-file": true, "project": true}, run: cmdMCP},
	}
}

func findCommand(name string) *command {
	for _, c := range commands {
		if c.name == name {
			return c
		}
	}
	return nil
}

// Main runs one command line (without the program name).
func Main(args []string, env Env) int {
	if env.Stdout == nil {
		env.Stdout = os.Stdout
	}
	if env.Stderr == nil {
		env.Stderr = os.Stderr
	}
	if env.Stdin == nil {
		env.Stdin = os.Stdin
	}
	if env.Getenv == nil {
		env.Getenv = os.Getenv
	}
	base, cancel := signal.NotifyContext(context.Background(), os.Interrupt)
	defer cancel()
	err := run(base, args, env)
	if err == nil {
		return 0
	}
	var ue usageError
	if errors.As(err, &ue) {
		fmt.Fprintf(env.Stderr, "odekmem: %s\nRun 'odekmem help' for usage.\n", safeText(ue.msg))
		return 2
	}
	fmt.Fprintf(env.Stderr, "odekmem: %s\n", safeText(err.Error()))
	return 1
}

func run(base context.Context, args []string, env Env) error {
	verb, rest := splitVerb(args)
	// "odekmem memory extended <verb>" is odek's spelling of the same verbs.
	if verb == "memory" {
		var sub string
		if sub, rest = splitVerb(rest); sub != "extended" {
			return usagef("expected memory extended <verb>")
		}
		if verb, rest = splitVerb(rest); verb == "tui" {
			return usagef("memory extended needs a verb")
		}
	}
	switch verb {
	case "help", "-h", "--help":
		printHelp(env.Stdout)
		return nil
	case "version", "--version":
		fmt.Fprintln(env.Stdout, "odekmem", Version)
		return nil
	}
	if len(args) > 0 && (args[0] == "-h" || args[0] == "--help") {
		printHelp(env.Stdout)
		return nil
	}
	cmd := findCommand(verb)
	if cmd == nil {
		return usagef("unknown command %q", verb)
	}
	p, err := parseArgs(rest, cmd.flags)
	if err != nil {
		return err
	}
	if p.bools["help"] {
		printHelp(env.Stdout)
		return nil
	}
	c := &ctx{Context: base, env: env, p: p, json: p.bools["json"]}
	c.settings, err = memcore.LoadSettings(memcore.LoadOptions{Home: p.home, Getenv: env.Getenv, Flags: p.ext, ProjectDir: env.ProjectDir})
	for _, w := range c.settings.Warnings {
		c.warn("%s", w)
	}
	if err != nil {
		return err
	}
	if !cmd.noStore {
		st, err := openStore(c, c.settings.StoreDir())
		if err != nil {
			if cmd.name == "tui" && env.RunTUIError != nil {
				env.RunTUIError(c, err)
			}
			return err
		}
		defer st.Close()
		c.store = st
	}
	return cmd.run(c)
}

// openStore opens a store with the configured embedder and LLM and reports
// any damage found on stderr.
func openStore(c *ctx, dir string) (*memcore.Store, error) { return openStoreWith(c, dir, nil) }

// DemoEpoch is the "now" the bundled demo store was generated at.
var DemoEpoch = time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)

func openStoreWith(c *ctx, dir string, now func() time.Time) (*memcore.Store, error) {
	emb, err := memcore.NewEmbedder(c.settings.EffectiveEmbedding())
	if err != nil {
		return nil, err
	}
	llmc, warning, err := memcore.NewLLM(c.settings)
	if err != nil {
		return nil, err
	}
	if warning != "" {
		c.warn("%s", warning)
	}
	cfg := c.settings.Extended
	st, err := memcore.Open(dir, memcore.Options{Config: &cfg, Embedder: emb, LLM: llmc, Now: now})
	if err != nil {
		return nil, fmt.Errorf("open store %s: %w", dir, err)
	}
	for _, p := range st.Problems() {
		c.warn("store damage: %s", scan.Visible(p.String()))
	}
	return st, nil
}

// Version is set at build time.
var Version = "dev"

func printHelp(w io.Writer) {
	fmt.Fprintln(w, "odekmem — see and curate what your coding agent remembers")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Usage:")
	fmt.Fprintln(w, "  odekmem                 open the review TUI on the configured store")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for _, c := range commands {
		if c.name == "tui" {
			continue
		}
		var fl []string
		for name, takes := range c.flags {
			if takes {
				fl = append(fl, "[--"+name+" V]")
			} else {
				fl = append(fl, "[--"+name+"]")
			}
		}
		sort.Strings(fl)
		fmt.Fprintf(tw, "  odekmem %s %s\t%s\n", c.name, strings.TrimSpace(c.args+" "+strings.Join(fl, " ")), c.summary)
	}
	tw.Flush()
	fmt.Fprintln(w, "  odekmem memory extended <verb> ...   the same verbs, odek's spelling")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Global flags: --home DIR (default $ODEK_HOME or ~/.odek), --memory-extended-<field> V for every")
	fmt.Fprintln(w, "memory.extended field (also ODEK_MEMORY_EXTENDED_<FIELD>). Exit status: 0 ok, 1 failure, 2 usage.")
}

func needArgs(c *ctx, n int, what string) error {
	if len(c.p.pos) != n {
		return usagef("expected %s", what)
	}
	return nil
}

// ---- verbs ----

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
	a, q, err := c.store.Get(c.p.pos[0])
	if err != nil {
		return err
	}
	now, cfg := c.store.Now(), c.store.Config()
	r := ShowResult{Atom: a, Retention: a.Retention(now, cfg.DecayHalfLifeDays), AgeDays: a.AgeDays(now), Decay: memcore.Decay(a.AgeDays(now), cfg.DecayHalfLifeDays), Links: c.store.Links(a.ID)}
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
	typ := c.p.flags["type"]
	if typ != "" && !memcore.ValidType(typ) {
		return usagef("unknown type %q: allowed %s", typ, strings.Join(memcore.AtomTypes, ", "))
	}
	conf, err := parseConfidence(c.p.flags["confidence"])
	if err != nil {
		return err
	}
	res, err := c.store.Add(c, memcore.AddRequest{Text: text, Type: typ, Source: memcore.SourceUserApproved, Confidence: conf, Pin: c.p.bools["pin"],
		Context: memcore.AtomContext{Project: c.p.flags["project"], SessionID: c.p.flags["session"]}})
	if err != nil {
		return err
	}
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
	a, q, err := c.store.Forget(c, c.p.pos[0])
	if err != nil {
		return err
	}
	if c.json {
		return c.emitJSON(map[string]any{"forgotten": a.ID, "was_quarantined": q != nil})
	}
	c.out("forgot %s\n", a.ID)
	return nil
}

func cmdPromote(c *ctx) error {
	if err := needArgs(c, 1, "promote <atom-id>"); err != nil {
		return err
	}
	a, err := c.store.Promote(c, c.p.pos[0])
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
	a, err := c.store.SetPin(c, c.p.pos[0], pin)
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
	var p memcore.PendingReview
	var err error
	if confirm {
		p, err = c.store.Confirm(c, c.p.pos[0])
	} else {
		p, err = c.store.Reject(c, c.p.pos[0])
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
	c.out("compacted: %d vectors, %d expired quarantine entries removed, %s reclaimed (%s → %s)\n",
		r.Vectors, r.Expired, human(r.Reclaimed), human(r.Before), human(r.After))
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
	f, err := os.OpenFile(c.p.pos[0], os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return fmt.Errorf("export: %w", err)
	}
	if err := c.store.Export(f); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return fmt.Errorf("export: %w", err)
	}
	return f.Close()
}

func cmdImport(c *ctx) error {
	if err := needArgs(c, 1, "import FILE"); err != nil {
		return err
	}
	var r io.Reader = c.env.Stdin
	if c.p.pos[0] != "-" {
		f, err := os.Open(c.p.pos[0])
		if err != nil {
			return fmt.Errorf("import: %w", err)
		}
		defer f.Close()
		r = f
	}
	res, err := c.store.Import(c, r)
	if err != nil {
		return err
	}
	if c.json {
		return c.emitJSON(res)
	}
	c.out("imported %d live, %d quarantined, %d links, %d pending; %d already present, %d refreshed an existing atom\n", res.Live, res.Quarantined, res.Links, res.Pending, res.Skipped, res.Refreshed)
	if res.Evicted > 0 {
		c.warn("evicted %d older atoms to stay under the size cap", res.Evicted)
	}
	for _, e := range res.Errors {
		c.warn("import: %s", scan.Visible(e))
	}
	if len(res.Errors) > 0 {
		return fmt.Errorf("import: %d records could not be imported", len(res.Errors))
	}
	return nil
}

func cmdTUI(c *ctx) error {
	if c.env.RunTUI == nil {
		return cmdStats(c)
	}
	return c.env.RunTUI(c, c.store, c.settings, "")
}

func jsonLine(c *ctx) *json.Encoder {
	enc := json.NewEncoder(c.env.Stdout)
	enc.SetEscapeHTML(false)
	return enc
}

// splitVerb finds the verb among global flags that may precede it
// ("odekmem --home DIR list") and returns it with the remaining arguments.
func splitVerb(args []string) (string, []string) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		if !strings.HasPrefix(a, "-") {
			rest := append(append([]string(nil), args[:i]...), args[i+1:]...)
			return a, rest
		}
		name := strings.TrimLeft(a, "-")
		if strings.Contains(name, "=") {
			continue
		}
		if name == "home" {
			i++
			continue
		}
		if key, ok := strings.CutPrefix(name, "memory-extended-"); ok && !memcore.IsBoolKey(strings.ReplaceAll(key, "-", "_")) {
			i++
		}
	}
	return "tui", args
}
