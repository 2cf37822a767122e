package memcore

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestAgentSessionLogBoundedRedactedCounted(t *testing.T) {
	dir := t.TempDir()
	s, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	t0 := time.Date(2026, 11, 1, 9, 0, 0, 0, time.UTC)
	for i := 0; i < 12; i++ {
		turn, err := s.RecordAgentMessage(ctx, "claude-code", "s1", "/p", fmt.Sprintf("message %d", i), t0.Add(time.Duration(i)*time.Minute))
		if err != nil {
			t.Fatal(err)
		}
		if turn != i+1 {
			t.Fatalf("turn %d, want %d", turn, i+1)
		}
	}
	a, ok := s.AgentSessionByID("s1")
	if !ok || len(a.Messages) != maxAgentSessionMessages || a.Latest() != "message 11" || a.Turn != 12 {
		t.Fatalf("session: %+v", a)
	}
	// Secrets never reach the file.
	key := "sk-proj-" + strings.Repeat("A1b2C3d4", 6)
	if _, err := s.RecordAgentMessage(ctx, "claude-code", "s2", "/p", "my key is "+key, t0.Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(filepath.Join(dir, fileAgentSessions))
	if strings.Contains(string(b), key) {
		t.Fatal("secret written to the agent-session log")
	}
	// Bounded number of sessions, newest kept.
	for i := 0; i < maxAgentSessions+10; i++ {
		s.RecordAgentMessage(ctx, "claude-code", fmt.Sprintf("x%d", i), "/p", "hi", t0.Add(2*time.Hour+time.Duration(i)*time.Second))
	}
	list := s.AgentSessions()
	if len(list) != maxAgentSessions || list[0].ID != fmt.Sprintf("x%d", maxAgentSessions+9) {
		t.Fatalf("%d sessions, newest %q", len(list), list[0].ID)
	}
	// Counted against the cap like every file under the store.
	if s.Stats().Components["other"] == 0 {
		t.Error("the agent-session log is not counted in the store's size")
	}
	// A damaged log is rebuilt, not fatal.
	os.WriteFile(filepath.Join(dir, fileAgentSessions), []byte("{not json"), 0o600)
	if _, err := s.RecordAgentMessage(ctx, "claude-code", "s3", "/p", "again", t0.Add(3*time.Hour)); err != nil {
		t.Fatal(err)
	}
	if _, ok := s.AgentSessionByID("s3"); !ok {
		t.Fatal("log not rebuilt after damage")
	}
}
