// Package agentsetup is `odekmem setup <agent>` and the agent half of
// `odekmem doctor`: it writes (or prints, or removes) the configuration
// that connects an agent to odekmem — the MCP server entry for every
// agent, the per-turn hook entries for agents whose hooks can add context
// (Claude Code, Codex CLI, Gemini CLI), and the pre-approval of odekmem's
// tools that are safe by construction — and checks that an agent will
// actually use it. Existing settings are merged, never replaced: only
// odekmem's own entries are added, updated or removed, a backup is kept,
// running it twice changes nothing, and a file that does not parse is
// refused with nothing written.
//
// Setup cannot silently fail: commands are absolute paths (an agent started
// from another terminal, or a desktop app, has another PATH); each agent's
// home variable is honoured (CLAUDE_CONFIG_DIR, CODEX_HOME,
// GEMINI_CLI_HOME); an existing odekmem entry is replaced whole, so an env,
// cwd or extra argument that a cloned repository put there cannot change
// which store is served; a path that cannot be written safely into a hook
// command (a newline, a control character) is refused; --project never
// writes through a symbolic link; and the one step the agent still needs
// (Codex: trust the hooks) is printed.
//
// Formats checked against the agents' documentation and the released CLIs
// (December 2026): Claude Code 2.1.197 hooks, settings and MCP docs
// (~/.claude.json or $CLAUDE_CONFIG_DIR/.claude.json and .mcp.json
// mcpServers; settings.json hooks and permissions.allow, MCP tools named
// mcp__<server>__<tool>); Codex CLI 0.171 (config.toml
// [mcp_servers.<name>] with per-tool approval_mode; hooks.json in Claude
// Code's shape under $CODEX_HOME; hooks run once trusted in /hooks);
// Gemini CLI 0.61 docs/hooks/reference.md and configuration.md
// (settings.json under $GEMINI_CLI_HOME/.gemini: mcpServers, hooks
// BeforeAgent/SessionStart/AfterTool with timeouts in ms, tools.allowed
// with MCP tools named mcp_<server>_<tool>); Cursor (mcp.json mcpServers);
// VS Code (mcp.json "servers"); Zed (settings.json context_servers).
package agentsetup

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"time"
	"unicode"
)

// Agents lists the supported agent names.
var Agents = []string{"claude-code", "codex", "gemini", "cursor", "vscode", "zed"}

// HookAgents are the agents whose hooks add odekmem's context to a turn.
var HookAgents = []string{"claude-code", "codex", "gemini"}

// PreApproved are odekmem's MCP tools that setup lets the agent call
// without asking, where the agent allows that: they only read the store,
// or (remember) can only propose — what is not the person's own words
// waits in quarantine. forget is not among them: it asks.
var PreApproved = []string{"search_memories", "recall", "remember", "list_quarantine", "list_pending", "search_quarantine"}

// Options describe one setup run.
type Options struct {
	Agent string
	// Project writes the project-scoped files under ProjectDir instead of
	// the user's.
	Project    bool
	ProjectDir string
	// UserHome is the user's home directory (os.UserHomeDir by default).
	UserHome string
	// Getenv reads the agents' home variables (CLAUDE_CONFIG_DIR,
	// CODEX_HOME, GEMINI_CLI_HOME, XDG_CONFIG_HOME, APPDATA); nil reads
	// none.
	Getenv func(string) string
	// OdekHome, when set, is passed to every command as --home.
	OdekHome string
	// Exe is the absolute path of odekmem; HookExe, when set, the
	// absolute path of the odekmem-hook binary for hook commands.
	Exe, HookExe string
	// ToolResults adds the opt-in PostToolUse (AfterTool) capture; without
	// it an existing capture entry is removed.
	ToolResults bool
	// Remove takes odekmem's entries out instead of adding them.
	Remove bool
}

// Change is one file setup writes.
type Change struct {
	Path string
	// What says what odekmem adds there, for the person.
	What string
	// Snippet is odekmem's part alone, as it appears in the file.
	Snippet string
	// Notes say what the change replaces or drops that the person should
	// know about (an env of an existing entry, a command that was not
	// odekmem's own binary).
	Notes  []string
	Before []byte // nil when the file does not exist
	After  []byte // nil with Before nil: nothing to write
	Mode   os.FileMode
	// Root, when set, is the directory the file must be inside with no
	// symbolic link on the way (--project).
	Root string
}

// Changed reports whether the file would change.
func (c Change) Changed() bool {
	if c.Before == nil {
		return c.After != nil
	}
	return !bytes.Equal(c.Before, c.After)
}

func (o Options) getenv(k string) string {
	if o.Getenv == nil {
		return ""
	}
	return o.Getenv(k)
}

// envDir is a directory named by an agent's home variable, made absolute.
func (o Options) envDir(k string) string {
	d := o.getenv(k)
	if d == "" {
		return ""
	}
	if abs, err := filepath.Abs(d); err == nil {
		return abs
	}
	return d
}

// quoteArg quotes a word for the POSIX shell the agents run hook commands
// with. Callers refuse control characters first (checkPath).
func quoteArg(s string) string {
	if s != "" && !strings.ContainsAny(s, " \t\"'\\$`!*?[]{}()<>|&;#~=%") {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// checkPath refuses a path that cannot be written safely into a hook
// command or a config file: a newline in a shell command starts another
// command, and other control characters hide what runs.
func checkPath(what, p string) error {
	for _, r := range p {
		if r == '\n' || r == '\r' || unicode.IsControl(r) || r == 0x2028 || r == 0x2029 {
			return fmt.Errorf("%s %q contains a newline or a control character; it cannot be written safely into the agent's hook command: nothing written (use a path without one)", what, p)
		}
	}
	return nil
}

// mcpArgs is the argument list of the MCP server entry.
func (o Options) mcpArgs() []any {
	a := []any{"mcp"}
	if o.OdekHome != "" {
		a = append(a, "--home", o.OdekHome)
	}
	return a
}

// hookCommand is the shell command of a hook entry.
func (o Options) hookCommand(agent string) string {
	parts := []string{quoteArg(o.Exe), "hook", agent}
	if o.HookExe != "" {
		parts = []string{quoteArg(o.HookExe), agent}
	}
	if o.OdekHome != "" {
		parts = append(parts, "--home", quoteArg(o.OdekHome))
	}
	if o.ToolResults {
		parts = append(parts, "--tool-results")
	}
	return strings.Join(parts, " ")
}

// HookCommandWords splits a hook command as a POSIX shell would for the
// simple words setup writes (single or double quotes, backslashes).
func HookCommandWords(cmd string) []string {
	var out []string
	var cur strings.Builder
	in := false
	var q rune
	for i := 0; i < len(cmd); i++ {
		c := rune(cmd[i])
		switch {
		case q == '\'':
			if c == '\'' {
				q = 0
			} else {
				cur.WriteRune(c)
			}
		case q == '"':
			if c == '"' {
				q = 0
			} else if c == '\\' && i+1 < len(cmd) {
				i++
				cur.WriteByte(cmd[i])
			} else {
				cur.WriteRune(c)
			}
		case c == '\'' || c == '"':
			q, in = c, true
		case c == '\\' && i+1 < len(cmd):
			i++
			cur.WriteByte(cmd[i])
			in = true
		case c == ' ' || c == '\t':
			if in {
				out = append(out, cur.String())
				cur.Reset()
				in = false
			}
		default:
			cur.WriteByte(cmd[i])
			in = true
		}
	}
	if in {
		out = append(out, cur.String())
	}
	return out
}

// IsOurs recognises odekmem's hook commands (any path, any flags).
func IsOurs(cmd string) bool {
	f := HookCommandWords(cmd)
	for i, w := range f {
		base := strings.TrimSuffix(filepath.Base(w), ".exe")
		if base == "odekmem-hook" || base == "odekmem" && i+1 < len(f) && f[i+1] == "hook" {
			return true
		}
	}
	return false
}

// File is one configuration file of an agent and what odekmem keeps
// there.
type File struct {
	Path string
	// MCP: the file holds the MCP server entry (under MCPKey; TOML for
	// Codex's config.toml). Hooks: the file holds the hook entries.
	// Policy: the file is odekmem's own Gemini CLI policy (the tools it
	// allows without asking), written whole.
	MCP, Hooks, TOML, Policy bool
	MCPKey                   string
}

// Files are the configuration files of agent for o (user or project
// scope), with each agent's home variable honoured.
func Files(o Options) ([]File, error) {
	if o.UserHome == "" {
		h, err := os.UserHomeDir()
		if err != nil {
			return nil, err
		}
		o.UserHome = h
	}
	if o.Project && o.ProjectDir == "" {
		return nil, errors.New("--project needs a project directory")
	}
	base := o.UserHome
	if o.Project {
		base = o.ProjectDir
	}
	j := func(p ...string) string { return filepath.Join(append([]string{base}, p...)...) }
	switch o.Agent {
	case "claude-code":
		if o.Project {
			return []File{{Path: j(".mcp.json"), MCP: true, MCPKey: "mcpServers"}, {Path: j(".claude", "settings.json"), Hooks: true}}, nil
		}
		// With CLAUDE_CONFIG_DIR both the account file and the settings
		// live in that directory.
		if d := o.envDir("CLAUDE_CONFIG_DIR"); d != "" {
			return []File{{Path: filepath.Join(d, ".claude.json"), MCP: true, MCPKey: "mcpServers"}, {Path: filepath.Join(d, "settings.json"), Hooks: true}}, nil
		}
		return []File{{Path: j(".claude.json"), MCP: true, MCPKey: "mcpServers"}, {Path: j(".claude", "settings.json"), Hooks: true}}, nil
	case "codex":
		dir := j(".codex")
		if d := o.envDir("CODEX_HOME"); d != "" && !o.Project {
			dir = d
		}
		return []File{{Path: filepath.Join(dir, "config.toml"), MCP: true, TOML: true}, {Path: filepath.Join(dir, "hooks.json"), Hooks: true}}, nil
	case "gemini":
		dir := j(".gemini")
		if o.Project {
			// Gemini CLI reads no policy from a workspace: nothing is
			// pre-approved by a project.
			return []File{{Path: filepath.Join(dir, "settings.json"), MCP: true, MCPKey: "mcpServers", Hooks: true}}, nil
		}
		if d := o.envDir("GEMINI_CLI_HOME"); d != "" {
			dir = filepath.Join(d, ".gemini")
		}
		return []File{{Path: filepath.Join(dir, "settings.json"), MCP: true, MCPKey: "mcpServers", Hooks: true},
			{Path: filepath.Join(dir, "policies", "odekmem.toml"), Policy: true}}, nil
	case "cursor":
		return []File{{Path: j(".cursor", "mcp.json"), MCP: true, MCPKey: "mcpServers"}}, nil
	case "vscode":
		if o.Project {
			return []File{{Path: j(".vscode", "mcp.json"), MCP: true, MCPKey: "servers"}}, nil
		}
		return []File{{Path: vscodeUserMCP(o), MCP: true, MCPKey: "servers"}}, nil
	case "zed":
		if o.Project {
			return []File{{Path: j(".zed", "settings.json"), MCP: true, MCPKey: "context_servers"}}, nil
		}
		return []File{{Path: filepath.Join(o.configHome(), "zed", "settings.json"), MCP: true, MCPKey: "context_servers"}}, nil
	}
	return nil, fmt.Errorf("unknown agent %q: supported %s", o.Agent, strings.Join(Agents, ", "))
}

// configHome is $XDG_CONFIG_HOME or ~/.config.
func (o Options) configHome() string {
	if d := o.envDir("XDG_CONFIG_HOME"); d != "" && runtime.GOOS != "darwin" && runtime.GOOS != "windows" {
		return d
	}
	return filepath.Join(o.UserHome, ".config")
}

func vscodeUserMCP(o Options) string {
	switch runtime.GOOS {
	case "darwin":
		return filepath.Join(o.UserHome, "Library", "Application Support", "Code", "User", "mcp.json")
	case "windows":
		if a := o.getenv("APPDATA"); a != "" {
			return filepath.Join(a, "Code", "User", "mcp.json")
		}
	}
	return filepath.Join(o.configHome(), "Code", "User", "mcp.json")
}

// Plan computes the changes for o without touching anything.
func Plan(o Options) ([]Change, error) {
	if o.UserHome == "" {
		h, err := os.UserHomeDir()
		if err != nil {
			return nil, err
		}
		o.UserHome = h
	}
	if !o.Remove {
		if o.Exe == "" || !filepath.IsAbs(o.Exe) {
			return nil, fmt.Errorf("setup needs the absolute path of the odekmem binary (got %q): agents started from another terminal do not share this PATH", o.Exe)
		}
		if o.HookExe != "" && !filepath.IsAbs(o.HookExe) {
			return nil, fmt.Errorf("setup needs the absolute path of odekmem-hook (got %q)", o.HookExe)
		}
		for _, p := range [][2]string{{"the odekmem path", o.Exe}, {"the odekmem-hook path", o.HookExe}, {"--home", o.OdekHome}} {
			if err := checkPath(p[0], p[1]); err != nil {
				return nil, err
			}
		}
	}
	files, err := Files(o)
	if err != nil {
		return nil, err
	}
	var out []Change
	for _, f := range files {
		c, err := planFile(o, f)
		if err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, nil
}

func planFile(o Options, f File) (Change, error) {
	c := Change{Path: f.Path, Mode: 0o600}
	if o.Project {
		c.Root = o.ProjectDir
		if err := checkNoLinkBelow(c.Root, c.Path); err != nil {
			return c, err
		}
	}
	var whats []string
	if f.MCP {
		if o.Remove {
			whats = append(whats, "removed MCP server odekmem")
		} else {
			whats = append(whats, "MCP server odekmem")
		}
	}
	if f.Hooks {
		if o.Remove {
			whats = append(whats, "removed odekmem's hooks")
		} else {
			names := []string{}
			for _, ev := range events(o) {
				names = append(names, ev.name)
			}
			s := "hooks " + strings.Join(names, ", ")
			if o.ToolResults {
				s += " (tool results into quarantine)"
			}
			whats = append(whats, s)
		}
	}
	if f.Policy {
		whats = append(whats, "policy allowing "+strings.Join(PreApproved, ", "))
		if o.Remove {
			whats = []string{"removed odekmem's policy"}
		}
	}
	if !o.Remove && (approvesHere(o.Agent, f) || f.TOML) {
		whats = append(whats, "pre-approved tools "+strings.Join(PreApproved, ", "))
	}
	c.What = strings.Join(whats, "; ")

	// A symlink is refused, not followed: replacing it would copy another
	// file's contents here (a cloned project's .mcp.json pointing at
	// ~/.claude.json puts the user's account file into the repository),
	// and would silently detach a dotfile manager's link.
	if li, err := os.Lstat(f.Path); err == nil && li.Mode()&os.ModeSymlink != 0 {
		target, _ := os.Readlink(f.Path)
		return c, fmt.Errorf("%s is a symbolic link (to %s); nothing written: edit the file it points to, or add the snippet from --print by hand", f.Path, target)
	}
	fi, err := os.Stat(f.Path)
	switch {
	case err == nil && !fi.Mode().IsRegular():
		return c, fmt.Errorf("%s is not a regular file; nothing written", f.Path)
	case err == nil:
		b, err := os.ReadFile(f.Path)
		if err != nil {
			return c, err
		}
		c.Before, c.Mode = b, fi.Mode().Perm()
	case !errors.Is(err, os.ErrNotExist):
		return c, err
	}
	if o.Remove && c.Before == nil {
		return c, nil // nothing to remove
	}
	if f.Policy {
		if !o.Remove {
			c.After = []byte(geminiPolicy)
			c.Snippet = geminiPolicy
		}
		return c, nil // Remove: After nil deletes the file
	}
	if f.TOML {
		after, snippet, notes, err := mergeCodexTOML(c.Before, codexEntry{exe: o.Exe, args: o.mcpArgs(), tools: PreApproved, remove: o.Remove})
		if err != nil {
			return c, fmt.Errorf("%s: %w; nothing written", f.Path, err)
		}
		c.After, c.Snippet, c.Notes = after, snippet, notes
		return c, nil
	}
	root, err := parseJSON(c.Before)
	if err != nil {
		hint := ""
		if bytes.Contains(c.Before, []byte("//")) || bytes.Contains(c.Before, []byte("/*")) {
			hint = " (it has comments; add the snippet printed by --print by hand)"
		}
		return c, fmt.Errorf("%s is not valid JSON: %v%s; nothing written", f.Path, err, hint)
	}
	name := filepath.Base(f.Path)
	snip := newObject()
	var notes []string
	add := func(s *object, n []string, err error) error {
		if err != nil {
			return err
		}
		for _, k := range s.keys {
			snip.set(k, s.vals[k])
		}
		notes = append(notes, n...)
		return nil
	}
	if f.MCP {
		if err := add(mcpEdit(root, name, f.MCPKey, mcpEntry(o), o.Remove)); err != nil {
			return c, fmt.Errorf("%s: %w; nothing written", f.Path, err)
		}
	}
	if f.Hooks {
		timeout := 15
		if o.Agent == "gemini" {
			timeout = 15000 // milliseconds
		}
		if err := add(hooksEdit(root, name, o, timeout)); err != nil {
			return c, fmt.Errorf("%s: %w; nothing written", f.Path, err)
		}
	}
	if approvesHere(o.Agent, f) {
		path, names := approvalList(o.Agent)
		if err := add(listEdit(root, name, path, names, o.Remove)); err != nil {
			return c, fmt.Errorf("%s: %w; nothing written", f.Path, err)
		}
	}
	c.After = encodeJSON(root)
	c.Snippet = string(encodeJSON(snip))
	c.Notes = notes
	if c.Before != nil && bytes.Equal(bytes.TrimSpace(c.Before), bytes.TrimSpace(c.After)) {
		c.After = c.Before // only whitespace differs: leave the file alone
	}
	return c, nil
}

// approvesHere reports whether f is where the agent's tool approvals live
// in a settings file: Claude Code's settings.json (Codex keeps them in the
// server's TOML table, Gemini CLI in a policy file: its tools.allowed is
// deprecated since 0.60).
func approvesHere(agent string, f File) bool {
	return agent == "claude-code" && f.Hooks
}

// approvalList is where Claude Code lists tools it runs without asking,
// and odekmem's entries there.
func approvalList(string) ([]string, []string) {
	var names []string
	for _, t := range PreApproved {
		names = append(names, "mcp__odekmem__"+t)
	}
	return []string{"permissions", "allow"}, names
}

// geminiPolicy is odekmem's user policy for Gemini CLI's policy engine
// (docs/reference/policy-engine.md): the pre-approved tools by MCP server
// name, as the docs recommend for MCP tools. Headless `gemini -p` offers
// the model only tools it may run, so without it odekmem's tools are
// never offered there.
var geminiPolicy = `# Written by odekmem setup gemini; odekmem setup gemini --remove deletes it.
# odekmem's tools that only read the memory, and remember, which can only
# propose (what the person did not type waits in quarantine), run without
# asking. forget is not listed: it asks.
[[rule]]
mcpName = "odekmem"
toolName = ["` + strings.Join(PreApproved, `", "`) + `"]
decision = "allow"
priority = 100
`

// mcpEntry is the server entry in the agent's JSON shape.
func mcpEntry(o Options) map[string]any {
	switch o.Agent {
	case "claude-code", "cursor", "vscode":
		return map[string]any{"type": "stdio", "command": o.Exe, "args": o.mcpArgs()}
	case "zed":
		return map[string]any{"command": o.Exe, "args": o.mcpArgs(), "env": newObject()}
	}
	return map[string]any{"command": o.Exe, "args": o.mcpArgs()}
}

// checkNoLinkBelow refuses a file whose path below root passes through a
// symbolic link: a cloned repository can ship `.claude -> ~/elsewhere`,
// and --project must not write outside the project.
func checkNoLinkBelow(root, file string) error {
	rel, err := filepath.Rel(root, file)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return fmt.Errorf("%s is outside the project %s; nothing written", file, root)
	}
	parts := strings.Split(filepath.Dir(rel), string(filepath.Separator))
	d := root
	for _, p := range parts {
		if p == "." || p == "" {
			continue
		}
		d = filepath.Join(d, p)
		li, err := os.Lstat(d)
		if errors.Is(err, os.ErrNotExist) {
			return nil // created by Apply, as a directory
		}
		if err != nil {
			return err
		}
		if li.Mode()&os.ModeSymlink != 0 {
			target, _ := os.Readlink(d)
			return fmt.Errorf("%s is a symbolic link (to %s); setup --project writes only inside the project, never through a link: nothing written", d, target)
		}
		if !li.IsDir() {
			return fmt.Errorf("%s is not a directory; nothing written", d)
		}
	}
	return nil
}

// Apply writes the changes: each changed file is backed up first (next to
// it, name.odekmem-backup-<time>) and replaced atomically. It returns the
// backups made.
func Apply(changes []Change, now func() time.Time) ([]string, error) {
	if now == nil {
		now = time.Now
	}
	var backups []string
	for _, c := range changes {
		if !c.Changed() {
			continue
		}
		if c.Root != "" {
			if err := mkdirNoLink(c.Root, filepath.Dir(c.Path)); err != nil {
				return backups, err
			}
		} else if err := os.MkdirAll(filepath.Dir(c.Path), 0o700); err != nil {
			return backups, err
		}
		if c.Before != nil {
			b := c.Path + ".odekmem-backup-" + now().UTC().Format("20060102T150405")
			if err := writeAtomic(b, c.Before, c.Mode); err != nil {
				return backups, fmt.Errorf("backup %s: %w; nothing written", c.Path, err)
			}
			backups = append(backups, b)
		}
		if c.After == nil {
			if err := os.Remove(c.Path); err != nil && !errors.Is(err, os.ErrNotExist) {
				return backups, err
			}
			continue
		}
		if err := writeAtomic(c.Path, c.After, c.Mode); err != nil {
			return backups, err
		}
	}
	return backups, nil
}

// mkdirNoLink creates dir below root one directory at a time, refusing a
// symbolic link on the way (checked again at write time: the plan may be
// old).
func mkdirNoLink(root, dir string) error {
	if err := checkNoLinkBelow(root, filepath.Join(dir, "x")); err != nil {
		return err
	}
	rel, _ := filepath.Rel(root, dir)
	d := root
	for _, p := range strings.Split(rel, string(filepath.Separator)) {
		if p == "." || p == "" {
			continue
		}
		d = filepath.Join(d, p)
		if err := os.Mkdir(d, 0o700); err != nil && !errors.Is(err, os.ErrExist) {
			return err
		}
		li, err := os.Lstat(d)
		if err != nil {
			return err
		}
		if !li.IsDir() {
			return fmt.Errorf("%s is not a directory (a symbolic link?); nothing written", d)
		}
	}
	return nil
}

func writeAtomic(path string, data []byte, mode os.FileMode) error {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-")
	if err != nil {
		return err
	}
	tmp := f.Name()
	defer os.Remove(tmp)
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	if err := f.Chmod(mode); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

func toObject(m map[string]any) *object {
	o := newObject()
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	order := map[string]int{"type": 0, "command": 1, "args": 2, "env": 3, "timeout": 4}
	sort.Slice(keys, func(i, j int) bool { return order[keys[i]] < order[keys[j]] })
	for _, k := range keys {
		o.set(k, m[k])
	}
	return o
}
