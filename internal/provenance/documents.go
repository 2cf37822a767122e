package provenance

import (
	"strings"
	"unicode"

	"github.com/odekmem/odekmem/internal/lazyre"
)

var (
	// reIntro is a line of the person's that introduces what follows as
	// someone else's text: it ends with a colon or a dash and names a
	// source or the act of pasting.
	reIntroEnd = lazyre.New(`(?:[:：]|\s[—–-]+|\.\.\.|…)\s*$`)
	reIntroCue = lazyre.New(`(?i)\b(?:reviewer|author|maintainers?|found|pasted?|pasting|copied|copying|got (?:this|it|these|that)|sent|forwarded|says|said|say|wrote|writes|reads|read|told|tells|suggest(?:s|ed)?|recommend(?:s|ed)?|claims?|verbatim|here'?s|here is|below|following|look(?:s|ed)? like(?: this)?|has this|had this|contains?|left this|posted|shared|quote[sd]?|excerpt|snippet|section|from (?:the|a|an|our|my|his|her|their|this|that|some|one|#\w+)|in the (?:docs?|wiki|readme|thread|channel|ticket|issue|pr|email|chat|repo)|docs?|documentation|wiki|readme|page|article|blog|thread|forum|slack|teams|discord|channel|e-?mail|mail|message|dm|chatgpt|gpt|claude|copilot|gemini|bard|llm|bot|answer|reply|comment|review|ticket|issue|jira|description|notes|changelog|manual|man page|guide|runbook|spec|rfc|adr|config|file|script|code|function|query|output|logs?|error|trace|vendor|contractor|co-?worker|teammate|colleague|customer|client|someone|somebody|auditor|manager|boss|recruiter|support|stack ?overflow|reddit|twitter|tweet|linkedin|template|policy|handbook|deck|says|agents\.md|contributing)\b`)
	// reThisText names the text that follows ("The README ends with this
	// line.", "It says the following.").
	reThisText = lazyre.New(`(?i)\b(?:this|these|the following)\s+(?:lines?|text|paragraph|snippet|message|section|comment|sentence|instructions?|note)\s*[.:]?\s*$`)
	// reReceived names text the person received or found, on a line
	// with no colon ("found this in the old wiki", "got this answer from
	// copilot chat", "The runbook says", "Someone posted this in our
	// channel, is it legit?").
	reReceived = lazyre.New(`(?i)\b(?:(?:found|got|saw|received|spotted|dug up) (?:this|these)\b|(?:posted|sent|left|wrote|shared|forwarded|gave|sent me|gave me) (?:this|these|the following)\b|\b(?:answer|reply|response|message|e-?mail|comment|advice) from\b|\b(?:says|said|wrote|writes|reads)\s*[.…]*$)`)
	rePasting  = lazyre.New(`(?i)\b(?:pasting|pasted|copying|copied|verbatim|quoting|forwarding)\b`)
	// reOutro is a line of the person's that says the text above came
	// from somewhere else.
	reOutro = lazyre.New(`(?i)^\W*(?:(?:so|and|ok|okay|btw|fyi),?\s+)?(?:(?:this|that|these|those|the above|above|it|all this|all of this|the text above|everything above)\s+(?:is|was|were|are|'s|came|comes|come)\s+(?:from|in|what|out of|straight from|copied from|pasted from|taken from)\b|(?:found|got|saw|copied|pulled|grabbed|took)\s+(?:this|these|them|it|that)\s+(?:in|on|from|off)\b|(?:is|was|are|were) what (?:the |my |a |an |our |some |this |that )?[\w' ]{1,30}\s(?:said|told|wrote|sent|says|posted|suggested|gave)|(?:that's|this is|those are|these are|this was|that was) (?:from|in|out of) (?:the|a|an|our|my|his|her|their|some|this|that|[\w-]+'s)\b|where did (?:this|these|that|it|they) come from|(?:[a-z]+\s+){1,3}(?:this|these|the above|that)\s+(?:section|page|paragraph|doc|document|text|snippet|excerpt|passage|notes|message|e-?mail|post|answer|comment|thread|article|guide|list|ticket|description|advice|tweet|readme|changelog|release notes)\b)`)
	// reChatLike is a line that reads as the person talking to the agent
	// about what they pasted: a question, a request, a reaction.
	reChatLead = lazyre.New(`(?i)^\W*(?:can|could|would|is|does|do|did|what|why|how|who|where|which|when|are|should|will|this|that|these|those|it|so|ok|okay|hmm+|lol|lmao|haha|also|anyway|thoughts|any|please|pls|summari[sz]e|draft|rewrite|reword|turn|convert|explain|check|fix|make|add|write|translate|review|triage|estimate|break|generate|implement|port|load|plot|chart|import|tldr|ignore|not|no|yes|sounds|seems|looks|wait|really|good|nice|meh|ugh|wow|huh|sanity|she|he|they|help|extract|modernise|modernize|simplify|improve|clean|format|finish|find|show|tell|compare|refactor|update|migrate|answer|reply|respond|close|merge|approve|reject|debug|test|run|lint|parse|optimi[sz]e|plot|sum|count|list|sort|split|rename|remove|delete|drop|keep|use|try|see|look|read|give|get|put|set|where's|what's|who's|why's|how's|isn't|doesn't|don't|didn't|shouldn't|wouldn't|can't|couldn't|won't|hah|hah+|lmfao|rofl|omg|wtf|yikes|oof|hm+|eh|nah|nope|yep|yup|sure|cool|great|thanks|thx|ty|ahh*|oh|ooh)\b`)
	// reFirstLead opens a line with the person (or a paste's author)
	// speaking: "I'd like …", "We never agreed …".
	reFirstLead = lazyre.New(`(?i)^\W*(?:i|i'm|i've|i'd|i'll|we|we're|we've|we'd|we'll|our|my|let's|lets|let\s+us)\b`)
	reBackRef   = lazyre.New(`(?i)\b(?:this|that|these|those|it|above|them|her|him|she|he)\b`)
)

// chatLike reports whether a line reads as the person's own comment on a
// paste: short, and a question or opened like a reply or a request.
func chatLike(l string) bool {
	t := strings.TrimSpace(l)
	if t == "" {
		return false
	}
	words := len(strings.Fields(t))
	if words > 25 {
		return false
	}
	if strings.HasSuffix(t, "?") || strings.HasSuffix(t, "??") {
		return true
	}
	if words <= 12 && reBackRef.MatchString(t) && !strings.HasSuffix(t, ".") {
		return true
	}
	return reChatLead.MatchString(t) && words <= 15
}

// introLine reports whether a line introduces pasted text after it.
func introLine(l string) bool {
	t := strings.TrimSpace(l)
	if t == "" || len(strings.Fields(t)) > 16 {
		return false
	}
	if !reIntroEnd.MatchString(t) {
		// Without a colon: only an explicit act of pasting ("pasting the
		// relevant part of the guide") on a line that ends no sentence.
		return !strings.ContainsAny(t[len(t)-1:], ".?!") && rePasting.MatchString(t) || reThisText.MatchString(t) ||
			!strings.ContainsAny(t[len(t)-1:], ".!") && reReceived.MatchString(t)
	}
	return reIntroCue.MatchString(t)
}

// headerKind reports whether a pasted line is a header that owns the
// paragraph under it: a chat message header, a ticket field, a manual
// section, a changelog heading.
func headerKind(k Kind) bool {
	return k == KindChat || k == KindTicket || k == KindManual || k == KindHistory
}

// markDocuments marks documents by their frame: the paragraph(s) after an
// introduction, before an outro, under a header line, and a chatbot's
// answer. The person's own trailing lines at the end of such a block stay
// theirs but unsure.
func markDocuments(lines []string, kinds []Kind, marked, unsure, frame []bool) {
	n := len(lines)
	blank := func(i int) bool { return strings.TrimSpace(lines[i]) == "" }
	// swallow marks lines [from, to) as kind k (lines already judged keep
	// their kind), then gives back to the person the chat-like lines at
	// the end of the block, unsure, never the first one.
	swallow := func(from, to int, k Kind) {
		first := -1 // the first line of the paste's text (after a header)
		for i := from; i < to; i++ {
			if marked[i] || blank(i) {
				continue
			}
			if first < 0 && (kinds[i] == "" || !headerKind(kinds[i])) {
				first = i
			}
			if kinds[i] == "" {
				kinds[i] = k
			}
		}
		if first < 0 {
			return
		}
		for i := to - 1; i > first && i > from; i-- {
			if blank(i) || marked[i] {
				continue
			}
			// Only lines glued under the paste, never a paragraph's
			// first line.
			if blank(i - 1) {
				break
			}
			if kinds[i] != k || !(chatLike(lines[i]) || reFirstLead.MatchString(lines[i])) || isHeaderLine(lines[i]) {
				break
			}
			kinds[i], unsure[i] = "", true
		}
	}
	// paraEnd returns the end (exclusive) of the paragraph starting at or
	// after i.
	paraEnd := func(i int) int {
		for i < n && blank(i) {
			i++
		}
		for i < n && !blank(i) {
			i++
		}
		return i
	}
	// blockEnd extends a paste from the paragraph after i across further
	// paragraphs until one that reads as the person's reply.
	blockEnd := func(i int) int {
		end := paraEnd(i)
		for end < n {
			j := end
			for j < n && blank(j) {
				j++
			}
			if j >= n {
				break
			}
			next := paraEnd(j)
			reply := true
			for k := j; k < next; k++ {
				if kinds[k] == "" && !chatLike(lines[k]) {
					reply = false
				}
			}
			if reply || marked[j] {
				break
			}
			end = next
		}
		return end
	}

	for i := 0; i < n; i++ {
		if marked[i] || blank(i) {
			continue
		}
		switch {
		case kinds[i] == "" && introLine(lines[i]) && i+1 < n:
			frame[i] = true
			j := i + 1
			for j < n && blank(j) {
				j++
			}
			if j < n && !marked[j] {
				end := blockEnd(j)
				swallow(j, end, KindDocument)
				i = end - 1
			}
		case kinds[i] == "" && reBotOpen.MatchString(lines[i]):
			// A chatbot's answer: its opener down to its closer, or a
			// strong opener ("Great question!") over a long paragraph.
			end, closed := n, false
			for j := i; j < n; j++ {
				if reBotClose.MatchString(lines[j]) {
					end, closed = j+1, true
					break
				}
			}
			if !closed {
				end = blockEnd(i)
				words := 0
				for j := i; j < end; j++ {
					words += len(strings.Fields(lines[j]))
				}
				if !reBotStrong.MatchString(lines[i]) || words < 20 {
					continue
				}
			}
			swallow(i, end, KindChatbot)
			i = end - 1
		case headerKind(kinds[i]) || kinds[i] == KindEmail && !marked[i]:
			k := kinds[i]
			end := blockEnd(i)
			swallow(i, end, k)
			i = end - 1
		case kinds[i] == "" && i == 0 && titleLine(lines[i]) && n > 2 && blank(1),
			kinds[i] == "" && i == 0 && titleLine(lines[i]) && n > 1 && !blank(1) && !reFirstLead.MatchString(lines[1]) && upperLead(lines[1]):
			// (A title glued to a paragraph the person opens in their own
			// voice is their heading: "# Plan\nWe move …".)
			// A title opening the message: a document may follow. Its
			// text could be the person's or a paste's.
			from := 1
			if blank(1) {
				from = 2
			}
			end := blockEnd(from)
			for j := from; j < end; j++ {
				if kinds[j] == "" && !blank(j) && !marked[j] {
					unsure[j] = true
				}
			}
			i = end - 1
		case (kinds[i] == "" || kinds[i] == KindComment) && listHeader(lines[i]):
			// A heading or a colon line that addresses agents governs the
			// lines under it.
			if ok, _ := agentAddressed(lines[i]); ok {
				for j := i + 1; j < n && !blank(j); j++ {
					if kinds[j] == "" {
						unsure[j] = true
					}
				}
			}
		}
	}
	// A reaction at the end ("thoughts on this take?", "is that ok for
	// us?") under a block of prose that is not the person talking to the
	// agent: the block may be a paste. Its lines are unsure.
	if last := lastLine(lines, blank); last > 0 && kinds[last] == "" && chatLike(lines[last]) && reBackRef.MatchString(lines[last]) && !frame[last] {
		start := last
		for start > 0 && kinds[start-1] == "" && !marked[start-1] && (blank(start-1) || !chatLike(lines[start-1])) {
			start--
		}
		words := 0
		for k := start; k < last; k++ {
			words += len(strings.Fields(lines[k]))
		}
		if words >= 20 {
			for k := start; k < last; k++ {
				if !blank(k) {
					unsure[k] = true
				}
			}
		}
	}
	// An outro: the text above it, back to the start or to a paragraph
	// that reads as the person's, came from elsewhere.
	for i := 1; i < n; i++ {
		if marked[i] || kinds[i] != "" || !reOutro.MatchString(lines[i]) {
			continue
		}
		frame[i] = true
		start := i
		for start > 0 && !blank(start-1) && !frame[start-1] {
			start--
		}
		for start > 0 {
			j := start - 1
			for j > 0 && blank(j) {
				j--
			}
			k := j
			for k > 0 && !blank(k-1) {
				k--
			}
			own := true
			for m := k; m <= j; m++ {
				if kinds[m] != "" || !chatLike(lines[m]) {
					own = false
				}
			}
			if own {
				break
			}
			start = k
		}
		for k := start; k < i; k++ {
			if !marked[k] && !blank(k) && kinds[k] == "" {
				kinds[k] = KindDocument
				unsure[k] = false
			}
		}
	}
}

// lastLine returns the index of the last non-empty line, or -1.
func lastLine(lines []string, blank func(int) bool) int {
	for i := len(lines) - 1; i >= 0; i-- {
		if !blank(i) {
			return i
		}
	}
	return -1
}

// titleLine reports whether a line reads as a document's title: short,
// capitalised, no closing punctuation, not a greeting.
// upperLead reports whether a line opens with a capital letter, as
// document prose does; a person typing their own notes under a heading
// often does not ("Notes from today\nthe ledger uses …").
func upperLead(l string) bool {
	for _, r := range l {
		if unicode.IsLetter(r) {
			return unicode.IsUpper(r)
		}
	}
	return false
}

func titleLine(l string) bool {
	t := strings.TrimSpace(strings.Trim(strings.TrimLeft(strings.TrimSpace(l), "#"), "*_"))
	w := strings.Fields(t)
	if len(w) == 0 || len(w) > 7 || reGreeting.MatchString(t+",") {
		return false
	}
	r := []rune(t)
	if !unicode.IsUpper(r[0]) {
		return false
	}
	switch r[len(r)-1] {
	case '.', '?', '!', ':', ',', ';':
		return false
	}
	return !reChatLead.MatchString(t)
}

// listHeader reports whether a line heads what follows: a markdown heading
// or a line ending with a colon.
func listHeader(l string) bool {
	t := strings.TrimSpace(l)
	return strings.HasPrefix(t, "#") || strings.HasSuffix(t, ":")
}

// isHeaderLine reports whether a line is a chat or ticket header.
func isHeaderLine(l string) bool {
	k := lineKind(l)
	return headerKind(k)
}
