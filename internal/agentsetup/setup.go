// Package agentsetup is `odekmem setup <agent>`: it writes (or prints)
// the configuration that connects an agent to odekmem — the MCP server
// entry for every agent, and the per-turn hook entries for agents whose
// hooks can add context (Claude Code, Codex CLI, Gemini CLI). Existing
// settings are merged, never replaced: only odekmem's own entries are
// added or updated, a backup is kept, running it twice changes nothing,
// and a file that does not parse is refused with nothing written.
//
// Formats checked against (November 2026): Claude Code 2.1.x hooks and MCP
// docs (~/.claude.json / .mcp.json mcpServers; settings.json hooks);
// Codex CLI docs (config.toml [mcp_servers.<name>]; hooks.json with the
// Claude-compatible shape); Gemini CLI 0.56 docs/hooks/reference.md
// (settings.json mcpServers and hooks: BeforeAgent, SessionStart,
// AfterTool, timeouts in ms); Cursor (mcp.json mcpServers); VS Code
// (mcp.json "servers"); Zed (settings.json context_servers).
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
)

// Agents lists the supported agent names.
var Agents = []string{"claude-code", "codex", "gemini", "cursor", "vscode", "zed"}

// Options describe one setup run.
type Options struct {
	Agent string
	// Project writes the project-scoped files under ProjectDir instead of
	// the user's.
	Project    bool
	ProjectDir string
	// UserHome is the user's home directory (os.UserHomeDir by default).
	UserHome string
	// OdekHome, when set, is passed to every command as --home.
	OdekHome string
	// Exe is how to run odekmem ("odekmem" when on PATH, else a path);
	// HookExe, when set, is the odekmem-hook binary for hook commands.
	Exe, HookExe string
	// ToolResults adds the opt-in PostToolUse (AfterTool) capture.
	ToolResults bool
	// Now stamps backups.
	Now func() time.Time
}

// Change is one file setup writes.
type Change struct {
	Path string
	// What says what odekmem adds there, for the person.
	What string
	// Snippet is odekmem's part alone, as it appears in the file.
	Snippet string
	Before  []byte // nil when the file does not exist
	After   []byte
	Mode    os.FileMode
}

// Changed reports whether the file would change.
func (c Change) Changed() bool { return c.Before == nil || !bytes.Equal(c.Before, c.After) }

func quoteArg(s string) string {
	if s != "" && !strings.ContainsAny(s, " \t\"'\\$`!*?[]{}()<>|&;#~") {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
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

// isOurs recognises odekmem's hook commands (any path, any flags).
func isOurs(cmd string) bool {
	f := strings.Fields(cmd)
	for i, w := range f {
		base := filepath.Base(strings.Trim(w, `'"`))
		if base == "odekmem-hook" || base == "odekmem" && i+1 < len(f) && f[i+1] == "hook" {
			return true
		}
	}
	return false
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
	if o.Exe == "" {
		o.Exe = "odekmem"
	}
	if o.Project && o.ProjectDir == "" {
		return nil, errors.New("--project needs a project directory")
	}
	base := o.UserHome
	if o.Project {
		base = o.ProjectDir
	}
	j := func(p ...string) string { return filepath.Join(append([]string{base}, p...)...) }
	var plans []filePlan
	switch o.Agent {
	case "claude-code":
		mcpFile := filepath.Join(o.UserHome, ".claude.json")
		if o.Project {
			mcpFile = j(".mcp.json")
		}
		plans = append(plans,
			filePlan{path: mcpFile, what: "MCP server odekmem", edit: mcpEdit("mcpServers", map[string]any{"type": "stdio", "command": o.Exe, "args": o.mcpArgs(), "env": newObject()})},
			filePlan{path: j(".claude", "settings.json"), what: "hooks UserPromptSubmit, SessionStart" + toolNote(o, "PostToolUse"), edit: hooksEdit(o, "claude-code", claudeEvents(o), 15)})
	case "codex":
		plans = append(plans,
			filePlan{path: j(".codex", "config.toml"), what: "MCP server [mcp_servers.odekmem]", toml: true},
			filePlan{path: j(".codex", "hooks.json"), what: "hooks UserPromptSubmit, SessionStart" + toolNote(o, "PostToolUse"), edit: hooksEdit(o, "codex", claudeEvents(o), 15)})
	case "gemini":
		plans = append(plans, filePlan{path: j(".gemini", "settings.json"), what: "MCP server odekmem; hooks BeforeAgent, SessionStart" + toolNote(o, "AfterTool"),
			edit: both(mcpEdit("mcpServers", map[string]any{"command": o.Exe, "args": o.mcpArgs()}), hooksEdit(o, "gemini", geminiEvents(o), 15000))})
	case "cursor":
		plans = append(plans, filePlan{path: j(".cursor", "mcp.json"), what: "MCP server odekmem",
			edit: mcpEdit("mcpServers", map[string]any{"type": "stdio", "command": o.Exe, "args": o.mcpArgs()})})
	case "vscode":
		p := j(".vscode", "mcp.json")
		if !o.Project {
			p = vscodeUserMCP(o.UserHome)
		}
		plans = append(plans, filePlan{path: p, what: "MCP server odekmem", edit: mcpEdit("servers", map[string]any{"type": "stdio", "command": o.Exe, "args": o.mcpArgs()})})
	case "zed":
		p := filepath.Join(o.UserHome, ".config", "zed", "settings.json")
		if o.Project {
			p = j(".zed", "settings.json")
		}
		plans = append(plans, filePlan{path: p, what: "context server odekmem", edit: mcpEdit("context_servers", map[string]any{"command": o.Exe, "args": o.mcpArgs(), "env": newObject()})})
	default:
		return nil, fmt.Errorf("unknown agent %q: supported %s", o.Agent, strings.Join(Agents, ", "))
	}
	var out []Change
	for _, p := range plans {
		c, err := p.apply(o)
		if err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, nil
}

func toolNote(o Options, ev string) string {
	if o.ToolResults {
		return ", " + ev + " (tool results into quarantine)"
	}
	return ""
}

func vscodeUserMCP(home string) string {
	switch runtime.GOOS {
	case "darwin":
		return filepath.Join(home, "Library", "Application Support", "Code", "User", "mcp.json")
	case "windows":
		if a := os.Getenv("APPDATA"); a != "" {
			return filepath.Join(a, "Code", "User", "mcp.json")
		}
	}
	return filepath.Join(home, ".config", "Code", "User", "mcp.json")
}

// hookEvent is one event a hook entry is added for.
type hookEvent struct {
	name    string
	matcher string // "" = none
}

func claudeEvents(o Options) []hookEvent {
	ev := []hookEvent{{name: "UserPromptSubmit"}, {name: "SessionStart"}}
	if o.ToolResults {
		ev = append(ev, hookEvent{name: "PostToolUse", matcher: "*"})
	}
	return ev
}

func geminiEvents(o Options) []hookEvent {
	ev := []hookEvent{{name: "BeforeAgent"}, {name: "SessionStart"}}
	if o.ToolResults {
		ev = append(ev, hookEvent{name: "AfterTool", matcher: ".*"})
	}
	return ev
}

type filePlan struct {
	path, what string
	toml       bool
	edit       func(root *object, path string) (snippet any, err error)
}

func both(a, b func(*object, string) (any, error)) func(*object, string) (any, error) {
	return func(root *object, path string) (any, error) {
		s1, err := a(root, path)
		if err != nil {
			return nil, err
		}
		s2, err := b(root, path)
		if err != nil {
			return nil, err
		}
		m := newObject()
		for _, s := range []any{s1, s2} {
			if so, ok := s.(*object); ok {
				for _, k := range so.keys {
					m.set(k, so.vals[k])
				}
			}
		}
		return m, nil
	}
}

func toObject(m map[string]any) *object {
	o := newObject()
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	order := map[string]int{"type": 0, "command": 1, "args": 2, "env": 3}
	sort.Slice(keys, func(i, j int) bool { return order[keys[i]] < order[keys[j]] })
	for _, k := range keys {
		o.set(k, m[k])
	}
	return o
}

// mcpEdit sets <key>.odekmem to the server entry.
func mcpEdit(key string, entry map[string]any) func(*object, string) (any, error) {
	return func(root *object, path string) (any, error) {
		servers, err := root.child(key, path)
		if err != nil {
			return nil, err
		}
		e := toObject(entry)
		servers.set("odekmem", e)
		snip := newObject()
		s := newObject()
		s.set("odekmem", e)
		snip.set(key, s)
		return snip, nil
	}
}

// hooksEdit adds (or updates in place) odekmem's command hook under each
// event, Claude Code's shape: hooks.<Event>[] = {matcher?, hooks: [{type,
// command, timeout}]}.
func hooksEdit(o Options, agent string, events []hookEvent, timeout int) func(*object, string) (any, error) {
	return func(root *object, path string) (any, error) {
		hooks, err := root.child("hooks", path)
		if err != nil {
			return nil, err
		}
		cmd := o.hookCommand(agent)
		snip := newObject()
		for _, ev := range events {
			h := toObject(map[string]any{"type": "command", "command": cmd})
			h.set("timeout", timeout)
			group := newObject()
			if ev.matcher != "" {
				group.set("matcher", ev.matcher)
			}
			group.set("hooks", []any{h})
			snip.set(ev.name, []any{group})

			v, ok := hooks.get(ev.name)
			if !ok {
				hooks.set(ev.name, []any{group})
				continue
			}
			groups, isArr := v.([]any)
			if !isArr {
				return nil, fmt.Errorf("%s: hooks.%s is not an array; not touching it", path, ev.name)
			}
			found := false
			for _, g := range groups {
				gob, ok := g.(*object)
				if !ok {
					continue
				}
				hv, _ := gob.get("hooks")
				list, _ := hv.([]any)
				for i, x := range list {
					xo, ok := x.(*object)
					if !ok {
						continue
					}
					if c, _ := xo.get("command"); c != nil {
						if cs, ok := c.(string); ok && isOurs(cs) {
							if !found {
								xo.set("type", "command")
								xo.set("command", cmd)
								xo.set("timeout", timeout)
								found = true
							} else {
								list[i] = nil // a duplicate odekmem entry
							}
						}
					}
				}
				if found {
					clean := list[:0]
					for _, x := range list {
						if x != nil {
							clean = append(clean, x)
						}
					}
					gob.set("hooks", clean)
				}
			}
			if !found {
				hooks.set(ev.name, append(groups, group))
			}
		}
		w := newObject()
		w.set("hooks", snip)
		return w, nil
	}
}

func (p filePlan) apply(o Options) (Change, error) {
	c := Change{Path: p.path, What: p.what, Mode: 0o600}
	// A symlink is refused, not followed: replacing it would copy another
	// file's contents here (a cloned project's .mcp.json pointing at
	// ~/.claude.json puts the user's account file into the repository),
	// and would silently detach a dotfile manager's link.
	if li, err := os.Lstat(p.path); err == nil && li.Mode()&os.ModeSymlink != 0 {
		target, _ := os.Readlink(p.path)
		return c, fmt.Errorf("%s is a symbolic link (to %s); nothing written: edit the file it points to, or add the snippet from --print by hand", p.path, target)
	}
	fi, err := os.Stat(p.path)
	switch {
	case err == nil && !fi.Mode().IsRegular():
		return c, fmt.Errorf("%s is not a regular file; nothing written", p.path)
	case err == nil:
		b, err := os.ReadFile(p.path)
		if err != nil {
			return c, err
		}
		c.Before, c.Mode = b, fi.Mode().Perm()
	case !errors.Is(err, os.ErrNotExist):
		return c, err
	}
	if p.toml {
		after, snippet, err := mergeCodexTOML(c.Before, o.Exe, o.mcpArgs())
		if err != nil {
			return c, fmt.Errorf("%s: %w; nothing written", p.path, err)
		}
		c.After, c.Snippet = after, snippet
		return c, nil
	}
	root, err := parseJSON(c.Before)
	if err != nil {
		hint := ""
		if bytes.Contains(c.Before, []byte("//")) || bytes.Contains(c.Before, []byte("/*")) {
			hint = " (it has comments; add the snippet printed by --print by hand)"
		}
		return c, fmt.Errorf("%s is not valid JSON: %v%s; nothing written", p.path, err, hint)
	}
	snip, err := p.edit(root, filepath.Base(p.path))
	if err != nil {
		return c, fmt.Errorf("%s: %w; nothing written", p.path, err)
	}
	c.After = encodeJSON(root)
	c.Snippet = string(encodeJSON(snip))
	if c.Before != nil && bytes.Equal(bytes.TrimSpace(c.Before), bytes.TrimSpace(c.After)) {
		c.After = c.Before // only whitespace differs: leave the file alone
	}
	return c, nil
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
		if err := os.MkdirAll(filepath.Dir(c.Path), 0o700); err != nil {
			return backups, err
		}
		if c.Before != nil {
			b := c.Path + ".odekmem-backup-" + now().UTC().Format("20060102T150405")
			if err := writeAtomic(b, c.Before, c.Mode); err != nil {
				return backups, fmt.Errorf("backup %s: %w; nothing written", c.Path, err)
			}
			backups = append(backups, b)
		}
		if err := writeAtomic(c.Path, c.After, c.Mode); err != nil {
			return backups, err
		}
	}
	return backups, nil
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
