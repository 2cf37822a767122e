package testcreds

import (
	"os"
	"path/filepath"
	"testing"
)

// Files masks the store's random identifiers, where a piece of a hex
// secret may turn up by chance, and nothing else: a secret in a text
// field is still found.
func TestFilesMasksGeneratedIDsOnly(t *testing.T) {
	dir := t.TempDir()
	secret := "9f3c55cd1230ab47e81d"
	id := "0123abcd55cd1230ef4567890abcdef1" // holds "55cd1230" by chance
	os.MkdirAll(filepath.Join(dir, "chunks"), 0o700)
	os.WriteFile(filepath.Join(dir, "chunks", id+".md"), []byte("deploys go through Argo CD"), 0o600)
	os.WriteFile(filepath.Join(dir, "lane.json"), []byte(`[{"id": "`+id+`", "text": "we deploy on Fridays"}]`), 0o600)
	os.WriteFile(filepath.Join(dir, "associations.json"), []byte(`{"`+id+`": []}`), 0o600)
	for p, b := range Files(dir) {
		if l := Leaks(b, secret); l != "" {
			t.Errorf("a generated id read as a leak of %q in %s: %s", l, p, b)
		}
	}
	os.WriteFile(filepath.Join(dir, "lane.json"), []byte(`[{"id": "`+id+`", "text": "token `+secret+`"}]`), 0o600)
	found := false
	for _, b := range Files(dir) {
		found = found || Leaks(b, secret) != ""
	}
	if !found {
		t.Error("a secret in a text field was masked")
	}
}
