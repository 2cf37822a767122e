package cli

import (
	"github.com/odekmem/odekmem/internal/llm"
	"github.com/odekmem/odekmem/internal/vocab"
)

// inferType labels a note given without --type as per-turn extraction
// labels a sentence (the rule-based extractor the offline pipeline and
// inline "remember that …" statements use): its type when every candidate
// it finds in the note agrees, else fact. inferred says whether a rule
// matched.
func inferType(text string) (typ string, inferred bool) {
	typ = vocab.TypeFact
	for i, c := range llm.ExtractRules(text) {
		if !vocab.ValidType(c.Type) || (i > 0 && c.Type != typ) {
			return vocab.TypeFact, false
		}
		typ, inferred = c.Type, true
	}
	return typ, inferred
}
