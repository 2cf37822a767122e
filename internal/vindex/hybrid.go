package vindex

import (
	"math"
	"sort"

	"github.com/odekmem/odekmem/internal/embed"
)

// Candidate is one recall candidate from Hybrid.
type Candidate struct {
	ID string
	// Cosine is the raw cosine between the (index-weighted) query and the
	// stored vector, computed exactly for every candidate.
	Cosine float32
	// Sim is the calibrated similarity used for the min-score gate and the
	// composite ranking: see Hybrid.
	Sim float32
	// VecSim is the calibrated similarity of the vector channel alone.
	VecSim float32
	// Lex is the BM25 score normalised by the query's saturation bound, in
	// [0, 1) (0 when the candidate shares no term with the query).
	Lex float64
	// LexRank is the 1-based rank in the lexical top n, 0 if absent.
	LexRank int
}

// HybridOptions tune the fusion.
type HybridOptions struct {
	// LexWeight is w in x = ev(cal(cos)) + w·lex (see Hybrid). 0 means
	// DefaultLexWeightSparse; negative means no lexical contribution
	// (Sim = cal(cos)).
	LexWeight float64
}

// Fusion weights, in evidence units (see Evidence). The sparse weight is
// measured on the LoCoMo dev split together with the hash calibration (see
// embed.Hash.Calibrate and locomo_test.go); the dense weight (for neural
// embedders, whose calibrated cosine already carries the meaning) is a
// conservative choice, not a measured one: a lexical coverage of 0.3 adds
// 0.6, most of the way from nothing to the gate.
const (
	DefaultLexWeightSparse = 8.65
	DefaultLexWeightDense  = 2.0
)

// DefaultHybridOptions returns the fusion for an embedder: sparse (feature
// hashing) or dense.
func DefaultHybridOptions(sparse bool) HybridOptions {
	if sparse {
		return HybridOptions{LexWeight: DefaultLexWeightSparse}
	}
	return HybridOptions{LexWeight: DefaultLexWeightDense}
}

// Hybrid unions a vector index and a BM25 index and scores every candidate
// on the common similarity scale:
//
//	x   = Evidence(cal(cosine)) + w · lex
//	Sim = Similarity(x)
//
// where cal is the embedder's calibration (embed.Embedder.Calibrate, clamped
// to [0,1]), Evidence its inverse onto the additive evidence scale, lex the
// BM25 score over the query's saturation bound (the fraction of the
// query's information the text matches) and w the lexical weight. The two
// channels add as evidence: either alone can carry a candidate over the
// gate, both together push it towards 1, and with no lexical match Sim is
// exactly the calibrated cosine. Both inputs are absolute (not normalised
// per query), so the 0.55 gate keeps its meaning whatever else is in the
// store, and a query with no related memory yields nothing above it. For
// the hash embedder x is the linear mix cos/τ + w·lex, and the constants
// make the gate sit where 93% of unrelated turns fall below it and 96% of
// evidence turns above (measured on LoCoMo; see TestLocomoRetrieval's log).
type Hybrid struct {
	vec Index
	lex *BM25
	cal func(float32) float32
	w   float64
}

// The common similarity scale maps additive evidence x ≥ 0 onto [0, 1)
// with a log-logistic curve, Similarity(x) = 1 / (1 + (x/SimScale)^-SimShape):
// the log-odds of "relevant" grow with the logarithm of the evidence. It
// replaces 1 − e^−x, which squeezed every candidate with some lexical
// overlap into 0.86–0.99, so relevance no longer separated a loose match
// from an exact one once retention was added. On LoCoMo (hash embedder,
// query-side IDF) the curve gives an unrelated turn (median x 0.15) 0.14,
// the 90th percentile of unrelated turns (x 0.56) 0.44, the gate (x 0.80)
// exactly 0.55, the median evidence turn (x 2.2) 0.80 and a near-exact
// match (x 6) 0.93. SimShape sets that spread; SimScale puts x = 0.80 (the
// measured gate of the previous scale, 1 − e^−0.80 = 0.55) on 0.55, so the
// gate admits exactly the candidates it admitted before. The curve is
// defined once, in package embed, whose calibrations map onto it.
const (
	SimShape = embed.SimShape
	SimScale = embed.SimScale
)

// Similarity maps evidence onto the common scale (0 for x ≤ 0).
func Similarity(x float64) float64 { return embed.SimilarityOf(x) }

// Evidence is the inverse of Similarity: the evidence a similarity in
// [0, 1) stands for (+Inf at 1).
func Evidence(sim float64) float64 {
	switch {
	case !(sim > 0):
		return 0
	case sim >= 1:
		return math.Inf(1)
	}
	return SimScale * math.Pow(sim/(1-sim), 1/SimShape)
}

// NewHybrid combines vec and lex; cal is the embedder's calibration (nil =
// identity).
func NewHybrid(vec Index, lex *BM25, cal func(float32) float32, opts HybridOptions) *Hybrid {
	if cal == nil {
		cal = func(c float32) float32 { return c }
	}
	h := &Hybrid{vec: vec, lex: lex, cal: cal, w: opts.LexWeight}
	if h.w == 0 {
		h.w = DefaultLexWeightSparse
	}
	if h.w < 0 {
		h.w = 0
	}
	return h
}

// Vec returns the vector index.
func (h *Hybrid) Vec() Index { return h.vec }

// Lex returns the lexical index.
func (h *Hybrid) Lex() *BM25 { return h.lex }

// Sim fuses a raw cosine and a normalised lexical score.
func (h *Hybrid) Sim(cos float32, lex float64) float32 {
	return float32(Similarity(Evidence(float64(h.VecSim(cos))) + h.w*max(lex, 0)))
}

// VecSim is the calibrated similarity of the vector channel alone.
func (h *Hybrid) VecSim(cos float32) float32 { return min(max(h.cal(cos), 0), 1) }

// Candidates returns the union of the vector top n for q and the BM25
// top n for query (either may be empty: a nil q or a lexical index of nil
// skips that channel), all among ids allow accepts, sorted by Sim
// descending. Lexical-only candidates get their exact cosine from the
// stored vector. A q of the wrong width skips the vector channel (and
// cosines are 0); use the Index directly to see the error.
func (h *Hybrid) Candidates(q []float32, query string, n int, allow func(string) bool) []Candidate {
	if n <= 0 {
		return nil
	}
	useVec := h.vec != nil && len(q) == h.vec.Dims()
	var w []float32
	var hits []Hit
	if useVec {
		if ex, isExact := h.vec.(*Exact); isExact {
			w, _ = ex.Query(q)
			hits, _ = ex.SearchWeighted(w, n, allow)
		} else if hs, err := h.vec.Search(q, n, allow); err == nil {
			hits = hs
		}
	}
	return h.complete(q, w, useVec, hits, query, n, allow)
}

// HybridQuery is one query of CandidatesMulti: Vec indexes the distinct
// query vectors, Text is the query for the lexical channel.
type HybridQuery struct {
	Vec   int
	Text  string
	N     int
	Allow func(string) bool
}

// CandidatesMulti is Candidates for many queries at once: result i equals
// Candidates(vecs[qs[i].Vec], qs[i].Text, qs[i].N, qs[i].Allow), but with
// the exact index every row is read once for all queries (one pass scores
// every distinct vector; see Exact.SearchWeightedMulti), which is what
// makes the agent hook's nine searches cost little more than one. A nil
// vector skips the vector channel of the queries that use it.
func (h *Hybrid) CandidatesMulti(vecs [][]float32, qs []HybridQuery) [][]Candidate {
	out := make([][]Candidate, len(qs))
	ex, isExact := h.vec.(*Exact)
	if !isExact {
		for i, q := range qs {
			var v []float32
			if q.Vec >= 0 && q.Vec < len(vecs) {
				v = vecs[q.Vec]
			}
			out[i] = h.Candidates(v, q.Text, q.N, q.Allow)
		}
		return out
	}
	ws := make([][]float32, len(vecs))
	usable := make([]bool, len(vecs))
	for i, v := range vecs {
		if len(v) == ex.Dims() {
			ws[i], _ = ex.Query(v)
			usable[i] = ws[i] != nil
		}
	}
	// One pass over the rows for every query whose vector is usable.
	var specs []MultiSpec
	var specOf []int // query index of each spec
	var live [][]float32
	liveIdx := map[int]int{}
	for i, q := range qs {
		if q.N <= 0 || q.Vec < 0 || q.Vec >= len(vecs) || !usable[q.Vec] {
			continue
		}
		j, ok := liveIdx[q.Vec]
		if !ok {
			j = len(live)
			liveIdx[q.Vec] = j
			live = append(live, ws[q.Vec])
		}
		specs = append(specs, MultiSpec{Query: j, K: q.N, Allow: q.Allow})
		specOf = append(specOf, i)
	}
	hits := make([][]Hit, len(qs))
	if len(specs) > 0 {
		res, err := ex.SearchWeightedMulti(live, specs)
		if err == nil {
			for k, r := range res {
				hits[specOf[k]] = r
			}
		}
	}
	for i, q := range qs {
		if q.N <= 0 {
			continue
		}
		useVec := q.Vec >= 0 && q.Vec < len(vecs) && usable[q.Vec]
		var v, w []float32
		if useVec {
			v, w = vecs[q.Vec], ws[q.Vec]
		}
		out[i] = h.complete(v, w, useVec, hits[i], q.Text, q.N, q.Allow)
	}
	return out
}

// complete adds the lexical channel to a query's vector hits and scores
// and sorts the union. w is the exact index's weighted form of q (nil for
// another index).
func (h *Hybrid) complete(q, w []float32, useVec bool, hits []Hit, query string, n int, allow func(string) bool) []Candidate {
	byID := make(map[string]int, 2*n)
	out := make([]Candidate, 0, len(hits))
	for _, hit := range hits {
		byID[hit.ID] = len(out)
		out = append(out, Candidate{ID: hit.ID, Cosine: hit.Cosine})
	}
	ex, isExact := h.vec.(*Exact)
	if h.lex != nil && query != "" {
		want := make(map[string]float64, len(out))
		for _, c := range out {
			want[c.ID] = 0
		}
		hits, scores, bound := h.lex.searchAll(query, n, allow, want)
		for _, hit := range hits {
			scores[hit.ID] = hit.Score
			j, ok := byID[hit.ID]
			if !ok {
				c := Candidate{ID: hit.ID}
				if useVec {
					if isExact {
						c.Cosine, _ = ex.CosineWeighted(w, hit.ID)
					} else {
						c.Cosine, _ = h.vec.Cosine(q, hit.ID)
					}
				}
				j = len(out)
				byID[hit.ID] = j
				out = append(out, c)
			}
			out[j].LexRank = hit.Rank
		}
		if bound > 0 {
			for i := range out {
				out[i].Lex = scores[out[i].ID] / bound
			}
		}
	}
	for i := range out {
		out[i].Sim = h.Sim(out[i].Cosine, out[i].Lex)
		out[i].VecSim = h.VecSim(out[i].Cosine)
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Sim != out[j].Sim {
			return out[i].Sim > out[j].Sim
		}
		return out[i].ID < out[j].ID
	})
	return out
}
