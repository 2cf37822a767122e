package serve_test

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/odekmem/odekmem/internal/agenthook"
	"github.com/odekmem/odekmem/internal/testkit"
)

var bin, hookBin string

func TestMain(m *testing.M) {
	testkit.RunWithBinaries(m, map[*string]string{&bin: testkit.Odekmem, &hookBin: testkit.Hook})
}

func env() []string {
	// An idle timeout long enough that a loaded machine does not end the
	// server between two steps of a test (it failed at 2 s under load 13).
	return append(os.Environ(), "ODEK_HOME=", "ODEKMEM_HOOK_DEBUG=1", "ODEKMEM_SERVE_IDLE=10s", "ODEKMEM_NO_SERVE=")
}

func hook(t *testing.T, exe, home, prompt string) string {
	t.Helper()
	args := []string{"hook", "claude-code", "--home", home}
	if exe == hookBin {
		args = args[1:]
	}
	cmd := exec.Command(exe, args...)
	cmd.Env = env()
	cmd.Stdin = strings.NewReader(`{"session_id":"s","cwd":"/tmp","hook_event_name":"UserPromptSubmit","prompt":` + quote(prompt) + `}`)
	var out bytes.Buffer
	cmd.Stdout = &out
	if err := cmd.Run(); err != nil {
		t.Fatalf("hook: %v", err)
	}
	return out.String()
}

func quote(s string) string { return `"` + strings.ReplaceAll(s, `"`, `\"`) + `"` }

func waitFor(t *testing.T, what string, d time.Duration, ok func() bool) {
	t.Helper()
	deadline := time.Now().Add(d)
	for !ok() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func exists(p string) bool { _, err := os.Stat(p); return err == nil }

func TestHookStartsServeOnDemandAndServeSeesOtherWriters(t *testing.T) {
	home := t.TempDir()
	store := filepath.Join(home, "memory", "extended")
	sock := agenthook.SocketPath(store)
	add := exec.Command(bin, "--home", home, "add", "--create", "The staging cluster is called orbit")
	add.Env = env()
	if out, err := add.CombinedOutput(); err != nil {
		t.Fatalf("add: %v %s", err, out)
	}
	// First call: no server yet; answered in process, and one is started.
	if out := hook(t, bin, home, "what is the staging cluster called?"); !strings.Contains(out, "orbit") {
		t.Fatalf("first call: %q", out)
	}
	waitFor(t, "serve socket", 20*time.Second, func() bool { return exists(sock) })
	// A write by another process (the CLI) while serve holds the store.
	add = exec.Command(bin, "--home", home, "add", "The production cluster is called zenith")
	add.Env = env()
	if out, err := add.CombinedOutput(); err != nil {
		t.Fatalf("add while serve runs: %v %s", err, out)
	}
	if out := hook(t, bin, home, "what is the production cluster called?"); !strings.Contains(out, "zenith") {
		t.Fatalf("serve did not see the CLI's write: %q", out)
	}
	log, _ := os.ReadFile(filepath.Join(store, "hook.log"))
	if !strings.Contains(string(log), "via process") || !strings.Contains(string(log), "via serve") {
		t.Fatalf("expected one call in process and one via serve:\n%s", log)
	}
	// The server answers first and stores the turn right after: the
	// person's statement lands as user_said with its session.
	hook(t, bin, home, "I always squash commits before merging to main.")
	waitFor(t, "the turn stored by serve", 20*time.Second, func() bool {
		list := exec.Command(bin, "--home", home, "list", "--json")
		list.Env = env()
		out, _ := list.Output()
		return strings.Contains(string(out), "squash commits") && strings.Contains(string(out), `"session_id": "s"`)
	})
	// The thin client reaches the same server.
	if out := hook(t, hookBin, home, "what is the production cluster called?"); !strings.Contains(out, "zenith") {
		t.Fatalf("odekmem-hook via serve: %q", out)
	}
	if !strings.Contains(readFile(filepath.Join(store, "hook.log")), "answered via serve (odekmem-hook)") {
		t.Fatal("odekmem-hook did not use the server")
	}
	// The configuration changes: the server is stale, tells the client,
	// exits; the client still answers (in process) and starts a new one.
	if err := os.WriteFile(filepath.Join(home, "config.json"), []byte(`{"memory": {"extended": {"enabled": true}}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if out := hook(t, hookBin, home, "what is the production cluster called?"); !strings.Contains(out, "zenith") {
		t.Fatalf("stale fallback: %q", out)
	}
	if !strings.Contains(readFile(filepath.Join(store, "hook.log")), "another binary or configuration") {
		t.Error("stale server did not log its exit")
	}
	// Idle: the server exits and removes its socket.
	time.Sleep(500 * time.Millisecond)
	waitFor(t, "idle exit", 60*time.Second, func() bool { return !exists(sock) })
}

func readFile(p string) string { b, _ := os.ReadFile(p); return string(b) }

func TestOneServerPerStore(t *testing.T) {
	home := t.TempDir()
	start := func() *exec.Cmd {
		c := exec.Command(bin, "serve", "--home", home, "--idle", "3s")
		c.Env = env()
		if err := c.Start(); err != nil {
			t.Fatal(err)
		}
		return c
	}
	a := start()
	sock := agenthook.SocketPath(filepath.Join(home, "memory", "extended"))
	waitFor(t, "first server", 20*time.Second, func() bool { return exists(sock) })
	b := start()
	done := make(chan error, 1)
	go func() { done <- b.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("second server: %v (want a quiet exit 0)", err)
		}
	case <-time.After(15 * time.Second):
		b.Process.Kill()
		t.Fatal("a second server kept running")
	}
	if err := a.Wait(); err != nil {
		t.Errorf("first server: %v", err)
	}
	if exists(sock) {
		t.Error("socket left behind after idle exit")
	}
}

// TestServeLockRefusesASymlink (issue 23: serve's lock was opened without
// O_NOFOLLOW): a serve.lock planted as a link is refused, and its target
// is not created or touched.
func TestServeLockRefusesASymlink(t *testing.T) {
	home := t.TempDir()
	init := exec.Command(bin, "--home", home, "init")
	init.Env = env()
	if out, err := init.CombinedOutput(); err != nil {
		t.Fatalf("init: %v %s", err, out)
	}
	target := filepath.Join(t.TempDir(), "victim")
	if err := os.Symlink(target, filepath.Join(home, "memory", "extended", "serve.lock")); err != nil {
		t.Fatal(err)
	}
	c := exec.Command(bin, "serve", "--home", home, "--idle", "1s")
	c.Env = env()
	out, err := c.CombinedOutput()
	if err == nil || !strings.Contains(string(out), "symbolic link") {
		t.Fatalf("serve with a planted lock link: %v %s", err, out)
	}
	if _, err := os.Lstat(target); err == nil {
		t.Fatal("serve created the link's target")
	}
}
