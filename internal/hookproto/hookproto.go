// Package hookproto is the wire between an agent hook and odekmem serve,
// and the thin client odekmem-hook uses. It imports nothing of memcore on
// purpose: a per-prompt hook process pays for every package initialiser
// linked into it, and memcore's (the scanner's tables, the LLM client)
// cost tens of milliseconds before main runs.
package hookproto

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
	"path/filepath"
	"sort"
	"strings"
	"time"
)

// ProtocolVersion is Request.V.
const ProtocolVersion = 2

// MaxPayload bounds a hook input.
const MaxPayload = 8 << 20

// Options are the hook command's flags that change what it does.
type Options struct {
	// Agent: claude-code, codex (the same protocol) or gemini.
	Agent string `json:"agent"`
	// ToolResults enables PostToolUse/AfterTool capture into quarantine.
	ToolResults bool `json:"tool_results"`
}

// Request is one hook call sent to odekmem serve.
type Request struct {
	V           int             `json:"v"`
	Fingerprint string          `json:"fingerprint"`
	Options     Options         `json:"options"`
	Payload     json.RawMessage `json:"payload"`
	// Ping asks only whether a server is there (odekmem doctor); it is
	// answered before any other check and changes nothing.
	Ping bool `json:"ping,omitempty"`
}

// Response is serve's answer: the bytes to print, or why it could not.
type Response struct {
	Output []byte `json:"output,omitempty"`
	Error  string `json:"error,omitempty"`
	// Stale means the server runs another binary or configuration than
	// the client would: the client falls back and the server exits.
	Stale bool `json:"stale,omitempty"`
}

// ErrStale is Response.Stale as an error.
var ErrStale = errors.New("server runs another binary or configuration")

// Home resolves the odek home the way internal/config.Load does: --home,
// else ODEK_HOME, else ~/.odek.
func Home(flagHome string, getenv func(string) string) string {
	switch {
	case flagHome != "":
		return flagHome
	case getenv("ODEK_HOME") != "":
		return getenv("ODEK_HOME")
	}
	h, err := os.UserHomeDir()
	if err != nil {
		return ""
	}
	return filepath.Join(h, ".odek")
}

// StoreDir is the store under a home.
func StoreDir(home string) string { return filepath.Join(home, "memory", "extended") }

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

// Fingerprint identifies the inputs of the settings: the home and every
// ODEK_* environment variable (values hashed, never sent). A server
// answers only clients whose settings it would load the same way; it
// checks its own binary and config.json itself.
func Fingerprint(home string, environ []string) string {
	abs, err := filepath.Abs(home)
	if err != nil {
		abs = home
	}
	var vars []string
	for _, kv := range environ {
		if strings.HasPrefix(kv, "ODEK_") && !strings.HasPrefix(kv, "ODEK_HOME=") {
			vars = append(vars, kv)
		}
	}
	sort.Strings(vars)
	h := sha256.New()
	fmt.Fprintf(h, "v%d\x00%s\x00%s", ProtocolVersion, abs, strings.Join(vars, "\x00"))
	return hex.EncodeToString(h.Sum(nil)[:12])
}

// Ask sends one request to the server at sock. A socket in a directory
// someone else could write is never dialled (CheckSocket): the error says
// why, and it is not a "no server" error, so no server is started there.
func Ask(ctx context.Context, sock string, req Request) ([]byte, error) {
	if err := CheckSocket(sock); err != nil {
		return nil, err
	}
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
	if err := json.NewDecoder(bufio.NewReader(io.LimitReader(c, MaxPayload))).Decode(&resp); err != nil {
		return nil, fmt.Errorf("read serve response: %w", err)
	}
	if resp.Stale {
		return nil, ErrStale
	}
	if resp.Error != "" {
		return nil, errors.New("serve: " + resp.Error)
	}
	return resp.Output, nil
}

// Ping reports whether an odekmem serve answers at sock.
func Ping(ctx context.Context, sock string) error {
	out, err := Ask(ctx, sock, Request{V: ProtocolVersion, Ping: true})
	if err != nil {
		return err
	}
	if string(out) != "pong" {
		return errors.New("unexpected answer from serve")
	}
	return nil
}

// IsNoServer reports whether err means nothing listens on the socket.
func IsNoServer(err error) bool {
	var ne *net.OpError
	return errors.As(err, &ne) && ne.Op == "dial"
}

// Args is a parsed hook command line.
type Args struct {
	Options
	Home    string
	NoServe bool
	Timeout time.Duration
}

// ParseArgs reads `<agent> [--home DIR] [--tool-results] [--no-serve]
// [--timeout D]`.
func ParseArgs(args []string) (Args, error) {
	a := Args{Timeout: 10 * time.Second}
	for i := 0; i < len(args); i++ {
		arg := args[i]
		name, val, hasVal := strings.Cut(strings.TrimLeft(arg, "-"), "=")
		switch {
		case !strings.HasPrefix(arg, "-"):
			if a.Agent != "" {
				return a, fmt.Errorf("unexpected argument %q", arg)
			}
			a.Agent = arg
		case name == "home" || name == "timeout":
			if !hasVal {
				if i+1 >= len(args) {
					return a, fmt.Errorf("--%s needs a value", name)
				}
				i++
				val = args[i]
			}
			if name == "home" {
				a.Home = val
			} else if d, err := time.ParseDuration(val); err == nil && d > 0 {
				a.Timeout = d
			} else {
				return a, fmt.Errorf("--timeout %q: expected a duration such as 10s", val)
			}
		case name == "tool-results":
			a.ToolResults = true
		case name == "no-serve":
			a.NoServe = true
		default:
			return a, fmt.Errorf("unknown flag %s", arg)
		}
	}
	switch a.Agent {
	case "claude-code", "codex", "gemini":
	default:
		return a, fmt.Errorf("supported agents: claude-code, codex, gemini (got %q)", a.Agent)
	}
	return a, nil
}

// ReadInput reads the hook payload from r within ctx.
func ReadInput(ctx context.Context, r io.Reader) ([]byte, error) {
	type res struct {
		b   []byte
		err error
	}
	ch := make(chan res, 1)
	go func() {
		b, err := io.ReadAll(io.LimitReader(r, MaxPayload+1))
		ch <- res{b, err}
	}()
	select {
	case x := <-ch:
		if x.err != nil {
			return nil, x.err
		}
		if len(x.b) > MaxPayload {
			return nil, fmt.Errorf("hook input over %d bytes", MaxPayload)
		}
		return x.b, nil
	case <-ctx.Done():
		return nil, errors.New("no hook input on stdin before the timeout")
	}
}

// Log file under the store, bounded by rotation.
const (
	LogName   = "hook.log"
	logMaxLen = 256 << 10
)

// AppendLog appends one line (already made safe by the caller) to the
// hook log under storeDir. It never fails the caller. The log is appended
// to only when it is a regular file: a symbolic link planted at hook.log
// (to ~/.bashrc, say) is not followed, and the line is dropped.
func AppendLog(storeDir, line string) {
	if storeDir == "" {
		return
	}
	os.MkdirAll(storeDir, 0o700) // the first call may come before any store exists
	p := filepath.Join(storeDir, LogName)
	fi, err := os.Lstat(p)
	switch {
	case err == nil && !fi.Mode().IsRegular():
		return
	case err == nil && fi.Size() > logMaxLen:
		os.Rename(p, p+".1") // renames a link at .1 itself, never its target
	}
	f, err := openLog(p)
	if err != nil {
		return
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		return
	}
	fmt.Fprintf(f, "%s %s\n", time.Now().UTC().Format(time.RFC3339), strings.ReplaceAll(line, "\n", " "))
}
