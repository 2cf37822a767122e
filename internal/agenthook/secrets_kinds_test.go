package agenthook_test

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/odekmem/odekmem/internal/agenthook"
	"github.com/odekmem/odekmem/internal/hookproto"
	"github.com/odekmem/odekmem/internal/testcreds"
	"github.com/odekmem/odekmem/internal/testkit"
	"github.com/odekmem/odekmem/memcore"
)

// TestEverySecretKindThroughTheHookBinary sends every synthetic credential
// kind (internal/testcreds), as written, split by zero-width characters
// and in fullwidth forms, through the hook binary: typed prompts (per-turn
// extraction and the agent session log of agent_sessions.json) and tool
// results stored with --tool-results, each secret placed across the
// 299-character cut of a tool result. No 8-character piece of a secret may
// reach any file under the home or the hook's output.
func TestEverySecretKindThroughTheHookBinary(t *testing.T) {
	home := t.TempDir()
	_, cwd := project(t)
	var secrets []string
	var prompt []string
	var out strings.Builder
	send := func() {
		p := payload(t, map[string]any{"session_id": "sess-s", "cwd": cwd, "hook_event_name": "UserPromptSubmit",
			"prompt": "Our staging settings, keep them handy: " + strings.Join(prompt, " ; ")})
		r := hook(t, hookBin, home, p, nil)
		if r.code != 0 {
			t.Fatalf("prompt: exit %d: %s", r.code, r.stderr)
		}
		out.WriteString(r.stdout + r.stderr)
		prompt = prompt[:0]
	}
	creds := testcreds.Creds(11)
	for i, c := range creds {
		for _, v := range testcreds.Variants(c) {
			secrets = append(secrets, strings.ReplaceAll(v.Secret, "\n", ""))
			prompt = append(prompt, c.Label+": "+v.Text)
			if len(prompt) == 40 {
				send()
			}
		}
		// every ninth kind also as a tool result, the secret across the cut
		if i%9 == 0 {
			pad := strings.Repeat("log line ok. ", 40)
			cut := 299 - len(c.Text)/2
			text := pad[:max(0, cut-1)] + " " + c.Text + " and more output after it"
			r := hook(t, hookBin, home, payload(t, map[string]any{"session_id": "sess-s", "cwd": cwd, "hook_event_name": "PostToolUse",
				"tool_name": "Bash", "tool_input": map[string]any{}, "tool_response": map[string]any{"stdout": text, "stderr": ""}, "tool_use_id": "toolu_1"}), nil, "--tool-results")
			if r.code != 0 {
				t.Fatalf("tool result: exit %d: %s", r.code, r.stderr)
			}
			out.WriteString(r.stdout + r.stderr)
		}
	}
	if len(prompt) > 0 {
		send()
	}
	blobs := map[string]string{"hook output": out.String()}
	for p, b := range testcreds.Files(home) {
		blobs[p] = b
	}
	if _, ok := blobs[filepath.Join(home, "memory", "extended", "agent_sessions.json")]; !ok {
		t.Fatal("no agent session log written: the prompts did not reach it")
	}
	leaked := testcreds.NoLeaks(t, secrets, blobs)
	t.Logf("%d secrets (%d kinds × plain/zero-width/fullwidth) through the hook binary: %d leaked", len(secrets), len(creds), leaked)
}

// TestEverySecretKindAtTheToolResultCut runs the hook's handler in
// process (the code path of the binary and of odekmem serve) with every
// credential kind placed across the 299-character cut of a
// tool result: the whole result is redacted before it is cut, so no piece
// of the secret reaches the quarantine.
func TestEverySecretKindAtTheToolResultCut(t *testing.T) {
	home := t.TempDir()
	_, cwd := project(t)
	st := testkit.OpenHome(t, home)
	h := memcore.NewHook(st)
	defer h.Close(context.Background())
	rt := &agenthook.Runtime{Store: st, Hook: h}
	var secrets []string
	pad := strings.Repeat("log line ok. ", 40)
	for _, c := range testcreds.Creds(13) {
		secrets = append(secrets, strings.ReplaceAll(c.Secret, "\n", ""))
		cut := 299 - len(c.Text)/2
		text := pad[:max(0, cut-1)] + " " + c.Text + " and more output after it"
		p := payload(t, map[string]any{"session_id": "sess-c", "cwd": cwd, "hook_event_name": "PostToolUse",
			"tool_name": "WebFetch", "tool_input": map[string]any{}, "tool_response": text, "tool_use_id": "toolu_1"})
		if _, err := agenthook.Handle(context.Background(), rt, hookproto.Options{Agent: "claude-code", ToolResults: true}, []byte(p)); err != nil {
			t.Fatalf("%s: %v", c.Kind, err)
		}
	}
	q, err := st.Quarantined(context.Background())
	if err != nil || len(q) == 0 {
		t.Fatalf("no tool result quarantined (%v)", err)
	}
	st.Close(context.Background())
	for _, s := range secrets {
		filepath.WalkDir(home, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return nil
			}
			b, _ := os.ReadFile(p)
			if l := testcreds.Leaks(string(b), s); l != "" {
				t.Errorf("%q survives in %s", l, p)
				return filepath.SkipAll
			}
			return nil
		})
	}
}
