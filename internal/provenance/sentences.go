package provenance

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// span is a byte range of a text.
type span struct{ a, b int }

// abbreviations end with a full stop that does not end a sentence.
var abbreviations = map[string]bool{
	"e.g": true, "i.e": true, "etc": true, "vs": true, "approx": true, "mr": true, "mrs": true, "ms": true,
	"dr": true, "st": true, "cf": true, "no": false, "fig": true, "eg": true, "ie": true, "incl": true,
	"min": true, "max": true, "aka": true, "resp": true, "viz": true, "esp": true, "jr": true, "sr": true,
}

// reBullet is a list marker at the start of a line.
func bulletLen(line string) int {
	t := strings.TrimLeft(line, " \t")
	lead := len(line) - len(t)
	switch {
	case strings.HasPrefix(t, "- "), strings.HasPrefix(t, "* "), strings.HasPrefix(t, "+ "), strings.HasPrefix(t, "• "):
		return lead + len(t[:strings.IndexByte(t, ' ')+1])
	}
	// "1. ", "1) ", "a) ", "(1) "
	i := 0
	if strings.HasPrefix(t, "(") {
		i = 1
	}
	j := i
	for j < len(t) && j-i < 3 && (t[j] >= '0' && t[j] <= '9' || j == i && t[j] >= 'a' && t[j] <= 'z' && j+1 < len(t) && t[j+1] == ')') {
		j++
	}
	if j > i && j+1 < len(t) && (t[j] == '.' || t[j] == ')') && t[j+1] == ' ' {
		return lead + j + 2
	}
	return 0
}

// sentenceSpans splits the line text[a:b] into sentences: at . ! ? … (and
// runs of them) followed by white space, unless the full stop ends an
// abbreviation or an initial. A list marker at the start is left out.
func sentenceSpans(text string, a, b int) []span {
	line := text[a:b]
	start := bulletLen(line)
	var out []span
	push := func(s, e int) {
		for s < e && (text[a+s] == ' ' || text[a+s] == '\t') {
			s++
		}
		for e > s && (text[a+e-1] == ' ' || text[a+e-1] == '\t') {
			e--
		}
		if e > s && hasLetterOrDigit(text[a+s:a+e]) {
			out = append(out, span{a + s, a + e})
		}
	}
	for i := start; i < len(line); {
		r, w := utf8.DecodeRuneInString(line[i:])
		if r != '.' && r != '!' && r != '?' && r != '…' {
			i += w
			continue
		}
		j := i + w
		for j < len(line) {
			r2, w2 := utf8.DecodeRuneInString(line[j:])
			if r2 != '.' && r2 != '!' && r2 != '?' && r2 != '…' && r2 != '"' && r2 != '\'' && r2 != ')' && r2 != '”' && r2 != '’' {
				break
			}
			j += w2
		}
		if j < len(line) && line[j] != ' ' && line[j] != '\t' {
			i = j
			continue
		}
		if r == '.' && j == i+1 && endsAbbreviation(line[start:i]) {
			i = j
			continue
		}
		push(start, j)
		start = j
		i = j
	}
	push(start, len(line))
	return out
}

// endsAbbreviation reports whether s ends with an abbreviation or an
// initial (so a following full stop is not a sentence end).
func endsAbbreviation(s string) bool {
	k := len(s)
	for k > 0 {
		r, w := utf8.DecodeLastRuneInString(s[:k])
		if unicode.IsSpace(r) || r == '(' {
			break
		}
		k -= w
	}
	word := strings.ToLower(s[k:])
	if abbreviations[word] {
		return true
	}
	// A single capital letter: an initial ("J. Smith").
	return utf8.RuneCountInString(word) == 1 && unicode.IsUpper([]rune(s[k:])[0])
}

func hasLetterOrDigit(s string) bool {
	for _, r := range s {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			return true
		}
	}
	return false
}
