// Package vindex holds the in-memory retrieval indexes behind recall: Exact
// (the engine of record: exact cosine over a contiguous normalised float32
// matrix), HNSW (an opt-in approximate index over github.com/coder/hnsw,
// wrapped so it cannot panic and re-ranked exactly), BM25 (an incremental
// lexical index) and Hybrid (the union of the vector and lexical channels,
// scored on the calibrated similarity scale that the min-score gate and
// the composite ranking use).
//
// The vector cache file (vectors.odm) and the corpus hash of
// vectors_meta.json belong to the store (memcore/vectors.go), not to this
// package.
//
// Caveats: vectors are expected to be L2-normalised (Add normalises a copy
// of anything that is not); HNSW recall against exact search is measured by
// BenchmarkHNSWSearch and is low for coder/hnsw v0.6.1, which is why Exact
// is the default.
package vindex

import (
	"fmt"
	"sort"
)

// Hit is one vector search result.
type Hit struct {
	ID     string
	Cosine float32
}

// Index is what both Exact and HNSW provide.
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

var (
	_ Index = (*Exact)(nil)
	_ Index = (*HNSW)(nil)
)

// Kinds accepted by New.
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
	// HNSW tuning (0 = defaults). Ignored by exact.
	M        int
	EfSearch int
}

// New builds an empty index of the given kind ("exact" — the default when
// kind is empty — or "hnsw") and width.
func New(kind string, dims int, opts Options) (Index, error) {
	if dims <= 0 {
		return nil, fmt.Errorf("vindex: dimension must be positive, got %d", dims)
	}
	switch kind {
	case "", KindExact:
		return NewExact(dims, opts), nil
	case KindHNSW:
		return NewHNSW(dims, opts), nil
	}
	kinds := []string{KindExact, KindHNSW}
	sort.Strings(kinds)
	return nil, fmt.Errorf("vindex: unknown index kind %q (allowed: %q, %q)", kind, kinds[0], kinds[1])
}
