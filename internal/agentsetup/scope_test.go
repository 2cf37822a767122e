package agentsetup_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/odekmem/odekmem/internal/agentsetup"
)

// Each agent's own home variable moves its files; setup writes where the
// agent looks.
func TestSetupHonoursAgentHomeVariables(t *testing.T) {
	home, cfg := t.TempDir(), t.TempDir()
	env := map[string]string{
		"CLAUDE_CONFIG_DIR": filepath.Join(cfg, "claude"),
		"CODEX_HOME":        filepath.Join(cfg, "codex"),
		"GEMINI_CLI_HOME":   filepath.Join(cfg, "gemini-home"),
		"XDG_CONFIG_HOME":   filepath.Join(cfg, "xdg"),
	}
	getenv := func(k string) string { return env[k] }
	want := map[string][]string{
		"claude-code": {filepath.Join(cfg, "claude", ".claude.json"), filepath.Join(cfg, "claude", "settings.json")},
		"codex":       {filepath.Join(cfg, "codex", "config.toml"), filepath.Join(cfg, "codex", "hooks.json")},
		"gemini":      {filepath.Join(cfg, "gemini-home", ".gemini", "settings.json"), filepath.Join(cfg, "gemini-home", ".gemini", "policies", "odekmem.toml")},
	}
	for agent, paths := range want {
		ch, _ := setup(t, agentsetup.Options{Agent: agent, UserHome: home, Exe: exe, Getenv: getenv})
		var got []string
		for _, c := range ch {
			got = append(got, c.Path)
			if _, err := os.Stat(c.Path); err != nil {
				t.Errorf("%s: %v", agent, err)
			}
		}
		if strings.Join(got, " ") != strings.Join(paths, " ") {
			t.Errorf("%s wrote %v, want %v", agent, got, paths)
		}
	}
	// Project scope ignores them: the project's own directories.
	proj := t.TempDir()
	ch, _ := setup(t, agentsetup.Options{Agent: "codex", Project: true, ProjectDir: proj, UserHome: home, Exe: exe, Getenv: getenv})
	if ch[0].Path != filepath.Join(proj, ".codex", "config.toml") {
		t.Errorf("project codex: %s", ch[0].Path)
	}
	if m, _ := filepath.Glob(filepath.Join(home, "*")); len(m) != 0 {
		t.Errorf("written under HOME although every agent's home was moved: %v", m)
	}
}

type hookFile struct {
	Hooks map[string][]struct {
		Matcher string `json:"matcher"`
		Hooks   []struct {
			Command string `json:"command"`
		} `json:"hooks"`
	} `json:"hooks"`
	Permissions struct {
		Allow []string `json:"allow"`
	} `json:"permissions"`
}

func readHooks(t *testing.T, p string) hookFile {
	t.Helper()
	var h hookFile
	if err := json.Unmarshal([]byte(read(t, p)), &h); err != nil {
		t.Fatal(err)
	}
	return h
}

// --tool-results works both ways: on adds the capture, off removes it
// (re-running setup without the flag used to leave capture on), and the
// person's own hooks on the same events stay.
func TestToolResultsToggleBothWays(t *testing.T) {
	for agent, ev := range map[string]string{"claude-code": "PostToolUse", "gemini": "AfterTool"} {
		t.Run(agent, func(t *testing.T) {
			home := t.TempDir()
			p := filepath.Join(home, ".claude", "settings.json")
			if agent == "gemini" {
				p = filepath.Join(home, ".gemini", "settings.json")
			}
			write(t, p, `{"hooks": {"`+ev+`": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "audit.sh"}]}]}}`)
			o := agentsetup.Options{Agent: agent, UserHome: home, Exe: exe, ToolResults: true}
			setup(t, o)
			h := readHooks(t, p)
			if len(h.Hooks[ev]) != 2 || !strings.Contains(h.Hooks[ev][1].Hooks[0].Command, "--tool-results") {
				t.Fatalf("on: %+v", h.Hooks[ev])
			}
			o.ToolResults = false
			setup(t, o)
			h = readHooks(t, p)
			if len(h.Hooks[ev]) != 1 || h.Hooks[ev][0].Hooks[0].Command != "audit.sh" {
				t.Fatalf("off: capture left on: %+v", h.Hooks[ev])
			}
			if strings.Contains(read(t, p), "--tool-results") {
				t.Fatalf("off: %s", read(t, p))
			}
			// And on again, then off with nothing of the person's: the
			// event goes.
			write(t, p, `{}`)
			o.ToolResults = true
			setup(t, o)
			o.ToolResults = false
			setup(t, o)
			if _, ok := readHooks(t, p).Hooks[ev]; ok {
				t.Fatalf("an empty %s left behind: %s", ev, read(t, p))
			}
		})
	}
}

// setup --remove takes out odekmem's entries only: the MCP server, the
// hooks, the pre-approvals; everything else stays.
func TestSetupRemoveTakesOnlyOdekmemOut(t *testing.T) {
	home := t.TempDir()
	write(t, filepath.Join(home, ".claude.json"), `{"numStartups": 3, "mcpServers": {"gh": {"command": "gh-mcp"}}}`)
	write(t, filepath.Join(home, ".claude", "settings.json"), `{"permissions": {"allow": ["Bash(ls:*)"]}, "hooks": {"UserPromptSubmit": [{"hooks": [{"type": "command", "command": "ctx.sh"}]}]}}`)
	write(t, filepath.Join(home, ".gemini", "settings.json"), `{"theme": "x", "tools": {"allowed": ["run_shell_command(git)"]}}`)
	write(t, filepath.Join(home, ".codex", "config.toml"), "model = \"o3\"\n")
	for _, agent := range agentsetup.HookAgents {
		setup(t, agentsetup.Options{Agent: agent, UserHome: home, Exe: exe, ToolResults: true})
	}
	for _, agent := range agentsetup.HookAgents {
		setup(t, agentsetup.Options{Agent: agent, UserHome: home, Remove: true})
	}
	if _, err := os.Stat(filepath.Join(home, ".gemini", "policies", "odekmem.toml")); err == nil {
		t.Error("the Gemini policy is left after --remove")
	}
	for _, p := range []string{".claude.json", ".claude/settings.json", ".gemini/settings.json", ".codex/config.toml", ".codex/hooks.json"} {
		s := read(t, filepath.Join(home, p))
		if strings.Contains(s, "odekmem") {
			t.Errorf("%s after --remove:\n%s", p, s)
		}
	}
	for p, keep := range map[string][]string{".claude.json": {"numStartups", "gh-mcp"}, ".claude/settings.json": {"Bash(ls:*)", "ctx.sh"},
		".gemini/settings.json": {`"theme": "x"`, "run_shell_command(git)"}, ".codex/config.toml": {`model = "o3"`}} {
		for _, k := range keep {
			if !strings.Contains(read(t, filepath.Join(home, p)), k) {
				t.Errorf("%s lost %s", p, k)
			}
		}
	}
	if got := read(t, filepath.Join(home, ".codex", "config.toml")); got != "model = \"o3\"\n" {
		t.Errorf("config.toml: %q", got)
	}
	// Removing twice changes nothing; removing from an agent never set up
	// writes nothing.
	ch, err := agentsetup.Plan(agentsetup.Options{Agent: "claude-code", UserHome: home, Remove: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range ch {
		if c.Changed() {
			t.Errorf("%s changes on a second --remove", c.Path)
		}
	}
	empty := t.TempDir()
	ch, _ = agentsetup.Plan(agentsetup.Options{Agent: "codex", UserHome: empty, Remove: true})
	for _, c := range ch {
		if c.Changed() {
			t.Errorf("--remove would create %s", c.Path)
		}
	}
}

// The tools safe by construction are pre-approved where the agent allows
// it; forget is not.
func TestSetupPreApprovesSafeToolsOnly(t *testing.T) {
	home := t.TempDir()
	write(t, filepath.Join(home, ".claude", "settings.json"), `{"permissions": {"allow": ["Bash(ls:*)"], "deny": ["WebFetch"]}}`)
	for _, agent := range agentsetup.HookAgents {
		setup(t, agentsetup.Options{Agent: agent, UserHome: home, Exe: exe})
	}
	claude := readHooks(t, filepath.Join(home, ".claude", "settings.json")).Permissions.Allow
	gemini := read(t, filepath.Join(home, ".gemini", "policies", "odekmem.toml"))
	codex := read(t, filepath.Join(home, ".codex", "config.toml"))
	if claude[0] != "Bash(ls:*)" || len(claude) != 1+len(agentsetup.PreApproved) {
		t.Errorf("claude allow: %v", claude)
	}
	for _, tool := range agentsetup.PreApproved {
		if !contains(claude, "mcp__odekmem__"+tool) || !strings.Contains(gemini, `"`+tool+`"`) || !strings.Contains(codex, "[mcp_servers.odekmem.tools."+tool+"]") {
			t.Errorf("%s not pre-approved everywhere", tool)
		}
	}
	if !strings.Contains(gemini, `mcpName = "odekmem"`) || !strings.Contains(gemini, `decision = "allow"`) {
		t.Errorf("gemini policy:\n%s", gemini)
	}
	for _, s := range [][]string{claude, {gemini}, {codex}} {
		if strings.Contains(strings.Join(s, " "), `forget"`) || strings.Contains(strings.Join(s, " "), "tools.forget") || strings.Contains(strings.Join(s, " "), "__forget") {
			t.Errorf("forget pre-approved: %v", s)
		}
	}
	if !strings.Contains(read(t, filepath.Join(home, ".claude", "settings.json")), `"deny": [`) {
		t.Error("permissions.deny lost")
	}
}

func contains(s []string, v string) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}
