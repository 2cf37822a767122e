package agentsetup_test

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/odekmem/odekmem/internal/agentsetup"
	"github.com/odekmem/odekmem/internal/testkit"
)

var bin, hookBin string

func TestMain(m *testing.M) {
	testkit.RunWithBinaries(m, map[*string]string{&bin: testkit.Odekmem, &hookBin: testkit.Hook})
}

// exe is where the tests pretend odekmem is installed.
const exe = "/opt/odekmem/bin/odekmem"

func write(t *testing.T, p, s string) {
	t.Helper()
	os.MkdirAll(filepath.Dir(p), 0o700)
	if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}

func read(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func setup(t *testing.T, o agentsetup.Options) ([]agentsetup.Change, []string) {
	t.Helper()
	ch, err := agentsetup.Plan(o)
	if err != nil {
		t.Fatal(err)
	}
	b, err := agentsetup.Apply(ch, nil)
	if err != nil {
		t.Fatal(err)
	}
	return ch, b
}

func backupsOf(t *testing.T, p string) []string {
	m, _ := filepath.Glob(p + ".odekmem-backup-*")
	return m
}

func TestClaudeCodeMergeIdempotentBackedUp(t *testing.T) {
	home := t.TempDir()
	claudeJSON := filepath.Join(home, ".claude.json")
	settings := filepath.Join(home, ".claude", "settings.json")
	origClaude := `{
  "numStartups": 42,
  "mcpServers": {
    "github": {"type": "stdio", "command": "gh-mcp", "args": ["--x"], "env": {"TOKEN": "abc"}}
  },
  "projects": {"/p": {"allowedTools": []}},
  "tipsHistory": {"a": 1.50}
}`
	origSettings := `{
  "model": "opus",
  "permissions": {"allow": ["Bash(ls:*)"]},
  "hooks": {
    "UserPromptSubmit": [{"hooks": [{"type": "command", "command": "python3 ~/bin/ctx.py", "timeout": 5}]}],
    "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "guard.sh"}]}]
  }
}`
	write(t, claudeJSON, origClaude)
	write(t, settings, origSettings)
	o := agentsetup.Options{Agent: "claude-code", UserHome: home, Exe: exe}
	_, backups := setup(t, o)
	if len(backups) != 2 {
		t.Fatalf("backups %v, want one per existing file", backups)
	}
	if read(t, backups[0]) != origClaude && read(t, backups[1]) != origClaude {
		t.Error("backup does not hold the original ~/.claude.json")
	}

	var cj map[string]any
	if err := json.Unmarshal([]byte(read(t, claudeJSON)), &cj); err != nil {
		t.Fatal(err)
	}
	servers := cj["mcpServers"].(map[string]any)
	if servers["github"] == nil || cj["numStartups"] == nil || cj["projects"] == nil {
		t.Fatalf("existing settings lost: %v", cj)
	}
	od := servers["odekmem"].(map[string]any)
	if od["command"] != exe || od["args"].([]any)[0] != "mcp" || od["type"] != "stdio" {
		t.Errorf("odekmem entry %v", od)
	}
	if !strings.Contains(read(t, claudeJSON), `"tipsHistory": {`) || !strings.Contains(read(t, claudeJSON), "1.50") {
		t.Error("numbers or keys rewritten")
	}
	// Key order kept: numStartups still first.
	if strings.Index(read(t, claudeJSON), "numStartups") > strings.Index(read(t, claudeJSON), "mcpServers") {
		t.Error("key order changed")
	}

	var st struct {
		Model string         `json:"model"`
		Perm  map[string]any `json:"permissions"`
		Hooks map[string][]struct {
			Matcher string `json:"matcher"`
			Hooks   []struct {
				Command string `json:"command"`
				Timeout int    `json:"timeout"`
			} `json:"hooks"`
		} `json:"hooks"`
	}
	if err := json.Unmarshal([]byte(read(t, settings)), &st); err != nil {
		t.Fatal(err)
	}
	if st.Model != "opus" || st.Perm == nil || len(st.Hooks["PreToolUse"]) != 1 {
		t.Fatalf("existing settings lost: %+v", st)
	}
	ups := st.Hooks["UserPromptSubmit"]
	if len(ups) != 2 || ups[0].Hooks[0].Command != "python3 ~/bin/ctx.py" || ups[1].Hooks[0].Command != exe+" hook claude-code" {
		t.Fatalf("UserPromptSubmit hooks: %+v", ups)
	}
	if ss := st.Hooks["SessionStart"]; len(ss) != 1 || ss[0].Hooks[0].Command != exe+" hook claude-code" {
		t.Fatalf("SessionStart hooks: %+v", ss)
	}
	if _, ok := st.Hooks["PostToolUse"]; ok {
		t.Error("PostToolUse added without --tool-results")
	}

	// Idempotent: nothing changes, no new backup.
	before1, before2 := read(t, claudeJSON), read(t, settings)
	ch, backups := setup(t, o)
	for _, c := range ch {
		if c.Changed() {
			t.Errorf("%s changed on the second run", c.Path)
		}
	}
	if len(backups) != 0 || read(t, claudeJSON) != before1 || read(t, settings) != before2 {
		t.Error("second run wrote something")
	}
	// Opting in to tool results updates odekmem's entries in place.
	o.ToolResults = true
	setup(t, o)
	s := read(t, settings)
	if strings.Count(s, "odekmem hook claude-code --tool-results") != 3 || strings.Count(s, "odekmem hook claude-code\"") != 0 {
		t.Errorf("tool-results opt-in did not update in place:\n%s", s)
	}
}

func TestInvalidJSONRefusedNothingWritten(t *testing.T) {
	home := t.TempDir()
	bad := filepath.Join(home, ".gemini", "settings.json")
	for _, content := range []string{`{"mcpServers": {`, "// comment\n{}", `{"a":1,"a":2}`, `[1]`, `{"mcpServers": "oops"}`, `{"hooks": {"BeforeAgent": {}}}`} {
		write(t, bad, content)
		_, err := agentsetup.Plan(agentsetup.Options{Agent: "gemini", UserHome: home, Exe: exe})
		if err == nil || !strings.Contains(err.Error(), bad) || !strings.Contains(err.Error(), "nothing written") {
			t.Errorf("%q: err %v, want a clear refusal naming the file", content, err)
		}
		if read(t, bad) != content {
			t.Error("refused file was modified")
		}
		if len(backupsOf(t, bad)) != 0 {
			t.Error("backup written for a refused file")
		}
	}
}

func TestGeminiHooksAndMCPInOneFile(t *testing.T) {
	home := t.TempDir()
	p := filepath.Join(home, ".gemini", "settings.json")
	write(t, p, `{"theme": "Dracula", "mcpServers": {"x": {"command": "x"}}}`)
	setup(t, agentsetup.Options{Agent: "gemini", UserHome: home, Exe: "/opt/odek mem/odekmem", HookExe: "/opt/odek mem/odekmem-hook", OdekHome: "/data/odek"})
	s := read(t, p)
	for _, want := range []string{`"theme": "Dracula"`, `"x": {`, `"BeforeAgent"`, `"SessionStart"`, `"timeout": 15000`,
		`"command": "'/opt/odek mem/odekmem-hook' gemini --home /data/odek"`, `"/opt/odek mem/odekmem"`, `"--home"`} {
		if !strings.Contains(s, want) {
			t.Errorf("missing %s in\n%s", want, s)
		}
	}
}

func TestCodexTOMLMerge(t *testing.T) {
	home := t.TempDir()
	p := filepath.Join(home, ".codex", "config.toml")
	orig := `# my codex config
model = "o4-mini"

[mcp_servers.github]
command = "gh-mcp"
args = [
  "--read-only",
]

[mcp_servers.odekmem]
command = "/old/odekmem"
args = ["mcp"]
startup_timeout_sec = 20

[profiles.fast]
model = "gpt-5-mini"
`
	write(t, p, orig)
	setup(t, agentsetup.Options{Agent: "codex", UserHome: home, Exe: exe})
	got := read(t, p)
	want := strings.Replace(orig, `command = "/old/odekmem"`+"\n"+`args = ["mcp"]`+"\n"+`startup_timeout_sec = 20`+"\n",
		`command = "`+exe+`"`+"\n"+`args = ["mcp"]`+"\n"+`startup_timeout_sec = 20`+"\n"+approvals, 1)
	if got != want {
		t.Fatalf("TOML merge:\n%s\nwant\n%s", got, want)
	}
	// Idempotent.
	ch, _ := agentsetup.Plan(agentsetup.Options{Agent: "codex", UserHome: home, Exe: exe})
	for _, c := range ch {
		if c.Changed() {
			t.Errorf("%s changes on the second run", c.Path)
		}
	}
	// Appended to a file without the table; hooks.json created.
	home2 := t.TempDir()
	p2 := filepath.Join(home2, ".codex", "config.toml")
	write(t, p2, "model = \"o3\"\n")
	setup(t, agentsetup.Options{Agent: "codex", UserHome: home2, Exe: exe})
	if got := read(t, p2); got != "model = \"o3\"\n\n[mcp_servers.odekmem]\ncommand = \""+exe+"\"\nargs = [\"mcp\"]\n"+approvals {
		t.Errorf("append: %q", got)
	}
	if h := read(t, filepath.Join(home2, ".codex", "hooks.json")); !strings.Contains(h, "UserPromptSubmit") || !strings.Contains(h, exe+" hook codex") {
		t.Errorf("codex hooks.json: %s", h)
	}
	// Removed again: the file is what it was.
	setup(t, agentsetup.Options{Agent: "codex", UserHome: home2, Remove: true})
	if got := read(t, p2); got != "model = \"o3\"\n" {
		t.Errorf("remove: %q", got)
	}
	// Forms the merge cannot edit safely are refused, file untouched.
	for _, bad := range []string{
		"[mcp_servers]\nodekmem = { command = \"x\" }\n",
		"[mcp_servers]\nodekmem.env.ODEK_HOME = \"x\"\n",
		"mcp_servers.odekmem.command = \"x\"\n",
		"[broken\n",
		"key = \"\"\"\nunterminated\n",
		"just some words\n",
	} {
		write(t, p2, bad)
		if _, err := agentsetup.Plan(agentsetup.Options{Agent: "codex", UserHome: home2, Exe: exe}); err == nil || !strings.Contains(err.Error(), "nothing written") {
			t.Errorf("%q: err %v", bad, err)
		}
	}
}

// approvals are odekmem's pre-approved tools in config.toml.
const approvals = `
[mcp_servers.odekmem.tools.search_memories]
approval_mode = "approve"

[mcp_servers.odekmem.tools.recall]
approval_mode = "approve"

[mcp_servers.odekmem.tools.remember]
approval_mode = "approve"

[mcp_servers.odekmem.tools.list_quarantine]
approval_mode = "approve"

[mcp_servers.odekmem.tools.list_pending]
approval_mode = "approve"

[mcp_servers.odekmem.tools.search_quarantine]
approval_mode = "approve"
`

func TestMCPOnlyAgentsAndProjectScope(t *testing.T) {
	home, proj := t.TempDir(), t.TempDir()
	for agent, rel := range map[string]string{"cursor": ".cursor/mcp.json", "vscode": ".vscode/mcp.json", "zed": ".zed/settings.json", "claude-code": ".mcp.json"} {
		ch, _ := setup(t, agentsetup.Options{Agent: agent, UserHome: home, Project: true, ProjectDir: proj, Exe: exe})
		s := read(t, filepath.Join(proj, rel))
		if !strings.Contains(s, `"odekmem"`) || !strings.Contains(s, `"mcp"`) {
			t.Errorf("%s: %s", agent, s)
		}
		for _, c := range ch {
			if !strings.HasPrefix(c.Path, proj) {
				t.Errorf("%s --project wrote outside the project: %s", agent, c.Path)
			}
		}
	}
	if s := read(t, filepath.Join(proj, ".vscode/mcp.json")); !strings.Contains(s, `"servers"`) {
		t.Error("VS Code uses the servers key")
	}
	if s := read(t, filepath.Join(proj, ".zed/settings.json")); !strings.Contains(s, `"context_servers"`) {
		t.Error("Zed uses context_servers")
	}
	if _, err := agentsetup.Plan(agentsetup.Options{Agent: "emacs", UserHome: home}); err == nil {
		t.Error("unknown agent accepted")
	}
}

func TestSetupBinaryPrintWritesNothing(t *testing.T) {
	home := t.TempDir()
	run := func(args ...string) (string, error) {
		cmd := exec.Command(bin, args...)
		cmd.Env = append(os.Environ(), "HOME="+home, "ODEK_HOME=", "CLAUDE_CONFIG_DIR=")
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		err := cmd.Run()
		return out.String(), err
	}
	out, err := run("setup", "claude-code", "--print")
	if err != nil || !strings.Contains(out, "UserPromptSubmit") || !strings.Contains(out, ".claude.json") {
		t.Fatalf("--print: %v\n%s", err, out)
	}
	if _, err := os.Stat(filepath.Join(home, ".claude.json")); err == nil {
		t.Fatal("--print wrote a file")
	}
	write(t, filepath.Join(home, ".claude", "settings.json"), "{not json")
	out, err = run("setup", "claude-code")
	if err == nil || !strings.Contains(out, "settings.json is not valid JSON") {
		t.Fatalf("invalid settings: %v\n%s", err, out)
	}
	if _, err := os.Stat(filepath.Join(home, ".claude.json")); err == nil {
		t.Error("a refused run wrote the other file")
	}
	os.Remove(filepath.Join(home, ".claude", "settings.json"))
	if out, err := run("setup", "claude-code"); err != nil || !strings.Contains(out, "updated") {
		t.Fatalf("setup: %v\n%s", err, out)
	}
	if out, err := run("setup", "claude-code"); err != nil || strings.Contains(out, "updated") || !strings.Contains(out, "unchanged") {
		t.Fatalf("second setup: %v\n%s", err, out)
	}
}

// A cloned project ships .mcp.json as a symlink to the user's
// ~/.claude.json (account data, sometimes an API key). setup --project must
// not read it through the link and write it back into the repository as a
// regular file next to the code.
func TestSetupProjectRefusesSymlinkedSettingsFile(t *testing.T) {
	home := t.TempDir()
	proj := t.TempDir()
	secret := `{"primaryApiKey":"sk-ant-api03-notarealkeybutlongenough0123456789","oauthAccount":{"emailAddress":"me@example.com"}}`
	write(t, filepath.Join(home, ".claude.json"), secret)
	link := filepath.Join(proj, ".mcp.json")
	if err := os.Symlink(filepath.Join(home, ".claude.json"), link); err != nil {
		t.Skip("symlinks not available:", err)
	}
	_, err := agentsetup.Plan(agentsetup.Options{Agent: "claude-code", Project: true, ProjectDir: proj, UserHome: home, Exe: exe})
	if err == nil || !strings.Contains(err.Error(), "symbolic link") {
		t.Fatalf("setup followed a symlinked settings file: %v", err)
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Fatalf("the link was replaced: %v", err)
	}
	if got := read(t, filepath.Join(home, ".claude.json")); got != secret {
		t.Fatalf("the link's target changed: %s", got)
	}
	m, _ := filepath.Glob(filepath.Join(proj, ".mcp.json*"))
	if len(m) != 1 {
		t.Fatalf("files written next to the link: %v", m)
	}
}
