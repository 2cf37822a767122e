package memcore

import (
	"context"
	"fmt"
	"strings"

	"github.com/odekmem/odekmem/internal/textutil"
	"github.com/odekmem/odekmem/internal/umfield"
	"github.com/odekmem/odekmem/internal/vocab"

	"github.com/odekmem/odekmem/internal/scan"
)

// ---- user model ----

// Confirm applies a pending inference to the user model and removes it
// from the queue. An unknown field path or a value the field does not
// allow is ErrInvalidArgument, and one the scanner or the guard rejects
// ErrBlocked; in each case the entry stays queued. Only human surfaces (CLI, TUI) should call it. Its Undo
// gives the field back its old value and queues the review again.
func (s *Store) Confirm(ctx context.Context, pendingID string) (PendingReview, Undo, error) {
	p, prev, err := s.settlePending(ctx, pendingID, true)
	if err != nil {
		return p, Undo{}, err
	}
	return p, Undo{label: "confirm " + p.Field, back: func(ctx context.Context) error { return s.unconfirm(ctx, p, prev) }}, nil
}

// Reject removes a pending inference without applying it and returns it.
// Its Undo puts the entry back as it was, even one whose field this
// version does not know (another program, or a later odek, queued it).
func (s *Store) Reject(ctx context.Context, pendingID string) (PendingReview, Undo, error) {
	p, _, err := s.settlePending(ctx, pendingID, false)
	if err != nil {
		return p, Undo{}, err
	}
	return p, Undo{label: "reject " + p.Field, back: func(ctx context.Context) error { return s.requeue(ctx, p) }}, nil
}

// requeue puts a settled review back in the queue unchanged: it was
// checked when it was queued, and a person's undo is not a new inference
// (no dedup against the model, no pending cap).
func (s *Store) requeue(ctx context.Context, p PendingReview) error {
	return s.update(ctx, func(t *tx) error {
		if s.pendingIndex(p.ID) >= 0 {
			return nil
		}
		m := s.model.clone()
		m.Pending = append(m.Pending, p)
		sortPending(m.Pending)
		s.setModelLocked(t, m)
		return nil
	})
}

// settlePending removes a pending review from the queue, first applying
// its value to the model when apply is set. It also returns the value the
// field had before.
func (s *Store) settlePending(ctx context.Context, pendingID string, apply bool) (PendingReview, string, error) {
	var p PendingReview
	var prev string
	if !vocab.ValidID(pendingID) {
		return p, "", invalidID("pending review", pendingID)
	}
	err := s.update(ctx, func(t *tx) error {
		i := s.pendingIndex(pendingID)
		if i < 0 {
			return notFound("no pending review %s", pendingID)
		}
		p = s.model.Pending[i]
		prev, _ = s.model.Get(p.Field)
		m := s.model.clone()
		if apply {
			v, err := checkUserModelValue(p.Field, p.Value)
			if err != nil {
				return fmt.Errorf("confirm %s: %w", pendingID, err)
			}
			if err := m.apply(p.Field, v); err != nil {
				return fmt.Errorf("confirm %s: %w", pendingID, err)
			}
		}
		m.Pending = append(m.Pending[:i:i], m.Pending[i+1:]...)
		s.setModelLocked(t, m)
		return nil
	})
	return p, prev, err
}

func (s *Store) pendingIndex(id string) int {
	for i, p := range s.model.Pending {
		if p.ID == id {
			return i
		}
	}
	return -1
}

// queuePending adds an inference to pending_review: scanned (a blocked value
// is refused), deduplicated by field and value, and capped at
// user_state_max_pending by dropping the oldest. It returns the entry, or
// ok=false when it was a duplicate.
func (s *Store) queuePending(ctx context.Context, p PendingReview) (PendingReview, bool, error) {
	canon := umfield.Canonical(p.Field)
	if canon == "" {
		return p, false, fmt.Errorf("%w %q", errUnknownField, p.Field)
	}
	v, err := checkUserModelValue(canon, p.Value)
	if err != nil {
		return p, false, fmt.Errorf("pending: %w", err)
	}
	if r := scan.Scan(p.Evidence); r.Blocked() {
		return p, false, fmt.Errorf("%w: pending %s evidence: %s", ErrBlocked, canon, r.RejectReason())
	}
	if s.guardRejects(ctx, p.Value+"\n"+p.Evidence) {
		return p, false, fmt.Errorf("%w: pending %s: %w", ErrBlocked, canon, errGuardRejected)
	}
	p.Evidence = textutil.Truncate(scanRedact(p.Evidence), 500)
	p.Value = v
	if p.ID == "" {
		p.ID = vocab.NewID()
	}
	if p.CreatedAt.IsZero() {
		p.CreatedAt = s.now().UTC()
	}
	ok := true
	err = s.update(ctx, func(t *tx) error {
		if cur, _ := s.model.Get(canon); strings.EqualFold(cur, p.Value) && !strings.HasPrefix(canon, "technical.") {
			ok = false
			return nil
		}
		for _, q := range s.model.Pending {
			if umfield.Canonical(q.Field) == canon && strings.EqualFold(q.Value, p.Value) {
				ok = false
				return nil
			}
		}
		m := s.model.clone()
		m.Pending = append(m.Pending, p)
		sortPending(m.Pending)
		if max := s.cfg.UserStateMaxPending; max >= 0 && len(m.Pending) > max {
			m.Pending = m.Pending[len(m.Pending)-max:]
		}
		s.setModelLocked(t, m)
		return nil
	})
	return p, ok, err
}

// applyDirect sets a user-model field without review. It is for direct,
// low-impact inferences (focus, technical) and for human edits; the value
// is scanned first.
func (s *Store) applyDirect(ctx context.Context, field, value string) error {
	value, err := checkUserModelValue(field, value)
	if err != nil {
		return err
	}
	if s.guardRejects(ctx, value) {
		return fmt.Errorf("%w: %s: %w", ErrBlocked, field, errGuardRejected)
	}
	return s.update(ctx, func(t *tx) error {
		m := s.model.clone()
		if err := m.apply(field, value); err != nil {
			return err
		}
		s.setModelLocked(t, m)
		return nil
	})
}

// EditUserModel sets a confirmed user-model field to value, as a person
// edits it: a list field gets exactly the comma-separated items of value,
// any other field the value, and an empty value removes it. The value is
// checked and scanned as a confirmed inference is (ErrInvalidArgument,
// ErrBlocked). Its Undo gives the field back the value it
// had.
func (s *Store) EditUserModel(ctx context.Context, field, value string) (Undo, error) {
	canon := umfield.Canonical(field)
	if canon == "" {
		return Undo{}, fmt.Errorf("%w %q: the user model has %s", errUnknownField, field, strings.Join(umfield.Fields, ", "))
	}
	v, err := checkUserModelValue(canon, value)
	if err != nil {
		return Undo{}, err
	}
	if v != "" && s.guardRejects(ctx, v) {
		return Undo{}, fmt.Errorf("%w: %s: %w", ErrBlocked, canon, errGuardRejected)
	}
	var prev string
	err = s.update(ctx, func(t *tx) error {
		prev, _ = s.model.Get(canon)
		m := s.model.clone()
		if err := m.setField(canon, v); err != nil {
			return err
		}
		s.setModelLocked(t, m)
		return nil
	})
	if err != nil {
		return Undo{}, err
	}
	verb := "edit "
	if v == "" {
		verb = "remove "
	}
	return Undo{label: verb + canon, back: func(ctx context.Context) error {
		return s.update(ctx, func(t *tx) error {
			m := s.model.clone()
			if err := m.setField(canon, prev); err != nil {
				return err
			}
			s.setModelLocked(t, m)
			return nil
		})
	}}, nil
}
