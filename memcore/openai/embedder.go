package openai

import (
	"container/list"
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"

	"github.com/odekmem/odekmem/internal/embed"
)

// EmbedderConfig configures NewEmbedder. Nothing is read from OPENAI_*
// environment variables.
type EmbedderConfig struct {
	// BaseURL of the API, e.g. "http://localhost:11434/v1" (Ollama) or
	// "https://api.openai.com/v1". A URL with no path gets "/v1".
	BaseURL string
	// APIKey is sent as a bearer token ("unused" when empty: local servers
	// ignore it).
	APIKey string
	// Model, e.g. "nomic-embed-text".
	Model string
	// Dims is the expected width; 0 learns it from the first response.
	Dims int
	// BatchSize is the number of texts per request (default 64).
	BatchSize int
	// CacheSize bounds the LRU cache of vectors keyed by text (default 4096;
	// negative disables the cache).
	CacheSize int
	// Timeout bounds each Embed call (default 30s).
	Timeout time.Duration
	// HTTPClient is optional.
	HTTPClient *http.Client
	// MaxRetries for transient failures (default 0).
	MaxRetries int
}

// Embedder is a memcore.Embedder over an OpenAI-compatible POST
// /v1/embeddings. Everything comes from EmbedderConfig. It is safe for
// concurrent use.
type Embedder struct {
	cfg  EmbedderConfig
	base string
	svc  openai.EmbeddingService

	mu    sync.Mutex
	dims  int
	cache *lru
}

// NewEmbedder validates cfg and returns the embedder. It does not contact
// the endpoint.
func NewEmbedder(cfg EmbedderConfig) (*Embedder, error) {
	if cfg.Model == "" {
		return nil, errors.New("openai: embedder needs a model")
	}
	if cfg.BaseURL == "" {
		return nil, errors.New("openai: embedder needs a base URL")
	}
	u, err := url.Parse(cfg.BaseURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("openai: invalid embedding base URL %q", cfg.BaseURL)
	}
	if u.Path == "" || u.Path == "/" {
		u.Path = "/v1"
	}
	if cfg.Dims < 0 {
		return nil, fmt.Errorf("openai: negative embedding dimension %d", cfg.Dims)
	}
	if cfg.BatchSize <= 0 {
		cfg.BatchSize = 64
	}
	if cfg.CacheSize == 0 {
		cfg.CacheSize = 4096
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = 30 * time.Second
	}
	hc := cfg.HTTPClient
	if hc == nil {
		hc = &http.Client{}
	}
	key := cfg.APIKey
	if key == "" {
		key = "unused"
	}
	h := &Embedder{cfg: cfg, base: u.String(), dims: cfg.Dims}
	// NewEmbeddingService (unlike openai.NewClient) applies only the
	// options given here: no environment defaults.
	h.svc = openai.NewEmbeddingService(
		option.WithBaseURL(h.base),
		option.WithAPIKey(key),
		option.WithHTTPClient(hc),
		option.WithMaxRetries(max(cfg.MaxRetries, 0)),
	)
	if cfg.CacheSize > 0 {
		h.cache = newLRU(cfg.CacheSize)
	}
	return h, nil
}

// Fingerprint is "http/<model>/<dims>" (dims 0 until learned when
// EmbedderConfig.Dims is 0).
func (h *Embedder) Fingerprint() string { return fmt.Sprintf("http/%s/%d", h.cfg.Model, h.width()) }

// width is the vector width: the configured one, else the one learned
// from the first response (0 before it).
func (h *Embedder) width() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.dims
}

// Embed returns one L2-normalised vector per text, in order: cached texts
// are served from the LRU, the rest are sent in batches of BatchSize, the
// whole call bounded by Timeout. An empty text gets the zero vector.
func (h *Embedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	var missing []int // indexes into texts, first occurrence of each text
	first := make(map[string]int)
	var empty []int
	for i, t := range texts {
		if strings.TrimSpace(t) == "" {
			// OpenAI-compatible servers reject empty input; an empty text
			// has no meaning to embed. It gets the zero vector.
			empty = append(empty, i)
			continue
		}
		if v, ok := h.cacheGet(t); ok {
			out[i] = v
			continue
		}
		if _, dup := first[t]; !dup {
			first[t] = i
			missing = append(missing, i)
		}
	}
	if len(missing) > 0 {
		ctx, cancel := context.WithTimeout(ctx, h.cfg.Timeout)
		defer cancel()
		for start := 0; start < len(missing); start += h.cfg.BatchSize {
			batch := missing[start:min(start+h.cfg.BatchSize, len(missing))]
			in := make([]string, len(batch))
			for j, i := range batch {
				in[j] = texts[i]
			}
			vecs, err := h.request(ctx, in)
			if err != nil {
				return nil, err
			}
			for j, i := range batch {
				out[i] = vecs[j]
				h.cachePut(texts[i], vecs[j])
			}
		}
	}
	if len(empty) > 0 {
		d := h.width()
		if d == 0 {
			return nil, fmt.Errorf("embedding model %s at %s: cannot embed empty text before the dimension is known", h.cfg.Model, h.base)
		}
		for _, i := range empty {
			out[i] = make([]float32, d)
		}
	}
	for i, t := range texts {
		if out[i] == nil {
			out[i] = out[first[t]]
		}
	}
	// Callers own their vectors: never hand out the cached slice itself.
	for i := range out {
		out[i] = append([]float32(nil), out[i]...)
	}
	return out, nil
}

func (h *Embedder) request(ctx context.Context, in []string) ([][]float32, error) {
	res, err := h.svc.New(ctx, openai.EmbeddingNewParams{
		Model:          openai.EmbeddingModel(h.cfg.Model),
		Input:          openai.EmbeddingNewParamsInputUnion{OfArrayOfStrings: in},
		EncodingFormat: openai.EmbeddingNewParamsEncodingFormatFloat,
	})
	if err != nil {
		return nil, h.wrapErr(ctx, err)
	}
	if len(res.Data) != len(in) {
		return nil, fmt.Errorf("embedding model %s at %s returned %d vectors for %d inputs", h.cfg.Model, h.base, len(res.Data), len(in))
	}
	vecs := make([][]float32, len(in))
	for _, d := range res.Data {
		if d.Index < 0 || int(d.Index) >= len(in) || vecs[d.Index] != nil {
			return nil, fmt.Errorf("embedding model %s at %s returned an invalid or duplicate index %d", h.cfg.Model, h.base, d.Index)
		}
		v := make([]float32, len(d.Embedding))
		for i, x := range d.Embedding {
			v[i] = float32(x)
		}
		vecs[d.Index] = embed.Normalize(v)
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, v := range vecs {
		if h.dims == 0 {
			if len(v) == 0 {
				return nil, fmt.Errorf("embedding model %s at %s returned an empty vector", h.cfg.Model, h.base)
			}
			h.dims = len(v)
		}
		if len(v) != h.dims {
			return nil, fmt.Errorf("embedding model %s at %s returned %d dimensions, expected %d", h.cfg.Model, h.base, len(v), h.dims)
		}
	}
	return vecs, nil
}

func (h *Embedder) wrapErr(ctx context.Context, err error) error {
	var apiErr *openai.Error
	if errors.As(err, &apiErr) {
		msg := strings.TrimSpace(apiErr.Message)
		if msg == "" {
			msg = http.StatusText(apiErr.StatusCode)
		}
		return fmt.Errorf("embedding endpoint %s returned HTTP %d for model %s: %s", h.base, apiErr.StatusCode, h.cfg.Model, msg)
	}
	if errors.Is(err, context.DeadlineExceeded) || ctx.Err() == context.DeadlineExceeded {
		return fmt.Errorf("embedding endpoint %s timed out after %s: %w", h.base, h.cfg.Timeout, err)
	}
	if errors.Is(err, context.Canceled) {
		return fmt.Errorf("embedding request to %s cancelled: %w", h.base, err)
	}
	var opErr *net.OpError
	var dnsErr *net.DNSError
	if errors.As(err, &opErr) || errors.As(err, &dnsErr) {
		return fmt.Errorf("embedding endpoint %s unreachable: %w", h.base, err)
	}
	return fmt.Errorf("embedding endpoint %s: %w", h.base, err)
}

func (h *Embedder) cacheGet(t string) ([]float32, bool) {
	if h.cache == nil {
		return nil, false
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.cache.get(t)
}

func (h *Embedder) cachePut(t string, v []float32) {
	if h.cache == nil {
		return
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	h.cache.put(t, v)
}

// lru is a bounded least-recently-used map (not itself locked).
type lru struct {
	cap   int
	ll    *list.List
	items map[string]*list.Element
}

type lruEntry struct {
	key string
	val []float32
}

func newLRU(n int) *lru { return &lru{cap: n, ll: list.New(), items: make(map[string]*list.Element)} }

func (c *lru) get(k string) ([]float32, bool) {
	e, ok := c.items[k]
	if !ok {
		return nil, false
	}
	c.ll.MoveToFront(e)
	return e.Value.(*lruEntry).val, true
}

func (c *lru) put(k string, v []float32) {
	if e, ok := c.items[k]; ok {
		e.Value.(*lruEntry).val = v
		c.ll.MoveToFront(e)
		return
	}
	c.items[k] = c.ll.PushFront(&lruEntry{k, v})
	for c.ll.Len() > c.cap {
		old := c.ll.Back()
		c.ll.Remove(old)
		delete(c.items, old.Value.(*lruEntry).key)
	}
}

func (c *lru) len() int { return c.ll.Len() }
