package cli_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/odekmem/odekmem/internal/demo"
	"github.com/odekmem/odekmem/internal/testkit"
	"github.com/odekmem/odekmem/memcore"
)

// openDemoCopy opens a copy of the bundled demo store, re-dated to now.
func openDemoCopy(t *testing.T) *memcore.Store {
	t.Helper()
	dir := t.TempDir()
	testkit.CopyDir(t, "../../testdata/demo", dir)
	// As `odekmem demo` does: the copy is re-dated to now.
	if err := demo.Redate(dir, demo.Epoch, time.Now()); err != nil {
		t.Fatal(err)
	}
	st, err := memcore.Open(context.Background(), dir, memcore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close(context.Background()) })
	return st
}

// TestDemoJWTSigningKeysFindsTheDecision: in the demo store, "JWT signing
// keys" ranks the months-old Ed25519 decision first, both in search and in
// what the agent hook (the TUI's Recall pane) injects, ahead of recent
// intents that merely mention JWTs.
func TestDemoJWTSigningKeysFindsTheDecision(t *testing.T) {
	st := openDemoCopy(t)
	res, err := st.Search(context.Background(), "JWT signing keys", memcore.SearchOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res) == 0 || !strings.Contains(res[0].Atom.Text, "Ed25519") {
		for _, r := range res {
			t.Logf("%.3f sim %.3f ret %.3f %s", r.Composite, r.Sim, r.Retention, r.Atom.Text)
		}
		t.Fatal("the Ed25519 decision is not first for \"JWT signing keys\"")
	}
	if res[0].AgeDays < 30 {
		t.Fatalf("premise: the decision is %.0f days old", res[0].AgeDays)
	}
	tc := memcore.NewHook(st).BeforeTurn(context.Background(), memcore.Turn{Message: "JWT signing keys", SessionID: "odekmem-tui-preview"})
	atoms := tc.Memory.Atoms
	if len(atoms) == 0 || atoms[0].Atom.ID != res[0].Atom.ID {
		t.Fatalf("the hook's block does not start with the decision: %+v", atoms)
	}
}
