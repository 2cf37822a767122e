package lockfile

import (
	"context"
	"errors"
	"path/filepath"
	"testing"
	"time"
)

// TestLockSharedAndExclusive: two handles (as two processes) take the lock
// shared together; an exclusive taker waits for both and gives up at its
// timeout with ErrTimeout, or at its context's end with that error; once
// the readers are gone it gets the lock, and then readers wait for it.
// The generation survives across handles.
func TestLockSharedAndExclusive(t *testing.T) {
	p := filepath.Join(t.TempDir(), ".lock")
	open := func() *Lock {
		l, err := Open(p, 150*time.Millisecond)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { l.Close() })
		return l
	}
	r1, r2, w := open(), open(), open()
	ctx := context.Background()
	if err := r1.Lock(ctx, false); err != nil {
		t.Fatal(err)
	}
	if err := r2.Lock(ctx, false); err != nil {
		t.Fatalf("second reader: %v", err)
	}
	if err := w.Lock(ctx, true); !errors.Is(err, ErrTimeout) {
		t.Fatalf("writer while readers hold the lock: %v, want ErrTimeout", err)
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if err := w.Lock(cctx, true); !errors.Is(err, context.Canceled) {
		t.Fatalf("writer with a cancelled context: %v", err)
	}
	r1.Unlock()
	r2.Unlock()
	if err := w.Lock(ctx, true); err != nil {
		t.Fatalf("writer once the readers left: %v", err)
	}
	g := w.Bump()
	if err := r1.Lock(ctx, false); !errors.Is(err, ErrTimeout) {
		t.Fatalf("reader while a writer holds the lock: %v, want ErrTimeout", err)
	}
	if r1.Generation() != g {
		t.Fatalf("generation %d seen by another handle, want %d", r1.Generation(), g)
	}
	w.Unlock()
	if err := r1.Lock(ctx, false); err != nil {
		t.Fatal(err)
	}
	r1.Unlock()
}
