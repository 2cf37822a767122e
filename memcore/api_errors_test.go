package memcore_test

import (
	"context"
	"errors"
	"testing"

	"github.com/odekmem/odekmem/memcore"
)

// TestIDAndTypeErrorsAreConsistent: every method that takes an id answers
// an id that cannot be one with ErrInvalidArgument and an unknown one with
// ErrNotFound; type filters take any letter case, as Add does, and refuse
// an unknown type instead of silently matching nothing.
func TestIDAndTypeErrorsAreConsistent(t *testing.T) {
	ctx := context.Background()
	st := stOpen(t, stDir(t), memcore.Options{})
	d := must(st.Add(ctx, memcore.AddRequest{Text: "we ship the ledger on PostgreSQL 16", Source: memcore.SourceUserSaid, Type: "Decision"}))
	unknownAtom := "0123456789abcdef0123456789abcdef"
	for name, call := range map[string]func(id string) error{
		"Get":     func(id string) error { _, _, err := st.Get(ctx, id); return err },
		"Forget":  func(id string) error { _, _, _, err := st.Forget(ctx, id); return err },
		"Promote": func(id string) error { _, _, err := st.Promote(ctx, id); return err },
		"SetPin":  func(id string) error { _, _, err := st.SetPin(ctx, id, true); return err },
		"Links":   func(id string) error { _, err := st.Links(ctx, id); return err },
		"Confirm": func(id string) error { _, _, err := st.Confirm(ctx, id); return err },
		"Reject":  func(id string) error { _, _, err := st.Reject(ctx, id); return err },
		"ResolveContradiction": func(id string) error {
			_, _, err := st.ResolveContradiction(ctx, id, memcore.ResolveKeepNew)
			return err
		},
	} {
		if err := call("Not An ID!"); !errors.Is(err, memcore.ErrInvalidArgument) {
			t.Errorf("%s(invalid id): %v, want ErrInvalidArgument", name, err)
		}
		if err := call(unknownAtom); !errors.Is(err, memcore.ErrNotFound) {
			t.Errorf("%s(unknown id): %v, want ErrNotFound", name, err)
		}
	}

	for _, typ := range []memcore.Type{"decision", "Decision", " DECISION "} {
		if got := must(st.List(ctx, memcore.Filter{Type: typ})); len(got) != 1 || got[0].ID != d.Atom.ID {
			t.Errorf("List type %q: %d atoms", typ, len(got))
		}
		if got := must(st.Search(ctx, "ledger PostgreSQL", memcore.SearchOptions{Type: typ})); len(got) != 1 {
			t.Errorf("Search type %q: %d atoms", typ, len(got))
		}
	}
	if _, err := st.List(ctx, memcore.Filter{Type: "decisions"}); !errors.Is(err, memcore.ErrInvalidArgument) {
		t.Errorf("List of an unknown type: %v", err)
	}
	if _, err := st.Search(ctx, "ledger", memcore.SearchOptions{Types: []memcore.Type{"fact", "bogus"}}); !errors.Is(err, memcore.ErrInvalidArgument) {
		t.Errorf("Search of an unknown type: %v", err)
	}
}
