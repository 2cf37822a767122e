package memcore

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/odekmem/odekmem/internal/judge"
	"github.com/odekmem/odekmem/internal/judge/corpus"
	"github.com/odekmem/odekmem/internal/llm"
	"github.com/odekmem/odekmem/internal/provenance"
	"github.com/odekmem/odekmem/internal/textutil"
)

// Per-turn extraction never puts words in the person's mouth.
//
// Offline (no memory LLM), the judgement of internal/judge decides about
// every clause of the message: whose words it is (internal/provenance:
// the person's own voice, or pasted, quoted, reported, hypothetical,
// questioned, retracted, sarcastic) and whether it is a durable statement
// (a classifier). A trusted memory is the person's own clause verbatim —
// trimmed of a trailing request, never rewritten into "User convention:
// …"; its type is a label beside it. What the judgement is unsure about
// waits in the lane (lane.go). A durable-sounding clause of a paste is
// someone else's words: it is quarantined with the source class of what
// the paste looks like (tool_output, web, file_read) and the reason
// "tainted: pasted <kind> in the person's message".
//
// With a memory LLM, each memory must come with the quote it rests on.
// The quote must be a span of one clause in the person's own voice that
// passes the verbatim rule's meaning checks (verbatim.go); then the
// memory is trusted and the quote is stored beside it (Atom.Quote). A
// quote inside a paste sends the memory to the quarantine; a quote that
// does not verify otherwise sends it to the lane.

// pastedReasonPrefix starts the quarantine reason of what extraction found
// in pasted text.
const pastedReasonPrefix = "tainted: pasted "

// pastedReason is the quarantine reason of a clause from a paste of kind.
func pastedReason(k provenance.Kind) string {
	return textutil.Truncate(pastedReasonPrefix+string(k)+" in the person's message", 200)
}

// extracted is what one message gives per-turn extraction.
type extracted struct {
	add  []AddRequest
	lane []LaneEntry
	how  string // "judge" or "llm"
	warn []string
}

// extractTurn judges one message (see above).
func (h *Hook) extractTurn(ctx context.Context, msg string, at AtomContext, when time.Time) extracted {
	res, err := judge.Judge(msg)
	if err != nil {
		return extracted{how: "judge", warn: []string{"judgement unavailable: " + err.Error()}}
	}
	if h.llm == nil {
		return h.fromJudge(res, msg, at, when)
	}
	ex, err := h.fromLLM(ctx, res, msg, at, when)
	if err != nil {
		ex = h.fromJudge(res, msg, at, when)
		ex.warn = append(ex.warn, "extraction LLM failed ("+err.Error()+"); the offline judgement was used")
	}
	return ex
}

// llmParts splits a message for the memory LLM as the analyser sees it:
// the person's text (pasted lines emptied), then the pasted regions
// grouped by source class, each group naming its kinds. The LLM never
// reads a paste and the person's words in one request, so no memory mixes
// the two.
func llmParts(a provenance.Analysis) (own string, pasted []pastedPart) {
	p := a.Pasted
	lines := make([]string, len(p.Lines))
	for i, l := range p.Lines {
		if p.Kinds[i] == "" {
			lines[i] = l
		}
	}
	own = strings.TrimSpace(strings.Join(lines, "\n"))
	groups := map[Source]*pastedPart{}
	var order []Source
	for _, r := range p.Regions {
		text := r.Text
		if r.Marked {
			text = stripMarks(text)
		}
		text = strings.TrimSpace(text)
		if text == "" {
			continue
		}
		src := Source(r.Kind.Source())
		g := groups[src]
		if g == nil {
			g = &pastedPart{source: src}
			groups[src] = g
			order = append(order, src)
		}
		g.texts = append(g.texts, text)
		if !slices.Contains(g.kinds, r.Kind) {
			g.kinds = append(g.kinds, r.Kind)
		}
	}
	for _, src := range order {
		pasted = append(pasted, *groups[src])
	}
	return own, pasted
}

// pastedPart is the pasted text of one source class.
type pastedPart struct {
	source Source
	kinds  []provenance.Kind
	texts  []string
}

// reason is the quarantine reason of what the LLM found in the part.
func (p pastedPart) reason() string {
	var ks []string
	for _, k := range p.kinds {
		ks = append(ks, string(k))
	}
	return textutil.Truncate(pastedReasonPrefix+strings.Join(ks, ", ")+" in the person's message", 200)
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

// fromJudge turns the judgement's candidates into requests.
func (h *Hook) fromJudge(res judge.Result, msg string, at AtomContext, when time.Time) extracted {
	ex := extracted{how: "judge"}
	for _, c := range res.Candidates {
		switch c.Decision {
		case judge.Trust:
			ex.add = append(ex.add, AddRequest{Text: c.Text, Type: Type(c.Type), Confidence: confidenceOf(c.Score), Source: SourceUserSaid,
				CreatedAt: when, Context: at})
		case judge.Quarantine:
			ex.add = append(ex.add, AddRequest{Text: c.Text, Type: Type(c.Type), Confidence: 0.5, Source: Source(c.Kind.Source()),
				quarantineReason: pastedReason(c.Kind), CreatedAt: when, Context: at})
		case judge.Lane:
			ex.lane = append(ex.lane, LaneEntry{Text: c.Text, Type: Type(c.Type), Why: c.Why, Message: msg, Context: at, CreatedAt: when})
		}
	}
	return ex
}

// confidenceOf maps a trusted clause's score to the atom's confidence.
func confidenceOf(score float64) float64 { return min(1, max(0.6, score)) }

// fromLLM asks the memory LLM about the person's text and, apart, about
// each paste, and checks every memory of the person's text by its quote.
func (h *Hook) fromLLM(ctx context.Context, res judge.Result, msg string, at AtomContext, when time.Time) (extracted, error) {
	ex := extracted{how: "llm"}
	own, pasted := llmParts(res.Analysis)
	ask := func(text string) ([]llm.Candidate, error) {
		cctx, cancel := h.llmCtx(ctx)
		defer cancel()
		return llm.Extract(cctx, h.llm, text)
	}
	if own != "" {
		cands, err := ask(own)
		if err != nil {
			return ex, err
		}
		for _, c := range cands {
			if !durableType(Type(c.Type)) {
				continue
			}
			seg, ok, why := verifyQuote(res.Analysis, msg, c.Quote)
			switch {
			case ok:
				ex.add = append(ex.add, AddRequest{Text: c.Text, Type: Type(c.Type), Confidence: c.Confidence, Source: SourceUserSaid,
					quote: seg, CreatedAt: when, Context: at})
			case why == whyPasted:
				s, _ := res.Analysis.VoiceAt(quoteRange(res.Analysis.Text, c.Quote))
				ex.add = append(ex.add, AddRequest{Text: c.Text, Type: Type(c.Type), Confidence: c.Confidence, Source: Source(s.Kind.Source()),
					quote: c.Quote, quarantineReason: pastedReason(s.Kind), CreatedAt: when, Context: at})
			default:
				ex.lane = append(ex.lane, LaneEntry{Text: c.Text, Type: Type(c.Type), Quote: c.Quote,
					Why: "the memory LLM's quote does not verify: " + why, Message: msg, Context: at, CreatedAt: when})
			}
		}
	}
	for _, part := range pasted {
		cands, err := ask(strings.Join(part.texts, "\n\n"))
		if err != nil {
			return ex, err
		}
		for _, c := range cands {
			ex.add = append(ex.add, AddRequest{Text: c.Text, Type: Type(c.Type), Confidence: c.Confidence, Source: part.source,
				quote: c.Quote, quarantineReason: part.reason(), CreatedAt: when, Context: at})
		}
	}
	return ex, nil
}

// durableType reports whether an LLM memory's type is one the person
// states (not a question, an intent of the moment, a file mention or an
// observation).
func durableType(t Type) bool {
	switch t {
	case TypeQuestion, TypeIntent, TypeFile, TypeObservation:
		return false
	}
	return true
}

const whyPasted = "the quote is in text the person pasted"

// quoteRange finds quote in text (any run of white space matching any
// other), or -1, -1.
func quoteRange(text, quote string) (int, int) {
	s, e := corpus.FindQuote(text, strings.TrimSpace(quote))
	if s < 0 {
		s, e = corpus.FindQuote(strings.ToLower(text), strings.ToLower(strings.TrimSpace(quote)))
	}
	return s, e
}

// verifyQuote checks a memory LLM's quote: a span of one clause of the
// person's own voice that passes the verbatim rule's meaning checks. It
// returns the quote as it stands in the message, or why it does not
// verify.
func verifyQuote(a provenance.Analysis, msg, quote string) (string, bool, string) {
	quote = strings.TrimSpace(quote)
	if quote == "" {
		return "", false, "the memory came without a quote"
	}
	s, e := quoteRange(a.Text, quote)
	if s < 0 {
		return "", false, "the quote is not in the person's message"
	}
	seg, ok := a.VoiceAt(s, e)
	if !ok {
		return "", false, "the quote runs across clauses of different voices"
	}
	switch seg.Voice {
	case provenance.Own:
	case provenance.Pasted:
		return "", false, whyPasted
	default:
		return "", false, fmt.Sprintf("the quote is %s, not the person's statement (%s)", seg.Voice, seg.Why)
	}
	if ok, why := verbatimUserSpan(msg, a.Text[s:e]); !ok {
		return "", false, why
	}
	return a.Text[s:e], true, ""
}
