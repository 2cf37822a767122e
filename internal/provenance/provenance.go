// Package provenance decides whose words each part of a message is: the
// person's own voice, or something else — text they pasted, quoted or
// reported, a hypothesis, a question, a sentence they took back, sarcasm —
// clause by clause. Extraction, the verbatim rule of the memory tool,
// inline approvals, the hook's typed-prompt test and ingest all ask it the
// same question.
//
// Where it cannot tell, the answer is Unsure, never Own: a sentence right
// under a document someone else wrote, or one that gives instructions to
// "assistants" in the third person, may be the person's and may not.
//
// The judgement is by rules a person can read (the paste shapes in
// SplitPasted, the voice tests in voice.go); whether an own sentence is
// worth remembering is a separate, learned decision (internal/judge).
//
// Caveats: the voice tests read English; a message in another language is
// judged by its pastes, quotation marks and question marks alone. A paste
// with no shape, no introduction and no outro ("Here is the
// documentation:") reads as the person's own text.
package provenance

import (
	"strings"
)

// Voice is whose words a segment is.
type Voice string

// Voices.
const (
	// Own: the person's own statement.
	Own Voice = "own"
	// Unsure: could be the person's or a paste's; never trusted, a person
	// decides.
	Unsure Voice = "unsure"
	// Pasted: text the person pasted (Segment.Kind says what it looks
	// like).
	Pasted Voice = "pasted"
	// Quoted: holds someone's words in quotation marks.
	Quoted Voice = "quoted"
	// Reported: someone else's words or views ("my manager thinks …").
	Reported Voice = "reported"
	// Hypothetical: a hypothesis, a hedge or a suggestion ("if we ever …",
	// "we could maybe …").
	Hypothetical Voice = "hypothetical"
	// Question: a question, or a request put as one ("can you …").
	Question Voice = "question"
	// Retracted: taken back later in the message ("… scratch that").
	Retracted Voice = "retracted"
	// Sarcastic: meant the other way round ("… /s").
	Sarcastic Voice = "sarcastic"
)

// Segment is one clause of a message with its voice.
type Segment struct {
	// Start and End are the byte range of Text in Analysis.Text.
	Start, End int
	Text       string
	Voice      Voice
	// Kind is what a pasted segment looks like ("" otherwise).
	Kind Kind
	// Why says what decided a voice other than Own.
	Why string
	// Line is the segment's line in Analysis.Text (0-based).
	Line int
	// Sentence numbers the sentence the clause belongs to; clauses cut
	// from one sentence share it.
	Sentence int
	// Cut is true when the clause was cut from a longer sentence (a
	// trailing request, a clause of its own).
	Cut bool

	tail bool // a trailing request cut from a statement
}

// Analysis is a message split into segments.
type Analysis struct {
	// Text is the message as judged (see Clean).
	Text     string
	Pasted   Split
	Segments []Segment
}

// Own returns the segments in the person's own voice.
func (a Analysis) Own() []Segment { return a.filter(Own) }

func (a Analysis) filter(v Voice) []Segment {
	var out []Segment
	for _, s := range a.Segments {
		if s.Voice == v {
			out = append(out, s)
		}
	}
	return out
}

// VoiceAt returns the voice of the segment holding the byte range
// [start, end) of Analysis.Text, and whether one segment holds all of it.
func (a Analysis) VoiceAt(start, end int) (Segment, bool) {
	for _, s := range a.Segments {
		if start >= s.Start && end <= s.End {
			return s, true
		}
	}
	return Segment{}, false
}

// Analyse splits msg into segments and judges each one's voice.
func Analyse(msg string) Analysis {
	p := SplitPasted(msg)
	a := Analysis{Text: p.Text, Pasted: p}
	text := p.Text
	off := 0
	sentence := 0
	for li, line := range p.Lines {
		start, end := off, off+len(line)
		off = end + 1
		if strings.TrimSpace(line) == "" || isFenceLine(line) {
			continue
		}
		if k := p.Kinds[li]; k != "" {
			for _, sp := range sentenceSpans(text, start, end) {
				// A quoted line's marker is not part of its text.
				s := sp.a
				if p.Marked[li] && k == KindQuote {
					rest, _ := QuotedLine(strings.TrimSpace(text[s:sp.b]))
					s = sp.b - len(rest)
				}
				if s < sp.b {
					a.Segments = append(a.Segments, Segment{Start: s, End: sp.b, Text: text[s:sp.b], Voice: Pasted, Kind: k,
						Why: "pasted " + string(k), Line: li, Sentence: sentence})
				}
				sentence++
			}
			continue
		}
		introduced := "" // a sentence of this line introduced someone else's text
		for _, sp := range sentenceSpans(text, start, end) {
			for _, c := range clauses(text, sp) {
				seg := Segment{Start: c.span.a, End: c.span.b, Text: text[c.span.a:c.span.b], Line: li, Sentence: sentence, Cut: c.cut, tail: c.tail}
				seg.Voice, seg.Why = judge(seg.Text, c)
				// The text a colon introduced runs on to the end of its
				// line ("Accepted answer: Just set X. You never need Y."),
				// unless the person takes the word back ("But we …").
				switch {
				case seg.Voice == Reported && strings.HasPrefix(seg.Why, introducedWhy):
					introduced = seg.Why
				case introduced != "" && seg.Voice == Own && !reFirstLead.MatchString(seg.Text) && !reContrastLead.MatchString(seg.Text):
					seg.Voice, seg.Why = Reported, introduced
				}
				if p.Unsure[li] && (seg.Voice == Own || seg.Voice == "") {
					seg.Voice, seg.Why = Unsure, "right under a paste, may be its last line"
				}
				a.Segments = append(a.Segments, seg)
			}
			sentence++
		}
	}
	crossClause(&a)
	mergeClauses(&a)
	return a
}

// mergeClauses joins neighbouring clauses of one sentence that ended with
// the same voice: a clause is cut off only where the voice changes ("My
// teammate prefers spaces, I prefer tabs"), so a statement stays whole
// ("do NOT use moment.js, we're on date-fns").
func mergeClauses(a *Analysis) {
	segs := a.Segments
	var out []Segment
	for _, s := range segs {
		if n := len(out); n > 0 {
			p := &out[n-1]
			if p.Sentence == s.Sentence && p.Voice == s.Voice && p.Voice != Pasted && p.Line == s.Line && !s.tail {
				p.End = s.End
				p.Text = a.Text[p.Start:p.End]
				continue
			}
		}
		out = append(out, s)
	}
	a.Segments = out
}

// clause is a part of a sentence with what governs it.
type clause struct {
	span span
	// frame is the voice the clause inherits from the clause before it
	// ("According to the vendor, we …"), and why.
	frame    Voice
	frameWhy string
	// tail is true for a trailing request or question cut from a
	// statement.
	tail bool
	cut  bool
}

// clauses cuts a sentence into the clauses that may stand on their own: a
// trailing request or question after a comma ("We're on Postgres 16, can
// you update the compose file?"), and a clause opened by the person as
// subject after a comma, a semicolon or a dash ("My teammate prefers
// spaces, I prefer tabs"). A clause after a frame that governs it
// ("Hypothetically, we …", "he said, we …") inherits the frame's voice.
func clauses(text string, sp span) []clause {
	s := text[sp.a:sp.b]
	low := lowerASCII(strings.ReplaceAll(s, "’", "'"))
	// A tag question makes the whole sentence a question.
	if reTag.MatchString(low) {
		return []clause{{span: sp}}
	}
	var cuts []int // byte offsets in s where a clause starts
	var tails []bool
	for _, m := range reClauseSplit.FindAllStringIndex(low, -1) {
		at := m[1]
		if at >= len(low) || m[0] == 0 {
			continue
		}
		rest := low[at:]
		w := wordsOf(rest)
		if len(w) == 0 {
			continue
		}
		head := strings.TrimSpace(s[:m[0]])
		if len(wordsOf(head)) < 2 {
			continue
		}
		switch {
		case reRequestOpen.MatchString(rest) || strings.HasPrefix(rest, "please ") || strings.HasPrefix(rest, "pls ") ||
			strings.HasPrefix(rest, "what do you think") || strings.HasPrefix(rest, "thoughts") || strings.HasPrefix(rest, "is that ") ||
			strings.HasPrefix(rest, "does that ") || strings.HasPrefix(rest, "so can you") || strings.HasPrefix(rest, "any idea"):
			if len(wordsOf(head)) >= 3 {
				cuts, tails = append(cuts, at), append(tails, true)
			}
		case firstPerson[w[0]] || (w[0] == "my" || w[0] == "our") && len(w) > 1 ||
			(w[0] == "but" || w[0] == "so" || w[0] == "and") && len(w) > 1 && (firstPerson[w[1]] || w[1] == "my" || w[1] == "our"):
			cuts, tails = append(cuts, at), append(tails, false)
		case retractionLen(rest) > 0 && !strings.HasPrefix(rest, "not "):
			cuts, tails = append(cuts, at), append(tails, false)
		}
	}
	if len(cuts) == 0 {
		return []clause{{span: sp}}
	}
	var out []clause
	prev := 0
	for i, c := range cuts {
		end := c
		// The clause before ends before its joiner.
		j := strings.TrimRight(s[:end], " \t")
		j = strings.TrimRight(j, ",;—–-")
		out = append(out, clause{span: span{sp.a + prev, sp.a + len(strings.TrimRight(j, " \t"))}, cut: true})
		prev = c
		_ = tails[i]
	}
	out = append(out, clause{span: span{sp.a + prev, sp.b}, cut: true})
	for i := range out {
		if i > 0 {
			out[i].tail = tails[i-1]
		}
	}
	// Frames that govern the clause after them.
	for i := 1; i < len(out); i++ {
		// A contrast is the person's own ("…, but our registry is …").
		if w := wordsOf(text[out[i].span.a:out[i].span.b]); len(w) > 0 && (w[0] == "but" || w[0] == "though" || w[0] == "however") {
			continue
		}
		prevText := lowerText(text[out[i-1].span.a:out[i-1].span.b])
		if v, why := governs(prevText); v != "" && !out[i].tail {
			out[i].frame, out[i].frameWhy = v, why
		}
		if out[i-1].frame != "" && !out[i].tail {
			out[i].frame, out[i].frameWhy = out[i-1].frame, out[i-1].frameWhy
		}
	}
	return out
}

// governs returns the voice a leading clause imposes on the clause after
// it: a frame with no statement of its own ("Hypothetically", "If the
// customer ever asks for on-prem", "According to the vendor", "he said").
func governs(low string) (Voice, string) {
	w := wordsOf(low)
	if len(w) == 0 {
		return "", ""
	}
	if m := reHypoOpen.FindString(low); m != "" {
		return Hypothetical, "under the frame \"" + strings.TrimSpace(m) + "\""
	}
	switch w[0] {
	case "if", "unless", "when", "once", "whenever":
		if w[0] == "if" || w[0] == "unless" {
			return Hypothetical, "under the condition \"" + low + "\""
		}
	case "according", "apparently", "allegedly", "reportedly", "supposedly":
		return Reported, "under the frame \"" + low + "\""
	}
	if (reportVerbs[w[len(w)-1]] || len(w) >= 2 && w[len(w)-2] == "told") && !firstPerson[w[0]] {
		return Reported, "after \"" + low + "\""
	}
	if strings.HasPrefix(low, "it's not true") || strings.HasPrefix(low, "it is not true") || strings.HasPrefix(low, "i never said") {
		return Reported, "denied by \"" + low + "\""
	}
	return "", ""
}

// judge returns a clause's own voice (before what other clauses do to it).
func judge(s string, c clause) (Voice, string) {
	if ok, why := asks(s); ok {
		return Question, why
	}
	if c.frame != "" {
		return c.frame, c.frameWhy
	}
	if ok, why := reported(s); ok {
		return Reported, why
	}
	if ok, why := introducedByColon(s); ok {
		return Reported, why
	}
	if ok, why := hypothetical(s); ok {
		return Hypothetical, why
	}
	if ok, why := sarcastic(s); ok {
		return Sarcastic, why
	}
	if ok, why := quoted(s); ok {
		return Quoted, why
	}
	if ok, why := agentAddressed(s); ok {
		return Unsure, why
	}
	return Own, ""
}

// crossClause applies what one clause does to another: a retraction takes
// back the clause before it (and its own marker is cut off), a sarcastic
// tag ("Totally.") turns the clause before it.
func crossClause(a *Analysis) {
	segs := a.Segments
	var kept []Segment
	for i := range segs {
		s := &segs[i]
		if s.Voice == Pasted {
			kept = append(kept, *s)
			continue
		}
		if n := retractionLen(s.Text); n > 0 {
			// The clause before, in the person's text, is taken back.
			if j := prevOwn(segs, i); j >= 0 {
				segs[j].Voice, segs[j].Why = Retracted, "taken back by \""+strings.TrimSpace(s.Text[:n])+"\""
				for k := range kept {
					if kept[k].Start == segs[j].Start {
						kept[k] = segs[j]
					}
				}
			}
			// The rest of the clause is the correction.
			rest := strings.TrimLeft(s.Text[n:], " ,.:;!—–-")
			if rest == "" || !hasLetterOrDigit(rest) {
				continue
			}
			cut := len(s.Text) - len(rest)
			s.Start += cut
			s.Text = rest
			s.Cut = true
			s.Voice, s.Why = judge(rest, clause{})
		}
		if reSarcasmTail.MatchString(lowerText(strings.TrimSpace(s.Text))) {
			if j := prevOwn(segs, i); j >= 0 {
				segs[j].Voice, segs[j].Why = Sarcastic, "sarcasm (\""+strings.TrimSpace(s.Text)+"\" after it)"
				for k := range kept {
					if kept[k].Start == segs[j].Start {
						kept[k] = segs[j]
					}
				}
			}
			s.Voice, s.Why = Sarcastic, "a sarcastic tag"
		}
		kept = append(kept, *s)
	}
	a.Segments = kept
}

// prevOwn returns the index of the nearest segment before i that is not
// pasted, or -1.
func prevOwn(segs []Segment, i int) int {
	for j := i - 1; j >= 0; j-- {
		if segs[j].Voice != Pasted {
			return j
		}
	}
	return -1
}
