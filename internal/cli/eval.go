package cli

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"sort"
	"strconv"
	"text/tabwriter"

	"github.com/odekmem/odekmem/internal/config"
	"github.com/odekmem/odekmem/internal/eval"
	"github.com/odekmem/odekmem/internal/judge"
	"github.com/odekmem/odekmem/internal/judge/corpus"
	"github.com/odekmem/odekmem/internal/procstart"
	"github.com/odekmem/odekmem/memcore"
)

// LoCoMoReport is `eval locomo --dated --json`: the undated and the dated
// run of the same file, side by side.
type LoCoMoReport struct {
	Undated eval.Report `json:"undated"`
	Dated   eval.Report `json:"dated"`
}

func cmdEval(c *ctx) error {
	procstart.RestoreGC() // a bulk job: garbage from its input must be collected as it goes (procstart.DeferGC)
	if len(c.p.pos) == 0 {
		return usagef("expected eval locomo FILE [--dated] [--k 10] [--json] or eval aged [FILE] [--json]")
	}
	switch c.p.pos[0] {
	case "locomo":
		if len(c.p.pos) != 2 {
			return usagef("expected eval locomo FILE [--dated] [--k 10] [--limit N] [--json]")
		}
		return cmdEvalLoCoMo(c)
	case "aged":
		if len(c.p.pos) > 2 {
			return usagef("expected eval aged [FILE] [--json]")
		}
		return cmdEvalAged(c)
	case "judgement", "judgment":
		if len(c.p.pos) > 2 {
			return usagef("expected eval judgement [FILE] [--json]")
		}
		return cmdEvalJudgement(c)
	}
	return usagef("unknown evaluation %q: expected locomo, aged or judgement", c.p.pos[0])
}

func (c *ctx) evalOptions() (eval.Options, error) {
	k, err := c.intFlag("k", 10, 1)
	if err != nil {
		return eval.Options{}, err
	}
	limit, err := c.intFlag("limit", 0, 0)
	if err != nil {
		return eval.Options{}, err
	}
	cfg := c.settings.Extended // no memory LLM: evaluation measures retrieval
	embCfg := c.settings.EffectiveEmbedding()
	return eval.Options{K: k, Config: &cfg, Limit: limit,
		Embedder: func() (memcore.Embedder, error) { return config.NewEmbedder(embCfg) }}, nil
}

func cmdEvalLoCoMo(c *ctx) error {
	o, err := c.evalOptions()
	if err != nil {
		return err
	}
	f, err := os.Open(c.p.pos[1])
	if err != nil {
		return fmt.Errorf("eval: %w", err)
	}
	li := &lineIndex{r: f}
	convs, err := eval.ParseLoCoMo(li)
	f.Close()
	if err != nil {
		return fmt.Errorf("eval: %s: %w", c.p.pos[1], decodeError(err, li))
	}
	dated := c.p.bools["dated"]
	run := func(label string, dated bool) (eval.Report, error) {
		o := o
		o.Dated = dated
		o.Progress = func(done, total int) {
			switch {
			case c.json:
			case c.env.StderrIsTerminal: // one line, redrawn
				fmt.Fprintf(c.env.Stderr, "\r%s: conversation %d/%d", label, done, total)
				if done == total {
					fmt.Fprintln(c.env.Stderr)
				}
			default: // a pipe or a log: whole lines
				fmt.Fprintf(c.env.Stderr, "%s: conversation %d/%d\n", label, done, total)
			}
		}
		return eval.Run(c, convs, o)
	}
	undated, err := run("undated", false)
	if err != nil {
		return err
	}
	if !dated {
		if c.json {
			return c.emitJSON(undated)
		}
		c.printLoCoMo("", undated)
		return nil
	}
	withDates, err := run("dated", true)
	if err != nil {
		return err
	}
	if c.json {
		return c.emitJSON(LoCoMoReport{Undated: undated, Dated: withDates})
	}
	c.printLoCoMo("undated (every atom created at the same moment)", undated)
	c.out("\n")
	c.printLoCoMo("dated (each atom at its session's date; questions one day after the last session)", withDates)
	c.out("\nrecall@%d: undated %.3f, dated %.3f\n", undated.K, undated.Overall.Recall, withDates.Overall.Recall)
	return nil
}

func (c *ctx) printLoCoMo(title string, rep eval.Report) {
	if title != "" {
		c.out("%s\n", title)
	}
	k := rep.K
	c.out("LoCoMo evidence retrieval: %d conversations, %d turns (%d quarantined by the scanner), k=%d, embedder %s\n\n",
		rep.Conversations, rep.Turns, rep.Quarantined, rep.K, rep.Fingerprint)
	tw := tabwriter.NewWriter(c.env.Stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "category\tquestions\trecall@%d\thit@%d\tMRR\t\n", k, k)
	var cats []int
	for cat := range rep.ByCategory {
		cats = append(cats, cat)
	}
	sort.Ints(cats)
	for _, cat := range cats {
		m := rep.ByCategory[cat]
		fmt.Fprintf(tw, "%d %s\t%d\t%.3f\t%.3f\t%.3f\t\n", cat, eval.CategoryNames[cat], m.Questions, m.Recall, m.Hit, m.MRR)
	}
	m := rep.Overall
	fmt.Fprintf(tw, "overall\t%d\t%.3f\t%.3f\t%.3f\t\n", m.Questions, m.Recall, m.Hit, m.MRR)
	tw.Flush()
	c.out("\nrecall latency (query embedding included): p50 %s, p99 %s\n", rep.LatencyP50, rep.LatencyP99)
}

// cmdEvalJudgement runs the judgement's held-out split (or a FILE in the
// corpus format) through the hook's path and prints the figures of issue
// 21 with the table by category.
func cmdEvalJudgement(c *ctx) error {
	o, err := c.evalOptions()
	if err != nil {
		return err
	}
	// The offline path, what a default install does: evalOptions passes no
	// memory LLM.
	var recs []corpus.Record
	src := "the held-out split (internal/judge/corpus/eval.txt)"
	if len(c.p.pos) == 2 {
		f, err := os.Open(c.p.pos[1])
		if err != nil {
			return fmt.Errorf("eval: %w", err)
		}
		recs, err = corpus.Parse(f, c.p.pos[1])
		f.Close()
		if err != nil {
			return err
		}
		src = c.p.pos[1]
	} else if recs, err = corpus.Eval(); err != nil {
		return err
	}
	if !c.json {
		o.Progress = func(done, total int) {
			switch {
			case c.env.StderrIsTerminal && (done%25 == 0 || done == total):
				fmt.Fprintf(c.env.Stderr, "\rjudgement: message %d/%d", done, total)
				if done == total {
					fmt.Fprintln(c.env.Stderr)
				}
			case !c.env.StderrIsTerminal && (done%100 == 0 || done == total):
				// Off a terminal, whole lines: a log keeps one per step.
				fmt.Fprintf(c.env.Stderr, "judgement: message %d/%d\n", done, total)
			}
		}
	}
	rep, err := eval.RunJudgement(c, recs, o)
	if err != nil {
		return err
	}
	if c.json {
		return c.emitJSON(rep)
	}
	info, _ := judge.Info()
	c.out("judgement of %s through the hook's path (offline)\n%s\n\n", src, info)
	if err := rep.Write(c.env.Stdout); err != nil {
		return err
	}
	if c.p.bools["failures"] {
		c.out("\n")
		for _, f := range rep.Failures {
			c.out("%s\n", f)
		}
	}
	return nil
}

func cmdEvalAged(c *ctx) error {
	o, err := c.evalOptions()
	if err != nil {
		return err
	}
	var r io.Reader
	src := "the bundled fixture (testdata/aged/aged.json)"
	if len(c.p.pos) == 2 {
		f, err := os.Open(c.p.pos[1])
		if err != nil {
			return fmt.Errorf("eval: %w", err)
		}
		defer f.Close()
		r, src = f, c.p.pos[1]
	} else {
		if c.env.AgedFixture == nil {
			return fmt.Errorf("eval aged: this build has no bundled fixture; name one: eval aged FILE")
		}
		r = bytes.NewReader(c.env.AgedFixture)
	}
	li := &lineIndex{r: r}
	fx, err := eval.ParseAged(li)
	if err != nil {
		return fmt.Errorf("eval: %s: %w", src, decodeError(err, li))
	}
	rep, err := eval.RunAged(c, fx, o)
	if err != nil {
		return err
	}
	if c.json {
		return c.emitJSON(rep)
	}
	c.out("aged recall on %s: %d atoms, %d questions, embedder %s\n", src, rep.Atoms, rep.Questions, rep.Fingerprint)
	c.out("top-1 %.3f  top-3 %.3f  MRR@10 %.3f\n", rep.Top1, rep.Top3, rep.MRR)
	if len(rep.Misses) > 0 {
		c.out("\nnot first:\n")
		for _, m := range rep.Misses {
			rank := "not in top 10"
			if m.Rank > 0 {
				rank = "rank " + strconv.Itoa(m.Rank)
			}
			c.out("  %s (%s); first: %s\n", clip(m.Question, 80), rank, clip(m.First, 70))
		}
	}
	return nil
}
