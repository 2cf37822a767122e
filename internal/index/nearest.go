package index

import (
	"math"

	"github.com/odekmem/odekmem/internal/vindex"
)

// Nearest returns the live atom whose vector has the highest raw cosine
// with vec (a document vector), for write-time dedup. Candidates come from
// LSH, so an add does not scan every vector; a query whose buckets are
// crowded falls back to a full search.
func (v *State) Nearest(vec []float32) (string, float32) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.idx == nil || v.idx.Len() == 0 || len(vec) != v.idx.Dims() {
		return "", 0
	}
	if v.lsh == nil {
		v.lsh = NewLSH(v.idx.Dims())
		v.qmu.Lock()
		if v.qv == nil {
			v.qv = map[string][]byte{}
		}
		dims := v.idx.Dims()
		for id := range v.texts {
			if raw := v.qv[id]; len(raw) == 4+dims {
				// The int8 form orders coordinates as the vector does.
				v.lsh.AddRaw(id, raw)
				continue
			}
			if d, ok := v.idx.Vector(id); ok {
				v.lsh.Add(id, d)
				v.qv[id] = EncodeQuantized(d)
			}
		}
		v.qmu.Unlock()
	}
	cands := v.lsh.Candidates(vec)
	if len(cands) > MaxCandidates {
		cands = cands[:0]
		hits, err := v.idx.Search(vec, 5, nil)
		if err != nil {
			return "", 0
		}
		for _, h := range hits {
			cands = append(cands, h.ID)
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
	var misses []string
	v.qmu.Lock()
	for _, id := range cands {
		// The cached int8 form gives the cosine of the stored vector (the
		// dequantised, renormalised one) without copying it.
		b := v.qv[id]
		if len(b) != 4+len(vec) {
			misses = append(misses, id)
			continue
		}
		var dot, nq float32
		for i, x := range b[4:] {
			f := float32(int8(x))
			dot += f * vec[i]
			nq += f * f
		}
		if nq == 0 {
			continue
		}
		if c := dot / float32(math.Sqrt(float64(nq))); c > bestCos {
			best, bestCos = id, c
		}
	}
	v.qmu.Unlock()
	for _, id := range misses {
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
