package disk

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

func TestReadArrayKeepsTheIntactPrefixOfATruncatedFile(t *testing.T) {
	d := &Dir{Path: t.TempDir()}
	os.WriteFile(d.Abs("a.json"), []byte(`[{"id":"a"}, {"id":"b"}, {"id":`), 0o600)
	a := d.ReadArray("a.json")
	if a.Err != nil || a.Damage == nil {
		t.Fatalf("err %v, damage %v: a truncated array must read with damage", a.Err, a.Damage)
	}
	if len(a.Recs) != 2 || string(a.Recs[1]) != `{"id":"b"}` {
		t.Fatalf("kept %q, want the two intact records", a.Recs)
	}
	if a.Sig != StatSig(d.Abs("a.json")) {
		t.Fatal("the signature of the version read differs from the file's")
	}
	if m := d.ReadArray("missing.json"); !errors.Is(m.Err, fs.ErrNotExist) || m.Sig != (Sig{}) {
		t.Fatalf("missing file: err %v sig %v", m.Err, m.Sig)
	}
	os.WriteFile(d.Abs("b.json"), []byte("  \n"), 0o600)
	if b := d.ReadArray("b.json"); b.Err != nil || b.Damage != nil || len(b.Recs) != 0 {
		t.Fatalf("a blank file has no records and no damage, got %+v", b)
	}
}

func TestDecodeRecordsLaysRecordsOutAsTheArrayFileHoldsThem(t *testing.T) {
	recs := d2r(`{"id":"a","n":1}`, `{"id":`, `{"id":"c"}`)
	out := DecodeRecords[struct{ ID string }](recs)
	if out[0].Err != nil || out[0].Value.ID != "a" || out[1].Err == nil || out[2].Value.ID != "c" {
		t.Fatalf("decoded %+v", out)
	}
	got := string(IndentArray(2, func(i int) []byte { return out[[]int{0, 2}[i]].Indented }))
	want := "[\n  {\n    \"id\": \"a\",\n    \"n\": 1\n  },\n  {\n    \"id\": \"c\"\n  }\n]"
	if got != want {
		t.Fatalf("array laid out as\n%s\nwant\n%s", got, want)
	}
	if string(IndentArray(0, nil)) != "[]" {
		t.Fatal("an empty array is not []")
	}
}

func d2r(s ...string) (out []json.RawMessage) {
	for _, x := range s {
		out = append(out, json.RawMessage(x))
	}
	return out
}

func TestReadFileRefusesLinks(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("symbolic links need privileges on Windows")
	}
	d := &Dir{Path: t.TempDir()}
	secret := filepath.Join(t.TempDir(), "secret")
	os.WriteFile(secret, []byte("not the store's"), 0o600)
	os.Symlink(secret, d.Abs("atoms.json"))
	if _, _, err := d.ReadFile("atoms.json"); err == nil || !strings.Contains(err.Error(), "symbolic link refused") {
		t.Fatalf("read through a link: %v", err)
	}
}

func TestMoveAsideNeverFollowsALinkedCorruptDir(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("symbolic links need privileges on Windows")
	}
	changed := 0
	d := &Dir{Path: t.TempDir(), Changed: func() { changed++ }}
	os.WriteFile(d.Abs("atoms.json"), []byte("damaged"), 0o600)
	elsewhere := t.TempDir()
	os.Symlink(elsewhere, d.Abs(CorruptDir))
	if got := d.MoveAside("atoms.json"); !strings.HasPrefix(got, "could not move aside") {
		t.Fatalf("moved into a linked corrupt/: %s", got)
	}
	if ents, _ := os.ReadDir(elsewhere); len(ents) != 0 || changed != 0 {
		t.Fatalf("%d files landed through the link, %d changes reported", len(ents), changed)
	}
	os.Remove(d.Abs(CorruptDir))
	got := d.MoveAside("atoms.json")
	if !strings.HasPrefix(got, "moved to "+CorruptDir+string(filepath.Separator)+"atoms.json.") || changed != 1 {
		t.Fatalf("move aside said %q (%d changes)", got, changed)
	}
	if b, err := os.ReadFile(d.Abs(strings.TrimPrefix(got, "moved to "))); err != nil || string(b) != "damaged" {
		t.Fatalf("the damaged bytes were not kept: %q %v", b, err)
	}
}

func TestWriteNewThenLeavesNeitherWhenTheSecondFails(t *testing.T) {
	d := &Dir{Path: t.TempDir()}
	os.Mkdir(d.Abs("chunks"), 0o700)
	// The second file's directory is missing: staging it fails.
	err := d.WriteNewThen("chunks/a.md", []byte("text"), "gone/atoms.json", []byte("[]"))
	if err == nil {
		t.Fatal("no error for a second file that cannot be written")
	}
	if d.Exists("chunks/a.md") {
		t.Fatal("the first file stayed although the second, which names it, was not written")
	}
	if err := d.WriteNewThen("chunks/a.md", []byte("text"), "atoms.json", []byte("[]")); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(d.Abs("atoms.json")); string(b) != "[]" || !d.Exists("chunks/a.md") {
		t.Fatal("both files should be there")
	}
}

// TestRemoveManyRemovesEveryFile: a batch's evicted chunks all go, files
// beside them stay, and the directory reports one change.
func TestRemoveManyRemovesEveryFile(t *testing.T) {
	root := t.TempDir()
	os.Mkdir(filepath.Join(root, "chunks"), 0o700)
	changes := 0
	d := &Dir{Path: root, Changed: func() { changes++ }}
	var rels []string
	for i := 0; i < 100; i++ {
		rel := filepath.Join("chunks", fmt.Sprintf("c%03d.txt", i))
		if err := os.WriteFile(filepath.Join(root, rel), []byte("x"), 0o600); err != nil {
			t.Fatal(err)
		}
		if i%10 != 0 {
			rels = append(rels, rel)
		}
	}
	rels = append(rels, filepath.Join("chunks", "missing.txt")) // already gone: no error, no panic
	d.RemoveMany(rels)
	left, _ := os.ReadDir(filepath.Join(root, "chunks"))
	if len(left) != 10 {
		t.Fatalf("%d files left, want the 10 not named", len(left))
	}
	for _, e := range left {
		if n := e.Name(); n[len(n)-5] != '0' {
			t.Errorf("%s was removed or kept wrongly", n)
		}
	}
	if changes != 1 {
		t.Errorf("Changed called %d times, want once", changes)
	}
	d.RemoveMany(nil)
	if changes != 1 {
		t.Errorf("an empty RemoveMany reported a change")
	}
}
