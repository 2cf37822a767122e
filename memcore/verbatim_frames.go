package memcore

import "fmt"

// Frames: what a neighbouring clause does to a span that opens or closes
// its own clause. Within a clause the rule looks at the words next to the
// span (spanChanged); a frame is a clause on the other side of a joiner —
// ";", ":", a dash, a comma, a parenthesis or a line break — that governs
// it:
//
//   - before the span, a clause left open for it: without a subject of
//     its own it ends with a negation, a modal, a prohibition or another
//     changer ("please stop; we deploy from main", "Hypothetically, we …",
//     "Never —" then the span); or it has a reporting word among its last
//     four words
//     ("the vendor's page says, we …", "he told me; we …"), or ends with a
//     colon and holds a changer anywhere ("Things that are not true: we
//     …"). An answer particle alone ("No, we deploy from main") answers the
//     agent and governs nothing, nor does a conjunction's clause ("I have
//     not, but I've always wanted to go"), nor the person repeating themselves
//     ("As I said before, we …"); a full stop ends the frame ("Stop. We
//     deploy from main." is two statements);
//   - a list header: the nearest line ending with a colon above the span in
//     its paragraph, when it holds a changer, governs every line under it;
//   - after the span, across ";" or a line break or a full stop, a clause
//     that takes it back or qualifies it: opened by a qualifier after ";"
//     ("; not on Fridays", "; unless …", "; or so he said"), by a judgement
//     or hearsay word after a line break or full stop ("False.", "Allegedly
//     …"), or by a demonstrative that a judgement or reporting word follows
//     ("that's a lie", "this is what the wiki claims", "which is not
//     true").
//
// A paragraph break (an empty line) ends every frame.

// vBoundary reports whether t ends a clause for the frame rules.
func vBoundary(t vToken) bool {
	return vClauseMark(t) || vSentenceEnd(t)
}

// vFrameBefore returns why the clause before the span at s governs it, or
// "".
func vFrameBefore(mt []vToken, s int) string {
	// A conjunction starts a clause of its own ("I have not, but I've
	// always wanted to go"): no frame reaches across it.
	if vConjunctions[mt[s].s] || s > 0 && mt[s-1].word && vConjunctions[mt[s-1].s] {
		return ""
	}
	j := s
	if j == 0 || mt[j].para {
		return ""
	}
	end := j // C is mt[start:end]
	join := "a line break"
	if !mt[j].line {
		b := mt[j-1]
		if b.word {
			return "" // the span does not open its clause
		}
		if b.s == ")" || b.s == "]" {
			// "(not true) we deploy from main": the parenthesis before
			// the span judges it.
			if w := vParenChanger(mt, j-1); w != "" {
				return fmt.Sprintf("changed in meaning by %q in the parenthesis before it", w)
			}
			return ""
		}
		switch b.s {
		case ".", "!", "?", "…", `"`:
			return ""
		}
		if !vBoundary(b) {
			return ""
		}
		if b.para {
			return ""
		}
		join, end = fmt.Sprintf("%q", b.s), j-1
		// A bullet or an opening mark at the start of a line: the frame is
		// the line before.
		if b.line && end > 0 && !mt[end].para {
			join = "a line break"
		} else if b.line {
			return ""
		}
	}
	start := end
	for start > 0 && !vBoundary(mt[start-1]) && (start == end || !mt[start].line) {
		start--
	}
	if start == end {
		return ""
	}
	var words []string
	for _, t := range mt[start:end] {
		if t.word {
			words = append(words, t.s)
		}
	}
	if len(words) == 0 {
		return ""
	}
	answer := true
	for _, w := range words {
		answer = answer && vAnswers[w]
	}
	if answer || vReaffirms(words) || vClarifies(words) {
		return ""
	}
	// Left open: without a subject of its own it ends with a negation, a
	// modal, a prohibition or another changer ("please stop", "never",
	// "Hypothetically", "not true"). A clause with its own subject is
	// whole: "You should, it's a classic" and "the old approach was
	// wrong; we …" say something else about something else.
	last := words[len(words)-1]
	if !vSubjects[words[0]] && (vOpenEnd[last] || vChanges(last)) {
		return fmt.Sprintf("changed in meaning by %q in the clause before it (across %s)", last, join)
	}
	for _, w := range words[max(0, len(words)-4):] {
		if reporting[w] {
			return fmt.Sprintf("reported speech (%q) in the clause before it (across %s)", w, join)
		}
	}
	if end < len(mt) && mt[end].s == ":" {
		for _, w := range words {
			if vChanges(w) {
				return fmt.Sprintf("introduced by %q before a colon", w)
			}
		}
	}
	return ""
}

// vListHeader returns why the nearest line above the span that ends with a
// colon, in the same paragraph or right above its paragraph break,
// governs it (it holds a changer), or "".
func vListHeader(mt []vToken, s int) string {
	// Find the start of the span's line.
	i := s
	for i > 0 && !mt[i].line {
		i--
	}
	for i > 0 {
		// mt[i] starts a line; the line before ends at i-1.
		end := i - 1
		start := end
		for start > 0 && !mt[start].line {
			start--
		}
		if mt[end].s == ":" {
			for _, t := range mt[start:end] {
				if t.word && vChanges(t.s) {
					return fmt.Sprintf("under %q in a list introduced by a colon", t.s)
				}
			}
			return ""
		}
		if mt[i].para {
			// A paragraph break ends the list, unless the header
			// ending with a colon stands right above it ("None of these
			// are true:", an empty line, the list): checked above.
			return ""
		}
		i = start
	}
	return ""
}

// vFrameAfter returns why the clause right after the span's sentence (or
// line), which starts at sentEnd, takes the span back, or "".
func vFrameAfter(mt []vToken, sentEnd int) string {
	if sentEnd >= len(mt) {
		return ""
	}
	d := sentEnd
	semicolon := false
	switch {
	case mt[sentEnd].line && !vSentenceEnd(mt[sentEnd]):
		if mt[sentEnd].para {
			return ""
		}
	case mt[sentEnd].s == ";":
		semicolon, d = true, sentEnd+1
	case mt[sentEnd].s == "?":
		return "" // a question is handled on its own
	default:
		d = sentEnd + 1
	}
	for d < len(mt) && !mt[d].word && !mt[d].para && !vSentenceEnd(mt[d]) {
		d++ // a bullet or an opening parenthesis
	}
	if d >= len(mt) || mt[d].para || !mt[d].word {
		return ""
	}
	var words []string
	for k := d; k < len(mt) && (k == d || !mt[k].line) && !vBoundary(mt[k]); k++ {
		if mt[k].word {
			words = append(words, mt[k].s)
		}
	}
	first := words[0]
	switch {
	case semicolon && vQualifiers[first]:
		return fmt.Sprintf("qualified by %q in the clause after it", first)
	case vJudgements[first] || vHearsay[first]:
		return fmt.Sprintf("taken back by %q right after it", first)
	case vDemonstratives[first]:
		for i, w := range words[1:] {
			if vJudgements[w] || reporting[w] {
				return fmt.Sprintf("judged by %q right after it", w)
			}
			if (w == "not" || isNegatedContraction(w)) && i+2 < len(words) && vTruth[words[i+2]] {
				return fmt.Sprintf("judged by %q right after it", w+" "+words[i+2])
			}
		}
	}
	return ""
}

// vReaffirms reports whether a frame is the person repeating their own
// words ("As I said before, …", "like we discussed, …"): an opener, the
// person as subject, then a reporting word.
func vReaffirms(words []string) bool {
	if vSaysAgain(words) {
		return true
	}
	if len(words) < 3 || !vReaffirmOpeners[words[0]] {
		return false
	}
	for i, w := range words[1:] {
		if vFirstPerson[w] {
			return i+2 < len(words) && (reporting[words[i+2]] || vDiscussed[words[i+2]])
		}
		if i >= 1 {
			return false
		}
	}
	return false
}

// vParenChanger returns the negation or judgement inside the parenthesis
// or bracket that closes at mt[close], or "".
func vParenChanger(mt []vToken, close int) string {
	open := map[string]string{")": "(", "]": "["}[mt[close].s]
	for i := close - 1; i >= 0 && i >= close-12; i-- {
		if mt[i].s == open {
			return ""
		}
		if vChangers[mt[i].s] || vJudgements[mt[i].s] || isNegatedContraction(mt[i].s) {
			return mt[i].s
		}
		if mt[i].para {
			return ""
		}
	}
	return ""
}

// vSaysAgain reports whether a frame is the person saying they repeat
// themselves ("I said it before and I'll say it again", "we said it
// before"): first person, a form of "say", "again" or "before", and no
// judgement.
func vSaysAgain(words []string) bool {
	if len(words) < 3 || !vFirstPerson[words[0]] || !(words[1] == "said" || words[1] == "say" || words[1] == "'ve") {
		return false
	}
	again := false
	for _, w := range words {
		switch {
		case vJudgements[w]:
			return false
		case w == "again" || w == "before":
			again = true
		case reporting[w] && w != "said" && w != "say":
			return false
		case w != words[0] && !vFirstPerson[w] && vSubjects[w] && w != "it":
			return false // someone else's words ("I said the page says")
		}
	}
	return again
}
