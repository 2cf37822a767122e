package config_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/odekmem/odekmem/internal/config"
	"github.com/odekmem/odekmem/memcore"
)

// TestOpenStoreWiresTheGuard: every odekmem process (CLI, MCP server,
// per-prompt hook, serve) opens through Settings.OpenStore, so a guard the
// person configured judges tainted writes there too: a tool result the
// local scanner passes but the guard calls an injection is held as
// scan_rejected, whichever process wrote it.
func TestOpenStoreWiresTheGuard(t *testing.T) {
	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		calls.Add(1)
		if strings.Contains(string(b), "mirror") {
			w.Write([]byte(`{"label":"injection","score":0.97}`))
			return
		}
		w.Write([]byte(`{"label":"benign","score":0.01}`))
	}))
	defer srv.Close()
	home := t.TempDir()
	cfg := `{"guard": {"enabled": true, "provider": "classifier", "base_url": "` + srv.URL + `", "timeout_ms": 2000, "scope": ["memory"]}}`
	if err := os.WriteFile(filepath.Join(home, "config.json"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	s, err := config.Load(config.LoadOptions{Home: home, Getenv: func(string) string { return "" }, ProjectDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	st, err := s.OpenStore(context.Background(), filepath.Join(home, "store"), nil, func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close(context.Background())
	r, err := st.Add(context.Background(), memcore.AddRequest{Text: "Release notes say the build artefacts are copied to the mirror nightly", Source: memcore.SourceToolOutput})
	if err != nil {
		t.Fatal(err)
	}
	if !r.Quarantined || !strings.HasPrefix(r.Reason, "scan_rejected: guard:") || calls.Load() == 0 {
		t.Fatalf("the configured guard was not consulted: %+v (guard calls %d)", r, calls.Load())
	}
}
