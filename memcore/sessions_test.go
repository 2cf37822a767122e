package memcore

import (
	"context"
	"fmt"
	"testing"
)

func TestHookSessionsAreBounded(t *testing.T) {
	st, err := Open(context.Background(), t.TempDir(), Options{Config: &Config{NoAutoExtract: true}})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close(context.Background())
	h := NewHook(st)
	defer h.Close(context.Background())
	ctx := context.Background()
	// The first session keeps being used; thousands of one-turn sessions
	// come and go around it.
	for i := 0; i < 3*maxHookSessions; i++ {
		if _, err := h.RecordUserMessage(ctx, Turn{Message: "hello", SessionID: fmt.Sprintf("s%d", i)}); err != nil {
			t.Fatal(err)
		}
		if i%100 == 0 {
			h.RecordUserMessage(ctx, Turn{Message: "still here", SessionID: "long-lived"})
		}
	}
	h.mu.Lock()
	n := h.sessions.len()
	h.mu.Unlock()
	if n > maxHookSessions {
		t.Fatalf("%d sessions held, bound is %d", n, maxHookSessions)
	}
	// The recently used session survived, with its turn count.
	h.mu.Lock()
	_, kept := h.sessions.byID["long-lived"]
	turn := h.sessions.get("long-lived").turn
	h.mu.Unlock()
	if !kept || turn != 3*maxHookSessions/100+1 {
		t.Fatalf("long-lived session kept=%v turn=%d", kept, turn)
	}
	h.mu.Lock()
	_, early := h.sessions.byID["s0"]
	h.mu.Unlock()
	if early {
		t.Fatal("the least recently used session was not evicted")
	}
}

// TestToolProposalsAreBounded: the Tool remembers what it proposed for
// the latest toolMaxSessions sessions, at most toolMaxPerSession atoms
// each, however many sessions and atoms a long-running server sees.
func TestToolProposalsAreBounded(t *testing.T) {
	tool := NewTool(nil)
	for i := 0; i < 3*toolMaxSessions; i++ {
		tool.record(fmt.Sprintf("s%d", i), "a", proposal{})
	}
	for i := 0; i < toolMaxPerSession+100; i++ {
		tool.record("busy", fmt.Sprintf("a%d", i), proposal{})
	}
	tool.mu.Lock()
	defer tool.mu.Unlock()
	if n := len(tool.proposed); n > toolMaxSessions || len(tool.sessions) != n {
		t.Fatalf("%d sessions kept (%d in order), want at most %d", n, len(tool.sessions), toolMaxSessions)
	}
	if n := len(tool.proposed["busy"]); n != toolMaxPerSession {
		t.Fatalf("%d proposals kept for one session, want %d", n, toolMaxPerSession)
	}
	if _, ok := tool.proposed["s0"]; ok {
		t.Fatal("the oldest session was kept")
	}
}
