package agentsetup_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/odekmem/odekmem/internal/agentsetup"
)

// noAgents is a LookPath that finds no agent binary.
func noAgents(string) (string, error) { return "", errors.New("not found") }

func initStore(t *testing.T, odekHome string) {
	t.Helper()
	cmd := exec.Command(bin, "--home", odekHome, "init")
	cmd.Env = append(os.Environ(), "ODEK_HOME=")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("init: %v %s", err, out)
	}
}

func checks(t *testing.T, rep agentsetup.Report, agent string) map[string]agentsetup.Check {
	t.Helper()
	for _, a := range rep.Agents {
		if a.Agent == agent {
			m := map[string]agentsetup.Check{}
			for _, c := range a.Checks {
				m[c.Check] = c
			}
			return m
		}
	}
	t.Fatalf("%s not in the report: %+v", agent, rep)
	return nil
}

// After setup with the real binary, every check passes: the config, the
// commands from a clean environment, the hooks, the MCP server started and
// initialized, the last hook run from hook.log.
func TestDoctorAfterSetupAllGreen(t *testing.T) {
	home, odek := t.TempDir(), filepath.Join(t.TempDir(), "odek")
	initStore(t, odek)
	setup(t, agentsetup.Options{Agent: "claude-code", UserHome: home, Exe: bin, HookExe: hookBin, OdekHome: odek})
	os.WriteFile(filepath.Join(odek, "memory", "extended", "hook.log"), []byte("2026-12-01T10:00:00Z hook claude-code UserPromptSubmit: ok, 412 bytes of context\n"), 0o600)
	rep := agentsetup.Doctor(context.Background(), agentsetup.DoctorOptions{UserHome: home, OdekHome: odek, LookPath: noAgents, Timeout: time.Minute})
	c := checks(t, rep, "claude-code")
	for _, name := range []string{"config", "command", "hooks", "mcp", "last hook"} {
		if !c[name].OK {
			t.Errorf("%s: %+v", name, c[name])
		}
	}
	if !strings.Contains(c["mcp"].Detail, "7 tools") || !strings.Contains(c["last hook"].Detail, "UserPromptSubmit: ok") {
		t.Errorf("details: %+v", c)
	}
	if !rep.Serve.Info || rep.OK() != true {
		t.Errorf("serve %+v, ok %v", rep.Serve, rep.OK())
	}
	// Set up but not installed: said first, as a note (issue 26's trial:
	// green lines read as "ready" with no agent on PATH).
	if a := c["agent"]; !a.Info || !strings.Contains(a.Detail, "claude is not on PATH") {
		t.Errorf("agent not installed: %+v", a)
	}
	// Agents never set up and not installed are not reported.
	if len(rep.Agents) != 1 {
		t.Errorf("reported %d agents", len(rep.Agents))
	}
}

// What a person hits, each with its fix: a bare command name that a
// desktop app's PATH does not find, hooks switched off, a failing last
// hook, no pre-approval.
func TestDoctorReportsEachProblemWithItsFix(t *testing.T) {
	home, odek := t.TempDir(), filepath.Join(t.TempDir(), "odek")
	initStore(t, odek)
	write(t, filepath.Join(home, ".claude.json"), `{"mcpServers": {"odekmem": {"type": "stdio", "command": "odekmem-not-installed", "args": ["mcp"]}}}`)
	write(t, filepath.Join(home, ".claude", "settings.json"), `{"disableAllHooks": true, "hooks": {"UserPromptSubmit": [{"hooks": [{"type": "command", "command": "odekmem hook claude-code"}]}]}}`)
	os.WriteFile(filepath.Join(odek, "memory", "extended", "hook.log"), []byte(
		"2026-12-01T10:00:00Z hook claude-code UserPromptSubmit: ok, 10 bytes of context\n2026-12-01T10:05:00Z hook claude-code: open store: permission denied\n"), 0o600)
	rep := agentsetup.Doctor(context.Background(), agentsetup.DoctorOptions{UserHome: home, OdekHome: odek, LookPath: noAgents, Timeout: time.Minute})
	c := checks(t, rep, "claude-code")
	want := map[string]string{
		"config":    "odekmem setup claude-code",
		"command":   "odekmem setup claude-code",
		"hooks":     "disableAllHooks",
		"mcp":       "odekmem-not-installed",
		"last hook": "hook.log",
	}
	for name, fix := range want {
		if c[name].OK || !strings.Contains(c[name].Fix, fix) {
			t.Errorf("%s: %+v, want a failure whose fix names %q", name, c[name], fix)
		}
	}
	if !strings.Contains(c["command"].Detail, "bare name") || !strings.Contains(c["last hook"].Detail, "permission denied") {
		t.Errorf("details: %+v", c)
	}
	if rep.OK() {
		t.Error("report OK with failures")
	}
}

// Codex: without the codex binary the doctor cannot ask whether the hooks
// are trusted, and says so (neither a pass nor a failure); features.hooks
// = false is a failure.
func TestDoctorCodexTrust(t *testing.T) {
	home, odek := t.TempDir(), filepath.Join(t.TempDir(), "odek")
	initStore(t, odek)
	setup(t, agentsetup.Options{Agent: "codex", UserHome: home, Exe: bin, OdekHome: odek})
	o := agentsetup.DoctorOptions{UserHome: home, OdekHome: odek, LookPath: noAgents, Timeout: time.Minute}
	c := checks(t, agentsetup.Doctor(context.Background(), o), "codex")
	if h := c["hooks"]; !h.Info || !strings.Contains(h.Fix, "/hooks") {
		t.Errorf("hooks: %+v", h)
	}
	if !c["config"].OK || !c["mcp"].OK {
		t.Errorf("config %+v mcp %+v", c["config"], c["mcp"])
	}
	p := filepath.Join(home, ".codex", "config.toml")
	write(t, p, "[features]\nhooks = false\n\n"+read(t, p))
	c = checks(t, agentsetup.Doctor(context.Background(), o), "codex")
	if h := c["hooks"]; h.OK || h.Info || !strings.Contains(h.Detail, "hooks = false") {
		t.Errorf("hooks off: %+v", h)
	}
}

// The verb: --json is the report, and the exit status says whether a
// check failed.
func TestDoctorVerbJSON(t *testing.T) {
	home, odek := t.TempDir(), filepath.Join(t.TempDir(), "odek")
	initStore(t, odek)
	run := func() (agentsetup.Report, error) {
		cmd := exec.Command(bin, "--home", odek, "doctor", "--json")
		cmd.Dir = home
		cmd.Env = append(os.Environ(), "HOME="+home, "ODEK_HOME=", "PATH=/nonexistent", "CLAUDE_CONFIG_DIR=", "CODEX_HOME=", "GEMINI_CLI_HOME=", "XDG_CONFIG_HOME=")
		out, err := cmd.Output()
		var rep agentsetup.Report
		if jerr := json.Unmarshal(out, &rep); jerr != nil {
			t.Fatalf("doctor --json: %v\n%s", jerr, out)
		}
		return rep, err
	}
	rep, err := run()
	if err != nil || len(rep.Agents) != 0 {
		t.Fatalf("nothing set up: %v %+v", err, rep)
	}
	write(t, filepath.Join(home, ".gemini", "settings.json"), `{"mcpServers": {"odekmem": {"command": "odekmem", "args": ["mcp"]}}}`)
	rep, err = run()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 1 {
		t.Fatalf("a failing check: exit %v", err)
	}
	if len(rep.Agents) != 1 || rep.Agents[0].Agent != "gemini" {
		t.Fatalf("report: %+v", rep)
	}
}

// TestDoctorWithoutAStoreSaysSo: the hooks and the MCP server never create
// a store; doctor names a missing one as a failure with its fix.
func TestDoctorWithoutAStoreSaysSo(t *testing.T) {
	home, odek := t.TempDir(), filepath.Join(t.TempDir(), "odek")
	rep := agentsetup.Doctor(context.Background(), agentsetup.DoctorOptions{UserHome: home, OdekHome: odek, LookPath: noAgents, Timeout: time.Minute})
	if rep.StoreCheck.OK || !strings.Contains(rep.StoreCheck.Detail, "no store at") || rep.StoreCheck.Fix != "odekmem init" || rep.OK() {
		t.Fatalf("store check %+v, ok %v", rep.StoreCheck, rep.OK())
	}
	initStore(t, odek)
	rep = agentsetup.Doctor(context.Background(), agentsetup.DoctorOptions{UserHome: home, OdekHome: odek, LookPath: noAgents, Timeout: time.Minute})
	if !rep.StoreCheck.OK || !rep.OK() {
		t.Fatalf("store check after init %+v", rep.StoreCheck)
	}
}
