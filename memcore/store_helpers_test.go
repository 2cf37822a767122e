package memcore_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/odekmem/odekmem/memcore"
)

// ---- shared helpers (st prefix) ----

// stClock is a fake clock safe for concurrent use.
type stClock struct {
	mu sync.Mutex
	t  time.Time
}

func stNewClock() *stClock {
	return &stClock{t: time.Date(2026, 1, 2, 3, 4, 5, 123456789, time.UTC)}
}

func (c *stClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *stClock) Advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// stDir returns a fresh store directory path <home>/memory/extended.
func stDir(t testing.TB) string {
	t.Helper()
	return filepath.Join(t.TempDir(), "memory", "extended")
}

func stOpen(t testing.TB, dir string, opts memcore.Options) *memcore.Store {
	t.Helper()
	s, err := memcore.Open(context.Background(), dir, opts)
	if err != nil {
		t.Fatalf("open %s: %v", dir, err)
	}
	t.Cleanup(func() { s.Close(context.Background()) })
	return s
}

func stAdd(t testing.TB, s *memcore.Store, req memcore.AddRequest) memcore.AddResult {
	t.Helper()
	r, err := s.Add(context.Background(), req)
	if err != nil {
		t.Fatalf("add %q: %v", req.Text, err)
	}
	return r
}

var stWords = strings.Fields(`apple river mountain keyboard violet engine harbor pencil lantern
orbit falcon meadow copper glacier velvet thunder basket compass marble willow
canyon ember jigsaw kettle lemon magnet nectar oyster prism quartz saddle tundra
umbrella vortex walnut yacht zephyr anchor bramble cobalt dune fjord garnet hollow
ivory juniper kelp lilac mango nutmeg onyx pebble quill raven sorrel tulip urchin
vellum wasabi yarrow zinnia amber birch cedar dahlia elm fern ginger hazel iris`)

// stVocab is a pseudo-English vocabulary: the fixed words above followed
// by generated ones, drawn with a Zipf distribution so that texts share
// common words and differ in rare ones, as real notes do.
var stVocab = func() []string {
	syl := strings.Fields("ba be bi bo bu ca ce co da de di do fa fe fi ga ge go ha he hi ka ke ko la le li lo ma me mi mo na ne ni no pa pe pi po ra re ri ro sa se si so ta te ti to va ve vi wa we za zo")
	r := rand.New(rand.NewSource(7))
	out := append([]string(nil), stWords...)
	seen := map[string]bool{}
	for len(out) < 20000 {
		n := 2 + r.Intn(3)
		var b strings.Builder
		for i := 0; i < n; i++ {
			b.WriteString(syl[r.Intn(len(syl))])
		}
		if w := b.String(); !seen[w] {
			seen[w] = true
			out = append(out, w)
		}
	}
	return out
}()

// stText returns a distinct, scanner-clean sentence of about n bytes.
func stText(r *rand.Rand, n int) string {
	z := rand.NewZipf(r, 1.1, 20, uint64(len(stVocab)-1))
	var b strings.Builder
	b.WriteString("Note")
	for b.Len() < n-12 {
		b.WriteByte(' ')
		b.WriteString(stVocab[z.Uint64()])
	}
	fmt.Fprintf(&b, " n%d", r.Intn(1_000_000_000))
	s := b.String()
	if len(s) > n {
		s = s[:n]
	}
	return strings.TrimSpace(s)
}

// stCheckTree asserts no temp file is visible and every mode is tight.
func stCheckTree(t testing.TB, dir string) {
	t.Helper()
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if strings.HasPrefix(d.Name(), ".tmp-") || strings.HasPrefix(d.Name(), ".") && strings.Contains(d.Name(), ".tmp-") {
			t.Errorf("temp file left behind: %s", p)
		}
		fi, err := os.Lstat(p)
		if err != nil {
			return err
		}
		switch {
		case fi.IsDir():
			if fi.Mode().Perm() != 0o700 {
				t.Errorf("%s: dir mode %04o, want 0700", p, fi.Mode().Perm())
			}
		case fi.Mode().IsRegular():
			if fi.Mode().Perm() != 0o600 {
				t.Errorf("%s: file mode %04o, want 0600", p, fi.Mode().Perm())
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func stReadFile(t testing.TB, p string) []byte {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// stAtomsOnDisk returns the ids listed in atoms.json.
func stAtomsOnDisk(t testing.TB, dir string) map[string]bool {
	t.Helper()
	var recs []map[string]any
	if err := json.Unmarshal(stReadFile(t, filepath.Join(dir, "atoms.json")), &recs); err != nil {
		t.Fatalf("atoms.json: %v", err)
	}
	out := map[string]bool{}
	for _, r := range recs {
		out[r["id"].(string)] = true
	}
	return out
}

func stID(n int) string { return fmt.Sprintf("%032x", n) }

// ---- behaviour ----
