package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/odekmem/odekmem/internal/agenthook"
	"github.com/odekmem/odekmem/internal/agentsetup"
	"github.com/odekmem/odekmem/internal/mcpserver"
	"github.com/odekmem/odekmem/internal/procstart"
	"github.com/odekmem/odekmem/internal/serve"
	"github.com/odekmem/odekmem/memcore"
)

// The verbs that connect odekmem to other agents (MCP server, hooks,
// setup, the long-lived serve process). The logic lives in
// internal/mcpserver, internal/agenthook and internal/agentsetup.

func (a *app) agentVerbs() []*cobra.Command {
	mcpCmd := &cobra.Command{Use: "mcp", Short: "serve the memory to an agent over MCP (stdio, or --http ADDR)", GroupID: "agent",
		Long: `Tools: search_memories, recall, remember, forget, list_quarantine, list_pending, search_quarantine.
			What the agent remembers is trusted only when it is the person's own words; anything else is
			quarantined. The server cannot promote, confirm, unpin or edit the user model.
			Over --http every client sends "Authorization: Bearer <token>", on loopback too; the
			token is --token-file, $ODEKMEM_MCP_TOKEN or the store's mcp-token (created once, 0600).`,
		Example: "odekmem mcp\nodekmem mcp --http 127.0.0.1:8765"}
	flagsOf(mcpCmd).
		value("http", "ADDR", "serve streamable HTTP on ADDR (loopback unless --allow-remote) instead of stdio; clients send a bearer token").
		bool("allow-remote", "accept non-loopback clients (needs a bearer token)").
		value("token-file", "FILE", "read the bearer token from FILE (else $ODEKMEM_MCP_TOKEN, else the store's mcp-token, created once)").
		bool("no-token", "serve loopback HTTP without a token: any local user can then read and change the memory").
		with("project", "project the session belongs to (default: the working directory's project root)")

	hook := &cobra.Command{Use: "hook claude-code", Short: "per-turn agent hook: hook JSON on stdin, context on stdout; never fails the turn", GroupID: "agent",
		Long: `Reads one Claude Code hook event as JSON on stdin. UserPromptSubmit: a prompt the person typed is
			stored as their words and the memory block comes back as additionalContext; SessionStart: the
			return-after-break note and the confirmed user model; PostToolUse (--tool-results): the result
			waits in quarantine. On any error it prints nothing, exits 0 and logs to hook.log in the store.
			It uses a running odekmem serve when there is one and starts one for the next prompt.`,
		Example: "odekmem hook claude-code < payload.json\nodekmem hook claude-code --tool-results"}
	flagsOf(hook).
		bool("tool-results", "keep tool results (PostToolUse) and non-typed prompts as quarantine candidates").
		bool("no-serve", "never start or use odekmem serve (also ODEKMEM_NO_SERVE=1)").
		value("timeout", "V", "give up quietly after this long (default 10s)")

	serveCmd := &cobra.Command{Use: "serve", Short: "keep the store open for agent hooks on a unix socket (started by the hook)", GroupID: "agent",
		Long: `Listens on serve.sock in the store directory. Hooks start it on demand; it holds no lock
			between calls, so the TUI, the CLI and odek keep writing. One per store; exits when idle.`,
		Example: "odekmem serve --idle 5m"}
	flagsOf(serveCmd).value("idle", "V", "exit after this long without a call (default 10m, or $ODEKMEM_SERVE_IDLE)")

	setup := &cobra.Command{Use: "setup <agent>", Short: "connect an agent: " + strings.Join(agentsetup.Agents, ", "), GroupID: "agent",
		Long: `Adds the odekmem MCP server to the agent's config, and the per-turn hooks where the agent's
			hooks can add context (claude-code, codex, gemini), each naming odekmem by its absolute path.
			Each agent's home variable is honoured (CLAUDE_CONFIG_DIR, CODEX_HOME, GEMINI_CLI_HOME). The
			tools that only read, and remember (which quarantines what you did not type), are pre-approved
			where the agent allows it; forget still asks.

			Existing settings are merged: only odekmem's entries change (an existing odekmem entry is
			replaced whole, never keeping its env or cwd), a backup is kept next to each file, running it
			again changes nothing, and a file that does not parse is refused with nothing written. It ends
			with the step the agent still needs (Codex: trust the hooks in /hooks); odekmem doctor checks.`,
		Example: "odekmem setup claude-code\nodekmem setup codex --print\nodekmem setup gemini --tool-results\nodekmem setup cursor --project\nodekmem setup codex --remove"}
	flagsOf(setup).
		bool("project", "write the project's config files (under the git root) instead of your user files").
		bool("print", "print what would be added, write nothing").
		bool("tool-results", "also send tool results to quarantine (PostToolUse / AfterTool hooks); without it an existing capture is removed").
		bool("remove", "take odekmem's entries out of the agent's config (backups kept)")

	return []*cobra.Command{
		a.verb(mcpCmd, verbDef{run: cmdMCP, store: writesStore, opensLater: true, jsonOut: true}),
		a.verb(hook, verbDef{run: cmdHook, store: noStore, jsonOut: true}),
		a.verb(serveCmd, verbDef{run: cmdServe, store: noStore}),
		a.verb(setup, verbDef{run: cmdSetup, store: noStore}),
		a.doctorVerb(),
	}
}

// wantsHelp reports whether a hook command line asks for help.
func wantsHelp(args []string) bool {
	for _, a := range args {
		if a == "-h" || a == "--help" || a == "help" {
			return true
		}
	}
	return false
}

func cmdMCP(c *ctx) error {
	if len(c.p.pos) > 0 {
		return usagef("mcp takes no arguments (got %q)", c.p.pos[0])
	}
	project := c.p.flags["project"]
	if project == "" {
		wd, _ := os.Getwd()
		project = agenthook.ProjectRoot(wd)
	} else {
		project = agenthook.ProjectRoot(project)
	}
	addr := c.p.flags["http"]
	if addr == "" {
		if c.p.bools["allow-remote"] || c.p.flags["token-file"] != "" || c.p.bools["no-token"] {
			return usagef("--allow-remote, --token-file and --no-token need --http ADDR")
		}
		// The store opens in the background: initialize and tools/list
		// are answered at once, a tool call waits for it. The agent that
		// started this server may say which of its sessions it serves.
		// A long-lived process: the collector comes back on once the
		// store is open (procstart.DeferGC).
		open := func() (*memcore.Store, error) {
			defer procstart.RestoreGC()
			return c.openStore()
		}
		srv := mcpserver.Start(open, mcpserver.Options{Project: project, Version: version(), Session: mcpserver.SessionFromEnv(c.env.Getenv)})
		defer srv.Close()
		return srv.RunStdio(c, c.env.Stdin, c.env.Stdout)
	}
	// Over HTTP the store opens before anything listens (clients are not
	// waiting for a process to start), and no client is linked to an
	// agent session.
	st, err := c.openStore()
	procstart.RestoreGC() // a long-lived process (procstart.DeferGC)
	if err != nil {
		return err
	}
	defer st.Close(context.Background())
	c.store = st // damage found while serving is reported at exit
	srv := mcpserver.New(st, mcpserver.Options{Project: project, Version: version()})
	defer srv.Close()
	// The bearer token: --token-file, else $ODEKMEM_MCP_TOKEN, else the
	// store's own token file (created once); --no-token opts out on
	// loopback, loudly. Never from argv.
	noToken := c.p.bools["no-token"]
	token, where := "", ""
	switch {
	case noToken && (c.p.flags["token-file"] != "" || c.env.Getenv("ODEKMEM_MCP_TOKEN") != ""):
		return usagef("--no-token with a token (--token-file or ODEKMEM_MCP_TOKEN): choose one")
	case noToken:
	case c.p.flags["token-file"] != "":
		f := c.p.flags["token-file"]
		t, err := mcpserver.ReadTokenFile(f)
		if err != nil {
			return fmt.Errorf("--token-file: %w", err)
		}
		token, where = t, f
	case strings.TrimSpace(c.env.Getenv("ODEKMEM_MCP_TOKEN")) != "":
		token, where = strings.TrimSpace(c.env.Getenv("ODEKMEM_MCP_TOKEN")), "$ODEKMEM_MCP_TOKEN"
	default:
		t, p, created, err := mcpserver.StoreToken(st.Dir())
		if err != nil {
			return fmt.Errorf("MCP bearer token: %w", err)
		}
		token, where = t, p
		if created {
			fmt.Fprintf(c.env.Stderr, "odekmem: created the MCP bearer token in %s (mode 0600)\n", p)
		}
	}
	o := mcpserver.HTTPOptions{Addr: addr, AllowRemote: c.p.bools["allow-remote"], Token: token, NoToken: noToken,
		Ready: func(a string) {
			if noToken {
				fmt.Fprintf(c.env.Stderr, "odekmem: warning: --no-token: any user of this machine can read and change your memories at http://%s/\n", a)
			}
			fmt.Fprintf(c.env.Stderr, "odekmem: MCP server listening on http://%s/\n", a)
			if where != "" {
				fmt.Fprintf(c.env.Stderr, "odekmem: clients send \"Authorization: Bearer <token>\" with the token from %s\n", where)
			}
		}}
	if err := mcpserver.CheckHTTP(o); err != nil {
		return usagef("%s", err.Error())
	}
	return srv.ServeHTTP(c, o)
}

func hookMain(args []string, env Env) int {
	return agenthook.Run(args, env.Stdin, env.Stdout, env.Stderr, env.Getenv)
}

// cmdHook is reached when global flags come before the verb
// ("odekmem --home X hook claude-code"); the usual spelling is caught by
// Main before any settings are loaded.
func cmdHook(c *ctx) error {
	args := append(append([]string(nil), c.p.pos...), "--home", c.settings.Home)
	for _, b := range []string{"tool-results", "no-serve"} {
		if c.p.bools[b] {
			args = append(args, "--"+b)
		}
	}
	if v := c.p.flags["timeout"]; v != "" {
		args = append(args, "--timeout", v)
	}
	hookMain(args, c.env)
	return nil
}

func cmdServe(c *ctx) error {
	if len(c.p.pos) > 0 {
		return usagef("serve takes no arguments")
	}
	idle := serve.DefaultIdle()
	if v := c.p.flags["idle"]; v != "" {
		d, err := time.ParseDuration(v)
		if err != nil || d <= 0 {
			return usagef("--idle %q: expected a duration such as 10m", v)
		}
		idle = d
	}
	procstart.RestoreGC() // a long-lived process (procstart.DeferGC)
	err := serve.Run(c, c.settings, serve.Options{Idle: idle})
	if errors.Is(err, serve.ErrRunning) {
		return nil
	}
	return err
}

func cmdSetup(c *ctx) error {
	if len(c.p.pos) != 1 {
		return usagef("expected setup <agent>: one of %s", strings.Join(agentsetup.Agents, ", "))
	}
	o := agentsetup.Options{Agent: c.p.pos[0], Project: c.p.bools["project"], ToolResults: c.p.bools["tool-results"],
		Remove: c.p.bools["remove"], Getenv: c.env.Getenv}
	if o.Remove && o.ToolResults {
		return usagef("--remove takes every odekmem entry out; --tool-results adds one")
	}
	if o.Project {
		wd, err := os.Getwd()
		if err != nil {
			return err
		}
		o.ProjectDir = agenthook.ProjectRoot(wd)
	}
	if c.p.home != "" || c.env.Getenv("ODEK_HOME") != "" {
		abs, err := filepath.Abs(c.settings.Home)
		if err != nil {
			return err
		}
		o.OdekHome = abs
	}
	if !o.Remove {
		var err error
		if o.Exe, o.HookExe, err = executables(c.env.Getenv); err != nil {
			return err
		}
	}
	changes, err := agentsetup.Plan(o)
	if err != nil {
		return err
	}
	if c.p.bools["print"] {
		for _, ch := range changes {
			if o.Remove {
				if ch.Changed() {
					c.out("# %s — %s\n", ch.Path, ch.What)
				}
				continue
			}
			c.out("# %s — %s\n%s\n", ch.Path, ch.What, ch.Snippet)
			for _, n := range ch.Notes {
				c.out("# note: %s\n", n)
			}
		}
		return nil
	}
	if !o.Remove {
		// The agent will start odekmem mcp on this store: make sure it exists.
		st, err := openStore(c, c.settings.StoreDir())
		if err != nil {
			return err
		}
		st.Close(context.Background())
	}
	backups, err := agentsetup.Apply(changes, nil)
	if err != nil {
		return err
	}
	for _, ch := range changes {
		switch {
		case ch.Changed():
			c.out("updated %s: %s\n", ch.Path, ch.What)
		case o.Remove:
			c.out("unchanged %s: no odekmem entry\n", ch.Path)
		default:
			c.out("unchanged %s: already configured\n", ch.Path)
		}
		for _, n := range ch.Notes {
			c.out("note     %s\n", n)
		}
	}
	for _, b := range backups {
		c.out("backup   %s\n", b)
	}
	if !o.Remove && (o.Agent == "claude-code" || o.Agent == "codex" || o.Agent == "gemini") {
		if o.HookExe != "" {
			c.out("agents run %s and hooks %s\n", o.Exe, o.HookExe)
		} else {
			c.out("agents run %s\n", o.Exe)
		}
		c.out("pre-approved (read-only, or remember, which only quarantines what you did not type): %s\n", strings.Join(agentsetup.PreApproved, ", "))
	}
	c.out("\nNext:\n")
	for _, s := range agentsetup.Steps(o, changes) {
		c.out("  - %s\n", s)
	}
	return nil
}

// executables returns the absolute paths agents should run: odekmem (as
// PATH names it when PATH finds this very binary — a stable link such as
// /usr/local/bin/odekmem survives an upgrade — else this binary's own
// path) and the odekmem-hook binary beside it, if installed. An agent
// started from another terminal or a desktop app has another PATH, so a
// bare name is never written.
func executables(getenv func(string) string) (exe, hook string, err error) {
	self, err := os.Executable()
	if err != nil {
		return "", "", fmt.Errorf("cannot find the odekmem binary to point the agent at: %w", err)
	}
	real := self
	if r, err := filepath.EvalSymlinks(self); err == nil {
		real = r
	}
	if isTempBuild(real) {
		return "", "", fmt.Errorf("odekmem runs from a temporary build (%s, as `go run` makes), which is gone when it exits: install it (make build, or go install) and run setup with the installed binary", real)
	}
	exe = real
	if p, err := exec.LookPath("odekmem"); err == nil {
		if abs, err := filepath.Abs(p); err == nil {
			if r, err := filepath.EvalSymlinks(abs); err == nil && r == real {
				exe = abs
			}
		}
	}
	for _, dir := range []string{filepath.Dir(exe), filepath.Dir(real)} {
		h := filepath.Join(dir, "odekmem-hook")
		if runtime.GOOS == "windows" {
			h += ".exe"
		}
		if fi, err := os.Stat(h); err == nil && fi.Mode().IsRegular() && (runtime.GOOS == "windows" || fi.Mode().Perm()&0o111 != 0) {
			return exe, h, nil
		}
	}
	return exe, "", nil
}

// isTempBuild reports whether a binary lives in a go build cache
// directory under the temp dir (go run, go test).
func isTempBuild(p string) bool {
	tmp := os.TempDir()
	if r, err := filepath.EvalSymlinks(tmp); err == nil {
		tmp = r
	}
	rel, err := filepath.Rel(tmp, p)
	return err == nil && !strings.HasPrefix(rel, "..") && strings.HasPrefix(rel, "go-build")
}
