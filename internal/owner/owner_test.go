package owner

import (
	"os"
	"path/filepath"
	"testing"
)

func TestOwnFileIsNotForeign(t *testing.T) {
	p := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(p, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Lstat(p)
	if err != nil {
		t.Fatal(err)
	}
	if got := Foreign(fi); got != "" {
		t.Fatalf("Foreign(own file) = %q", got)
	}
}
