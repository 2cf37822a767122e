package memcore

import (
	"context"
	"fmt"
	"testing"
)

func TestHookSessionsAreBounded(t *testing.T) {
	st, err := Open(t.TempDir(), Options{Config: &Config{NoAutoExtract: true}})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
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
