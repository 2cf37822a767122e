package memcore_test

import (
	"context"
	"errors"
	"testing"

	"github.com/odekmem/odekmem/internal/umfield"
	"github.com/odekmem/odekmem/memcore"
	"github.com/odekmem/odekmem/memcore/review"
)

// TestUndoPromoteRestoresQuarantineAndLinks: undoing a promote puts the
// entry back as it was (source class, reason, time) with its links, and
// it no longer reaches search.
func TestUndoPromoteRestoresQuarantineAndLinks(t *testing.T) {
	ctx := context.Background()
	clock := stNewClock()
	st := stOpen(t, stDir(t), memcore.Options{Now: clock.Now})
	var rv review.Session
	web, err := st.Add(ctx, memcore.AddRequest{Text: "Blog says pgxpool max connections default is four per CPU", Source: memcore.SourceWeb, Type: memcore.TypeFact})
	if err != nil || !web.Quarantined {
		t.Fatalf("add web: %v %+v", err, web)
	}
	live, err := st.Add(ctx, memcore.AddRequest{Text: "We size pgxpool by hand for payments-api", Source: memcore.SourceUserSaid, Type: memcore.TypeDecision})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := memcore.AddLinks(st, ctx, []memcore.LinkRequest{{A: web.Atom.ID, B: live.Atom.ID, Kind: memcore.LinkSemantic}}); err != nil {
		t.Fatal(err)
	}
	_, before, _ := st.Get(ctx, web.Atom.ID)
	_, u, err := st.Promote(ctx, web.Atom.ID)
	if err != nil {
		t.Fatal(err)
	}
	rv.Record(u)
	if label, err := rv.Undo(ctx); err != nil || label != "promote "+web.Atom.ID[:8] {
		t.Fatalf("undo: %q %v", label, err)
	}
	a, q, err := st.Get(ctx, web.Atom.ID)
	if err != nil || q == nil {
		t.Fatalf("not back in quarantine: %v", err)
	}
	if a.SourceClass != memcore.SourceWeb || q.Reason != before.Reason || !q.QuarantinedAt.Equal(before.QuarantinedAt) {
		t.Fatalf("came back as %s / %q / %v, want web / %q / %v", a.SourceClass, q.Reason, q.QuarantinedAt, before.Reason, before.QuarantinedAt)
	}
	if got := must(st.Links(ctx, web.Atom.ID)); len(got) != 1 || got[0].ID != live.Atom.ID || got[0].Kind != memcore.LinkSemantic {
		t.Fatalf("links after unpromote: %+v", got)
	}
	res, _ := st.Search(ctx, "pgxpool max connections", memcore.SearchOptions{})
	for _, r := range res {
		if r.Atom.ID == web.Atom.ID {
			t.Fatal("an unpromoted entry is still recalled")
		}
	}
}

// TestUndoConfirmRestoresFieldExactly: a confirmed list value is removed
// again (not appended twice), a scalar gets its old value, and the review
// is queued again.
func TestUndoConfirmRestoresFieldExactly(t *testing.T) {
	ctx := context.Background()
	st := stOpen(t, stDir(t), memcore.Options{})
	var rv review.Session
	if err := memcore.ApplyDirect(st, ctx, "technical.tools", "go test, pnpm"); err != nil {
		t.Fatal(err)
	}
	if err := memcore.ApplyDirect(st, ctx, "style.verbosity", "low"); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ field, value, prev string }{
		{"technical.tools", "testcontainers-go", "go test, pnpm"},
		{"style.verbosity", "high", "low"},
		{"style.humor", "dry", ""},
	} {
		p, ok, err := memcore.QueuePending(st, ctx, memcore.PendingReview{Field: c.field, Value: c.value, Evidence: "said so", Confidence: 0.7})
		if err != nil || !ok {
			t.Fatalf("%s: queue: %v %v", c.field, ok, err)
		}
		_, u, err := st.Confirm(ctx, p.ID)
		if err != nil {
			t.Fatal(err)
		}
		rv.Record(u)
		if _, err := rv.Undo(ctx); err != nil {
			t.Fatal(err)
		}
		if got, _ := must(st.UserModel(ctx)).Get(c.field); got != c.prev {
			t.Errorf("%s = %q after undo, want %q", c.field, got, c.prev)
		}
		found := false
		for _, q := range must(st.UserModel(ctx)).Pending {
			found = found || q.ID == p.ID
		}
		if !found {
			t.Errorf("%s: review not queued again", c.field)
		}
	}
	if !umfield.IsList("technical.tools") || umfield.IsList("style.tone") {
		t.Error("IsListField")
	}
}

// TestUndoTakesBackActsNewestFirst: forgets of two linked atoms, a pin and
// a reject come back one Undo at a time, newest first, the link between
// the forgotten atoms included; then there is nothing left to undo.
func TestUndoTakesBackActsNewestFirst(t *testing.T) {
	ctx := context.Background()
	st := stOpen(t, stDir(t), memcore.Options{})
	var rv review.Session
	a := must(st.Add(ctx, memcore.AddRequest{Text: "payments-api deploys with blue-green", Source: memcore.SourceUserSaid, Type: memcore.TypeDecision}))
	b := must(st.Add(ctx, memcore.AddRequest{Text: "the payments-api canary runs for ten minutes", Source: memcore.SourceUserSaid, Type: memcore.TypeFact}))
	if _, err := memcore.AddLinks(st, ctx, []memcore.LinkRequest{{A: a.Atom.ID, B: b.Atom.ID, Kind: memcore.LinkTask}}); err != nil {
		t.Fatal(err)
	}
	p, _, err := memcore.QueuePending(st, ctx, memcore.PendingReview{Field: "style.tone", Value: "direct", Evidence: "said so", Confidence: 0.7})
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{a.Atom.ID, b.Atom.ID} {
		_, _, u, err := st.Forget(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		rv.Record(u)
	}
	c := must(st.Add(ctx, memcore.AddRequest{Text: "keep the runbook in docs/runbook.md", Source: memcore.SourceUserSaid, Type: memcore.TypeConvention}))
	_, u, err := st.SetPin(ctx, c.Atom.ID, true)
	if err != nil {
		t.Fatal(err)
	}
	rv.Record(u)
	if _, u, err = st.Reject(ctx, p.ID); err != nil {
		t.Fatal(err)
	}
	rv.Record(u)

	want := []string{"reject style.tone", "pin " + c.Atom.ID[:8], "forget " + b.Atom.ID[:8], "forget " + a.Atom.ID[:8]}
	for i, w := range want {
		label, err := rv.Undo(ctx)
		if err != nil || label != w {
			t.Fatalf("undo %d: %q %v, want %q", i+1, label, err, w)
		}
		switch i {
		case 0:
			if ps := must(st.UserModel(ctx)).Pending; len(ps) != 1 || ps[0].ID != p.ID {
				t.Fatalf("rejected review not queued again: %+v", ps)
			}
		case 1:
			if got, _, _ := st.Get(ctx, c.Atom.ID); got.Pin {
				t.Fatal("pin not taken back")
			}
		}
	}
	for _, id := range []string{a.Atom.ID, b.Atom.ID} {
		got, q, err := st.Get(ctx, id)
		if err != nil || q != nil || got.SourceClass != memcore.SourceUserSaid {
			t.Fatalf("%s not back live as user_said: %+v %v %v", id, got, q, err)
		}
	}
	if l := must(st.Links(ctx, a.Atom.ID)); len(l) != 1 || l[0].ID != b.Atom.ID || l[0].Kind != memcore.LinkTask {
		t.Fatalf("link between the forgotten atoms not back: %+v", l)
	}
	if _, err := rv.Undo(ctx); !errors.Is(err, review.ErrNothingToUndo) {
		t.Fatalf("undo with an empty log: %v", err)
	}
}

// TestToolActsAreNotInTheUndoLog: the model's forget and pin through the
// tool are not the person's acts: a review surface's u must not take them
// back (and so take back nothing of the person's by mistake).
func TestToolActsAreNotInTheUndoLog(t *testing.T) {
	ctx := context.Background()
	st := hOpen(t, nil, nil)
	var rv review.Session
	tool := memcore.NewTool(st)
	turn := memcore.Turn{Message: "we deploy payments-api from the release branch", SessionID: "s1", Project: "p"}
	added := hTool(t, tool, `{"action":"add_atom","content":"we deploy payments-api from the release branch","atom_type":"convention"}`, turn)
	if !added.OK {
		t.Fatalf("add: %+v", added)
	}
	for _, args := range []string{`{"action":"pin_atom","atom_id":"` + added.AtomID + `"}`, `{"action":"forget_atom","atom_id":"` + added.AtomID + `"}`} {
		if r := hTool(t, tool, args, turn); !r.OK {
			t.Fatalf("%s: %+v", args, r)
		}
	}
	if label, err := rv.Undo(ctx); !errors.Is(err, review.ErrNothingToUndo) {
		t.Fatalf("undo took back a tool act %q: %v", label, err)
	}
}
