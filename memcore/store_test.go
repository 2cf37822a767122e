package memcore_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

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
	s, err := memcore.Open(dir, opts)
	if err != nil {
		t.Fatalf("open %s: %v", dir, err)
	}
	t.Cleanup(func() { s.Close() })
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

func TestStoreAddListGetForget(t *testing.T) {
	dir := stDir(t)
	clk := stNewClock()
	s := stOpen(t, dir, memcore.Options{Now: clk.Now})
	ctx := context.Background()
	r1 := stAdd(t, s, memcore.AddRequest{Text: "I prefer tabs over spaces in Go code", Type: "preference", Source: memcore.SourceUserSaid})
	clk.Advance(time.Minute)
	r2 := stAdd(t, s, memcore.AddRequest{Source: memcore.SourceUserApproved, Text: "The deploy script lives in tools/deploy.sh", Type: "file"})
	if r1.Quarantined || r2.Quarantined {
		t.Fatalf("trusted atoms quarantined: %+v %+v", r1, r2)
	}
	if len(r1.Atom.ID) != 32 {
		t.Fatalf("id %q", r1.Atom.ID)
	}
	list := s.List(memcore.Filter{})
	if len(list) != 2 || list[0].ID != r2.Atom.ID || list[1].ID != r1.Atom.ID {
		t.Fatalf("list newest first: %+v", list)
	}
	if got := s.List(memcore.Filter{Type: "preference"}); len(got) != 1 || got[0].ID != r1.Atom.ID {
		t.Fatalf("filter type: %+v", got)
	}
	a, q, err := s.Get(r1.Atom.ID)
	if err != nil || q != nil || a.Text != "I prefer tabs over spaces in Go code" || a.SourceClass != memcore.SourceUserSaid {
		t.Fatalf("get: %+v %v %v", a, q, err)
	}
	if _, _, err := s.Get(stID(99)); !errors.Is(err, memcore.ErrNotFound) {
		t.Fatalf("get missing: %v", err)
	}
	if _, _, err := s.Forget(ctx, r1.Atom.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "chunks", r1.Atom.ID+".md")); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("chunk not removed: %v", err)
	}
	if _, _, err := s.Forget(ctx, r1.Atom.ID); !errors.Is(err, memcore.ErrNotFound) {
		t.Fatalf("forget twice: %v", err)
	}
	if s.Len() != 1 {
		t.Fatalf("len %d", s.Len())
	}
	// Forgetting one of two atoms is a large eviction, which compacts the
	// vector cache in the background; Close waits for it, so the tree is
	// checked once nothing is writing.
	s.Close()
	stCheckTree(t, dir)
	s2 := stOpen(t, dir, memcore.Options{Now: clk.Now})
	if s2.Len() != 1 || len(s2.Problems()) != 0 {
		t.Fatalf("reopen: len %d problems %v", s2.Len(), s2.Problems())
	}
}

func TestStoreTaintedGoesToQuarantine(t *testing.T) {
	dir := stDir(t)
	s := stOpen(t, dir, memcore.Options{})
	for _, src := range []string{memcore.SourceInferred, memcore.SourceToolOutput, memcore.SourceFileRead, memcore.SourceWeb,
		memcore.SourceMCP, memcore.SourceSubagent, memcore.SourceAgentGenerated} {
		r := stAdd(t, s, memcore.AddRequest{Text: "content from " + src + " about the build cache", Source: src})
		if !r.Quarantined || r.Reason != "tainted" {
			t.Fatalf("%s: %+v", src, r)
		}
		if _, err := os.Stat(filepath.Join(dir, "chunks", r.Atom.ID+".md")); err == nil {
			t.Fatalf("%s: quarantined atom has a chunk", src)
		}
	}
	if s.Len() != 0 || len(s.Quarantined()) != 7 {
		t.Fatalf("live %d quarantine %d", s.Len(), len(s.Quarantined()))
	}
	var qs []map[string]any
	if err := json.Unmarshal(stReadFile(t, filepath.Join(dir, "quarantine.json")), &qs); err != nil {
		t.Fatal(err)
	}
	for _, q := range qs {
		if q["text"] == "" || q["reason"] != "tainted" || q["quarantined_at"] == nil {
			t.Fatalf("quarantine entry shape: %v", q)
		}
	}
	if _, err := s.Add(context.Background(), memcore.AddRequest{Text: "x", Source: "bogus"}); err == nil {
		t.Fatal("unknown source accepted")
	}
}

func TestStoreFileShapes(t *testing.T) {
	dir := stDir(t)
	clk := stNewClock()
	cfg := memcore.DefaultConfig()
	cfg.AtomMaxChars = 10
	s := stOpen(t, dir, memcore.Options{Now: clk.Now, Config: &cfg})
	loc := time.FixedZone("X", 3600)
	stAdd(t, s, memcore.AddRequest{Source: memcore.SourceUserApproved, ID: stID(1), Text: "short one\n\n", CreatedAt: time.Date(2026, 1, 2, 4, 4, 5, 123456789, loc)})
	stAdd(t, s, memcore.AddRequest{Source: memcore.SourceUserApproved, ID: stID(2), Text: "aéééééé", Type: "decision", Pin: true, Confidence: 0.5,
		Context: memcore.AtomContext{SessionID: "s1", Turn: 3, Project: "p", RelatedAtomIDs: []string{stID(1)}}})
	want := `[
  {
    "id": "00000000000000000000000000000001",
    "source_class": "user_approved",
    "type": "fact",
    "created_at": "2026-01-02T03:04:05.123456789Z",
    "context": {}
  },
  {
    "id": "00000000000000000000000000000002",
    "source_class": "user_approved",
    "type": "decision",
    "created_at": "2026-01-02T03:04:05.123456789Z",
    "context": {
      "session_id": "s1",
      "turn": 3,
      "project": "p",
      "related_atom_ids": [
        "00000000000000000000000000000001"
      ]
    },
    "pin": true,
    "confidence": 0.5
  }
]`
	if got := string(stReadFile(t, filepath.Join(dir, "atoms.json"))); got != want {
		t.Fatalf("atoms.json:\n%s\nwant:\n%s", got, want)
	}
	if got := string(stReadFile(t, filepath.Join(dir, "chunks", stID(1)+".md"))); got != "short one" {
		t.Fatalf("chunk 1 %q", got)
	}
	c2 := stReadFile(t, filepath.Join(dir, "chunks", stID(2)+".md"))
	if string(c2) != "aéééé" || !utf8.Valid(c2) || len(c2) > 10 {
		t.Fatalf("chunk 2 %q (cut on a rune boundary at 10 bytes)", c2)
	}
	// quarantine.json: full atom with text, quarantined_at, reason.
	stAdd(t, s, memcore.AddRequest{ID: stID(3), Text: "web page", Source: memcore.SourceWeb})
	wantQ := `[
  {
    "id": "00000000000000000000000000000003",
    "source_class": "web",
    "type": "fact",
    "created_at": "2026-01-02T03:04:05.123456789Z",
    "context": {},
    "text": "web page",
    "quarantined_at": "2026-01-02T03:04:05.123456789Z",
    "reason": "tainted"
  }
]`
	if got := string(stReadFile(t, filepath.Join(dir, "quarantine.json"))); got != wantQ {
		t.Fatalf("quarantine.json:\n%s\nwant:\n%s", got, wantQ)
	}
	// user_model.json: empty sections omitted, 2-space indent.
	if _, _, err := memcore.QueuePending(s, context.Background(), memcore.PendingReview{ID: stID(10), Field: "style.tone", Value: "dry", CreatedAt: clk.Now()}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Confirm(context.Background(), stID(10)); err != nil {
		t.Fatal(err)
	}
	wantM := "{\n  \"style\": {\n    \"tone\": \"dry\"\n  }\n}"
	if got := string(stReadFile(t, filepath.Join(dir, "user_model.json"))); got != wantM {
		t.Fatalf("user_model.json:\n%s\nwant:\n%s", got, wantM)
	}
	stCheckTree(t, dir)
}

func TestStoreTTLExpiry(t *testing.T) {
	dir := stDir(t)
	clk := stNewClock()
	s := stOpen(t, dir, memcore.Options{Now: clk.Now})
	old := stAdd(t, s, memcore.AddRequest{Text: "tool said the cache is warm", Source: memcore.SourceToolOutput})
	clk.Advance(6 * 24 * time.Hour)
	young := stAdd(t, s, memcore.AddRequest{Text: "web said the port is 8080", Source: memcore.SourceWeb})
	clk.Advance(36 * time.Hour) // old is 7.5 days, young 1.5 days
	n, err := memcore.ExpireQuarantine(s)
	if err != nil || n != 1 {
		t.Fatalf("expire: %d %v", n, err)
	}
	if _, _, err := s.Get(old.Atom.ID); !errors.Is(err, memcore.ErrNotFound) {
		t.Fatal("expired entry still there")
	}
	// An ordinary add also expires.
	clk.Advance(7 * 24 * time.Hour)
	stAdd(t, s, memcore.AddRequest{Source: memcore.SourceUserApproved, Text: "a trusted fact about the linter"})
	if _, _, err := s.Get(young.Atom.ID); !errors.Is(err, memcore.ErrNotFound) {
		t.Fatal("expired entry survived an add")
	}
	if q := s.Quarantined(); len(q) != 0 {
		t.Fatalf("quarantine %v", q)
	}
}

func TestStorePromotePinUnpin(t *testing.T) {
	dir := stDir(t)
	s := stOpen(t, dir, memcore.Options{})
	ctx := context.Background()
	r := stAdd(t, s, memcore.AddRequest{Text: "the staging host is called pluto", Source: memcore.SourceToolOutput})
	if _, err := s.SetPin(ctx, r.Atom.ID, true); !errors.Is(err, memcore.ErrNotLive) {
		t.Fatalf("pin quarantined: %v", err)
	}
	a, err := s.Promote(ctx, r.Atom.ID)
	if err != nil {
		t.Fatal(err)
	}
	if a.SourceClass != memcore.SourceUserApproved || a.ID != r.Atom.ID {
		t.Fatalf("promoted %+v", a)
	}
	if _, err := s.Promote(ctx, r.Atom.ID); !errors.Is(err, memcore.ErrNotQuarantined) {
		t.Fatalf("promote live: %v", err)
	}
	if got := string(stReadFile(t, filepath.Join(dir, "chunks", a.ID+".md"))); got != "the staging host is called pluto" {
		t.Fatalf("chunk %q", got)
	}
	if len(s.Quarantined()) != 0 || s.Len() != 1 {
		t.Fatal("promote did not move")
	}
	if _, err := s.SetPin(ctx, a.ID, true); err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(stReadFile(t, filepath.Join(dir, "atoms.json")), []byte(`"pin": true`)) {
		t.Fatal("pin not written")
	}
	if _, err := s.SetPin(ctx, a.ID, false); err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(stReadFile(t, filepath.Join(dir, "atoms.json")), []byte(`"pin"`)) {
		t.Fatal("unpinned atom still has a pin member")
	}
	if _, err := s.SetPin(ctx, stID(7), true); !errors.Is(err, memcore.ErrNotFound) {
		t.Fatalf("pin missing: %v", err)
	}
	// Forget a quarantined atom.
	q := stAdd(t, s, memcore.AddRequest{Text: "mcp says hello", Source: memcore.SourceMCP})
	if _, qa, err := s.Forget(ctx, q.Atom.ID); err != nil || qa == nil {
		t.Fatalf("forget quarantined: %v %v", qa, err)
	}
	s2 := stOpen(t, dir, memcore.Options{})
	got, _, err := s2.Get(a.ID)
	if err != nil || got.SourceClass != memcore.SourceUserApproved || got.Pin {
		t.Fatalf("after reopen %+v %v", got, err)
	}
	if len(s2.Quarantined()) != 0 {
		t.Fatal("forgotten quarantine entry came back")
	}
}

func TestStoreConfirmReject(t *testing.T) {
	dir := stDir(t)
	clk := stNewClock()
	s := stOpen(t, dir, memcore.Options{Now: clk.Now})
	ctx := context.Background()
	cases := []struct {
		field, value string
		check        func(m memcore.UserModel) bool
	}{
		{"style.verbosity", "terse", func(m memcore.UserModel) bool { return m.Style.Verbosity == "terse" }},
		{"style.humor", "dry", func(m memcore.UserModel) bool { return m.Style.Humor == "dry" }},
		{"style.formality", "casual", func(m memcore.UserModel) bool { return m.Style.Formality == "casual" }},
		{"style.explanation_depth", "deep", func(m memcore.UserModel) bool { return m.Style.ExplanationDepth == "deep" }},
		{"style.tone", "warm", func(m memcore.UserModel) bool { return m.Style.Tone == "warm" }},
		{"focus.project", "odekmem", func(m memcore.UserModel) bool { return m.Focus.Project == "odekmem" }},
		{"current_focus.task", "write tests", func(m memcore.UserModel) bool { return m.Focus.Task == "write tests" }},
		{"current_focus.blocker", "flaky CI", func(m memcore.UserModel) bool { return m.Focus.Blocker != nil && *m.Focus.Blocker == "flaky CI" }},
		{"interaction.followup_after_refactor", "run tests", func(m memcore.UserModel) bool { return m.Interaction.FollowupAfterRefactor == "run tests" }},
		{"interaction_patterns.followup_after_bugfix", "add a test", func(m memcore.UserModel) bool { return m.Interaction.FollowupAfterBugfix == "add a test" }},
		{"technical.languages", "Go", func(m memcore.UserModel) bool { return strings.Join(m.Technical.Languages, ",") == "Go" }},
		{"technical.languages", "go, Rust", func(m memcore.UserModel) bool { return strings.Join(m.Technical.Languages, ",") == "Go,Rust" }},
		{"technical.patterns", "table tests", func(m memcore.UserModel) bool { return len(m.Technical.Patterns) == 1 }},
		{"technical.tools", "jj", func(m memcore.UserModel) bool { return len(m.Technical.Tools) == 1 }},
	}
	for i, c := range cases {
		clk.Advance(time.Second)
		p, ok, err := memcore.QueuePending(s, ctx, memcore.PendingReview{ID: stID(100 + i), Field: c.field, Value: c.value})
		if err != nil || !ok {
			t.Fatalf("%s: queue %v %v", c.field, ok, err)
		}
		if _, err := s.Confirm(ctx, p.ID); err != nil {
			t.Fatalf("%s: confirm %v", c.field, err)
		}
		if m := s.UserModel(); !c.check(m) {
			t.Fatalf("%s=%s not applied: %+v", c.field, c.value, m)
		}
	}
	if len(s.Pending()) != 0 {
		t.Fatal("confirmed entries still pending")
	}
	// Reject removes without applying.
	p, _, err := memcore.QueuePending(s, ctx, memcore.PendingReview{Field: "style.tone", Value: "grumpy"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Reject(ctx, p.ID); err != nil {
		t.Fatal(err)
	}
	if s.UserModel().Style.Tone != "warm" || len(s.Pending()) != 0 {
		t.Fatal("reject applied or kept the entry")
	}
	if _, err := s.Confirm(ctx, p.ID); !errors.Is(err, memcore.ErrNotFound) {
		t.Fatalf("confirm rejected: %v", err)
	}
	// An unknown path written by another program: confirm errors, entry stays.
	s.Close()
	raw := stReadFile(t, filepath.Join(dir, "user_model.json"))
	var m map[string]any
	json.Unmarshal(raw, &m)
	m["pending_review"] = []any{map[string]any{"id": stID(500), "field": "style.colour", "value": "blue", "created_at": "2026-01-01T00:00:00Z"}}
	raw, _ = json.MarshalIndent(m, "", "  ")
	os.WriteFile(filepath.Join(dir, "user_model.json"), raw, 0o600)
	s = stOpen(t, dir, memcore.Options{Now: clk.Now})
	if _, err := s.Confirm(ctx, stID(500)); !errors.Is(err, memcore.ErrUnknownField) {
		t.Fatalf("unknown field: %v", err)
	}
	if len(s.Pending()) != 1 {
		t.Fatal("entry with an unknown field was dropped")
	}
	if _, _, err := memcore.QueuePending(s, ctx, memcore.PendingReview{Field: "nope.nothing", Value: "x"}); !errors.Is(err, memcore.ErrUnknownField) {
		t.Fatalf("queue unknown field: %v", err)
	}
}

func TestStoreDedupRefresh(t *testing.T) {
	dir := stDir(t)
	clk := stNewClock()
	s := stOpen(t, dir, memcore.Options{Now: clk.Now})
	r1 := stAdd(t, s, memcore.AddRequest{Source: memcore.SourceUserApproved, Text: "We deploy on   Fridays", Confidence: 0.4})
	clk.Advance(time.Hour)
	r2 := stAdd(t, s, memcore.AddRequest{Source: memcore.SourceUserApproved, Text: "we DEPLOY on fridays", Confidence: 0.9})
	if !r2.Refreshed || r2.Atom.ID != r1.Atom.ID {
		t.Fatalf("not refreshed: %+v", r2)
	}
	a, _, _ := s.Get(r1.Atom.ID)
	if !a.CreatedAt.Equal(clk.Now()) || a.Confidence != 0.9 || a.Text != "We deploy on   Fridays" {
		t.Fatalf("refreshed atom %+v", a)
	}
	clk.Advance(time.Hour)
	r3 := stAdd(t, s, memcore.AddRequest{Source: memcore.SourceUserApproved, Text: "we deploy on fridays", Confidence: 0.2})
	a, _, _ = s.Get(r1.Atom.ID)
	if !r3.Refreshed || a.Confidence != 0.9 || !a.CreatedAt.Equal(clk.Now()) {
		t.Fatalf("lower confidence lowered it: %+v", a)
	}
	if s.Len() != 1 {
		t.Fatalf("len %d", s.Len())
	}
	s2 := stOpen(t, dir, memcore.Options{Now: clk.Now})
	if a2, _, _ := s2.Get(r1.Atom.ID); !a2.CreatedAt.Equal(a.CreatedAt) || a2.Confidence != 0.9 {
		t.Fatalf("refresh not durable: %+v", a2)
	}
}

// TestStoreOdekFixture opens a store written by odek, with its spellings and
// fields odekmem does not know.
func TestStoreOdekFixture(t *testing.T) {
	dir := stDir(t)
	os.MkdirAll(filepath.Join(dir, "chunks"), 0o700)
	id1, id2, id3 := "a1b2c3d4e5f60718293a4b5c6d7e8f90", "0f1e2d3c4b5a69788796a5b4c3d2e1f0", "1234567890abcdef1234567890abcdef"
	atoms := `[
  {
    "id": "` + id1 + `",
    "source_class": "user_approved",
    "type": "observation",
    "created_at": "2025-06-01T10:00:00.5Z",
    "context": {"session_id": "odek-1", "future_field": 7},
    "odek_score": 0.25
  },
  {
    "id": "` + id2 + `",
    "source_class": "user_said",
    "type": "preference",
    "created_at": "2025-06-02T10:00:00Z",
    "context": {},
    "pin": true
  }
]`
	os.WriteFile(filepath.Join(dir, "atoms.json"), []byte(atoms), 0o600)
	os.WriteFile(filepath.Join(dir, "chunks", id1+".md"), []byte("odek wrote this"), 0o600)
	os.WriteFile(filepath.Join(dir, "chunks", id2+".md"), []byte("I like short answers"), 0o600)
	os.WriteFile(filepath.Join(dir, "quarantine.json"), []byte(`[{"id":"`+id3+`","source_class":"web","type":"fact","created_at":"2025-06-03T00:00:00Z","context":{},"text":"from the web","quarantined_at":"2099-01-01T00:00:00Z","reason":"tainted","extra":1}]`), 0o600)
	os.WriteFile(filepath.Join(dir, "user_model.json"), []byte(`{"version": 3, "style": {"tone": "plain"}, "technical": {}, "current_focus": {"project": "odek", "blocker": null}, "odek_private": {"k": [1,2]}}`), 0o600)
	os.WriteFile(filepath.Join(dir, "associations.json"), []byte(`{"`+id1+`": ["`+id2+`"], "../bad": ["`+id1+`"]}`), 0o600)
	os.WriteFile(filepath.Join(dir, "vectors_meta.json"), []byte(`{"fingerprint": "rp/256", "corpus": "2:0000000000000000"}`), 0o600)
	os.WriteFile(filepath.Join(dir, "vectors.gob"), []byte("odek gob bytes"), 0o600)

	s := stOpen(t, dir, memcore.Options{})
	if s.Len() != 2 || len(s.Quarantined()) != 1 {
		t.Fatalf("live %d quarantine %d", s.Len(), len(s.Quarantined()))
	}
	a, _, _ := s.Get(id1)
	if a.Text != "odek wrote this" || a.Type != "observation" || a.Context.SessionID != "odek-1" {
		t.Fatalf("atom %+v", a)
	}
	if links := s.Links(id2); len(links) != 1 || links[0].ID != id1 {
		t.Fatalf("links re-linked both ways: %+v", links)
	}
	if m := s.UserModel(); m.Version != "3" || m.Focus.Project != "odek" || m.Style.Tone != "plain" {
		t.Fatalf("model %+v", m)
	}
	// A rewrite keeps unknown fields of untouched records and sections.
	stAdd(t, s, memcore.AddRequest{Source: memcore.SourceUserApproved, Text: "a new atom written by odekmem"})
	if _, err := s.SetPin(context.Background(), id2, false); err != nil {
		t.Fatal(err)
	}
	raw := string(stReadFile(t, filepath.Join(dir, "atoms.json")))
	if !strings.Contains(raw, `"odek_score": 0.25`) || !strings.Contains(raw, `"future_field": 7`) {
		t.Fatalf("unknown atom fields lost:\n%s", raw)
	}
	if err := memcore.ApplyDirect(s, context.Background(), "focus.task", "curate"); err != nil {
		t.Fatal(err)
	}
	um := string(stReadFile(t, filepath.Join(dir, "user_model.json")))
	if !strings.Contains(um, `"odek_private"`) || !strings.Contains(um, `"version": "3"`) {
		t.Fatalf("unknown user_model keys lost:\n%s", um)
	}
	if _, err := os.Stat(filepath.Join(dir, "vectors.gob")); err != nil {
		t.Fatalf("odek's vector cache removed: %v", err)
	}
	stCheckTree(t, dir)
}

// stFill adds n distinct atoms with increasing confidence and age order.
func stSmallCapConfig(mb float64) *memcore.Config {
	cfg := memcore.DefaultConfig()
	cfg.MaxSizeMB = mb
	cfg.DedupThreshold = 0
	return &cfg
}

func TestStoreEvictionOrderAndRefusal(t *testing.T) {
	dir := stDir(t)
	clk := stNewClock()
	// 0.1 MB: room for about a dozen 300-byte atoms (4 KiB chunks).
	s := stOpen(t, dir, memcore.Options{Now: clk.Now, Config: stSmallCapConfig(0.1)})
	ctx := context.Background()
	r := rand.New(rand.NewSource(1))
	var ids []string
	conf := map[string]float64{}
	for i := 0; ; i++ {
		c := 0.3 + 0.6*r.Float64()
		res, err := s.Add(ctx, memcore.AddRequest{Source: memcore.SourceUserApproved, Text: stText(r, 300), Confidence: c})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Evicted) > 0 {
			// The victim is the lowest-retention atom among the others.
			low, lowScore := "", 2.0
			for _, id := range ids {
				if conf[id] < lowScore {
					low, lowScore = id, conf[id]
				}
			}
			if res.Evicted[0] != low {
				t.Fatalf("evicted %v, want lowest retention %s", res.Evicted, low)
			}
			break
		}
		ids = append(ids, res.Atom.ID)
		conf[res.Atom.ID] = c
		if i > 200 {
			t.Fatal("never evicted")
		}
	}
	st := s.Stats()
	if st.TotalBytes > st.CapBytes {
		t.Fatalf("over cap: %d > %d", st.TotalBytes, st.CapBytes)
	}
	// Pin everything: the next add is refused and nothing is removed.
	for _, a := range s.List(memcore.Filter{}) {
		if _, err := s.SetPin(ctx, a.ID, true); err != nil {
			t.Fatal(err)
		}
	}
	before := s.List(memcore.Filter{})
	beforeChunks, _ := os.ReadDir(filepath.Join(dir, "chunks"))
	_, err := s.Add(ctx, memcore.AddRequest{Source: memcore.SourceUserApproved, Text: stText(r, 300)})
	if !errors.Is(err, memcore.ErrCapExceeded) || !strings.Contains(err.Error(), "pinned") {
		t.Fatalf("want a clear cap error, got %v", err)
	}
	after := s.List(memcore.Filter{})
	afterChunks, _ := os.ReadDir(filepath.Join(dir, "chunks"))
	if len(after) != len(before) || len(afterChunks) != len(beforeChunks) {
		t.Fatalf("refused write removed something: %d→%d atoms, %d→%d chunks", len(before), len(after), len(beforeChunks), len(afterChunks))
	}
	stCheckTree(t, dir)
}

func TestStoreEvictsExpiredQuarantineFirst(t *testing.T) {
	dir := stDir(t)
	clk := stNewClock()
	cfg := stSmallCapConfig(0.1)
	cfg.QuarantineSharePercent = 50
	s := stOpen(t, dir, memcore.Options{Now: clk.Now, Config: cfg})
	r := rand.New(rand.NewSource(2))
	q := stAdd(t, s, memcore.AddRequest{Text: stText(r, 300), Source: memcore.SourceWeb})
	clk.Advance(8 * 24 * time.Hour)
	var trusted []string
	for i := 0; i < 200; i++ {
		res := stAdd(t, s, memcore.AddRequest{Source: memcore.SourceUserApproved, Text: stText(r, 300)})
		if _, _, err := s.Get(q.Atom.ID); err == nil {
			trusted = append(trusted, res.Atom.ID)
			continue
		}
		if len(res.Evicted) > 0 && res.Evicted[0] != q.Atom.ID && len(trusted) < 10 {
			t.Fatalf("evicted %v before the expired quarantine entry", res.Evicted)
		}
		return
	}
}

func TestStoreQuarantineShareFlood(t *testing.T) {
	dir := stDir(t)
	s := stOpen(t, dir, memcore.Options{Config: stSmallCapConfig(1)})
	r := rand.New(rand.NewSource(3))
	var trusted []string
	for i := 0; i < 20; i++ {
		trusted = append(trusted, stAdd(t, s, memcore.AddRequest{Source: memcore.SourceUserApproved, Text: stText(r, 300)}).Atom.ID)
	}
	var flood []string
	for i := 0; i < 400; i++ {
		res := stAdd(t, s, memcore.AddRequest{Text: stText(r, 300), Source: memcore.SourceWeb})
		flood = append(flood, res.Atom.ID)
		for _, id := range res.Evicted {
			for _, tid := range trusted {
				if id == tid {
					t.Fatalf("quarantine flood evicted trusted atom %s", id)
				}
			}
		}
	}
	if s.Len() != 20 {
		t.Fatalf("trusted atoms lost: %d", s.Len())
	}
	share := int64(float64(int64(s.Config().MaxSizeMB*(1<<20))) * 0.05)
	fi, _ := os.Stat(filepath.Join(dir, "quarantine.json"))
	if fi.Size() > share {
		t.Fatalf("quarantine.json %d bytes > share %d", fi.Size(), share)
	}
	qs := s.Quarantined()
	if len(qs) == 0 || len(qs) >= 400 {
		t.Fatalf("quarantine holds %d", len(qs))
	}
	// The newest survive, the oldest went.
	if qs[len(qs)-1].ID != flood[len(flood)-1] {
		t.Fatal("newest flood entry missing")
	}
	if _, _, err := s.Get(flood[0]); !errors.Is(err, memcore.ErrNotFound) {
		t.Fatal("oldest flood entry kept")
	}
}

// TestStoreSemanticDedup: a near-duplicate (cosine above dedup_threshold)
// refreshes the existing atom even among many others.
func TestStoreSemanticDedup(t *testing.T) {
	dir := stDir(t)
	clk := stNewClock()
	s := stOpen(t, dir, memcore.Options{Now: clk.Now})
	r := rand.New(rand.NewSource(11))
	reqs := make([]memcore.AddRequest, 300)
	for i := range reqs {
		reqs[i] = memcore.AddRequest{Source: memcore.SourceUserApproved, Text: stText(r, 300)}
	}
	res, _, err := s.AddBatch(context.Background(), reqs)
	if err != nil {
		t.Fatal(err)
	}
	for i, x := range res {
		if x.Refreshed {
			t.Fatalf("distinct text %d deduplicated", i)
		}
	}
	target := res[123].Atom
	clk.Advance(time.Hour)
	// One more word, same numbers: the same memory.
	// One letter of one word changed, same length and numbers: the same memory.
	sp := strings.Index(target.Text, " ")
	near := target.Text[:sp-1] + "x" + target.Text[sp:]
	got := stAdd(t, s, memcore.AddRequest{Source: memcore.SourceUserApproved, Text: near, Confidence: 0.9})
	if !got.Refreshed || got.Atom.ID != target.ID {
		t.Fatalf("near duplicate not refreshed: %+v", got)
	}
	if s.Len() != 300 {
		t.Fatalf("len %d", s.Len())
	}
}

// TestStorePromoteCrashLeftovers: a promotion interrupted between writing
// atoms.json and quarantine.json leaves the atom in both; the live copy
// wins and the quarantine copy is dropped.
func TestStorePromoteCrashLeftovers(t *testing.T) {
	dir := stDir(t)
	s := stOpen(t, dir, memcore.Options{})
	q := stAdd(t, s, memcore.AddRequest{Text: "tool output worth keeping", Source: memcore.SourceToolOutput})
	before := stReadFile(t, filepath.Join(dir, "quarantine.json"))
	if _, err := s.Promote(context.Background(), q.Atom.ID); err != nil {
		t.Fatal(err)
	}
	s.Close()
	os.WriteFile(filepath.Join(dir, "quarantine.json"), before, 0o600)
	s2 := stOpen(t, dir, memcore.Options{})
	a, qa, err := s2.Get(q.Atom.ID)
	if err != nil || qa != nil || a.SourceClass != memcore.SourceUserApproved {
		t.Fatalf("get %+v %v %v", a, qa, err)
	}
	if n := len(s2.Quarantined()); n != 0 {
		t.Fatalf("quarantine still holds the promoted atom (%d)", n)
	}
	if _, err := s2.Promote(context.Background(), q.Atom.ID); err == nil {
		t.Fatal("promoted twice")
	}
	if s2.Len() != 1 {
		t.Fatalf("len %d", s2.Len())
	}
}

// TestStoreVectorCacheReused: after Compact a reopened store fills its
// index from vectors.odm (in the background for a large store) without
// re-embedding, and writes made meanwhile wait for it.
func TestStoreVectorCacheReused(t *testing.T) {
	dir := stDir(t)
	s := stOpen(t, dir, memcore.Options{})
	ctx := context.Background()
	r := rand.New(rand.NewSource(5))
	reqs := make([]memcore.AddRequest, 2500)
	for i := range reqs {
		reqs[i] = memcore.AddRequest{Source: memcore.SourceUserApproved, Text: stText(r, 200)}
	}
	res, _, err := s.AddBatch(ctx, reqs)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Compact(ctx); err != nil {
		t.Fatal(err)
	}
	s.Close()
	s2 := stOpen(t, dir, memcore.Options{})
	// A write and a search right after open wait for the index.
	stAdd(t, s2, memcore.AddRequest{Source: memcore.SourceUserApproved, Text: "written while the index fills"})
	hits, err := s2.Search(ctx, res[42].Atom.Text, memcore.SearchOptions{})
	if err != nil || len(hits) == 0 || hits[0].Atom.ID != res[42].Atom.ID {
		t.Fatalf("search after reopen: %v %v", hits, err)
	}
	st := s2.Stats()
	if st.Index.Vectors != 2501 || st.Index.Stale != 1 {
		t.Fatalf("index %+v: want 2501 vectors with only the new atom embedded", st.Index)
	}
	if _, err := s2.Compact(ctx); err != nil {
		t.Fatal(err)
	}
	s2.Close()
	s3 := stOpen(t, dir, memcore.Options{})
	if _, err := s3.Search(ctx, "anything", memcore.SearchOptions{}); err != nil {
		t.Fatal(err)
	}
	if st := s3.Stats(); st.Index.Vectors != 2501 || st.Index.Stale != 0 {
		t.Fatalf("index after second reopen %+v", st.Index)
	}
}
