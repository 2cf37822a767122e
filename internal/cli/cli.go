// Package cli is odekmem's command line: every verb of the README over the
// memcore library, on spf13/cobra. Main returns the process exit status
// (see the Exit* constants): 0 ok, 1 failure (a message on stderr names the
// problem), 2 usage error, 3 the verb ran but the store was damaged and
// pieces were moved aside or repaired, 4 the scanner blocked the text.
//
// A verb is one cobra.Command declared in table.go (or beside the verbs of its
// kind, as agents.go and contradictions.go do) and wrapped by app.verb,
// which loads the configuration, opens the store the verb needs and turns
// what the verb returns into an exit status. Help, suggestions and shell
// completion follow from the command tree.
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
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/odekmem/odekmem/internal/config"
	"github.com/odekmem/odekmem/internal/jsonsafe"
	"github.com/odekmem/odekmem/internal/scan"
	"github.com/odekmem/odekmem/memcore"
)

// Exit statuses.
const (
	ExitOK      = 0
	ExitFailure = 1
	ExitUsage   = 2
	// ExitDamaged means the verb did its work, but opening the store found
	// damage that was moved aside into corrupt/ (or repaired); stderr (or,
	// with --json, a {"store_damage":[…]} object on stderr) names each piece.
	ExitDamaged = 3
	// ExitBlocked means the verb did its work, but the scanner blocked the
	// text: add stored the note in quarantine (scan_rejected) instead of
	// the live store, scan found a blocking finding. Damage (3) wins when
	// both apply.
	ExitBlocked = 4
)

// Env is the process around the command line, replaceable in tests.
type Env struct {
	Stdout, Stderr io.Writer
	Stdin          io.Reader
	Getenv         func(string) string
	// StderrIsTerminal says whether progress may be redrawn in place;
	// elsewhere progress is written as whole lines.
	StderrIsTerminal bool
	// Width is the terminal width help text is wrapped to; 0 means
	// $COLUMNS, else 80.
	Width int
	// Demo is the bundled demo store (the contents of an extended/ dir).
	Demo fs.FS
	// AgedFixture is the bundled fixture of `eval aged` (testdata/aged/aged.json).
	AgedFixture []byte
	// RunTUI opens the review TUI on a store; nil means no TUI is built in.
	RunTUI func(ctx context.Context, st *memcore.Store, settings config.Settings, title string) error
	// RunTUIError shows a full-screen error when the TUI's store cannot be
	// opened; nil means print it like any other error.
	RunTUIError func(ctx context.Context, err error) error
	// ProjectDir is where odek.json is looked for ("" = the working
	// directory, as odek itself does).
	ProjectDir string
}

// storeUse says what a verb needs from the store.
type storeUse int

const (
	// readsStore: the store must exist (a mistyped --home is an error).
	readsStore storeUse = iota
	// writesStore: the store must exist, or --create makes it.
	writesStore
	// noStore: the verb opens no store (or opens its own).
	noStore
)

// ctx carries one invocation of a verb.
type ctx struct {
	context.Context
	env      Env
	cmd      *cobra.Command
	p        *parsed
	settings config.Settings
	store    *memcore.Store
	json     bool
	// openStore opens the checked store, for a verb that opensLater.
	openStore func() (*memcore.Store, error)
}

func (c *ctx) out(format string, a ...any) { fmt.Fprintf(c.env.Stdout, format, a...) }
func (c *ctx) warn(format string, a ...any) {
	fmt.Fprintf(c.env.Stderr, "odekmem: %s\n", safeText(fmt.Sprintf(format, a...)))
}

func (c *ctx) emitJSON(v any) error {
	enc := json.NewEncoder(c.env.Stdout)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

func jsonLine(c *ctx) *json.Encoder {
	enc := json.NewEncoder(c.env.Stdout)
	enc.SetEscapeHTML(false)
	return enc
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
	if len(args) > 0 && args[0] == "hook" && !wantsHelp(args[1:]) {
		return hookMain(args[1:], env) // a hook never fails the turn: always 0
	}
	// ctrl-c, a kill and a closed terminal (SIGHUP) all end the run the
	// same way: the TUI restores the terminal, writes finish or roll back,
	// the store closes.
	base, cancel := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	defer cancel()
	err := execute(base, args, env)
	if err == nil {
		return ExitOK
	}
	var ue usageError
	if errors.As(err, &ue) {
		hint := "Run 'odekmem help' for usage."
		if ue.verb != "" {
			hint = fmt.Sprintf("Run 'odekmem %s --help' for usage.", ue.verb)
		}
		fmt.Fprintf(env.Stderr, "odekmem: %s\n%s\n", safeText(ue.msg), hint)
		return ExitUsage
	}
	var de damagedError
	if errors.As(err, &de) {
		return ExitDamaged
	}
	if errors.As(err, &quietError{}) {
		return ExitFailure // the verb's own output said what failed
	}
	var be blockedError
	if errors.As(err, &be) {
		fmt.Fprintf(env.Stderr, "odekmem: %s (exit status %d)\n", safeText(be.msg), ExitBlocked)
		return ExitBlocked
	}
	fmt.Fprintf(env.Stderr, "odekmem: %s\n", safeText(err.Error()))
	return ExitFailure
}

// damagedError ends a run whose verb succeeded on a damaged store.
type damagedError struct{ n int }

func (e damagedError) Error() string { return fmt.Sprintf("%d pieces of store damage", e.n) }

// blockedError ends a run whose verb did its work on text the scanner
// blocks (ExitBlocked); msg says what happened to it.
type blockedError struct{ msg string }

func (e blockedError) Error() string { return e.msg }

// verbDef is what app.verb needs to run a verb body.
type verbDef struct {
	run   func(*ctx) error
	store storeUse
	// jsonOut says stdout is always JSON (export, a protocol server): it
	// gets the lossless JSON escaper instead of the text sanitiser.
	jsonOut bool
	// opensLater: the store is checked as store says, but the verb opens
	// it itself, through ctx.openStore, when it needs it (mcp opens it in
	// the background so that it answers its client at once).
	opensLater bool
}

// runVerb is one verb's invocation after cobra parsed its flags: the
// output sanitiser, the configuration layers, the store the verb needs,
// the verb, and the damage report.
func (a *app) runVerb(cmd *cobra.Command, args []string, v verbDef) error {
	env := a.env
	c := &ctx{Context: cmd.Context(), env: env, cmd: cmd, p: parsedFrom(cmd, args)}
	c.json = c.p.bools["json"]
	// Everything a verb prints passes one sanitiser: JSON gets the control,
	// C1 and bidi characters inside its strings escaped; text has escape
	// sequences removed, invisible characters spelled out and secrets
	// redacted (see output.go).
	if c.json || v.jsonOut {
		jw := jsonsafe.NewWriter(env.Stdout)
		c.env.Stdout = jw
		defer jw.Flush()
	} else {
		tw := newTermWriter(env.Stdout)
		c.env.Stdout = tw
		defer tw.Flush()
	}
	var err error
	c.settings, err = a.loadSettings(c.p)
	for _, w := range c.settings.Warnings {
		c.warn("%s", w)
	}
	if err != nil {
		return err
	}
	if v.store != noStore {
		dir := c.settings.StoreDir()
		if err := checkStoreExists(dir, v.store, c.p.bools["create"]); err != nil {
			if (cmd.Name() == "tui" || !cmd.HasParent()) && env.RunTUIError != nil {
				env.RunTUIError(c, err)
			}
			return err
		}
		if v.opensLater {
			c.openStore = func() (*memcore.Store, error) { return openStore(c, dir) }
		} else {
			st, err := openStore(c, dir)
			if err != nil {
				if (cmd.Name() == "tui" || !cmd.HasParent()) && env.RunTUIError != nil {
					env.RunTUIError(c, err)
				}
				return err
			}
			defer st.Close(context.Background())
			c.store = st
		}
	}
	if err := v.run(c); err != nil {
		damage := c.damage()
		if errors.As(err, &blockedError{}) && damage != nil {
			return damage
		}
		return withVerb(err, cmd.Name())
	}
	return c.damage()
}

// loadSettings layers the configuration for one invocation.
func (a *app) loadSettings(p *parsed) (config.Settings, error) {
	projDir := a.env.ProjectDir
	if projDir == "" {
		projDir, _ = os.Getwd()
	}
	return config.Load(config.LoadOptions{Home: p.home, Getenv: a.env.Getenv, Flags: p.ext, ProjectDir: projDir})
}

// damage reports the problems the store found since it was opened (the
// ones found at open were printed already) and turns them into ExitDamaged.
func (c *ctx) damage() error {
	if c.store == nil {
		return nil
	}
	probs := c.store.Problems()
	if len(probs) == 0 {
		return nil
	}
	if c.json {
		enc := json.NewEncoder(jsonsafe.NewWriter(c.env.Stderr))
		enc.SetEscapeHTML(false)
		enc.Encode(map[string]any{"store_damage": probs})
	}
	fmt.Fprintf(c.env.Stderr, "odekmem: the store was damaged: %d problem(s) above were moved aside or repaired (exit status %d)\n", len(probs), ExitDamaged)
	return damagedError{len(probs)}
}

// checkStoreExists refuses to conjure a store out of a mistyped --home:
// only `init` and a writing verb with --create may create one.
func checkStoreExists(dir string, use storeUse, create bool) error {
	fi, err := os.Lstat(dir)
	if err == nil && fi.IsDir() {
		return nil
	}
	if err == nil {
		return fmt.Errorf("%s is not a directory; pass the right --home", dir)
	}
	if !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("store %s: %w", dir, err)
	}
	if use == writesStore && create {
		return nil
	}
	if use == writesStore {
		return fmt.Errorf("no store at %s; run `odekmem init`, pass --create, or pass the right --home", dir)
	}
	return fmt.Errorf("no store at %s; run `odekmem init` or pass the right --home", dir)
}

// openStore opens a store with the configured embedder and LLM and reports
// any damage found on stderr.
func openStore(c *ctx, dir string) (*memcore.Store, error) { return openStoreWith(c, dir, nil) }

func openStoreWith(c *ctx, dir string, now func() time.Time) (*memcore.Store, error) {
	st, err := c.settings.OpenStore(c, dir, now, c.env.Getenv)
	if err != nil {
		return nil, fmt.Errorf("open store %s: %w", dir, err)
	}
	for _, p := range st.Problems() {
		c.warn("store damage: %s", p.String())
	}
	return st, nil
}

func needArgs(c *ctx, n int, what string) error {
	if len(c.p.pos) != n {
		return usagef("expected %s", what)
	}
	return nil
}

// safeText is what may reach a terminal or log: secrets redacted (an error
// can quote a base URL with a password, or a value from a file) and
// control characters removed.
func safeText(s string) string {
	r, _ := scan.Redact(s)
	return scan.Visible(r)
}
