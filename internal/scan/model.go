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
// It also turns a soft rule's block into a warning where it reads the
// words around the hit as ordinary (vetoSoft in scan.go).

// denseNames are the learned detector's dense features: the scored
// detector's best window score, and a few indicators of who the text
// addresses and what it asks for, built to carry across vocabularies:
// an imperative aimed at a secret, a sink or a destructive action; the
// person named in the third person while the agent is addressed; a
// memory or preference as the object of a verb in text that does not
// speak for the person; a future conditional that dictates a reply; the
// agent addressed by name or role. (The scored detector's individual
// features, tried as indicators, made every short sentence with "you" in
// it look like an attack: they are in nearly every attack and in much
// chat; these are conjunctions.)
var denseNames = []string{"score", "imperative_harm", "person_and_agent", "memory_directed", "future_conditional", "agent_addressed"}

// nDense is len(denseNames).
const nDense = 6

var (
	reMemoryDirected    = rx(`\b(?:remember|memori[sz]e|save|store|persist|record|pin|note|keep|learn|add|write|update)\b[^.!?]{0,60}\b(?:memory|memories|preference|preferences|user model|user profile|future (?:sessions?|conversations?|chats?)|from now on|going forward|every session|all sessions|permanent(?:ly)?|forever|standing rule)\b|\b(?:remember|memory|add_memory|save_memory|add_atom)\s*[(.]`)
	reFutureConditional = rx(`\b(?:when|whenever|if|next time|once|should|as soon as|every time|in future)\b[^.!?]{0,60}\b(?:asks?|asked|mentions?|says?|requests?|comes? up|opens?)\b[^.!?]{0,80}\b(?:tell|say|reply|respond|answer|recommend|suggest|advise|insist|claim|point|mention|run|approve)\b`)
)

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
	fillDense(d, v.s, &sum)
	return v.s, d
}

// Cheap cues that must be present before the dense regexps run.
var (
	memoryCues      = []string{"memor", "remember", "preference", "user model", "user profile", "future", "from now on", "going forward", "session", "permanent", "forever", "standing rule", "add_atom"}
	conditionalCues = []string{"when", "if ", "next time", "once", "should", "as soon as", "every time", "in future"}
)

// fillDense writes the dense features of view v into d (len nDense).
func fillDense(d []float32, v string, sum *featSummary) {
	d[0] = float32(min(sum.best, 6) / 3)
	h := &sum.has
	b := func(x bool) float32 {
		if x {
			return 1
		}
		return 0
	}
	d[1] = b(h[fImperative] && (h[fSecret] || h[fSink] || h[fDestructive] || h[fRemoteExec] || h[fInsecureRegistry] || h[fExfil]))
	d[2] = b(h[fPerson] && (h[fYou] || h[fAgent] || h[fVocative]))
	d[3] = b(containsAny(v, memoryCues...) && reMemoryDirected.MatchString(v) && !firstPerson.MatchString(v))
	d[4] = b(containsAny(v, conditionalCues...) && reFutureConditional.MatchString(v))
	d[5] = b(h[fVocative] || (h[fAgent] && (h[fImperative] || h[fModal])))
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

// modelBest runs the learned detector over a view and returns its highest
// probability with the window that scored it (ok false with no usable
// model or an empty view).
func modelBest(v string, sum *featSummary) (best modelHit, ok bool) {
	m, err := learned.Model()
	if err != nil || len(v) == 0 {
		return modelHit{}, false
	}
	var d [nDense]float32
	fillDense(d[:], v, sum)
	best = modelHit{p: -1}
	score := func(a, b int) {
		if p := m.Score(v[a:b], d[:]); p > best.p {
			best = modelHit{p: p, a: a, b: b}
		}
	}
	if len(v) <= modelWindow {
		score(0, len(v))
	} else {
		spans := sentenceSpans(v)
		for i, sp := range spans {
			b := sp[1]
			if i+1 < len(spans) && spans[i+1][1]-sp[0] <= modelWindow {
				b = spans[i+1][1]
			}
			// A sentence longer than a window (a list run together, a
			// paragraph without stops) is read in overlapping windows:
			// nothing past its first window goes unread.
			for a := sp[0]; ; a += modelWindow / 2 {
				score(a, min(b, a+modelWindow))
				if a+modelWindow >= b {
					break
				}
			}
		}
	}
	best.threshold = m.Threshold()
	return best, true
}

// sentenceSpans returns the view offsets of v's sentences (splitSentences).
func sentenceSpans(v string) [][2]int {
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
	return spans
}

// scoreModel runs the learned detector over a view. It reports a hit when
// the probability reaches the model's threshold; with no usable model it
// reports nothing.
func scoreModel(v string, sum *featSummary) (modelHit, bool) {
	best, ok := modelBest(v, sum)
	if !ok || best.p < best.threshold {
		return modelHit{}, false
	}
	m, _ := learned.Model()
	var d [nDense]float32
	fillDense(d[:], v, sum)
	var parts []string
	for _, c := range m.Explain(v[best.a:best.b], d[:], 6) {
		parts = append(parts, c.String())
	}
	best.why = fmt.Sprintf("learned detector: p=%.2f ≥ %.2f; %s", math.Floor(best.p*100)/100, best.threshold, strings.Join(parts, ", "))
	return best, true
}
