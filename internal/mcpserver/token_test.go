package mcpserver_test

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/odekmem/odekmem/internal/mcpserver"
	"github.com/odekmem/odekmem/internal/testkit"
)

// Loopback is not a boundary between the users of one machine: any local
// account can connect to 127.0.0.1. These tests start the real binary's
// `odekmem mcp --http 127.0.0.1:0` and talk to it with the MCP SDK client.

// httpServer is a running `odekmem mcp --http` child.
type httpServer struct {
	url    string
	stderr []string
}

var listening = regexp.MustCompile(`listening on (http://[^ ]+/)`)

// startHTTP starts the binary and waits for its address; it fails the
// test when the server exits first, and returns what it printed.
func startHTTP(t *testing.T, home string, env []string, args ...string) (*httpServer, error) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, bin, append([]string{"mcp", "--create", "--home", home, "--http", "127.0.0.1:0"}, args...)...)
	cmd.Env = append(append(os.Environ(), "ODEK_HOME=", "ODEKMEM_MCP_TOKEN="), env...)
	pr, pw := io.Pipe()
	cmd.Stderr = pw
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait(); pw.Close() }()
	t.Cleanup(func() { cancel(); <-done })
	s := &httpServer{}
	lines := make(chan string)
	go func() {
		sc := bufio.NewScanner(pr)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	deadline := time.After(time.Minute)
	for {
		select {
		case l, ok := <-lines:
			if !ok {
				return s, &exitErr{strings.Join(s.stderr, "\n")}
			}
			s.stderr = append(s.stderr, l)
			if m := listening.FindStringSubmatch(l); m != nil {
				s.url = m[1]
				// Drain the rest (the token hint) in the background.
				go func() {
					for l := range lines {
						_ = l
					}
				}()
				time.Sleep(50 * time.Millisecond)
				return s, nil
			}
		case <-deadline:
			t.Fatalf("no address after a minute: %v", s.stderr)
		}
	}
}

type exitErr struct{ out string }

func (e *exitErr) Error() string { return "exited: " + e.out }

func connect(ctx context.Context, url, token string) (*mcp.ClientSession, error) {
	hc := &http.Client{Timeout: 30 * time.Second}
	if token != "" {
		hc.Transport = bearer{http.DefaultTransport, token}
	}
	return mcp.NewClient(&mcp.Implementation{Name: "t"}, nil).Connect(ctx, &mcp.StreamableClientTransport{Endpoint: url, HTTPClient: hc}, nil)
}

// TestAttackLocalUserReadsMemoriesOverLoopbackHTTP: without any token
// configured, `odekmem mcp --http 127.0.0.1:…` creates one in the store
// (0600), refuses clients that do not send it, serves the ones that do,
// and keeps the same token on the next start.
func TestAttackLocalUserReadsMemoriesOverLoopbackHTTP(t *testing.T) {
	home := t.TempDir()
	cli(t, home, "--create", "add", "--type", "fact", "the payments ledger uses PostgreSQL 16")
	srv, err := startHTTP(t, home, nil)
	if err != nil {
		t.Fatal(err)
	}
	tokPath := filepath.Join(testkit.StoreDir(home), mcpserver.TokenFile)
	fi, err := os.Lstat(tokPath)
	if err != nil || !fi.Mode().IsRegular() || fi.Mode().Perm() != 0o600 {
		t.Fatalf("token file %s: %v %v", tokPath, fi, err)
	}
	raw, _ := os.ReadFile(tokPath)
	token := strings.TrimSpace(string(raw))
	if len(token) < 32 {
		t.Fatalf("token %q too short", token)
	}
	if strings.Contains(strings.Join(srv.stderr, "\n"), token) {
		t.Fatalf("the server printed the token: %v", srv.stderr)
	}
	ctx := context.Background()
	// Another local user without the token: refused.
	if cs, err := connect(ctx, srv.url, ""); err == nil {
		cs.Close()
		t.Fatal("connected to loopback HTTP without the bearer token")
	}
	if cs, err := connect(ctx, srv.url, strings.Repeat("0", 64)); err == nil {
		cs.Close()
		t.Fatal("connected with a wrong bearer token")
	}
	// The person's client with the token: served.
	cs, err := connect(ctx, srv.url, token)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	got := call(t, cs, "search_memories", map[string]any{"query": "payments ledger database"})
	if b, _ := json.Marshal(got); !strings.Contains(string(b), "PostgreSQL") {
		t.Fatalf("search over HTTP: %v", got)
	}

	// The next start keeps the token.
	srv2, err := startHTTP(t, home, nil)
	if err != nil {
		t.Fatal(err)
	}
	raw2, _ := os.ReadFile(tokPath)
	if strings.TrimSpace(string(raw2)) != token {
		t.Fatal("the token changed on the next start")
	}
	cs2, err := connect(ctx, srv2.url, token)
	if err != nil {
		t.Fatalf("same token, second server: %v", err)
	}
	cs2.Close()
}

// TestLoopbackHTTPNoTokenIsExplicitAndLoud: --no-token serves without a
// token and says so on stderr; it creates no token file and is refused
// beside a token or on a public address.
func TestLoopbackHTTPNoTokenIsExplicitAndLoud(t *testing.T) {
	home := t.TempDir()
	srv, err := startHTTP(t, home, nil, "--no-token")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(strings.Join(srv.stderr, "\n"), "warning: --no-token") {
		t.Fatalf("no warning: %v", srv.stderr)
	}
	if _, err := os.Lstat(filepath.Join(testkit.StoreDir(home), mcpserver.TokenFile)); err == nil {
		t.Fatal("--no-token created a token file")
	}
	cs, err := connect(context.Background(), srv.url, "")
	if err != nil {
		t.Fatalf("--no-token refused a client: %v", err)
	}
	cs.Close()
	for _, args := range [][]string{
		{"--no-token", "--token-file", "/dev/null"},
		{"--no-token"},
	} {
		env := []string{}
		if len(args) == 1 {
			env = append(env, "ODEKMEM_MCP_TOKEN=0123456789abcdef0123")
		}
		if _, err := startHTTP(t, home, env, args...); err == nil || !strings.Contains(err.Error(), "choose one") {
			t.Errorf("%v: %v", args, err)
		}
	}
	out, err := exec.Command(bin, "mcp", "--create", "--home", home, "--http", "0.0.0.0:0", "--allow-remote", "--no-token").CombinedOutput()
	if err == nil || !strings.Contains(string(out), "loopback only") {
		t.Errorf("--no-token on a public address: %v %s", err, out)
	}
}

// TestAttackPlantedOrReadableTokenFileIsRefused: a token file others can
// read is no secret, and one reached through a link may be someone else's:
// the server refuses to start and says what to do.
func TestAttackPlantedOrReadableTokenFileIsRefused(t *testing.T) {
	home := t.TempDir()
	cli(t, home, "--create", "add", "--type", "fact", "the staging DB is shared with QA")
	tokPath := filepath.Join(testkit.StoreDir(home), mcpserver.TokenFile)
	os.WriteFile(tokPath, []byte("0123456789abcdef0123456789abcdef\n"), 0o644)
	os.Chmod(tokPath, 0o644)
	if _, err := startHTTP(t, home, nil); err == nil || !strings.Contains(err.Error(), "chmod 600") {
		t.Fatalf("world-readable token file: %v", err)
	}
	os.Remove(tokPath)
	outside := filepath.Join(t.TempDir(), "tok")
	os.WriteFile(outside, []byte("0123456789abcdef0123456789abcdef\n"), 0o600)
	os.Symlink(outside, tokPath)
	if _, err := startHTTP(t, home, nil); err == nil || !strings.Contains(err.Error(), "symbolic link") {
		t.Fatalf("linked token file: %v", err)
	}
	// --token-file obeys the same rules.
	os.Chmod(outside, 0o640)
	if _, err := startHTTP(t, t.TempDir(), nil, "--token-file", outside); err == nil || !strings.Contains(err.Error(), "chmod 600") {
		t.Fatalf("group-readable --token-file: %v", err)
	}
}
