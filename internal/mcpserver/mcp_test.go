package mcpserver_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/odekmem/odekmem/internal/mcpserver"
	"github.com/odekmem/odekmem/internal/testkit"
	"github.com/odekmem/odekmem/memcore"
)

var bin string

func TestMain(m *testing.M) {
	testkit.RunWithBinaries(m, map[*string]string{&bin: testkit.Odekmem})
}

// cli runs the real binary against home.
func cli(t *testing.T, home string, args ...string) string {
	t.Helper()
	cmd := exec.Command(bin, append([]string{"--home", home}, args...)...)
	cmd.Env = append(os.Environ(), "ODEK_HOME=")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("odekmem %v: %v\n%s", args, err, out)
	}
	return string(out)
}

func call(t *testing.T, cs *mcp.ClientSession, name string, args map[string]any) map[string]any {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if res.IsError {
		t.Fatalf("%s: tool error %s", name, res.Content[0].(*mcp.TextContent).Text)
	}
	var m map[string]any
	if err := json.Unmarshal([]byte(res.Content[0].(*mcp.TextContent).Text), &m); err != nil {
		t.Fatalf("%s: result is not JSON: %v", name, err)
	}
	return m
}

func toolErrorText(t *testing.T, cs *mcp.ClientSession, name string, args map[string]any) string {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: protocol error %v, want a tool error", name, err)
	}
	if !res.IsError {
		t.Fatalf("%s: succeeded, want a refusal", name)
	}
	return res.Content[0].(*mcp.TextContent).Text
}

func ids(list any) []string {
	var out []string
	for _, e := range list.([]any) {
		out = append(out, e.(map[string]any)["id"].(string))
	}
	return out
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// exercise is the scenario both transports must pass.
func exercise(t *testing.T, cs *mcp.ClientSession, home, project string) {
	ctx := context.Background()
	tools, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range tools.Tools {
		names = append(names, tl.Name)
		if tl.Description == "" || tl.InputSchema == nil {
			t.Errorf("tool %s lacks a description or schema", tl.Name)
		}
	}
	for _, want := range mcpserver.ToolNames {
		if !contains(names, want) {
			t.Errorf("tool %s missing from %v", want, names)
		}
	}
	for _, n := range names {
		if strings.Contains(n, "promote") || strings.Contains(n, "confirm") || strings.Contains(n, "pin") || strings.Contains(n, "user_model") {
			t.Errorf("human-only action exposed: %s", n)
		}
	}

	// A trusted memory the person added is found, with score parts.
	trusted := strings.TrimSpace(cli(t, home, "add", "I prefer table-driven tests in Go", "--type", "preference", "--json"))
	var added struct {
		Atom struct {
			ID string `json:"id"`
		} `json:"atom"`
	}
	if err := json.Unmarshal([]byte(trusted), &added); err != nil || added.Atom.ID == "" {
		t.Fatalf("add --json: %v %s", err, trusted)
	}
	res := call(t, cs, "search_memories", map[string]any{"query": "table-driven tests", "k": 5})
	hits := res["results"].([]any)
	if len(hits) == 0 || !strings.Contains(hits[0].(map[string]any)["text"].(string), "table-driven tests") {
		t.Fatalf("search_memories did not find the trusted memory: %v", res)
	}
	h := hits[0].(map[string]any)
	if h["source_class"] != "user_approved" || h["type"] != "preference" || h["age"] == "" {
		t.Errorf("hit fields: %v", h)
	}
	if sc := h["score"].(map[string]any); sc["composite"].(float64) <= 0 || sc["similarity"] == nil || sc["retention"] == nil {
		t.Errorf("score parts: %v", sc)
	}

	// remember: agent-originated text lands in quarantine.
	prop := "The deploy script is scripts/ship.sh and takes the region as its first argument"
	r := call(t, cs, "remember", map[string]any{"text": prop, "type": "fact"})
	if r["quarantined"] != true || r["source_class"] != "agent_generated" {
		t.Fatalf("remember of agent text: %v, want quarantined agent_generated", r)
	}
	pid := r["id"].(string)
	// Never in search or recall until promoted.
	res = call(t, cs, "search_memories", map[string]any{"query": "deploy script ship.sh region"})
	if contains(ids(res["results"]), pid) {
		t.Fatal("a quarantined proposal appeared in search_memories")
	}
	rc := call(t, cs, "recall", map[string]any{"message": "how do I run the deploy script ship.sh?"})
	if strings.Contains(rc["context"].(string), "ship.sh") {
		t.Fatalf("a quarantined proposal appeared in recall: %s", rc["context"])
	}
	// search_quarantine finds it, marked untrusted and wrapped.
	sq := call(t, cs, "search_quarantine", map[string]any{"query": "deploy script region"})
	found := false
	for _, e := range sq["results"].([]any) {
		m := e.(map[string]any)
		if m["id"] == pid {
			found = true
			if m["trusted"] != false || !strings.Contains(m["text"].(string), "<untrusted_content_") || !strings.Contains(m["text"].(string), "ship.sh") {
				t.Errorf("quarantine hit not wrapped as untrusted: %v", m)
			}
		}
	}
	if !found {
		t.Fatalf("search_quarantine did not find the proposal: %v", sq)
	}
	lq := call(t, cs, "list_quarantine", nil)
	if !contains(ids(lq["entries"]), pid) {
		t.Errorf("list_quarantine misses the proposal")
	}
	for _, e := range lq["entries"].([]any) {
		if text := e.(map[string]any)["text"].(string); !strings.HasPrefix(text, "<untrusted_content_") && !strings.HasPrefix(text, "(withheld") {
			t.Errorf("list_quarantine entry not wrapped as untrusted: %q", text)
		}
	}

	// Once the person promotes it, it is recalled.
	cli(t, home, "promote", pid)
	res = call(t, cs, "search_memories", map[string]any{"query": "deploy script ship.sh region"})
	if !contains(ids(res["results"]), pid) {
		t.Fatalf("promoted proposal not found: %v", res)
	}

	// forget: a person's memory is refused; the promoted proposal is the
	// person's now, refused too; a fresh proposal of this session goes.
	if msg := toolErrorText(t, cs, "forget", map[string]any{"id": added.Atom.ID}); !strings.Contains(msg, "added itself in this session") {
		t.Errorf("forget of a person's memory: %s", msg)
	}
	if msg := toolErrorText(t, cs, "forget", map[string]any{"id": pid}); !strings.Contains(msg, "the user has reviewed this memory") {
		t.Errorf("forget of a promoted proposal: %s", msg)
	}
	r2 := call(t, cs, "remember", map[string]any{"text": "Staging database is called orbit-stage"})
	call(t, cs, "forget", map[string]any{"id": r2["id"]})
	if out := cli(t, home, "quarantine", "--json"); strings.Contains(out, r2["id"].(string)) {
		t.Error("forgotten proposal still in quarantine")
	}

	// Bad arguments fail the schema the SDK inferred from the argument
	// structs: a tool error the model can read (MCP reports input
	// validation as a tool error), and the server keeps serving.
	for _, bad := range []struct {
		tool string
		args map[string]any
	}{
		{"search_memories", map[string]any{"query": "x", "k": "ten"}},
		{"search_memories", map[string]any{"query": "x", "k": 500}},
		{"search_memories", map[string]any{}},
		{"search_memories", map[string]any{"query": "x", "type": "nonsense"}},
		{"remember", map[string]any{"text": "x", "confidence": 7}},
		{"remember", map[string]any{"text": "x", "source_class": "user_said"}},
		{"forget", map[string]any{"id": 12}},
		{"recall", map[string]any{"message": ""}},
		{"forget", map[string]any{"id": "  "}},
		{"list_quarantine", map[string]any{"limit": 0}},
		{"list_pending", map[string]any{"limit": 5}},
		{"search_quarantine", map[string]any{"query": "x", "type": "fact"}},
		{"search_quarantine", map[string]any{"query": " ", "k": 3}},
		{"remember", map[string]any{"text": strings.Repeat("x", memcore.ToolMaxText+1)}},
		{"remember", map[string]any{"text": "x", "confidence": 0}},
		{"search_memories", map[string]any{"query": strings.Repeat("q", memcore.ToolMaxQuery+1)}},
		{"recall", map[string]any{"message": strings.Repeat("m", 8001)}},
	} {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: bad.tool, Arguments: bad.args})
		if err != nil || !res.IsError || !strings.Contains(res.Content[0].(*mcp.TextContent).Text, "validating") {
			t.Errorf("%s %.80v: %v %v, want a tool error from validation", bad.tool, bad.args, res, err)
		}
	}
	for _, human := range []string{"promote", "confirm", "unpin"} {
		if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: human, Arguments: map[string]any{"id": pid}}); err == nil {
			t.Errorf("%s is callable", human)
		}
	}
	// Still alive.
	call(t, cs, "list_pending", nil)

	// Resources and the prompt.
	rr, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: mcpserver.URIStats})
	if err != nil || !strings.Contains(rr.Contents[0].Text, `"live"`) {
		t.Errorf("stats resource: %v %v", rr, err)
	}
	if _, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: mcpserver.URIUserModel}); err != nil {
		t.Errorf("user model resource: %v", err)
	}
	gp, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "what_do_you_remember", Arguments: map[string]string{"topic": "testing"}})
	if err != nil || !strings.Contains(gp.Messages[0].Content.(*mcp.TextContent).Text, "testing") {
		t.Errorf("prompt: %v %v", gp, err)
	}
}

func TestStdioSubprocess(t *testing.T) {
	home := t.TempDir()
	project := t.TempDir()
	cmd := exec.Command(bin, "mcp", "--create", "--home", home, "--project", project)
	// Claude Code tells the stdio servers it starts which session they
	// serve, with the session id its hooks get.
	cmd.Env = append(os.Environ(), "ODEK_HOME=", "CLAUDE_CODE_SESSION_ID=sess-1", "CODEX_THREAD_ID=")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	exercise(t, cs, home, project)

	// Verbatim from a message a hook recorded for this same session: the
	// person's own words, trusted. A paraphrase or a negated span is not.
	st, err := memcore.Open(ctx, testkit.StoreDir(home), memcore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.RecordAgentMessage(ctx, "claude-code", "sess-1", project, "Please note: I always run make lint before pushing. Thanks", time.Now()); err != nil {
		t.Fatal(err)
	}
	st.Close(context.Background())
	r := call(t, cs, "remember", map[string]any{"text": "I always run make lint before pushing", "type": "convention"})
	if r["quarantined"] != false || r["source_class"] != "user_said" {
		t.Errorf("verbatim words of the person: %v, want user_said", r)
	}
	r = call(t, cs, "remember", map[string]any{"text": "The user always runs make test before pushing"})
	if r["quarantined"] != true {
		t.Errorf("paraphrase was trusted: %v", r)
	}

	// Issue 21: "save that" points two messages back; the person's earlier
	// typed message in the session vouches for its words, and "Don't …"
	// is a statement.
	st, err = memcore.Open(ctx, testkit.StoreDir(home), memcore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range []string{"Don't use RS256 for JWTs.", "ok", "save that"} {
		if _, err := st.RecordAgentMessage(ctx, "claude-code", "sess-1", project, m, time.Now()); err != nil {
			t.Fatal(err)
		}
	}
	st.Close(context.Background())
	r = call(t, cs, "remember", map[string]any{"text": "Don't use RS256 for JWTs.", "type": "convention"})
	if r["quarantined"] != false || r["source_class"] != "user_said" {
		t.Errorf("the person's words two messages back: %v, want user_said", r)
	}
}

func TestHTTPTransport(t *testing.T) {
	home := t.TempDir()
	project := t.TempDir()
	st := testkit.OpenHome(t, home)
	srv := mcpserver.New(st, mcpserver.Options{Project: project})
	o := mcpserver.HTTPOptions{Addr: "127.0.0.1:0", Token: "0123456789abcdef-secret"}
	hs := httptest.NewServer(srv.Handler(o))
	defer hs.Close()
	ctx := context.Background()

	// Without the bearer token: refused.
	if _, err := mcp.NewClient(&mcp.Implementation{Name: "t"}, nil).Connect(ctx, &mcp.StreamableClientTransport{Endpoint: hs.URL}, nil); err == nil {
		t.Fatal("connected without the bearer token")
	}
	hc := hs.Client()
	hc.Transport = bearer{hc.Transport, o.Token}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "t"}, nil).Connect(ctx, &mcp.StreamableClientTransport{Endpoint: hs.URL, HTTPClient: hc}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	exercise(t, cs, home, project)
}

type bearer struct {
	rt    http.RoundTripper
	token string
}

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return b.rt.RoundTrip(r)
}

func TestHTTPAddressPolicy(t *testing.T) {
	for _, c := range []struct {
		o  mcpserver.HTTPOptions
		ok bool
	}{
		{mcpserver.HTTPOptions{Addr: "127.0.0.1:7411"}, false}, // loopback needs a token too
		{mcpserver.HTTPOptions{Addr: "127.0.0.1:7411", Token: "short"}, false},
		{mcpserver.HTTPOptions{Addr: "127.0.0.1:7411", Token: "0123456789abcdef0123"}, true},
		{mcpserver.HTTPOptions{Addr: "127.0.0.1:7411", NoToken: true}, true},
		{mcpserver.HTTPOptions{Addr: "[::1]:7411", Token: "0123456789abcdef0123"}, true},
		{mcpserver.HTTPOptions{Addr: "localhost:7411", Token: "0123456789abcdef0123"}, true},
		{mcpserver.HTTPOptions{Addr: "0.0.0.0:7411", AllowRemote: true, NoToken: true}, false},
		{mcpserver.HTTPOptions{Addr: "0.0.0.0:7411"}, false},
		{mcpserver.HTTPOptions{Addr: ":7411"}, false},
		{mcpserver.HTTPOptions{Addr: "0.0.0.0:7411", AllowRemote: true}, false},
		{mcpserver.HTTPOptions{Addr: "0.0.0.0:7411", AllowRemote: true, Token: "short"}, false},
		{mcpserver.HTTPOptions{Addr: "0.0.0.0:7411", AllowRemote: true, Token: "0123456789abcdef0123"}, true},
		{mcpserver.HTTPOptions{Addr: "nonsense"}, false},
	} {
		if err := mcpserver.CheckHTTP(c.o); (err == nil) != c.ok {
			t.Errorf("%+v: err = %v, want ok=%v", c.o, err, c.ok)
		}
	}
	// The binary refuses a public address without the explicit flag and
	// never takes the token from argv.
	home := t.TempDir()
	out, err := exec.Command(bin, "mcp", "--create", "--home", home, "--http", "0.0.0.0:0").CombinedOutput()
	if err == nil || !strings.Contains(string(out), "not a loopback address") {
		t.Errorf("public address accepted: %v %s", err, out)
	}
	out, err = exec.Command(bin, "mcp", "--create", "--home", home, "--http", "0.0.0.0:0", "--allow-remote", "--token", "0123456789abcdef0123").CombinedOutput()
	if err == nil || !strings.Contains(string(out), "unknown flag --token") {
		t.Errorf("--token on argv accepted: %v %s", err, out)
	}
}

func TestHTTPRejectsForeignHost(t *testing.T) {
	st, err := memcore.Open(context.Background(), t.TempDir(), memcore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close(context.Background())
	h := mcpserver.New(st, mcpserver.Options{}).Handler(mcpserver.HTTPOptions{Addr: "127.0.0.1:7411"})
	req := httptest.NewRequest("POST", "http://evil.example:7411/", strings.NewReader(`{}`))
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	if rec.Code != http.StatusForbidden {
		t.Errorf("DNS-rebinding host: status %d, want 403", rec.Code)
	}
}

// TestHTTPBearerSchemeIsCaseInsensitive: RFC 7235 makes the scheme name
// case-insensitive, so "bearer" and "BEARER" with the right token pass the
// check; another scheme or a wrong token does not.
func TestHTTPBearerSchemeIsCaseInsensitive(t *testing.T) {
	st, err := memcore.Open(context.Background(), t.TempDir(), memcore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close(context.Background())
	const token = "0123456789abcdef0123456789abcdef"
	h := mcpserver.New(st, mcpserver.Options{}).Handler(mcpserver.HTTPOptions{Addr: "127.0.0.1:7411", Token: token})
	for _, c := range []struct {
		auth string
		pass bool
	}{
		{"Bearer " + token, true},
		{"bearer " + token, true},
		{"BEARER " + token, true},
		{"Basic " + token, false},
		{"bearer " + token[:len(token)-1], false},
		{"bearer" + token, false},
		{token, false},
	} {
		req := httptest.NewRequest("POST", "http://127.0.0.1:7411/", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Authorization", c.auth)
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if got := rec.Code != http.StatusUnauthorized; got != c.pass {
			t.Errorf("Authorization %q: status %d, want pass=%v", c.auth, rec.Code, c.pass)
		}
	}
}
