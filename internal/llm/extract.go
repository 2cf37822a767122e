package llm

import (
	"context"
	"fmt"
	"github.com/odekmem/odekmem/internal/textutil"
	"math"
	"strconv"
	"strings"
)

// ExtractionPrompt is the per-turn extraction system prompt: the design's
// (EXTENDED_MEMORY.md, "Per-Turn Extraction") with one rule added: every
// atom carries the quote it rests on, which the caller checks against the
// person's own words (issue 21).
const ExtractionPrompt = `You are a memory extraction system. Read the user message and extract durable, reusable atomic memories.

For each atom, output an object with:
- "text": a concise, first-person-paraphrased statement (not a command).
- "type": one of "fact", "preference", "intent", "decision", "goal", "convention", "file", "error", "question".
- "confidence": a number 0.0-1.0 indicating how certain the memory is.
- "quote": the exact words of the user message the atom rests on, copied character for character (a sentence or part of one). An atom without a quote, or whose quote is not the user's own words, is not stored as the user's.

Rules:
- Only extract stable information worth recalling in future sessions.
- Do NOT extract instructions, commands, or requests to perform actions.
- Do NOT extract ephemeral details specific only to this message.
- If nothing durable is present, return an empty array.

Output ONLY a JSON array. Example:
[{"text":"User prefers concise answers","type":"preference","confidence":0.9,"quote":"keep your answers short"}]`

// Limits applied to extraction output.
const (
	MaxCandidates     = 20   // at most this many candidates per message
	DefaultConfidence = 0.8  // confidence when the model gives none
	maxCandidateRunes = 1000 // the caller applies atom_max_chars; this only bounds garbage
)

// AtomTypes are the nine primary atom types, in the design's order.
var AtomTypes = []string{"fact", "preference", "intent", "decision", "goal", "convention", "file", "error", "question"}

// TypeObservation is the legacy type unknown types are normalised to.
const TypeObservation = "observation"

// Candidate is one extracted memory. It deliberately has no source class:
// provenance is decided by the caller (per-turn extraction stores
// user_said), never by model output.
type Candidate struct {
	Text       string
	Type       string
	Confidence float64
	// Quote is the words of the message the model says the memory rests
	// on ("" when it gave none). The caller verifies it; nothing here
	// does.
	Quote string
}

// NormalizeType maps a model-supplied type to one of AtomTypes, or to
// "observation" when it is not one of them (case and surrounding space are
// ignored; a plural such as "preferences" is accepted).
func NormalizeType(t string) string {
	t = strings.ToLower(strings.TrimSpace(t))
	for _, k := range AtomTypes {
		if t == k || t == k+"s" {
			return k
		}
	}
	return TypeObservation
}

// Extract runs per-turn extraction of message with the design's prompt.
// Wrapped untrusted content is removed first (StripUntrusted). With
// a nil Client it returns ExtractRules(message) and no error (the offline
// path). A client failure or unusable output is an error and no candidates;
// callers may then fall back to ExtractRules themselves.
//
// Output handling: types are normalised (NormalizeType), confidence is
// clamped to [0,1] (missing or non-numeric means 0.8), empty or duplicate
// texts are dropped, whitespace is collapsed, and at most 20 candidates are
// kept. Unknown fields (including any "source" the model invents) are
// ignored.
func Extract(ctx context.Context, c Client, message string) ([]Candidate, error) {
	message = StripUntrusted(message)
	if c == nil {
		return ExtractRules(message), nil
	}
	if strings.TrimSpace(message) == "" {
		return nil, nil
	}
	raw, err := ask(ctx, c, "extract", prompt(ExtractionPrompt, message))
	if err != nil {
		return nil, err
	}
	items, err := ParseArray(raw, 0)
	if err != nil {
		return nil, fmt.Errorf("llm: extract: parse reply: %w", err)
	}
	return candidatesFrom(items), nil
}

func candidatesFrom(items []map[string]any) []Candidate {
	out := []Candidate{}
	seen := map[string]bool{}
	for _, it := range items {
		if len(out) >= MaxCandidates {
			break
		}
		tv, _ := lookup(it, "text")
		text, _ := tv.(string)
		text = cleanText(text, maxCandidateRunes)
		if text == "" {
			continue
		}
		key := strings.ToLower(text)
		if seen[key] {
			continue
		}
		seen[key] = true
		typ, _ := lookup(it, "type")
		ts, _ := typ.(string)
		cv, _ := lookup(it, "confidence")
		qv, _ := lookup(it, "quote")
		q, _ := qv.(string)
		out = append(out, Candidate{Text: text, Type: NormalizeType(ts), Confidence: confidence(cv, DefaultConfidence),
			Quote: textutil.Clip(strings.TrimSpace(q), maxCandidateRunes)})
	}
	return out
}

// confidence reads a number (or numeric string) and clamps it to [0,1];
// anything else gives def.
func confidence(v any, def float64) float64 {
	var f float64
	switch t := v.(type) {
	case float64:
		f = t
	case string:
		p, err := strconv.ParseFloat(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(t), "%")), 64)
		if err != nil {
			return def
		}
		if strings.HasSuffix(strings.TrimSpace(t), "%") {
			p /= 100
		}
		f = p
	default:
		return def
	}
	if math.IsNaN(f) {
		return def
	}
	return math.Max(0, math.Min(1, f))
}
