//go:build unix

package memcore_test

import (
	"context"
	"errors"
	"path/filepath"
	"testing"
	"time"

	"github.com/odekmem/odekmem/internal/lockfile"
	"github.com/odekmem/odekmem/memcore"
)

const stSharedEnv = "ODEKMEM_ST_SHARED_DIR"

// TestSharedLockChild is the child of TestReadersShareWritersExclude: it
// takes the store's lock file shared, as a reader mid-read holds it, and
// keeps it until its stdin closes.
func TestSharedLockChild(t *testing.T) {
	dir := stChildDir(t, stSharedEnv)
	l, err := lockfile.Open(filepath.Join(dir, ".lock"), 5*time.Second)
	stChildCheck(err)
	stChildCheck(l.Lock(context.Background(), false))
	stChildHold()
	l.Unlock()
}

// stHoldShared starts a process holding the store's lock shared and waits
// until it has it; release ends it.
func stHoldShared(t *testing.T, dir string) (release func()) {
	t.Helper()
	_, release = stHoldInChild(t, "TestSharedLockChild", stSharedEnv, dir)
	return release
}

// TestReadersShareWritersExclude: readers take the store's lock shared, so
// two reader processes hold it at once and a reader in this process reloads
// another writer's change while they do; a writer waits for all of them
// (and gives up at its timeout); a writer holding the lock keeps readers
// out until it is done.
func TestReadersShareWritersExclude(t *testing.T) {
	dir := stDir(t)
	ctx := context.Background()
	s := stOpen(t, dir, memcore.Options{LockTimeout: 300 * time.Millisecond})
	stAdd(t, s, memcore.AddRequest{Text: "the first atom", Source: memcore.SourceUserApproved})

	// Another store changes the directory: this one must reload to read.
	other := stOpen(t, dir, memcore.Options{LockTimeout: 300 * time.Millisecond})
	stAdd(t, other, memcore.AddRequest{Text: "written by the other store", Source: memcore.SourceUserApproved})

	// Two reader processes hold the lock together (the second would never
	// print "locked" if shared locks excluded each other).
	release1 := stHoldShared(t, dir)
	release2 := stHoldShared(t, dir)

	// A reader here proceeds alongside them and sees the other write.
	atoms, err := s.List(ctx, memcore.Filter{})
	if err != nil {
		t.Fatalf("list while two readers hold the lock: %v", err)
	}
	if len(atoms) != 2 {
		t.Fatalf("list while two readers hold the lock: %d atoms, want 2", len(atoms))
	}
	// A writer is excluded while any reader holds the lock.
	if _, err := s.Add(ctx, memcore.AddRequest{Text: "must wait for the readers", Source: memcore.SourceUserApproved}); !errors.Is(err, memcore.ErrLockTimeout) {
		t.Fatalf("add while readers hold the lock: %v, want ErrLockTimeout", err)
	}
	release1()
	if _, err := s.Add(ctx, memcore.AddRequest{Text: "must wait for the last reader", Source: memcore.SourceUserApproved}); !errors.Is(err, memcore.ErrLockTimeout) {
		t.Fatalf("add while one reader holds the lock: %v, want ErrLockTimeout", err)
	}
	release2()
	stAdd(t, s, memcore.AddRequest{Text: "written once the readers are done", Source: memcore.SourceUserApproved})

	// A writer holding the lock keeps a reader that must reload out.
	stAdd(t, other, memcore.AddRequest{Text: "another change to reload", Source: memcore.SourceUserApproved})
	_, releaseW := stHoldLock(t, dir)
	if _, err := s.List(ctx, memcore.Filter{}); !errors.Is(err, memcore.ErrLockTimeout) {
		t.Fatalf("list while a writer holds the lock: %v, want ErrLockTimeout", err)
	}
	releaseW()
	atoms, err = s.List(ctx, memcore.Filter{})
	if err != nil || len(atoms) != 4 {
		t.Fatalf("list once the writer is done: %d atoms, %v; want 4", len(atoms), err)
	}
}
