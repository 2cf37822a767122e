package memcore_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/odekmem/odekmem/memcore"
)

// TestSymlinkedChunksDirMovedAsideThenWritable: a chunks/ that is a symlink
// leading outside the store is moved aside, and the same process can write
// afterwards.
func TestSymlinkedChunksDirMovedAsideThenWritable(t *testing.T) {
	dir, outside := t.TempDir(), t.TempDir()
	os.WriteFile(filepath.Join(outside, "0123456789abcdef0123456789abcdef.md"), []byte("outside"), 0o600)
	if err := os.Symlink(outside, filepath.Join(dir, "chunks")); err != nil {
		t.Fatal(err)
	}
	st, err := memcore.Open(dir, memcore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if len(st.Problems()) == 0 {
		t.Fatal("the symlink was not reported")
	}
	if _, err := st.Add(context.Background(), memcore.AddRequest{Source: memcore.SourceUserApproved, Text: "another atom"}); err != nil {
		t.Fatalf("add after the sweep: %v", err)
	}
	if _, err := os.Stat(filepath.Join(outside, "0123456789abcdef0123456789abcdef.md")); err != nil {
		t.Fatalf("a file outside the store was touched: %v", err)
	}
}

// TestFreshOrphanChunkIsLeftForAnotherWriter: odek writes a chunk before
// atoms.json without taking the lock, so a chunk without metadata that is
// only seconds old is left in place (and not reported) at open.
func TestFreshOrphanChunkIsLeftForAnotherWriter(t *testing.T) {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "chunks"), 0o700)
	p := filepath.Join(dir, "chunks", "0123456789abcdef0123456789abcdef.md")
	os.WriteFile(p, []byte("odek is mid-write"), 0o600)
	st, err := memcore.Open(dir, memcore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if _, err := os.Stat(p); err != nil {
		t.Fatalf("fresh chunk moved: %v", err)
	}
	for _, pr := range st.Problems() {
		if strings.HasPrefix(pr.File, "chunks") {
			t.Fatalf("fresh chunk reported: %v", pr)
		}
	}
}
