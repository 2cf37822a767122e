// Package embed turns atom text into L2-normalised float32 vectors.
//
// Two embedders satisfy Embedder: Hash, an offline feature-hashing embedder
// that needs no weights and never refits (adding a document never changes
// another document's vector), and HTTP, a client for any OpenAI-compatible
// /v1/embeddings endpoint (OpenAI, Ollama's nomic-embed-text, llama.cpp, …).
//
// Raw cosines are not comparable across embedders: two related sentences
// score about 0.25 under feature hashing and about 0.7 under a neural model.
// Calibrate maps an embedder's raw cosine onto one common scale so that a
// single min-score gate (default 0.55) means "relevant" for every embedder.
package embed

import "context"

// Embedder produces document-side vectors.
type Embedder interface {
	// Fingerprint identifies the embedder and everything that changes its
	// output, e.g. "hash/1/768" or "http/nomic-embed-text/768". A stored
	// vector cache is valid only under the fingerprint that wrote it.
	Fingerprint() string
	// Dims is the vector width (0 for an HTTP embedder that has not yet
	// learned it from a response).
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

// DefaultMinScore is the default semantic_search_min_score: on the
// calibrated scale, a similarity at or above it means "relevant".
const DefaultMinScore = 0.55
