// Command odekmem-hook is the per-prompt agent hook's fast path:
// `odekmem-hook claude-code` behaves exactly like `odekmem hook
// claude-code`. It is a thin client that links nothing of memcore — a
// process per prompt pays for every package initialiser linked into it,
// and the full binary's (terminal rendering, the scanner's tables, the LLM
// client) cost tens to hundreds of milliseconds before main runs. It hands
// the payload to a running `odekmem serve`; when none answers, it runs
// `odekmem hook` (next to it, else on PATH) with the same input, which
// handles the call and starts the server for the next prompt.
// `odekmem setup` uses it when it is installed next to odekmem.
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"time"

	"github.com/odekmem/odekmem/internal/hookproto"
	"github.com/odekmem/odekmem/internal/procstart"
)

func main() {
	os.Exit(run(os.Args[1:]))
}

// run always returns 0: a hook never breaks the agent's turn.
func run(args []string) int {
	start := time.Now()
	a, err := hookproto.ParseArgs(args)
	if err != nil {
		fmt.Fprintf(os.Stderr, "odekmem-hook: %v\n", err)
		return 0
	}
	home := hookproto.Home(a.Home, os.Getenv)
	store := hookproto.StoreDir(home)
	ctx, cancel := context.WithTimeout(context.Background(), a.Timeout)
	defer cancel()
	payload, err := hookproto.ReadInput(ctx, os.Stdin)
	if err != nil {
		hookproto.AppendLog(store, "hook "+a.Agent+": stdin: "+err.Error())
		return 0
	}
	if !a.NoServe && os.Getenv("ODEKMEM_NO_SERVE") != "1" && json.Valid(payload) {
		req := hookproto.Request{V: hookproto.ProtocolVersion, Fingerprint: hookproto.Fingerprint(home, os.Environ()), Options: a.Options, Payload: payload}
		if out, err := hookproto.Ask(ctx, hookproto.SocketPath(store), req); err == nil {
			if len(out) > 0 {
				os.Stdout.Write(append(out, '\n'))
			}
			if os.Getenv("ODEKMEM_HOOK_DEBUG") == "1" {
				hookproto.AppendLog(store, fmt.Sprintf("hook %s: answered via serve (odekmem-hook) in %v (%d bytes)", a.Agent, time.Since(start).Round(time.Microsecond), len(out)))
			}
			return 0
		}
	}
	// No server (or a stale one): the full binary handles this call.
	full := fullBinary()
	if full == "" {
		hookproto.AppendLog(store, "hook "+a.Agent+": odekmem not found next to odekmem-hook or on PATH; nothing added")
		return 0
	}
	cmd := exec.CommandContext(ctx, full, append([]string{"hook"}, args...)...)
	// The full binary's debug line then counts from this process's start:
	// the time the agent waits for.
	cmd.Env = append(os.Environ(), procstart.EnvStart+"="+strconv.FormatInt(procstart.Time.UnixNano(), 10))
	cmd.Stdin = bytes.NewReader(payload)
	cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
	if err := cmd.Run(); err != nil {
		hookproto.AppendLog(store, "hook "+a.Agent+": odekmem hook: "+err.Error())
	}
	return 0
}

func fullBinary() string {
	if self, err := os.Executable(); err == nil {
		if r, err := filepath.EvalSymlinks(self); err == nil {
			self = r
		}
		p := filepath.Join(filepath.Dir(self), "odekmem")
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() {
			return p
		}
	}
	if p, err := exec.LookPath("odekmem"); err == nil {
		return p
	}
	return ""
}
