package cli

import (
	"fmt"
	"os"
	"sort"
	"strconv"
	"text/tabwriter"

	"github.com/odekmem/odekmem/memcore"
	"github.com/odekmem/odekmem/memcore/eval"
)

func cmdEval(c *ctx) error {
	if len(c.p.pos) != 2 || c.p.pos[0] != "locomo" {
		return usagef("expected eval locomo FILE [--k 10] [--json]")
	}
	k := 10
	if s := c.p.flags["k"]; s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 {
			return usagef("--k must be a positive integer, got %q", s)
		}
		k = n
	}
	limit := 0
	if s := c.p.flags["limit"]; s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 0 {
			return usagef("--limit must be a non-negative integer, got %q", s)
		}
		limit = n
	}
	f, err := os.Open(c.p.pos[1])
	if err != nil {
		return fmt.Errorf("eval: %w", err)
	}
	convs, err := eval.ParseLoCoMo(f)
	f.Close()
	if err != nil {
		return err
	}
	cfg := c.settings.Extended
	embCfg := c.settings.EffectiveEmbedding()
	rep, err := eval.Run(c, convs, eval.Options{K: k, Config: &cfg, Limit: limit,
		Embedder: func() (memcore.Embedder, error) { return memcore.NewEmbedder(embCfg) },
		Progress: func(done, total int) {
			if !c.json {
				fmt.Fprintf(c.env.Stderr, "\rconversation %d/%d", done, total)
				if done == total {
					fmt.Fprintln(c.env.Stderr)
				}
			}
		}})
	if err != nil {
		return err
	}
	if c.json {
		return c.emitJSON(rep)
	}
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
	return nil
}
