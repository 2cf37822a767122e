package memcore_test

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/odekmem/odekmem/internal/testcreds"
	"github.com/odekmem/odekmem/memcore"
)

// TestEveryShapeEveryWritePath writes a credential for every rule of
// gitleaks' default config and every generic and structured shape
// (internal/testcreds.Shapes), as written or split by zero-width
// characters, through trusted Store.Add and once more with the secret
// straddling the 299th character, where a stored atom is cut; and in turn
// through tainted Store.Add, the hook's RecordUserMessage, the memory
// tool's add_atom and the agent session log (agent_sessions.json). No
// 8-byte piece of any secret may survive anywhere under the store or in
// its export.
func TestEveryShapeEveryWritePath(t *testing.T) {
	type secret struct{ name, s string }
	creds := testcreds.Shapes(29)
	pad := strings.Repeat("deploy log ok. ", 30)
	total, leaked := 0, 0
	// a store for every 40 shapes: each write rewrites the store's files,
	// so one store for all would make the test quadratic
	for lo := 0; lo < len(creds); lo += 40 {
		st, h, tool := writePaths(t)
		ctx := context.Background()
		var secrets []secret
		for j, c := range creds[lo:min(lo+40, len(creds))] {
			v := testcreds.Variants(c)[(lo+j)%2] // plain or split by zero-width characters
			name := c.Kind + "/" + v.Name
			secrets = append(secrets, secret{name, v.Secret})
			text := v.Text
			if _, err := st.Add(ctx, memcore.AddRequest{Text: "our deploy config: " + text, Source: memcore.SourceUserApproved}); err != nil {
				t.Fatalf("%s: trusted add: %v", name, err)
			}
			// the other paths in turn (every path sees every kind of
			// rule; the whole set through each path would take minutes
			// under -race, the write paths fsync)
			switch (lo + j) % 4 {
			case 0:
				if _, err := st.Add(ctx, memcore.AddRequest{Text: "env dump: " + text, Source: memcore.SourceToolOutput}); err != nil {
					t.Fatalf("%s: tainted add: %v", name, err)
				}
			case 1:
				h.RecordUserMessage(ctx, memcore.Turn{Message: "I always use this for staging deploys: " + text, SessionID: "s"})
			case 2:
				arg, _ := json.Marshal(map[string]string{"action": "add_atom", "content": "the CI setting is " + text})
				tool.CallJSON(ctx, arg, memcore.Turn{Message: "remember that the CI setting is " + text})
			default:
				if _, err := st.RecordAgentMessage(ctx, "claude-code", "sess-shapes", "", "keep this: "+text, st.Now()); err != nil {
					t.Fatalf("%s: agent session: %v", name, err)
				}
			}
			// the secret across the 299-character cut of a stored atom
			cut := 299 - len(c.Text)/2
			long := pad[:max(0, cut-1)] + " " + c.Text + " and the rest of the output"
			if _, err := st.Add(ctx, memcore.AddRequest{Text: long, Source: memcore.SourceToolOutput}); err != nil {
				t.Fatalf("%s: add at the cut: %v", c.Kind, err)
			}
			secrets = append(secrets, secret{c.Kind + "/cut", c.Secret})
		}
		blobs := storeBytes(t, st)
		if _, ok := blobs[filepath.Join(st.Dir(), "agent_sessions.json")]; !ok {
			t.Fatal("no agent_sessions.json written")
		}
		for _, s := range secrets {
			total++
			for name, b := range blobs {
				if l := testcreds.Leaks(testcreds.Markers(string(b)), s.s); l != "" {
					leaked++
					t.Errorf("%s: %q survives in %s", s.name, l, name)
					break
				}
			}
		}
	}
	t.Logf("%d secrets (%d shapes through trusted Add and at the 299-character cut, and in turn through tainted Add, RecordUserMessage, add_atom and agent_sessions.json): %d leaked", total, len(creds), leaked)
}
