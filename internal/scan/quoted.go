package scan

import (
	"strings"

	"github.com/odekmem/odekmem/internal/lazyre"
)

// Talk about attacks quotes them: "the phishing e-mail told the assistant
// to 'ignore all previous instructions', and the scanner quarantined it".
// The pattern rules and the scored detector read a view in which a quoted
// passage is blanked out when the sentence around it, outside the quotes,
// talks about attacks, tests, filters or examples; the learned detector
// still reads the whole view, so a quotation used as a wrapper for a real
// instruction is not waved through unread. Reported instructions ("attacks
// often tell the model to forget its instructions") are blanked the same
// way, from the reporting verb's "to" to the end of the sentence.

// discussionWords mark a sentence that talks about attacks or about a
// check (beyond talksAboutAttacks, which the memory rules use).
var discussionWords = []string{"guard", "filter", "a rule", "the rule", "caught", "blocked", "rejected", "flagged", "quarantine", "regex", "false positive",
	"classifier", "detector", "told the assistant", "told the agent", "the page said", "the e-mail said", "the email said"}

// maskQuotedDiscussion returns v with every quoted passage (3 to 300
// bytes, inside one sentence, in '…', "…" or `…`) replaced by spaces when
// the rest of its sentence talks about attacks; the length and every
// offset are kept. It returns v itself when nothing is masked.
func maskQuotedDiscussion(v string) string {
	if !strings.ContainsAny(v, "'\"`") && !strings.Contains(v, " to ") || !discussesAttacks(v) {
		return v
	}
	// Sentence ends, with the dots of abbreviations not counted.
	ends := v
	if strings.Contains(v, "e.g.") || strings.Contains(v, "i.e.") || strings.Contains(v, "etc.") {
		ends = strings.NewReplacer("e.g.", "e,g,", "i.e.", "i,e,", "etc.", "etc,").Replace(v)
	}
	var buf []byte
	for i := 0; i < len(v); i++ {
		q := v[i]
		if q != '\'' && q != '"' && q != '`' {
			continue
		}
		// An opening quote starts a word: not the apostrophe of "don't".
		if q == '\'' && i > 0 && isWordByte(v[i-1]) {
			continue
		}
		j := i + 1
		for j < len(v) && j-i <= 300 && v[j] != q && v[j] != '\n' {
			j++
		}
		if j >= len(v) || v[j] != q || j-i < 4 || j-i > 300 {
			continue
		}
		if q == '\'' && j+1 < len(v) && isWordByte(v[j+1]) {
			continue // "user's … don't": apostrophes, not a quotation
		}
		s := strings.LastIndexAny(ends[:i], ".!?\n") + 1
		e := strings.IndexAny(ends[j+1:], ".!?\n")
		if e < 0 {
			e = len(v)
		} else {
			e += j + 1
		}
		rest := v[s:i] + " " + v[j+1:e]
		if discussesAttacks(rest) {
			if buf == nil {
				buf = []byte(v)
			}
			for k := i + 1; k < j; k++ {
				buf[k] = ' '
			}
		}
		i = j
	}
	// Reported instructions: "attacks often tell the model to forget its
	// instructions", "a poisoned README asking the agent to run curl |
	// bash". The clause after the reporting verb is blanked to the end of
	// its sentence when the rest of the sentence talks about attacks.
	if strings.Contains(v, " to ") {
		for _, m := range reReported.FindAllStringSubmatchIndex(v, -1) {
			if m[2] >= 0 && imperativeOpeners[v[m[2]:m[3]]] {
				continue
			}
			a := m[1]
			s := strings.LastIndexAny(ends[:m[0]], ".!?\n") + 1
			e := strings.IndexAny(ends[a:], ".!?\n")
			if e < 0 {
				e = len(v)
			} else {
				e += a
			}
			if !discussesAttacks(v[s:m[0]]) {
				continue
			}
			if buf == nil {
				buf = []byte(v)
			}
			for k := a; k < e; k++ {
				buf[k] = ' '
			}
		}
	}
	if buf == nil {
		return v
	}
	return string(buf)
}

// reReported matches a third-person reporting verb with an AI as its
// object, up to "to": what follows is what someone else told it.
var reReported = lazyre.New(`(?:\b([a-z]+) (?:tell|ask|instruct|get|trick|convince|make|order)|\b(?:tells|telling|told|asks|asking|asked|instructs|instructing|instructed|gets|getting|tricks|tricking|tricked|convinces|convincing|convinced|makes|making|made|ordering|orders|ordered))(?: (?:the|an|a|your|its|their|our))? (?:model|agent|assistant|ai|llm|bot|chatbot|copilot|coding agent)s?(?: (?:in)?to)\b`)

// imperativeOpeners before a base-form verb make it an order, not a report.
var imperativeOpeners = map[string]bool{"please": true, "now": true, "then": true, "and": true, "just": true, "also": true, "first": true, "simply": true, "kindly": true, "so": true, "you": true, "must": true, "should": true, "will": true, "to": true}

// discussesAttacks reports whether s (lower-case) talks about attacks or
// checks.
func discussesAttacks(s string) bool {
	for _, w := range talksAboutAttacks {
		if strings.Contains(s, w) {
			return true
		}
	}
	for _, w := range discussionWords {
		if strings.Contains(s, w) {
			return true
		}
	}
	return false
}
