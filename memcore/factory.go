package memcore

import (
	"fmt"
	"time"

	"github.com/odekmem/odekmem/memcore/embed"
	"github.com/odekmem/odekmem/memcore/openai"
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

// newLLM builds the memory LLM a configuration names (an OpenAI-compatible
// chat endpoint); both the model and the base URL are required.
func newLLM(c LLMConfig) (LLMClient, error) {
	cl, err := openai.NewChat(openai.ChatConfig{BaseURL: c.BaseURL, APIKey: c.APIKey, Model: c.Model, MaxTokens: c.MaxTokens,
		Temperature: c.Temperature, Timeout: time.Duration(c.TimeoutSeconds) * time.Second})
	if err != nil {
		return nil, fmt.Errorf("%w: memory.extended.llm: %v", ErrInvalidConfig, err)
	}
	return cl, nil
}
