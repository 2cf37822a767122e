package e2e_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// agents are the three CLIs with hooks. Each runs with its home moved by
// its own variable (CLAUDE_CONFIG_DIR, CODEX_HOME, GEMINI_CLI_HOME), so
// the run also shows that odekmem setup writes where the agent looks.
func agents() []agent {
	return []agent{
		{
			name: "claude-code", bin: "claude",
			shell: "Bash", shellArgs: map[string]any{"command": "cat " + notesFile, "description": "Show the notes"},
			configure: func(h *harness) {
				// The agent's own settings, which setup must keep.
				writeFile(h.t, filepath.Join(h.claudeDir(), "settings.json"), `{"env": {"DISABLE_AUTOUPDATER": "1"}, "permissions": {"allow": ["Bash(cat:*)"]}}`)
			},
			env: func(h *harness) []string {
				return []string{"CLAUDE_CONFIG_DIR=" + h.claudeDir(), "ANTHROPIC_BASE_URL=" + h.model.url, "ANTHROPIC_API_KEY=sk-ant-e2e-not-a-real-key",
					"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1", "DISABLE_TELEMETRY=1", "DISABLE_ERROR_REPORTING=1", "DISABLE_AUTOUPDATER=1"}
			},
			argv: func(h *harness, prompt string) []string {
				return []string{"-p", prompt, "--output-format", "json", "--model", "claude-sonnet-4-5"}
			},
		},
		{
			name: "codex", bin: "codex",
			shell: "exec_command", shellArgs: map[string]any{"cmd": "cat " + notesFile},
			configure: func(h *harness) {
				writeFile(h.t, filepath.Join(h.codexHome(), "config.toml"), fmt.Sprintf(`# the person's own Codex settings
model = "gpt-e2e"
model_provider = "e2e"
check_for_update_on_startup = false

[model_providers.e2e]
name = "e2e"
base_url = "%s/v1"
wire_api = "responses"
env_key = "E2E_OPENAI_KEY"

[analytics]
enabled = false
`, h.model.url))
			},
			env: func(h *harness) []string {
				return []string{"CODEX_HOME=" + h.codexHome(), "E2E_OPENAI_KEY=sk-e2e-not-a-real-key"}
			},
			argv: func(h *harness, prompt string) []string {
				return []string{"exec", "--color", "never", "-s", "read-only", prompt}
			},
			trust: trustCodexHooks,
		},
		{
			name: "gemini", bin: "gemini",
			shell: "run_shell_command", shellArgs: map[string]any{"command": "cat " + notesFile, "description": "Show the notes"},
			configure: func(h *harness) {
				writeFile(h.t, filepath.Join(h.geminiHome(), ".gemini", "settings.json"), `{
  "security": {"auth": {"selectedType": "gemini-api-key"}},
  "privacy": {"usageStatisticsEnabled": false},
  "telemetry": {"enabled": false},
  "general": {"disableAutoUpdate": true, "disableUpdateNag": true}
}
`)
				// The person's own policy: cat runs without asking.
				writeFile(h.t, filepath.Join(h.geminiHome(), ".gemini", "policies", "shell.toml"), `[[rule]]
toolName = "run_shell_command"
commandPrefix = "cat"
decision = "allow"
priority = 100
`)
			},
			env: func(h *harness) []string {
				return []string{"GEMINI_CLI_HOME=" + h.geminiHome(), "GEMINI_API_KEY=e2e-not-a-real-key", "GOOGLE_GEMINI_BASE_URL=" + h.model.url}
			},
			argv: func(h *harness, prompt string) []string {
				// The person trusts their folder once in interactive mode; headless
				// runs say so with --skip-trust (trusted-folders.md).
				return []string{"-p", prompt, "-o", "json", "-m", "gemini-2.5-flash", "--skip-trust"}
			},
		},
	}
}

func (h *harness) claudeDir() string  { return filepath.Join(h.home, ".config", "claude-e2e") }
func (h *harness) codexHome() string  { return filepath.Join(h.home, ".config", "codex-e2e") }
func (h *harness) geminiHome() string { return filepath.Join(h.home, ".config", "gemini-e2e") }

// trustCodexHooks is what the person does after odekmem setup codex: open
// /hooks in Codex and trust odekmem's hooks. The test takes the same path
// Codex's own /hooks screen does, through `codex app-server`: hooks/list
// gives each hook's current hash, config/batchWrite records it as trusted.
func trustCodexHooks(h *harness) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, filepath.Join(h.npmBin, "codex"), "app-server")
	cmd.Dir, cmd.Env = h.proj, append(h.baseEnv(), h.a.env(h)...)
	in, _ := cmd.StdinPipe()
	outp, _ := cmd.StdoutPipe()
	must(h.t, cmd.Start())
	defer func() { in.Close(); cmd.Wait() }()
	rd := bufio.NewReader(outp)
	call := func(id int, method string, params any) json.RawMessage {
		b, _ := json.Marshal(map[string]any{"id": id, "method": method, "params": params})
		io.WriteString(in, string(b)+"\n")
		for {
			line, err := rd.ReadBytes('\n')
			if err != nil {
				h.t.Fatalf("codex app-server %s: %v", method, err)
			}
			var m struct {
				ID     *int            `json:"id"`
				Result json.RawMessage `json:"result"`
				Error  json.RawMessage `json:"error"`
			}
			if json.Unmarshal(line, &m) == nil && m.ID != nil && *m.ID == id {
				if len(m.Error) > 0 {
					h.t.Fatalf("codex app-server %s: %s", method, m.Error)
				}
				return m.Result
			}
		}
	}
	call(1, "initialize", map[string]any{"clientInfo": map[string]any{"name": "odekmem-e2e", "version": "1"}})
	io.WriteString(in, `{"method":"initialized"}`+"\n")
	var list struct {
		Data []struct {
			Hooks []struct {
				Key, Command, CurrentHash, TrustStatus string
			} `json:"hooks"`
		} `json:"data"`
	}
	json.Unmarshal(call(2, "hooks/list", map[string]any{"cwds": []string{h.proj}}), &list)
	state := map[string]any{}
	for _, d := range list.Data {
		for _, hk := range d.Hooks {
			if strings.Contains(hk.Command, "odekmem") && hk.TrustStatus != "trusted" {
				state[hk.Key] = map[string]any{"trusted_hash": hk.CurrentHash}
			}
		}
	}
	if len(state) == 0 {
		h.t.Fatal("codex lists no odekmem hook to trust")
	}
	call(3, "config/batchWrite", map[string]any{"edits": []any{map[string]any{"keyPath": "hooks.state", "value": state, "mergeStrategy": "upsert"}}})
	h.t.Logf("trusted %d odekmem hooks in Codex (as /hooks does)", len(state))
}
