package eval

import (
	"context"
	"fmt"
	"os"

	"github.com/odekmem/odekmem/internal/judge"
	"github.com/odekmem/odekmem/internal/judge/corpus"
	"github.com/odekmem/odekmem/memcore"
)

// RunJudgement sends every labelled message of recs through the path a
// hook's prompt takes — memcore.Hook.RecordUserMessage on a fresh store,
// one agent session per message, with the Config of o (its memory LLM
// too, if it names one) — and scores what each message left: trusted
// atoms, the lane, the quarantine (judge.Evaluate).
func RunJudgement(ctx context.Context, recs []corpus.Record, o Options) (judge.Report, error) {
	dir, err := os.MkdirTemp("", "odekmem-judgement-")
	if err != nil {
		return judge.Report{}, err
	}
	defer os.RemoveAll(dir)
	cfg := memcore.DefaultConfig()
	if o.Config != nil {
		cfg = *o.Config
	}
	// What a message leaves is the question; the user model, predicted
	// intents and associations are not.
	cfg.NoUserStateInference = true
	cfg.NoAssociations = true
	opts := memcore.Options{Config: &cfg}
	if o.Embedder != nil {
		emb, err := o.Embedder()
		if err != nil {
			return judge.Report{}, err
		}
		opts.Embedder = emb
	}
	st, err := memcore.Open(ctx, dir, opts)
	if err != nil {
		return judge.Report{}, err
	}
	defer st.Close(context.Background())
	h := memcore.NewHook(st)
	defer h.Close(ctx)
	left := map[string][]judge.Memory{}
	for i, r := range recs {
		rr, err := h.RecordUserMessage(ctx, memcore.Turn{Message: r.Message, SessionID: "eval-" + r.ID, Project: "eval"})
		if err != nil {
			return judge.Report{}, fmt.Errorf("%s: %w", r.ID, err)
		}
		var ms []judge.Memory
		for _, a := range rr.Added {
			switch {
			case a.Quarantined:
				ms = append(ms, judge.Memory{Text: a.Atom.Text, Outcome: judge.OutQuarantined})
			case a.Atom.SourceClass == memcore.SourceUserSaid || a.Atom.SourceClass == memcore.SourceUserApproved:
				ms = append(ms, judge.Memory{Text: a.Atom.Text, Outcome: judge.OutTrusted})
			}
		}
		for _, e := range rr.Lane {
			ms = append(ms, judge.Memory{Text: e.Text, Outcome: judge.OutLane})
		}
		left[r.ID] = ms
		if o.Progress != nil {
			o.Progress(i+1, len(recs))
		}
	}
	return judge.Evaluate(recs, func(r corpus.Record) []judge.Memory { return left[r.ID] }), nil
}
