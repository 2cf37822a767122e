package llm_test

import (
	"context"
	"testing"

	"github.com/odekmem/odekmem/memcore/llm"
)

func TestClientFunc(t *testing.T) {
	var got llm.Request
	var c llm.Client = llm.ClientFunc(func(_ context.Context, r llm.Request) (string, error) { got = r; return "x", nil })
	out, err := c.Complete(context.Background(), llm.Request{System: "s"})
	if err != nil || out != "x" || got.System != "s" {
		t.Errorf("ClientFunc: out=%q err=%v req=%+v", out, err, got)
	}
}
