package llm

import (
	"context"
	"fmt"
	"strings"

	"github.com/odekmem/odekmem/memcore/llm"
)

// The client types are memcore/llm's: the tasks here run on whatever
// Client an agent hands memcore.
type (
	Client  = llm.Client
	Request = llm.Request
	Message = llm.Message
)

// ClientFunc adapts a function to the Client interface (tests script
// replies with it).
type ClientFunc func(ctx context.Context, req Request) (string, error)

// Complete calls f.
func (f ClientFunc) Complete(ctx context.Context, req Request) (string, error) { return f(ctx, req) }

// ask runs one task call: it wraps the client's error with the task name and
// turns an empty (or think-only) reply into ErrEmptyReply, whatever Client
// produced it.
func ask(ctx context.Context, c Client, task string, req Request) (string, error) {
	raw, err := c.Complete(ctx, req)
	if err != nil {
		return "", fmt.Errorf("llm: %s: %w", task, err)
	}
	if strings.TrimSpace(stripThink(raw)) == "" {
		return "", fmt.Errorf("llm: %s: %w", task, ErrEmptyReply)
	}
	return raw, nil
}

// prompt is a request of one system prompt and one user message.
func prompt(system, user string) Request {
	return Request{System: system, Messages: []Message{{Role: "user", Content: user}}}
}

// askArray asks for task's reply and reads it as a JSON array (an object
// that wraps exactly one array counts as that array).
func askArray(ctx context.Context, c Client, task string, req Request) ([]any, error) {
	raw, err := ask(ctx, c, task, req)
	if err != nil {
		return nil, err
	}
	v, err := ParseValue(raw, 0)
	if err != nil {
		return nil, fmt.Errorf("llm: %s: parse reply: %w", task, err)
	}
	arr, err := unwrapArray(v)
	if err != nil {
		return nil, fmt.Errorf("llm: %s: parse reply: %w", task, err)
	}
	return arr, nil
}
