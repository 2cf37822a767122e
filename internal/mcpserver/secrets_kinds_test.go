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

// TestEverySecretKindThroughMCPRemember sends every synthetic credential
// kind through the MCP remember tool, as the person's own words (the
// message that holds it is in the agent session log first) and as the
// agent's note, plain and (as notes) split by zero-width characters and
// in fullwidth forms, and proves that no 8-character piece of any secret
// reaches a file of the store, the session log or a tool result.
func TestEverySecretKindThroughMCPRemember(t *testing.T) {
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
	for _, c := range testcreds.Creds(17) {
		secrets = append(secrets, strings.ReplaceAll(c.Secret, "\n", ""))
		said := "our staging setting is " + c.Text
		if _, err := st.RecordAgentMessage(ctx, "claude-code", "sess-m", project, "Please keep this: "+said+".", st.Now()); err != nil {
			t.Fatal(err)
		}
		remember(said)
		var notes []string
		for _, v := range testcreds.Variants(c)[1:] {
			secrets = append(secrets, strings.ReplaceAll(v.Secret, "\n", ""))
			notes = append(notes, v.Text)
		}
		remember("Agent note, found in the deploy logs: " + strings.Join(notes, " / "))
	}
	st.Close(context.Background())
	blobs := map[string]string{"tool results": results.String()}
	for p, b := range testcreds.Files(home) {
		blobs[p] = b
	}
	leaked := testcreds.NoLeaks(t, secrets, blobs)
	t.Logf("%d secrets through MCP remember and the session log: %d leaked", len(secrets), leaked)
}
