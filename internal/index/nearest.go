package index

import (
	"github.com/odekmem/odekmem/internal/vindex"
)

// lshAfter is how many Nearest calls a State answers by searching the
// index before it builds the LSH: a process that adds one atom (the agent
// hook) must not hash every stored vector for it; an import or an ingest
// of many should.
const lshAfter = 16

// Nearest returns the live atom whose vector has the highest raw cosine
// with vec (a document vector), for write-time dedup. After the first few
// calls candidates come from LSH, so an add does not scan every vector; a
// query whose buckets are crowded falls back to a search of the index.
func (v *State) Nearest(vec []float32) (string, float32) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.idx == nil || v.idx.Len() == 0 || len(vec) != v.idx.Dims() {
		return "", 0
	}
	var cands []string
	if v.lsh == nil && v.nearests < lshAfter {
		v.nearests++
		cands = v.searchCandidatesLocked(vec)
	} else {
		if v.lsh == nil {
			v.buildLSHLocked()
		}
		cands = v.lsh.Candidates(vec)
		if len(cands) > MaxCandidates {
			cands = v.searchCandidatesLocked(vec)
		}
	}
	best, bestCos := "", float32(-2)
	if ex, ok := v.idx.(*vindex.Exact); ok {
		// The stored (dequantised, renormalised) vectors' cosines, with
		// the index's SIMD kernel.
		cos := make([]float32, len(cands))
		found := make([]bool, len(cands))
		ex.CosinesWeighted(vec, cands, cos, found)
		for i, id := range cands {
			if found[i] && cos[i] > bestCos {
				best, bestCos = id, cos[i]
			}
		}
		return best, bestCos
	}
	for _, id := range cands {
		d, ok := v.idx.Vector(id)
		if !ok {
			continue
		}
		var c float32
		for i := range d {
			c += d[i] * vec[i]
		}
		if c > bestCos {
			best, bestCos = id, c
		}
	}
	return best, bestCos
}

// searchCandidatesLocked asks the index for the nearest stored vectors by
// raw cosine (no query-side weighting: vec is a document vector).
func (v *State) searchCandidatesLocked(vec []float32) []string {
	var hits []vindex.Hit
	if ex, ok := v.idx.(*vindex.Exact); ok {
		hits, _ = ex.SearchWeighted(vec, 5, nil)
	} else {
		hits, _ = v.idx.Search(vec, 5, nil)
	}
	out := make([]string, len(hits))
	for i, h := range hits {
		out[i] = h.ID
	}
	return out
}

// buildLSHLocked hashes every indexed vector (an exact index's int8 rows
// as they are).
func (v *State) buildLSHLocked() {
	dims := v.idx.Dims()
	v.lsh = NewLSH(dims)
	if ex, ok := v.idx.(*vindex.Exact); ok {
		ex.Export(func(ids []string, rows []int8, _ []float32, _ []int32, _ []uint64) {
			v.lsh.AddRows(ids, rows, dims)
		})
		return
	}
	for id := range v.textsMap() {
		if d, ok := v.idx.Vector(id); ok {
			v.lsh.Add(id, d)
		}
	}
}
