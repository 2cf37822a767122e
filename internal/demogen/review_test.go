package main

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/odekmem/odekmem/memcore"
)

// openGenerated writes the generated store to a temp dir, without the
// files named in drop, and opens it with memcore on the demo's clock.
func openGenerated(t *testing.T, drop ...string) (*memcore.Store, map[string][]byte) {
	t.Helper()
	files, err := Generate(demoNow)
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "extended")
	if err := WriteDir(dir, files); err != nil {
		t.Fatal(err)
	}
	for _, name := range drop {
		if err := os.Remove(filepath.Join(dir, name)); err != nil {
			t.Fatal(err)
		}
	}
	st, err := memcore.Open(context.Background(), dir, memcore.Options{Now: func() time.Time { return demoNow }})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close(context.Background()) })
	return st, files
}

// TestReviewFilesReadBackThroughMemcore: the demo opens without a problem
// and has what waits for the person where memcore looks for it: every
// contradiction pending, with its pair linked as supersedes, and every
// lane entry as generated.
func TestReviewFilesReadBackThroughMemcore(t *testing.T) {
	st, files := openGenerated(t)
	if p := st.Problems(); len(p) > 0 {
		t.Fatalf("the demo store opens with problems: %+v", p)
	}
	var cf contradictionsFile
	decodeBoth(t, files["contradictions.json"], &cf, &cf)
	got, err := st.Contradictions(context.Background(), false)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(superseded) || len(cf.Contradictions) != len(superseded) {
		t.Fatalf("%d contradictions pending, %d written, want %d", len(got), len(cf.Contradictions), len(superseded))
	}
	for _, c := range got {
		if c.Resolution != "" || c.Method != "rule" {
			t.Errorf("contradiction %s: %+v", c.ID, c)
		}
		links, err := st.Links(context.Background(), c.Old)
		if err != nil {
			t.Fatal(err)
		}
		linked := false
		for _, l := range links {
			linked = linked || l.ID == c.New && l.Kind == linkSupersedes
		}
		if !linked {
			t.Errorf("contradiction %s: %s and %s are not linked as supersedes", c.ID, c.Old, c.New)
		}
	}

	var want []memcore.LaneEntry
	decodeBoth(t, files["lane.json"], &want, &want)
	lane, err := st.Lane(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(lane) < 3 || !reflect.DeepEqual(lane, want) {
		t.Fatalf("the lane reads as\n%+v\nwant\n%+v", lane, want)
	}
	sessions := map[string]int{}
	for _, e := range lane {
		if e.Why == "" || e.Message == "" || e.Context.SessionID == "" {
			t.Errorf("lane entry %s lacks its why, message or session", e.ID)
		}
		if e.Quote == "" && !strings.Contains(e.Message, e.Text) {
			t.Errorf("lane entry %s: the person's words %q are not in the message", e.ID, e.Text)
		}
		sessions[e.Context.SessionID]++
	}
	if most := maxOf(sessions); most < 2 {
		t.Errorf("no session has two lane entries to keep at once (S): %v", sessions)
	}
}

// TestContradictionsAreWhatMemcoreFinds: replaying memcore's offline
// contradiction rule over the demo's atoms, oldest first (as each would
// have been checked when stored), records exactly the demo's
// contradictions, with their subjects.
func TestContradictionsAreWhatMemcoreFinds(t *testing.T) {
	st, files := openGenerated(t, "contradictions.json")
	ctx := context.Background()
	atoms, err := st.List(ctx, memcore.Filter{})
	if err != nil {
		t.Fatal(err)
	}
	sort.SliceStable(atoms, func(i, j int) bool { return atoms[i].CreatedAt.Before(atoms[j].CreatedAt) })
	type pair struct{ old, new, subject string }
	var found []pair
	for _, a := range atoms {
		cs, err := st.DetectContradictions(ctx, a.ID)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range cs {
			found = append(found, pair{c.Old, c.New, c.Subject})
		}
	}
	var cf contradictionsFile
	decodeBoth(t, files["contradictions.json"], &cf, &cf)
	var want []pair
	for _, c := range cf.Contradictions {
		want = append(want, pair{c.Old, c.New, c.Subject})
	}
	if !reflect.DeepEqual(found, want) {
		t.Fatalf("memcore's rule finds\n%+v\nthe demo records\n%+v", found, want)
	}
}

func maxOf(m map[string]int) int {
	n := 0
	for _, v := range m {
		n = max(n, v)
	}
	return n
}
