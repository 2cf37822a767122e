//go:build linux

package engine_test

import (
	"context"
	"errors"
	"os/exec"
	"testing"

	"github.com/odekmem/odekmem/internal/engine"
)

// TestFailedCommitLeavesMemoryAsOnDisk: every person's act commits
// through one tx. When the commit cannot write (the store directory is
// made immutable, so no temp file can be created), the act returns the
// error, the store still answers with what is on disk, the act is not in
// the undo log, and a reopen shows the same state.
func TestFailedCommitLeavesMemoryAsOnDisk(t *testing.T) {
	ctx := context.Background()
	dir := stDir(t)
	st := stOpen(t, dir, engine.Options{})
	live := must(st.Add(ctx, engine.AddRequest{Text: "the ledger service uses PostgreSQL 16", Source: engine.SourceUserSaid, Type: engine.TypeFact}))
	quar := must(st.Add(ctx, engine.AddRequest{Text: "a blog says pgbouncer needs session mode", Source: engine.SourceWeb, Type: engine.TypeFact}))
	p, _, err := engine.QueuePending(st, ctx, engine.PendingReview{Field: "style.tone", Value: "direct", Evidence: "said so", Confidence: 0.7})
	if err != nil {
		t.Fatal(err)
	}
	chattrImmutable(t, dir)

	acts := map[string]func() error{
		"forget live":        func() error { _, _, err := st.Forget(ctx, live.Atom.ID); return err },
		"forget quarantined": func() error { _, _, err := st.Forget(ctx, quar.Atom.ID); return err },
		"promote":            func() error { _, err := st.Promote(ctx, quar.Atom.ID); return err },
		"pin":                func() error { _, err := st.SetPin(ctx, live.Atom.ID, true); return err },
		"confirm":            func() error { _, err := st.Confirm(ctx, p.ID); return err },
		"reject":             func() error { _, err := st.Reject(ctx, p.ID); return err },
	}
	check := func(s *engine.Store, when string) {
		t.Helper()
		a, q, err := s.Get(live.Atom.ID)
		if err != nil || q != nil || a.Pin {
			t.Fatalf("%s: live atom %+v %v %v", when, a, q, err)
		}
		if _, q, err := s.Get(quar.Atom.ID); err != nil || q == nil {
			t.Fatalf("%s: quarantined entry: %v %v", when, q, err)
		}
		if ps := must(s.Pending()); len(ps) != 1 || ps[0].ID != p.ID {
			t.Fatalf("%s: pending %+v", when, ps)
		}
		if v, _ := must(s.UserModel()).Get("style.tone"); v != "" {
			t.Fatalf("%s: style.tone = %q", when, v)
		}
	}
	for name, act := range acts {
		if err := act(); err == nil {
			t.Fatalf("%s succeeded in an immutable directory", name)
		}
		check(st, "after a failed "+name)
	}
	if _, err := st.Undo(ctx); !errors.Is(err, engine.ErrNothingToUndo) {
		t.Fatalf("a failed act was recorded for undo: %v", err)
	}
	st.Close()
	unchattr(t, dir)
	check(stOpen(t, dir, engine.Options{}), "after reopening")
}

// unchattr makes p mutable again (before the test's end, when it must be
// written to again).
func unchattr(t *testing.T, p string) {
	t.Helper()
	if out, err := exec.Command("chattr", "-i", p).CombinedOutput(); err != nil {
		t.Fatalf("chattr -i %s: %v %s", p, err, out)
	}
}
