package llm

import (
	"context"
	"fmt"
	"github.com/odekmem/odekmem/internal/textutil"
	"strings"

	"github.com/odekmem/odekmem/internal/lazyre"
)

// MaxIntentRunes bounds each predicted intent.
const MaxIntentRunes = 200

// PredictPrompt is the system prompt for follow-up prediction. %d is the
// maximum number of intents.
const PredictPrompt = `You anticipate what a user working with a coding assistant will ask next.
Given their current message, their recent messages and their user model, predict up to %d short follow-up questions they are likely to ask next.
Each question is one line, under 20 words, specific to their work.

Output ONLY a JSON array of strings. Example:
["which tests cover the auth package?","how do I migrate refresh tokens?"]`

// PredictIntents asks the model for up to max likely follow-up questions to
// the current message. recent holds the last several user messages (oldest
// first) and userModel the confirmed user model as JSON (may be empty).
// Results are trimmed, deduplicated (case-insensitively) and clipped to
// MaxIntentRunes. max <= 0 returns nothing. Wrapped untrusted content is
// removed from message and recent first (StripUntrusted).
//
// With a nil Client it returns PredictRules(message, max) and no error. A
// client or parse failure is an error: the design falls back to
// literal-query recall only, so the caller simply skips prediction.
func PredictIntents(ctx context.Context, c Client, message string, recent []string, userModel string, max int) ([]string, error) {
	message = StripUntrusted(message)
	if max <= 0 || strings.TrimSpace(message) == "" {
		return nil, nil
	}
	if c == nil {
		return PredictRules(message, max), nil
	}
	var b strings.Builder
	b.WriteString("Current message:\n" + cleanText(message, 2000) + "\n")
	if len(recent) > 0 {
		if len(recent) > 8 {
			recent = recent[len(recent)-8:]
		}
		b.WriteString("\nRecent messages (oldest first):\n")
		for _, r := range recent {
			if r = cleanText(StripUntrusted(r), 500); r != "" {
				b.WriteString("- " + r + "\n")
			}
		}
	}
	if um := strings.TrimSpace(userModel); um != "" && um != "{}" {
		b.WriteString("\nUser model:\n" + textutil.Clip(um, 4000) + "\n")
	}
	arr, err := askArray(ctx, c, "predict intents", prompt(fmt.Sprintf(PredictPrompt, max), b.String()))
	if err != nil {
		return nil, err
	}
	var items []string
	for _, e := range arr {
		switch t := e.(type) {
		case string:
			items = append(items, t)
		case map[string]any:
			if s, ok := lookup(t, "intent", "question", "text", "query"); ok {
				items = append(items, str(s))
			}
		}
	}
	return dedupeIntents(items, max), nil
}

func dedupeIntents(items []string, max int) []string {
	out := []string{}
	seen := map[string]bool{}
	for _, it := range items {
		it = cleanText(it, MaxIntentRunes)
		it = strings.TrimSpace(reListMarker.ReplaceAllString(it, ""))
		if it == "" {
			continue
		}
		k := strings.ToLower(strings.TrimRight(it, "?.! "))
		if seen[k] {
			continue
		}
		seen[k] = true
		out = append(out, it)
		if len(out) >= max {
			break
		}
	}
	return out
}

var (
	reListMarker = lazyre.New(`^(?:[-*•]|\d{1,2}[.)])\s+`)
	reRefactor   = rx(`\b(?:refactor(?:ing)?|restructur(?:e|ing)|rewrit(?:e|ing)|clean(?:ing)? up|split(?:ting)?|simplif(?:y|ying))\s+(.+)`)
	reAdd        = rx(`\b(?:add(?:ing)?|implement(?:ing)?|creat(?:e|ing)|build(?:ing)?|introduc(?:e|ing)|writ(?:e|ing)|support(?:ing)?)\s+(.+)`)
	reMigrate    = rx(`\b(?:migrat(?:e|ing)|switch(?:ing)?|mov(?:e|ing)|upgrad(?:e|ing)|replac(?:e|ing)|remov(?:e|ing)|drop(?:ping)?|deprecat(?:e|ing))\s+(.+)`)
	reBug        = rx(`\b(?:bugs?|errors?|fail(?:s|ed|ing|ure)?|crash(?:es|ed|ing)?|panics?|broken|exceptions?|regressions?|flaky)\b`)
	reTest       = rx(`\b(?:tests?|testing|coverage)\b`)
	reDeploy     = rx(`\b(?:deploy\w*|release\w*|ship(?:ping)?|rollout)\b`)
	reNPStop     = rx(`\s+(?:to|so|so that|because|and|but|for|with|in|into|on|from|before|after|since|without|by|using|then|if|when|while|as)\b.*$`)
	reNPLead     = rx(`^(?:(?:the|a|an|our|my|this|that|some|new)\s+)+`)
)

// topicAfter extracts a short noun phrase (at most 5 words) from the text a
// verb pattern captured, cut at the first preposition or conjunction.
func topicAfter(re *lazyre.Regexp, s string) string {
	for _, loc := range re.FindAllStringSubmatchIndex(s, -1) {
		// "the build fails": a verb form used as a noun is not an action.
		before := strings.Fields(strings.ToLower(s[:loc[0]]))
		if n := len(before); n > 0 && determiners[before[n-1]] {
			continue
		}
		if t := nounPhraseFrom(s[loc[2]:loc[3]]); t != "" {
			return t
		}
	}
	return ""
}

var determiners = setOf(`the a an this that our my their your its some every each`)

func nounPhraseFrom(t string) string {
	t = trimSentence(t)
	if i := strings.IndexAny(t, ".,;:!?("); i >= 0 {
		t = t[:i]
	}
	t = reNPStop.ReplaceAllString(t, "")
	w := strings.Fields(t)
	if len(w) == 0 || len(w) > 5 {
		return ""
	}
	t = strings.Join(w, " ")
	if contentless(t) {
		return ""
	}
	switch strings.ToLower(w[0]) {
	case "this", "that", "my", "our":
		t = "the " + strings.Join(w[1:], " ")
	}
	return toThird(strings.TrimSpace(t))
}

// PredictRules is the deterministic follow-up predictor used when no LLM is
// configured. It derives questions from keywords in message:
//
//   - "refactor X" → "which tests cover X?", "how should X be structured?"
//   - "migrate/replace/remove X" → "what depends on X?", "which tests cover X?"
//   - "add/implement X" → "what conventions apply to X?", "how should X be tested?"
//   - bug/error/fails/panic → "what caused this error before?", "how was this fixed last time?"
//   - tests → "which test conventions apply here?"; deploy/release → "what is the release process?"
//
// X is a short noun phrase taken after the verb ("Refactor the auth package
// to remove JWT" → "the auth package"). Nothing matched gives no questions.
// It is a fallback: it only rephrases the message and knows nothing else.
func PredictRules(message string, max int) []string {
	if max <= 0 {
		return nil
	}
	var q []string
	if x := topicAfter(reRefactor, message); x != "" {
		q = append(q, "which tests cover "+x+"?", "how should "+x+" be structured?")
	}
	if x := topicAfter(reMigrate, message); x != "" {
		q = append(q, "what depends on "+x+"?", "which tests cover "+x+"?")
	}
	if reBug.MatchString(message) {
		q = append(q, "what caused this error before?", "how was this fixed last time?")
	}
	if x := topicAfter(reAdd, message); x != "" {
		q = append(q, "what conventions apply to "+x+"?", "how should "+x+" be tested?")
	}
	if reTest.MatchString(message) {
		q = append(q, "which test conventions apply here?")
	}
	if reDeploy.MatchString(message) {
		q = append(q, "what is the release process?")
	}
	return dedupeIntents(q, max)
}
