// Package review is what a person does with their agent's memory: promote
// what they vouch for out of the quarantine, forget, pin, confirm or
// reject the user-model inferences waiting for them, settle
// contradictions — and undo their latest act. It is for a surface that
// offers its person such commands (odek's "memory extended promote",
// "pending", "confirm" …; odekmem's TUI and CLI use it).
//
// The acts are memcore.Store's; a Session runs them for one person and
// keeps the history Undo walks back, newest first. Nothing here may be
// driven by a model: give the agent's model the memory tool (memcore.Tool)
// instead, which cannot promote, confirm or unpin, and whose acts no
// Session records.
package review

import (
	"context"
	"errors"
	"sync"

	"github.com/odekmem/odekmem/memcore"
)

// depth bounds a Session's history: older acts can no longer be undone.
const depth = 256

// ErrNothingToUndo means Undo found no act left to take back.
var ErrNothingToUndo = errors.New("nothing to undo")

// Session is one person's review of a store: their acts and the history
// Undo takes back. It is safe for concurrent use; the history lives in
// memory and keeps the latest 256 acts.
type Session struct {
	st *memcore.Store

	mu   sync.Mutex
	acts []memcore.Undo
}

// New starts a session on st.
func New(st *memcore.Store) *Session {
	if st == nil {
		panic("review.New: nil store")
	}
	return &Session{st: st}
}

func (s *Session) record(u memcore.Undo, err error) {
	if err != nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.acts) == depth {
		s.acts = append(s.acts[:0], s.acts[1:]...)
	}
	s.acts = append(s.acts, u)
}

// Forget removes an atom from the live store or the quarantine (see
// memcore.Store.Forget). Undo brings it back with its links.
func (s *Session) Forget(ctx context.Context, id string) (memcore.Atom, *memcore.QuarantinedAtom, error) {
	a, q, u, err := s.st.Forget(ctx, id)
	s.record(u, err)
	return a, q, err
}

// Promote moves a quarantined atom to the live store as user_approved: the
// person vouches for it (see memcore.Store.Promote). Undo puts it back in
// the quarantine as it was.
func (s *Session) Promote(ctx context.Context, id string) (memcore.Atom, error) {
	a, u, err := s.st.Promote(ctx, id)
	s.record(u, err)
	return a, err
}

// SetPin pins or unpins a live atom. Undo sets the pin back.
func (s *Session) SetPin(ctx context.Context, id string, pin bool) (memcore.Atom, error) {
	a, u, err := s.st.SetPin(ctx, id, pin)
	s.record(u, err)
	return a, err
}

// Confirm applies a pending user-model inference. Undo gives the field its
// old value back and queues the review again.
func (s *Session) Confirm(ctx context.Context, pendingID string) (memcore.PendingReview, error) {
	p, u, err := s.st.Confirm(ctx, pendingID)
	s.record(u, err)
	return p, err
}

// Reject drops a pending user-model inference. Undo queues it again.
func (s *Session) Reject(ctx context.Context, pendingID string) (memcore.PendingReview, error) {
	p, u, err := s.st.Reject(ctx, pendingID)
	s.record(u, err)
	return p, err
}

// Resolve decides a contradiction: memcore.ResolveKeepNew, ResolveKeepOld
// or ResolveKeepBoth. Undo gives it back its earlier decision.
func (s *Session) Resolve(ctx context.Context, id, resolution string) (memcore.Contradiction, error) {
	c, u, err := s.st.ResolveContradiction(ctx, id, resolution)
	s.record(u, err)
	return c, err
}

// Keep stores a lane entry — a candidate from the person's own messages
// the judgement was not sure about — as a user_approved atom (see
// memcore.Store.Keep). Undo forgets it and puts the entry back.
func (s *Session) Keep(ctx context.Context, id string) (memcore.AddResult, error) {
	r, u, err := s.st.Keep(ctx, id)
	s.record(u, err)
	return r, err
}

// KeepSession keeps every lane entry of one agent session. One Undo takes
// them all back.
func (s *Session) KeepSession(ctx context.Context, session string) ([]memcore.AddResult, error) {
	rs, u, err := s.st.KeepSession(ctx, session)
	s.record(u, err)
	return rs, err
}

// Drop removes a lane entry. Undo puts it back.
func (s *Session) Drop(ctx context.Context, id string) (memcore.LaneEntry, error) {
	e, u, err := s.st.Drop(ctx, id)
	s.record(u, err)
	return e, err
}

// Undo takes back the latest act of this session not yet undone and
// returns what it was ("forget 0f3a1c2d"). With nothing left it returns
// ErrNothingToUndo. An act that fails to undo is dropped from the
// history, and the error says why.
func (s *Session) Undo(ctx context.Context) (string, error) {
	s.mu.Lock()
	if len(s.acts) == 0 {
		s.mu.Unlock()
		return "", ErrNothingToUndo
	}
	u := s.acts[len(s.acts)-1]
	s.acts = s.acts[:len(s.acts)-1]
	s.mu.Unlock()
	return u.String(), u.Apply(ctx)
}

// EditUserModel sets or (with an empty value) removes a confirmed
// user-model field (see memcore.Store.EditUserModel). Undo gives the field
// its old value back.
func (s *Session) EditUserModel(ctx context.Context, field, value string) error {
	u, err := s.st.EditUserModel(ctx, field, value)
	s.record(u, err)
	return err
}
