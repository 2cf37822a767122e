package memcore_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/odekmem/odekmem/memcore"
)

// Store.Close(ctx) closes the store however ctx ends: an already-ended
// ctx still releases the lock (another Open succeeds at once), closes the
// store's Hooks, reports no error when nothing was running, every later
// call returns ErrClosed, and a second Close is a no-op.
func TestStoreCloseWithAnEndedContext(t *testing.T) {
	dir := stDir(t)
	s, err := memcore.Open(context.Background(), dir, memcore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	stAdd(t, s, memcore.AddRequest{Text: "We deploy with Argo CD.", Source: memcore.SourceUserSaid, Type: memcore.TypeDecision})
	h := memcore.NewHook(s) // idle: no inference has started
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := s.Close(ctx); err != nil {
		t.Fatalf("close with an ended ctx and nothing running: %v", err)
	}
	if _, err := s.Search(context.Background(), "Argo", memcore.SearchOptions{}); !errors.Is(err, memcore.ErrClosed) {
		t.Errorf("search after close: %v, want ErrClosed", err)
	}
	if _, err := h.RecordUserMessage(context.Background(), memcore.Turn{Message: "We use Helm.", SessionID: "s1"}); !errors.Is(err, memcore.ErrClosed) {
		t.Errorf("the store's Hook after close: %v, want ErrClosed", err)
	}
	if err := s.Close(context.Background()); err != nil {
		t.Errorf("second close: %v", err)
	}
	// A lock still held would make this open fail within a millisecond.
	s2 := stOpen(t, dir, memcore.Options{LockTimeout: time.Millisecond})
	if res, err := s2.Search(context.Background(), "Argo CD deploy", memcore.SearchOptions{}); err != nil || len(res) == 0 {
		t.Errorf("reopened store: %v, %d results (the remembered decision is gone?)", err, len(res))
	}
}
