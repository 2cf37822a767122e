package scan

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/rangetable"
)

// hiddenTable is the set of characters a person cannot see, derived from
// Unicode properties rather than listed by hand: the derived property
// Default_Ignorable_Code_Point (Other_Default_Ignorable_Code_Point plus
// Variation_Selector), every format character (general category Cf: the
// format controls of every script, Egyptian hieroglyph format controls,
// prepended concatenation marks, interlinear annotations, shorthand and
// musical format controls), private-use characters (Co), noncharacters,
// plus two blank-looking symbols that are not format characters: U+2800
// BRAILLE PATTERN BLANK and U+FFFC OBJECT REPLACEMENT CHARACTER. Tag
// characters, variation selectors and bidi controls are in it too but get
// their own, more specific findings first.
var hiddenTable = rangetable.Merge(
	unicode.Other_Default_Ignorable_Code_Point,
	unicode.Variation_Selector,
	unicode.Cf,
	unicode.Co,
	unicode.Noncharacter_Code_Point,
	&unicode.RangeTable{R16: []unicode.Range16{{Lo: 0x2800, Hi: 0x2800, Stride: 1}, {Lo: 0xFFFC, Hi: 0xFFFC, Stride: 1}}},
)

// isDefaultIgnorable reports whether r is in [hiddenTable] (white space
// excluded: U+180E and friends are handled as spaces by no one, but a
// White_Space character is never invisible content).
func isDefaultIgnorable(r rune) bool {
	if r < 0xAD {
		return false
	}
	return unicode.Is(hiddenTable, r) && !unicode.Is(unicode.White_Space, r)
}

// IsHidden reports whether r is a character a person cannot see in the
// sense of [StripHidden]: every character of the hidden set, tag
// characters, bidi controls and marks, and control characters other than
// newline and tab.
func IsHidden(r rune) bool {
	if r == '\n' || r == '\t' {
		return false
	}
	return dropInView(r) || isVariationSelector(r)
}

// StripHidden removes every character [IsHidden] reports, except ZWJ and
// ZWNJ where they are ordinary orthography (emoji sequences, Arabic and
// Indic spelling) and the tag characters of a valid flag emoji. Promote
// uses it; [Scan] already scans both the text as written and the text with
// these characters removed (and with them read as spaces), so stripping can
// never assemble an attack the scan did not see.
func StripHidden(s string) string {
	clean := true
	for _, r := range s {
		if r >= 0x80 || r < 0x20 || r == 0x7F {
			if IsHidden(r) {
				clean = false
				break
			}
		}
	}
	if clean {
		return s
	}
	rs := decodeRunes(s)
	var sb strings.Builder
	sb.Grow(len(s))
	for i := 0; i < len(rs); i++ {
		r := rs[i].r
		switch {
		case isEscapeStart(r):
			_, _, i = escapeSpan(s, rs, i)
		case isTag(r):
			j, flag := tagRun(rs, i)
			if flag {
				writeRunes(&sb, rs[i:j])
			}
			i = j - 1
		case (r == 0x200C || r == 0x200D) && legitJoiner(rs, i):
			sb.WriteRune(r)
		case (r == 0xFE0E || r == 0xFE0F) && i > 0 && isEmojiish(rs[i-1].r):
			sb.WriteRune(r)
		case IsHidden(r):
		case r == utf8.RuneError && rs[i].size == 1:
			// an invalid byte becomes U+FFFD: removing what sat between two
			// invalid bytes must not join them into a character
			sb.WriteRune(utf8.RuneError)
		default:
			sb.WriteString(s[rs[i].off : rs[i].off+rs[i].size])
		}
	}
	return sb.String()
}

func isTag(r rune) bool { return r >= 0xE0000 && r <= 0xE007F }

// The three walkers over a text (charPass, Visible, StripHidden) cut it
// into the same pieces; each decides what a piece becomes. The pieces
// that span several runes are found here, once.

// isEscapeStart reports whether r opens a terminal escape sequence: ESC or
// a C1 CSI, OSC, DCS, SOS, PM or APC introducer.
func isEscapeStart(r rune) bool {
	return r == 0x1B || r == 0x9B || r == 0x9D || r == 0x90 || r == 0x98 || r == 0x9E || r == 0x9F
}

// escapeSpan measures the escape sequence that starts at rs[i] (see
// [isEscapeStart]): its byte end in text, its rule name, and the index of
// the last rune it covers, where the walker resumes. The sequence covers at
// least its introducer.
func escapeSpan(text string, rs []runeAt, i int) (end int, rule string, last int) {
	n, rule := ansiLen(text[rs[i].off:])
	end = rs[i].off + max(n, rs[i].size)
	for i+1 < len(rs) && rs[i+1].off < end {
		i++
	}
	return end, rule, i
}

// tagRun returns the end (exclusive) of the run of tag characters that
// starts at rs[i], and whether the run is the tag sequence of a valid flag
// emoji (see [validFlagTags]).
func tagRun(rs []runeAt, i int) (j int, flag bool) {
	j = i
	for j < len(rs) && isTag(rs[j].r) {
		j++
	}
	return j, validFlagTags(rs, i, j)
}

// writeRunes writes the runes of rs as they are.
func writeRunes(sb *strings.Builder, rs []runeAt) {
	for _, ra := range rs {
		sb.WriteRune(ra.r)
	}
}

func isVariationSelector(r rune) bool {
	return (r >= 0xFE00 && r <= 0xFE0F) || (r >= 0xE0100 && r <= 0xE01EF) ||
		(r >= 0x180B && r <= 0x180D) || r == 0x180F
}

func isBidiControl(r rune) bool {
	return (r >= 0x202A && r <= 0x202E) || (r >= 0x2066 && r <= 0x2069)
}

func isBidiMark(r rune) bool { return r == 0x200E || r == 0x200F || r == 0x061C }

func isControl(r rune) bool {
	return (r < 0x20 && r != '\t' && r != '\n' && r != '\r') || (r >= 0x7F && r <= 0x9F)
}

// isEmojiish is a cheap approximation of Extended_Pictographic plus the
// pieces that appear inside emoji ZWJ sequences.
func isEmojiish(r rune) bool {
	switch {
	case r >= 0x1F000 && r <= 0x1FAFF:
		return true
	case r >= 0x2190 && r <= 0x21FF, r >= 0x2300 && r <= 0x23FF, r >= 0x2460 && r <= 0x27BF,
		r >= 0x2900 && r <= 0x297F, r >= 0x2B00 && r <= 0x2BFF:
		return true
	case r == 0xFE0F, r == 0x20E3, r == 0x00A9, r == 0x00AE, r == 0x203C, r == 0x2049, r == 0x2122, r == 0x2139, r == 0x3030, r == 0x303D, r == 0x3297, r == 0x3299:
		return true
	}
	return false
}

// joinerScripts are scripts in which ZWNJ/ZWJ are ordinary orthography.
var joinerScripts = []*unicode.RangeTable{
	unicode.Arabic, unicode.Syriac, unicode.Nko, unicode.Thaana, unicode.Devanagari,
	unicode.Bengali, unicode.Gurmukhi, unicode.Gujarati, unicode.Oriya, unicode.Tamil,
	unicode.Telugu, unicode.Kannada, unicode.Malayalam, unicode.Sinhala, unicode.Mongolian,
	unicode.Myanmar, unicode.Khmer, unicode.Tibetan, unicode.Mandaic, unicode.Inherited,
}

func isJoinerScript(r rune) bool {
	if r < 0x300 {
		return false
	}
	if unicode.Is(unicode.Inherited, r) && !(unicode.IsMark(r)) {
		return false
	}
	for _, t := range joinerScripts {
		if unicode.Is(t, r) {
			return true
		}
	}
	return false
}

type runeAt struct {
	r    rune
	off  int
	size int
}

func decodeRunes(s string) []runeAt {
	out := make([]runeAt, 0, len(s))
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		out = append(out, runeAt{r, i, n})
		i += n
	}
	return out
}

// legitJoiner reports whether the ZWJ/ZWNJ at rs[i] sits in a context where it
// is ordinary orthography (emoji ZWJ sequences, Arabic/Indic shaping).
func legitJoiner(rs []runeAt, i int) bool {
	if i == 0 || i+1 >= len(rs) {
		return false
	}
	prev, next := rs[i-1].r, rs[i+1].r
	if rs[i].r == 0x200D && (isEmojiish(prev) || prev == 0xFE0F || (prev >= 0x1F3FB && prev <= 0x1F3FF)) && isEmojiish(next) {
		return true
	}
	// A joiner shapes the letters around it: the previous character may be
	// a script-specific mark on a letter of the same script, but a joiner
	// between generic combining marks (or after one) hides nothing legible.
	j := i - 1
	for j > 0 && unicode.IsMark(rs[j].r) && !unicode.Is(unicode.Inherited, rs[j].r) {
		j--
	}
	base := rs[j].r
	if !unicode.IsLetter(base) || !isJoinerScript(base) || unicode.Is(unicode.Inherited, prev) {
		return false
	}
	return isJoinerScript(next) && !unicode.Is(unicode.Inherited, next)
}

// ansiLen returns the byte length of the escape sequence starting at s[0]
// (an ESC or a C1 CSI/OSC/DCS introducer), and a rule name.
func ansiLen(s string) (int, string) {
	if s == "" {
		return 0, ""
	}
	var body int
	var kind byte
	if s[0] == 0x1B {
		if len(s) == 1 {
			return 1, "escape"
		}
		switch c := s[1]; {
		case c == '[':
			kind, body = '[', 2
		case c == ']':
			kind, body = ']', 2
		case c == 'P' || c == 'X' || c == '^' || c == '_':
			kind, body = 'P', 2
		case c >= 0x20 && c <= 0x2F: // nF: intermediates then final
			j := 1
			for j < len(s) && s[j] >= 0x20 && s[j] <= 0x2F {
				j++
			}
			if j < len(s) && s[j] >= 0x30 && s[j] <= 0x7E {
				j++
			}
			return j, "escape"
		case c >= 0x30 && c <= 0x7E:
			return 2, "escape"
		default:
			return 1, "escape"
		}
	} else {
		r, n := utf8.DecodeRuneInString(s)
		switch r {
		case 0x9B:
			kind, body = '[', n
		case 0x9D:
			kind, body = ']', n
		case 0x90, 0x98, 0x9E, 0x9F:
			kind, body = 'P', n
		default:
			return 0, ""
		}
	}
	j := body
	switch kind {
	case '[':
		for j < len(s) && s[j] >= 0x30 && s[j] <= 0x3F {
			j++
		}
		for j < len(s) && s[j] >= 0x20 && s[j] <= 0x2F {
			j++
		}
		if j < len(s) && s[j] >= 0x40 && s[j] <= 0x7E {
			j++
		}
		return j, "csi"
	default: // OSC / DCS-like strings end at BEL, ESC \ or C1 ST, or a newline (defensive)
		for j < len(s) {
			if s[j] == 0x07 {
				return j + 1, ruleFor(kind)
			}
			if s[j] == 0x1B {
				if j+1 < len(s) && s[j+1] == '\\' {
					return j + 2, ruleFor(kind)
				}
				return j, ruleFor(kind)
			}
			if strings.HasPrefix(s[j:], "\u009c") {
				return j + 2, ruleFor(kind)
			}
			if s[j] == '\n' {
				return j, ruleFor(kind)
			}
			j++
		}
		return j, ruleFor(kind)
	}
}

// escapeLen returns the byte length of the escape sequence at the start of
// s, which begins with ESC: at least 1, so a walker always moves on.
func escapeLen(s string) int {
	n, _ := ansiLen(s)
	return max(n, 1)
}

func ruleFor(kind byte) string {
	if kind == ']' {
		return "osc"
	}
	return "dcs"
}

// charClass is the classification of one rune (or sequence) by the
// character pass.
type charClass struct {
	kind   Kind
	rule   string
	sev    Severity
	reason string
}

// classifyInvisible names the invisible character r. The switch is a table
// (one row a rule: which runes, rule name, reason); its rows look alike
// because they are rows.
func classifyInvisible(r rune) charClass {
	rule := "default_ignorable"
	reason := "invisible format character"
	switch {
	case r >= 0x200B && r <= 0x200D:
		rule, reason = "zero_width", "zero-width character"
	case r == 0x00AD:
		rule, reason = "soft_hyphen", "invisible soft hyphen"
	case r == 0x2060:
		rule, reason = "word_joiner", "invisible word joiner"
	case r >= 0x2061 && r <= 0x2064:
		rule, reason = "invisible_operator", "invisible math operator"
	case r == 0xFEFF:
		rule, reason = "bom", "zero-width no-break space (BOM)"
	case r == 0x115F || r == 0x1160 || r == 0x3164 || r == 0xFFA0:
		rule, reason = "hangul_filler", "blank Hangul filler"
	case r == 0x034F:
		rule, reason = "cgj", "combining grapheme joiner"
	case r == 0x180E:
		rule, reason = "mongolian_vowel_separator", "invisible Mongolian vowel separator"
	case r == 0x17B4 || r == 0x17B5:
		rule, reason = "khmer_inherent_vowel", "invisible Khmer inherent vowel"
	case r >= 0x206A && r <= 0x206F:
		rule, reason = "deprecated_format", "deprecated invisible format character"
	case r >= 0x1D173 && r <= 0x1D17A:
		rule, reason = "musical_format", "invisible musical format character"
	case r >= 0x1BCA0 && r <= 0x1BCA3:
		rule, reason = "shorthand_format", "invisible shorthand format character"
	case r >= 0xFFF9 && r <= 0xFFFB:
		rule, reason = "interlinear_annotation", "interlinear annotation character"
	case r >= 0x13430 && r <= 0x1345F:
		rule, reason = "egyptian_format", "invisible Egyptian hieroglyph format control"
	case r == 0x2800:
		rule, reason = "braille_blank", "blank braille pattern"
	case r == 0xFFFC:
		rule, reason = "object_replacement", "object replacement character"
	case unicode.Is(unicode.Co, r):
		rule, reason = "private_use", "private-use character"
	case unicode.Is(unicode.Noncharacter_Code_Point, r):
		rule, reason = "noncharacter", "Unicode noncharacter"
	case unicode.Is(unicode.Prepended_Concatenation_Mark, r):
		rule, reason = "prepended_concatenation_mark", "prepended concatenation mark (format character)"
	}
	return charClass{KindInvisible, rule, Block, fmt.Sprintf("%s U+%04X", reason, r)}
}

// strippedText is the input with invisible, control and escape characters
// removed, plus a map from each stripped byte back to its original offset.
type strippedText struct {
	s   string
	off []int32 // off[i] = original byte offset of stripped byte i; nil: identity
}

// orig maps a stripped byte offset to the original input.
func (st strippedText) orig(i int) int {
	if st.off == nil {
		return i
	}
	return int(st.off[i])
}

// plainASCII reports whether s holds only printable ASCII, tab, CR and LF:
// nothing for the character pass to find or strip.
func plainASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if (c < 0x20 && c != '\t' && c != '\n' && c != '\r') || c >= 0x7F {
			return false
		}
	}
	return true
}
