package index

import (
	"math"
	"sync"
	"sync/atomic"

	"github.com/odekmem/odekmem/internal/embed"
	"github.com/odekmem/odekmem/internal/vindex"
)

// denseBackground is the cosine between unrelated atoms of this store under
// a neural embedder, measured over pairs of stored vectors: where
// "unrelated" sits is a property of the model, so the calibration of a
// dense embedder is measured on the store's own vectors instead of being
// assumed (the hash embedder's is fixed: see embed.Hash.Calibrate).
type denseBackground struct {
	mean, std float64
	n         int // index size it was measured at
}

// minBackgroundAtoms is the store size from which the background is
// measured; below it the embedder's prior (embed.DenseBackgroundMean/Std)
// is used.
const minBackgroundAtoms = 64

// backgroundPairs is how many pairs of stored vectors are sampled.
const backgroundPairs = 2048

type calibrator struct {
	emb embed.Embedder
	bg  atomic.Pointer[denseBackground]
	mu  sync.Mutex
}

// cal is the vector channel's calibration: the embedder's own for a sparse
// embedder, the dense calibration against the measured background
// otherwise.
func (c *calibrator) cal(cos float32) float32 {
	if c.emb.Sparse() {
		return c.emb.Calibrate(cos)
	}
	b := c.bg.Load()
	if b == nil {
		return c.emb.Calibrate(cos)
	}
	return embed.DenseCalibrate(cos, b.mean, b.std)
}

// measure re-measures the background when the index has at least
// minBackgroundAtoms vectors and has grown by half since the last
// measurement (or shrunk by half). The sample is deterministic: the same
// rows give the same background in every process.
func (c *calibrator) measure(idx vindex.Index) {
	if c.emb.Sparse() || idx == nil {
		return
	}
	n := idx.Len()
	if b := c.bg.Load(); n < minBackgroundAtoms || b != nil && n < b.n*3/2 && n > b.n/2 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if b := c.bg.Load(); b != nil && n < b.n*3/2 && n > b.n/2 {
		return
	}
	ex, ok := idx.(*vindex.Exact)
	if !ok {
		return // the approximate index keeps the prior
	}
	mean, std, ok := ex.PairStats(backgroundPairs)
	if !ok || !(std > 0) || math.IsNaN(mean) {
		return
	}
	// A floor on the spread: a store of near-identical atoms must not turn
	// a tiny difference into many deviations.
	std = max(std, 0.02)
	c.bg.Store(&denseBackground{mean: mean, std: std, n: n})
}
