package memcore_test

import (
	"context"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/odekmem/odekmem/memcore"
)

// stSeedStore builds a store with three live atoms, one quarantined, a link,
// a user model and a vector cache, and returns it closed with the ids.
func stSeedStore(t *testing.T) (string, []string) {
	t.Helper()
	dir := stDir(t)
	s := stOpen(t, dir, memcore.Options{})
	ctx := context.Background()
	r := rand.New(rand.NewSource(42))
	var ids []string
	for i := 0; i < 3; i++ {
		ids = append(ids, stAdd(t, s, memcore.AddRequest{Source: memcore.SourceUserApproved, Text: stText(r, 120)}).Atom.ID)
	}
	stAdd(t, s, memcore.AddRequest{Text: "quarantined note from the web", Source: memcore.SourceWeb})
	if _, err := memcore.AddLinks(s, ctx, []memcore.LinkRequest{{A: ids[0], B: ids[1], Kind: memcore.LinkTask}}); err != nil {
		t.Fatal(err)
	}
	if err := memcore.ApplyDirect(s, ctx, "style.tone", "plain"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Compact(ctx); err != nil {
		t.Fatal(err)
	}
	s.Close(context.Background())
	return dir, ids
}

func TestCorruptionRecovery(t *testing.T) {
	cases := []struct {
		name     string
		damage   func(t *testing.T, dir string, ids []string)
		live     int    // atoms that must load
		file     string // file a problem must name
		aside    string // prefix of a file that must appear under corrupt/ ("" none)
		checkOut func(t *testing.T, s *memcore.Store, ids []string)
	}{
		{name: "truncated atoms.json", live: 2, file: "atoms.json", aside: "atoms.json.",
			damage: func(t *testing.T, dir string, ids []string) {
				p := filepath.Join(dir, "atoms.json")
				b := stReadFile(t, p)
				i := strings.Index(string(b), ids[2])
				os.WriteFile(p, b[:i+5], 0o600)
			}},
		{name: "invalid JSON atoms.json", live: 0, file: "atoms.json", aside: "atoms.json.",
			damage: func(t *testing.T, dir string, ids []string) {
				os.WriteFile(filepath.Join(dir, "atoms.json"), []byte("{this is not json"), 0o600)
			}},
		{name: "chunk without metadata", live: 3, file: filepath.Join("chunks", stID(77)+".md"),
			damage: func(t *testing.T, dir string, ids []string) {
				p := filepath.Join(dir, "chunks", stID(77)+".md")
				os.WriteFile(p, []byte("orphan"), 0o600)
				old := time.Now().Add(-time.Hour) // fresh orphans get a grace period
				os.Chtimes(p, old, old)
			},
			checkOut: func(t *testing.T, s *memcore.Store, ids []string) {
				// Adopted, not moved aside: lossless and still untrusted.
				a, q, err := s.Get(context.Background(), stID(77))
				if err != nil || q == nil || a.Text != "orphan" || a.SourceClass != memcore.SourceRecovered || q.Reason != "metadata lost to a concurrent writer" {
					t.Fatalf("orphan chunk not adopted into quarantine: %+v %+v %v", a, q, err)
				}
				if _, err := os.Stat(filepath.Join(s.Dir(), "chunks", stID(77)+".md")); err == nil {
					t.Fatal("adopted chunk still in chunks/")
				}
			}},
		{name: "metadata without chunk", live: 2, file: "atoms.json", aside: "atoms-record.json.",
			damage: func(t *testing.T, dir string, ids []string) {
				os.Remove(filepath.Join(dir, "chunks", ids[1]+".md"))
			}},
		{name: "invalid id", live: 3, file: "atoms.json", aside: "atoms-record.json.",
			damage: func(t *testing.T, dir string, ids []string) {
				p := filepath.Join(dir, "atoms.json")
				b := string(stReadFile(t, p))
				b = strings.Replace(b, "[", `[
  {"id": "../../etc/passwd", "source_class": "user_said", "type": "fact", "created_at": "2026-01-01T00:00:00Z", "context": {}},`, 1)
				os.WriteFile(p, []byte(b), 0o600)
			}},
		{name: "symlink leading outside", live: 2, file: filepath.Join("chunks", "SYMLINK"), aside: filepath.Join("chunks", "SYMLINK"),
			damage: func(t *testing.T, dir string, ids []string) {
				outside := filepath.Join(filepath.Dir(filepath.Dir(dir)), "secret.txt")
				os.WriteFile(outside, []byte("a secret outside the store"), 0o600)
				p := filepath.Join(dir, "chunks", ids[0]+".md")
				os.Remove(p)
				if err := os.Symlink(outside, p); err != nil {
					t.Fatal(err)
				}
			},
			checkOut: func(t *testing.T, s *memcore.Store, ids []string) {
				if _, _, err := s.Get(context.Background(), ids[0]); err == nil {
					t.Fatal("atom whose chunk leads outside the store loaded")
				}
				outside := filepath.Join(filepath.Dir(filepath.Dir(s.Dir())), "secret.txt")
				if _, err := os.Stat(outside); err != nil {
					t.Fatalf("target outside the store touched: %v", err)
				}
			}},
		{name: "wrong permissions", live: 3, file: "atoms.json",
			damage: func(t *testing.T, dir string, ids []string) {
				os.Chmod(filepath.Join(dir, "atoms.json"), 0o644)
				os.Chmod(filepath.Join(dir, "chunks", ids[0]+".md"), 0o666)
				os.Chmod(filepath.Join(dir, "chunks"), 0o755)
				os.Chmod(dir, 0o755)
			}},
		{name: "truncated quarantine.json", live: 3, file: "quarantine.json", aside: "quarantine.json.",
			damage: func(t *testing.T, dir string, ids []string) {
				p := filepath.Join(dir, "quarantine.json")
				b := stReadFile(t, p)
				os.WriteFile(p, b[:len(b)/2], 0o600)
			}},
		{name: "invalid user_model.json", live: 3, file: "user_model.json", aside: "user_model.json.",
			damage: func(t *testing.T, dir string, ids []string) {
				os.WriteFile(filepath.Join(dir, "user_model.json"), []byte(`{"style": [1,2`), 0o600)
			}},
		{name: "invalid associations.json", live: 3, file: "associations.json", aside: "associations.json.",
			damage: func(t *testing.T, dir string, ids []string) {
				os.WriteFile(filepath.Join(dir, "associations.json"), []byte(`["not", "an object"]`), 0o600)
			}},
		{name: "damaged vector cache", live: 3, file: "vectors.odm", aside: "vectors.odm.",
			damage: func(t *testing.T, dir string, ids []string) {
				p := filepath.Join(dir, "vectors.odm")
				b := stReadFile(t, p)
				b[len(b)/2] ^= 0xff
				os.WriteFile(p, b, 0o600)
			},
			checkOut: func(t *testing.T, s *memcore.Store, ids []string) {
				if st := must(s.Stats(context.Background())); st.Index.Vectors != 3 {
					t.Fatalf("vectors not rebuilt: %+v", st.Index)
				}
			}},
		{name: "leftover temp files", live: 3,
			damage: func(t *testing.T, dir string, ids []string) {
				// Older than the ten minutes a running writer may take.
				old := time.Now().Add(-time.Hour)
				for _, p := range []string{
					filepath.Join(dir, ".tmp-atoms.json-123456789abc"),
					filepath.Join(dir, "chunks", ".tmp-x.md-123456789abc"),
					filepath.Join(dir, ".atoms.json.tmp-2817364"),
				} {
					os.WriteFile(p, []byte("[half"), 0o600)
					os.Chtimes(p, old, old)
				}
			}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir, ids := stSeedStore(t)
			// Keep the original texts to check intact atoms byte for byte.
			texts := map[string]string{}
			for _, id := range ids {
				texts[id] = string(stReadFile(t, filepath.Join(dir, "chunks", id+".md")))
			}
			c.damage(t, dir, ids)
			s, err := memcore.Open(context.Background(), dir, memcore.Options{})
			if err != nil {
				t.Fatalf("open refused a damaged store: %v", err)
			}
			if must(s.Stats(context.Background())).Live != c.live {
				t.Fatalf("loaded %d atoms, want %d (problems %v)", must(s.Stats(context.Background())).Live, c.live, s.Problems())
			}
			for _, a := range must(s.List(context.Background(), memcore.Filter{})) {
				if texts[a.ID] != a.Text {
					t.Fatalf("atom %s text %q, want %q", a.ID, a.Text, texts[a.ID])
				}
			}
			probs := s.Problems()
			if c.file != "" {
				want := strings.Replace(c.file, "SYMLINK", ids[0]+".md", 1)
				found := false
				for _, p := range probs {
					if p.File == want {
						found = true
					}
				}
				if !found {
					t.Fatalf("no problem names %s: %v", want, probs)
				}
			}
			seen := map[string]bool{}
			for _, p := range probs {
				if seen[p.String()] {
					t.Fatalf("problem reported twice: %s", p)
				}
				seen[p.String()] = true
			}
			if c.aside != "" {
				want := strings.Replace(c.aside, "SYMLINK", ids[0]+".md", 1)
				found := false
				filepath.Walk(filepath.Join(dir, "corrupt"), func(p string, fi os.FileInfo, err error) error {
					rel, _ := filepath.Rel(filepath.Join(dir, "corrupt"), p)
					if strings.HasPrefix(rel, want) {
						found = true
					}
					return nil
				})
				if !found {
					t.Fatalf("nothing like corrupt/%s* (problems %v)", want, probs)
				}
			}
			if c.checkOut != nil {
				c.checkOut(t, s, ids)
			}
			// The store still works.
			stAdd(t, s, memcore.AddRequest{Source: memcore.SourceUserApproved, Text: "written after recovery"})
			s.Close(context.Background())
			stCheckTree(t, dir)
			s2, err := memcore.Open(context.Background(), dir, memcore.Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer s2.Close(context.Background())
			if p := s2.Problems(); len(p) != 0 {
				t.Fatalf("second open reported again: %v", p)
			}
			if must(s2.Stats(context.Background())).Live != c.live+1 {
				t.Fatalf("second open: %d atoms, want %d", must(s2.Stats(context.Background())).Live, c.live+1)
			}
		})
	}
}

// TestDamagedAtomsJSONBringsNotesBackAtOnce (issue 26, annoyance 6): when
// atoms.json is damaged, the notes whose records were lost come back at
// the same open — not two minutes later — as recovered quarantine entries
// that say why, never expire before the person reviews them, and one
// problem line says what came back and what was lost.
func TestDamagedAtomsJSONBringsNotesBackAtOnce(t *testing.T) {
	dir, ids := stSeedStore(t)
	if err := os.WriteFile(filepath.Join(dir, "atoms.json"), []byte("{this is not json"), 0o600); err != nil {
		t.Fatal(err)
	}
	clk := stNewClock()
	s := stOpen(t, dir, memcore.Options{Now: clk.Now})
	for _, id := range ids {
		a, q, err := s.Get(context.Background(), id)
		if err != nil || q == nil || a.SourceClass != memcore.SourceRecovered || !strings.Contains(q.Reason, "damaged atoms.json") {
			t.Fatalf("%s did not come back at once as recovered: %+v %+v %v", id, a, q, err)
		}
		if !q.ExpiresAt(7).IsZero() {
			t.Fatalf("a recovered note expires at %v before review", q.ExpiresAt(7))
		}
	}
	var said bool
	for _, p := range s.Problems() {
		said = said || p.File == "atoms.json" && strings.Contains(p.Problem, "3 notes lost their records") && strings.Contains(p.Action, "kept until you review them")
	}
	if !said {
		t.Fatalf("no problem line says what came back: %+v", s.Problems())
	}
	clk.Advance(30 * 24 * time.Hour)
	must(s.Compact(context.Background()))
	for _, id := range ids {
		if _, q, err := s.Get(context.Background(), id); err != nil || q == nil {
			t.Fatalf("compaction a month later dropped recovered note %s: %v", id, err)
		}
	}
}
