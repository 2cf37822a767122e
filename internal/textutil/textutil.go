// Package textutil holds the small string helpers memcore and the odekmem
// front ends share: rune-safe truncation and the comparison form of a text.
package textutil

import (
	"strings"
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
