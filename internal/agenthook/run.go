package agenthook

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/odekmem/odekmem/internal/config"

	"github.com/odekmem/odekmem/internal/hookproto"
	"github.com/odekmem/odekmem/memcore"
)

// Options are the hook command's flags that change what it does.
type Options = hookproto.Options

// Agents are the agents whose hook protocol Run speaks.
var Agents = []string{"claude-code", "codex", "gemini"}

// SocketPath is where odekmem serve listens for a store.
func SocketPath(storeDir string) string { return hookproto.SocketPath(storeDir) }

// OpenStore opens the configured store with its embedder, memory LLM and
// guard, as the CLI does.
func OpenStore(s config.Settings) (*memcore.Store, error) {
	return s.OpenStore(s.StoreDir(), nil, nil)
}

// WithHookTimeout bounds a memory LLM call inside a hook to half the
// hook's budget: a per-prompt hook cannot wait for the library's default.
func WithHookTimeout(s config.Settings, budget time.Duration) config.Settings {
	t := time.Duration(s.Extended.HookTimeoutSeconds * float64(time.Second))
	if t <= 0 || t > budget/2 {
		t = budget / 2
	}
	s.Extended.HookTimeoutSeconds = t.Seconds()
	return s
}

// Run is `odekmem hook <agent>`. It always returns 0: whatever goes wrong
// is logged under the store and nothing reaches stdout.
func Run(args []string, stdin io.Reader, stdout, stderr io.Writer, getenv func(string) string) int {
	if getenv == nil {
		getenv = os.Getenv
	}
	start := time.Now()
	a, err := hookproto.ParseArgs(args)
	if err != nil {
		fmt.Fprintf(stderr, "odekmem hook: %v\n", err)
		return 0
	}
	if getenv("ODEKMEM_NO_SERVE") == "1" {
		a.NoServe = true
	}
	ctx, cancel := context.WithTimeout(context.Background(), a.Timeout)
	defer cancel()

	settings, err := config.Load(config.LoadOptions{Home: a.Home, Getenv: getenv})
	storeDir := ""
	if settings.Home != "" {
		storeDir = settings.StoreDir()
	}
	if err != nil {
		logTo(storeDir, "hook %s: settings: %v", a.Agent, err)
		return 0
	}
	payload, err := hookproto.ReadInput(ctx, stdin)
	if err != nil {
		logTo(storeDir, "hook %s: stdin: %v", a.Agent, err)
		return 0
	}
	debug := getenv("ODEKMEM_HOOK_DEBUG") == "1"
	done := make(chan []byte, 1)
	go func() {
		out, via, err := call(ctx, settings, a, payload, getenv)
		if err != nil {
			logTo(storeDir, "hook %s: %v", a.Agent, err)
			out = nil
		} else if debug {
			logTo(storeDir, "hook %s: answered via %s in %v (%d bytes)", a.Agent, via, time.Since(start).Round(time.Microsecond), len(out))
		}
		done <- out
	}()
	select {
	case out := <-done:
		if len(out) > 0 {
			stdout.Write(append(out, '\n'))
		}
	case <-ctx.Done():
		logTo(storeDir, "hook %s: timed out after %v; nothing added to the turn", a.Agent, time.Since(start).Round(time.Millisecond))
	}
	return 0
}

// call asks a running odekmem serve, or starts one and handles this call
// itself.
func call(ctx context.Context, s config.Settings, a hookproto.Args, payload []byte, getenv func(string) string) ([]byte, string, error) {
	if len(strings.TrimSpace(string(payload))) == 0 {
		return nil, "", errors.New("empty hook input on stdin")
	}
	if !json.Valid(payload) {
		return nil, "", errors.New("hook input is not JSON")
	}
	if !a.NoServe {
		req := hookproto.Request{V: hookproto.ProtocolVersion, Fingerprint: hookproto.Fingerprint(s.Home, os.Environ()), Options: a.Options, Payload: payload}
		out, err := hookproto.Ask(ctx, SocketPath(s.StoreDir()), req)
		if err == nil {
			return out, "serve", nil
		}
		if hookproto.IsNoServer(err) || errors.Is(err, hookproto.ErrStale) {
			startServer(s, getenv)
		} else {
			logTo(s.StoreDir(), "hook: serve: %v (handled in process)", err)
		}
	}
	st, err := OpenStore(WithHookTimeout(s, a.Timeout))
	if err != nil {
		return nil, "", err
	}
	defer st.Close()
	h := memcore.NewHook(st)
	out, err := Handle(ctx, &Runtime{Store: st, Hook: h}, a.Options, payload)
	h.Close(context.Background()) // waits for the background inference
	return out, "process", err
}

// startServer launches `odekmem serve` detached from the hook's pipes, so
// the agent does not wait for it.
func startServer(s config.Settings, getenv func(string) string) {
	if getenv("ODEKMEM_NO_SERVE") == "1" {
		return
	}
	exe, err := os.Executable()
	if err != nil {
		return
	}
	cmd := exec.Command(exe, "serve", "--home", s.Home)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = nil, nil, nil
	detach(cmd)
	if err := cmd.Start(); err != nil {
		logTo(s.StoreDir(), "hook: start serve: %v", err)
		return
	}
	cmd.Process.Release()
}
