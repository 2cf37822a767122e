package agenthook_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/odekmem/odekmem/internal/agenthook"
	"github.com/odekmem/odekmem/internal/hookproto"
	"github.com/odekmem/odekmem/internal/testcreds"
	"github.com/odekmem/odekmem/internal/testkit"
	"github.com/odekmem/odekmem/memcore"
)

// TestEveryShapeThroughTheHook runs the hook's handler in process (the
// code path of the binary and of odekmem serve) with a credential for
// every rule of gitleaks' default config and every generic and structured
// shape (internal/testcreds.Shapes): typed prompts, which reach per-turn
// extraction and agent_sessions.json, and tool results with the secret
// across the 299-character cut. No 8-character piece of a secret may
// reach any file under the home.
func TestEveryShapeThroughTheHook(t *testing.T) {
	home := t.TempDir()
	_, cwd := project(t)
	st := testkit.OpenHome(t, home)
	h := memcore.NewHook(st)
	rt := &agenthook.Runtime{Store: st, Hook: h}
	ctx := context.Background()
	var secrets []string
	var prompt []string
	handle := func(p string) {
		if _, err := agenthook.Handle(ctx, rt, hookproto.Options{Agent: "claude-code", ToolResults: true}, []byte(p)); err != nil {
			t.Fatal(err)
		}
	}
	send := func() {
		handle(payload(t, map[string]any{"session_id": "sess-s", "cwd": cwd, "hook_event_name": "UserPromptSubmit",
			"prompt": "Our staging settings, keep them handy: " + strings.Join(prompt, " ; ")}))
		prompt = prompt[:0]
	}
	pad := strings.Repeat("log line ok. ", 40)
	for _, c := range testcreds.Shapes(41) {
		secrets = append(secrets, c.Secret)
		prompt = append(prompt, c.Label+": "+c.Text)
		if len(prompt) == 20 {
			send()
		}
		cut := 299 - len(c.Text)/2
		text := pad[:max(0, cut-1)] + " " + c.Text + " and more output after it"
		handle(payload(t, map[string]any{"session_id": "sess-c", "cwd": cwd, "hook_event_name": "PostToolUse",
			"tool_name": "Bash", "tool_input": map[string]any{}, "tool_response": map[string]any{"stdout": text, "stderr": ""}, "tool_use_id": "toolu_1"}))
	}
	if len(prompt) > 0 {
		send()
	}
	h.Close(ctx)
	st.Close(context.Background())
	blobs := map[string]string{}
	for p, b := range testcreds.Files(home) {
		blobs[p] = testcreds.Markers(b)
	}
	if _, ok := blobs[filepath.Join(home, "memory", "extended", "agent_sessions.json")]; !ok {
		t.Fatal("no agent session log written: the prompts did not reach it")
	}
	leaked := testcreds.NoLeaks(t, secrets, blobs)
	t.Logf("%d shapes through the hook (prompts, agent sessions, tool results at the cut): %d leaked", len(secrets), leaked)
}
