// Command train makes the judgement's model files from the corpus's
// training split: the durable-statement model, the type models and the
// thresholds (internal/judge/model). The same corpus gives the same bytes:
// run it from the repository root with `go run ./internal/judge/train`
// (make judge-model); -check compares instead of writing.
//
// The thresholds are chosen on out-of-fold scores of a five-fold
// cross-validation over the training split, grouped by message: trust at
// the lowest score whose precision reaches -precision among the person's
// own clauses, the lane at the one that reaches -lane-precision. The held-out split (corpus/eval.txt) is never read.
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"hash/fnv"
	"os"
	"path/filepath"

	"github.com/odekmem/odekmem/internal/judge"
	"github.com/odekmem/odekmem/internal/judge/corpus"
	"github.com/odekmem/odekmem/internal/provenance"
	"github.com/odekmem/odekmem/internal/textclf"
)

const folds = 5

var (
	out              = flag.String("out", "internal/judge/model", "directory of the model files")
	check            = flag.Bool("check", false, "compare with the files in -out instead of writing them")
	precision        = flag.Float64("precision", 0.92, "out-of-fold precision the trust threshold is chosen for")
	lanePrecision    = flag.Float64("lane-precision", 0.7, "out-of-fold precision the lane threshold is chosen for")
	requestPrecision = flag.Float64("request-precision", 0.9, "out-of-fold precision, among commands with no word of a standing rule, their trust threshold is chosen for")
	verbose          = flag.Bool("v", false, "print the cross-validated evaluation's failures")
	noChar           = flag.Bool("nochar", true, "leave out character n-grams")
	bits             = flag.Int("bits", 0, "hash bits (0: textclf's default)")
	l2               = flag.Float64("l2", 0, "L2 strength (0: textclf's default)")
	epochs           = flag.Int("epochs", 0, "most epochs (0: textclf's default)")
	attackWeight     = flag.Float64("attack-weight", 1, "weight of an attacker's sentence the analyser missed, as a negative")
)

// types are the atom types the type models tell apart: those of the
// corpus's types with at least minTypeExamples durable clauses.
var types []string

const minTypeExamples = 5

func main() {
	flag.Parse()
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "train:", err)
		os.Exit(1)
	}
}

func run() error {
	recs, err := corpus.Train()
	if err != nil {
		return err
	}
	exs := judge.Examples(recs)
	var use []judge.Example
	for _, e := range exs {
		if !e.Skip {
			use = append(use, e)
		}
	}
	pos := 0
	perType := map[string]int{}
	for _, e := range use {
		if e.Durable {
			pos++
			perType[e.Type]++
		}
	}
	for _, t := range corpus.Types {
		if perType[t] >= minTypeExamples {
			types = append(types, t)
		}
	}
	fmt.Printf("training split: %d messages, %d judged clauses (%d durable, %d not, %d left out)\n",
		len(recs), len(exs), pos, len(use)-pos, len(exs)-len(use))

	// Cross-validation, grouped by message.
	fold := func(id string) int {
		h := fnv.New32a()
		h.Write([]byte(id))
		return int(h.Sum32() % folds)
	}
	oof := make([]float64, len(use))
	var foldJudgers [folds]*judge.Judger
	for k := 0; k < folds; k++ {
		var tr []judge.Example
		for _, e := range use {
			if fold(e.Record) != k {
				tr = append(tr, e)
			}
		}
		d, ts, err := fit(tr, uint64(k+1))
		if err != nil {
			return err
		}
		for i, e := range use {
			if fold(e.Record) == k {
				oof[i] = d.Score(judge.ModelText(e.Seg.Text), e.Dense)
			}
		}
		foldJudgers[k], err = judge.New(d, ts, judge.Thresholds{Types: types})
		if err != nil {
			return err
		}
	}
	// Thresholds on the person's own clauses' out-of-fold scores.
	var ownScores []float64
	var ownLabels []bool
	for i, e := range use {
		if e.Seg.Voice == provenance.Own {
			ownScores = append(ownScores, oof[i])
			ownLabels = append(ownLabels, e.Durable)
		}
	}
	trust, p, r := textclf.ThresholdForPrecision(ownScores, ownLabels, *precision)
	if *verbose {
		for _, target := range []float64{0.8, 0.85, 0.9, 0.95, 0.98} {
			t, p, r := textclf.ThresholdForPrecision(ownScores, ownLabels, target)
			fmt.Printf("  precision ≥ %.2f: threshold %.3f, precision %.3f, recall %.3f\n", target, t, p, r)
		}
	}
	lane, lp, lr := textclf.ThresholdForPrecision(ownScores, ownLabels, *lanePrecision)
	lane = min(lane, trust)
	// Commands with no word of a standing rule ("Use httpx for HTTP in
	// Python", "Rewrite this function"): trusted only above a threshold
	// chosen for the same precision among them alone.
	var reqScores []float64
	var reqLabels []bool
	for i, e := range use {
		if e.Seg.Voice == provenance.Own && judge.MayBeRequest(e.Dense) {
			reqScores = append(reqScores, oof[i])
			reqLabels = append(reqLabels, e.Durable)
		}
	}
	req, rp, rr := textclf.ThresholdForPrecision(reqScores, reqLabels, *requestPrecision)
	if rp < *requestPrecision {
		req = 0 // never reached: commands stay in the lane
	}
	req = max(req, trust)
	th := judge.Thresholds{Trust: round(trust), Lane: round(lane), Request: round(req), Types: types,
		Note: fmt.Sprintf("5-fold cross-validation on the training split: trust %.3f (precision %.3f, recall %.3f on own clauses), lane %.3f (precision %.3f, recall %.3f), commands %.3f (precision %.3f, recall %.3f on %d of them)",
			round(trust), p, r, round(lane), lp, lr, round(req), rp, rr, len(reqScores))}
	fmt.Println(th.Note)

	// The figures of the held-out evaluation, out of fold on the training
	// split.
	rep := judge.Evaluate(recs, func(rec corpus.Record) []judge.Memory {
		j := foldJudgers[fold(rec.ID)]
		j.SetThresholds(th)
		return j.Judge(rec.Message).Memories()
	})
	fmt.Println("\ncross-validated on the training split (not the held-out figures):")
	rep.Write(os.Stdout)
	if *verbose {
		for _, f := range rep.Failures {
			fmt.Println(" ", f)
		}
	}

	// The final models, on the whole training split.
	d, ts, err := fit(use, 0)
	if err != nil {
		return err
	}
	d.SetThreshold(th.Trust)
	db, err := d.MarshalBinary()
	if err != nil {
		return err
	}
	var tbs [][]byte
	for _, t := range ts {
		b, err := t.MarshalBinary()
		if err != nil {
			return err
		}
		tbs = append(tbs, b)
	}
	thb, err := json.MarshalIndent(th, "", "  ")
	if err != nil {
		return err
	}
	files := map[string][]byte{
		"durable.tclf":    db,
		"types.tclf":      judge.JoinModels(tbs),
		"thresholds.json": append(thb, '\n'),
	}
	names := []string{"durable.tclf", "types.tclf", "thresholds.json"}
	for _, n := range names {
		path := filepath.Join(*out, n)
		if *check {
			old, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			if !bytes.Equal(old, files[n]) {
				return fmt.Errorf("%s differs from what the corpus trains (%d bytes, trained %d): run make judge-model", path, len(old), len(files[n]))
			}
			continue
		}
		if err := os.WriteFile(path, files[n], 0o644); err != nil {
			return err
		}
	}
	if *check {
		fmt.Println("\nthe model files match the corpus")
	} else {
		fmt.Printf("\nwrote %s (durable %d bytes, types %d bytes)\n", *out, len(db), len(files["types.tclf"]))
	}
	return nil
}

// round keeps thresholds readable and stable in JSON.
func round(x float64) float64 { return float64(int(x*1000+0.5)) / 1000 }

// fit trains the durable model and the type models on examples.
func fit(exs []judge.Example, seed uint64) (*textclf.Model, []*textclf.Model, error) {
	var dx []textclf.Example
	for _, e := range exs {
		w := 1.0
		if e.Attack && !e.Durable {
			w = *attackWeight
		}
		dx = append(dx, textclf.Example{Text: judge.ModelText(e.Seg.Text), Dense: e.Dense, Label: e.Durable, Weight: w})
	}
	d, _, err := textclf.Train(textclf.TrainConfig{Features: textclf.Config{NoCharGrams: *noChar, Bits: *bits}, L2: *l2, Epochs: *epochs,
		Dense: judge.Dense, Seed: 21 + seed, Note: "judge durable model: go run ./internal/judge/train"}, dx, nil)
	if err != nil {
		return nil, nil, fmt.Errorf("durable model: %w", err)
	}
	var ts []*textclf.Model
	for _, typ := range types {
		var tx []textclf.Example
		for _, e := range exs {
			if e.Durable {
				tx = append(tx, textclf.Example{Text: judge.ModelText(e.Seg.Text), Dense: e.Dense, Label: e.Type == typ})
			}
		}
		t, _, err := textclf.Train(textclf.TrainConfig{Features: textclf.Config{Bits: 14, NoCharGrams: true}, Dense: judge.Dense, Seed: 121 + seed,
			Note: "judge type model " + typ + ": go run ./internal/judge/train"}, tx, tx) // rare types: no held-back share

		if err != nil {
			return nil, nil, fmt.Errorf("type model %s: %w", typ, err)
		}
		ts = append(ts, t)
	}
	return d, ts, nil
}
