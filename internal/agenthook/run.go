package agenthook

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/odekmem/odekmem/memcore"
)

// Request is one hook call sent to odekmem serve over its unix socket.
type Request struct {
	V           int             `json:"v"`
	Fingerprint string          `json:"fingerprint"`
	Options     Options         `json:"options"`
	Payload     json.RawMessage `json:"payload"`
}

// Response is serve's answer: the bytes to print, or why it could not.
type Response struct {
	Output []byte `json:"output,omitempty"`
	Error  string `json:"error,omitempty"`
	// Stale means the server runs another binary or configuration: the
	// client falls back and the server exits.
	Stale bool `json:"stale,omitempty"`
}

// Agents are the agents whose hook protocol Run speaks.
var Agents = []string{"claude-code", "codex", "gemini"}

// ProtocolVersion is Request.V.
const ProtocolVersion = 1

// SocketPath is where odekmem serve listens for a store: serve.sock in
// the store directory, or — when that path is too long for a unix socket —
// a per-user 0700 directory under the system temp dir.
func SocketPath(storeDir string) string {
	p := filepath.Join(storeDir, "serve.sock")
	if len(p) < 100 {
		return p
	}
	h := sha256.Sum256([]byte(storeDir))
	return filepath.Join(os.TempDir(), fmt.Sprintf("odekmem-%d", os.Getuid()), hex.EncodeToString(h[:8])+".sock")
}

// Fingerprint identifies the binary and the effective settings: a server
// answers only clients that would have behaved exactly like it.
func Fingerprint(s memcore.Settings) string {
	h := sha256.New()
	if exe, err := os.Executable(); err == nil {
		if fi, err := os.Stat(exe); err == nil {
			fmt.Fprintf(h, "%s|%d|%d|", exe, fi.Size(), fi.ModTime().UnixNano())
		}
	}
	s.Warnings = nil
	b, _ := json.Marshal(s)
	h.Write(b)
	return hex.EncodeToString(h.Sum(nil)[:12])
}

// OpenStore opens the configured store with its embedder and memory LLM.
func OpenStore(s memcore.Settings) (*memcore.Store, error) {
	emb, err := memcore.NewEmbedder(s.EffectiveEmbedding())
	if err != nil {
		return nil, err
	}
	llmc, _, err := memcore.NewLLM(s)
	if err != nil {
		return nil, err
	}
	cfg := s.Extended
	return memcore.Open(s.StoreDir(), memcore.Options{Config: &cfg, Embedder: emb, LLM: llmc})
}

// HookTimeout bounds a memory LLM call inside a hook: a per-prompt hook
// cannot wait for the library's default.
func HookTimeout(s memcore.Settings, budget time.Duration) time.Duration {
	t := time.Duration(s.Extended.HookTimeoutSeconds * float64(time.Second))
	if t <= 0 || t > budget/2 {
		t = budget / 2
	}
	return t
}

// Run is `odekmem hook <agent>`. It always returns 0: whatever goes wrong
// is logged under the store and nothing reaches stdout.
func Run(args []string, stdin io.Reader, stdout, stderr io.Writer, getenv func(string) string) int {
	if getenv == nil {
		getenv = os.Getenv
	}
	start := time.Now()
	var o Options
	var home string
	noServe := getenv("ODEKMEM_NO_SERVE") == "1"
	timeout := 10 * time.Second
	for i := 0; i < len(args); i++ {
		a := args[i]
		name, val, hasVal := strings.Cut(strings.TrimLeft(a, "-"), "=")
		switch {
		case !strings.HasPrefix(a, "-"):
			if o.Agent != "" {
				fmt.Fprintf(stderr, "odekmem hook: unexpected argument %q\n", a)
				return 0
			}
			o.Agent = a
		case name == "home" || name == "timeout":
			if !hasVal {
				if i+1 >= len(args) {
					fmt.Fprintf(stderr, "odekmem hook: --%s needs a value\n", name)
					return 0
				}
				i++
				val = args[i]
			}
			if name == "home" {
				home = val
			} else if d, err := time.ParseDuration(val); err == nil && d > 0 {
				timeout = d
			}
		case name == "tool-results":
			o.ToolResults = true
		case name == "no-serve":
			noServe = true
		default:
			fmt.Fprintf(stderr, "odekmem hook: unknown flag %s\n", a)
			return 0
		}
	}
	if !slices.Contains(Agents, o.Agent) {
		fmt.Fprintf(stderr, "odekmem hook: supported agents: %s (got %q)\n", strings.Join(Agents, ", "), o.Agent)
		return 0
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()

	settings, err := memcore.LoadSettings(memcore.LoadOptions{Home: home, Getenv: getenv})
	storeDir := ""
	if settings.Home != "" {
		storeDir = settings.StoreDir()
	}
	if err != nil {
		logTo(storeDir, "hook: settings: %v", err)
		return 0
	}
	payload, err := readAll(ctx, stdin)
	if err != nil {
		logTo(storeDir, "hook: stdin: %v", err)
		return 0
	}
	debug := getenv("ODEKMEM_HOOK_DEBUG") == "1"
	done := make(chan []byte, 1)
	go func() {
		out, via, err := call(ctx, settings, o, payload, noServe, timeout, getenv)
		if err != nil {
			logTo(storeDir, "hook %s: %v", o.Agent, err)
			out = nil
		} else if debug {
			logTo(storeDir, "hook %s: answered via %s in %v (%d bytes)", o.Agent, via, time.Since(start).Round(time.Microsecond), len(out))
		}
		done <- out
	}()
	select {
	case out := <-done:
		if len(out) > 0 {
			stdout.Write(append(out, '\n'))
		}
	case <-ctx.Done():
		logTo(storeDir, "hook %s: timed out after %v; nothing added to the turn", o.Agent, time.Since(start).Round(time.Millisecond))
	}
	return 0
}

func readAll(ctx context.Context, r io.Reader) ([]byte, error) {
	type res struct {
		b   []byte
		err error
	}
	ch := make(chan res, 1)
	go func() {
		b, err := io.ReadAll(io.LimitReader(r, maxPayload+1))
		ch <- res{b, err}
	}()
	select {
	case x := <-ch:
		if x.err != nil {
			return nil, x.err
		}
		if len(x.b) > maxPayload {
			return nil, fmt.Errorf("hook input over %d bytes", maxPayload)
		}
		return x.b, nil
	case <-ctx.Done():
		return nil, errors.New("no hook input on stdin before the timeout")
	}
}

// call asks a running odekmem serve, or starts one and handles this call
// itself.
func call(ctx context.Context, s memcore.Settings, o Options, payload []byte, noServe bool, timeout time.Duration, getenv func(string) string) ([]byte, string, error) {
	if len(strings.TrimSpace(string(payload))) == 0 {
		return nil, "", errors.New("empty hook input on stdin")
	}
	if !json.Valid(payload) {
		return nil, "", errors.New("hook input is not JSON")
	}
	fp := Fingerprint(s)
	sock := SocketPath(s.StoreDir())
	if !noServe {
		out, err := askServer(ctx, sock, Request{V: ProtocolVersion, Fingerprint: fp, Options: o, Payload: payload})
		if err == nil {
			return out, "serve", nil
		}
		var ne *net.OpError
		if errors.As(err, &ne) && ne.Op == "dial" || errors.Is(err, errStale) {
			startServer(s, getenv)
		} else {
			logTo(s.StoreDir(), "hook: serve: %v (handled in process)", err)
		}
	}
	st, err := OpenStore(s)
	if err != nil {
		return nil, "", err
	}
	defer st.Close()
	h := memcore.NewHook(st, memcore.HookOptions{Timeout: HookTimeout(s, timeout)})
	out, err := Handle(ctx, &Runtime{Store: st, Hook: h}, o, payload)
	h.Wait()
	return out, "process", err
}

var errStale = errors.New("server runs another binary or configuration")

func askServer(ctx context.Context, sock string, req Request) ([]byte, error) {
	d := net.Dialer{Timeout: 200 * time.Millisecond}
	c, err := d.DialContext(ctx, "unix", sock)
	if err != nil {
		return nil, err
	}
	defer c.Close()
	if dl, ok := ctx.Deadline(); ok {
		c.SetDeadline(dl)
	}
	if err := json.NewEncoder(c).Encode(req); err != nil {
		return nil, err
	}
	var resp Response
	if err := json.NewDecoder(bufio.NewReader(io.LimitReader(c, maxPayload))).Decode(&resp); err != nil {
		return nil, fmt.Errorf("read serve response: %w", err)
	}
	if resp.Stale {
		return nil, errStale
	}
	if resp.Error != "" {
		return nil, errors.New("serve: " + resp.Error)
	}
	return resp.Output, nil
}

// startServer launches `odekmem serve` detached from the hook's pipes, so
// the agent does not wait for it.
func startServer(s memcore.Settings, getenv func(string) string) {
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
