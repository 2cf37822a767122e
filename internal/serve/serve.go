// Package serve is `odekmem serve`: a long-lived process that keeps one
// store open and answers agent-hook calls over a unix socket under the
// store, so a per-prompt hook does not pay for opening the store (about
// 256 ms at 18k atoms). The hook starts it on demand; it exits when idle.
//
// It follows the store's lock discipline: the store's file lock is held
// only for the length of each operation, so the TUI, the CLI and odek keep
// writing, and every read refreshes what another process changed. One
// server per store (serve.lock); a server that finds another binary or
// configuration on the other end tells the client to fall back and exits.
package serve

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/odekmem/odekmem/internal/config"

	"github.com/odekmem/odekmem/internal/agenthook"
	"github.com/odekmem/odekmem/internal/hookproto"
	"github.com/odekmem/odekmem/memcore"
)

// Options configure Run.
type Options struct {
	// Idle is how long the server waits for a call before it exits.
	Idle time.Duration
	// Ready, when set, is called once the socket accepts calls.
	Ready func(sock string)
}

// DefaultIdle is ODEKMEM_SERVE_IDLE (a Go duration) or 10 minutes.
func DefaultIdle() time.Duration {
	if d, err := time.ParseDuration(os.Getenv("ODEKMEM_SERVE_IDLE")); err == nil && d > 0 {
		return d
	}
	return 10 * time.Minute
}

// ErrRunning means another odekmem serve already serves this store.
var ErrRunning = errors.New("odekmem serve is already running for this store")

// Run serves until ctx ends, the server has been idle for o.Idle, or a
// client with another fingerprint shows the server is stale.
func Run(ctx context.Context, s config.Settings, o Options) error {
	if o.Idle <= 0 {
		o.Idle = DefaultIdle()
	}
	dir := s.StoreDir()
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	unlock, err := lockFile(filepath.Join(dir, "serve.lock"))
	if err != nil {
		return err
	}
	defer unlock()
	sock := agenthook.SocketPath(dir)
	if d := filepath.Dir(sock); d != dir {
		if err := privateDir(d); err != nil {
			return err
		}
	}
	// Clients refuse a socket in a directory others can write; so does the
	// server (it would be listening where it could be replaced).
	if err := hookproto.CheckSocket(sock); err != nil {
		return err
	}
	os.Remove(sock) // a stale socket of a server that died; we hold the lock
	ln, err := net.Listen("unix", sock)
	if err != nil {
		return fmt.Errorf("listen %s: %w", sock, err)
	}
	defer os.Remove(sock)
	if err := os.Chmod(sock, 0o600); err != nil {
		ln.Close()
		return err
	}
	st, err := agenthook.OpenStore(ctx, agenthook.WithHookTimeout(s, 10*time.Second))
	if err != nil {
		ln.Close()
		return err
	}
	h := memcore.NewHook(st)
	// A turn's writes run after the answer, in arrival order, on one
	// worker: the agent's prompt does not wait for fsyncs, and turns of a
	// session are stored in the order they came.
	jobs := make(chan func(context.Context), 256)
	var jobsDone sync.WaitGroup
	jobsDone.Add(1)
	go func() {
		defer jobsDone.Done()
		for job := range jobs {
			jctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			job(jctx)
			cancel()
		}
	}()
	rt := &agenthook.Runtime{Store: st, Hook: h, Later: func(job func(context.Context)) {
		select {
		case jobs <- job:
		default: // a backlog: do it now rather than drop it
			job(context.Background())
		}
	}, Wait: func(job func(context.Context)) {
		done := make(chan struct{})
		wrapped := func(ctx context.Context) { defer close(done); job(ctx) }
		select {
		case jobs <- wrapped:
			<-done
		default:
			wrapped(context.Background())
		}
	}}
	fp := hookproto.Fingerprint(s.Home, os.Environ())
	self := selfSig(s)

	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var last atomic.Int64
	last.Store(time.Now().UnixNano())
	var active atomic.Int32
	var wg sync.WaitGroup
	go func() {
		t := time.NewTicker(min(o.Idle/4, 5*time.Second))
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				ln.Close()
				return
			case <-t.C:
				if active.Load() == 0 && time.Since(time.Unix(0, last.Load())) >= o.Idle {
					cancel()
				}
			}
		}
	}()
	if o.Ready != nil {
		o.Ready(sock)
	}
	for {
		c, err := ln.Accept()
		if err != nil {
			break
		}
		active.Add(1)
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer active.Add(-1)
			defer last.Store(time.Now().UnixNano())
			if stale := serveConn(ctx, rt, fp, self, s, c); stale {
				agenthook.Log(dir, "serve: a client runs another binary or configuration; exiting")
				cancel()
			}
		}()
	}
	wg.Wait()
	close(jobs)
	jobsDone.Wait()               // every accepted turn is stored before the server exits
	h.Close(context.Background()) // waits for the background inference
	return st.Close(context.Background())
}

// serveConn answers one request and reports whether the client showed
// that this server is stale.
func serveConn(ctx context.Context, rt *agenthook.Runtime, fp, self string, s config.Settings, c net.Conn) bool {
	defer c.Close()
	c.SetDeadline(time.Now().Add(30 * time.Second))
	var req hookproto.Request
	if err := json.NewDecoder(bufio.NewReader(io.LimitReader(c, 16<<20))).Decode(&req); err != nil {
		json.NewEncoder(c).Encode(hookproto.Response{Error: "bad request: " + err.Error()})
		return false
	}
	if req.Ping {
		json.NewEncoder(c).Encode(hookproto.Response{Output: []byte("pong")})
		return false
	}
	// Stale: another protocol, other settings inputs, or this binary or
	// config.json changed on disk since the server started.
	if req.V != hookproto.ProtocolVersion || req.Fingerprint != fp || selfSig(s) != self {
		json.NewEncoder(c).Encode(hookproto.Response{Stale: true})
		return true
	}
	cctx, cancel := context.WithTimeout(ctx, 25*time.Second)
	defer cancel()
	out, err := agenthook.Handle(cctx, rt, req.Options, req.Payload)
	resp := hookproto.Response{Output: out}
	if err != nil {
		resp = hookproto.Response{Error: err.Error()}
	}
	json.NewEncoder(c).Encode(resp)
	return false
}

// selfSig identifies this server's binary and the user config file on
// disk; when either changes, clients are told to fall back and the server
// exits, so the next one runs the new code and settings.
func selfSig(s config.Settings) string {
	var b strings.Builder
	for _, p := range []string{executable(), filepath.Join(s.Home, "config.json")} {
		if fi, err := os.Stat(p); err == nil {
			fmt.Fprintf(&b, "%s|%d|%d;", p, fi.Size(), fi.ModTime().UnixNano())
		} else {
			fmt.Fprintf(&b, "%s|-;", p)
		}
	}
	return b.String()
}

func executable() string {
	p, _ := os.Executable()
	return p
}

// privateDir creates dir 0700 and refuses one that another user owns or
// others can write (a pre-planted directory in a shared temp dir).
func privateDir(dir string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	fi, err := os.Lstat(dir)
	if err != nil {
		return err
	}
	if !fi.IsDir() || fi.Mode().Perm()&0o077 != 0 || !ownedByMe(fi) {
		return fmt.Errorf("socket directory %s is not a private directory of this user", dir)
	}
	return nil
}
