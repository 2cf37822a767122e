// Package vindex holds the in-memory retrieval indexes behind recall: Exact
// (the engine: exact cosine over a contiguous matrix of int8 rows, through
// a quantised first pass of binary codes once it holds DefaultQuantMin
// rows, quant.go), BM25 (an incremental lexical index, which can keep a
// snapshot's postings in place) and Hybrid (the union of the vector and
// lexical channels, scored on the calibrated similarity scale that the
// min-score gate and the composite ranking use).
//
// The vector cache file (vectors.odm) and the corpus hash of
// vectors_meta.json belong to internal/index, not to this package.
//
// Caveats: vectors are expected to be L2-normalised (Add normalises a copy
// of anything that is not). The opt-in HNSW index over github.com/coder/hnsw
// is retired: even with its layer search fixed it found 63% of the exact
// top 10 at 18k hash-embedded notes, four times slower than exact search,
// after minutes of building (BENCHMARKS.md); the kind "hnsw" is still
// accepted and means exact search.
package vindex

import "fmt"

// Hit is one vector search result.
type Hit struct {
	ID     string
	Cosine float32
}

// Index is what an index provides (Exact; the interface keeps callers
// independent of the engine).
type Index interface {
	// Add inserts or replaces id's vector. A vector of the wrong width is an
	// error.
	Add(id string, vec []float32) error
	// Remove deletes id and reports whether it was present.
	Remove(id string) bool
	// Search returns up to k hits by descending cosine among ids for which
	// allow (nil = all) returns true. A query of the wrong width is an
	// error.
	Search(q []float32, k int, allow func(id string) bool) ([]Hit, error)
	// Vector returns a copy of id's stored (normalised) vector.
	Vector(id string) ([]float32, bool)
	// Cosine returns the exact cosine between q (after any query-side
	// weighting the index applies) and id's stored vector.
	Cosine(q []float32, id string) (float32, bool)
	Len() int
	Dims() int
}

var _ Index = (*Exact)(nil)

// Kinds accepted by New: KindHNSW is the retired approximate index, now
// a name for exact search (configurations that chose it keep working).
const (
	KindExact = "exact"
	KindHNSW  = "hnsw"
)

// DefaultIDFPower is the default exponent of the query-side IDF weight.
const DefaultIDFPower = 4

// Options configure New.
type Options struct {
	// IDF enables query-side IDF weighting (for sparse embedders such as
	// feature hashing; see embed.Embedder.Sparse).
	IDF bool
	// IDFPower is the exponent on the query-side IDF weight (0 = default
	// DefaultIDFPower).
	IDFPower float64
	// QuantMin is the number of vectors from which exact search takes
	// the quantised first pass (quant.go); 0 means DefaultQuantMin,
	// negative never.
	QuantMin int
}

// New builds an empty index of the given kind ("exact" — the default when
// kind is empty — or the retired "hnsw", which is exact too) and width.
func New(kind string, dims int, opts Options) (Index, error) {
	if dims <= 0 {
		return nil, fmt.Errorf("vindex: dimension must be positive, got %d", dims)
	}
	switch kind {
	case "", KindExact, KindHNSW:
		return NewExact(dims, opts), nil
	}
	return nil, fmt.Errorf("vindex: unknown index kind %q (allowed: %q)", kind, KindExact)
}
