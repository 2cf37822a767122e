// Package textutil holds the small string helpers memcore and the odekmem
// front ends share: rune-safe truncation and the comparison form of a text.
package textutil

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Truncate cuts s to at most max bytes on a UTF-8 rune boundary. A
// non-positive max leaves s unchanged.
func Truncate(s string, max int) string {
	if max <= 0 || len(s) <= max {
		return s
	}
	cut := max
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut]
}

// TruncateChars cuts s to at most max characters (runes). A non-positive
// max leaves s unchanged.
func TruncateChars(s string, max int) string {
	if max <= 0 || utf8.RuneCountInString(s) <= max {
		return s
	}
	n := 0
	for i := range s {
		if n == max {
			return s[:i]
		}
		n++
	}
	return s
}

// Normalize is the comparison form used for exact-duplicate detection:
// lowercase with runs of white space folded to one space.
func Normalize(s string) string {
	return strings.Join(strings.Fields(strings.ToLower(s)), " ")
}

// NormalHash is the FNV-1a 64 hash of Normalize(s), computed in one pass
// without building the normalised string: a store indexes every live
// atom's text by it for exact-duplicate detection, which Normalize made
// cost a third of a hook's write at 18k atoms.
func NormalHash(s string) uint64 {
	const prime = 1099511628211
	h := uint64(14695981039346656037)
	space, started := false, false
	var buf [utf8.UTFMax]byte
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			i++
			if c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r' {
				space = started
				continue
			}
			if 'A' <= c && c <= 'Z' {
				c += 'a' - 'A'
			}
			if space {
				h = (h ^ ' ') * prime
				space = false
			}
			h = (h ^ uint64(c)) * prime
			started = true
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		i += n
		if unicode.IsSpace(r) {
			space = started
			continue
		}
		if space {
			h = (h ^ ' ') * prime
			space = false
		}
		for _, b := range buf[:utf8.EncodeRune(buf[:], unicode.ToLower(r))] {
			h = (h ^ uint64(b)) * prime
		}
		started = true
	}
	return h
}

// OneLine collapses every run of white space (newlines included) to one
// space and trims the ends.
func OneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// Clip cuts s to at most n runes, preferring a word boundary in the last
// fifth, with no marker added, and trims trailing spaces and , ; : left at
// the cut. It never splits a UTF-8 sequence; n ≤ 0 gives "".
func Clip(s string, n int) string {
	if n <= 0 {
		return ""
	}
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)[:n]
	cut := len(r)
	for i := len(r) - 1; i >= n*4/5; i-- {
		if unicode.IsSpace(r[i]) {
			cut = i
			break
		}
	}
	return strings.TrimRightFunc(string(r[:cut]), func(c rune) bool {
		return unicode.IsSpace(c) || c == ',' || c == ';' || c == ':'
	})
}
