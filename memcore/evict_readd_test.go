package memcore_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/odekmem/odekmem/memcore"
)

// TestImportThatEvictsAndBringsBackTheSameAtomsKeepsTheirText: one import
// batch into a full store whose newer lines evict the oldest atoms and
// whose later lines bring those same atoms back (an export imported again
// after new notes). The chunks the batch evicted must not be unlinked
// once the batch wrote them again: every atom the store lists keeps its
// text, after a reopen too (a chunk-less atom is dropped at open).
func TestImportThatEvictsAndBringsBackTheSameAtomsKeepsTheirText(t *testing.T) {
	ctx := context.Background()
	cfg := memcore.Config{MaxSizeMB: 1}
	export := func(n int, created time.Time, tag string) []byte {
		src, err := memcore.Open(ctx, t.TempDir(), memcore.Options{Config: &cfg})
		if err != nil {
			t.Fatal(err)
		}
		defer src.Close(ctx)
		reqs := make([]memcore.AddRequest, n)
		for i := range reqs {
			reqs[i] = memcore.AddRequest{Text: fmt.Sprintf("%s note %d: the %s job retries %d times with a %d second backoff", tag, i, tag, i%7+1, i*3+2),
				Source: memcore.SourceUserSaid, CreatedAt: created.Add(time.Duration(i) * time.Minute)}
		}
		if _, _, err := src.AddBatch(ctx, reqs); err != nil {
			t.Fatal(err)
		}
		var b bytes.Buffer
		if err := src.Export(ctx, &b); err != nil {
			t.Fatal(err)
		}
		return b.Bytes()
	}
	old := export(75, time.Now().AddDate(-3, 0, 0), "archive")
	newer := export(90, time.Now().AddDate(0, 0, -2), "current")
	fresh := export(60, time.Now().Add(-time.Hour), "fresh")

	dir := t.TempDir()
	st, err := memcore.Open(ctx, dir, memcore.Options{Config: &cfg})
	if err != nil {
		t.Fatal(err)
	}
	for _, in := range [][]byte{old, newer} {
		if _, err := st.Import(ctx, bytes.NewReader(in), memcore.ImportOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	// One import: the fresh notes evict the oldest (the archive), then the
	// archive's own lines bring them back.
	mix := append(append([]byte(nil), fresh...), old...)
	if _, err := st.Import(ctx, bytes.NewReader(mix), memcore.ImportOptions{}); err != nil {
		t.Fatal(err)
	}
	live, err := st.List(ctx, memcore.Filter{})
	if err != nil {
		t.Fatal(err)
	}
	archive := 0
	for _, a := range live {
		if bytes.Contains([]byte(a.Text), []byte("archive note")) {
			archive++
		}
		if _, err := os.Stat(filepath.Join(dir, "chunks", a.ID+".md")); err != nil {
			t.Errorf("atom %s is listed but its chunk is gone: %v", a.ID, err)
		}
	}
	if archive == 0 {
		t.Fatal("no archive atom came back: the scenario did not happen")
	}
	if err := st.Close(ctx); err != nil {
		t.Fatal(err)
	}
	st, err = memcore.Open(ctx, dir, memcore.Options{Config: &cfg})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close(ctx)
	again, err := st.List(ctx, memcore.Filter{})
	if err != nil {
		t.Fatal(err)
	}
	if len(again) != len(live) {
		t.Fatalf("%d atoms before the reopen, %d after: texts were lost", len(live), len(again))
	}
}
