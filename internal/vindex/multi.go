package vindex

import (
	"slices"

	"github.com/odekmem/odekmem/internal/par"
)

// MultiSpec is one search of a multi-query pass: the query (an index into
// the weighted queries), how many hits and which ids it admits.
type MultiSpec struct {
	Query int
	K     int
	Allow func(id string) bool
}

// SearchWeightedMulti runs many searches in one pass over the rows: every
// row is scored once against each distinct weighted query (as returned by
// Query) and offered to every search of that query, each with its own k
// and filter. Result i is exactly what SearchWeighted(ws[spec.Query],
// spec.K, spec.Allow) returns for specs[i]. The pass is split across up to
// GOMAXPROCS goroutines for a large index; Allow functions must then be
// safe for concurrent use.
func (e *Exact) SearchWeightedMulti(ws [][]float32, specs []MultiSpec) ([][]Hit, error) {
	for _, w := range ws {
		if err := e.checkDims("query", len(w)); err != nil {
			return nil, err
		}
	}
	e.mu.RLock()
	defer e.mu.RUnlock()
	n := len(e.ids)
	out := make([][]Hit, len(specs))
	if n == 0 || len(specs) == 0 {
		return out, nil
	}
	if e.quantActive() {
		// One first pass per distinct query, shared by its searches.
		orders := make([]*quantPass, len(ws))
		for i, sp := range specs {
			if sp.K <= 0 || sp.Query < 0 || sp.Query >= len(ws) {
				continue
			}
			if orders[sp.Query] == nil {
				orders[sp.Query] = e.quantFirst(ws[sp.Query])
			}
			out[i] = e.hits(e.quantSearch(ws[sp.Query], sp.K, sp.Allow, orders[sp.Query]))
		}
		return out, nil
	}
	// Whole blocks of four rows per worker (scanRows scores four at once).
	chunks := par.Split(n, multiMinRowsPerWorker, 0, 4)
	workers := len(chunks)
	parts := make([][]topK, workers)
	for wi := range parts {
		heaps := make([]topK, len(specs))
		for i, sp := range specs {
			heaps[i] = topK{k: min(max(sp.K, 0), n)}
		}
		parts[wi] = heaps
	}
	par.Run(workers, func(wi int) { e.scanRows(ws, specs, parts[wi], chunks[wi][0], chunks[wi][1]) })
	for i, sp := range specs {
		if sp.K <= 0 {
			continue
		}
		var h topK
		if workers == 1 {
			h = parts[0][i]
		} else {
			// Offering the partial winners again in ascending row order
			// keeps exactly the top k by (score desc, row asc), as one
			// sequential pass would.
			var all []scored
			for _, p := range parts {
				all = append(all, p[i].items...)
			}
			slices.SortFunc(all, func(a, b scored) int { return int(a.row - b.row) })
			h = topK{k: min(sp.K, n), items: make([]scored, 0, min(sp.K, n))}
			for _, it := range all {
				if len(h.items) == h.k && it.s <= h.items[0].s {
					continue
				}
				h.push(it)
			}
		}
		items := h.sorted()
		hits := make([]Hit, len(items))
		for j, it := range items {
			hits[j] = Hit{ID: e.ids[it.row], Cosine: it.s}
		}
		out[i] = hits
	}
	return out, nil
}

// multiMinRowsPerWorker is the fewest rows worth a goroutine of their own.
const multiMinRowsPerWorker = 2048

// scanRows scores rows [lo, hi) against every query and offers them to the
// searches. lo is a multiple of four.
func (e *Exact) scanRows(ws [][]float32, specs []MultiSpec, heaps []topK, lo, hi int) {
	d := e.dims
	data := e.data
	fac := e.fac
	byQuery := make([][]int, len(ws))
	for i, sp := range specs {
		if sp.K > 0 && sp.Query >= 0 && sp.Query < len(ws) {
			byQuery[sp.Query] = append(byQuery[sp.Query], i)
		}
	}
	for i := range heaps {
		heaps[i].items = make([]scored, 0, heaps[i].k)
	}
	var s4 [4]float32
	r := lo
	for ; r+4 <= hi; r += 4 {
		f := fac[r : r+4 : r+4]
		for qi, w := range ws {
			if len(byQuery[qi]) == 0 {
				continue
			}
			dot4I8(w, data[r*d:], &s4)
			for j, s := range s4 {
				s *= f[j]
				for _, si := range byQuery[qi] {
					heaps[si].offer(s, r+j, e.ids, specs[si].Allow)
				}
			}
		}
	}
	for ; r < hi; r++ {
		for qi, w := range ws {
			if len(byQuery[qi]) == 0 {
				continue
			}
			s := e.rowCosine(w, r)
			for _, si := range byQuery[qi] {
				heaps[si].offer(s, r, e.ids, specs[si].Allow)
			}
		}
	}
}
