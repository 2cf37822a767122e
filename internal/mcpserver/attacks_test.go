package mcpserver_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/odekmem/odekmem/internal/mcpserver"
	"github.com/odekmem/odekmem/internal/testkit"
	"github.com/odekmem/odekmem/memcore"
)

// Issue 25: the agent proposes the person's own words (stored as theirs),
// the person pins that memory in review, and an injected model calls
// forget on it. A pin is a review: the memory is the person's now.
func TestAttackMCPForgetOfProposalThePersonPinned(t *testing.T) {
	home, project := t.TempDir(), t.TempDir()
	st := testkit.OpenHome(t, home)
	ctx := context.Background()
	if _, err := st.RecordAgentMessage(ctx, "claude-code", "sess-1", project, "We release from the main branch every Tuesday.", st.Now()); err != nil {
		t.Fatal(err)
	}
	cs := inMemory(t, mcpserver.New(st, mcpserver.Options{Project: project, Session: sess1}))
	got := call(t, cs, "remember", map[string]any{"text": "We release from the main branch every Tuesday"})
	if got["quarantined"] != false {
		t.Fatalf("the person's words were not stored as theirs: %v", got)
	}
	id := got["id"].(string)
	if _, _, err := st.SetPin(ctx, id, true); err != nil {
		t.Fatal(err)
	}
	if msg := toolErrorText(t, cs, "forget", map[string]any{"id": id}); !strings.Contains(msg, "reviewed") {
		t.Errorf("forget of a memory the person pinned: %s", msg)
	}
	if a, _, err := st.Get(ctx, id); err != nil || !a.Pin {
		t.Fatalf("the pinned memory is gone: %+v %v", a, err)
	}
}

// Issue 25: remember took the person's words from any hooked session of
// the same project, so an agent without hooks (Cursor) got user_said for
// what the person typed to Claude Code. Only the session that started the
// server — the agent says which, and a hook recorded it — vouches.
func TestAttackMCPRememberLinksToAnyHookedSessionOfTheProject(t *testing.T) {
	home, project := t.TempDir(), t.TempDir()
	st := testkit.OpenHome(t, home)
	ctx := context.Background()
	msg := "Our payments service must never call the ledger directly."
	if _, err := st.RecordAgentMessage(ctx, "claude-code", "sess-1", project, msg, st.Now()); err != nil {
		t.Fatal(err)
	}
	text := "Our payments service must never call the ledger directly"
	for _, c := range []struct {
		name    string
		session mcpserver.AgentSessionRef
		trusted bool
	}{
		{"no session (Cursor, VS Code, Zed)", mcpserver.AgentSessionRef{}, false},
		{"another session of the same agent", mcpserver.AgentSessionRef{Agent: "claude-code", ID: "sess-2"}, false},
		{"the same id from another agent", mcpserver.AgentSessionRef{Agent: "codex", ID: "sess-1"}, false},
		{"the session the hook recorded", sess1, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			cs := inMemory(t, mcpserver.New(st, mcpserver.Options{Project: project, Session: c.session}))
			got := call(t, cs, "remember", map[string]any{"text": text})
			if trusted := got["source_class"] == string(memcore.SourceUserSaid) && got["quarantined"] == false; trusted != c.trusted {
				t.Errorf("remember: %v, want trusted=%v", got, c.trusted)
			}
			if id, _ := got["id"].(string); !c.trusted && id != "" {
				call(t, cs, "forget", map[string]any{"id": id}) // its own proposal: withdrawn for the next case
			}
		})
	}
	// The agent names its session in the environment it starts the
	// server with; Claude Code's variable is the one the hook's id
	// matches.
	if got := mcpserver.SessionFromEnv(func(k string) string {
		return map[string]string{"CLAUDE_CODE_SESSION_ID": "sess-1"}[k]
	}); got != sess1 {
		t.Errorf("SessionFromEnv: %+v", got)
	}
	if got := mcpserver.SessionFromEnv(func(string) string { return "" }); got.ID != "" {
		t.Errorf("SessionFromEnv without a session: %+v", got)
	}
}

// stdioServer is `odekmem mcp` over raw pipes, for lines no SDK client
// would send.
type stdioServer struct {
	t     *testing.T
	in    io.WriteCloser
	lines chan string
}

func startStdio(t *testing.T, env ...string) *stdioServer {
	t.Helper()
	cmd := exec.Command(bin, "mcp", "--create", "--home", t.TempDir(), "--project", t.TempDir())
	cmd.Env = append(append(os.Environ(), "ODEK_HOME=", "CLAUDE_CODE_SESSION_ID=", "CODEX_THREAD_ID="), env...)
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	s := &stdioServer{t: t, in: in, lines: make(chan string, 16)}
	go func() {
		r := bufio.NewReader(out)
		for {
			line, err := r.ReadString('\n')
			if line != "" {
				s.lines <- line
			}
			if err != nil {
				close(s.lines)
				return
			}
		}
	}()
	t.Cleanup(func() {
		in.Close()
		cmd.Wait()
		if stderr.Len() > 0 {
			t.Logf("server stderr: %s", stderr.String())
		}
	})
	s.send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`)
	s.next()
	s.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	return s
}

func (s *stdioServer) send(line string) {
	s.t.Helper()
	if _, err := io.WriteString(s.in, line+"\n"); err != nil {
		s.t.Fatalf("write: %v (the server is gone)", err)
	}
}

// rpcAnswer is one JSON-RPC response line.
type rpcAnswer struct {
	ID     json.RawMessage `json:"id"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// next is the server's next line, decoded; a guard ends a hang, it is not
// a timing assertion.
func (s *stdioServer) next() rpcAnswer {
	s.t.Helper()
	select {
	case line, ok := <-s.lines:
		if !ok {
			s.t.Fatal("the server closed its output: it ended")
		}
		var a rpcAnswer
		if err := json.Unmarshal([]byte(line), &a); err != nil {
			s.t.Fatalf("answer is not JSON: %q", line)
		}
		return a
	case <-time.After(2 * time.Minute):
		s.t.Fatal("no answer")
	}
	return rpcAnswer{}
}

// Issue 25: one malformed JSON-RPC line, or JSON nested deeper than 1,000,
// ended the stdio server (and with it the agent's memory for the rest of
// the session). Each bad line gets a JSON-RPC error and the server keeps
// serving.
func TestAttackMCPMalformedLineEndsTheStdioServer(t *testing.T) {
	s := startStdio(t)
	for _, c := range []struct {
		name, line string
		code       int
		id         string
	}{
		{"truncated JSON", `{"jsonrpc":"2.0","id":2,"method":"tools/list"`, -32700, "null"},
		{"not JSON at all", `hello`, -32700, "null"},
		{"nested 1,001 deep", `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"recall","arguments":{"message":` + strings.Repeat("[", 1001) + strings.Repeat("]", 1001) + `}}}`, -32600, "3"},
		{"nested 100,000 deep", strings.Repeat("[", 100000) + strings.Repeat("]", 100000), -32600, "null"},
		{"an empty batch", `[]`, -32600, "null"},
		{"a batch", `[{"jsonrpc":"2.0","id":4,"method":"ping"}]`, -32600, "null"},
		{"not JSON-RPC", `{"id":5,"method":"ping"}`, -32600, "5"},
		{"a response with no id", `{"jsonrpc":"2.0","result":{}}`, -32600, "null"},
	} {
		s.send(c.line)
		a := s.next()
		if a.Error == nil || a.Error.Code != c.code || string(a.ID) != c.id {
			t.Errorf("%s: answer %+v (id %s), want error %d with id %s", c.name, a.Error, a.ID, c.code, c.id)
		}
	}
	// Arguments of JSON null (the SDK panics on them with defaults to
	// apply) and an unknown tool: answers, not the end of the process.
	s.send(`{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"list_quarantine","arguments":null}}`)
	if a := s.next(); a.Error != nil || string(a.ID) != "6" {
		t.Errorf("null arguments: %+v", a)
	}
	s.send(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"promote","arguments":{}}}`)
	if a := s.next(); a.Error == nil {
		t.Errorf("unknown tool: %+v", a)
	}
	s.send(`{"jsonrpc":"2.0","id":8,"method":"tools/list"}`)
	if a := s.next(); a.Error != nil || string(a.ID) != "8" || !strings.Contains(string(a.Result), "search_memories") {
		t.Fatalf("the server stopped serving: %+v", a)
	}
}

// Issue 25: a query had no size bound over stdio (3 MiB took 4.3 s and
// 340 MB). A line over the message bound is refused before it is decoded,
// and every string argument is bounded by the tool's schema; the server
// keeps serving.
func TestAttackMCPHugeQueryOverStdio(t *testing.T) {
	s := startStdio(t)
	call := func(id int, tool string, args map[string]any) string {
		b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": map[string]any{"name": tool, "arguments": args}})
		return string(b)
	}
	s.send(call(2, "search_memories", map[string]any{"query": strings.Repeat("retry backoff ", 3<<20/14)}))
	if a := s.next(); a.Error == nil || !strings.Contains(a.Error.Message, "too large") {
		t.Errorf("3 MiB query: %+v", a)
	}
	for i, c := range []struct {
		tool string
		args map[string]any
	}{
		{"search_memories", map[string]any{"query": strings.Repeat("q", 900<<10)}},
		{"search_quarantine", map[string]any{"query": strings.Repeat("q", memcore.ToolMaxQuery+1)}},
		{"recall", map[string]any{"message": strings.Repeat("m", 100<<10)}},
		{"remember", map[string]any{"text": strings.Repeat("t", memcore.ToolMaxText+1)}},
		{"search_memories", map[string]any{"query": "x", "project": strings.Repeat("p", 5000)}},
		{"forget", map[string]any{"id": strings.Repeat("f", 200)}},
	} {
		s.send(call(3+i, c.tool, c.args))
		a := s.next()
		var res struct {
			IsError bool `json:"isError"`
			Content []struct {
				Text string `json:"text"`
			} `json:"content"`
		}
		json.Unmarshal(a.Result, &res)
		if a.Error != nil || !res.IsError || len(res.Content) == 0 || !strings.Contains(res.Content[0].Text, "validating") {
			t.Errorf("%s with an argument over its bound: %+v %s", c.tool, a.Error, a.Result)
		}
	}
	s.send(call(20, "search_memories", map[string]any{"query": "retry backoff"}))
	if a := s.next(); a.Error != nil || strings.Contains(string(a.Result), `"isError":true`) {
		t.Fatalf("the server stopped serving: %+v %s", a.Error, a.Result)
	}
}

// Issue 25: the server kept state for every MCP session it ever saw. Over
// HTTP every client is a session; the state is bounded, least recently
// used out.
func TestAttackMCPSessionFloodGrowsStateWithoutBound(t *testing.T) {
	defer mcpserver.SetMaxSessions(4)()
	st := testkit.OpenHome(t, t.TempDir())
	srv := mcpserver.New(st, mcpserver.Options{Project: t.TempDir()})
	hs := httptest.NewServer(srv.Handler(mcpserver.HTTPOptions{Addr: "127.0.0.1:0", NoToken: true}))
	defer hs.Close()
	ctx := context.Background()
	for i := 0; i < 12; i++ {
		cs, err := mcp.NewClient(&mcp.Implementation{Name: fmt.Sprint("flood", i)}, nil).Connect(ctx, &mcp.StreamableClientTransport{Endpoint: hs.URL}, nil)
		if err != nil {
			t.Fatal(err)
		}
		call(t, cs, "recall", map[string]any{"message": "what do we use for retries?"})
		cs.Close()
		if n := srv.SessionsKept(); n > 4 {
			t.Fatalf("after %d sessions the server keeps state for %d, bound 4", i+1, n)
		}
	}
}

// Issue 25: annotations are what lets an agent auto-approve the safe
// tools, so each must be true: the read-only tools leave every file of the
// store as it was, none reaches outside the store, remember only adds and
// forget is the one destructive tool.
func TestMCPToolAnnotationsAreTruthful(t *testing.T) {
	home, project := t.TempDir(), t.TempDir()
	st := testkit.OpenHome(t, home)
	ctx := context.Background()
	st.Add(ctx, memcore.AddRequest{Text: "we use exponential backoff for retries", Source: memcore.SourceUserApproved})
	st.Add(ctx, memcore.AddRequest{Text: "the page says retries are capped at five", Source: memcore.SourceWeb})
	cs := inMemory(t, mcpserver.New(st, mcpserver.Options{Project: project}))
	tools, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][2]bool{ // readOnly, destructive
		"search_memories": {true, false}, "recall": {true, false}, "list_quarantine": {true, false},
		"list_pending": {true, false}, "search_quarantine": {true, false}, "remember": {false, false}, "forget": {false, true},
	}
	args := map[string]map[string]any{"search_memories": {"query": "retries"}, "recall": {"message": "how do we retry?"},
		"list_quarantine": {}, "list_pending": {}, "search_quarantine": {"query": "retries"}}
	for _, tl := range tools.Tools {
		a := tl.Annotations
		w, ok := want[tl.Name]
		if !ok || a == nil || a.OpenWorldHint == nil || *a.OpenWorldHint || a.DestructiveHint == nil {
			t.Errorf("%s: annotations %+v", tl.Name, a)
			continue
		}
		if a.ReadOnlyHint != w[0] || *a.DestructiveHint != w[1] {
			t.Errorf("%s: readOnly=%v destructive=%v, want %v", tl.Name, a.ReadOnlyHint, *a.DestructiveHint, w)
		}
		if tl.InputSchema == nil {
			t.Errorf("%s has no input schema", tl.Name)
		}
		if !a.ReadOnlyHint {
			continue
		}
		before := snapshot(t, testkit.StoreDir(home))
		call(t, cs, tl.Name, args[tl.Name])
		if after := snapshot(t, testkit.StoreDir(home)); after != before {
			t.Errorf("read-only %s changed the store:\n%s\n---\n%s", tl.Name, before, after)
		}
	}
}

// snapshot lists every file of a store with its size and modification
// time.
func snapshot(t *testing.T, dir string) string {
	var b strings.Builder
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		fmt.Fprintf(&b, "%s %d %d\n", p, fi.Size(), fi.ModTime().UnixNano())
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// Issue 24: initialize and tools/list are answered while the store is
// still opening; a tool call waits for it, and past the timeout says so.
func TestMCPAnswersBeforeTheStoreOpens(t *testing.T) {
	dir := t.TempDir()
	release := make(chan struct{})
	srv := mcpserver.Start(func() (*memcore.Store, error) {
		<-release
		return memcore.Open(context.Background(), dir, memcore.Options{})
	}, mcpserver.Options{OpenTimeout: 50 * time.Millisecond})
	defer srv.Close()
	cs := inMemory(t, srv)
	ctx := context.Background()
	tools, err := cs.ListTools(ctx, nil)
	if err != nil || len(tools.Tools) != len(mcpserver.ToolNames) {
		t.Fatalf("tools/list while the store opens: %v %v", tools, err)
	}
	if msg := toolErrorText(t, cs, "search_memories", map[string]any{"query": "anything"}); !strings.Contains(msg, "still opening") {
		t.Errorf("a call past the open timeout: %s", msg)
	}
	close(release)
	deadline := time.Now().Add(2 * time.Minute) // a guard against a hang, not a timing assertion
	for {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "list_pending", Arguments: map[string]any{}})
		if err == nil && !res.IsError {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the store never became usable: %v %v", res, err)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// A store that cannot be opened is named in each call's error, and a
// later call tries again.
func TestMCPRetriesAFailedOpen(t *testing.T) {
	dir := t.TempDir()
	var attempts atomic.Int32
	var broken atomic.Bool
	broken.Store(true)
	srv := mcpserver.Start(func() (*memcore.Store, error) {
		attempts.Add(1)
		if broken.Load() {
			return nil, errors.New("lock held by another process")
		}
		return memcore.Open(context.Background(), dir, memcore.Options{})
	}, mcpserver.Options{})
	cs := inMemory(t, srv)
	if msg := toolErrorText(t, cs, "list_pending", nil); !strings.Contains(msg, "could not be opened: lock held") {
		t.Errorf("a call while the store cannot be opened: %s", msg)
	}
	broken.Store(false)
	call(t, cs, "list_pending", nil)
	if n := attempts.Load(); n < 2 {
		t.Errorf("%d attempts to open, want a second one", n)
	}
	if err := srv.Close(); err != nil {
		t.Fatal(err)
	}
	if msg := toolErrorText(t, cs, "list_pending", nil); !strings.Contains(msg, "closed") {
		t.Errorf("a call after Close: %s", msg)
	}
}

// The same bound over HTTP: a request body over the message bound is
// refused, and the server keeps serving.
func TestAttackMCPHugeBodyOverHTTP(t *testing.T) {
	st := testkit.OpenHome(t, t.TempDir())
	srv := mcpserver.New(st, mcpserver.Options{})
	hs := httptest.NewServer(srv.Handler(mcpserver.HTTPOptions{Addr: "127.0.0.1:0", NoToken: true}))
	defer hs.Close()
	ctx := context.Background()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "big"}, nil).Connect(ctx, &mcp.StreamableClientTransport{Endpoint: hs.URL}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "search_memories", Arguments: map[string]any{"query": strings.Repeat("retry backoff ", 3<<20/14)}}); err == nil {
		t.Error("a 3 MiB request was served")
	}
	cs2, err := mcp.NewClient(&mcp.Implementation{Name: "after"}, nil).Connect(ctx, &mcp.StreamableClientTransport{Endpoint: hs.URL}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs2.Close()
	call(t, cs2, "search_memories", map[string]any{"query": "retry backoff"})
}
