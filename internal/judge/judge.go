// Package judge decides which sentences of a person's message are durable
// statements in their own voice — worth remembering as their words — and
// of which type. The analyser (internal/provenance) says whose words each
// clause is; a logistic-regression model (internal/textclf) over hashed
// n-grams and the dense features of features.go scores the person's
// clauses; thresholds chosen for precision on the training split turn the
// score into a decision:
//
//   - Trust: the person's own clause scoring at or above the trust
//     threshold. It is stored verbatim as the person's words.
//   - Lane: a clause the model or the analyser is unsure about (the
//     person's clause between the lane and the trust threshold, or a
//     clause that may be a paste's scoring above the lane threshold). It
//     waits for the person ("from your messages — keep?").
//   - Quarantine: a pasted clause that reads as a durable statement. It is
//     someone else's words, kept as untrusted content of the paste's
//     source class.
//   - None: nothing to remember.
//
// The model files and thresholds under model/ are made by `go run
// ./internal/judge/train` (make judge-model) from the corpus's training
// split, byte for byte.
//
// Caveats: the model learnt from a corpus of about 1,600 training messages
// written for it; it knows developer talk in English and little else. Its
// errors on the held-out split are in BENCHMARKS.md.
package judge

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"strings"
	"sync"

	"github.com/odekmem/odekmem/internal/provenance"
	"github.com/odekmem/odekmem/internal/textclf"
)

// Decision is what becomes of a clause.
type Decision string

// Decisions.
const (
	None       Decision = ""
	Trust      Decision = "trust"
	Lane       Decision = "lane"
	Quarantine Decision = "quarantine"
)

// Candidate is one clause worth remembering, or worth asking about.
type Candidate struct {
	// Text is the clause, verbatim.
	Text string
	// Start and End are its byte range in Result.Analysis.Text.
	Start, End int
	// Type is the atom type: decision, convention, preference, fact, goal
	// or error.
	Type     string
	Score    float64
	Voice    provenance.Voice
	Kind     provenance.Kind // a pasted clause's paste kind
	Decision Decision
	// Why says what decided a lane or quarantine.
	Why string
}

// Result is a judged message.
type Result struct {
	Analysis   provenance.Analysis
	Candidates []Candidate
}

// Thresholds are the decision thresholds of the model files.
type Thresholds struct {
	// Trust is the score at or above which the person's clause is
	// trusted; Lane the score at or above which an unsure or pasted
	// clause is kept for review.
	Trust float64 `json:"trust"`
	Lane  float64 `json:"lane"`
	// Request is the score at or above which a command with no word of a
	// standing rule (MayBeRequest) is trusted all the same; 0: never.
	Request float64 `json:"request,omitempty"`
	// Types names the type models, in the order of model/type-*.tclf.
	Types []string `json:"types"`
	// Note records how the thresholds were chosen.
	Note string `json:"note"`
}

var (
	//go:embed model/durable.tclf
	durableBytes []byte
	//go:embed model/types.tclf
	typesBytes []byte
	//go:embed model/thresholds.json
	thresholdBytes []byte
)

// Judger decides with one set of models and thresholds.
type Judger struct {
	durable *textclf.Model
	types   []*textclf.Model
	th      Thresholds
}

// New returns a Judger over trained models (the training command uses it
// for cross-validation; everyone else uses Judge).
func New(durable *textclf.Model, types []*textclf.Model, th Thresholds) (*Judger, error) {
	if durable == nil || len(types) != len(th.Types) {
		return nil, fmt.Errorf("judge: %d type models for %d types", len(types), len(th.Types))
	}
	return &Judger{durable: durable, types: types, th: th}, nil
}

var loadModels = sync.OnceValues(func() (*Judger, error) {
	var th Thresholds
	if err := json.Unmarshal(thresholdBytes, &th); err != nil {
		return nil, fmt.Errorf("judge: thresholds: %w", err)
	}
	d, err := textclf.Load(durableBytes)
	if err != nil {
		return nil, fmt.Errorf("judge: durable model: %w", err)
	}
	ts, err := splitModels(typesBytes)
	if err != nil {
		return nil, err
	}
	var types []*textclf.Model
	for _, b := range ts {
		t, err := textclf.Load(b)
		if err != nil {
			return nil, fmt.Errorf("judge: type model: %w", err)
		}
		types = append(types, t)
	}
	return New(d, types, th)
})

// Ready reports whether the embedded models load (they are loaded once,
// on first use).
func Ready() error {
	_, err := loadModels()
	return err
}

// Judge analyses msg and decides about every clause.
func Judge(msg string) (Result, error) {
	m, err := loadModels()
	if err != nil {
		return Result{}, err
	}
	return m.Judge(msg), nil
}

// minWords is the least a clause must have to be a memory ("Tailwind
// only." has two).
const minWords = 2

// Judge analyses msg and decides about every clause.
func (m *Judger) Judge(msg string) Result {
	a := provenance.Analyse(msg)
	res := Result{Analysis: a}
	ctxs := contexts(a)
	for si, seg := range a.Segments {
		pasted := seg.Voice == provenance.Pasted
		if !Judged(seg.Voice) && !pasted {
			continue
		}
		dense := features(seg, a, ctxs[si])
		if pasted {
			// Does it read as a durable statement, wherever it stands?
			// The voice is already decided; the message's shape is not
			// evidence about this clause.
			for _, n := range []string{"unsure", "prev_rule", "msg_rule", "first"} {
				dense[denseIndex()[n]] = 0
			}
		}
		if len(words(seg.Text)) < minWords {
			continue
		}
		mt := ModelText(seg.Text)
		score := m.durable.Score(mt, dense)
		c := Candidate{Text: seg.Text, Start: seg.Start, End: seg.End, Score: score, Voice: seg.Voice, Kind: seg.Kind}
		switch {
		case seg.Voice == provenance.Own && score >= m.th.Trust && MayBeRequest(dense) && !(m.th.Request > 0 && score >= m.th.Request):
			c.Decision, c.Why = Lane, "a command that may be meant for this task only"
		case seg.Voice == provenance.Own && score >= m.th.Trust:
			c.Decision = Trust
		case seg.Voice == provenance.Own && score >= m.th.Lane:
			c.Decision, c.Why = Lane, fmt.Sprintf("may be a one-off remark (score %.2f)", score)
		case seg.Voice == provenance.Unsure && score >= m.th.Lane:
			c.Decision, c.Why = Lane, seg.Why
		case pasted && score >= m.th.Lane:
			c.Decision, c.Why = Quarantine, seg.Why
		default:
			continue
		}
		c.Type = m.typeOf(mt, dense)
		res.Candidates = append(res.Candidates, c)
	}
	return res
}

// MayBeRequest reports whether a clause is a command with nothing that
// makes it a standing rule: no always/never/don't opening it, no "every",
// "from now on" or "must" in it, no rule stated just before it. Such a
// clause may be a request for the task at hand; the person decides,
// unless the model is as sure of it as Thresholds.Request asks.
func MayBeRequest(dense []float32) bool {
	return dense[denseIndex()["opens_verb"]] == 1 && dense[denseIndex()["opens_polarity"]] == 0 &&
		dense[denseIndex()["generic"]] == 0 && dense[denseIndex()["prev_rule"]] == 0 && dense[denseIndex()["modal"]] == 0
}

var denseIndex = sync.OnceValue(func() map[string]int {
	m := map[string]int{}
	for i, n := range Dense {
		m[n] = i
	}
	return m
})

// typeOf is the type whose model scores the model text (ModelText)
// highest.
func (m *Judger) typeOf(mt string, dense []float32) string {
	best, bestScore := "fact", -1.0
	for i, t := range m.types {
		if s := t.Score(mt, dense); s > bestScore {
			best, bestScore = m.th.Types[i], s
		}
	}
	return best
}

// Info describes the embedded models.
func Info() (string, error) {
	m, err := loadModels()
	if err != nil {
		return "", err
	}
	i := m.durable.Info()
	return fmt.Sprintf("durable model: %d non-zero weights, trust ≥ %.3f, lane ≥ %.3f; types %s; %s",
		i.NonZero, m.th.Trust, m.th.Lane, strings.Join(m.th.Types, ", "), m.th.Note), nil
}

// SetThresholds replaces the Judger's thresholds (cross-validation).
func (m *Judger) SetThresholds(th Thresholds) { m.th = th }

// TypeOf returns the type the type models give a clause the person asked
// to remember in so many words ("odek, remember that …"): fact when the
// models are unavailable.
func TypeOf(text string) string {
	m, err := loadModels()
	if err != nil {
		return "fact"
	}
	seg := provenance.Segment{Text: text, End: len(text), Voice: provenance.Own}
	return m.typeOf(ModelText(text), features(seg, provenance.Analysis{Text: text, Segments: []provenance.Segment{seg}}, context{first: true}))
}
