package llm

import (
	"math"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/odekmem/odekmem/internal/lazyre"
	"github.com/odekmem/odekmem/internal/textutil"
)

// Referent is a candidate antecedent for anaphora resolution: a recent
// trusted atom and its similarity to the message.
type Referent struct {
	Text  string
	Type  string
	Score float64
}

var pronouns = map[string]bool{"it": true, "that": true, "this": true, "those": true, "them": true, "these": true}

// Verbs that take the pronoun as their object ("refactor it").
var objectVerbs = setOf(`refactor test move delete remove rename fix update change use run deploy document explain
review rewrite migrate replace split merge optimize optimise debug revert undo add drop keep try check build ship port
extract simplify clean format lint benchmark profile cache wrap mock call import export install configure enable disable
implement commit push upgrade downgrade patch reuse inline cover parse validate handle release tag backport copy
duplicate compare measure version rollback roll publish archive sort trim shorten expand improve secure open
edit show print read rerun retest investigate`)

// Prepositions whose object the pronoun can be ("tests for it").
var prepositions = setOf(`for about with to into on from in of at by under behind around against without like onto via`)

// Third-person action verbs that make a subject pronoun referential
// ("it fails on CI"). Verbs such as works, seems, depends, rains are
// deliberately absent: "it works", "it seems", "it depends" are dummies.
var subjectVerbs = setOf(`breaks broke fails failed crashes crashed panics panicked supports handles uses returns calls
needs leaks leaked hangs hung compiles throws threw logs stores writes reads sends blocks affects covers requires includes
keeps times timed errors errored leaks imports exports exposes produces generates misses skips ignores retries`)

// Base action verbs after an auxiliary ("does it support X").
var baseVerbs = setOf(`break fail crash panic support handle use return call need leak hang compile throw log store write
read send block affect cover require include scale stream retry expose produce generate miss skip ignore cache validate
parse accept allow run`)

var auxiliaries = setOf(`does do did can could will would should shall might may must`)
var negAux = setOf(`doesn't didn't won't can't cannot wouldn't shouldn't`)

// Words that may directly follow a demonstrative used as a pronoun
// ("refactor this so …", "move that to …"); any other word makes it a
// determiner ("that function") or a complementizer ("that the …").
var afterPronoun = setOf(`to and or but so then too again please now later first up out for with into in on from before
after instead as also if when because since while without using by back over away down here there properly correctly
quickly asap tomorrow today yet anymore at via across once`)

// Words after which a subject pronoun starts a clause.
var clauseStarts = setOf(`and but so because since if when then now why how why whether although though once`)

func setOf(s string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(s) {
		m[w] = true
	}
	return m
}

var reWord = lazyre.New(`[A-Za-z][A-Za-z0-9_-]*(?:['\x{2019}][A-Za-z]+)?`)

type token struct {
	s, low     string
	start, end int
}

// HasReferentialPronoun reports whether ResolveAnaphora could replace
// anything in message: its first pronoun is referential. When it is false,
// ResolveAnaphora returns message unchanged whatever the referents, so a
// caller may skip looking for them.
func HasReferentialPronoun(message string) bool {
	toks := tokenize(message)
	for i, t := range toks {
		base := t.low
		if j := strings.IndexAny(base, "'\u2019"); j >= 0 {
			base = base[:j]
		}
		if pronouns[base] {
			return !strings.ContainsAny(t.low, "'\u2019") && referential(message, toks, i)
		}
	}
	return false
}

// ResolveAnaphora replaces the first pronoun (it, that, this, those, them,
// these) in message with a short noun phrase from the top-scoring referent,
// when that referent's Score is at least gate. It is deterministic and makes
// no model call.
//
// Only a referential pronoun is replaced: the object of an action verb or a
// preposition ("refactor it", "can you test that", "add tests for it"), or the
// subject of an action verb ("does it support …", "that breaks the build").
// When the first pronoun is a dummy or a determiner ("it works", "it is
// raining", "it seems", "it's fine", "that's it", "is it ok", "it depends",
// "this is great", "that function"), when no referent clears the gate, or
// when no noun phrase of at most five words can be derived from the
// referent, message is returned unchanged with false. Capitalisation at
// sentence start is preserved.
func ResolveAnaphora(message string, referents []Referent, gate float64) (string, bool) {
	if math.IsNaN(gate) {
		return message, false
	}
	top := -1
	for i, r := range referents {
		if math.IsNaN(r.Score) || r.Score < gate {
			continue
		}
		if top < 0 || r.Score > referents[top].Score {
			top = i
		}
	}
	if top < 0 {
		return message, false
	}
	toks := tokenize(message)
	k := -1
	for i, t := range toks {
		base := t.low
		if j := strings.IndexAny(base, "'\u2019"); j >= 0 {
			base = base[:j]
		}
		if pronouns[base] {
			k = i
			break
		}
	}
	if k < 0 || strings.ContainsAny(toks[k].low, "'\u2019") || !referential(message, toks, k) {
		return message, false
	}
	np := NounPhrase(referents[top].Text)
	if np == "" {
		return message, false
	}
	t := toks[k]
	if r, _ := utf8.DecodeRuneInString(t.s); unicode.IsUpper(r) && sentenceStart(message, toks, k) {
		np = capitalizeNP(np)
	}
	return message[:t.start] + np + message[t.end:], true
}

func tokenize(s string) []token {
	var out []token
	for _, m := range reWord.FindAllStringIndex(s, -1) {
		w := s[m[0]:m[1]]
		out = append(out, token{s: w, low: strings.ToLower(w), start: m[0], end: m[1]})
	}
	return out
}

// joined reports whether tokens a and b (a before b) are separated only by
// spaces, i.e. no punctuation breaks the phrase.
func joined(s string, a, b token) bool {
	return strings.TrimSpace(s[a.end:b.start]) == ""
}

func sentenceStart(s string, toks []token, k int) bool {
	if k == 0 {
		return strings.TrimSpace(s[:toks[0].start]) == "" || strings.Trim(s[:toks[0].start], " \t\n\"'(") == ""
	}
	gap := strings.TrimSpace(s[toks[k-1].end:toks[k].start])
	return strings.ContainsAny(gap, ".!?\n")
}

// prevWord and nextWord return the neighbouring word when no punctuation
// separates it from the pronoun, else "".
func prevWord(s string, toks []token, k int) string {
	if k > 0 && joined(s, toks[k-1], toks[k]) {
		return toks[k-1].low
	}
	return ""
}

func nextWord(s string, toks []token, k int) string {
	if k+1 < len(toks) && joined(s, toks[k], toks[k+1]) {
		return toks[k+1].low
	}
	return ""
}

func referential(s string, toks []token, k int) bool {
	p := toks[k].low
	prev, next := prevWord(s, toks, k), nextWord(s, toks, k)
	next2 := ""
	if next != "" {
		next2 = nextWord(s, toks, k+1)
	}
	clauseStart := prev == "" || clauseStarts[prev]
	// Subject of an action verb.
	if auxiliaries[prev] && baseVerbs[next] {
		return true // "does it support …", "can that handle …"
	}
	if clauseStart && (subjectVerbs[next] || (negAux[next] && baseVerbs[next2])) {
		return true // "it fails on CI", "that doesn't compile"
	}
	object := objectVerbs[prev] || prepositions[prev]
	switch p {
	case "it", "them":
		return object
	default: // that, this, these, those
		if next != "" && !afterPronoun[next] {
			return false // determiner ("that function") or clause ("that the …")
		}
		return object
	}
}

var (
	reNPObject   = rx(`\b(?:use|using|uses|used|chose|choose|chosen|pick|picked|picks|go with|went with|going with|settled on|opted for|switch to|switched to|switching to|migrate to|migrated to|migrating to|move to|moved to|moving to|adopt|adopted|adopts|prefer|prefers|preferred|like|likes|love|loves|want|wants|stick with|standardi[sz]e on|referenced|hates|hate|dislikes)\s+(.+)`)
	reNPSubject  = rx(`^((?:the|this|our|my|their|a|an)\s+(?:[\w.+/-]+\s+){0,3}?[\w.+/-]+)\s+(?:is|are|was|were|uses|use|has|have|needs|need|handles|stores|runs|calls|returns|depends|lives|contains|should|must|will|can|does|relies|talks|sends|reads|writes|keeps|lacks)\b`)
	reNPProper   = lazyre.New(`^([A-Z][\w.+-]*(?:\s+[A-Z][\w.+-]*){0,2})\s+(?:is|are|was|were|uses|has|needs|handles|stores|runs|should|must|will|can|does)\b`)
	reNPUserVerb = rx(`^(?:the\s+)?user\s+(?:decided|plans?|wants?|needs?|intends?|is going|aims?|hopes?)\s+to\s+\w+\s+(.+)`)
	reNPCut      = rx(`\s+(?:over|instead|rather|for|because|to|in|on|with|from|when|whenever|since|and|but|so|as|which|that|than|after|before|unless|if|by|via|at|into|is|are|was|were)\b.*$`)
	reUserLead   = rx(`^(?:the\s+)?(?:user|i|we)\b`)
)

// NounPhrase derives a short noun phrase (at most five words) naming what an
// atom is about, or "" when none can be found: "User decided to use
// PostgreSQL over MySQL" → "PostgreSQL", "The auth package uses JWT" → "the
// auth package", "Prefers table-driven tests" → "table-driven tests". It
// never returns the whole atom sentence.
func NounPhrase(text string) string {
	t := trimSentence(textutil.OneLine(text))
	if t == "" {
		return ""
	}
	var cands []string
	if reUserLead.MatchString(t) {
		if m := reNPObject.FindStringSubmatch(t); m != nil {
			cands = append(cands, m[1])
		}
		if m := reNPUserVerb.FindStringSubmatch(t); m != nil {
			cands = append(cands, m[1])
		}
	} else {
		if m := reNPSubject.FindStringSubmatch(t); m != nil {
			cands = append(cands, m[1])
		}
		if m := reNPProper.FindStringSubmatch(t); m != nil {
			cands = append(cands, m[1])
		}
		if m := reNPObject.FindStringSubmatch(t); m != nil {
			cands = append(cands, m[1])
		}
	}
	for _, c := range cands {
		if np := tidyNP(c); np != "" && !strings.EqualFold(np, t) {
			return np
		}
	}
	return ""
}

func tidyNP(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexAny(s, ",;:!?()\"`"); i >= 0 {
		s = s[:i]
	}
	s = reNPCut.ReplaceAllString(s, "")
	s = strings.TrimRight(strings.TrimSpace(s), ".")
	w := strings.Fields(s)
	if len(w) == 0 || len(w) > 5 {
		return ""
	}
	switch strings.ToLower(w[0]) {
	case "their", "my", "our", "your", "this", "that":
		if len(w) == 1 {
			return ""
		}
		w[0] = "the"
	case "the", "a", "an":
		if len(w) == 1 {
			return ""
		}
		w[0] = strings.ToLower(w[0])
	}
	np := strings.Join(w, " ")
	if contentless(np) || pronouns[strings.ToLower(np)] {
		return ""
	}
	return np
}

// capitalizeNP upper-cases the first letter of a noun phrase that starts a
// sentence, unless it starts with a path or code-like token.
func capitalizeNP(np string) string {
	first := strings.Fields(np)[0]
	if strings.ContainsAny(first, "./_~") {
		return np
	}
	return upperFirst(np)
}
