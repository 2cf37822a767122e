package memcore

import (
	"os"
	"path/filepath"
	"testing"
)

func TestStatfsBlockMatchesAllocation(t *testing.T) {
	dir := t.TempDir()
	b, err := statfsBlock(dir)
	if err != nil {
		t.Fatal(err)
	}
	if b < 512 || b > 1<<20 || b&(b-1) != 0 {
		t.Fatalf("block size %d is not a power of two between 512 B and 1 MiB", b)
	}
	// A small file occupies whole allocation units (or none, when the file
	// system keeps tiny files inline).
	p := filepath.Join(dir, "f")
	if err := writeFileAtomic(p, []byte("x")); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	if a := allocated(fi); a != 0 && a%b != 0 {
		t.Fatalf("a 1-byte file takes %d bytes, not a multiple of the measured block %d", a, b)
	}
	if _, err := statfsBlock(filepath.Join(dir, "missing")); err == nil {
		t.Fatal("no error for a missing directory")
	}
}

func TestSaneBlock(t *testing.T) {
	for _, tc := range []struct{ in, want int64 }{{4096, 4096}, {512, 512}, {65536, 65536}, {0, defaultBlock}, {-1, defaultBlock}, {1 << 30, defaultBlock}} {
		if got := saneBlock(tc.in); got != tc.want {
			t.Errorf("saneBlock(%d) = %d, want %d", tc.in, got, tc.want)
		}
	}
}

// TestCorpusHash pins vectors_meta.json's corpus field (FORMATS.md): odek
// compares it, so the value for a given set of ids must never change.
func TestCorpusHash(t *testing.T) {
	if got := corpusHash([]string{"b", "a"}); got != "2:ab40d7820d408076" {
		t.Fatal(got)
	}
	if got := corpusHash(nil); got != "0:cbf29ce484222325" {
		t.Fatal(got)
	}
	ids := []string{"z", "y"}
	corpusHash(ids)
	if ids[0] != "z" {
		t.Fatal("corpusHash sorted its argument in place")
	}
}
