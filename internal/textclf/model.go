package textclf

import (
	"math"
	"slices"
	"strconv"
	"strings"
)

// Model is a trained classifier. It is immutable after [Train] or [Load]
// apart from [Model.SetThreshold], and safe for concurrent use once no
// one calls SetThreshold.
type Model struct {
	cfg       Config    // defaults applied
	dense     []string  // names of the dense features, in order
	w         []float32 // 2^Bits hashed weights, then one per dense feature
	bias      float32
	scale     float32 // the hashed weights are multiples of scale (int8 on disk)
	threshold float64
	dataHash  [32]byte
	note      string
}

// Info describes a model: what it was trained with and how it decides.
type Info struct {
	// Version is the serialisation format version.
	Version int
	// Config is the feature config, defaults filled in.
	Config Config
	// Dense names the dense features Score expects, in order.
	Dense []string
	// Threshold is the probability at or above which the model says yes.
	Threshold float64
	// DataHash is the SHA-256 of the training and validation examples
	// (see [Train]).
	DataHash [32]byte
	// Note is free text recorded at training time (for example the
	// command that made the model).
	Note string
	// NonZero counts the non-zero weights.
	NonZero int
}

// Info returns the model's description.
func (m *Model) Info() Info {
	nz := 0
	for _, w := range m.w {
		if w != 0 {
			nz++
		}
	}
	return Info{Version: formatVersion, Config: m.cfg, Dense: slices.Clone(m.dense),
		Threshold: m.threshold, DataHash: m.dataHash, Note: m.note, NonZero: nz}
}

// Threshold returns the decision threshold: Score(text) ≥ Threshold()
// means the positive class.
func (m *Model) Threshold() float64 { return m.threshold }

// SetThreshold replaces the decision threshold (a probability in [0, 1]).
// It is meant for the training program, before the model is saved or
// shared; it must not race with other methods.
func (m *Model) SetThreshold(t float64) { m.threshold = t }

// Score returns the probability that text (with the caller's dense
// features, in the order of Info().Dense) belongs to the positive class.
// Missing dense values count as 0 and extra ones are ignored. Score does
// not allocate in the steady state.
func (m *Model) Score(text string, dense []float32) float64 {
	s := scratchPool.Get().(*scratch)
	s.featurize(m.cfg, text)
	z := m.margin(s.feats, dense)
	scratchPool.Put(s)
	return sigmoid(z)
}

// margin is the linear score (log-odds) of a featurised text.
func (m *Model) margin(fs []sparse, dense []float32) float64 {
	w := m.w
	var z float32
	for _, f := range fs {
		z += w[f.idx] * f.val
	}
	nb := len(w) - len(m.dense)
	for j := range min(len(dense), len(m.dense)) {
		z += w[nb+j] * dense[j]
	}
	return float64(z + m.bias)
}

// sigmoid is the logistic function, stable for large |z|.
func sigmoid(z float64) float64 {
	if z >= 0 {
		return 1 / (1 + math.Exp(-z))
	}
	e := math.Exp(z)
	return e / (1 + e)
}

// Contribution is one feature's share of a score.
type Contribution struct {
	// Feature names the feature: `word "ignore"`, `words "ignore all"`,
	// `chars "gnor"`, or the dense feature's name.
	Feature string
	// Weight is the model weight times the feature's value in this text:
	// its additive share of the log-odds (positive pushes towards yes).
	Weight float64
}

// String renders the contribution as `feature +0.42`.
func (c Contribution) String() string {
	return c.Feature + " " + strconv.FormatFloat(c.Weight, 'f', 2, 64)
}

// Explain returns up to k features of text with the largest positive
// contributions to its score, largest first. Character n-grams that lie
// inside a word or phrase already listed are left out, so the list names
// distinct evidence. Explain allocates; it is meant for the texts a model
// decided on, not for every text.
func (m *Model) Explain(text string, dense []float32, k int) []Contribution {
	if k <= 0 {
		return nil
	}
	s := new(scratch)
	s.prepare(text)
	s.hashAll(m.cfg, true)
	// Count occurrences per distinct hash, as vectorize does.
	counts := make(map[uint64]int, len(s.grams))
	for _, g := range s.grams {
		counts[g.h]++
	}
	var norm float64
	for _, c := range counts {
		v := 1 + math.Log(float64(c))
		norm += v * v
	}
	inv := 0.0
	if norm > 0 {
		inv = 1 / math.Sqrt(norm)
	}
	mask := uint64(1)<<m.cfg.Bits - 1
	var cands []cand
	seen := make(map[uint64]bool, len(counts))
	for _, g := range s.grams {
		if seen[g.h] {
			continue
		}
		seen[g.h] = true
		v := (1 + math.Log(float64(counts[g.h]))) * inv
		if g.h>>63 != 0 {
			v = -v
		}
		c := float64(m.w[g.h&mask]) * v
		if c <= 0 {
			continue
		}
		var name string
		switch g.fam {
		case famWord:
			name = "word " + strconv.Quote(string(s.low[g.a:g.b]))
		case famBigram:
			name = "words " + strconv.Quote(string(s.low[g.a:g.b1])+" "+string(s.low[g.a2:g.b]))
		default:
			name = "chars " + strconv.Quote(string(s.low[g.a:g.b]))
		}
		cands = append(cands, cand{Contribution{name, c}, g.fam, g.a, g.b})
	}
	nb := len(m.w) - len(m.dense)
	for j := range min(len(dense), len(m.dense)) {
		if c := float64(m.w[nb+j] * dense[j]); c > 0 {
			cands = append(cands, cand{Contribution{m.dense[j], c}, 0, -1, -1})
		}
	}
	slices.SortStableFunc(cands, func(x, y cand) int {
		switch {
		case x.Weight > y.Weight:
			return -1
		case x.Weight < y.Weight:
			return 1
		}
		return strings.Compare(x.Feature, y.Feature)
	})
	var out []Contribution
	var kept []cand
	for _, c := range cands {
		if len(out) == k {
			break
		}
		if c.fam == famChar && covered(kept, c.a, c.b) {
			continue
		}
		kept = append(kept, c)
		out = append(out, c.Contribution)
	}
	return out
}

// cand is a candidate contribution with the family and byte range of its
// n-gram (fam 0 for a dense feature).
type cand struct {
	Contribution
	fam  byte
	a, b int32
}

// covered reports whether the byte range [a, b) lies inside a word or
// bigram (or overlaps a character n-gram) already kept.
func covered(kept []cand, a, b int32) bool {
	for _, k := range kept {
		fam, ka, kb := k.fam, k.a, k.b
		if fam == 0 {
			continue
		}
		if fam == famChar {
			if a < kb && ka < b {
				return true
			}
			continue
		}
		if ka <= a+1 && b-1 <= kb { // allow the padding space at either end
			return true
		}
	}
	return false
}
