package memcore

import (
	"strings"
	"unicode"

	"golang.org/x/text/cases"
	"golang.org/x/text/unicode/norm"
)

// The verbatim rule's comparison form and tokens (the rule is in
// verbatim.go, its words in verbatim_lexicon.go).

var (
	vFolder      = cases.Fold()
	vPunctMapper = strings.NewReplacer(
		"''", `"`, "``", `"`, // doubled single quotes are a double quote (before "`" alone)
		"\u2018", "'", "\u2019", "'", "\u201a", "'", "\u201b", "'", "\u2032", "'", "`", "'",
		"\u201c", `"`, "\u201d", `"`, "\u201e", `"`, "\u201f", `"`, "\u00ab", `"`, "\u00bb", `"`, "\u2033", `"`,
		"\u2039", "'", "\u203a", "'",
		"\u300c", `"`, "\u300d", `"`, "\u300e", `"`, "\u300f", `"`, "\ufe41", `"`, "\ufe42", `"`, "\ufe43", `"`, "\ufe44", `"`,
		"\u2010", "-", "\u2011", "-", "\u2012", "-", "\u2013", "-", "\u2014", "-", "\u2015", "-", "\u2212", "-",
	)
)

// vNormalize is the comparison form of the rule: NFKC, case folded,
// invisible characters gone, quotes and dashes unified. Line breaks are kept
// (they end sentences); the tokenizer collapses the rest of the white space.
func vNormalize(s string) string {
	s = norm.NFKC.String(normalizeBreaks(s))
	s = vFolder.String(s)
	s = vPunctMapper.Replace(s)
	return strings.Map(func(r rune) rune {
		switch {
		case r == '\n':
			return '\n'
		case unicode.IsSpace(r) || unicode.IsControl(r):
			return ' '
		case unicode.Is(unicode.Cf, r) || unicode.Is(unicode.Variation_Selector, r) || r == '\u115f' || r == '\u1160' || r == '\u3164' || r == '\uffa0':
			return -1
		}
		return r
	}, s)
}

type vToken struct {
	s     string
	word  bool
	space bool // white space before it
	line  bool // a line break before it
	para  bool // a blank line (a paragraph break) before it
}

func vWordRune(r rune) bool {
	return unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsMark(r) || r == '_'
}

// vJoiner runes stay inside a word when a word character follows:
// don't, force-push, v1.2, tools/deploy.sh, ops@example.com, host:8080.
func vJoiner(r rune) bool {
	switch r {
	case '\'', '-', '.', '/', '@', ':', '+', '#':
		return true
	}
	return false
}

func vTokens(s string) []vToken {
	rs := []rune(s)
	var out []vToken
	space, line, para := false, false, false
	for i := 0; i < len(rs); {
		r := rs[i]
		if r == '\n' {
			para = para || line
			line, space = true, true
			i++
			continue
		}
		if r == ' ' {
			space = true
			i++
			continue
		}
		t := vToken{space: space, line: line, para: para}
		space, line, para = false, false, false
		if !vWordRune(r) {
			if r != '*' { // markdown emphasis carries no words; "~~" strikes through (vStruck)
				t.s = string(r)
				out = append(out, t)
			}
			i++
			continue
		}
		j := i + 1
		for j < len(rs) {
			if vWordRune(rs[j]) {
				j++
				continue
			}
			if vJoiner(rs[j]) && j+1 < len(rs) && vWordRune(rs[j+1]) {
				j += 2
				continue
			}
			break
		}
		t.s, t.word = string(rs[i:j]), true
		out = append(out, t)
		i = j
	}
	return out
}

func vSentenceEnd(t vToken) bool {
	switch t.s {
	case ".", "!", "?", ";", "…":
		return true
	}
	return false
}

// vEllipsisAt reports whether mt[i] is part of an ellipsis ("…", or two or
// more full stops in a row).
func vEllipsisAt(mt []vToken, i int) bool {
	if mt[i].s == "…" {
		return true
	}
	return mt[i].s == "." && (i > 0 && mt[i-1].s == "." || i+1 < len(mt) && mt[i+1].s == ".")
}

func vClauseMark(t vToken) bool {
	switch t.s {
	case ",", ":", "-", "(", ")", "[", "]", `"`:
		return true
	}
	return false
}
