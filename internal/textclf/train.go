package textclf

import (
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"slices"
)

// Example is one labelled training text.
type Example struct {
	// Text is the text to classify.
	Text string
	// Dense holds the caller's dense features, in the order of
	// TrainConfig.Dense; missing values count as 0.
	Dense []float32
	// Label is true for the positive class.
	Label bool
	// Weight multiplies the example's loss; 0 means 1.
	Weight float64
}

// TrainConfig sets up [Train]. The zero value of every field is its
// default.
type TrainConfig struct {
	// Features is the feature config.
	Features Config
	// Dense names the dense features each Example carries.
	Dense []string
	// Seed drives the shuffling (and the validation split when Train gets
	// none); the same seed gives the same model.
	Seed uint64
	// Epochs is the most passes over the training set; 0 means 30.
	Epochs int
	// Patience is how many epochs without a better validation loss end
	// training; 0 means 3. The weights of the best epoch are kept.
	Patience int
	// LearningRate is AdaGrad's base rate; 0 means 0.3.
	LearningRate float64
	// L2 is the regularisation strength per update of an active feature;
	// 0 means 1e-6, a negative value none.
	L2 float64
	// PosWeight and NegWeight weigh the classes' losses; 0 means
	// balanced (each class carries half the total weight).
	PosWeight, NegWeight float64
	// ValidFraction is the share of examples held out for validation when
	// Train is given no validation set; 0 means 0.1.
	ValidFraction float64
	// TargetPrecision is the validation precision the threshold is chosen
	// for (the lowest threshold that reaches it); 0 means 0.95.
	TargetPrecision float64
	// Note is stored in the model (for example the command that trained
	// it).
	Note string
}

// Report says how training went.
type Report struct {
	// Train and Valid count the examples used for each.
	Train, Valid int
	// Epochs is the number of epochs run; BestEpoch (1-based) is the one
	// whose weights were kept.
	Epochs, BestEpoch int
	// TrainLoss and ValidLoss are the class-weighted mean log-losses after
	// each epoch.
	TrainLoss, ValidLoss []float64
	// Threshold, Precision and Recall describe the chosen threshold on the
	// validation set (with the quantised weights).
	Threshold, Precision, Recall float64
}

// ErrNoData is returned by Train when a class is missing from the training
// or validation set.
var ErrNoData = errors.New("textclf: both classes are needed in training and validation")

// featCacheBudget bounds the featurised training set kept in memory
// (entries of 8 bytes); beyond it, examples are featurised every epoch.
const featCacheBudget = 16 << 20

// Train fits a model to train, stopping early on valid (or, when valid is
// nil, on a seeded share of train). See [TrainConfig] for the knobs and
// the package documentation for reproducibility.
func Train(tc TrainConfig, train, valid []Example) (*Model, Report, error) {
	cfg := tc.Features.withDefaults()
	if err := cfg.validate(); err != nil {
		return nil, Report{}, err
	}
	if tc.Epochs == 0 {
		tc.Epochs = 30
	}
	if tc.Patience == 0 {
		tc.Patience = 3
	}
	if tc.LearningRate == 0 {
		tc.LearningRate = 0.3
	}
	switch {
	case tc.L2 == 0:
		tc.L2 = 1e-6
	case tc.L2 < 0:
		tc.L2 = 0
	}
	if tc.ValidFraction == 0 {
		tc.ValidFraction = 0.1
	}
	if tc.TargetPrecision == 0 {
		tc.TargetPrecision = 0.95
	}
	if valid == nil {
		train, valid = split(train, tc.ValidFraction, tc.Seed)
	}
	var rep Report
	rep.Train, rep.Valid = len(train), len(valid)
	npos, nneg := countLabels(train)
	vpos, vneg := countLabels(valid)
	if npos == 0 || nneg == 0 || vpos == 0 || vneg == 0 {
		return nil, rep, ErrNoData
	}
	pw, nw := tc.PosWeight, tc.NegWeight
	if pw == 0 {
		pw = float64(npos+nneg) / (2 * float64(npos))
	}
	if nw == 0 {
		nw = float64(npos+nneg) / (2 * float64(nneg))
	}
	classW := func(e *Example) float64 {
		w := nw
		if e.Label {
			w = pw
		}
		if e.Weight != 0 {
			w *= e.Weight
		}
		return w
	}

	nb := cfg.Buckets()
	nd := len(tc.Dense)
	dim := nb + nd
	w := make([]float64, dim+1) // last: bias
	g2 := make([]float64, dim+1)
	best := slices.Clone(w)
	bestLoss := math.Inf(1)
	const eps = 1e-8

	fc := newFeatCache(cfg, train)
	order := make([]int, len(train))
	for i := range order {
		order[i] = i
	}
	rng := splitmix{tc.Seed}
	s := new(scratch)
	stale := 0
	for epoch := 1; epoch <= tc.Epochs; epoch++ {
		rng.shuffle(order)
		var loss, wsum float64
		for _, i := range order {
			e := &train[i]
			fs := fc.get(i, s)
			z := w[dim]
			for _, f := range fs {
				z += float64(w[f.idx] * float64(f.val))
			}
			for j := range min(nd, len(e.Dense)) {
				z += float64(w[nb+j] * float64(e.Dense[j]))
			}
			p := sigmoid(z)
			y := 0.0
			if e.Label {
				y = 1
			}
			cw := classW(e)
			loss += cw * logLoss(p, e.Label)
			wsum += cw
			d := float64((p - y) * cw)
			upd := func(k int, x float64) {
				g := float64(d*x) + float64(tc.L2*w[k])
				g2[k] += float64(g * g)
				w[k] -= float64(tc.LearningRate*g) / (math.Sqrt(g2[k]) + eps)
			}
			for _, f := range fs {
				upd(int(f.idx), float64(f.val))
			}
			for j := range min(nd, len(e.Dense)) {
				upd(nb+j, float64(e.Dense[j]))
			}
			upd(dim, 1)
		}
		rep.TrainLoss = append(rep.TrainLoss, loss/wsum)
		vl := validLoss(cfg, w, nb, nd, valid, classW, s)
		rep.ValidLoss = append(rep.ValidLoss, vl)
		rep.Epochs = epoch
		if vl < bestLoss {
			bestLoss = vl
			copy(best, w)
			rep.BestEpoch = epoch
			stale = 0
		} else if stale++; stale >= tc.Patience {
			break
		}
	}

	m := &Model{cfg: cfg, dense: slices.Clone(tc.Dense), w: make([]float32, dim),
		bias: float32(best[dim]), note: tc.Note, dataHash: DataHash(train, valid)}
	for i := range dim {
		m.w[i] = float32(best[i])
	}
	m.quantize()
	scores := make([]float64, len(valid))
	labels := make([]bool, len(valid))
	for i := range valid {
		scores[i] = m.Score(valid[i].Text, valid[i].Dense)
		labels[i] = valid[i].Label
	}
	rep.Threshold, rep.Precision, rep.Recall = ThresholdForPrecision(scores, labels, tc.TargetPrecision)
	m.threshold = rep.Threshold
	return m, rep, nil
}

// validLoss is the class-weighted mean log-loss of the weights w on valid.
func validLoss(cfg Config, w []float64, nb, nd int, valid []Example, classW func(*Example) float64, s *scratch) float64 {
	var loss, wsum float64
	for i := range valid {
		e := &valid[i]
		s.featurize(cfg, e.Text)
		z := w[nb+nd]
		for _, f := range s.feats {
			z += float64(w[f.idx] * float64(f.val))
		}
		for j := range min(nd, len(e.Dense)) {
			z += float64(w[nb+j] * float64(e.Dense[j]))
		}
		cw := classW(e)
		loss += cw * logLoss(sigmoid(z), e.Label)
		wsum += cw
	}
	return loss / wsum
}

// logLoss is the cross-entropy of probability p for the label, clamped.
func logLoss(p float64, label bool) float64 {
	const tiny = 1e-12
	if label {
		return -math.Log(max(p, tiny))
	}
	return -math.Log(max(1-p, tiny))
}

func countLabels(es []Example) (pos, neg int) {
	for i := range es {
		if es[i].Label {
			pos++
		} else {
			neg++
		}
	}
	return pos, neg
}

// split moves a seeded share frac of es (chosen by a hash of each text,
// so an example's side does not depend on the others) to the second
// result.
func split(es []Example, frac float64, seed uint64) (train, valid []Example) {
	cut := uint64(frac * float64(1<<32))
	for _, e := range es {
		h := fnvString(fnvByte(fnvOffset^seed, 's'), []byte(e.Text))
		if h>>32 < cut {
			valid = append(valid, e)
		} else {
			train = append(train, e)
		}
	}
	return train, valid
}

// DataHash is the SHA-256 of a training and validation set as Train
// records it in the model: every example's label, weight, text and dense
// values, in order, then the same for the validation set.
func DataHash(train, valid []Example) [32]byte {
	h := sha256.New()
	var buf []byte
	for k, set := range [][]Example{train, valid} {
		buf = binary.AppendUvarint(buf[:0], uint64(k))
		buf = binary.AppendUvarint(buf, uint64(len(set)))
		h.Write(buf)
		for i := range set {
			e := &set[i]
			buf = buf[:0]
			if e.Label {
				buf = append(buf, 1)
			} else {
				buf = append(buf, 0)
			}
			buf = binary.LittleEndian.AppendUint64(buf, math.Float64bits(e.Weight))
			buf = binary.AppendUvarint(buf, uint64(len(e.Text)))
			buf = append(buf, e.Text...)
			buf = binary.AppendUvarint(buf, uint64(len(e.Dense)))
			for _, d := range e.Dense {
				buf = binary.LittleEndian.AppendUint32(buf, math.Float32bits(d))
			}
			h.Write(buf)
		}
	}
	var out [32]byte
	h.Sum(out[:0])
	return out
}

// featCache keeps the featurised training set when it fits the budget.
type featCache struct {
	cfg   Config
	train []Example
	start []int // nil when not caching
	feats []sparse
}

func newFeatCache(cfg Config, train []Example) *featCache {
	fc := &featCache{cfg: cfg, train: train}
	s := new(scratch)
	start := make([]int, 0, len(train)+1)
	var feats []sparse
	for i := range train {
		start = append(start, len(feats))
		s.featurize(cfg, train[i].Text)
		if len(feats)+len(s.feats) > featCacheBudget {
			return fc
		}
		feats = append(feats, s.feats...)
	}
	fc.start = append(start, len(feats))
	fc.feats = feats
	return fc
}

// get returns example i's features (valid until the next call with s).
func (fc *featCache) get(i int, s *scratch) []sparse {
	if fc.start != nil {
		return fc.feats[fc.start[i]:fc.start[i+1]]
	}
	s.featurize(fc.cfg, fc.train[i].Text)
	return s.feats
}

// splitmix is a small seeded generator (SplitMix64), written out so that
// training does not depend on a library's choice of algorithm.
type splitmix struct{ s uint64 }

func (r *splitmix) next() uint64 {
	r.s += 0x9e3779b97f4a7c15
	z := r.s
	z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
	z = (z ^ z>>27) * 0x94d049bb133111eb
	return z ^ z>>31
}

// shuffle permutes xs (Fisher–Yates; the tiny modulo bias is irrelevant
// here and keeps the sequence simple to reproduce).
func (r *splitmix) shuffle(xs []int) {
	for i := len(xs) - 1; i > 0; i-- {
		j := int(r.next() % uint64(i+1))
		xs[i], xs[j] = xs[j], xs[i]
	}
}

// ThresholdForPrecision returns the lowest threshold t (one of the scores)
// such that the examples scoring ≥ t have at least the target precision,
// with that precision and the recall it gives. When no threshold reaches
// the target it returns 1 and the precision and recall at 1.
func ThresholdForPrecision(scores []float64, labels []bool, target float64) (t, precision, recall float64) {
	idx := make([]int, len(scores))
	npos := 0
	for i := range idx {
		idx[i] = i
		if labels[i] {
			npos++
		}
	}
	slices.SortStableFunc(idx, func(a, b int) int {
		switch {
		case scores[a] > scores[b]:
			return -1
		case scores[a] < scores[b]:
			return 1
		}
		return 0
	})
	t, precision, recall = 1, 0, 0
	tp, fp := 0, 0
	for k := 0; k < len(idx); {
		s := scores[idx[k]]
		for k < len(idx) && scores[idx[k]] == s {
			if labels[idx[k]] {
				tp++
			} else {
				fp++
			}
			k++
		}
		p := float64(tp) / float64(tp+fp)
		if p >= target && npos > 0 {
			t, precision, recall = s, p, float64(tp)/float64(npos)
		}
	}
	if t == 1 && recall == 0 {
		tp, fp = 0, 0
		for i, s := range scores {
			if s >= 1 {
				if labels[i] {
					tp++
				} else {
					fp++
				}
			}
		}
		if tp+fp > 0 {
			precision = float64(tp) / float64(tp+fp)
		}
		if npos > 0 {
			recall = float64(tp) / float64(npos)
		}
	}
	return t, precision, recall
}

// ThresholdForFPR returns the lowest threshold at which at most a share
// maxFPR of the negative examples' scores are ≥ it (at least one
// representable step above the score that would exceed the budget).
func ThresholdForFPR(negScores []float64, maxFPR float64) float64 {
	if len(negScores) == 0 {
		return 0
	}
	s := slices.Clone(negScores)
	slices.SortFunc(s, func(a, b float64) int {
		switch {
		case a > b:
			return -1
		case a < b:
			return 1
		}
		return 0
	})
	allowed := int(math.Floor(maxFPR * float64(len(s))))
	if allowed >= len(s) {
		return 0
	}
	return math.Min(1, math.Nextafter(s[allowed], math.Inf(1)))
}

// String summarises a report on one line.
func (r Report) String() string {
	if r.BestEpoch == 0 {
		return fmt.Sprintf("train %d valid %d, no epoch run", r.Train, r.Valid)
	}
	return fmt.Sprintf("train %d valid %d, epochs %d (best %d), valid loss %.4f, threshold %.4f: precision %.3f recall %.3f",
		r.Train, r.Valid, r.Epochs, r.BestEpoch, r.ValidLoss[r.BestEpoch-1], r.Threshold, r.Precision, r.Recall)
}
