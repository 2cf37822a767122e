package memcore_test

import (
	"strings"
	"testing"

	"github.com/odekmem/odekmem/memcore"
)

func TestNewLLMChoosesDedicatedThenSharedThenNone(t *testing.T) {
	s := memcore.Settings{Extended: memcore.DefaultConfig()}
	c, w, err := memcore.NewLLM(s)
	if err != nil || c != nil || w != "" {
		t.Fatalf("no model configured: %v %v %q", c, err, w)
	}
	s.Shared = memcore.LLMConfig{Model: "deep-thinker", BaseURL: "http://127.0.0.1:1/v1", Thinking: true}
	c, w, err = memcore.NewLLM(s)
	if err != nil || c == nil || !strings.Contains(w, "thinking") {
		t.Fatalf("shared thinking model: %v %v %q", c, err, w)
	}
	if _, w2, _ := memcore.NewLLM(s); w2 != "" {
		t.Fatalf("the thinking warning should be given once, got it again: %q", w2)
	}
	s.Extended.LLM = &memcore.LLMConfig{Model: "qwen2.5:7b", BaseURL: "http://127.0.0.1:1/v1"}
	c, w, err = memcore.NewLLM(s)
	if err != nil || c == nil || w != "" {
		t.Fatalf("dedicated model: %v %v %q", c, err, w)
	}
}

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
