package memcore_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/odekmem/odekmem/internal/testcreds"
	"github.com/odekmem/odekmem/internal/testkit"
	"github.com/odekmem/odekmem/memcore"
)

// TestEverySecretKindEveryWritePath writes every synthetic credential kind
// (internal/testcreds: the 22 kinds issue 11 found on disk and all the
// older ones), as written, split by zero-width characters and in
// fullwidth forms, through every library write path — trusted Add,
// tainted Add, the hook's RecordUserMessage, the memory tool's add_atom
// and Import — and proves that no 8-byte piece of any secret survives
// anywhere under the store or in an export.
func TestEverySecretKindEveryWritePath(t *testing.T) {
	st, h, tool := writePaths(t)
	ctx := context.Background()
	type secret struct{ name, s string }
	var secrets []secret
	n := 0
	all := testkit.Soak()
	for _, c := range testcreds.Creds(3) {
		for _, v := range testcreds.Variants(c) {
			n++
			name := c.Kind + "/" + v.Name
			secrets = append(secrets, secret{name, v.Secret})
			text := v.Text
			if _, err := st.Add(ctx, memcore.AddRequest{Text: "our deploy config: " + text, Source: memcore.SourceUserApproved}); err != nil {
				t.Fatalf("%s: trusted add: %v", name, err)
			}
			// Every secret through the trusted Add; the four other paths
			// in turn (each still sees every kind across the seeds and
			// variants), and every path for every secret in make soak.
			path := func(k int) bool { return all || n%4 == k }
			if path(0) {
				if _, err := st.Add(ctx, memcore.AddRequest{Text: "env dump: " + text, Source: memcore.SourceToolOutput}); err != nil {
					t.Fatalf("%s: tainted add: %v", name, err)
				}
			}
			if path(1) {
				h.RecordUserMessage(ctx, memcore.Turn{Message: "I always use this for staging deploys: " + text, SessionID: "s"})
			}
			if path(2) {
				arg, _ := json.Marshal(map[string]string{"action": "add_atom", "content": "the CI setting is " + text})
				tool.CallJSON(ctx, arg, memcore.Turn{Message: "remember that the CI setting is " + text})
			}
			if path(3) {
				line, _ := json.Marshal(map[string]any{"kind": "atom", "id": fmt.Sprintf("%030x%02d", n, n%100), "source_class": "user_said", "type": "fact",
					"created_at": time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC), "context": map[string]any{}, "text": "imported " + text})
				if _, err := st.Import(ctx, bytes.NewReader(append(line, '\n')), memcore.ImportOptions{}); err != nil {
					t.Fatalf("%s: import: %v", name, err)
				}
			}
		}
	}
	blobs := storeBytes(t, st)
	leaked := 0
	for _, s := range secrets {
		for name, b := range blobs {
			if l := testcreds.Leaks(string(b), strings.ReplaceAll(s.s, "\n", "")); l != "" {
				leaked++
				t.Errorf("%s: %q survives in %s", s.name, l, name)
				break
			}
		}
	}
	t.Logf("%d secrets (kinds × plain/zero-width split/fullwidth) × trusted Add and the other four write paths (in turn outside make soak): %d leaked", len(secrets), leaked)
}
