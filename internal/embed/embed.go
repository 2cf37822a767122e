// Package embed turns atom text into L2-normalised float32 vectors inside
// memcore: Hash, the offline feature-hashing embedder that needs no weights
// and never refits (adding a document never changes another document's
// vector), the tokeniser the lexical index shares with it, and the
// calibration that puts every embedder's cosine on one scale.
//
// Raw cosines are not comparable across embedders: two related sentences
// score about 0.25 under feature hashing and about 0.7 under a neural model.
// Calibrate maps an embedder's raw cosine onto one common scale so that a
// single min-score gate (default 0.55) means "relevant" for every embedder.
// An agent's embedder (memcore.Embedder: Embed and Fingerprint) gets the
// dense calibration below, re-measured by internal/index on the store's
// own vectors.
package embed

import "context"

// Embedder is what the index needs from an embedder: memcore's public
// Embedder (Embed, Fingerprint) plus what memcore decides about it itself.
type Embedder interface {
	// Fingerprint identifies the embedder and everything that changes its
	// output, e.g. "hash/1/768" or "http/nomic-embed-text/768". A stored
	// vector cache is valid only under the fingerprint that wrote it.
	Fingerprint() string
	// Dims is the vector width (0 while it is not known yet).
	Dims() int
	// Embed returns one L2-normalised vector per text, in order.
	Embed(ctx context.Context, texts []string) ([][]float32, error)
	// Calibrate maps this embedder's raw cosine onto the common similarity
	// scale. It is monotonic non-decreasing.
	Calibrate(cos float32) float32
	// Sparse reports whether vectors come from feature hashing, in which
	// case the index should apply query-side IDF.
	Sparse() bool
}

// Native is an Embedder of this package's own (Hash): memcore uses it as
// it is. Any other embedder an agent passes is wrapped instead, with its
// width measured and the dense calibration; the unexported method keeps
// types outside the module from claiming to be native.
type Native interface {
	Embedder
	native()
}

// DefaultMinScore is the default semantic_search_min_score: on the
// calibrated scale, a similarity at or above it means "relevant".
const DefaultMinScore = 0.55

// The prior background of a neural embedder: the mean and spread of the
// cosine between two unrelated texts. Models differ (unrelated pairs score
// about 0.1–0.2 under OpenAI's text-embedding-3 models and 0.35–0.45 under
// nomic-embed-text), which is why raw cosines cannot share one gate.
const (
	DenseBackgroundMean = 0.25
	DenseBackgroundStd  = 0.10
	// DenseEvidencePerSD is the evidence one standard deviation above the
	// background carries: two standard deviations (about the 98th
	// percentile of unrelated pairs) reach the 0.55 gate, the same place
	// the hash calibration puts it (the 93rd–99th percentile of unrelated
	// LoCoMo turns).
	DenseEvidencePerSD = 0.3993
)

// DenseCalibrate maps a neural cosine onto the common similarity scale:
// its distance above the background mean in background standard
// deviations, as evidence, through the common curve. An unrelated pair
// (at the background mean or below) scores 0, two deviations above it
// 0.55, a paraphrase (five or more above) 0.8 and more.
func DenseCalibrate(cos float32, mean, std float64) float32 {
	if !(std > 0) {
		std = DenseBackgroundStd
	}
	z := (float64(cos) - mean) / std
	return float32(SimilarityOf(max(z, 0) * DenseEvidencePerSD))
}
