package memcore_test

import (
	"strings"
	"testing"

	"github.com/odekmem/odekmem/memcore"
)

func TestNewEmbedderProviders(t *testing.T) {
	for _, tc := range []struct {
		cfg  memcore.EmbeddingConfig
		fp   string
		fail bool
	}{
		{memcore.EmbeddingConfig{}, "hash/", false},
		{memcore.EmbeddingConfig{Provider: "hash", Dims: 1024}, "/1024", false},
		{memcore.EmbeddingConfig{Provider: "http", BaseURL: "http://127.0.0.1:1/v1", Model: "nomic-embed-text", Dims: 768}, "http/nomic-embed-text/768", false},
		{memcore.EmbeddingConfig{Provider: "hash", Dims: 64}, "", true},
		{memcore.EmbeddingConfig{Provider: "word2vec"}, "", true},
	} {
		e, err := memcore.NewEmbedder(tc.cfg)
		if tc.fail != (err != nil) {
			t.Fatalf("%+v: err %v", tc.cfg, err)
		}
		if err == nil && !strings.Contains(e.Fingerprint(), tc.fp) {
			t.Fatalf("%+v: fingerprint %s", tc.cfg, e.Fingerprint())
		}
	}
}
