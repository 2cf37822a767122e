package scan

import (
	"fmt"
	"math"
	"strings"

	"github.com/odekmem/odekmem/internal/scan/internal/learned"
)

// ModelRule is the Finding.Rule of a block by the learned detector.
const ModelRule = "model"

// The learned detector. A logistic regression over hashed word and
// character n-grams of the normalised view plus the scored detector's
// features (internal/textclf, trained by internal/scan/internal/train)
// scores text that every rule passed; at or above its threshold it blocks
// with rule "model" and names the n-grams and features that drove it.

// denseNames are the learned detector's dense features: the scored
// detector's best window score. (Its individual features, tried as
// indicators, made every short sentence with "you" in it look like an
// attack: they are in nearly every attack and in much chat.)
var denseNames = []string{"score"}

// nDense is len(denseNames).
const nDense = 1

func init() {
	learned.Input = modelInput
	learned.DenseNames = denseNames
}

// modelInput returns the view and dense features the model reads for text
// (as Scan computes them).
func modelInput(text string) (string, []float32) {
	_, st := charPass(text, nil)
	v := buildView(st, false)
	_, _, sum := scoreSummary(v.s)
	d := make([]float32, nDense)
	fillDense(d, &sum)
	return v.s, d
}

// fillDense writes the summary's dense features into d (len nDense).
func fillDense(d []float32, sum *featSummary) {
	d[0] = float32(min(sum.best, 6) / 3)
}

// modelWindow bounds the text the model reads at once: a longer view is
// scored sentence by sentence, each with the one after it (the model was
// trained on single sentences and short passages; a short attack inside a
// long text would otherwise be diluted by its neighbours), and the highest
// score counts.
const modelWindow = 640

// modelHit is a block by the learned detector.
type modelHit struct {
	p, threshold float64
	a, b         int // view offsets of the window
	why          string
}

// scoreModel runs the learned detector over a view. It reports a hit when
// the probability reaches the model's threshold; with no usable model it
// reports nothing.
func scoreModel(v string, sum *featSummary) (modelHit, bool) {
	m, err := learned.Model()
	if err != nil || len(v) == 0 {
		return modelHit{}, false
	}
	var d [nDense]float32
	fillDense(d[:], sum)
	best := modelHit{p: -1}
	score := func(a, b int) {
		if p := m.Score(v[a:b], d[:]); p > best.p {
			best = modelHit{p: p, a: a, b: b}
		}
	}
	if len(v) <= modelWindow {
		score(0, len(v))
	} else {
		var spans [][2]int
		pos := 0
		for _, s := range splitSentences(v) {
			k := strings.Index(v[pos:], s)
			if k < 0 {
				continue
			}
			spans = append(spans, [2]int{pos + k, pos + k + len(s)})
			pos += k + len(s)
		}
		for i, sp := range spans {
			b := sp[1]
			if i+1 < len(spans) && spans[i+1][1]-sp[0] <= modelWindow {
				b = spans[i+1][1]
			}
			score(sp[0], min(b, sp[0]+modelWindow))
		}
	}
	best.threshold = m.Threshold()
	if best.p < best.threshold {
		return modelHit{}, false
	}
	var parts []string
	for _, c := range m.Explain(v[best.a:best.b], d[:], 6) {
		parts = append(parts, c.String())
	}
	best.why = fmt.Sprintf("learned detector: p=%.2f ≥ %.2f; %s", math.Floor(best.p*100)/100, best.threshold, strings.Join(parts, ", "))
	return best, true
}
