package provenance

import "strings"

// NormalizeBreaks makes every line break "\n": CRLF, CR, NEL (U+0085),
// LINE SEPARATOR (U+2028), PARAGRAPH SEPARATOR (U+2029), vertical tab and
// form feed. Everything that reads lines reads them through it, so no
// break one judgement sees can hide from another.
func NormalizeBreaks(s string) string {
	if !strings.ContainsAny(s, "\r\v\f\u0085\u2028\u2029") {
		return s
	}
	return breakReplacer.Replace(s)
}

var breakReplacer = strings.NewReplacer("\r\n", "\n", "\r", "\n", "\v", "\n", "\f", "\n", "\u0085", "\n", "\u2028", "\n", "\u2029", "\n")
