package memcore

import (
	"context"
	"fmt"

	"github.com/odekmem/odekmem/internal/umfield"
)

// Undo takes back one act: Forget, Promote, SetPin, Confirm, Reject,
// ResolveContradiction, Keep, Drop and EditUserModel each
// return the Undo of what they did. The store keeps no history: a person's
// surface keeps theirs (review.Session.Record), and the memory tool's and
// the Hook's writes have none. A forgotten atom comes back with its id, source class, times and
// links (and goes through the scanner again); a promoted one goes back to
// the quarantine as it was; a pin is set back; a confirmed field gets back
// its old value and the review is queued again; a rejected review is
// queued again; a contradiction gets back its earlier decision.
type Undo struct {
	label string
	back  func(ctx context.Context) error
}

// String names the act it takes back ("forget 0f3a1c2d", "confirm
// style.tone"); "" for the zero Undo.
func (u Undo) String() string { return u.label }

// Apply takes the act back. The zero Undo does nothing. Applying an Undo
// twice, or after later acts changed the same atom, does what the store
// allows then (an atom forgotten twice is not found the second time).
func (u Undo) Apply(ctx context.Context) error {
	if u.back == nil {
		return nil
	}
	if err := u.back(ctx); err != nil {
		return fmt.Errorf("undo %s: %w", u.label, err)
	}
	return nil
}

// restore puts back an atom that forget removed, with its id, source class
// and timestamps. It goes through the scanner again.
func (s *Store) restore(ctx context.Context, a Atom, q *QuarantinedAtom) error {
	req := AddRequest{id: a.ID, Text: a.Text, Type: a.Type, Source: a.SourceClass, Confidence: a.Confidence, Pin: a.Pin, Context: a.Context, CreatedAt: a.CreatedAt,
		origin: a.Origin}
	if q != nil {
		req.quarantineReason, req.quarantinedAt = q.Reason, q.QuarantinedAt
		// Undoing the forget of an entry whose TTL has run out restarts its
		// clock; otherwise the next write's expiry sweep would remove it again.
		if exp := q.ExpiresAt(s.cfg.QuarantineTTLDays); !exp.IsZero() && !s.now().Before(exp) {
			req.quarantinedAt = s.now()
		}
	}
	_, err := s.Add(ctx, req)
	return err
}

// unpromote undoes a promote: the live atom leaves the store and the
// quarantine entry q (as it was before, with its source class, reason and
// time) comes back with the links it had.
func (s *Store) unpromote(ctx context.Context, q QuarantinedAtom, links []Link) error {
	live, _, _, err := s.forget(ctx, q.ID, nil)
	if err != nil {
		return fmt.Errorf("unpromote %s: %w", q.ID, err)
	}
	qc := q
	if err := s.restore(ctx, q.Atom, &qc); err != nil {
		// Never lose the atom: put the live copy back.
		if err2 := s.restore(ctx, live, nil); err2 != nil {
			return fmt.Errorf("unpromote %s: %w (and restoring the live atom: %v)", q.ID, err, err2)
		}
		return fmt.Errorf("unpromote %s: %w", q.ID, err)
	}
	return s.relink(ctx, q.ID, links)
}

// unconfirm undoes a confirm: the field gets back prev, the value it had
// before (a list field gets back exactly its old items), and the review
// returns to the queue.
func (s *Store) unconfirm(ctx context.Context, p PendingReview, prev string) error {
	field := umfield.Canonical(p.Field)
	if field == "" {
		return fmt.Errorf("%w %q", errUnknownField, p.Field)
	}
	return s.update(ctx, func(t *tx) error {
		m := s.model.clone()
		if err := m.setField(field, prev); err != nil {
			return err
		}
		if s.pendingIndex(p.ID) < 0 {
			m.Pending = append(m.Pending, p)
			sortPending(m.Pending)
		}
		s.setModelLocked(t, m)
		return nil
	})
}

// relink puts back the links an atom had before a forget. Links to atoms
// that no longer exist are skipped.
func (s *Store) relink(ctx context.Context, id string, links []Link) error {
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

// shortID is an id as the undo labels show it.
func shortID(id string) string {
	if len(id) > 8 {
		return id[:8]
	}
	return id
}
