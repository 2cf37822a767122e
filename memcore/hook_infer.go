package memcore

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/odekmem/odekmem/internal/llm"
)

// User-state inference: its cadence in the background and one run.

// maybeInfer starts user-state inference every user_state_turn_interval
// turns or when the project focus really changes, one run at a time, in
// the background.
func (h *Hook) maybeInfer(turn int, project string) bool {
	if !h.cfg.InferUserState || h.llm == nil {
		return false
	}
	key := projectKey(project)
	h.mu.Lock()
	changed := key != "" && h.focus != "" && key != h.focus
	if key != "" && h.focus == "" {
		h.focus = key
	}
	due := h.cfg.UserStateTurnInterval > 0 && turn%h.cfg.UserStateTurnInterval == 0
	if changed {
		h.focus = key
	}
	if !due && !changed || h.closed {
		h.mu.Unlock()
		return false
	}
	if !h.inferring.CompareAndSwap(false, true) {
		h.mu.Unlock()
		return false
	}
	// Added under mu, so Close (which sets closed under mu) always waits
	// for it.
	h.inferWG.Add(1)
	h.mu.Unlock()
	// Background work owned by the Hook: Close waits for it (inferWG).
	go func() {
		defer h.inferWG.Done()
		defer h.inferring.Store(false)
		if err := h.infer(h.bgCtx); err != nil {
			h.warnMu.Lock()
			h.warnings = append(h.warnings, "user-state inference: "+err.Error())
			h.warnMu.Unlock()
		}
	}()
	return true
}

// infer runs one user-state inference now: the memory LLM sees the
// confirmed model and recent trusted atoms; direct, scan-clean focus and
// technical updates apply at once, everything else waits in pending_review.
func (h *Hook) infer(ctx context.Context) error {
	if h.llm == nil {
		return llm.ErrNoLLM
	}
	model, err := h.store.UserModel(ctx)
	if err != nil {
		return err
	}
	mj, _ := json.Marshal(userModelFile(confirmedOnly(model)))
	atoms, err := h.store.List(ctx, Filter{})
	if err != nil {
		return err
	}
	var texts []string
	for _, a := range atoms {
		if len(texts) >= 30 {
			break
		}
		if !h.store.verdicts.Blocked(a.Text) {
			texts = append(texts, "["+string(a.Type)+"] "+a.Text)
		}
	}
	cctx, cancel := h.llmCtx(ctx)
	defer cancel()
	ups, err := llm.InferUserState(cctx, h.llm, string(mj), texts)
	if err != nil {
		return err
	}
	for _, u := range ups {
		if u.Direct {
			if err := h.store.applyDirect(ctx, u.Field, u.Value); err == nil {
				continue
			}
		}
		_, _, err := h.store.queuePending(ctx, PendingReview{Field: u.Field, Value: u.Value, Evidence: u.Evidence, Confidence: u.Confidence})
		switch {
		case errors.Is(err, ErrBlocked) || errors.Is(err, errInvalidValue):
			// Never dropped silently: the blocked or malformed inference
			// waits in quarantine (scan_rejected or tainted, secrets
			// redacted) for a person.
			if _, qerr := h.store.Add(ctx, AddRequest{Text: u.Field + ": " + u.Value + " (evidence: " + u.Evidence + ")",
				Type: TypeObservation, Source: SourceInferred, Confidence: u.Confidence}); qerr != nil {
				return qerr
			}
		case errors.Is(err, errUnknownField):
		case err != nil:
			return err
		}
	}
	return nil
}

// wait blocks until background inference finishes (Close does this too).
func (h *Hook) wait() { h.inferWG.Wait() }

// Warnings returns and clears warnings from background work.
func (h *Hook) Warnings() []string {
	h.warnMu.Lock()
	defer h.warnMu.Unlock()
	w := h.warnings
	h.warnings = nil
	return w
}
