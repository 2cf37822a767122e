package memcore

import (
	"context"
	"fmt"
)

// ---- mutations by id ----

// Forget removes an atom from the live store or the quarantine, with its
// chunk, vector and links. It returns the removed atom (for undo).
func (s *Store) Forget(ctx context.Context, id string) (Atom, *QuarantinedAtom, error) {
	var a Atom
	var q *QuarantinedAtom
	err := s.withWriteCtx(ctx, func() error {
		if e := s.byID[id]; e != nil {
			a = cloneAtom(e.atom)
			s.removeVictimsFromMetaLocked(nil, []string{id})
			if err := s.writeAtomsLocked(); err != nil {
				return err
			}
			s.finishVictimsLocked(nil, []string{id})
			return s.vec.maybeSnapshot(false)
		}
		if i := s.quarIndex(id); i >= 0 {
			c := *s.quar[i]
			q = &c
			a = c.Atom
			s.quar = append(s.quar[:i], s.quar[i+1:]...)
			if err := s.writeQuarantineLocked(); err != nil {
				return err
			}
			s.dropLinksLocked(nil, id)
			return nil
		}
		return missingAtom(id)
	})
	return a, q, err
}

// Restore puts back an atom that Forget removed (undo), with its id, source
// class and timestamps. It goes through the scanner again.
func (s *Store) Restore(ctx context.Context, a Atom, q *QuarantinedAtom) (AddResult, error) {
	req := AddRequest{ID: a.ID, Text: a.Text, Type: a.Type, Source: a.SourceClass, Confidence: a.Confidence, Pin: a.Pin, Context: a.Context, CreatedAt: a.CreatedAt,
		Origin: a.Origin}
	if q != nil {
		req.QuarantineReason, req.QuarantinedAt = q.Reason, q.QuarantinedAt
		// Undoing the forget of an entry whose TTL has run out restarts its
		// clock; otherwise the next write's expiry sweep would remove it again.
		if exp := q.ExpiresAt(s.cfg.QuarantineTTLDays); !exp.IsZero() && !s.now().Before(exp) {
			req.QuarantinedAt = s.now()
		}
	}
	return s.Add(ctx, req)
}

// Promote moves a quarantined atom to the live store as user_approved: a
// person vouched for it. Characters a person cannot see are removed from
// its text, secrets are redacted again and the text is scanned again; the
// entry's source class, reason and findings are kept in Atom.Origin. A text
// that still fails the scan is promoted (the person saw the findings) with
// Origin.StillBlocked set, and recall never injects it.
func (s *Store) Promote(ctx context.Context, id string) (Atom, error) {
	return s.promote(ctx, id, true)
}

// commitPromoteLocked replaces quarantine entry id by the live atom a.
// Caller holds the write locks.
func (s *Store) commitPromoteLocked(id string, a Atom, vec []float32) error {
	i := s.quarIndex(id)
	if i < 0 || s.byID[id] != nil {
		return notFound("%s is no longer quarantined", id)
	}
	victims, err := s.planEvictionLocked(a, nil)
	if err != nil {
		return err
	}
	e := &entry{atom: a}
	s.appendEntryLocked(e)
	s.quar = append(s.quar[:i:i], s.quar[i+1:]...)
	s.removeVictimsFromMetaLocked(nil, victims)
	// atoms.json first: a crash before quarantine.json is rewritten
	// leaves the atom in both, which the next load resolves in favour
	// of the live copy; the other order could lose it.
	if err := s.writeChunkAndAtomsLocked(a.ID, a.Text); err != nil {
		s.popEntryLocked(e)
		s.invalidateLocked()
		return err
	}
	if err := s.writeQuarantineLocked(); err != nil {
		s.invalidateLocked()
		return err
	}
	if err := s.vec.add(a.ID, a.Text, vec); err != nil {
		return err
	}
	s.finishVictimsLocked(nil, victims)
	return s.vec.maybeSnapshot(false)
}

// SetPin pins or unpins a live atom. Pinned atoms are never evicted.
func (s *Store) SetPin(ctx context.Context, id string, pin bool) (Atom, error) {
	var a Atom
	err := s.withWriteCtx(ctx, func() error {
		e := s.byID[id]
		if e == nil {
			if s.quarIndex(id) >= 0 {
				return fmt.Errorf("%w: %s is quarantined; promote it first", ErrNotLive, id)
			}
			return missingAtom(id)
		}
		if e.atom.Pin != pin {
			oldRaw := e.raw
			e.atom.Pin = pin
			e.raw = nil
			s.track(e)
			if err := s.writeAtomsLocked(); err != nil {
				e.atom.Pin = !pin
				e.raw = oldRaw
				s.track(e)
				return err
			}
		}
		a = cloneAtom(e.atom)
		return nil
	})
	return a, err
}
