package scan

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// confusables folds lowercase Cyrillic, Greek, Armenian and assorted Latin
// look-alikes onto the ASCII letter they imitate. Uppercase forms are
// handled by lowercasing first. Typographic quotes fold to ASCII quotes.
var confusables = map[rune]rune{
	// Cyrillic
	'а': 'a', 'в': 'b', 'е': 'e', 'ё': 'e', 'к': 'k', 'м': 'm', 'н': 'h', 'о': 'o', 'р': 'p', 'с': 'c',
	'т': 't', 'у': 'y', 'х': 'x', 'ѕ': 's', 'і': 'i', 'ї': 'i', 'ј': 'j', 'һ': 'h', 'ԁ': 'd', 'ԛ': 'q',
	'ԝ': 'w', 'ү': 'y', 'ӏ': 'l', 'ɡ': 'g', 'ԍ': 'g', 'ո': 'n', 'ս': 'u', 'օ': 'o', 'հ': 'h', 'ց': 'g',
	'ɑ': 'a', 'ı': 'i', 'ȷ': 'j', 'ʏ': 'y', 'ɩ': 'i', 'ʋ': 'u', 'ꞵ': 'b',
	// Greek
	'α': 'a', 'β': 'b', 'γ': 'y', 'ε': 'e', 'ζ': 'z', 'η': 'n', 'ι': 'i', 'κ': 'k', 'μ': 'm', 'ν': 'v',
	'ο': 'o', 'ρ': 'p', 'τ': 't', 'υ': 'u', 'χ': 'x', 'ω': 'w', 'ϲ': 'c', 'ϳ': 'j', 'ς': 'c',
	// punctuation
	'\u2018': '\'', '\u2019': '\'', '\u201B': '\'', '\u2032': '\'', '\u02BC': '\'', '\u02B9': '\'',
	'\u201C': '"', '\u201D': '"', '\u201F': '"', '\u2033': '"',
	'\u2010': '-', '\u2011': '-', '\u2012': '-', '\u2013': '-', '\u2014': '-', '\u2212': '-',
}

// foldRune lowercases r and maps look-alikes to Latin.
func foldRune(r rune) rune {
	if r < utf8.RuneSelf {
		if 'A' <= r && r <= 'Z' {
			return r + 32
		}
		return r
	}
	r = unicode.ToLower(r)
	if f, ok := confusables[r]; ok {
		return f
	}
	return r
}

// foldPattern applies the confusable map to a regular expression source so
// patterns written in Cyrillic or Greek match the folded view. Regex syntax
// is ASCII and is left alone.
func foldPattern(src string) string {
	var sb strings.Builder
	for _, r := range src {
		if r >= utf8.RuneSelf {
			r = foldRune(r)
		}
		sb.WriteRune(r)
	}
	return sb.String()
}

// matchView is the normalised text the pattern rules run on, with maps from
// each of its bytes back to the original input.
type matchView struct {
	s          string
	start, end []int32
}

// dropInView reports runes that never reach the matching view.
func dropInView(r rune) bool {
	return isDefaultIgnorable(r) || isTag(r) || isControl(r) || isBidiMark(r) || isBidiControl(r) || (r >= 0xFFF9 && r <= 0xFFFB)
}

// buildView NFKC-normalises, lowercases, folds confusables, drops invisible
// characters and collapses whitespace. With withMaps, every view byte records
// the original byte range it came from (st.off maps stripped offsets to the
// original input; nil means identity).
func buildView(st strippedText, withMaps bool) matchView {
	s := st.s
	var v matchView
	buf := make([]byte, 0, len(s)+8)
	if withMaps {
		v.start = make([]int32, 0, len(s)+8)
		v.end = make([]int32, 0, len(s)+8)
	}
	origAt := func(i int) int32 { return int32(st.orig(i)) }
	lastSpace := true // suppress leading space
	if plainASCII(s) {
		// Fast path: ASCII is NFKC already and folds to itself (lowercase).
		for i := 0; i < len(s); i++ {
			c := s[i]
			if c == ' ' || c == '\t' || c == '\n' || c == '\r' {
				if lastSpace {
					continue
				}
				lastSpace = true
				c = ' '
			} else {
				lastSpace = false
				if 'A' <= c && c <= 'Z' {
					c += 32
				}
			}
			buf = append(buf, c)
			if withMaps {
				o := origAt(i)
				v.start = append(v.start, o)
				v.end = append(v.end, o+1)
			}
		}
		return v.finish(buf, withMaps)
	}
	it := newNFKCRunes(st)
	for r, os, oe, ok := it.next(); ok; r, os, oe, ok = it.next() {
		if dropInView(r) {
			continue
		}
		if unicode.IsSpace(r) {
			if lastSpace {
				continue
			}
			lastSpace = true
			buf = v.put(buf, ' ', os, oe, withMaps)
			continue
		}
		lastSpace = false
		buf = v.put(buf, foldRune(r), os, oe, withMaps)
	}
	return v.finish(buf, withMaps)
}

// nfkcRunes walks the NFKC form of a stripped text rune by rune, each rune
// with the original byte range of the segment it came from (buildView and
// foldedSecretView).
type nfkcRunes struct {
	it     norm.Iter
	st     strippedText
	seg    []byte
	os, oe int32
}

func newNFKCRunes(st strippedText) *nfkcRunes {
	n := &nfkcRunes{st: st}
	n.it.InitString(norm.NFKC, st.s)
	return n
}

// next returns the next rune of the NFKC form and the original range
// [os, oe) of the stripped bytes its segment was made from; ok is false at
// the end of the text.
func (n *nfkcRunes) next() (r rune, os, oe int32, ok bool) {
	for len(n.seg) == 0 {
		if n.it.Done() {
			return 0, 0, 0, false
		}
		p0 := n.it.Pos()
		n.seg = n.it.Next()
		p1 := n.it.Pos()
		n.os, n.oe = int32(n.st.orig(p0)), int32(n.st.orig(p0))
		if p1 > p0 {
			n.oe = int32(n.st.orig(p1-1) + 1)
		}
	}
	r, size := utf8.DecodeRune(n.seg)
	n.seg = n.seg[size:]
	return r, n.os, n.oe, true
}

// put appends r to buf and, with maps, records [os, oe) as the original
// range of each of its bytes.
func (v *matchView) put(buf []byte, r rune, os, oe int32, withMaps bool) []byte {
	n := len(buf)
	buf = utf8.AppendRune(buf, r)
	if withMaps {
		for k := n; k < len(buf); k++ {
			v.start = append(v.start, os)
			v.end = append(v.end, oe)
		}
	}
	return buf
}

// finish trims a trailing space and sets the view text.
func (v matchView) finish(buf []byte, withMaps bool) matchView {
	if n := len(buf); n > 0 && buf[n-1] == ' ' {
		buf = buf[:n-1]
		if withMaps {
			v.start = v.start[:n-1]
			v.end = v.end[:n-1]
		}
	}
	v.s = string(buf)
	return v
}

// span maps a view byte range back to original byte offsets.
func (v matchView) span(a, b int) (int, int) {
	if len(v.start) == 0 {
		return 0, 0
	}
	if b <= a {
		b = a + 1
	}
	if b > len(v.end) {
		b = len(v.end)
	}
	if a >= len(v.start) {
		a = len(v.start) - 1
	}
	return int(v.start[a]), int(v.end[b-1])
}

// Normalize returns the form injection patterns are matched against: NFKC,
// lowercase, Cyrillic/Greek/fullwidth look-alikes folded to Latin, invisible
// and control characters removed, whitespace collapsed to single spaces and
// trimmed. Normalize is idempotent.
func Normalize(text string) string {
	s := text
	for range 8 {
		n := normalizeOnce(s)
		if n == s {
			return n
		}
		s = n
	}
	return s
}

func normalizeOnce(text string) string {
	var sb strings.Builder
	sb.Grow(len(text))
	for i := 0; i < len(text); {
		if text[i] == 0x1B {
			i += escapeLen(text[i:])
			continue
		}
		r, n := utf8.DecodeRuneInString(text[i:])
		if r == utf8.RuneError && n == 1 {
			sb.WriteRune(utf8.RuneError)
		} else if !dropInView(r) {
			sb.WriteString(text[i : i+n])
		}
		i += n
	}
	return buildView(strippedText{s: sb.String()}, false).s
}
