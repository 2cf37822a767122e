package provenance

import (
	"strings"
	"unicode"

	"github.com/odekmem/odekmem/internal/lazyre"
)

// The words each voice test looks for. English only: a message in another
// language is judged by its pastes, quotation marks and question marks
// alone, and its sentences are otherwise the person's own.

var (
	subjects = setOf(`i we you they he she it there this that these those the our my your their his her its anyone anybody someone somebody everyone everybody all u ya y'all people`)
	// auxiliaries open a question when a subject follows.
	auxiliaries   = setOf(`do does did is are was were am can could would will should shall have has had may might must isn't aren't wasn't weren't doesn't don't didn't won't wouldn't shouldn't can't couldn't haven't hasn't hadn't`)
	questionWords = setOf(`how what why when where which who whom whose what's how's where's who's why's when's whats hows`)
	firstPerson   = setOf(`i we i'm i've i'd i'll we're we've we'd we'll`)
	adverbs       = setOf(`really also personally honestly genuinely strongly definitely still all both just actually truly generally usually kind sort of do don't not never always often sometimes`)

	reRequestOpen = lazyre.New(`^(?:(?:so|ok|okay|hey|and|also|btw|oh|hi|please|pls),?\s+)*(?:can|could|would|will|won't)\s+(?:you|u|ya)\b|^(?:would you mind|mind\s+\w+ing|any (?:idea|ideas|clue|thoughts)|anyone know|does anyone|do you know|i wonder|i'm wondering|wondering|remind me|quick question|not sure (?:if|whether)|curious (?:if|whether)|i'm curious|thoughts\b)`)
	reTag         = lazyre.New(`,\s*(?:right|no|correct|yes|yeah|eh|ok|okay|isn't it|aren't they|don't they|doesn't it|didn't we|don't we|isn't that|wasn't it|won't it|can't we|shouldn't we|huh)\s*[?]+\W*$`)

	reReportPhrase = lazyre.New(`\b(?:according to|apparently|allegedly|reportedly|supposedly|rumou?r(?:ed|s)?|i(?:'ve)? heard|i was told|we were told|i've been told|i read (?:that|somewhere|online)|people (?:say|keep saying|think|claim)|they say|^word is|so i'm told|so they say|is what (?:the|my|a|an|our|some|this|that)\b)`)
	reportVerbs    = setOf(`said says say told tells thinks think thought believes believe believed claims claim claimed insists insist insisted insisting argued argues argue arguing suggested suggests suggesting proposes proposed proposing propose recommends recommended recommending mentioned mentions wants wanted wrote swears swore asked asks asking demanded demands posted posting warns warned advises advised reckons reckon feels guesses guessed prefers preferring keeps`)
	// reportVerbsFramed are reporting verbs only before a colon, a quote
	// or "that" ("the page reads:", not "the service reads from …").
	reportVerbsFramed = setOf(`reads read writes states stated notes noted puts`)

	reHypoOpen = lazyre.New(`^(?:(?:so|ok|okay|and|but|just|hmm|well|also),?\s+)*(?:hypothetically|suppose|supposing|imagine|what if|let's say|lets say|say (?:we|i|you|that|the)|assume|assuming|in theory|theoretically|in an ideal world|in a perfect world|ideally|if (?:i|we|it|you) (?:were|had)\b|just brainstorming|brainstorming|thinking out loud|toying with|i'm toying|we're toying|just curious|would it|could we|should we ever|what about|how about|someday|one day|in the future,? (?:we|i) (?:might|could|may))`)
	reHedge    = lazyre.New(`\b(?:might|could|(?:^|[,;]\s*)maybe|maybe (?:we|i|you|it|they|should|could|not|just|the|this|that)|perhaps|possibly|we may|i may|it may|we'd|i'd|it'd|they'd|you'd|would)\b`)
	reHedgeOK  = lazyre.New(`\b(?:would (?:like|love|prefer|rather|appreciate)|'d (?:like|love|prefer|rather|appreciate)|could you|would you|could u|would u|couldn't care)\b`)

	reSarcasm     = lazyre.New(`(?:^|\s)/s\s*$|🙄|🙃|😒|🤡|😏|🤦|\b(?:yeah,? right|sure,? because|yes,? because|yeah,? because|because (?:obviously|clearly|of course)|oh (?:great|wonderful|sure|joy|good|brilliant|fantastic|perfect)|what a treat|what could (?:possibly )?go wrong|who knew|gotta love|love how|love it when|nothing says|great idea to|brilliant idea|what this \w+ (?:really )?needs|shocking|because that always works)\b`)
	reSarcasmTail = lazyre.New(`^(?:totally|definitely|of course|shocking|sure|not|yeah right|right|lol no|/s|🙄|🙃|as if|said no one ever|said nobody ever)\W*$`)

	reRetract = lazyre.New(`^(?:(?:hmm+|eh|oh|ok|okay|ah|uh|um|sorry|no|nah|well|oops|wait|actually|so),?\s+)*(?:scratch that|never ?mind|forget (?:it|that|this|what i (?:just )?said)|ignore (?:that|this|what i (?:just )?said|my (?:last|previous))|disregard(?: that| this)?|jk|j/k|just kidding|kidding|wait,? no|actually,? no|no,? wait|correction|i mixed (?:that )?up|my bad|i meant|on second thought|second thought|not anymore|doesn't matter|never said that|(?:we|i|it) used to|oh wait|that's wrong|that was wrong|i was wrong|i lied|not true)\b[\s,.:;!—–-]*`)

	reAgentAddress = lazyre.New(`\b(?:(?:ai |coding |the )?(?:assistants?|agents?|llms?|bots?|copilot|chatgpt|the ai|the model)\s+(?:\w+\s+)?(?:should|must|shall|need to|needs to|are (?:required|expected|encouraged|allowed) to|is (?:required|expected|allowed) to|always|never)|(?:ai |coding )?(?:assistants?|agents?|llms?)\s*[:,]\s+(?:always|never|you|please|do|don't)|we recommend (?:that )?(?:you|users|partners|customers|administrators|admins|operators|integrators|developers)|note (?:to|for) (?:the )?(?:ai|assistants?|agents?|llms?|bots?)|(?:ai|agent|assistant) (?:rule|instruction|policy)s?|for (?:ai )?assistants|instructions for (?:ai|assistants?|agents?)|if you are an (?:ai|assistant|llm|agent)|assistants? reading this|(?:ai|llm) agents?)\b`)

	reQuoteSpan = lazyre.New(`"[^"]{3,}"|“[^”]{3,}”|(?:^|[\s(])'[^']{3,}'(?:$|[\s.,;:!?)])`)

	reClauseSplit = lazyre.New(`(?:,|;|\s[—–]|\s-{1,2})\s+`)
)

func setOf(words string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(words) {
		m[w] = true
	}
	return m
}

// wordsOf is the lower-cased words of s (apostrophes straightened and kept
// inside words).
func wordsOf(s string) []string {
	s = quoteFolder.Replace(strings.ToLower(s))
	return strings.FieldsFunc(s, func(r rune) bool {
		return !(unicode.IsLetter(r) || unicode.IsDigit(r) || r == '\'' || r == '_')
	})
}

// lowerText is s lower-cased with apostrophes and quotation marks
// straightened.
func lowerText(s string) string {
	return quoteFolder.Replace(strings.ToLower(s))
}

var quoteFolder = strings.NewReplacer("’", "'", "‘", "'", "“", `"`, "”", `"`)

// anyOf reports whether low contains one of keys: a cheap test before a
// regular expression that needs one of them.
func anyOf(low string, keys ...string) bool {
	for _, k := range keys {
		if strings.Contains(low, k) {
			return true
		}
	}
	return false
}

// trimTail removes closing emoji, brackets and quotes so the last mark
// can be read.
func trimTail(s string) string {
	return strings.TrimRightFunc(s, func(r rune) bool {
		return unicode.IsSpace(r) || r == ')' || r == '"' || r == '\'' || r == '”' || r == '’' || r == '*' || r == '_' || r > 0x2000 && !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '?' && r != '…'
	})
}

// asks reports whether a clause asks (a question or a request put as one)
// and why.
func asks(s string) (bool, string) {
	t := trimTail(s)
	if strings.HasSuffix(t, "?") {
		return true, "ends with a question mark"
	}
	low := lowerText(t)
	if reRequestOpen.MatchString(low) {
		return true, "a request or a question"
	}
	w := wordsOf(low)
	// Skip an opening interjection ("ok so do we …").
	for len(w) > 1 && (w[0] == "so" || w[0] == "ok" || w[0] == "okay" || w[0] == "and" || w[0] == "hey" || w[0] == "also" || w[0] == "btw" || w[0] == "wait" || w[0] == "hmm" || w[0] == "um" || w[0] == "but") {
		w = w[1:]
	}
	if len(w) >= 2 && auxiliaries[w[0]] && subjects[w[1]] {
		return true, "opens with " + w[0] + " " + w[1]
	}
	if len(w) >= 2 && questionWords[w[0]] && !firstPerson[w[1]] && w[1] != "you" && w[1] != "they" {
		// "When in doubt, …", "Where possible, …": a condition, unless
		// an auxiliary follows ("when does the cron run").
		if (w[0] == "when" || w[0] == "where") && !auxiliaries[w[1]] && !shapeAux(w[1]) {
			return false, ""
		}
		return true, "opens with " + w[0]
	}
	return false, ""
}

// shapeAux reports whether w is a form of "be" or "do" that can follow a
// question word.
func shapeAux(w string) bool {
	switch w {
	case "is", "are", "was", "were", "do", "does", "did", "'s":
		return true
	}
	return false
}

// reported reports whether a clause gives someone else's words or views.
func reported(s string) (bool, string) {
	low := lowerText(s)
	if anyOf(low, "accord", "apparent", "alleged", "report", "suppos", "rumo", "heard", "told", "read", "say", "word is", "is what") {
		if m := reReportPhrase.FindString(low); m != "" {
			return true, "reported (" + m + ")"
		}
	}
	w := wordsOf(low)
	for i := 0; i < len(w) && i < 7; i++ {
		framed := reportVerbsFramed[w[i]] && (i+1 < len(w) && w[i+1] == "that" || colonOrQuoteAfter(low, w[i]))
		if !reportVerbs[w[i]] && !framed {
			continue
		}
		if i == 0 {
			return false, ""
		}
		// "when I say", "if you think": the person, or the agent
		// addressed, is the one speaking.
		if b := w[i-1]; firstPerson[b] || b == "you" || b == "u" || adverbs[b] && i >= 2 && (firstPerson[w[i-2]] || w[i-2] == "you") {
			continue
		}
		subj := w[:i]
		for len(subj) > 1 && (subj[0] == "but" || subj[0] == "and" || subj[0] == "so" || subj[0] == "or" || subj[0] == "because") {
			subj = subj[1:]
		}
		// The person as the subject ("I think", "we really want"): their
		// own view.
		if firstPerson[subj[0]] {
			own := true
			for _, x := range subj[1:] {
				if !adverbs[x] && !firstPerson[x] {
					own = false
				}
			}
			if own {
				return false, ""
			}
		}
		if w[i] == "keeps" && (i+1 >= len(w) || !keepsSaying[w[i+1]]) {
			continue
		}
		// "too old to say", "nothing to say": an infinitive reports no
		// one.
		if w[i-1] == "to" {
			continue
		}
		// A command ("Please stop asking for …") has no one reporting.
		if imperativeLead[subj[0]] {
			return false, ""
		}
		return true, "reported (" + strings.Join(subj, " ") + " " + w[i] + ")"
	}
	return false, ""
}

// introducedByColon reports whether a clause opens with a short frame
// ending in a colon that names someone else's text ("The prompt template
// has: …", "Lessons from our startup: …", "Reviewer note: …"), and why.
func introducedByColon(s string) (bool, string) {
	i := strings.IndexAny(s, ":：")
	if i <= 0 {
		return false, ""
	}
	head := strings.TrimSpace(s[:i])
	w := wordsOf(head)
	if len(w) == 0 || len(w) > 8 || strings.TrimSpace(s[i+1:]) == "" {
		return false, ""
	}
	switch w[0] {
	case "our", "my", "we", "i", "i'm", "we're", "okay", "ok", "so", "decision", "rule", "heads", "fyi", "btw", "note", "context", "background":
		// The person's own frame ("Our style guide: …", "Decision: …").
		return false, ""
	}
	if m := reColonCue.FindString(head); m != "" && !weakCue[strings.ToLower(m)] {
		return true, introducedWhy + " (" + strings.ToLower(m) + ":)"
	}
	return false, ""
}

// introducedWhy opens the reason of a clause introducedByColon judged.
const introducedWhy = "introduced as someone else's text"

// reContrastLead opens a clause that answers what came before it.
var reContrastLead = lazyre.New(`(?i)^\W*(?:but|however|though|no|nope|wrong|actually)\b`)

// keepsSaying follow "keeps" when someone keeps saying something.
var keepsSaying = setOf(`saying insisting claiming telling asking posting suggesting arguing repeating`)

// imperativeLead open a command, not a subject.
var imperativeLead = setOf(`please pls stop keep start never always don't dont do just avoid`)

// reColonCue is what makes the words before a colon in a sentence name
// someone else's text: a verb of saying or pasting, or a source that
// speaks ("The prompt template has: …", "Unpopular opinion: …"). Topic
// nouns ("docs", "code reviews") do not.
var reColonCue = lazyre.New(`(?i)\b(?:found|pasted?|copied|says|said|say|wrote|writes|reads|told|tells|suggest(?:s|ed)?|recommend(?:s|ed)?|claims?|has|had|contains?|posted|shared|quote[sd]?|excerpt|snippet|from (?:the|a|an|his|her|their|some|this|that|our)|chatgpt|gpt|claude|copilot|gemini|bot|vendor|contractor|co-?worker|teammate|colleague|customer|client|someone|somebody|auditor|manager|boss|reviewer|author|maintainers?|template|prompt|blog|article|post|tweet|forum|wiki|readme|e-?mail|mail|message|comment|ticket|issue|answer|reply|lessons?|opinion|take|advice|rumou?r)\b`)

// weakCue are introduction words that name no source: enough to end a
// line before a paste, not to make the rest of a sentence someone else's
// ("Here's the thing: we never …").
var weakCue = setOf(`here's heres here this below following`)

// colonOrQuoteAfter reports whether word is followed in low by a colon or
// an opening quotation mark.
func colonOrQuoteAfter(low, word string) bool {
	i := strings.Index(low, word)
	if i < 0 {
		return false
	}
	rest := strings.TrimLeft(low[i+len(word):], " ")
	return strings.HasPrefix(rest, ":") || strings.HasPrefix(rest, `"`) || strings.HasPrefix(rest, "'")
}

// hypothetical reports whether a clause is a hypothesis, a hedge or a
// suggestion the person has not made a rule of.
func hypothetical(s string) (bool, string) {
	low := lowerText(s)
	if m := reHypoOpen.FindString(low); m != "" {
		return true, "hypothetical (" + strings.TrimSpace(m) + ")"
	}
	if !anyOf(low, "might", "could", "maybe", "perhaps", "possibly", " may", "'d", "would") {
		return false, ""
	}
	if m := reHedge.FindString(reHedgeOK.ReplaceAllString(low, " ")); m != "" {
		return true, "hedged (" + m + ")"
	}
	return false, ""
}

// quoted reports whether a clause holds someone's words in quotation
// marks: four words or more between the marks.
func quoted(s string) (bool, string) {
	for _, m := range reQuoteSpan.FindAllString(s, -1) {
		if len(wordsOf(m)) >= 4 {
			return true, "holds a quotation"
		}
	}
	return false, ""
}

// sarcastic reports whether a clause is sarcastic by its own markers.
func sarcastic(s string) (bool, string) {
	low := lowerText(s)
	if !anyOf(low, "/s", "🙄", "🙃", "😒", "🤡", "😏", "🤦", "right", "because", "oh ", "treat", "wrong", "knew", "love", "says", "idea", "needs", "shocking") {
		return false, ""
	}
	if m := reSarcasm.FindString(low); m != "" {
		return true, "sarcasm (" + strings.TrimSpace(m) + ")"
	}
	return false, ""
}

// retractionLen returns the length of a retraction marker opening s
// ("scratch that, …", "never mind", "jk"), or 0.
func retractionLen(s string) int {
	low := lowerASCII(strings.ReplaceAll(s, "’", "'"))
	loc := reRetract.FindStringIndex(low)
	if loc == nil {
		return 0
	}
	// "never mind the tests" (an object after it) is a request, not a
	// retraction; "we used to" must end its clause.
	m := strings.TrimSpace(low[:loc[1]])
	rest := strings.TrimSpace(low[loc[1]:])
	if (strings.HasPrefix(m, "never mind") || strings.HasPrefix(m, "nevermind") || strings.HasSuffix(m, "used to")) && rest != "" && m == strings.TrimRight(m, ",.:;!—–-") {
		return 0
	}
	if strings.HasSuffix(m, "i meant") && rest == "" {
		return 0
	}
	// Map back to s: "’" became one byte shorter.
	return loc[1] + 2*strings.Count(s[:min(len(s), loc[1]+2*strings.Count(s, "’"))], "’")
}

// lowerASCII lower-cases the ASCII letters of s, keeping its length.
func lowerASCII(s string) string {
	b := []byte(s)
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}

// agentAddressed reports whether a clause speaks about assistants or
// agents in the third person ("assistants should always …", "note to
// AI"): a document's instruction to agents, not a person talking to
// theirs.
func agentAddressed(s string) (bool, string) {
	low := lowerText(s)
	if !anyOf(low, "assistant", "agent", "llm", "bot", "copilot", "chatgpt", "ai", "model", "recommend") {
		return false, ""
	}
	if m := reAgentAddress.FindString(low); m != "" {
		return true, "addresses agents in the third person (" + m + ")"
	}
	return false, ""
}
