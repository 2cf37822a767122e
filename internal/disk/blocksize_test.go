package disk

import (
	"os"
	"path/filepath"
	"testing"
)

func TestStatfsBlockMatchesAllocation(t *testing.T) {
	dir := t.TempDir()
	b, err := BlockSize(dir)
	if err != nil {
		t.Fatal(err)
	}
	if b < 512 || b > 1<<20 || b&(b-1) != 0 {
		t.Fatalf("block size %d is not a power of two between 512 B and 1 MiB", b)
	}
	// A small file occupies whole allocation units (or none, when the file
	// system keeps tiny files inline).
	p := filepath.Join(dir, "f")
	if err := WriteFile(p, []byte("x")); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	if a := Allocated(fi); a != 0 && a%b != 0 {
		t.Fatalf("a 1-byte file takes %d bytes, not a multiple of the measured block %d", a, b)
	}
	if _, err := BlockSize(filepath.Join(dir, "missing")); err == nil {
		t.Fatal("no error for a missing directory")
	}
}

func TestSaneBlock(t *testing.T) {
	for _, tc := range []struct{ in, want int64 }{{4096, 4096}, {512, 512}, {65536, 65536}, {0, DefaultBlock}, {-1, DefaultBlock}, {1 << 30, DefaultBlock}} {
		if got := saneBlock(tc.in); got != tc.want {
			t.Errorf("saneBlock(%d) = %d, want %d", tc.in, got, tc.want)
		}
	}
}
