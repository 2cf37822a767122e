package memcore

import (
	"context"

	"github.com/odekmem/odekmem/internal/engine"
	"github.com/odekmem/odekmem/internal/mirror"
)

// Hook is the per-turn entry point an agent calls around each message of
// the person. One Hook serves any number of sessions; it is safe for
// concurrent use.
type Hook struct {
	h *engine.Hook
}

// NewHook returns the Hook over a store. It uses the store's memory LLM
// (or rules without one) and bounds each LLM call by
// Config.HookTimeoutSeconds.
func NewHook(s *Store) *Hook {
	return &Hook{h: engine.NewHook(s.e, engine.HookOptions{})}
}

// BeforeTurn returns what to inject before the model sees the person's
// message: style guidance, the user's state, a note after a break and the
// memory block of the atoms relevant to the message, its predicted
// follow-ups and the resolved pronoun. It never fails: a failing LLM or
// index leaves a block out and says so in Warnings.
func (h *Hook) BeforeTurn(ctx context.Context, t Turn) TurnContext {
	return mirror.Convert[TurnContext](h.h.BeforeTurn(ctx, mirror.Convert[engine.Turn](t)))
}

// RecordUserMessage extracts atoms from the person's message and stores
// them as the person's words (verbatim or not at all), applies an inline
// approval ("odek, remember that"; the name is Config.AgentName) to what
// the agent read on the previous turn, links associations and, every
// UserStateTurnInterval turns, starts a user-model inference in the
// background whose results wait for the person's review.
func (h *Hook) RecordUserMessage(ctx context.Context, t Turn) (RecordResult, error) {
	r, err := h.h.RecordUserMessage(ctx, mirror.Convert[engine.Turn](t))
	return mirror.Convert[RecordResult](r), err
}

// Close stops the Hook and waits for its background inference; when ctx
// ends first it cancels that work, waits for it to return and reports
// ctx's error. Close the Hook before its Store.
func (h *Hook) Close(ctx context.Context) error { return h.h.Close(ctx) }

// Tool is the agent's memory tool. Provenance comes from the Turn, never
// from the model: add_atom is user_said only when the content is the
// person's own words copied from their current message, and anything
// else waits in quarantine. The tool may forget or pin only what it added
// in the same session and cannot promote, confirm, unpin or change the
// user model. Use one Tool per agent process.
type Tool struct {
	t *engine.Tool
}

// NewTool returns the memory tool over a store.
func NewTool(s *Store) *Tool { return &Tool{t: engine.NewTool(s.e)} }

// CallJSON runs the model's call: args is the arguments object the
// MemoryToolSpec schema describes, turn the person's current message. It
// returns the tool's JSON result; bad arguments give {"ok": false, …}, not
// an error.
func (t *Tool) CallJSON(ctx context.Context, args []byte, turn Turn) []byte {
	return t.t.CallJSON(ctx, args, mirror.Convert[engine.Turn](turn))
}

// MemoryToolSpec describes the memory tool: its name, description and the
// JSON Schema of its arguments, listing only the actions it can do.
// json.Marshal of it is an OpenAI function object; other providers take
// the same three parts.
func MemoryToolSpec() ToolSpec { return mirror.Convert[ToolSpec](engine.MemoryToolSpec()) }
