package memcore

import (
	"context"
	"sort"
	"strings"
	"time"

	"github.com/odekmem/odekmem/internal/textutil"
	"github.com/odekmem/odekmem/memcore/llm"
)

// Per-turn extraction. The person's message is split by the shared
// judgement of pasted text (pasted.go): what the extractor finds in the
// person's own sentences is user_said; what it finds in a paste — a log,
// a stack trace, a web page, an e-mail, a fenced block — was written by
// someone else, so it is quarantined with the source class of what it
// looks like (tool_output, web, file_read) and the reason "tainted:
// pasted <kind> in the person's message". Each part is extracted on its
// own, so no candidate mixes the two.

// extractPart is one part of a message for extraction.
type extractPart struct {
	text   string
	source string // SourceUserSaid for the person's own text
	reason string // the quarantine reason of a pasted part
}

// pastedReasonPrefix starts the quarantine reason of what extraction found
// in pasted text.
const pastedReasonPrefix = "tainted: pasted "

// turnParts splits a message for extraction: the person's own text first,
// then the pasted regions grouped by source class (in the order the classes
// first appear), each group naming its kinds.
func turnParts(msg string) []extractPart {
	p := splitPasted(msg)
	var parts []extractPart
	if own := strings.TrimSpace(p.own); own != "" {
		parts = append(parts, extractPart{text: own, source: SourceUserSaid})
	}
	type group struct {
		texts []string
		kinds []string
		first int
	}
	groups := map[string]*group{}
	for i, r := range p.regions {
		text := strings.TrimSpace(r.text)
		if r.marked {
			text = strings.TrimSpace(stripMarks(text))
		}
		if text == "" {
			continue
		}
		src := r.kind.sourceClass()
		g := groups[src]
		if g == nil {
			g = &group{first: i}
			groups[src] = g
		}
		g.texts = append(g.texts, text)
		if k := string(r.kind); !containsString(g.kinds, k) {
			g.kinds = append(g.kinds, k)
		}
	}
	srcs := make([]string, 0, len(groups))
	for s := range groups {
		srcs = append(srcs, s)
	}
	sort.Slice(srcs, func(i, j int) bool { return groups[srcs[i]].first < groups[srcs[j]].first })
	for _, src := range srcs {
		g := groups[src]
		parts = append(parts, extractPart{text: strings.Join(g.texts, "\n\n"), source: src,
			reason: textutil.Truncate(pastedReasonPrefix+strings.Join(g.kinds, ", ")+" in the person's message", 200)})
	}
	return parts
}

// stripMarks removes the fence lines and "> " quote marks of a marked
// region, leaving its text.
func stripMarks(text string) string {
	lines := strings.Split(text, "\n")
	out := lines[:0]
	for _, l := range lines {
		t := strings.TrimSpace(l)
		if isFenceLine(t) {
			continue
		}
		if rest, ok := quotedLine(t); ok {
			l = rest
		}
		out = append(out, l)
	}
	return strings.Join(out, "\n")
}

func containsString(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

// extract runs per-turn extraction over one part: the memory LLM, or the
// rules when there is none or it fails (with a warning).
func (h *Hook) extract(ctx context.Context, msg string) ([]llm.Candidate, string, string) {
	if h.llm == nil {
		return llm.ExtractRules(msg), "rules", ""
	}
	cctx, cancel := h.llmCtx(ctx)
	defer cancel()
	c, err := llm.Extract(cctx, h.llm, msg)
	if err != nil {
		return llm.ExtractRules(msg), "rules", "extraction LLM failed (" + err.Error() + "); rule-based extraction used"
	}
	return c, "llm", ""
}

// extractTurn extracts every part of a message and returns the requests
// to store, the extractor used ("llm" or "rules"; "rules" when any part
// fell back) and warnings.
func (h *Hook) extractTurn(ctx context.Context, msg string, at AtomContext, when time.Time) ([]AddRequest, string, []string) {
	var reqs []AddRequest
	var warnings []string
	how := ""
	for _, part := range turnParts(msg) {
		cands, used, warning := h.extract(ctx, part.text)
		if how == "" || used == "rules" {
			how = used
		}
		if warning != "" {
			warnings = append(warnings, warning)
		}
		for _, c := range cands {
			reqs = append(reqs, AddRequest{Text: c.Text, Type: c.Type, Confidence: c.Confidence, Source: part.source,
				quarantineReason: part.reason, CreatedAt: when, Context: at})
		}
	}
	return reqs, how, warnings
}
