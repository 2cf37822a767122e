package memcore_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/odekmem/odekmem/memcore"
)

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
	list := must(s.List(ctx, memcore.Filter{}))
	if len(list) != 2 || list[0].ID != r2.Atom.ID || list[1].ID != r1.Atom.ID {
		t.Fatalf("list newest first: %+v", list)
	}
	if got := must(s.List(ctx, memcore.Filter{Type: "preference"})); len(got) != 1 || got[0].ID != r1.Atom.ID {
		t.Fatalf("filter type: %+v", got)
	}
	a, q, err := s.Get(ctx, r1.Atom.ID)
	if err != nil || q != nil || a.Text != "I prefer tabs over spaces in Go code" || a.SourceClass != memcore.SourceUserSaid {
		t.Fatalf("get: %+v %v %v", a, q, err)
	}
	if _, _, err := s.Get(ctx, stID(99)); !errors.Is(err, memcore.ErrNotFound) {
		t.Fatalf("get missing: %v", err)
	}
	if _, _, _, err := s.Forget(ctx, r1.Atom.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "chunks", r1.Atom.ID+".md")); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("chunk not removed: %v", err)
	}
	if _, _, _, err := s.Forget(ctx, r1.Atom.ID); !errors.Is(err, memcore.ErrNotFound) {
		t.Fatalf("forget twice: %v", err)
	}
	if must(s.Stats(ctx)).Live != 1 {
		t.Fatalf("len %d", must(s.Stats(ctx)).Live)
	}
	// Forgetting one of two atoms is a large eviction, which compacts the
	// vector cache in the background; Close waits for it, so the tree is
	// checked once nothing is writing.
	s.Close(context.Background())
	stCheckTree(t, dir)
	s2 := stOpen(t, dir, memcore.Options{Now: clk.Now})
	if must(s2.Stats(ctx)).Live != 1 || len(s2.Problems()) != 0 {
		t.Fatalf("reopen: len %d problems %v", must(s2.Stats(ctx)).Live, s2.Problems())
	}
}

func TestStoreTaintedGoesToQuarantine(t *testing.T) {
	dir := stDir(t)
	s := stOpen(t, dir, memcore.Options{})
	for _, src := range []memcore.Source{memcore.SourceInferred, memcore.SourceToolOutput, memcore.SourceFileRead, memcore.SourceWeb,
		memcore.SourceMCP, memcore.SourceSubagent, memcore.SourceAgentGenerated} {
		r := stAdd(t, s, memcore.AddRequest{Text: "content from " + string(src) + " about the build cache", Source: src})
		if !r.Quarantined || r.Reason != "tainted" {
			t.Fatalf("%s: %+v", src, r)
		}
		if _, err := os.Stat(filepath.Join(dir, "chunks", r.Atom.ID+".md")); err == nil {
			t.Fatalf("%s: quarantined atom has a chunk", src)
		}
	}
	if must(s.Stats(context.Background())).Live != 0 || len(must(s.Quarantined(context.Background()))) != 7 {
		t.Fatalf("live %d quarantine %d", must(s.Stats(context.Background())).Live, len(must(s.Quarantined(context.Background()))))
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
	stAdd(t, s, memcore.WithID(memcore.AddRequest{Source: memcore.SourceUserApproved, Text: "short one\n\n", CreatedAt: time.Date(2026, 1, 2, 4, 4, 5, 123456789, loc)}, stID(1)))
	stAdd(t, s, memcore.WithID(memcore.AddRequest{Source: memcore.SourceUserApproved, Text: "aéééééé", Type: "decision", Pin: true, Confidence: 0.5,
		Context: memcore.AtomContext{SessionID: "s1", Turn: 3, Project: "p", RelatedAtomIDs: []string{stID(1)}}}, stID(2)))
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
	stAdd(t, s, memcore.WithID(memcore.AddRequest{Text: "web page", Source: memcore.SourceWeb}, stID(3)))
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
	if _, _, err := s.Confirm(context.Background(), stID(10)); err != nil {
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
	if _, _, err := s.Get(context.Background(), old.Atom.ID); !errors.Is(err, memcore.ErrNotFound) {
		t.Fatal("expired entry still there")
	}
	// An ordinary add never drops an expired entry (issue 26: one rule,
	// and the person is told): only a compaction does, and says so.
	clk.Advance(7 * 24 * time.Hour)
	stAdd(t, s, memcore.AddRequest{Source: memcore.SourceUserApproved, Text: "a trusted fact about the linter"})
	if _, q, err := s.Get(context.Background(), young.Atom.ID); err != nil || q == nil {
		t.Fatalf("an add dropped an expired entry: %v", err)
	}
	if r := must(s.Compact(context.Background())); r.Expired != 1 {
		t.Fatalf("compact dropped %d expired entries, want 1", r.Expired)
	}
	if q := must(s.Quarantined(context.Background())); len(q) != 0 {
		t.Fatalf("quarantine %v", q)
	}
}

func TestStorePromotePinUnpin(t *testing.T) {
	dir := stDir(t)
	s := stOpen(t, dir, memcore.Options{})
	ctx := context.Background()
	r := stAdd(t, s, memcore.AddRequest{Text: "the staging host is called pluto", Source: memcore.SourceToolOutput})
	if _, _, err := s.SetPin(ctx, r.Atom.ID, true); !errors.Is(err, memcore.ErrInvalidArgument) || !strings.Contains(err.Error(), "promote it first") {
		t.Fatalf("pin quarantined: %v", err)
	}
	a, _, err := s.Promote(ctx, r.Atom.ID)
	if err != nil {
		t.Fatal(err)
	}
	if a.SourceClass != memcore.SourceUserApproved || a.ID != r.Atom.ID {
		t.Fatalf("promoted %+v", a)
	}
	if _, _, err := s.Promote(ctx, r.Atom.ID); !errors.Is(err, memcore.ErrInvalidArgument) || !strings.Contains(err.Error(), "not quarantined") {
		t.Fatalf("promote live: %v", err)
	}
	if got := string(stReadFile(t, filepath.Join(dir, "chunks", a.ID+".md"))); got != "the staging host is called pluto" {
		t.Fatalf("chunk %q", got)
	}
	if len(must(s.Quarantined(ctx))) != 0 || must(s.Stats(ctx)).Live != 1 {
		t.Fatal("promote did not move")
	}
	if _, _, err := s.SetPin(ctx, a.ID, true); err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(stReadFile(t, filepath.Join(dir, "atoms.json")), []byte(`"pin": true`)) {
		t.Fatal("pin not written")
	}
	if _, _, err := s.SetPin(ctx, a.ID, false); err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(stReadFile(t, filepath.Join(dir, "atoms.json")), []byte(`"pin"`)) {
		t.Fatal("unpinned atom still has a pin member")
	}
	if _, _, err := s.SetPin(ctx, stID(7), true); !errors.Is(err, memcore.ErrNotFound) {
		t.Fatalf("pin missing: %v", err)
	}
	// Forget a quarantined atom.
	q := stAdd(t, s, memcore.AddRequest{Text: "mcp says hello", Source: memcore.SourceMCP})
	if _, qa, _, err := s.Forget(ctx, q.Atom.ID); err != nil || qa == nil {
		t.Fatalf("forget quarantined: %v %v", qa, err)
	}
	s2 := stOpen(t, dir, memcore.Options{})
	got, _, err := s2.Get(ctx, a.ID)
	if err != nil || got.SourceClass != memcore.SourceUserApproved || got.Pin {
		t.Fatalf("after reopen %+v %v", got, err)
	}
	if len(must(s2.Quarantined(ctx))) != 0 {
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
		if _, _, err := s.Confirm(ctx, p.ID); err != nil {
			t.Fatalf("%s: confirm %v", c.field, err)
		}
		if m := must(s.UserModel(ctx)); !c.check(m) {
			t.Fatalf("%s=%s not applied: %+v", c.field, c.value, m)
		}
	}
	if len(must(s.UserModel(ctx)).Pending) != 0 {
		t.Fatal("confirmed entries still pending")
	}
	// Reject removes without applying.
	p, _, err := memcore.QueuePending(s, ctx, memcore.PendingReview{Field: "style.tone", Value: "grumpy"})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := s.Reject(ctx, p.ID); err != nil {
		t.Fatal(err)
	}
	if must(s.UserModel(ctx)).Style.Tone != "warm" || len(must(s.UserModel(ctx)).Pending) != 0 {
		t.Fatal("reject applied or kept the entry")
	}
	if _, _, err := s.Confirm(ctx, p.ID); !errors.Is(err, memcore.ErrNotFound) {
		t.Fatalf("confirm rejected: %v", err)
	}
	// An unknown path written by another program: confirm errors, entry stays.
	s.Close(context.Background())
	raw := stReadFile(t, filepath.Join(dir, "user_model.json"))
	var m map[string]any
	json.Unmarshal(raw, &m)
	m["pending_review"] = []any{map[string]any{"id": stID(500), "field": "style.colour", "value": "blue", "created_at": "2026-01-01T00:00:00Z"}}
	raw, _ = json.MarshalIndent(m, "", "  ")
	os.WriteFile(filepath.Join(dir, "user_model.json"), raw, 0o600)
	s = stOpen(t, dir, memcore.Options{Now: clk.Now})
	if _, _, err := s.Confirm(ctx, stID(500)); !errors.Is(err, memcore.ErrInvalidArgument) || !strings.Contains(err.Error(), "unknown user-model field") {
		t.Fatalf("unknown field: %v", err)
	}
	if len(must(s.UserModel(ctx)).Pending) != 1 {
		t.Fatal("entry with an unknown field was dropped")
	}
	if _, _, err := memcore.QueuePending(s, ctx, memcore.PendingReview{Field: "nope.nothing", Value: "x"}); !errors.Is(err, memcore.ErrInvalidArgument) {
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
	a, _, _ := s.Get(context.Background(), r1.Atom.ID)
	if !a.CreatedAt.Equal(clk.Now()) || a.Confidence != 0.9 || a.Text != "We deploy on   Fridays" {
		t.Fatalf("refreshed atom %+v", a)
	}
	clk.Advance(time.Hour)
	r3 := stAdd(t, s, memcore.AddRequest{Source: memcore.SourceUserApproved, Text: "we deploy on fridays", Confidence: 0.2})
	a, _, _ = s.Get(context.Background(), r1.Atom.ID)
	if !r3.Refreshed || a.Confidence != 0.9 || !a.CreatedAt.Equal(clk.Now()) {
		t.Fatalf("lower confidence lowered it: %+v", a)
	}
	if must(s.Stats(context.Background())).Live != 1 {
		t.Fatalf("len %d", must(s.Stats(context.Background())).Live)
	}
	s2 := stOpen(t, dir, memcore.Options{Now: clk.Now})
	if a2, _, _ := s2.Get(context.Background(), r1.Atom.ID); !a2.CreatedAt.Equal(a.CreatedAt) || a2.Confidence != 0.9 {
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
	if must(s.Stats(context.Background())).Live != 2 || len(must(s.Quarantined(context.Background()))) != 1 {
		t.Fatalf("live %d quarantine %d", must(s.Stats(context.Background())).Live, len(must(s.Quarantined(context.Background()))))
	}
	a, _, _ := s.Get(context.Background(), id1)
	if a.Text != "odek wrote this" || a.Type != "observation" || a.Context.SessionID != "odek-1" {
		t.Fatalf("atom %+v", a)
	}
	if links := must(s.Links(context.Background(), id2)); len(links) != 1 || links[0].ID != id1 {
		t.Fatalf("links re-linked both ways: %+v", links)
	}
	if m := must(s.UserModel(context.Background())); m.Version != "3" || m.Focus.Project != "odek" || m.Style.Tone != "plain" {
		t.Fatalf("model %+v", m)
	}
	// A rewrite keeps unknown fields of untouched records and sections.
	stAdd(t, s, memcore.AddRequest{Source: memcore.SourceUserApproved, Text: "a new atom written by odekmem"})
	if _, _, err := s.SetPin(context.Background(), id2, false); err != nil {
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
