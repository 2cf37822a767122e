// Package fit trains the scanner's learned injection detector from the
// corpora of package corpus: the training command writes the model the
// scanner embeds, and the evaluation command refits it without one source
// at a time (leave-one-source-out) to measure how it generalises.
package fit

import (
	"fmt"
	"hash/fnv"

	"github.com/odekmem/odekmem/internal/scan/internal/corpus"
	"github.com/odekmem/odekmem/internal/scan/internal/learned"
	"github.com/odekmem/odekmem/internal/textclf"
)

// Settings are the training settings of the committed model. Changing any
// of them changes the model; retrain and commit both.
var Settings = textclf.TrainConfig{
	Seed:         1,
	Epochs:       30,
	Patience:     3,
	LearningRate: 0.2,
	L2:           1e-5,
	// Attacks weigh as much as all benign text together.
	TargetPrecision: 0.97,
	Note:            "go run ./internal/scan/internal/train (issue 22)",
}

// ValidShare is the share of each training source held back (by a hash of
// the text) to stop training and choose the threshold.
const ValidShare = 0.15

// MaxBenignFPR is the highest share of validation benign text the
// threshold may block on its own.
const MaxBenignFPR = 0.001

// Example is a training example with the source it came from.
type Example struct {
	textclf.Example
	Source string
}

// Examples loads every source whose role is Train and whose name skip does
// not reject, featurised as the scanner sees it (learned.Input), and splits
// them into training and validation sets.
func Examples(root string, skip func(name string) bool) (train, valid []Example, err error) {
	if learned.Input == nil {
		return nil, nil, fmt.Errorf("fit: package scan is not linked (learned.Input is nil)")
	}
	for _, s := range corpus.Sources() {
		if s.Role != corpus.Train || (skip != nil && skip(s.Name)) {
			continue
		}
		samples, err := s.Load(root)
		if err != nil {
			return nil, nil, err
		}
		for _, x := range samples {
			v, d := learned.Input(x.Text)
			e := Example{Example: textclf.Example{Text: v, Dense: d, Label: x.Attack}, Source: s.Name}
			if InValidation(x.Text) {
				valid = append(valid, e)
			} else {
				train = append(train, e)
			}
		}
	}
	return train, valid, nil
}

// InValidation reports whether a text belongs to the validation share.
func InValidation(text string) bool {
	h := fnv.New64a()
	h.Write([]byte("valid:"))
	h.Write([]byte(text))
	return float64(h.Sum64()>>11)/float64(1<<53) < ValidShare
}

// Fit trains a model on train, stops on valid, and sets its threshold to
// the higher of the one for the target precision and the one that blocks
// at most MaxBenignFPR of the validation benign text.
func Fit(train, valid []Example) (*textclf.Model, textclf.Report, error) {
	tc := Settings
	tc.Dense = learned.DenseNames
	m, rep, err := textclf.Train(tc, plain(train), plain(valid))
	if err != nil {
		return nil, rep, err
	}
	var neg []float64
	for _, e := range valid {
		if !e.Label {
			neg = append(neg, m.Score(e.Text, e.Dense))
		}
	}
	if t := textclf.ThresholdForFPR(neg, MaxBenignFPR); t > m.Threshold() {
		m.SetThreshold(t)
	}
	return m, rep, nil
}

func plain(es []Example) []textclf.Example {
	out := make([]textclf.Example, len(es))
	for i := range es {
		out[i] = es[i].Example
	}
	return out
}
