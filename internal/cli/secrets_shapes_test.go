package cli_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/odekmem/odekmem/internal/cli"
	"github.com/odekmem/odekmem/internal/testcreds"
)

// TestEveryShapeCLIAddAndIngest sends a credential for every rule of
// gitleaks' default config and every generic and structured shape
// (internal/testcreds.Shapes) through `odekmem add` (every tenth, the
// command being a process of its own) and `odekmem ingest -`: one
// transcript line per shape as the person's message, and one tool line
// with the secret across the 299-character cut of a stored line. No
// 8-character piece of a secret may reach the store, stdout or stderr.
func TestEveryShapeCLIAddAndIngest(t *testing.T) {
	home := newHome(t)
	var secrets []string
	var transcript strings.Builder
	var echoed strings.Builder
	pad := strings.Repeat("build step ok. ", 40)
	for i, c := range testcreds.Shapes(31) {
		secrets = append(secrets, c.Secret)
		if i%10 == 0 {
			r := run(t, home, "", "add", "deploy config: "+c.Text, "--memory-extended-atom-max-chars", "2000")
			if r.code != 0 && r.code != cli.ExitBlocked {
				t.Fatalf("add %s: %+v", c.Kind, r)
			}
			echoed.WriteString(r.stdout + r.stderr)
		}
		line, _ := json.Marshal(map[string]any{"role": "user", "content": "we use this for staging: " + c.Text, "session": "s1"})
		transcript.Write(append(line, '\n'))
		cut := 299 - len(c.Text)/2
		line, _ = json.Marshal(map[string]any{"role": "tool", "content": pad[:max(0, cut-1)] + " " + c.Text + " then the job exited 0", "session": "s2"})
		transcript.Write(append(line, '\n'))
	}
	r := run(t, home, transcript.String(), "ingest", "-", "--json")
	if r.code != 0 {
		t.Fatalf("ingest: %+v", r)
	}
	echoed.WriteString(r.stdout + r.stderr)
	blobs := map[string]string{"stdout/stderr": echoed.String()}
	for p, b := range testcreds.Files(home) {
		blobs[p] = testcreds.Markers(b)
	}
	leaked := testcreds.NoLeaks(t, secrets, blobs)
	t.Logf("%d shapes through add and ingest (and the ingest cut): %d leaked", len(secrets), leaked)
}
