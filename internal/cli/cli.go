// Package cli is odekmem's command line: every verb of NOTES.md over the
// memcore library. Main returns the process exit status (see the Exit*
// constants): 0 ok, 1 failure (a message on stderr names the problem),
// 2 usage error, 3 the verb ran but the store was damaged and pieces were
// moved aside or repaired.
//
// A verb is one *command in the table built by register; adding a verb is
// one register call with its usage, flags, help text and examples (help,
// completion and flag suggestions follow from the table).
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
	"strings"
	"time"

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
)

// Env is the process around the command line, replaceable in tests.
type Env struct {
	Stdout, Stderr io.Writer
	Stdin          io.Reader
	Getenv         func(string) string
	// StderrIsTerminal says whether progress bars may be drawn.
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

// command is one verb.
type command struct {
	name    string
	args    string // positional synopsis, e.g. "<atom-id>"
	summary string // one line for the verb list
	// flags lists the verb's own flags: name → true when it takes a value.
	// Their help text comes from flagHelp, else from the shared flagDocs.
	flags    flagSpec
	flagHelp map[string]string
	about    string   // paragraphs for `help <verb>`
	examples []string // command lines shown under Examples
	group    string   // heading in the verb list ("" = curate)
	run      func(c *ctx) error
	store    storeUse
	hidden   bool // left out of the verb list (still has help)
	// jsonOut says stdout is always JSON (export, a protocol server): it
	// gets the lossless JSON escaper instead of the text sanitiser.
	jsonOut bool
}

// ctx carries one invocation.
type ctx struct {
	context.Context
	env      Env
	cmd      *command
	p        *parsed
	settings config.Settings
	store    *memcore.Store
	json     bool
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

var commands []*command

// register adds verbs to the table. Files that add verbs call it from
// their own init; help lists verbs by group, in registration order.
func register(cs ...*command) {
	for _, c := range cs {
		if findCommand(c.name) != nil {
			panic("cli: verb registered twice: " + c.name)
		}
		commands = append(commands, c)
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
	if len(args) > 0 && args[0] == "hook" && !wantsHelp(args[1:]) {
		return hookMain(args[1:], env) // a hook never fails the turn: always 0
	}
	base, cancel := signal.NotifyContext(context.Background(), os.Interrupt)
	defer cancel()
	err := run(base, args, env)
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
	fmt.Fprintf(env.Stderr, "odekmem: %s\n", safeText(err.Error()))
	return ExitFailure
}

// damagedError ends a run whose verb succeeded on a damaged store.
type damagedError struct{ n int }

func (e damagedError) Error() string { return fmt.Sprintf("%d pieces of store damage", e.n) }

func run(base context.Context, args []string, env Env) (err error) {
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
	case "-h", "--help":
		verb, rest = "help", nil
	case "--version":
		verb = "version"
	}
	cmd := findCommand(verb)
	if cmd == nil {
		msg := fmt.Sprintf("unknown command %q", verb)
		if s := nearest(verb, verbNames()); s != "" {
			msg += fmt.Sprintf(" (did you mean %s?)", s)
		}
		return usagef("%s", msg)
	}
	spec := cmd.flags
	if cmd.store == writesStore {
		spec = withFlag(spec, "create", false)
	}
	p, err := parseArgs(rest, spec)
	if err != nil {
		return withVerb(err, cmd.name)
	}
	if p.help {
		out := newTermWriter(env.Stdout)
		defer out.Flush()
		printVerbHelp(out, cmd, termWidth(env))
		return nil
	}
	c := &ctx{Context: base, env: env, cmd: cmd, p: p, json: p.bools["json"]}
	// Everything a verb prints passes one sanitiser: JSON gets the control,
	// C1 and bidi characters inside its strings escaped; text has escape
	// sequences removed, invisible characters spelled out and secrets
	// redacted (see output.go).
	if c.json || cmd.jsonOut {
		jw := jsonsafe.NewWriter(env.Stdout)
		c.env.Stdout = jw
		defer jw.Flush()
	} else {
		tw := newTermWriter(env.Stdout)
		c.env.Stdout = tw
		defer tw.Flush()
	}
	projDir := env.ProjectDir
	if projDir == "" {
		projDir, _ = os.Getwd()
	}
	c.settings, err = config.Load(config.LoadOptions{Home: p.home, Getenv: env.Getenv, Flags: p.ext, ProjectDir: projDir})
	for _, w := range c.settings.Warnings {
		c.warn("%s", w)
	}
	if err != nil {
		return err
	}
	if cmd.store != noStore {
		dir := c.settings.StoreDir()
		if err := checkStoreExists(dir, cmd, p.bools["create"]); err != nil {
			if cmd.name == "tui" && env.RunTUIError != nil {
				env.RunTUIError(c, err)
			}
			return err
		}
		st, err := openStore(c, dir)
		if err != nil {
			if cmd.name == "tui" && env.RunTUIError != nil {
				env.RunTUIError(c, err)
			}
			return err
		}
		defer st.Close()
		c.store = st
	}
	if err := cmd.run(c); err != nil {
		c.damage()
		return withVerb(err, cmd.name)
	}
	return c.damage()
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
func checkStoreExists(dir string, cmd *command, create bool) error {
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
	if cmd.store == writesStore && create {
		return nil
	}
	if cmd.store == writesStore {
		return fmt.Errorf("no store at %s; run `odekmem init`, pass --create, or pass the right --home", dir)
	}
	return fmt.Errorf("no store at %s; run `odekmem init` or pass the right --home", dir)
}

// openStore opens a store with the configured embedder and LLM and reports
// any damage found on stderr.
func openStore(c *ctx, dir string) (*memcore.Store, error) { return openStoreWith(c, dir, nil) }

func openStoreWith(c *ctx, dir string, now func() time.Time) (*memcore.Store, error) {
	st, err := c.settings.OpenStore(dir, now, c.env.Getenv)
	if err != nil {
		return nil, fmt.Errorf("open store %s: %w", dir, err)
	}
	for _, p := range st.Problems() {
		c.warn("store damage: %s", p.String())
	}
	return st, nil
}

// Version is set at build time.
var Version = "dev"

func needArgs(c *ctx, n int, what string) error {
	if len(c.p.pos) != n {
		return usagef("expected %s", what)
	}
	return nil
}

// splitVerb finds the verb among global flags that may precede it
// ("odekmem --home DIR list") and returns it with the remaining arguments.
func splitVerb(args []string) (string, []string) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "-h" || a == "--help" || a == "--version" {
			// Before any verb: the program's own help or version.
			rest := append(append([]string(nil), args[:i]...), args[i+1:]...)
			return a, rest
		}
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
		if key, ok := strings.CutPrefix(name, "memory-extended-"); ok && !config.IsBoolKey(strings.ReplaceAll(key, "-", "_")) {
			i++
		}
	}
	return "tui", args
}

// safeText is what may reach a terminal or log: secrets redacted (an error
// can quote a base URL with a password, or a value from a file) and
// control characters removed.
func safeText(s string) string {
	r, _ := scan.Redact(s)
	return scan.Visible(r)
}
