package memcore

import (
	"fmt"
	"sync"
	"time"

	"github.com/odekmem/odekmem/memcore/embed"
	"github.com/odekmem/odekmem/memcore/llm"
)

// NewEmbedder builds the embedder a configuration names: "hash" (or empty,
// or "local") is the offline default; "http", "openai" and "ollama" use an
// OpenAI-compatible /v1/embeddings endpoint.
func NewEmbedder(c EmbeddingConfig) (Embedder, error) {
	switch c.Provider {
	case "", "hash", "local":
		dims := c.Dims
		if dims == 0 {
			dims = 768
		}
		if dims < 768 {
			return nil, fmt.Errorf("%w: embedding.dims = %d: the hash embedder needs at least 768", ErrInvalidConfig, dims)
		}
		return embed.NewHash(dims), nil
	case "http", "openai", "ollama":
		base := c.BaseURL
		if base == "" {
			base = "http://localhost:11434/v1"
		}
		h, err := embed.NewHTTP(embed.HTTPConfig{BaseURL: base, APIKey: c.APIKey, Model: c.Model, Dims: c.Dims, Timeout: 30 * time.Second})
		if err != nil {
			return nil, fmt.Errorf("embedding config: %w", err)
		}
		return h, nil
	}
	return nil, fmt.Errorf("%w: embedding.provider = %q: allowed \"hash\", \"http\", \"openai\" or \"ollama\"", ErrInvalidConfig, c.Provider)
}

// NewLLM builds the memory LLM: the dedicated memory.extended.llm when set,
// otherwise the shared top-level model, otherwise nil (rule-based
// fallbacks). The warning is non-empty when the shared model has thinking
// enabled and no dedicated memory LLM is set.
func NewLLM(s Settings) (LLMClient, string, error) {
	if l := s.Extended.LLM; l != nil && l.Model != "" {
		c, err := llm.NewOpenAI(llmConfig(*l))
		if err != nil {
			return nil, "", fmt.Errorf("memory.extended.llm: %w", err)
		}
		return c, "", nil
	}
	if s.Shared.Model != "" && s.Shared.BaseURL != "" {
		cfg := llmConfig(s.Shared)
		c, err := llm.NewOpenAI(cfg)
		if err != nil {
			return nil, "", fmt.Errorf("shared model: %w", err)
		}
		return c, warnOnce(llm.ThinkingWarning(cfg, false)), nil
	}
	return nil, "", nil
}

var warned sync.Map

// warnOnce returns w the first time it is seen in this process, "" after.
func warnOnce(w string) string {
	if w == "" {
		return ""
	}
	if _, loaded := warned.LoadOrStore(w, true); loaded {
		return ""
	}
	return w
}

func llmConfig(l LLMConfig) llm.Config {
	return llm.Config{BaseURL: l.BaseURL, APIKey: l.APIKey, Model: l.Model, MaxTokens: l.MaxTokens, Temperature: l.Temperature, TimeoutSeconds: l.TimeoutSeconds, Thinking: l.Thinking}
}
