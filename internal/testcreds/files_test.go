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

// TestFilesMasksTimestamps: a timestamp's nanosecond digits that hold an
// 8-digit piece of a hex secret by chance are no leak; the same digits in
// a text field still are.
func TestFilesMasksTimestamps(t *testing.T) {
	dir := t.TempDir()
	secret := "c0de57293709beef" // "57293709", as a CI run met it
	stamp := `"quarantined_at": "2026-12-02T02:03:12.357293709Z"`
	os.WriteFile(filepath.Join(dir, "quarantine.json"), []byte(`[{`+stamp+`, "text": "[REDACTED:shopify_token]"}]`), 0o600)
	for p, b := range Files(dir) {
		if l := Leaks(b, secret); l != "" {
			t.Errorf("a timestamp read as a leak of %q in %s: %s", l, p, b)
		}
	}
	os.WriteFile(filepath.Join(dir, "quarantine.json"), []byte(`[{`+stamp+`, "text": "build 57293709 failed"}]`), 0o600)
	found := false
	for _, b := range Files(dir) {
		found = found || Leaks(b, secret) != ""
	}
	if !found {
		t.Error("digits of a secret in a text field were masked")
	}
}
