package config_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/odekmem/odekmem/internal/config"
)

func TestGuardSectionLoaded(t *testing.T) {
	home := t.TempDir()
	write := func(s string) {
		if err := os.WriteFile(filepath.Join(home, "config.json"), []byte(s), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write(`{"guard": {"enabled": true, "provider": "classifier", "base_url": "http://127.0.0.1:9/classify", "timeout_ms": 500, "scope": ["memory"]}}`)
	s, err := config.Load(config.LoadOptions{Home: home, Getenv: func(string) string { return "" }, ProjectDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	if !s.Guard.CoversMemory() || s.Guard.Provider != "classifier" || s.Guard.TimeoutMS != 500 {
		t.Fatalf("guard section: %+v", s.Guard)
	}
	write(`{"guard": {"enabled": true, "provider": "classifier", "base_url": "http://x", "timeout": 5}}`)
	if _, err := config.Load(config.LoadOptions{Home: home, Getenv: func(string) string { return "" }, ProjectDir: t.TempDir()}); err == nil || !strings.Contains(err.Error(), "timeout") {
		t.Fatalf("unknown guard key accepted: %v", err)
	}
	write(`{"guard": {"enabled": true, "provider": "sidecar", "base_url": "http://x"}}`)
	if _, err := config.Load(config.LoadOptions{Home: home, Getenv: func(string) string { return "" }, ProjectDir: t.TempDir()}); err == nil || !strings.Contains(err.Error(), "provider") {
		t.Fatalf("bad provider accepted: %v", err)
	}
}
