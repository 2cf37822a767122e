package memcore

import (
	"context"
	"fmt"

	"github.com/odekmem/odekmem/internal/umfield"
)

// Undo support for the review surfaces (the TUI's u key). Each function
// takes back one person's act — forget, promote, confirm, reject — from
// what the act returned plus what the caller read just before it (the
// atom's links, the field's previous value). They are for a person's own
// session, not a history: nothing here is recorded on disk.

// Unpromote undoes a Promote: the live atom leaves the store and the
// quarantine entry q (as it was before the promote, with its source class,
// reason and time) comes back with the links read before the promote.
func (s *Store) Unpromote(ctx context.Context, q QuarantinedAtom, links []Link) error {
	live, _, err := s.Forget(ctx, q.ID)
	if err != nil {
		return fmt.Errorf("unpromote %s: %w", q.ID, err)
	}
	qc := q
	if _, err := s.Restore(ctx, q.Atom, &qc); err != nil {
		// Never lose the atom: put the live copy back.
		if _, err2 := s.Restore(ctx, live, nil); err2 != nil {
			return fmt.Errorf("unpromote %s: %w (and restoring the live atom: %v)", q.ID, err, err2)
		}
		return fmt.Errorf("unpromote %s: %w", q.ID, err)
	}
	return s.Relink(ctx, q.ID, links)
}

// UndoConfirm undoes a Confirm: the field gets back prev, the value Get
// returned for it before the confirm (a list field gets back exactly its
// old items), and the review returns to the queue.
func (s *Store) UndoConfirm(ctx context.Context, p PendingReview, prev string) error {
	field := umfield.Canonical(p.Field)
	if field == "" {
		return fmt.Errorf("%w %q", ErrUnknownField, p.Field)
	}
	return s.withWriteCtx(ctx, func() error {
		m := s.model.clone()
		if err := m.setField(field, prev); err != nil {
			return err
		}
		if s.pendingIndex(p.ID) < 0 {
			m.Pending = append(m.Pending, p)
			sortPending(m.Pending)
		}
		return s.saveModelLocked(m)
	})
}

// Relink puts back the links an atom had, as Links returned them before a
// Forget (undo of a forget restores the atom with Restore, then its links).
// Links to atoms that no longer exist are skipped.
func (s *Store) Relink(ctx context.Context, id string, links []Link) error {
	if s.isClosed() {
		return ErrClosed
	}
	if len(links) == 0 {
		return nil
	}
	reqs := make([]linkRequest, len(links))
	for i, l := range links {
		reqs[i] = linkRequest{A: id, B: l.ID, Kind: l.Kind}
	}
	if _, err := s.addLinks(ctx, reqs); err != nil {
		return fmt.Errorf("restore links of %s: %w", id, err)
	}
	return nil
}
