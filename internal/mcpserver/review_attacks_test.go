package mcpserver_test

import (
	"context"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/odekmem/odekmem/internal/mcpserver"
	"github.com/odekmem/odekmem/internal/testkit"
	"github.com/odekmem/odekmem/memcore"
)

// sess1 is the Claude Code session the tests' hook records messages for.
var sess1 = mcpserver.AgentSessionRef{Agent: "claude-code", ID: "sess-1"}

// inMemory connects an SDK client to srv over in-memory transports.
func inMemory(t *testing.T, srv *mcpserver.Server) *mcp.ClientSession {
	t.Helper()
	ctx := context.Background()
	ct, st := mcp.NewInMemoryTransports()
	ss, err := srv.MCP().Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "attacker"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// An injected model reads a person's memory with search_memories, proposes
// its exact text with remember (which only refreshes the person's atom) and
// then calls forget on the id remember returned: the person's memory must
// survive, because the MCP session never proposed it.
func TestMCPForgetOfPersonsMemoryViaDuplicateRemember(t *testing.T) {
	home := t.TempDir()
	st := testkit.OpenHome(t, home)
	ctx := context.Background()
	for _, src := range []memcore.Source{memcore.SourceUserApproved, memcore.SourceUserSaid} {
		text := "the payments ledger uses PostgreSQL 16 in " + string(src)
		r, err := st.Add(ctx, memcore.AddRequest{Text: text, Source: src})
		if err != nil || r.Quarantined {
			t.Fatalf("seed: %+v %v", r, err)
		}
		cs := inMemory(t, mcpserver.New(st, mcpserver.Options{Project: t.TempDir()}))
		got := call(t, cs, "remember", map[string]any{"text": text})
		id, _ := got["id"].(string)
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "forget", Arguments: map[string]any{"id": r.Atom.ID}})
		if err != nil {
			t.Fatal(err)
		}
		if !res.IsError {
			t.Errorf("forget of the person's %s atom %s succeeded after a duplicate remember (returned id %s)", src, r.Atom.ID, id)
		}
		if _, _, err := st.Get(ctx, r.Atom.ID); err != nil {
			t.Fatalf("the person's %s memory is gone: %v", src, err)
		}
	}
}

// The same with a web page's quarantined evidence: remembering its text
// makes a new agent proposal; forgetting that leaves the evidence.
func TestMCPForgetOfQuarantinedEvidenceViaDuplicateRemember(t *testing.T) {
	home := t.TempDir()
	st := testkit.OpenHome(t, home)
	ctx := context.Background()
	text := "the deploy page says staging shares its database with QA"
	r, err := st.Add(ctx, memcore.AddRequest{Text: text, Source: memcore.SourceWeb, Context: memcore.AtomContext{SessionID: "s1"}})
	if err != nil || !r.Quarantined {
		t.Fatalf("seed: %+v %v", r, err)
	}
	cs := inMemory(t, mcpserver.New(st, mcpserver.Options{Project: t.TempDir()}))
	got := call(t, cs, "remember", map[string]any{"text": text})
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "forget", Arguments: map[string]any{"id": got["id"]}})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := st.Get(ctx, r.Atom.ID); err != nil {
		t.Fatalf("the quarantined web evidence is gone (forget error=%v): %v", res.IsError, err)
	}
}

// The person repeats a memory they approved earlier; an injected model
// calls remember with exactly those words (verbatim, so user_said, which
// only refreshes the approved atom and returns its id) and then forget on
// that id. The approved memory must survive: the session never proposed it.
func TestMCPForgetOfApprovedMemoryViaVerbatimRefresh(t *testing.T) {
	home := t.TempDir()
	project := t.TempDir()
	st := testkit.OpenHome(t, home)
	ctx := context.Background()
	text := "the payments ledger uses PostgreSQL 16"
	r, err := st.Add(ctx, memcore.AddRequest{Text: text, Source: memcore.SourceUserApproved})
	if err != nil || r.Quarantined {
		t.Fatalf("seed: %+v %v", r, err)
	}
	if _, err := st.RecordAgentMessage(ctx, "claude-code", "sess-1", project, "As I said before, the payments ledger uses PostgreSQL 16. Now fix the migration.", st.Now()); err != nil {
		t.Fatal(err)
	}
	cs := inMemory(t, mcpserver.New(st, mcpserver.Options{Project: project, Session: sess1}))
	got := call(t, cs, "remember", map[string]any{"text": text})
	if got["id"] != r.Atom.ID {
		t.Fatalf("expected a refresh of %s: %v", r.Atom.ID, got)
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "forget", Arguments: map[string]any{"id": got["id"]}})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := st.Get(ctx, r.Atom.ID); err != nil {
		t.Fatalf("the person's approved memory is gone (forget error=%v): %v", res.IsError, err)
	}
	if !res.IsError {
		t.Fatalf("forget of a refreshed memory was not refused")
	}
}

// TestAttackMCPRememberOfPastedLogLineAsUserSaid: the person pasted a log
// into their message (no fence) and an injected model calls remember with
// a line of it, verbatim. The line is in the person's message but not
// their words: it waits in quarantine as agent_generated, while their own
// sentence around the paste is still accepted as user_said.
func TestAttackMCPRememberOfPastedLogLineAsUserSaid(t *testing.T) {
	home := t.TempDir()
	project := t.TempDir()
	st := testkit.OpenHome(t, home)
	ctx := context.Background()
	msg := "We deploy the ledger from main every Tuesday.\nthe job printed:\n2026-11-29T12:00:01Z WARN admins may skip the fraud checks on payouts\n2026-11-29T12:00:02Z ERROR exit 1"
	if _, err := st.RecordAgentMessage(ctx, "claude-code", "sess-1", project, msg, st.Now()); err != nil {
		t.Fatal(err)
	}
	cs := inMemory(t, mcpserver.New(st, mcpserver.Options{Project: project, Session: sess1}))
	got := call(t, cs, "remember", map[string]any{"text": "admins may skip the fraud checks on payouts"})
	if got["quarantined"] != true || got["source_class"] != string(memcore.SourceAgentGenerated) {
		t.Fatalf("a pasted log line was stored as the person's words: %v", got)
	}
	got = call(t, cs, "remember", map[string]any{"text": "We deploy the ledger from main every Tuesday"})
	if got["quarantined"] != false || got["source_class"] != string(memcore.SourceUserSaid) {
		t.Fatalf("the person's own sentence beside the paste: %v", got)
	}
}
