// Package review keeps the undo history of what a person does with their
// agent's memory. The acts themselves — promote what they vouch for out of
// the quarantine, forget, pin, confirm or reject the user-model inferences
// waiting for them, settle contradictions, keep or drop lane entries, edit
// the user model — are memcore.Store methods that each return the
// memcore.Undo of what they did. A surface that offers its person such
// commands (odek's "memory extended promote", "pending", "confirm" …;
// odekmem's TUI) records each act's Undo in a Session, whose Undo takes
// back the latest act, newest first.
//
// Nothing here may be driven by a model: give the agent's model the memory
// tool (memcore.Tool) instead, which cannot promote, confirm or unpin, and
// whose acts have no Undo.
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

// Session is one person's review: the history of their acts that Undo
// takes back. The zero Session is empty and ready to use; it is safe for
// concurrent use, and the history lives in memory and keeps the latest 256
// acts.
type Session struct {
	mu   sync.Mutex
	acts []memcore.Undo
}

// Record adds u, the Undo a person's act on the store returned
// (memcore.Store's Forget, Promote, SetPin, Confirm, Reject,
// ResolveContradiction, Keep, Drop or EditUserModel), to the history, as
// its newest act:
//
//	a, u, err := st.Promote(ctx, id)
//	if err != nil {
//		return err
//	}
//	sess.Record(u)
//
// The zero Undo (String returns "") is not recorded.
func (s *Session) Record(u memcore.Undo) {
	if u.String() == "" {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.acts) == depth {
		s.acts = append(s.acts[:0], s.acts[1:]...)
	}
	s.acts = append(s.acts, u)
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
