package cli_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/odekmem/odekmem/internal/cli"
	"github.com/odekmem/odekmem/internal/testcreds"
	"github.com/odekmem/odekmem/internal/testkit"
)

// TestEverySecretKindCLIAddAndIngest sends every synthetic credential kind,
// as written, split by zero-width characters and in fullwidth forms,
// through `odekmem add` and `odekmem ingest -` (one transcript line per
// credential), and proves no 8-character piece of a secret reaches the
// store, stdout or stderr.
func TestEverySecretKindCLIAddAndIngest(t *testing.T) {
	home := newHome(t)
	var secrets []string
	var transcript strings.Builder
	var echoed strings.Builder
	for _, c := range testcreds.Creds(5) {
		for _, v := range testcreds.Variants(c) {
			secrets = append(secrets, strings.ReplaceAll(v.Secret, "\n", ""))
			// Every secret through ingest (below); a process of add for
			// every third (each kind across the seeds), every one in make
			// soak. Wide variants pass 300 bytes, which add refuses rather
			// than cuts.
			if len(secrets)%3 == 1 || testkit.Soak() {
				r := run(t, home, "", "add", "deploy config: "+v.Text, "--memory-extended-atom-max-chars", "2000")
				if r.code != 0 && r.code != cli.ExitBlocked { // a credential blocks: the note waits in quarantine
					t.Fatalf("add %s/%s: %+v", c.Kind, v.Name, r)
				}
				echoed.WriteString(r.stdout + r.stderr)
			}
			line, _ := json.Marshal(map[string]any{"role": "user", "content": "we use this for staging: " + v.Text, "session": "s1"})
			transcript.Write(append(line, '\n'))
		}
	}
	r := run(t, home, transcript.String(), "ingest", "-", "--json")
	var sum struct{ Messages, Added, Quarantined int }
	if err := json.Unmarshal([]byte(r.stdout), &sum); err != nil || sum.Messages != len(secrets) || sum.Added+sum.Quarantined == 0 {
		t.Fatalf("ingest summary %q (%v): want %d messages and stored atoms", r.stdout, err, len(secrets))
	}
	if r.code != 0 {
		t.Fatalf("ingest: %+v", r)
	}
	echoed.WriteString(r.stdout + r.stderr)
	blobs := map[string]string{"stdout/stderr": echoed.String()}
	for p, b := range testcreds.Files(home) {
		blobs[p] = b
	}
	testcreds.NoLeaks(t, secrets, blobs)
}

// TestEverySecretKindAtTheIngestCut ingests a tool result line per
// credential kind with the secret across the 299-character cut of a
// stored line: the line is redacted whole before it is cut, so no piece of
// the secret reaches the store.
func TestEverySecretKindAtTheIngestCut(t *testing.T) {
	home := newHome(t)
	var secrets []string
	var transcript strings.Builder
	pad := strings.Repeat("build step ok. ", 40)
	for _, c := range testcreds.Creds(19) {
		secrets = append(secrets, strings.ReplaceAll(c.Secret, "\n", ""))
		cut := 299 - len(c.Text)/2
		line, _ := json.Marshal(map[string]any{"role": "tool", "content": pad[:max(0, cut-1)] + " " + c.Text + " then the job exited 0", "session": "s2"})
		transcript.Write(append(line, '\n'))
	}
	r := run(t, home, transcript.String(), "ingest", "-", "--json")
	if r.code != 0 {
		t.Fatalf("ingest: %+v", r)
	}
	blobs := map[string]string{"stdout/stderr": r.stdout + r.stderr}
	for p, b := range testcreds.Files(home) {
		blobs[p] = b
	}
	stored := false
	for name, b := range blobs {
		stored = stored || strings.HasSuffix(name, "quarantine.json") && strings.Contains(b, "build step ok")
		for _, s := range secrets {
			if l := testcreds.Leaks(b, s); l != "" {
				t.Errorf("%q survives in %s", l, name)
			}
		}
	}
	if !stored {
		t.Fatal("no tool line reached the quarantine")
	}
}
