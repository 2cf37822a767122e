package scan

import (
	"strings"
)

// Decoders turn a disguised text back into plain words before the rules
// and the scored detector run again. Each is linear in its input, returns
// ok=false when the disguise is absent (so ordinary text costs one pass),
// and works on the normalised view (lowercase, folded, one space between
// words) except unspaceLetters, which needs the original spacing.

// leetMap undoes common digit/symbol-for-letter substitutions.
var leetMap = [256]byte{'0': 'o', '1': 'i', '3': 'e', '4': 'a', '5': 's', '7': 't', '8': 'b', '@': 'a', '$': 's', '!': 'i', '|': 'l', '+': 't'}

// decodeLeet rewrites words that mix letters with digits or the symbols of
// leetMap ("1gn0r3", "pr3v10u5"); words that are all digits stay as they
// are unless a neighbour is leet. ok when at least two words changed.
func decodeLeet(v string) (string, bool) {
	b := []byte(v)
	changed := 0
	for i := 0; i < len(b); {
		if b[i] == ' ' {
			i++
			continue
		}
		j := i
		letters, subs := 0, 0
		for j < len(b) && b[j] != ' ' {
			c := b[j]
			if c >= 'a' && c <= 'z' {
				letters++
			} else if leetMap[c] != 0 {
				subs++
			}
			j++
		}
		// a leet word: letters and substitutes, substitutes inside the word
		if subs > 0 && (letters > 0 || j-i <= 3) && j-i >= 2 {
			for k := i; k < j; k++ {
				if m := leetMap[b[k]]; m != 0 {
					// keep trailing punctuation
					if (b[k] == '!' || b[k] == '|') && (k == j-1 || k == i) {
						continue
					}
					b[k] = m
				}
			}
			changed++
		}
		i = j
	}
	return string(b), changed >= 2
}

// decodeSeparators turns words joined by '-', '_', '.', '+' or '/'
// ("ignore-all-previous-instructions", "IgNoRe_AlL") into spaced words when
// a token holds three or more such joins between letters.
func decodeSeparators(v string) (string, bool) {
	b := []byte(v)
	ok := false
	for i := 0; i < len(b); {
		j := i
		joins := 0
		for j < len(b) && b[j] != ' ' {
			if isJoinSep(b[j]) && j > i && j+1 < len(b) && isLetterByte(b[j-1]) && isLetterByte(b[j+1]) {
				joins++
			}
			j++
		}
		if joins >= 3 {
			for k := i + 1; k < j-1; k++ {
				if isJoinSep(b[k]) && isLetterByte(b[k-1]) && isLetterByte(b[k+1]) {
					b[k] = ' '
				}
			}
			ok = true
		}
		i = j + 1
	}
	return string(b), ok
}

func isJoinSep(c byte) bool {
	return c == '-' || c == '_' || c == '.' || c == '+' || c == '/' || c == '*'
}
func isLetterByte(c byte) bool { return c >= 'a' && c <= 'z' || c >= 0x80 }

// unspaceLetters joins runs of single letters separated by one separator
// character ("I g n o r e   a l l", "i.g.n.o.r.e", "F-o-r-g-e-t"); two or
// more separators, or a different one, end a word. It runs on the stripped
// text (before whitespace is collapsed). ok when a run of at least four
// letters was joined.
func unspaceLetters(s string) (string, bool) {
	var sb strings.Builder
	ok := false
	i := 0
	for i < len(s) {
		// try a run starting at i: L sep L sep L ...
		if isRunLetter(s, i) && i+2 < len(s) && isUnspaceSep(s[i+1]) && isRunLetter(s, i+2) && (i == 0 || !isRunLetter(s, i-1)) {
			sep := s[i+1]
			j := i
			n := 0
			var word []byte
			for j < len(s) && isRunLetter(s, j) && (j+1 >= len(s) || !isRunLetter(s, j+1)) {
				word = append(word, s[j])
				n++
				if j+2 < len(s) && s[j+1] == sep && isRunLetter(s, j+2) && (j+3 >= len(s) || !isRunLetter(s, j+3)) {
					j += 2
					continue
				}
				j++
				break
			}
			if n >= 4 {
				sb.Write(word)
				ok = true
				i = j
				continue
			}
		}
		sb.WriteByte(s[i])
		i++
	}
	return sb.String(), ok
}

func isRunLetter(s string, i int) bool {
	c := s[i]
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

func isUnspaceSep(c byte) bool {
	return c == ' ' || c == '.' || c == '-' || c == '_' || c == '*' || c == '|' || c == '/' || c == ','
}

// rot13 rotates ASCII letters of the view. ok when the view is mostly ASCII
// words (rot13 text is).
func rot13(v string) (string, bool) {
	letters := 0
	b := []byte(v)
	for i, c := range b {
		switch {
		case c >= 'a' && c <= 'z':
			letters++
			b[i] = 'a' + (c-'a'+13)%26
		case c >= 'A' && c <= 'Z':
			letters++
			b[i] = 'A' + (c-'A'+13)%26
		}
	}
	return string(b), letters >= 12 && letters*2 >= len(v)
}

// percentDecode decodes %XX escapes (and '+' as space) when the view holds
// at least three of them.
func percentDecode(v string) (string, bool) {
	if strings.Count(v, "%") < 3 {
		return "", false
	}
	var sb strings.Builder
	n := 0
	for i := 0; i < len(v); i++ {
		c := v[i]
		if c == '%' && i+2 < len(v) && isHexByte(v[i+1]) && isHexByte(v[i+2]) && v[i+1] != ' ' && v[i+2] != ' ' && v[i+1] != ':' && v[i+2] != ':' {
			sb.WriteByte(unhex(v[i+1])<<4 | unhex(v[i+2]))
			i += 2
			n++
			continue
		}
		sb.WriteByte(c)
	}
	return sb.String(), n >= 3
}

func unhex(c byte) byte {
	switch {
	case c >= '0' && c <= '9':
		return c - '0'
	case c >= 'a' && c <= 'f':
		return c - 'a' + 10
	case c >= 'A' && c <= 'F':
		return c - 'A' + 10
	}
	return 0
}

// englishFreq is the relative frequency of a..z in English text.
var englishFreq = [26]float64{8.2, 1.5, 2.8, 4.3, 12.7, 2.2, 2.0, 6.1, 7.0, 0.15, 0.77, 4.0, 2.4, 6.7, 7.5, 1.9, 0.095, 6.0, 6.3, 9.1, 2.8, 0.98, 2.4, 0.15, 2.0, 0.074}

// caesar finds the rotation of the ASCII letters of the view that makes
// them read most like English (chi-squared against English letter
// frequencies) and returns the text rotated back. ok when the view is
// mostly letters and some rotation other than none fits English clearly
// better than the text as written — a Caesar cipher or rot13.
func caesar(v string) (string, bool) {
	var count [26]float64
	n := 0
	for i := 0; i < len(v); i++ {
		if c := v[i]; c >= 'a' && c <= 'z' {
			count[c-'a']++
			n++
		}
	}
	if n < 20 || n*2 < len(v) {
		return "", false
	}
	chi := func(shift int) float64 {
		x := 0.0
		for k := 0; k < 26; k++ {
			exp := englishFreq[k] / 100 * float64(n)
			obs := count[(k+shift)%26]
			x += (obs - exp) * (obs - exp) / exp
		}
		return x
	}
	best, bestX := 0, chi(0)
	plain := bestX
	for s := 1; s < 26; s++ {
		if x := chi(s); x < bestX {
			best, bestX = s, x
		}
	}
	if best == 0 || bestX*2 > plain {
		return "", false
	}
	b := []byte(v)
	for i, c := range b {
		if c >= 'a' && c <= 'z' {
			b[i] = 'a' + byte((int(c-'a')-best+26)%26)
		}
	}
	return string(b), true
}
