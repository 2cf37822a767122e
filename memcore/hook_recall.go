package memcore

import (
	"context"
	"encoding/json"

	"github.com/odekmem/odekmem/internal/llm"
	"github.com/odekmem/odekmem/internal/scan"
)

// The Hook's recall: literal, predicted-intent and type-targeted searches
// in one pass, ranked by the composite or the memory LLM.

// literalResults are the literal and type-targeted literal searches of a
// message, run ahead of recall together with the anaphora search.
type literalResults struct {
	literal, typed []Scored
	typedRan       bool
}

// targetedTypes are the types of the design's type-targeted recall.
var targetedTypes = []Type{TypeConvention, TypeFile, TypeError}

// literalQueries are the literal search of msg and, when prediction is on,
// its type-targeted search.
func (h *Hook) literalQueries(msg string) []searchQuery {
	k := h.cfg.SemanticSearchTopK
	qs := []searchQuery{{Text: msg, Options: SearchOptions{K: k * max(1, h.cfg.SemanticSearchOverfetch)}}}
	if h.anticipates() {
		qs = append(qs, searchQuery{Text: msg, Options: SearchOptions{K: max(1, k/2), Types: targetedTypes}})
	}
	return qs
}

func (h *Hook) anticipates() bool {
	return h.cfg.FollowUpAnticipationEnabled && h.cfg.PredictiveIntents > 0
}

// recall is the design's recall pipeline with prediction and rerank:
// literal results, plus each predicted intent's results and type-targeted
// recall of conventions, files and errors, deduplicated and ranked by the
// composite (or by the memory LLM when rerank is on), top K. All the
// searches run in one pass over the index (Store.searchMany); pre holds
// the literal searches when they already ran with the anaphora search.
func (h *Hook) recall(ctx context.Context, msg string, recent []string, model UserModel, t Turn, warn func(string, ...any), pre *literalResults) ([]Scored, []string, bool, error) {
	k := h.cfg.SemanticSearchTopK
	if msg == "" || k <= 0 {
		return nil, nil, false, nil
	}
	pool := map[string]Scored{}
	addAll := func(res []Scored, via string) {
		for _, r := range res {
			r.Via = via
			if old, ok := pool[r.Atom.ID]; !ok || r.Composite > old.Composite {
				if ok && old.Via == "literal" {
					r.Via = old.Via
				}
				pool[r.Atom.ID] = r
			}
		}
	}
	var intents []string
	if h.anticipates() {
		intents = h.predict(ctx, msg, recent, model, warn)
	}
	// One pass: the literal searches (unless they ran already), then per
	// intent an open and a type-targeted search.
	var qs []searchQuery
	if pre == nil {
		qs = append(qs, h.literalQueries(msg)...)
	}
	first := len(qs)
	for _, in := range intents {
		qs = append(qs, searchQuery{Text: in, Options: SearchOptions{K: k}}, searchQuery{Text: in, Options: SearchOptions{K: max(1, k/2), Types: targetedTypes}})
	}
	res, err := h.store.searchMany(ctx, qs)
	if err != nil {
		return nil, nil, false, err
	}
	lit := pre
	if lit == nil {
		lit = &literalResults{literal: res[0]}
		if first > 1 {
			lit.typed, lit.typedRan = res[1], true
		}
	}
	// The union is built in the order the design lists the searches: the
	// literal results, each intent's results, the type-targeted literal
	// results (an atom keeps the first of equal composites).
	addAll(lit.literal, "literal")
	for i, in := range intents {
		addAll(res[first+2*i], "intent: "+in)
		addAll(res[first+2*i+1], "type: "+in)
	}
	if lit.typedRan {
		addAll(lit.typed, "type: literal")
	}
	cands := make([]Scored, 0, len(pool))
	for _, s := range pool {
		cands = append(cands, s)
	}
	sortScored(cands)
	cands = h.store.orderSupersededNow(cands)
	reranked := false
	if h.cfg.SemanticSearchRerank && h.llm != nil && len(cands) > 1 {
		seen := cands[:min(len(cands), 2*k)]
		items := make([]llm.RerankItem, len(seen))
		for i, c := range seen {
			items[i] = llm.RerankItem{ID: c.Atom.ID, Text: c.Atom.Text}
		}
		cctx, cancel := h.llmCtx(ctx)
		order, err := llm.Rerank(cctx, h.llm, msg, items)
		cancel()
		if err != nil {
			warn("rerank: %v (composite order kept)", err)
		} else {
			byID := map[string]Scored{}
			for _, c := range seen {
				byID[c.Atom.ID] = c
			}
			var out []Scored
			for _, id := range order {
				if c, ok := byID[id]; ok {
					out = append(out, c)
					delete(byID, id)
				}
			}
			for _, c := range seen {
				if _, left := byID[c.Atom.ID]; left {
					out = append(out, c)
				}
			}
			cands, reranked = h.store.orderSupersededNow(out), true
		}
	}
	if len(cands) > k {
		cands = cands[:k]
	}
	return cands, intents, reranked, nil
}

func (h *Hook) predict(ctx context.Context, msg string, recent []string, model UserModel, warn func(string, ...any)) []string {
	n := h.cfg.PredictiveIntents
	if h.llm == nil {
		return llm.PredictRules(msg, n)
	}
	cctx, cancel := h.llmCtx(ctx)
	defer cancel()
	mj, _ := json.Marshal(userModelFile(confirmedOnly(model)))
	out, err := llm.PredictIntents(cctx, h.llm, msg, recent, string(mj), n)
	if err != nil {
		warn("predict intents: %v (literal recall only)", err)
		return nil
	}
	var clean []string
	for _, in := range out {
		if !scan.Scan(in).Blocked() {
			clean = append(clean, in)
		}
	}
	return clean
}
