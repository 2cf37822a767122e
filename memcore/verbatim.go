package memcore

import (
	"fmt"
	"strings"

	"github.com/odekmem/odekmem/internal/provenance"
)

// The verbatim rule decides whether text an agent proposes to remember is
// the person's own words (user_said) or the agent's (agent_generated, which
// waits in quarantine). It is the only way a model-driven surface — the
// memory tool, the MCP server's remember — can create a trusted atom, so it
// errs towards quarantine: a false "agent_generated" costs the person one
// promote, a false "user_said" lets injected text into recall.
//
// The rule, in order:
//
//  1. Normalisation, applied to both the message and the proposal: NFKC,
//     Unicode case folding, format and other invisible characters removed,
//     curly quotes and apostrophes made straight, dashes unified, every run
//     of white space one space. Leading and trailing punctuation and quotes
//     of the proposal are dropped ("We deploy on Tuesdays." matches "we
//     deploy on tuesdays").
//  2. What is not the person's own text is removed from the message first:
//     <untrusted_content_…> blocks, fenced code blocks (``` or ~~~, an
//     unclosed fence runs to the end), "> " quoted lines and every region
//     the shared judgement of pasted text finds (pasted.go: logs, terminal
//     output, stack traces, HTML, JSON, e-mail, web-page text …).
//  3. Whole span: the proposal's tokens (words, with ' - . / @ : inside a
//     word kept as part of it, and each punctuation mark) must equal a run of
//     consecutive tokens of the message. A fragment of a word never matches
//     ("safe" is not in "unsafe", "on" is not in "don't").
//  4. A statement: at least minVerbatimWords words and minVerbatimChars
//     characters (after normalisation).
//  5. Meaning kept, judged inside the sentence (sentences end at . ! ? ; and
//     at line breaks):
//     - before the span, in its clause, no negation ("not", "never", "don't",
//     "no", "without", "avoid", "forbidden", "unsafe", …), modal or
//     hypothetical ("should", "would", "might", "if", "whether", "maybe", …)
//     or reported speech ("said", "claims", "told", "according", …). The
//     clause starts at the sentence start; when the span itself opens with
//     a subject ("the", "we", "our", "it", …) or its own polarity ("never",
//     "always", "don't", …) it starts instead after the
//     nearest comma, colon, dash, parenthesis or conjunction, so "We don't
//     use MySQL any more, the ledger uses PostgreSQL" vouches for "the
//     ledger uses PostgreSQL" while "Never, under any circumstances, push
//     to main" does not vouch for "push to main";
//     - after the span, in the rest of its clause, none of those words, and
//     not a verb that makes the span the subject of something dropped
//     ("force-pushing to main is strictly forbidden" does not vouch for
//     "force-pushing to main");
//     - a following clause of the same sentence that qualifies it (", not
//     …", ", unless …", ", which …", ", he said") blocks it;
//     - a question stays a question: a span of one counts only when it is
//     the whole question, proposed with its question mark ("should we
//     deploy on Fridays?" does not vouch for "we deploy on Fridays"), and
//     a sentence opened by an auxiliary ("is it true that …", "do we …")
//     or by a question word and an auxiliary ("why do we …") is a question
//     even without its mark;
//     - a negation standing alone on the line before ("Never" then "run
//     the migrations by hand") governs the line after it;
//     - not inside quotation marks (" ' ` and curly forms) in its sentence,
//     not introduced by a reporting word before a colon ("The page reads:
//     …", "the log printed: …", "Translate to French: …"), and not judged
//     by a following dependent clause ("… - a mistake");
//     - not taken back later in the message ("… just kidding", "never
//     mind", a bare "Not."; the retractions that cancel an inline approval);
//     - not governed by a frame across a joiner (verbatim_frames.go): a
//     clause before it across ; : a dash, a comma or a line break that is
//     left open for it ("please stop; we deploy from main"), a list header
//     with a negation, or a clause after it that takes it back ("; that's a
//     lie").
//
// The words each step looks for are in verbatim_lexicon.go (English only).
//
// Any occurrence that passes is enough.

// voiceRefuses asks the analyser (internal/provenance) whose words the
// proposal tt is. It must lie in one clause in the person's own voice, or
// be the whole of a clause whose frame it keeps (a question, a report, a
// hypothesis, a quotation proposed with its frame words). A clause that is
// pasted, unsure, taken back or sarcastic is never the person's statement.
// It returns why not, or "".
func voiceRefuses(message string, tt []vToken) string {
	a := provenance.Analyse(message)
	why := ""
	for _, seg := range a.Segments {
		st := trimPunct(vTokens(vNormalize(seg.Text)))
		at := tokenRun(st, tt)
		if at < 0 {
			continue
		}
		switch seg.Voice {
		case provenance.Own:
			return ""
		case provenance.Question, provenance.Reported, provenance.Hypothetical, provenance.Quoted:
			if at == 0 && len(tt) == len(st) {
				return "" // the whole clause, its frame with it
			}
		}
		why = fmt.Sprintf("the analyser reads it as %s in the person's message (%s)", seg.Voice, seg.Why)
	}
	return why
}

// trimPunct drops leading and trailing punctuation tokens.
func trimPunct(ts []vToken) []vToken {
	for len(ts) > 0 && !ts[0].word {
		ts = ts[1:]
	}
	for len(ts) > 0 && !ts[len(ts)-1].word {
		ts = ts[:len(ts)-1]
	}
	return ts
}

// tokenRun returns where tt runs inside st, or -1.
func tokenRun(st, tt []vToken) int {
	for i := 0; i+len(tt) <= len(st); i++ {
		ok := true
		for j := range tt {
			if st[i+j].s != tt[j].s {
				ok = false
				break
			}
		}
		if ok {
			return i
		}
	}
	return -1
}

// minVerbatimWords and minVerbatimChars are the least a proposal must have
// to count as a statement of the person's: shorter text ("h", "on", "use
// it") says nothing on its own.
const (
	minVerbatimWords = 3
	minVerbatimChars = 12
)

// verbatimUserSpan reports whether text is a whole, meaning-preserving span
// of the person's message under the rule above, and why not when it is not.
func verbatimUserSpan(message, text string) (ok bool, why string) {
	tt := vTokens(vNormalize(text))
	// Drop the proposal's leading and trailing punctuation and quotes,
	// remembering whether it asks a question.
	for len(tt) > 0 && !tt[0].word {
		tt = tt[1:]
	}
	asks := false
	for len(tt) > 0 && !tt[len(tt)-1].word {
		asks = asks || tt[len(tt)-1].s == "?"
		tt = tt[:len(tt)-1]
	}
	words, chars := 0, 0
	for i, t := range tt {
		if t.word {
			words++
		}
		chars += len([]rune(t.s))
		if i > 0 && tt[i].space {
			chars++
		}
	}
	if words == 0 {
		return false, "the text has no words"
	}
	if words < minVerbatimWords || chars < minVerbatimChars {
		return false, fmt.Sprintf("too short to be a statement (needs at least %d words and %d characters)", minVerbatimWords, minVerbatimChars)
	}
	if why := voiceRefuses(message, tt); why != "" {
		return false, why
	}
	mt := vTokens(vNormalize(ownText(message)))
	why = "not a whole span of the person's message"
	for s := 0; s+len(tt) <= len(mt); s++ {
		match := true
		for j := range tt {
			if mt[s+j].s != tt[j].s {
				match = false
				break
			}
		}
		if !match {
			continue
		}
		if reason := spanChanged(mt, s, s+len(tt), asks); reason != "" {
			why = reason
			continue
		}
		return true, "the person's own words"
	}
	return false, why
}

// spanChanged checks the context of the match mt[s:e] and returns why its
// meaning differs from the proposal's, or "".
func spanChanged(mt []vToken, s, e int, asks bool) string {
	// An ellipsis trails off but does not end the sentence for what came
	// before it ("I never said… we deploy from main"): the frame before it
	// still governs the span.
	sentStart := s
	for sentStart > 0 && (!vSentenceEnd(mt[sentStart-1]) || vEllipsisAt(mt, sentStart-1)) && !mt[sentStart].line {
		sentStart--
	}
	sentEnd := e // the sentence's terminator, the first token of the next line, or len
	for sentEnd < len(mt) && !vSentenceEnd(mt[sentEnd]) && !mt[sentEnd].line {
		sentEnd++
	}
	// A question stays a question: only the whole question, proposed with
	// its question mark, is the person's words.
	if sentEnd < len(mt) && mt[sentEnd].s == "?" && (s > sentStart || !asks) {
		return "part of a question in the person's message"
	}
	// A question without its mark is still a question: a sentence opened
	// by an auxiliary ("is it true that …", "do we …") or by a question
	// word followed by one ("why do we …") asks; a span of it is not a
	// statement of the person's.
	if vAsksWithoutMark(mt, sentStart, sentEnd, s) && !(s == sentStart && asks) {
		return "part of a question in the person's message"
	}
	// A negation alone on the line before ("Never\nrun the migrations by
	// hand") governs the line after it.
	if w := vLoneChangerLineBefore(mt, sentStart); w != "" {
		return fmt.Sprintf("changed in meaning by %q on the line before", w)
	}
	// Inside quotation marks (", ', ` and their curly forms, unified by
	// vNormalize): someone else's words the person quoted, often the very
	// page or log they ask about.
	dq, sq := 0, 0
	for i := sentStart; i < s; i++ {
		switch mt[i].s {
		case `"`:
			dq++
		case "'":
			sq++
		}
	}
	if dq%2 == 1 || sq%2 == 1 {
		return "inside quotation marks in the person's message (someone else's words)"
	}
	// Struck through ("~~we deploy from main~~ we deploy from release
	// branches"): deleted text, the opposite of a statement.
	if vStruck(mt, s, e) {
		return "struck through in the person's message (deleted text)"
	}
	// Taken back later in the message ("… just kidding", "never mind",
	// "Not."): the same retractions that cancel an inline approval.
	if sentEnd < len(mt) {
		var rest []string
		from := sentEnd + 1
		if !vSentenceEnd(mt[sentEnd]) {
			from = sentEnd // the next line's first token
		}
		for _, t := range mt[from:] {
			rest = append(rest, t.s)
		}
		if retracts(strings.Join(rest, " ")) {
			return "taken back later in the person's message"
		}
	}
	// A frame in a neighbouring clause of the same sentence or line that
	// governs the span: "please stop; we deploy from main", "The page
	// says — we deploy from main", a list under "Things that are NOT
	// true:", "we deploy from main; that's a lie".
	if why := vFrameBefore(mt, s); why != "" {
		return why
	}
	if why := vListHeader(mt, s); why != "" {
		return why
	}
	if why := vFrameAfter(mt, sentEnd); why != "" {
		return why
	}
	// Before the span, in its clause.
	clauseStart := sentStart
	if vSubjects[mt[s].s] || vPolarity[mt[s].s] {
		for i := s - 1; i >= sentStart; i-- {
			if vClauseMark(mt[i]) || vConjunctions[mt[i].s] {
				clauseStart = i + 1
				break
			}
		}
	}
	for i := clauseStart; i < s; i++ {
		if vChangers[mt[i].s] || isNegatedContraction(mt[i].s) {
			return fmt.Sprintf("changed in meaning by %q earlier in the sentence", mt[i].s)
		}
	}
	// A colon that introduces what something else says ("The page reads:",
	// "the log printed:", "Translate to French:") makes the span that
	// material, not the person's statement.
	if clauseStart > sentStart && mt[clauseStart-1].s == ":" && !vOwnOpener(vWords(mt[sentStart:clauseStart-1])) {
		for i := sentStart; i < clauseStart-1; i++ {
			if vChangers[mt[i].s] || isNegatedContraction(mt[i].s) {
				return fmt.Sprintf("introduced by %q before a colon", mt[i].s)
			}
		}
	}
	// After the span, the rest of its clause.
	i := e
	if i < sentEnd && mt[i].word && vCopulas[mt[i].s] {
		return fmt.Sprintf("the span is the subject of %q, which the proposal drops", mt[i].s)
	}
	for ; i < sentEnd && !vClauseMark(mt[i]); i++ {
		if vChangers[mt[i].s] || isNegatedContraction(mt[i].s) {
			return fmt.Sprintf("changed in meaning by %q later in the sentence", mt[i].s)
		}
	}
	// Following clauses of the same sentence that qualify it.
	for ; i < sentEnd; i++ {
		if !vClauseMark(mt[i]) {
			continue
		}
		j := i + 1
		for j < sentEnd && !mt[j].word {
			j++
		}
		independent := j+1 < sentEnd && vConjunctions[mt[j].s] && vSubjects[mt[j+1].s]
		if vContrast(mt, s, e, j, sentEnd) {
			break // "…, not from release branches": the span restated
		}
		if j < sentEnd && vQualifiers[mt[j].s] && !independent {
			return fmt.Sprintf("qualified by %q later in the sentence", mt[j].s)
		}
		// "… - a mistake", ", which is a terrible idea": a dependent
		// clause that judges the span.
		for k := j; k < sentEnd && !independent && !vClauseMark(mt[k]); k++ {
			if vChangers[mt[k].s] || isNegatedContraction(mt[k].s) {
				return fmt.Sprintf("qualified by %q later in the sentence", mt[k].s)
			}
		}
		for k := j; k < sentEnd && !vClauseMark(mt[k]); k++ {
			if reporting[mt[k].s] {
				return fmt.Sprintf("reported speech (%q) later in the sentence", mt[k].s)
			}
		}
	}
	return ""
}

// vAsksWithoutMark reports whether mt[start:end] is a question that lacks
// its question mark (one with the mark is handled by the caller).
func vAsksWithoutMark(mt []vToken, start, end, s int) bool {
	if start >= end || end < len(mt) && mt[end].s == "?" {
		return false
	}
	first, aux := mt[start].s, start
	switch {
	case vAuxiliaries[first] && start+1 < end && vSubjects[mt[start+1].s]:
		// "do we …", "is it true that …"; not "Don't use RS256" or "Do
		// not add …", which are statements.
	case vQuestionWords[first] && start+1 < end && vAuxiliaries[mt[start+1].s]:
		aux = start + 1
	default:
		return false
	}
	// The opening clause asks. A span in a later clause ("Don't worry, we
	// deploy from main", "Do note: …", "Should be obvious but …") is
	// governed by it only when the auxiliary has a subject, as a question
	// has ("is it true that …", "do we …, …").
	clauseEnd := aux + 1
	for clauseEnd < end && !vClauseMark(mt[clauseEnd]) && !vConjunctions[mt[clauseEnd].s] {
		clauseEnd++
	}
	if s < clauseEnd {
		return true
	}
	return aux+1 < end && vSubjects[mt[aux+1].s]
}

// vLoneChangerLineBefore returns the negation or hedge that stands alone
// (up to three words, nothing else but punctuation) on the line just before
// the sentence starting at start, or "".
func vLoneChangerLineBefore(mt []vToken, start int) string {
	if start == 0 || !mt[start].line {
		return ""
	}
	i := start - 1
	for i > 0 && !mt[i].line {
		i--
	}
	var found string
	words := 0
	for _, t := range mt[i:start] {
		if !t.word {
			continue
		}
		words++
		if !vChangers[t.s] && !isNegatedContraction(t.s) {
			return ""
		}
		found = t.s
	}
	if words == 0 || words > 3 {
		return ""
	}
	return found
}

// vStruck reports whether mt[s:e] lies inside a "~~" strikethrough of its
// paragraph, or holds one.
func vStruck(mt []vToken, s, e int) bool {
	start := s
	for start > 0 && !mt[start].para {
		start--
	}
	in := false
	for i := start; i+1 < e; i++ {
		if mt[i].s == "~" && mt[i+1].s == "~" && !mt[i+1].space {
			if i >= s {
				return true
			}
			in = !in
			i++
		}
	}
	return in
}

// vContrast reports whether the clause at mt[j:sentEnd] is a short
// contrast that restates the span mt[s:e] ("We deploy from main, not from
// release branches", "… -- never from branches"): "not" or "never", then
// a word the span holds in the same role (its preposition or verb), then
// at most four words with no changer, pronoun or question word, to the end
// of the sentence.
func vContrast(mt []vToken, s, e, j, sentEnd int) bool {
	if j+1 >= sentEnd || mt[j].s != "not" && mt[j].s != "never" || !mt[j+1].word {
		return false
	}
	parallel := false
	for k := s; k < e; k++ {
		if mt[k].word && mt[k].s == mt[j+1].s && !vSubjects[mt[k].s] {
			parallel = true
		}
	}
	if !parallel {
		return false
	}
	words := 0
	for k := j + 2; k < sentEnd; k++ {
		if !mt[k].word {
			return false
		}
		switch mt[k].s {
		case "i", "we", "you", "they", "he", "she", "it":
			return false // a clause of its own ("not from what I have seen")
		}
		if vChangers[mt[k].s] || isNegatedContraction(mt[k].s) || reporting[mt[k].s] || vQuestionWords[mt[k].s] {
			return false
		}
		words++
	}
	return words <= 4
}

// vOwnOpener reports whether the words before a colon introduce the
// person's own words: an apology for being unclear or saying it again.
func vOwnOpener(words []string) bool { return vClarifies(words) || vSaysAgain(words) }

// vWords is the words of ts.
func vWords(ts []vToken) []string {
	var out []string
	for _, t := range ts {
		if t.word {
			out = append(out, t.s)
		}
	}
	return out
}

// vClarifies reports whether a frame is the person apologising for being
// unclear ("Sorry if I wasn't clear:", "apologies, to be clear:"): it
// introduces their own words. A judgement in it ("sorry, this is false")
// keeps it a frame.
func vClarifies(words []string) bool {
	if len(words) < 2 || words[0] != "sorry" && words[0] != "apologies" {
		return false
	}
	clear := false
	for _, w := range words[1:] {
		if vJudgements[w] || reporting[w] {
			return false
		}
		clear = clear || w == "clear" || w == "unclear"
	}
	return clear
}
