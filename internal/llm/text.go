package llm

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/odekmem/odekmem/internal/lazyre"
	"github.com/odekmem/odekmem/internal/textutil"
)

// cleanText normalises a model- or user-supplied string: control characters
// removed, whitespace collapsed, clipped to n runes.
func cleanText(s string, n int) string {
	s = strings.Map(func(r rune) rune {
		if r == '\n' || r == '\t' || r == '\r' {
			return ' '
		}
		if unicode.IsControl(r) {
			return -1
		}
		return r
	}, s)
	return textutil.Clip(textutil.OneLine(s), n)
}

var thinkBlock = lazyre.New(`(?is)<think(?:ing)?>.*?</think(?:ing)?>`)

// stripThink removes <think>…</think> blocks that reasoning models served by
// Ollama or vLLM leave in the content.
func stripThink(s string) string {
	if !strings.Contains(strings.ToLower(s), "<think") {
		return s
	}
	return thinkBlock.ReplaceAllString(s, "")
}

// hasControl reports whether s has C0/C1 control characters or a newline.
func hasControl(s string) bool {
	for _, r := range s {
		if unicode.IsControl(r) {
			return true
		}
	}
	return false
}

// upperFirst upper-cases the first rune.
func upperFirst(s string) string {
	r, n := utf8.DecodeRuneInString(s)
	if n == 0 {
		return s
	}
	return string(unicode.ToUpper(r)) + s[n:]
}

// lowerFirst lower-cases the first rune unless the first word looks like an
// acronym or proper name in the middle of a sentence (two leading capitals).
func lowerFirst(s string) string {
	r, n := utf8.DecodeRuneInString(s)
	if n == 0 {
		return s
	}
	if r2, _ := utf8.DecodeRuneInString(s[n:]); unicode.IsUpper(r2) {
		return s
	}
	return string(unicode.ToLower(r)) + s[n:]
}

// trimSentence trims whitespace and trailing sentence punctuation.
func trimSentence(s string) string {
	return strings.TrimRight(strings.TrimSpace(s), " .!;,:")
}

var (
	reUntrustedOpen  = lazyre.New(`(?i)<untrusted_content_[^>]*>`)
	reUntrustedClose = lazyre.New(`(?i)</untrusted_content_[^>]*>`)
)

// StripUntrusted removes <untrusted_content_*>…</untrusted_content_*>
// blocks (tool output, web pages, files the agent wrapped) from a user
// message before extraction, as the design requires. An opening tag with no
// closing tag removes everything after it: unbalanced wrappers are treated
// as hostile, never as user speech.
func StripUntrusted(message string) string {
	for {
		open := reUntrustedOpen.FindStringIndex(message)
		if open == nil {
			return message
		}
		close := reUntrustedClose.FindStringIndex(message[open[1]:])
		if close == nil {
			return message[:open[0]]
		}
		message = message[:open[0]] + " " + message[open[1]+close[1]:]
	}
}
