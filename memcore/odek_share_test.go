package memcore_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/odekmem/odekmem/internal/embed"
	"github.com/odekmem/odekmem/memcore"
)

// Sharing a store with a running odek (issue 15): its temp files, its
// user-model version, its cache files, files odekmem does not know, and
// unknown fields at every level.

type stFileState struct {
	data  []byte
	mode  os.FileMode
	mtime time.Time
}

func stSnapshotFile(t testing.TB, p string) stFileState {
	t.Helper()
	fi, err := os.Lstat(p)
	if err != nil {
		t.Fatalf("%s: %v", p, err)
	}
	return stFileState{data: stReadFile(t, p), mode: fi.Mode(), mtime: fi.ModTime()}
}

func stSameFile(t testing.TB, p string, want stFileState) {
	t.Helper()
	got := stSnapshotFile(t, p)
	if !bytes.Equal(got.data, want.data) || got.mode != want.mode || !got.mtime.Equal(want.mtime) {
		t.Errorf("%s was touched: mode %v→%v, mtime %v→%v, %d→%d bytes", filepath.Base(p), want.mode, got.mode, want.mtime, got.mtime, len(want.data), len(got.data))
	}
}

// TestOdekTempFilesAreNeverTouched: odek's in-flight temp files (a chunk
// between write and rename, atoms.json's, its vector cache's) survive every
// odekmem verb unmoved, unchmodded and unreported; only a stale one (older
// than ten minutes) is swept.
func TestOdekTempFilesAreNeverTouched(t *testing.T) {
	dir := stDir(t)
	s := stOpen(t, dir, memcore.Options{})
	ctx := context.Background()
	a := stAdd(t, s, memcore.AddRequest{Text: "the deploy script lives in ops/deploy.sh", Source: memcore.SourceUserApproved}).Atom
	s.Close(context.Background())

	odek := map[string][]byte{
		filepath.Join("chunks", "."+stID(901)+".md.tmp-3141592"): []byte("odek is between write and rename"),
		".atoms.json.tmp-2718281":                                []byte(`[{"id": "half`),
		".quarantine.json.tmp-1618033":                           []byte(`[`),
		"vectors.gob.emb.tmp":                                    []byte("odek embedder state"),
		"vectors.gob.tmp":                                        []byte("odek gob"),
		"vectors_meta.json.tmp":                                  []byte(`{"fingerprint":"rp/256"}`),
	}
	old := time.Now().Add(-time.Hour)
	states := map[string]stFileState{}
	for rel, data := range odek {
		p := filepath.Join(dir, rel)
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		os.Chmod(p, 0o644)
		if !strings.HasPrefix(filepath.Base(rel), ".") {
			os.Chtimes(p, old, old) // odek's own vector temps: never touched, at any age
		}
		states[rel] = stSnapshotFile(t, p)
	}
	stale := filepath.Join(dir, "chunks", "."+stID(902)+".md.tmp-999")
	os.WriteFile(stale, []byte("left by a writer that died an hour ago"), 0o600)
	os.Chtimes(stale, old, old)

	s = stOpen(t, dir, memcore.Options{})
	stAdd(t, s, memcore.AddRequest{Text: "odekmem writes while odek is mid-write", Source: memcore.SourceUserApproved})
	stAdd(t, s, memcore.AddRequest{Text: "a web page said this", Source: memcore.SourceWeb})
	if _, _, err := s.SetPin(ctx, a.ID, true); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Compact(ctx); err != nil {
		t.Fatal(err)
	}
	if _, _, _, err := s.Forget(ctx, a.ID); err != nil {
		t.Fatal(err)
	}
	for _, p := range s.Problems() {
		if strings.Contains(p.File, "tmp") {
			t.Errorf("a temp file was reported as damage: %v", p)
		}
	}
	s.Close(context.Background())
	for rel, st := range states {
		stSameFile(t, filepath.Join(dir, rel), st)
	}
	if _, err := os.Lstat(stale); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("stale temp file not swept: %v", err)
	}
}

// TestUserModelVersionIsWrittenAsAString: odek declares version a string
// and drops a file whose version is a number. A string is kept as it was;
// a number is read and written back as a string.
func TestUserModelVersionIsWrittenAsAString(t *testing.T) {
	for _, tc := range []struct{ disk, want string }{{`"3"`, "3"}, {`3`, "3"}, {`"2024-06-odek"`, "2024-06-odek"}} {
		t.Run(tc.disk, func(t *testing.T) {
			dir := stDir(t)
			os.MkdirAll(dir, 0o700)
			pend := stID(5)
			um := `{"version": ` + tc.disk + `, "style": {"tone": "plain"}, "pending_review": [
				{"id": "` + pend + `", "field": "style.verbosity", "value": "low", "created_at": "2026-01-01T00:00:00Z"}]}`
			os.WriteFile(filepath.Join(dir, "user_model.json"), []byte(um), 0o600)
			s := stOpen(t, dir, memcore.Options{})
			if v := must(s.UserModel(context.Background())).Version; v != tc.want {
				t.Fatalf("version read as %q, want %q", v, tc.want)
			}
			if _, _, err := s.Confirm(context.Background(), pend); err != nil {
				t.Fatal(err)
			}
			// What odek does: a struct whose version is a string, strictly.
			var odek struct {
				Version string            `json:"version"`
				Style   map[string]string `json:"style"`
			}
			b := stReadFile(t, filepath.Join(dir, "user_model.json"))
			if err := json.Unmarshal(b, &odek); err != nil {
				t.Fatalf("odek cannot read the file odekmem wrote: %v\n%s", err, b)
			}
			if odek.Version != tc.want || odek.Style["verbosity"] != "low" {
				t.Fatalf("written %s", b)
			}
		})
	}
}

// TestOdekVectorCacheIsLeftToOdek: with odek's vectors.gob present,
// odekmem keeps its cache in vectors.odm and never overwrites odek's
// vectors_meta.json; odek rewriting its files never makes odekmem embed
// its atoms again.
func TestOdekVectorCacheIsLeftToOdek(t *testing.T) {
	dir := stDir(t)
	emb := &stCountingEmbedder{Hash: embed.NewHash(768)}
	s := stOpen(t, dir, memcore.Options{Embedder: emb})
	for i := 0; i < 20; i++ {
		stAdd(t, s, memcore.AddRequest{Text: stText(stRand(int64(i)), 80), Source: memcore.SourceUserApproved})
	}
	if _, err := s.Compact(context.Background()); err != nil {
		t.Fatal(err)
	}
	s.Close(context.Background())
	// A fresh store: odekmem's vectors_meta.json tells odek nothing there is its own.
	if b := stReadFile(t, filepath.Join(dir, "vectors_meta.json")); !strings.Contains(string(b), emb.Fingerprint()) {
		t.Fatalf("fresh store: vectors_meta.json %s", b)
	}
	// odek opens the store and writes its cache.
	odekMeta := []byte(`{"fingerprint": "rp/256", "corpus": "20:00000000deadbeef"}`)
	os.WriteFile(filepath.Join(dir, "vectors_meta.json"), odekMeta, 0o600)
	os.WriteFile(filepath.Join(dir, "vectors.gob"), []byte("odek's random projections"), 0o600)
	os.WriteFile(filepath.Join(dir, "vectors.gob.emb"), []byte("odek's embedder"), 0o600)

	emb.texts.Store(0)
	s = stOpen(t, dir, memcore.Options{Embedder: emb})
	if _, err := s.Search(context.Background(), "projections", memcore.SearchOptions{}); err != nil {
		t.Fatal(err)
	}
	if n := emb.texts.Load(); n > 1 { // the query itself
		t.Fatalf("odek's cache writes made odekmem embed %d texts again", n)
	}
	stAdd(t, s, memcore.AddRequest{Text: "written after odek's cache appeared", Source: memcore.SourceUserApproved})
	if _, err := s.Compact(context.Background()); err != nil {
		t.Fatal(err)
	}
	s.Close(context.Background())
	if b := stReadFile(t, filepath.Join(dir, "vectors_meta.json")); !bytes.Equal(b, odekMeta) {
		t.Fatalf("odekmem overwrote odek's vectors_meta.json: %s", b)
	}
	if b := stReadFile(t, filepath.Join(dir, "vectors.gob")); string(b) != "odek's random projections" {
		t.Fatal("odek's vectors.gob changed")
	}
}

// TestUnknownFileSurvivesEveryVerbAndIsCounted: nudges.json (odek's
// proactive-nudge ledger) is never touched by any verb and shows in stats
// as "other".
func TestUnknownFileSurvivesEveryVerbAndIsCounted(t *testing.T) {
	dir := stDir(t)
	os.MkdirAll(dir, 0o700)
	nudges := filepath.Join(dir, "nudges.json")
	os.WriteFile(nudges, bytes.Repeat([]byte(`{"nudge":"check the release notes"}`+"\n"), 300), 0o644)
	os.Chmod(nudges, 0o644)
	want := stSnapshotFile(t, nudges)
	s := stOpen(t, dir, memcore.Options{})
	ctx := context.Background()
	a := stAdd(t, s, memcore.AddRequest{Text: "we release on Thursdays", Source: memcore.SourceUserApproved}).Atom
	q := stAdd(t, s, memcore.AddRequest{Text: "a tool said the build is green", Source: memcore.SourceToolOutput}).Atom
	s.SetPin(ctx, a.ID, true)
	memcore.AddLinks(s, ctx, []memcore.LinkRequest{{A: a.ID, B: q.ID, Kind: memcore.LinkTask}})
	if _, _, err := s.Promote(ctx, q.ID); err != nil {
		t.Fatal(err)
	}
	var exp bytes.Buffer
	if err := s.Export(ctx, &exp); err != nil {
		t.Fatal(err)
	}
	if _, _, _, err := s.Forget(ctx, q.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Import(ctx, &exp, memcore.ImportOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Compact(ctx); err != nil {
		t.Fatal(err)
	}
	st := must(s.Stats(ctx))
	if st.OtherBytes < want.size() || st.Components["other"] < want.size() || len(st.OtherFiles) != 1 || st.OtherFiles[0] != "nudges.json" {
		t.Fatalf("nudges.json (%d bytes) not counted as other: other %d, components %v, files %v", want.size(), st.OtherBytes, st.Components, st.OtherFiles)
	}
	s.Close(context.Background())
	s = stOpen(t, dir, memcore.Options{})
	s.Close(context.Background())
	stSameFile(t, nudges, want)
}

func (f stFileState) size() int64 { return int64(len(f.data)) }

// TestUnknownFieldsSurviveEveryWrite: fields odekmem does not know survive
// in pinned atom records (and their context), quarantine entries, pending
// entries and inside user_model.json sections.
func TestUnknownFieldsSurviveEveryWrite(t *testing.T) {
	dir := stDir(t)
	os.MkdirAll(filepath.Join(dir, "chunks"), 0o700)
	live, quar, p1, p2 := stID(11), stID(12), stID(13), stID(14)
	os.WriteFile(filepath.Join(dir, "atoms.json"), []byte(`[
  {"id": "`+live+`", "source_class": "user_said", "type": "fact", "created_at": "2026-01-01T00:00:00Z",
   "context": {"session_id": "s1", "odek_thread": {"n": 4}}, "odek_score": 0.25, "future": [1, 2]}
]`), 0o600)
	os.WriteFile(filepath.Join(dir, "chunks", live+".md"), []byte("the staging DB is shared with QA"), 0o600)
	os.WriteFile(filepath.Join(dir, "quarantine.json"), []byte(`[
  {"id": "`+quar+`", "source_class": "web", "type": "fact", "created_at": "2026-01-01T00:00:00Z", "context": {"odek_url": "https://example.com"},
   "text": "a web page said so", "quarantined_at": "2099-01-01T00:00:00Z", "reason": "tainted", "odek_findings": ["x"]}
]`), 0o600)
	os.WriteFile(filepath.Join(dir, "user_model.json"), []byte(`{"version": "7",
  "style": {"tone": "plain", "odek_emoji": "never"},
  "technical": {"languages": ["Go"], "odek_editors": ["helix"]},
  "current_focus": {"project": "odek", "blocker": null, "odek_since": "monday"},
  "interaction_patterns": {"odek_greeting": "hi"},
  "pending_review": [
    {"id": "`+p1+`", "field": "style.verbosity", "value": "low", "created_at": "2026-01-01T00:00:00Z", "odek_source": "turn 4"},
    {"id": "`+p2+`", "field": "focus.task", "value": "release", "created_at": "2026-01-02T00:00:00Z", "odek_source": "turn 9", "odek_meta": {"a": 1}}],
  "odek_private": {"k": [1, 2]}}`), 0o600)

	os.WriteFile(filepath.Join(dir, "associations.json"), []byte(`{"odek_graph_version": "2", "odek_weights": {"a": 0.5}}`), 0o600)

	s := stOpen(t, dir, memcore.Options{})
	ctx := context.Background()
	if n, err := memcore.AddLinks(s, ctx, []memcore.LinkRequest{{A: live, B: quar, Kind: memcore.LinkTask}}); err != nil || n != 1 { // rewrites associations.json
		t.Fatalf("link: %d %v", n, err)
	}
	if _, _, err := s.SetPin(ctx, live, true); err != nil { // rewrites the record itself
		t.Fatal(err)
	}
	stAdd(t, s, memcore.AddRequest{Text: "another web page", Source: memcore.SourceWeb}) // rewrites quarantine.json
	if _, _, err := s.Confirm(ctx, p1); err != nil {                                     // rewrites user_model.json
		t.Fatal(err)
	}
	s.Close(context.Background())
	s = stOpen(t, dir, memcore.Options{}) // and a second generation of writes
	if _, _, err := s.SetPin(ctx, live, false); err != nil {
		t.Fatal(err)
	}
	s.Close(context.Background())

	_, rec := recordByID(t, filepath.Join(dir, "atoms.json"), live)
	ctxm, _ := rec["context"].(map[string]any)
	if rec == nil || rec["odek_score"] != 0.25 || rec["future"] == nil || ctxm["odek_thread"] == nil || ctxm["session_id"] != "s1" || rec["pin"] != nil {
		t.Errorf("pinned/unpinned atom record lost fields: %v", rec)
	}
	qs, qrec := recordByID(t, filepath.Join(dir, "quarantine.json"), quar)
	qctx, _ := qrec["context"].(map[string]any)
	if qrec == nil || qrec["odek_findings"] == nil || qctx["odek_url"] == nil || len(qs) != 2 {
		t.Errorf("quarantine entry lost fields: %v", qs)
	}
	var um map[string]any
	json.Unmarshal(stReadFile(t, filepath.Join(dir, "user_model.json")), &um)
	style, _ := um["style"].(map[string]any)
	tech, _ := um["technical"].(map[string]any)
	focus, _ := um["current_focus"].(map[string]any)
	inter, _ := um["interaction_patterns"].(map[string]any)
	pend, _ := um["pending_review"].([]any)
	if um["version"] != "7" || um["odek_private"] == nil || style["odek_emoji"] != "never" || style["verbosity"] != "low" ||
		tech["odek_editors"] == nil || focus["odek_since"] != "monday" || inter["odek_greeting"] != "hi" || len(pend) != 1 {
		t.Fatalf("user model lost fields: %v", um)
	}
	if p, _ := pend[0].(map[string]any); p["id"] != p2 || p["odek_source"] != "turn 9" || p["odek_meta"] == nil {
		t.Errorf("pending entry lost fields: %v", pend[0])
	}
	var assoc map[string]any
	json.Unmarshal(stReadFile(t, filepath.Join(dir, "associations.json")), &assoc)
	if assoc["odek_graph_version"] != "2" || assoc["odek_weights"] == nil || assoc[live] == nil {
		t.Errorf("associations.json lost members: %v", assoc)
	}
}

// stCountingEmbedder is the real hash embedder, counting the texts it is
// asked to embed.
// stCountingEmbedder is the offline default embedder counting its calls
// (embedding *embed.Hash keeps it memcore's own, calibration included).
type stCountingEmbedder struct {
	*embed.Hash
	calls, texts atomic.Int64
	mu           sync.Mutex
	last         []string // the texts of the latest calls, for a failure's message
}

func (e *stCountingEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	e.calls.Add(1)
	e.texts.Add(int64(len(texts)))
	e.mu.Lock()
	e.last = append(e.last, texts...)
	if len(e.last) > 8 {
		e.last = e.last[len(e.last)-8:]
	}
	e.mu.Unlock()
	return e.Hash.Embed(ctx, texts)
}

// recent returns the texts of the latest calls (at most eight).
func (e *stCountingEmbedder) recent() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]string(nil), e.last...)
}

func stRand(seed int64) *rand.Rand { return rand.New(rand.NewSource(seed)) }

// recordByID reads the JSON array of records at path and returns them all
// and the one whose "id" is id (nil when there is none).
func recordByID(t *testing.T, path, id string) (all []map[string]any, rec map[string]any) {
	t.Helper()
	json.Unmarshal(stReadFile(t, path), &all)
	for _, r := range all {
		if r["id"] == id {
			rec = r
		}
	}
	return all, rec
}
