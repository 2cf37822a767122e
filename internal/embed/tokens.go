package embed

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Tokens splits s into lowercase runs of Unicode letters and digits. It is
// the tokenizer shared by the hash embedder and the BM25 index
// (vindex.BM25), so both channels agree on what a word is. Apostrophes
// inside a word are dropped ("don't" → "dont", "Caroline's" → "carolines"
// before stemming), everything else separates tokens.
func Tokens(s string) []string {
	out := make([]string, 0, len(s)/5+1)
	var b strings.Builder
	flush := func() {
		if b.Len() > 0 {
			out = append(out, b.String())
			b.Reset()
		}
	}
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		i += size
		switch {
		case r < utf8.RuneSelf && ('a' <= r && r <= 'z' || '0' <= r && r <= '9'):
			b.WriteByte(byte(r))
		case r < utf8.RuneSelf && 'A' <= r && r <= 'Z':
			b.WriteByte(byte(r) + 'a' - 'A')
		case r == '\'' || r == '\u2019':
			// Keep "don't" and "Caroline's" together.
		case unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.Is(unicode.Mn, r):
			b.WriteRune(unicode.ToLower(r))
		default:
			flush()
		}
	}
	flush()
	return out
}

// Terms returns the index terms of s: Tokens with stop words removed and a
// light suffix-stripping stemmer applied (see Stem). BM25 and the hash
// embedder both index Terms.
func Terms(s string) []string {
	toks := Tokens(s)
	out := toks[:0]
	for _, t := range toks {
		if IsStopword(t) {
			continue
		}
		out = append(out, Stem(t))
	}
	return out
}

// Stem is a deliberately light, deterministic English suffix stripper
// (possessive, plural, -ing, -ed, -ly). It never consults a vocabulary, so
// a term's stem is a pure function of the term. Words of four bytes or fewer
// and non-ASCII words are returned unchanged.
func Stem(w string) string {
	if len(w) <= 4 {
		return w
	}
	for i := 0; i < len(w); i++ {
		if w[i] >= utf8.RuneSelf {
			return w
		}
	}
	switch {
	case strings.HasSuffix(w, "ies") && len(w) > 5:
		w = w[:len(w)-3] + "y"
	case strings.HasSuffix(w, "sses"):
		w = w[:len(w)-2]
	case strings.HasSuffix(w, "ss"), strings.HasSuffix(w, "us"), strings.HasSuffix(w, "is"):
	case strings.HasSuffix(w, "s"):
		w = w[:len(w)-1]
	}
	switch {
	case strings.HasSuffix(w, "ing") && len(w) > 6:
		w = undouble(w[:len(w)-3])
	case strings.HasSuffix(w, "ed") && len(w) > 5:
		w = undouble(w[:len(w)-2])
	case strings.HasSuffix(w, "ly") && len(w) > 5:
		w = w[:len(w)-2]
	}
	if len(w) > 4 && strings.HasSuffix(w, "e") {
		w = w[:len(w)-1]
	}
	return w
}

// undouble turns "runn" into "run" and "stopp" into "stop".
func undouble(w string) string {
	n := len(w)
	if n >= 3 && w[n-1] == w[n-2] && !strings.ContainsRune("aeiouls", rune(w[n-1])) {
		return w[:n-1]
	}
	return w
}

// IsStopword reports whether t (lowercase) is a common English function
// word that carries no topical signal.
func IsStopword(t string) bool {
	_, ok := stopwords[t]
	return ok
}

var stopwords = func() map[string]struct{} {
	list := `a about above after again against all am an and any are as at be because been
before being below between both but by can could did do does doing down during each few for
from further had has have having he her here hers herself him himself his how i if in into is
it its itself just me more most my myself no nor not now of off on once only or other our ours
ourselves out over own same she should so some such than that the their theirs them themselves
then there these they this those through to too under until up very was we were what when where
which while who whom why will with would you your yours yourself yourselves im ive id ill youre
youve youll youd hes shes its were weve well wed theyre theyve theyll isnt arent wasnt werent
dont doesnt didnt cant couldnt wont wouldnt shouldnt thats whats lets also oh yeah hey hi really
got get gets getting go going gonna wanna us may might must shall yes ok okay`
	m := make(map[string]struct{}, 200)
	for _, w := range strings.Fields(list) {
		m[w] = struct{}{}
	}
	return m
}()
