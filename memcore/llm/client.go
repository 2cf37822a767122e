// Package llm is what an agent hands memcore to give it a memory LLM: a
// Client with one method, Complete, that sends one chat request and
// returns the reply's text (any type of the agent's that has it will do);
// package memcore/openai has a ready-made Client for any
// OpenAI-compatible chat endpoint (openai-go), for an agent that opts into
// it.
//
// memcore runs every memory task on the Client it is given (per-turn
// extraction, user-state inference, intent prediction, rerank,
// return-after-break summaries, contradiction checks); the prompts and the
// parsing of what small models reply live inside memcore. Without a Client
// every task has a documented non-LLM behaviour: nothing an agent's turn
// depends on fails because no model is configured.
//
// # Caveats
//
//   - memcore passes only user messages and trusted atoms in a Request, and
//     scans every reply before anything is written; a Client still sees
//     the person's words, so pick one the person would trust with them.
//   - Request.JSON is a hint: memcore parses replies defensively (fences,
//     prose around the value, duplicate keys) whether or not the server
//     honoured it.
package llm

import "context"

// Message is one chat message. Role is "system", "user" or "assistant";
// anything else is sent as "user".
type Message struct{ Role, Content string }

// Request is one completion request.
type Request struct {
	// System is sent as the first, system-role message when non-empty.
	System   string
	Messages []Message
	// MaxTokens overrides the client's configured limit when > 0.
	MaxTokens int
	// Temperature overrides the client's configured temperature when non-nil.
	Temperature *float64
	// JSON asks the server for JSON output (response_format json_object).
	// A client whose server rejects it may retry without it; memcore
	// parses the reply defensively either way.
	JSON bool
}

// Client is the one thing memcore needs from a model. Complete returns the
// reply's text; an error (or an empty reply) makes memcore fall back to
// the task's non-LLM behaviour for that turn. Implementations must be safe
// for concurrent use and should honour ctx.
type Client interface {
	Complete(ctx context.Context, req Request) (string, error)
}
