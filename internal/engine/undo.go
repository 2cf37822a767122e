package engine

import (
	"context"
	"fmt"
	"sync"

	"github.com/odekmem/odekmem/internal/umfield"
)

// The undo log. Every act made by calling a Store value's Forget, Promote,
// SetPin, Confirm or Reject records how to take it back, and Undo takes
// back the latest one. The Tool's and the Hook's own writes are not acts:
// they are not recorded. The log is for one
// session, not a history: it lives in memory, belongs to this Store value
// and keeps the latest undoDepth acts.

// undoDepth bounds the log; older acts can no longer be undone.
const undoDepth = 256

// undoAct is one recorded act: what it was and how to take it back.
type undoAct struct {
	label string
	back  func(ctx context.Context) error
}

// undoLog is the Store's stack of undoable acts.
type undoLog struct {
	mu   sync.Mutex
	acts []undoAct
}

func (l *undoLog) push(label string, back func(ctx context.Context) error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.acts) == undoDepth {
		l.acts = append(l.acts[:0], l.acts[1:]...)
	}
	l.acts = append(l.acts, undoAct{label: label, back: back})
}

func (l *undoLog) pop() (undoAct, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.acts) == 0 {
		return undoAct{}, false
	}
	a := l.acts[len(l.acts)-1]
	l.acts = l.acts[:len(l.acts)-1]
	return a, true
}

// Undo takes back the latest act made by calling this Store value's
// Forget, Promote, SetPin, Confirm or Reject that is not undone yet, and
// returns what it was ("forget 0f3a1c2d", "confirm style.tone"). The
// agent's Tool and the Hook do not record their writes here. A SetPin that
// changed nothing is still one act (its undo changes nothing), so a
// surface can undo exactly the acts it made. A forgotten atom comes back with its id,
// source class, times and links (and goes through the scanner again); a
// promoted one goes back to the quarantine as it was; a confirmed field gets
// back its old value and the review is queued again; a rejected review is
// queued again. With nothing to undo it returns ErrNothingToUndo. The log
// is in memory only and keeps the latest 256 acts; an act that fails to
// undo is dropped from the log, and the error says what is left.
func (s *Store) Undo(ctx context.Context) (string, error) {
	if s.isClosed() {
		return "", ErrClosed
	}
	act, ok := s.undo.pop()
	if !ok {
		return "", ErrNothingToUndo
	}
	if err := act.back(ctx); err != nil {
		return act.label, fmt.Errorf("undo %s: %w", act.label, err)
	}
	return act.label, nil
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
	live, _, _, err := s.forget(ctx, q.ID)
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
		return fmt.Errorf("%w %q", ErrUnknownField, p.Field)
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
