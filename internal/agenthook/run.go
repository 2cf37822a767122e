package agenthook

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"

	"github.com/odekmem/odekmem/internal/config"

	"github.com/odekmem/odekmem/internal/hookproto"
	"github.com/odekmem/odekmem/internal/procstart"
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
func OpenStore(ctx context.Context, s config.Settings) (*memcore.Store, error) {
	return s.OpenStore(ctx, s.StoreDir(), nil, nil)
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

// runStart is when Run began (what came before it is initialisation).
var runStart = time.Now()

// Run is `odekmem hook <agent>`. It always returns 0: whatever goes wrong
// is logged under the store and nothing reaches stdout.
func Run(args []string, stdin io.Reader, stdout, stderr io.Writer, getenv func(string) string) int {
	if getenv == nil {
		getenv = os.Getenv
	}
	start := time.Now()
	runStart = start
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
	ready := time.Since(start)
	done := make(chan []byte, 1)
	go func() {
		var t Timings
		out, via, err := call(ctx, settings, a, payload, getenv, &t)
		if err != nil {
			logTo(storeDir, "hook %s: %v", a.Agent, err)
			out = nil
		} else if debug {
			logTo(storeDir, "hook %s: answered via %s: %s (%d bytes)", a.Agent, via, t.line(ready, getenv), len(out))
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
func call(ctx context.Context, s config.Settings, a hookproto.Args, payload []byte, getenv func(string) string, t *Timings) ([]byte, string, error) {
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
	t0 := time.Now()
	st, err := OpenStore(ctx, WithHookTimeout(s, a.Timeout))
	t.Open = time.Since(t0)
	if err != nil {
		return nil, "", err
	}
	defer st.Close(context.Background())
	h := memcore.NewHook(st)
	out, err := Handle(ctx, &Runtime{Store: st, Hook: h, Timings: t}, a.Options, payload)
	t0 = time.Now()
	h.Close(context.Background()) // waits for the background inference
	t.Write += time.Since(t0)
	return out, "process", err
}

// Timings are where a hook process's time went, for hook.log's debug
// line (ODEKMEM_HOOK_DEBUG=1): opening the store, recall (the memory
// block), and the turn's writes (the person's message recorded and
// extracted, and any background inference the process waits for before
// it exits). Zero for a call odekmem serve answered.
type Timings struct {
	Open, Recall, Write time.Duration
}

// line describes the whole process: its time since it started (since the
// agent started odekmem-hook when that handed the call over), what came
// before Run (initialisation), ready (Run's arguments, settings and stdin),
// the parts, and the process's CPU time.
func (t *Timings) line(ready time.Duration, getenv func(string) string) string {
	ms := func(d time.Duration) string { return d.Round(100 * time.Microsecond).String() }
	total := procstart.Since()
	init := total - time.Since(runStart)
	parts := fmt.Sprintf("init %s, settings and stdin %s", ms(max(init, 0)), ms(ready))
	if t.Open+t.Recall+t.Write > 0 {
		parts += fmt.Sprintf(", open %s, recall %s, write %s", ms(t.Open), ms(t.Recall), ms(t.Write))
	}
	s := fmt.Sprintf("process %s (%s); cpu %s", ms(total), parts, ms(procstart.CPU()))
	if v := getenv(procstart.EnvStart); v != "" {
		if ns, err := strconv.ParseInt(v, 10, 64); err == nil {
			if d := time.Since(time.Unix(0, ns)); d >= total && d < time.Hour {
				s = fmt.Sprintf("%s since odekmem-hook started, %s", ms(d), s)
			}
		}
	}
	return s
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
