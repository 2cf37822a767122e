//go:build !windows

package vindex

import (
	"fmt"
	"math/rand"
	"sort"
	"sync"

	"github.com/coder/hnsw"
)

// HNSW is an opt-in approximate index over github.com/coder/hnsw v0.6.1,
// wrapped against that version's sharp edges (NOTES.md, "Index and
// embeddings"):
//
//   - the library has no locking: every call into it holds h.mu;
//   - re-adding a key panics: a replaced id is never re-added; its graph
//     entry becomes stale (skipped) and the new vector is scored exactly
//     until the next rebuild;
//   - searching after Delete panics: Delete is never called; removed ids
//     are stale too, and the graph is rebuilt from the stored vectors once
//     stale entries exceed a tenth of the graph;
//   - any panic from the library is recovered, turned into an error
//     (LastError), the graph is marked for rebuild and the search falls
//     back to exact;
//   - dimension mismatches are errors, checked before the library sees
//     them.
//
// Candidates are re-ranked exactly: the graph is asked for max(4k, 40)
// neighbours and each is rescored by exact cosine against the stored
// vector, so every returned Cosine equals Exact's. Vectors live in an
// embedded Exact, which is also the fallback.
type HNSW struct {
	exact *Exact

	mu      sync.Mutex
	m, ef   int
	graph   *hnsw.Graph[string]
	inGraph int             // nodes in graph
	stale   map[string]bool // graph entries that must be skipped
	extra   map[string]bool // stored ids with no valid graph entry
	rebuild bool
	lastErr error
}

// NewHNSW returns an empty HNSW index (opts.M default 16, opts.EfSearch
// default 100).
func NewHNSW(dims int, opts Options) *HNSW {
	h := &HNSW{exact: NewExact(dims, opts), m: opts.M, ef: opts.EfSearch}
	if h.m <= 0 {
		h.m = 16
	}
	if h.ef <= 0 {
		h.ef = 100
	}
	h.reset()
	return h
}

func (h *HNSW) reset() {
	g := hnsw.NewGraph[string]()
	g.M = h.m
	g.EfSearch = h.ef
	g.Distance = hnsw.CosineDistance
	g.Rng = rand.New(rand.NewSource(1))
	h.graph = g
	h.inGraph = 0
	h.stale = map[string]bool{}
	h.extra = map[string]bool{}
	h.rebuild = false
}

// safely runs f, turning a panic from the library into an error.
func safely(what string, f func()) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("vindex: hnsw %s panicked: %v", what, r)
		}
	}()
	f()
	return nil
}

// Dims returns the vector width.
func (h *HNSW) Dims() int { return h.exact.Dims() }

// Len returns the number of stored vectors.
func (h *HNSW) Len() int { return h.exact.Len() }

// Vector returns a copy of id's stored vector.
func (h *HNSW) Vector(id string) ([]float32, bool) { return h.exact.Vector(id) }

// Cosine returns the exact cosine between the (weighted) query and id.
func (h *HNSW) Cosine(q []float32, id string) (float32, bool) { return h.exact.Cosine(q, id) }

// LastError returns the last error recovered from the library (nil if
// none).
func (h *HNSW) LastError() error {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.lastErr
}

// Add stores id's vector and inserts it into the graph, or, if id is
// already stored, replaces the vector without touching the graph.
func (h *HNSW) Add(id string, vec []float32) error {
	if err := h.exact.checkDims("vector for "+quoteID(id), len(vec)); err != nil {
		return err
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	existed := h.exact.Has(id)
	if err := h.exact.Add(id, vec); err != nil {
		return err
	}
	if existed || h.stale[id] {
		// Either the graph holds an old vector under id or (after a
		// Remove) a dead entry: coder/hnsw cannot take the key again.
		h.stale[id] = true
		h.extra[id] = true
		h.maybeRebuild()
		return nil
	}
	if h.rebuild {
		h.extra[id] = true
		return nil
	}
	v, _ := h.exact.Vector(id)
	if err := safely("add", func() { h.graph.Add(hnsw.MakeNode(id, v)) }); err != nil {
		h.lastErr = err
		h.rebuild = true
		h.extra[id] = true
		return nil
	}
	h.inGraph++
	return nil
}

// Remove deletes id and reports whether it was present.
func (h *HNSW) Remove(id string) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	if !h.exact.Remove(id) {
		return false
	}
	delete(h.extra, id)
	h.stale[id] = true
	h.maybeRebuild()
	return true
}

func (h *HNSW) maybeRebuild() {
	if len(h.stale) > max(64, h.inGraph/10) || len(h.extra) > max(64, h.inGraph/10) {
		h.rebuild = true
	}
}

// rebuildLocked builds a fresh graph from the stored vectors.
func (h *HNSW) rebuildLocked() error {
	h.reset()
	e := h.exact
	e.mu.RLock()
	nodes := make([]hnsw.Node[string], len(e.ids))
	for r, id := range e.ids {
		nodes[r] = hnsw.MakeNode(id, e.rowVector(make([]float32, 0, e.dims), r))
	}
	e.mu.RUnlock()
	err := safely("rebuild", func() {
		for _, n := range nodes {
			h.graph.Add(n)
			h.inGraph++
		}
	})
	if err != nil {
		h.lastErr = err
		h.reset()
		h.rebuild = true
	}
	return err
}

// Search returns up to k hits by exact cosine among the graph's
// approximate neighbours (plus ids not yet in the graph), filtered by
// allow. If the library fails, or allow leaves fewer than k hits while more
// vectors are stored, it falls back to exact search.
func (h *HNSW) Search(q []float32, k int, allow func(id string) bool) ([]Hit, error) {
	w, err := h.exact.Query(q)
	if err != nil {
		return nil, err
	}
	if k <= 0 {
		return nil, nil
	}
	h.mu.Lock()
	if h.rebuild {
		if err := h.rebuildLocked(); err != nil {
			h.mu.Unlock()
			return h.exact.SearchWeighted(w, k, allow)
		}
	}
	var nodes []hnsw.Node[string]
	if h.inGraph > 0 {
		err = safely("search", func() { nodes = h.graph.Search(w, max(4*k, 40)) })
	}
	if err != nil {
		h.lastErr = err
		h.rebuild = true
		h.mu.Unlock()
		return h.exact.SearchWeighted(w, k, allow)
	}
	cand := make([]string, 0, len(nodes)+len(h.extra))
	for _, n := range nodes {
		if !h.stale[n.Key] {
			cand = append(cand, n.Key)
		}
	}
	for id := range h.extra {
		cand = append(cand, id)
	}
	h.mu.Unlock()

	hits := make([]Hit, 0, len(cand))
	for _, id := range cand {
		if allow != nil && !allow(id) {
			continue
		}
		if c, ok := h.exact.CosineWeighted(w, id); ok {
			hits = append(hits, Hit{ID: id, Cosine: c})
		}
	}
	if len(hits) < k && h.exact.Len() > len(hits) {
		return h.exact.SearchWeighted(w, k, allow)
	}
	sort.Slice(hits, func(i, j int) bool {
		if hits[i].Cosine != hits[j].Cosine {
			return hits[i].Cosine > hits[j].Cosine
		}
		return hits[i].ID < hits[j].ID
	})
	if len(hits) > k {
		hits = hits[:k]
	}
	return hits, nil
}

// Export is Exact.Export of the stored vectors (the graph is rebuilt from
// them).
func (h *HNSW) Export(fn func(ids []string, rows []int8, facs []float32, df []int32, codes []uint64)) {
	h.exact.Export(fn)
}
