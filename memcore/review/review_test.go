package review_test

import (
	"context"
	"errors"
	"path/filepath"
	"testing"

	"github.com/odekmem/odekmem/internal/testkit"
	"github.com/odekmem/odekmem/memcore"
	"github.com/odekmem/odekmem/memcore/review"
)

func open(t *testing.T) (*memcore.Store, string) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "extended")
	st, err := memcore.Open(context.Background(), dir, memcore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close(context.Background()) })
	return st, dir
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

func found(t *testing.T, st *memcore.Store, query, id string) bool {
	t.Helper()
	res, err := st.Search(context.Background(), query, memcore.SearchOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range res {
		if r.Atom.ID == id {
			return true
		}
	}
	return false
}

// TestPromoteIsThePersonsAndUndoable: what the agent read from a web page
// is not recalled until the person promotes it through review; undo sends
// it back to quarantine.
func TestPromoteIsThePersonsAndUndoable(t *testing.T) {
	ctx := context.Background()
	st, _ := open(t)
	var rv review.Session
	web := must(st.Add(ctx, memcore.AddRequest{Text: "the ledger service retries failed payouts three times", Source: memcore.SourceWeb}))
	if !web.Quarantined || found(t, st, "ledger payouts retries", web.Atom.ID) {
		t.Fatalf("a web page's text is recallable before a person promoted it: %+v", web)
	}
	q := must(st.Quarantined(ctx))
	if len(q) != 1 || q[0].ID != web.Atom.ID || q[0].Reason != "tainted" || q[0].SourceClass != memcore.SourceWeb || q[0].QuarantinedAt.IsZero() {
		t.Fatalf("quarantine %+v", q)
	}
	a, u, err := st.Promote(ctx, web.Atom.ID)
	if err != nil {
		t.Fatal(err)
	}
	rv.Record(u)
	if a.SourceClass != memcore.SourceUserApproved || !found(t, st, "ledger payouts retries", a.ID) {
		t.Fatalf("promoted atom %+v is not recalled as the person's", a)
	}
	if _, u, err := st.Promote(ctx, a.ID); !errors.Is(err, memcore.ErrInvalidArgument) || u.String() != "" {
		t.Fatalf("second promote: %v", err)
	}
	if label := must(rv.Undo(ctx)); label != "promote "+a.ID[:8] {
		t.Fatalf("undo said %q", label)
	}
	if _, quarantined, err := st.Get(ctx, a.ID); err != nil || quarantined == nil || found(t, st, "ledger payouts retries", a.ID) {
		t.Fatalf("after undo the atom is not back in quarantine: %v %v", quarantined, err)
	}
	if _, err := rv.Undo(ctx); !errors.Is(err, review.ErrNothingToUndo) {
		t.Fatalf("empty undo: %v", err)
	}
}

// TestPinListStatsCompact: the upkeep acts see what the agent stored.
func TestPinListStatsCompact(t *testing.T) {
	ctx := context.Background()
	st, dir := open(t)
	a := must(st.Add(ctx, memcore.AddRequest{Text: "We deploy payments-api with blue-green", Source: memcore.SourceUserSaid, Type: memcore.TypeDecision,
		Context: memcore.AtomContext{Project: "/src/payments-api"}}))
	must(st.Add(ctx, memcore.AddRequest{Text: "tabs in Go files", Source: memcore.SourceUserSaid, Type: memcore.TypeConvention}))
	must(st.Add(ctx, memcore.AddRequest{Text: "curl output said the build is green", Source: memcore.SourceToolOutput}))
	if p, _, err := st.SetPin(ctx, a.Atom.ID, true); err != nil || !p.Pin {
		t.Fatal("not pinned", err)
	}
	if got, _, _ := st.Get(ctx, a.Atom.ID); !got.Pin {
		t.Fatal("the pin did not reach the store")
	}
	if l := must(st.List(ctx, memcore.Filter{Type: "DECISION", Project: "payments-api"})); len(l) != 1 || l[0].ID != a.Atom.ID {
		t.Fatalf("list by type and project: %+v", l)
	}
	if _, err := st.List(ctx, memcore.Filter{Type: "decisions"}); !errors.Is(err, memcore.ErrInvalidArgument) {
		t.Fatalf("unknown type: %v", err)
	}
	s := must(st.Stats(ctx))
	if s.Dir != dir || s.Live != 2 || s.Pinned != 1 || s.Quarantine != 1 || s.ByType["decision"] != 1 || s.TotalBytes <= 0 || s.CapBytes != 100<<20 ||
		s.Index.Fingerprint == "" || s.Index.Vectors != 2 {
		t.Fatalf("stats %+v", s)
	}
	if c := must(st.Compact(ctx)); c.Vectors != 2 || c.Before <= 0 {
		t.Fatalf("compact %+v", c)
	}
	if _, _, err := st.SetPin(ctx, must(st.Quarantined(ctx))[0].ID, true); !errors.Is(err, memcore.ErrInvalidArgument) {
		t.Fatalf("pin of a quarantined atom: %v", err)
	}
}

// TestPendingInferencesWaitForThePerson: odek queues a user-model
// inference; the person confirms one and rejects another; the model holds
// only the confirmed value, and undo of the confirm queues it again.
func TestPendingInferencesWaitForThePerson(t *testing.T) {
	ctx := context.Background()
	st, dir := open(t)
	var rv review.Session
	testkit.QueuePending(t, dir,
		memcore.PendingReview{ID: "p-tone", Field: "style.tone", Value: "direct", Evidence: "asked for no preamble", Confidence: 0.8},
		memcore.PendingReview{ID: "p-lang", Field: "technical.primary_language", Value: "Rust", Confidence: 0.4})
	if ps := must(st.UserModel(ctx)).Pending; len(ps) != 2 || ps[0].Field != "style.tone" || ps[0].Evidence == "" {
		t.Fatalf("pending %+v", ps)
	}
	if len(must(st.UserModel(ctx)).Values()) != 0 {
		t.Fatal("the user model holds a value nobody confirmed")
	}
	p, u, err := st.Confirm(ctx, "p-tone")
	if err != nil || p.Value != "direct" {
		t.Fatalf("confirm %+v %v", p, err)
	}
	rv.Record(u)
	_, u, err = st.Reject(ctx, "p-lang")
	if err != nil {
		t.Fatal(err)
	}
	rv.Record(u)
	if m := must(st.UserModel(ctx)).Values(); len(m) != 1 || m[0] != [2]string{"style.tone", "direct"} {
		t.Fatalf("user model %+v", m)
	}
	if _, _, err := st.Confirm(ctx, "../p"); !errors.Is(err, memcore.ErrInvalidArgument) {
		t.Fatalf("bad pending id: %v", err)
	}
	must(rv.Undo(ctx)) // the reject
	must(rv.Undo(ctx)) // the confirm
	if m, ps := must(st.UserModel(ctx)).Values(), must(st.UserModel(ctx)).Pending; len(m) != 0 || len(ps) != 2 {
		t.Fatalf("after undo: model %+v, pending %+v", m, ps)
	}
}

// TestContradictionsReachThePerson: a changed decision, said through the
// Hook, supersedes the old one and waits for the person, whose answer
// decides which one recall puts first.
func TestContradictionsReachThePerson(t *testing.T) {
	ctx := context.Background()
	st, _ := open(t)
	hook := memcore.NewHook(st)
	defer hook.Close(ctx)
	must(hook.RecordUserMessage(ctx, memcore.Turn{Message: "We decided to use RabbitMQ for order events.", SessionID: "s1"}))
	rr := must(hook.RecordUserMessage(ctx, memcore.Turn{Message: "We decided to move order events from RabbitMQ to Kafka.", SessionID: "s1"}))
	cs := must(st.Contradictions(ctx, false))
	if len(cs) != 1 || len(rr.Contradictions) != 1 || rr.Contradictions[0].ID != cs[0].ID {
		t.Fatalf("contradictions %+v, recorded %+v", cs, rr.Contradictions)
	}
	if _, _, err := st.ResolveContradiction(ctx, cs[0].ID, "keep-all"); !errors.Is(err, memcore.ErrInvalidArgument) {
		t.Fatalf("bad resolution: %v", err)
	}
	top := func() string {
		res := must(st.Search(ctx, "order events RabbitMQ Kafka", memcore.SearchOptions{}))
		if len(res) == 0 {
			t.Fatal("nothing recalled")
		}
		return res[0].Atom.ID
	}
	if top() != cs[0].New {
		t.Fatal("the superseded decision is recalled first")
	}
	c, _, err := st.ResolveContradiction(ctx, cs[0].ID, memcore.ResolveKeepOld)
	if err != nil {
		t.Fatal(err)
	}
	if c.Resolution != memcore.ResolveKeepOld || len(must(st.Contradictions(ctx, false))) != 0 || len(must(st.Contradictions(ctx, true))) != 1 {
		t.Fatalf("resolved %+v", c)
	}
	if top() != c.Old {
		t.Fatal("keep-old did not put the older decision back first")
	}
}

// TestUndoTakesBackTheResolveNotAnEarlierAct (issue 26, annoyance 2): u
// after resolving a contradiction undoes the resolution, not the pending
// review rejected before it.
func TestUndoTakesBackTheResolveNotAnEarlierAct(t *testing.T) {
	ctx := context.Background()
	st, dir := open(t)
	var rv review.Session
	testkit.QueuePending(t, dir, memcore.PendingReview{ID: "p-lang", Field: "technical.primary_language", Value: "Rust", Confidence: 0.4})
	hook := memcore.NewHook(st)
	defer hook.Close(ctx)
	must(hook.RecordUserMessage(ctx, memcore.Turn{Message: "We decided to use RabbitMQ for order events.", SessionID: "s1"}))
	must(hook.RecordUserMessage(ctx, memcore.Turn{Message: "We decided to move order events from RabbitMQ to Kafka.", SessionID: "s1"}))
	_, u, err := st.Reject(ctx, "p-lang")
	if err != nil {
		t.Fatal(err)
	}
	rv.Record(u)
	cs := must(st.Contradictions(ctx, false))
	if len(cs) != 1 {
		t.Fatalf("contradictions %+v", cs)
	}
	_, u, err = st.ResolveContradiction(ctx, cs[0].ID, memcore.ResolveKeepOld)
	if err != nil {
		t.Fatal(err)
	}
	rv.Record(u)
	if label := must(rv.Undo(ctx)); label != "resolve "+cs[0].ID[:8]+" keep-old" {
		t.Fatalf("undo took back %q", label)
	}
	if open := must(st.Contradictions(ctx, false)); len(open) != 1 || open[0].Resolution != "" {
		t.Fatalf("the contradiction is not open again: %+v", open)
	}
	if len(must(st.UserModel(ctx)).Pending) != 0 {
		t.Fatal("undo of the resolve brought back the rejected review")
	}
	if label := must(rv.Undo(ctx)); label != "reject technical.primary_language" || len(must(st.UserModel(ctx)).Pending) != 1 {
		t.Fatalf("second undo: %q", label)
	}
}

// TestClosedStore: an act fails with the store's ErrClosed and returns
// the zero Undo, which a session does not record.
func TestClosedStore(t *testing.T) {
	st, _ := open(t)
	var rv review.Session
	st.Close(context.Background())
	_, u, err := st.Promote(context.Background(), "0123456789abcdef")
	if !errors.Is(err, memcore.ErrClosed) {
		t.Fatalf("after Close: %v", err)
	}
	rv.Record(u)
	if _, err := rv.Undo(context.Background()); !errors.Is(err, review.ErrNothingToUndo) {
		t.Fatalf("undo after Close: %v", err)
	}
}
