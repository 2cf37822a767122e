//go:build unix

package serve_test

import (
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/odekmem/odekmem/internal/agenthook"
)

// TestFIFOTranscriptDoesNotHangServe (issue 25): a hook payload whose
// transcript_path names a FIFO used to block a serve goroutine in open()
// forever, so serve never idled out. The hook answers, and serve still
// exits when idle.
func TestFIFOTranscriptDoesNotHangServe(t *testing.T) {
	home := t.TempDir()
	fifo := filepath.Join(t.TempDir(), "transcript.jsonl")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip("mkfifo:", err)
	}
	init := exec.Command(bin, "--home", home, "init")
	init.Env = env()
	if out, err := init.CombinedOutput(); err != nil {
		t.Fatalf("init: %v %s", err, out)
	}
	srv := exec.Command(bin, "serve", "--home", home, "--idle", "2s")
	srv.Env = env()
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- srv.Wait() }()
	sock := agenthook.SocketPath(filepath.Join(home, "memory", "extended"))
	waitFor(t, "serve socket", 20*time.Second, func() bool { return exists(sock) })
	cmd := exec.Command(hookBin, "claude-code", "--home", home)
	cmd.Env = env()
	cmd.Stdin = strings.NewReader(`{"session_id":"s","cwd":"/tmp","hook_event_name":"UserPromptSubmit","prompt":"We use tabs in Go files.","transcript_path":` + quote(fifo) + `}`)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("hook: %v %s", err, out)
	}
	if !strings.Contains(readFile(filepath.Join(home, "memory", "extended", "hook.log")), "via serve") {
		t.Fatalf("the call did not go through serve:\n%s", readFile(filepath.Join(home, "memory", "extended", "hook.log")))
	}
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("serve: %v", err)
		}
	case <-time.After(90 * time.Second):
		srv.Process.Kill()
		t.Fatal("serve never idled out: a goroutine is stuck on the FIFO")
	}
}
