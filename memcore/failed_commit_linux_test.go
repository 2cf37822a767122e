//go:build linux

package memcore_test

import (
	"context"
	"os/exec"
	"testing"

	"github.com/odekmem/odekmem/memcore"
)

// TestFailedCommitLeavesMemoryAsOnDisk: every person's act commits
// through one tx. When the commit cannot write (the store directory is
// made immutable, so no temp file can be created), the act returns the
// error, the store still answers with what is on disk, the act returns no
// Undo, and a reopen shows the same state.
func TestFailedCommitLeavesMemoryAsOnDisk(t *testing.T) {
	ctx := context.Background()
	dir := stDir(t)
	st := stOpen(t, dir, memcore.Options{})
	live := must(st.Add(ctx, memcore.AddRequest{Text: "the ledger service uses PostgreSQL 16", Source: memcore.SourceUserSaid, Type: memcore.TypeFact}))
	quar := must(st.Add(ctx, memcore.AddRequest{Text: "a blog says pgbouncer needs session mode", Source: memcore.SourceWeb, Type: memcore.TypeFact}))
	p, _, err := memcore.QueuePending(st, ctx, memcore.PendingReview{Field: "style.tone", Value: "direct", Evidence: "said so", Confidence: 0.7})
	if err != nil {
		t.Fatal(err)
	}
	chattrImmutable(t, dir)

	acts := map[string]func() (memcore.Undo, error){
		"forget live":        func() (memcore.Undo, error) { _, _, u, err := st.Forget(ctx, live.Atom.ID); return u, err },
		"forget quarantined": func() (memcore.Undo, error) { _, _, u, err := st.Forget(ctx, quar.Atom.ID); return u, err },
		"promote":            func() (memcore.Undo, error) { _, u, err := st.Promote(ctx, quar.Atom.ID); return u, err },
		"pin":                func() (memcore.Undo, error) { _, u, err := st.SetPin(ctx, live.Atom.ID, true); return u, err },
		"confirm":            func() (memcore.Undo, error) { _, u, err := st.Confirm(ctx, p.ID); return u, err },
		"reject":             func() (memcore.Undo, error) { _, u, err := st.Reject(ctx, p.ID); return u, err },
	}
	check := func(s *memcore.Store, when string) {
		t.Helper()
		a, q, err := s.Get(ctx, live.Atom.ID)
		if err != nil || q != nil || a.Pin {
			t.Fatalf("%s: live atom %+v %v %v", when, a, q, err)
		}
		if _, q, err := s.Get(ctx, quar.Atom.ID); err != nil || q == nil {
			t.Fatalf("%s: quarantined entry: %v %v", when, q, err)
		}
		if ps := must(s.UserModel(ctx)).Pending; len(ps) != 1 || ps[0].ID != p.ID {
			t.Fatalf("%s: pending %+v", when, ps)
		}
		if v, _ := must(s.UserModel(ctx)).Get("style.tone"); v != "" {
			t.Fatalf("%s: style.tone = %q", when, v)
		}
	}
	for name, act := range acts {
		u, err := act()
		if err == nil {
			t.Fatalf("%s succeeded in an immutable directory", name)
		}
		if u.String() != "" {
			t.Fatalf("a failed %s returned an Undo %q", name, u)
		}
		check(st, "after a failed "+name)
	}
	st.Close(context.Background())
	unchattr(t, dir)
	check(stOpen(t, dir, memcore.Options{}), "after reopening")
}

// unchattr makes p mutable again (before the test's end, when it must be
// written to again).
func unchattr(t *testing.T, p string) {
	t.Helper()
	if out, err := exec.Command("chattr", "-i", p).CombinedOutput(); err != nil {
		t.Fatalf("chattr -i %s: %v %s", p, err, out)
	}
}
