package memcore_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/odekmem/odekmem/memcore"
)

// TestFreshOrphanChunkIsLeftForAnotherWriter: odek writes a chunk before
// atoms.json without taking the lock, so a chunk without metadata that is
// only seconds old is left in place (and not reported) at open.
func TestFreshOrphanChunkIsLeftForAnotherWriter(t *testing.T) {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "chunks"), 0o700)
	p := filepath.Join(dir, "chunks", "0123456789abcdef0123456789abcdef.md")
	os.WriteFile(p, []byte("odek is mid-write"), 0o600)
	st, err := memcore.Open(context.Background(), dir, memcore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close(context.Background())
	if _, err := os.Stat(p); err != nil {
		t.Fatalf("fresh chunk moved: %v", err)
	}
	for _, pr := range st.Problems() {
		if strings.HasPrefix(pr.File, "chunks") {
			t.Fatalf("fresh chunk reported: %v", pr)
		}
	}
}
