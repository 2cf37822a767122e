package mcpserver_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/odekmem/odekmem/internal/mcpserver"
	"github.com/odekmem/odekmem/internal/testcreds"
	"github.com/odekmem/odekmem/internal/testkit"
)

// TestEveryShapeThroughMCPRemember sends a credential for every rule of
// gitleaks' default config and every generic and structured shape
// (internal/testcreds.Shapes) through the MCP remember tool, as the
// person's own words (in the agent session log first) and as the agent's
// note, and proves no 8-character piece of any secret reaches a file of
// the store, the session log or a tool result.
func TestEveryShapeThroughMCPRemember(t *testing.T) {
	home := t.TempDir()
	project := t.TempDir()
	st := testkit.OpenHome(t, home)
	ctx := context.Background()
	cs := inMemory(t, mcpserver.New(st, mcpserver.Options{Project: project}))
	var secrets []string
	var results strings.Builder
	remember := func(text string) {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "remember", Arguments: map[string]any{"text": text}})
		if err != nil {
			t.Fatalf("remember: %v", err)
		}
		b, _ := json.Marshal(res)
		results.Write(b)
	}
	for i, c := range testcreds.Shapes(37) {
		secrets = append(secrets, c.Secret)
		said := "our staging setting is " + c.Text
		if i%2 == 0 {
			if _, err := st.RecordAgentMessage(ctx, "claude-code", "sess-m", project, "Please keep this: "+said+".", st.Now()); err != nil {
				t.Fatal(err)
			}
			remember(said)
		} else {
			remember("Agent note, found in the deploy logs: " + c.Text)
		}
	}
	st.Close(context.Background())
	blobs := map[string]string{"tool results": results.String()}
	for p, b := range testcreds.Files(home) {
		blobs[p] = b
	}
	for name, b := range blobs {
		blobs[name] = testcreds.Markers(b)
	}
	leaked := testcreds.NoLeaks(t, secrets, blobs)
	t.Logf("%d shapes through MCP remember and the session log: %d leaked", len(secrets), leaked)
}
