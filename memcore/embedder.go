package memcore

import (
	"context"
	"fmt"
	"math"
	"sync/atomic"

	"github.com/odekmem/odekmem/internal/embed"
)

// Embedder turns texts into vectors for semantic search. An agent passes
// its own in Options.Embedder (package memcore/openai has one for any
// OpenAI-compatible /v1/embeddings endpoint); without one, memcore uses
// its offline feature-hashing embedder (768 dimensions, no weights, no
// network).
//
// memcore measures the rest itself: the width from the first vectors,
// where unrelated texts sit on the embedder's cosine scale (from the
// store's own vectors, so one min-score gate fits every model), and it
// normalises the vectors.
type Embedder interface {
	// Embed returns one vector per text, in order, all of one width. An
	// empty text may get the zero vector. It must be safe for concurrent
	// use; memcore calls it outside the store's locks, with the caller's
	// ctx.
	Embed(ctx context.Context, texts []string) ([][]float32, error)
	// Fingerprint names the model and everything that changes its vectors
	// (e.g. "http/nomic-embed-text/768"). The store's vector cache is
	// valid only under the fingerprint that wrote it: a new fingerprint
	// re-embeds every atom at the next open.
	Fingerprint() string
}

// NewHashEmbedder is the offline default embedder at another width: dims
// 0 means 768, the default, and a narrower width is ErrInvalidConfig.
// Feature hashing needs no weights and no network, and adding a text never
// changes another text's vector; a wider vector has fewer hash collisions
// and costs proportionally more memory and disk (the size cap counts the
// vector cache).
func NewHashEmbedder(dims int) (Embedder, error) {
	if dims == 0 {
		dims = embed.DefaultHashDims
	}
	if dims < embed.DefaultHashDims {
		return nil, fmt.Errorf("%w: embedding.dims = %d: the hash embedder needs at least %d", ErrInvalidConfig, dims, embed.DefaultHashDims)
	}
	return embed.NewHash(dims), nil
}

// indexEmbedder is the embedder as the index uses it: memcore's own hash
// embedder as it is, an agent's wrapped (agentEmbedder); nil means the
// offline default.
func indexEmbedder(e Embedder) embed.Embedder {
	if e == nil {
		return embed.NewHash(embed.DefaultHashDims)
	}
	if n, ok := e.(embed.Native); ok {
		return n
	}
	return &agentEmbedder{e: e}
}

// agentEmbedder adapts an agent's Embedder to the index: it checks and
// normalises what Embed returns, learns the width from it, and calibrates
// like any dense (neural) embedder, against the background the index
// measures on the store's vectors.
type agentEmbedder struct {
	e    Embedder
	dims atomic.Int64
}

func (a *agentEmbedder) Fingerprint() string { return a.e.Fingerprint() }
func (a *agentEmbedder) Dims() int           { return int(a.dims.Load()) }
func (a *agentEmbedder) Sparse() bool        { return false }
func (a *agentEmbedder) Calibrate(cos float32) float32 {
	return embed.DenseCalibrate(cos, embed.DenseBackgroundMean, embed.DenseBackgroundStd)
}

// Embed calls the agent's embedder and checks its answer: one vector per
// text, one width (the first one it ever returned), finite values. The
// vectors are copied and L2-normalised (a zero vector stays zero).
func (a *agentEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	vecs, err := a.e.Embed(ctx, texts)
	if err != nil {
		return nil, err
	}
	if len(vecs) != len(texts) {
		return nil, fmt.Errorf("embedder %s returned %d vectors for %d texts", a.e.Fingerprint(), len(vecs), len(texts))
	}
	out := make([][]float32, len(vecs))
	for i, v := range vecs {
		if len(v) == 0 {
			return nil, fmt.Errorf("embedder %s returned an empty vector", a.e.Fingerprint())
		}
		want := a.dims.Load()
		if want == 0 {
			a.dims.CompareAndSwap(0, int64(len(v)))
			want = a.dims.Load()
		}
		if int64(len(v)) != want {
			return nil, fmt.Errorf("embedder %s returned %d dimensions, expected %d", a.e.Fingerprint(), len(v), want)
		}
		c := make([]float32, len(v))
		for j, x := range v {
			if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
				return nil, fmt.Errorf("embedder %s returned a vector with a non-finite value", a.e.Fingerprint())
			}
			c[j] = x
		}
		out[i] = embed.Normalize(c)
	}
	return out, nil
}
