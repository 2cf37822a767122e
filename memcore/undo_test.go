package memcore_test

import (
	"context"
	"testing"

	"github.com/odekmem/odekmem/internal/umfield"
	"github.com/odekmem/odekmem/memcore"
)

// TestUnpromoteRestoresQuarantineAndLinks: undoing a promote puts the
// entry back as it was (source class, reason, time) with its links, and
// it no longer reaches search.
func TestUnpromoteRestoresQuarantineAndLinks(t *testing.T) {
	ctx := context.Background()
	clock := stNewClock()
	st := stOpen(t, stDir(t), memcore.Options{Now: clock.Now})
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
	_, before, _ := st.Get(web.Atom.ID)
	links := must(st.Links(web.Atom.ID))
	if _, err := st.Promote(ctx, web.Atom.ID); err != nil {
		t.Fatal(err)
	}
	if err := st.Unpromote(ctx, *before, links); err != nil {
		t.Fatal(err)
	}
	a, q, err := st.Get(web.Atom.ID)
	if err != nil || q == nil {
		t.Fatalf("not back in quarantine: %v", err)
	}
	if a.SourceClass != memcore.SourceWeb || q.Reason != before.Reason || !q.QuarantinedAt.Equal(before.QuarantinedAt) {
		t.Fatalf("came back as %s / %q / %v, want web / %q / %v", a.SourceClass, q.Reason, q.QuarantinedAt, before.Reason, before.QuarantinedAt)
	}
	if got := must(st.Links(web.Atom.ID)); len(got) != 1 || got[0].ID != live.Atom.ID || got[0].Kind != memcore.LinkSemantic {
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
		if _, err := st.Confirm(ctx, p.ID); err != nil {
			t.Fatal(err)
		}
		if err := st.UndoConfirm(ctx, p, c.prev); err != nil {
			t.Fatal(err)
		}
		if got, _ := must(st.UserModel()).Get(c.field); got != c.prev {
			t.Errorf("%s = %q after undo, want %q", c.field, got, c.prev)
		}
		found := false
		for _, q := range must(st.Pending()) {
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
