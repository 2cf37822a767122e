//go:build unix

package memcore_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/odekmem/odekmem/internal/lockfile"
	"github.com/odekmem/odekmem/memcore"
)

// Opening a store checks the directory, its top-level files and the chunks
// it reads; it visits every chunk (a full check) only when chunks/ changed
// behind odekmem's back, atoms.json is damaged, on Compact, or once an hour
// (issue 24 item 2). These tests pin which open does what.

func fcChunkMode(t *testing.T, dir, id string) os.FileMode {
	t.Helper()
	fi, err := os.Lstat(filepath.Join(dir, "chunks", id+".md"))
	if err != nil {
		t.Fatal(err)
	}
	return fi.Mode().Perm()
}

func fcTightened(s *memcore.Store, id string) bool {
	for _, p := range s.Problems() {
		if strings.Contains(p.File, id) && strings.HasPrefix(p.Action, "tightened to") {
			return true
		}
	}
	return false
}

// setCheckAge moves the time of the last full check recorded in the lock
// file back by d.
func setCheckAge(t *testing.T, dir string, d time.Duration) {
	t.Helper()
	l, err := lockfile.Open(filepath.Join(dir, ".lock"), time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	st, ok := l.CheckState()
	if !ok {
		t.Fatal("no full check recorded after a clean open")
	}
	st.At = st.At.Add(-d)
	l.SetCheckState(st)
}

func TestOpenChecksChunksInProportion(t *testing.T) {
	dir, ids := stSeedStore(t)
	loosen := func() {
		if err := os.Chmod(filepath.Join(dir, "chunks", ids[0]+".md"), 0o644); err != nil {
			t.Fatal(err)
		}
	}

	// A chmod of one chunk changes nothing the lock file records: an open
	// that takes the text from the cache does not visit that chunk.
	loosen()
	s := stOpen(t, dir, memcore.Options{})
	if fcTightened(s, ids[0]) || fcChunkMode(t, dir, ids[0]) != 0o644 {
		t.Fatalf("an open without a full check visited every chunk: %v", s.Problems())
	}
	s.Close(context.Background())

	// A chunk the open reads (the cache is gone) is checked as a full check
	// would: its mode is tightened and reported.
	if err := os.Remove(filepath.Join(dir, "vectors.odm")); err != nil {
		t.Fatal(err)
	}
	s = stOpen(t, dir, memcore.Options{})
	if !fcTightened(s, ids[0]) || fcChunkMode(t, dir, ids[0]) != 0o600 {
		t.Fatalf("a chunk read at open was not checked: mode %04o, %v", fcChunkMode(t, dir, ids[0]), s.Problems())
	}
	if _, err := s.Compact(t.Context()); err != nil { // writes the cache again
		t.Fatal(err)
	}
	s.Close(context.Background())

	// Past an hour since the last full check, the next open is one.
	loosen()
	setCheckAge(t, dir, 2*time.Hour)
	s = stOpen(t, dir, memcore.Options{})
	if !fcTightened(s, ids[0]) || fcChunkMode(t, dir, ids[0]) != 0o600 {
		t.Fatalf("a full check older than an hour did not make the open a full one: %v", s.Problems())
	}
	s.Close(context.Background())

	// Compact is maintenance: it always visits every chunk.
	loosen()
	s = stOpen(t, dir, memcore.Options{})
	if fcTightened(s, ids[0]) {
		t.Fatal("the open right after a full check was a full one")
	}
	if _, err := s.Compact(t.Context()); err != nil {
		t.Fatal(err)
	}
	if !fcTightened(s, ids[0]) || fcChunkMode(t, dir, ids[0]) != 0o600 {
		t.Fatalf("Compact did not check every chunk: %v", s.Problems())
	}
}

// TestOwnWritesKeepTheOpenLight: odekmem's own writes to chunks/ (adds,
// forgets) are recorded, so the next process's open is not a full check;
// another program's file in chunks/ is, at once.
func TestOwnWritesKeepTheOpenLight(t *testing.T) {
	dir, ids := stSeedStore(t)
	s := stOpen(t, dir, memcore.Options{})
	stAdd(t, s, memcore.AddRequest{Source: memcore.SourceUserApproved, Text: "a note written by odekmem itself"})
	if _, _, _, err := s.Forget(t.Context(), ids[2]); err != nil {
		t.Fatal(err)
	}
	s.Close(context.Background())
	os.Chmod(filepath.Join(dir, "chunks", ids[0]+".md"), 0o644)
	s = stOpen(t, dir, memcore.Options{})
	if fcTightened(s, ids[0]) {
		t.Fatal("odekmem's own writes made the next open a full check")
	}
	s.Close(context.Background())

	// Another program adds a file to chunks/: the next open visits every
	// chunk (and so also sees the loosened mode).
	p := filepath.Join(dir, "chunks", stID(91)+".md")
	os.WriteFile(p, []byte("written by another program"), 0o600)
	old := time.Now().Add(-time.Hour)
	os.Chtimes(p, old, old)
	s = stOpen(t, dir, memcore.Options{})
	if !fcTightened(s, ids[0]) {
		t.Fatalf("a change to chunks/ by another program did not make the open a full check: %v", s.Problems())
	}
	if _, q, err := s.Get(context.Background(), stID(91)); err != nil || q == nil {
		t.Fatalf("the other program's chunk was not adopted: %v", err)
	}
}
