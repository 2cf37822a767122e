package memcore_test

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/odekmem/odekmem/internal/embed"
	"github.com/odekmem/odekmem/internal/testkit"
	"github.com/odekmem/odekmem/memcore"
)

const stOdekEnv = "ODEKMEM_ST_ODEK_DIR"

func stHex(n int) string {
	b := make([]byte, n)
	rand.Read(b)
	return hex.EncodeToString(b)
}

// stOdekWrite writes a file as odek's atomic helper does: a temp file
// ".<name>.tmp-<random>" beside the target (mode 0644 here, so a chmod by
// odekmem would show), an optional pause, then a rename. It reports
// whether the temp file was still exactly as written before the rename.
func stOdekWrite(target string, data []byte, pause time.Duration) error {
	tmp := filepath.Join(filepath.Dir(target), "."+filepath.Base(target)+".tmp-"+strconv.Itoa(int(time.Now().UnixNano()%1e9)))
	if err := os.WriteFile(tmp, data, 0o644); err != nil {
		return err
	}
	os.Chmod(tmp, 0o644)
	before, err := os.Lstat(tmp)
	if err != nil {
		return err
	}
	time.Sleep(pause)
	after, err := os.Lstat(tmp)
	if err != nil {
		return fmt.Errorf("touched: temp file %s gone before its rename: %v", filepath.Base(tmp), err)
	}
	if after.Mode() != before.Mode() || after.Size() != before.Size() || !after.ModTime().Equal(before.ModTime()) {
		return fmt.Errorf("touched: temp file %s changed before its rename (%v → %v)", filepath.Base(tmp), before.Mode(), after.Mode())
	}
	if err := os.Rename(tmp, target); err != nil {
		return fmt.Errorf("touched: rename %s: %v", filepath.Base(tmp), err)
	}
	return nil
}

// TestOdekWriterChild behaves like odek writing the store: no lock,
// temp-file-then-rename for every file with a pause between a chunk's
// write and its rename, an unlocked read-modify-write of atoms.json, and
// its own vectors.gob / vectors_meta.json. It prints "ack <id>" after each
// add returned.
func TestOdekWriterChild(t *testing.T) {
	dir := os.Getenv(stOdekEnv)
	if dir == "" {
		t.Skip("child process of TestConcurrentOdekWriterLosesNothing")
	}
	n, _ := strconv.Atoi(os.Getenv(stOdekEnv + "_N"))
	fail := func(err error) {
		fmt.Println("error", err)
		os.Exit(3)
	}
	for i := 0; i < n; i++ {
		id := stHex(16)
		if err := stOdekWrite(filepath.Join(dir, "chunks", id+".md"), []byte(fmt.Sprintf("odek remembered fact number %d about %s", i, id[:8])), 3*time.Millisecond); err != nil {
			fail(err)
		}
		var recs []json.RawMessage
		if b, err := os.ReadFile(filepath.Join(dir, "atoms.json")); err == nil {
			if err := json.Unmarshal(b, &recs); err != nil {
				fail(fmt.Errorf("atoms.json: %v", err))
			}
		}
		time.Sleep(time.Millisecond) // the window odek's read-modify-write leaves open
		rec, _ := json.Marshal(map[string]any{"id": id, "source_class": "user_approved", "type": "fact",
			"created_at": time.Now().UTC().Format(time.RFC3339Nano), "context": map[string]any{"session_id": "odek"}})
		recs = append(recs, rec)
		b, _ := json.MarshalIndent(recs, "", "  ")
		if err := stOdekWrite(filepath.Join(dir, "atoms.json"), b, 0); err != nil {
			fail(err)
		}
		fmt.Println("ack", id)
		if i%10 == 9 {
			// odek's own vector cache, through its .tmp names.
			gob := filepath.Join(dir, "vectors.gob")
			os.WriteFile(gob+".tmp", []byte(fmt.Sprintf("odek gob after %d adds", i+1)), 0o600)
			os.Rename(gob+".tmp", gob)
			meta := filepath.Join(dir, "vectors_meta.json")
			os.WriteFile(meta+".tmp", []byte(fmt.Sprintf(`{"fingerprint": "rp/256", "corpus": "%d:00000000cafef00d"}`, i+1)), 0o600)
			os.Rename(meta+".tmp", meta)
		}
	}
	fmt.Println("done")
}

// TestConcurrentOdekWriterLosesNothing runs a process that writes the
// store the way odek does (no lock) alongside odekmem adds. Nothing either
// side acknowledged is lost: odekmem's atoms stay live (re-added when
// odek's rewrite drops them), odek's atoms are live or, when odekmem's
// write dropped their record, adopted into quarantine as "recovered" once
// the grace period has passed. No temp file of the writer is touched, and
// its cache writes never make odekmem embed its atoms again.
func TestConcurrentOdekWriterLosesNothing(t *testing.T) {
	n := testkit.Rounds(60, 150)
	dir := stDir(t)
	emb := &stCountingEmbedder{Hash: embed.NewHash(768)}
	cfg := memcore.DefaultConfig()
	cfg.NoDedup = true
	s := stOpen(t, dir, memcore.Options{Config: &cfg, Embedder: emb})
	ctx := context.Background()

	cmd := exec.Command(os.Args[0], "-test.run=^TestOdekWriterChild$", "-test.count=1")
	cmd.Env = append(os.Environ(), stOdekEnv+"="+dir, stOdekEnv+"_N="+strconv.Itoa(n))
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	odekAcked := map[string]bool{}
	var odekErr []string
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			f := strings.Fields(sc.Text())
			switch {
			case len(f) == 2 && f[0] == "ack":
				odekAcked[f[1]] = true
			case len(f) > 0 && f[0] == "error":
				odekErr = append(odekErr, sc.Text())
			}
		}
	}()
	ours := map[string]string{}
	for i := 0; i < n; i++ {
		text := fmt.Sprintf("odekmem note %d: %s", i, stText(stRand(int64(1000+i)), 60))
		r, err := s.Add(ctx, memcore.AddRequest{Text: text, Source: memcore.SourceUserApproved})
		if err != nil {
			t.Fatalf("add %d: %v", i, err)
		}
		ours[r.Atom.ID] = r.Atom.Text
		time.Sleep(time.Millisecond)
	}
	wg.Wait()
	cmd.Wait()
	if len(odekErr) > 0 {
		t.Fatalf("the odek-like writer failed (a temp file of its was touched?): %v", odekErr)
	}
	if len(odekAcked) != n {
		t.Fatalf("odek acknowledged %d of %d", len(odekAcked), n)
	}
	embeddedDuringRun := emb.texts.Load()

	// The next read notices atoms the writer dropped and writes them back.
	if _, err := s.Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	for id, text := range ours {
		a, q, err := s.Get(ctx, id)
		if err != nil || q != nil || a.Text != text {
			t.Fatalf("odekmem-acknowledged atom %s lost or not live: %v %v", id, err, q)
		}
	}
	readded := 0
	for _, p := range s.Problems() {
		if strings.Contains(p.Problem, "dropped from atoms.json") {
			readded++
		}
		if strings.Contains(p.File, ".tmp") {
			t.Errorf("a temp file of the writer was reported: %v", p)
		}
	}
	// odek's cache is odek's: odekmem neither overwrote nor rebuilt for it.
	if b := stReadFile(t, filepath.Join(dir, "vectors_meta.json")); !strings.Contains(string(b), "rp/256") {
		t.Errorf("odek's vectors_meta.json overwritten: %s", b)
	}
	if max := int64(2 * n); embeddedDuringRun > max {
		t.Errorf("odekmem embedded %d texts for %d own and %d odek atoms: a rebuild", embeddedDuringRun, n, n)
	}
	if _, err := s.Compact(ctx); err != nil {
		t.Fatal(err)
	}
	s.Close(context.Background())

	// Later (past the grace period), odekmem opens the store again: odek's
	// atoms whose record a concurrent odekmem write dropped are adopted.
	old := time.Now().Add(-time.Hour)
	ents, _ := os.ReadDir(filepath.Join(dir, "chunks"))
	for _, e := range ents {
		os.Chtimes(filepath.Join(dir, "chunks", e.Name()), old, old)
	}
	os.WriteFile(filepath.Join(dir, "vectors_meta.json"), []byte(`{"fingerprint": "rp/256", "corpus": "1:0000000000000001"}`), 0o600)
	emb.texts.Store(0)
	s2 := stOpen(t, dir, memcore.Options{Config: &cfg, Embedder: emb})
	if _, err := s2.Search(ctx, "odek remembered fact", memcore.SearchOptions{}); err != nil {
		t.Fatal(err)
	}
	if got := emb.texts.Load(); got > 1 {
		t.Errorf("reopening after odek's cache write embedded %d texts (want only the query); the latest: %q", got, emb.recent())
	}
	recovered, live := 0, 0
	for id := range odekAcked {
		a, q, err := s2.Get(ctx, id)
		switch {
		case err != nil:
			t.Errorf("odek-acknowledged atom %s lost: %v", id, err)
		case q == nil:
			live++
		case a.SourceClass == memcore.SourceRecovered && q.Reason == "metadata lost to a concurrent writer" && strings.HasPrefix(a.Text, "odek remembered fact"):
			recovered++
		default:
			t.Errorf("odek atom %s in quarantine as %s/%s", id, a.SourceClass, q.Reason)
		}
	}
	for id := range ours {
		if _, q, err := s2.Get(ctx, id); err != nil || q != nil {
			t.Errorf("after reopening, odekmem atom %s: %v %v", id, err, q)
		}
	}
	t.Logf("%d+%d adds: odekmem re-added dropped records in %d loads; odek atoms %d live, %d adopted as recovered; %d texts embedded during the run",
		n, n, readded, live, recovered, embeddedDuringRun)
}

// TestCompactWritesWhatItsReloadFound: an atom another writer added since
// this process last read the store is loaded by Compact's own write and
// embedded once that write has committed. Compaction rewrites the vector
// cache; the cache it leaves must hold that atom too, or every later
// process embeds it again on open.
func TestCompactWritesWhatItsReloadFound(t *testing.T) {
	dir := stDir(t)
	emb := &stCountingEmbedder{Hash: embed.NewHash(768)}
	ctx := context.Background()
	s := stOpen(t, dir, memcore.Options{Embedder: emb})
	for i := 0; i < 3; i++ {
		stAdd(t, s, memcore.AddRequest{Text: fmt.Sprintf("odekmem note %d about the deploy pipeline", i), Source: memcore.SourceUserApproved})
	}
	// odek adds an atom behind this process's back.
	id := stHex(16)
	if err := stOdekWrite(filepath.Join(dir, "chunks", id+".md"), []byte("odek remembered that staging uses blue-green deploys"), 0); err != nil {
		t.Fatal(err)
	}
	var recs []json.RawMessage
	if err := json.Unmarshal(stReadFile(t, filepath.Join(dir, "atoms.json")), &recs); err != nil {
		t.Fatal(err)
	}
	rec, _ := json.Marshal(map[string]any{"id": id, "source_class": "user_approved", "type": "fact",
		"created_at": time.Now().UTC().Format(time.RFC3339Nano), "context": map[string]any{"session_id": "odek"}})
	b, _ := json.MarshalIndent(append(recs, rec), "", "  ")
	if err := stOdekWrite(filepath.Join(dir, "atoms.json"), b, 0); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Compact(ctx); err != nil {
		t.Fatal(err)
	}
	s.Close(context.Background())

	emb.texts.Store(0)
	s2 := stOpen(t, dir, memcore.Options{Embedder: emb})
	if _, err := s2.Search(ctx, "deploys", memcore.SearchOptions{}); err != nil {
		t.Fatal(err)
	}
	if got := emb.texts.Load(); got != 1 {
		t.Errorf("opening a store compacted after another writer's add embedded %d texts (want only the query): %q", got, emb.recent())
	}
}
