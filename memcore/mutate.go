package memcore

import (
	"context"
	"fmt"
)

// ---- mutations by id ----

// Forget removes an atom from the live store or the quarantine, with its
// chunk, vector and links. It returns the removed atom, the quarantine
// entry when the atom was quarantined, and the Undo that brings it back
// with its links.
func (s *Store) Forget(ctx context.Context, id string) (Atom, *QuarantinedAtom, Undo, error) {
	a, q, links, err := s.forget(ctx, id, nil)
	if err != nil {
		return a, q, Undo{}, err
	}
	return a, q, Undo{label: "forget " + shortID(id), back: func(ctx context.Context) error {
		if err := s.restore(ctx, a, q); err != nil {
			return err
		}
		return s.relink(ctx, a.ID, links)
	}}, nil
}

// forget is Forget without the undo record; it also returns the links the
// atom had. A non-nil guard sees the atom as it is under the write lock
// (q set when it is quarantined) and refuses the forget by returning an
// error: the check and the delete are one step.
func (s *Store) forget(ctx context.Context, id string, guard func(Atom, *QuarantinedAtom) error) (Atom, *QuarantinedAtom, []Link, error) {
	var a Atom
	var q *QuarantinedAtom
	var links []Link
	err := s.update(ctx, func(t *tx) error {
		if e := s.byID[id]; e != nil {
			a = cloneAtom(e.atom)
			if guard != nil {
				if err := guard(a, nil); err != nil {
					return err
				}
			}
			links = s.graph.neighbours(id)
			s.removeVictimsFromMetaLocked(t, []string{id})
			t.atoms = true
			s.finishVictimsLocked(t, []string{id})
			return nil
		}
		if i := s.quarIndex(id); i >= 0 {
			c := *s.quar[i]
			if guard != nil {
				if err := guard(c.Atom, &c); err != nil {
					return err
				}
			}
			links = s.graph.neighbours(id)
			q = &c
			a = c.Atom
			s.quar = append(s.quar[:i], s.quar[i+1:]...)
			s.saveQuarantineLocked(t)
			s.dropLinksLocked(t, id)
			return nil
		}
		return missingAtom(id)
	})
	return a, q, links, err
}

// Promote moves a quarantined atom to the live store as user_approved: a
// person vouched for it. Characters a person cannot see are removed from
// its text, secrets are redacted again and the text is scanned again; the
// entry's source class, reason and findings are kept in Atom.Origin. A text
// that still fails the scan is promoted (the person saw the findings) with
// Origin.StillBlocked set, and recall never injects it. A live atom is
// ErrInvalidArgument; an entry the scanner flagged that the guard (when
// configured) judges an injection is ErrBlocked and stays.
//
// Its Undo puts the entry back in the quarantine as it was, with its
// links.
func (s *Store) Promote(ctx context.Context, id string) (Atom, Undo, error) {
	a, before, err := s.promote(ctx, id, true)
	if err != nil {
		return a, Undo{}, err
	}
	return a, Undo{label: "promote " + shortID(id), back: func(ctx context.Context) error { return s.unpromote(ctx, before.q, before.links) }}, nil
}

// promoted is a quarantine entry as a promote found it under the write
// lock, with its links: what its undo puts back.
type promoted struct {
	q     QuarantinedAtom
	links []Link
}

// commitPromoteLocked replaces quarantine entry id by the live atom a in
// t and returns the entry as it was, with its links. The commit writes the
// chunk and atoms.json before quarantine.json: a crash in between leaves
// the atom in both, which the next load resolves in favour of the live
// copy; the other order could lose it.
func (s *Store) commitPromoteLocked(t *tx, id string, a Atom, vec []float32) (promoted, error) {
	i := s.quarIndex(id)
	if i < 0 || s.byID[id] != nil {
		return promoted{}, notFound("%s is no longer quarantined", id)
	}
	before := promoted{q: *s.quar[i], links: s.graph.neighbours(id)}
	victims, err := s.planEvictionLocked(a, nil)
	if err != nil {
		return promoted{}, err
	}
	e := &entry{atom: a}
	s.appendEntryLocked(e)
	s.quar = append(s.quar[:i:i], s.quar[i+1:]...)
	s.removeVictimsFromMetaLocked(t, victims)
	t.writeChunk(a.ID, a.Text)
	t.atoms, t.quar = true, true
	if err := s.vec.Add(a.ID, a.Text, vec); err != nil {
		return promoted{}, err
	}
	s.finishVictimsLocked(t, victims)
	return before, nil
}

// SetPin pins or unpins a live atom (a quarantined one is
// ErrInvalidArgument).
// Pinned atoms are never evicted. Its Undo sets the pin back as it was
// (an Undo even when nothing changed: one act, one undo).
func (s *Store) SetPin(ctx context.Context, id string, pin bool) (Atom, Undo, error) {
	a, was, err := s.setPin(ctx, id, pin, nil)
	if err != nil {
		return a, Undo{}, err
	}
	verb := "pin "
	if !pin {
		verb = "unpin "
	}
	return a, Undo{label: verb + shortID(id), back: func(ctx context.Context) error {
		_, _, err := s.setPin(ctx, id, was, nil)
		return err
	}}, nil
}

// setPin is SetPin without the undo record; it also returns the pin the
// atom had. A non-nil guard checks the live atom under the write lock, as
// forget's does.
func (s *Store) setPin(ctx context.Context, id string, pin bool, guard func(Atom, *QuarantinedAtom) error) (Atom, bool, error) {
	var a Atom
	var was bool
	err := s.update(ctx, func(t *tx) error {
		e := s.byID[id]
		if e == nil {
			if s.quarIndex(id) >= 0 {
				return fmt.Errorf("%w: %s is quarantined; promote it first", errNotLive, id)
			}
			return missingAtom(id)
		}
		if guard != nil {
			if err := guard(cloneAtom(e.atom), nil); err != nil {
				return err
			}
		}
		was = e.atom.Pin
		if e.atom.Pin != pin {
			// A failed commit reloads the store: memory never stays
			// ahead of disk.
			e.atom.Pin = pin
			e.raw = nil
			s.track(e)
			t.atoms = true
		}
		a = cloneAtom(e.atom)
		return nil
	})
	return a, was, err
}
