package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

// TestExternalModule builds and runs testdata/extmod, a separate module
// (its own go.mod with a replace to this repository) that uses memcore the
// way an agent does: memcore/openai's HTTP embedder and memory LLM against
// a scripted OpenAI-compatible server, the Hook, the tool's JSON, Search and
// Close. A nested module is outside ./..., so this test runs it. It needs
// no network: GOPROXY=off, and every module it uses is in go.sum and the
// module cache already (the main module needs the same ones).
func TestExternalModule(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a separate module")
	}
	goBin := filepath.Join(runtime.GOROOT(), "bin", "go")
	if _, err := os.Stat(goBin); err != nil {
		if goBin, err = exec.LookPath("go"); err != nil {
			t.Skip("no go command")
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, goBin, "run", ".")
	cmd.Dir = filepath.Join("testdata", "extmod")
	cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod -buildvcs=false", "GOPROXY=off", "GOWORK=off")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("external module: %v\n%s", err, out)
	}
	for _, want := range []string{
		"recorded: llm decision user_said",
		"tool schema: memory actions: add_atom,search_atoms,",
		"tool add_atom: user_said quarantined: false",
		"tool add_atom (not the person's words): agent_generated quarantined: true",
		"add: ErrInvalidArgument for an unknown type",
		"endpoints used: embeddings and chat",
		"closed: ErrClosed after Close",
		"PASS",
	} {
		if !strings.Contains(string(out), want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}
