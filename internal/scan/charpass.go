package scan

// The character pass over a whole text: findings for hidden, control and
// bidi characters, and the visible form (split from chars.go, which
// classifies single characters).

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// maxCharFindings bounds the character findings of one text: a megabyte
// of escape sequences is one problem, not half a million findings.
const maxCharFindings = 256

// charPass classifies characters, appends findings and returns the stripped
// text used by the pattern passes.
func charPass(text string, findings []Finding) ([]Finding, strippedText) {
	if plainASCII(text) {
		return findings, strippedText{s: text}
	}
	rs := decodeRunes(text)
	var sb strings.Builder
	sb.Grow(len(text))
	off := make([]int32, 0, len(text))
	keep := func(ra runeAt) {
		if ra.r == utf8.RuneError && ra.size == 1 {
			// invalid byte: U+FFFD, so stripping cannot join bytes
			sb.WriteString("\uFFFD")
			off = append(off, int32(ra.off), int32(ra.off), int32(ra.off))
			return
		}
		sb.WriteString(text[ra.off : ra.off+ra.size])
		for k := 0; k < ra.size; k++ {
			off = append(off, int32(ra.off+k))
		}
	}
	// pending merges runs of identical classifications into one finding.
	var pend *Finding
	flush := func() {
		if pend != nil {
			if pend.Kind == KindControl {
				pend.Match = quoted(text[pend.Start:pend.End])
			} else {
				pend.Match = Visible(text[pend.Start:pend.End])
			}
			findings = append(findings, *pend)
			pend = nil
		}
	}
	add := func(c charClass, start, end int) {
		if pend != nil && pend.Rule == c.rule && pend.Kind == c.kind && pend.End == start {
			pend.End = end
			return
		}
		if len(findings) >= maxCharFindings {
			return // enough evidence; keep stripping, stop allocating
		}
		flush()
		pend = &Finding{Kind: c.kind, Rule: c.rule, Severity: c.sev, Start: start, End: end, Reason: c.reason}
	}
	for i := 0; i < len(rs); i++ {
		ra := rs[i]
		r := ra.r
		switch {
		case isEscapeStart(r):
			end, rule, last := escapeSpan(text, rs, i)
			flush()
			if len(findings) < maxCharFindings {
				findings = append(findings, Finding{Kind: KindANSI, Rule: rule, Severity: Block, Start: ra.off, End: end,
					Match: quoted(text[ra.off:end]), Reason: "terminal escape sequence"})
			}
			i = last
		case isControl(r):
			add(charClass{KindControl, "control", Block, "control character"}, ra.off, ra.off+ra.size)
		case isTag(r):
			// A valid flag tag sequence: U+1F3F4, 2–7 tag letters/digits, U+E007F.
			j, flag := tagRun(rs, i)
			if flag {
				for k := i; k < j; k++ {
					keep(rs[k])
				}
				i = j - 1
				continue
			}
			flush()
			var hidden strings.Builder
			for k := i; k < j; k++ {
				if t := rs[k].r - 0xE0000; t >= 0x20 && t <= 0x7E {
					hidden.WriteByte(byte(t))
				}
			}
			end := rs[j-1].off + rs[j-1].size
			findings = append(findings, Finding{Kind: KindTagSmuggling, Rule: "tag_characters", Severity: Block,
				Start: ra.off, End: end, Match: Visible(text[ra.off:end]), Hidden: hidden.String(),
				Reason: "invisible Unicode tag characters (hidden text)"})
			i = j - 1
		case isVariationSelector(r):
			j := i
			for j < len(rs) && isVariationSelector(rs[j].r) {
				j++
			}
			end := rs[j-1].off + rs[j-1].size
			if j-i >= 2 {
				flush()
				findings = append(findings, Finding{Kind: KindVariationSelectors, Rule: "variation_selector_run", Severity: Block,
					Start: ra.off, End: end, Match: Visible(text[ra.off:end]),
					Reason: fmt.Sprintf("run of %d variation selectors (hidden data)", j-i)})
			} else if r != 0xFE0E && r != 0xFE0F && (i == 0 || rs[i-1].r < 0x80) {
				flush()
				findings = append(findings, Finding{Kind: KindVariationSelectors, Rule: "variation_selector_ascii", Severity: Block,
					Start: ra.off, End: end, Match: Visible(text[ra.off:end]),
					Reason: "variation selector on plain ASCII (hidden data)"})
			}
			i = j - 1
		case isBidiControl(r):
			add(charClass{KindBidi, "bidi_control", Block, "bidirectional embedding/override/isolate control"}, ra.off, ra.off+ra.size)
		case isBidiMark(r):
			add(charClass{KindBidi, "bidi_mark", Warn, "invisible directional mark"}, ra.off, ra.off+ra.size)
		case (r == 0x200C || r == 0x200D) && legitJoiner(rs, i):
			// ordinary orthography; dropped from the matching view only
		case isDefaultIgnorable(r) || (r >= 0xFFF9 && r <= 0xFFFB):
			c := classifyInvisible(r)
			add(c, ra.off, ra.off+ra.size)
		default:
			keep(ra)
		}
	}
	flush()
	return findings, strippedText{s: sb.String(), off: off}
}

func validFlagTags(rs []runeAt, i, j int) bool {
	if i == 0 || rs[i-1].r != 0x1F3F4 || rs[j-1].r != 0xE007F {
		return false
	}
	n := j - 1 - i
	if n < 2 || n > 7 {
		return false
	}
	for k := i; k < j-1; k++ {
		t := rs[k].r - 0xE0000
		if !((t >= 'a' && t <= 'z') || (t >= '0' && t <= '9')) {
			return false
		}
	}
	return true
}

// Visible renders text for display in a terminal: C0/C1 controls and escape
// sequences are removed (newline and tab kept), invisible and format
// characters are shown as ⟨U+XXXX⟩, tag characters are shown decoded as
// ⟨TAG:…⟩. The output never contains a control character or ESC.
func Visible(text string) string {
	rs := decodeRunes(text)
	var sb strings.Builder
	sb.Grow(len(text) + 16)
	for i := 0; i < len(rs); i++ {
		ra := rs[i]
		r := ra.r
		switch {
		case r == '\n' || r == '\t':
			sb.WriteRune(r)
		case isEscapeStart(r):
			_, _, i = escapeSpan(text, rs, i)
		case r == '\r' || isControl(r):
			// dropped
		case r == 0x2028 || r == 0x2029:
			sb.WriteByte('\n')
		case r == utf8.RuneError && ra.size == 1:
			sb.WriteRune(utf8.RuneError)
		case isTag(r):
			j, flag := tagRun(rs, i)
			if flag {
				writeRunes(&sb, rs[i:j])
			} else {
				sb.WriteString("⟨TAG:")
				for k := i; k < j; k++ {
					if t := rs[k].r - 0xE0000; t >= 0x21 && t <= 0x7E {
						sb.WriteByte(byte(t))
					} else if t == 0x20 {
						sb.WriteByte(' ')
					} else {
						fmt.Fprintf(&sb, "⟨U+%04X⟩", rs[k].r)
					}
				}
				sb.WriteString("⟩")
			}
			i = j - 1
		case (r == 0x200C || r == 0x200D) && legitJoiner(rs, i):
			sb.WriteRune(r)
		case (r == 0xFE0E || r == 0xFE0F) && i > 0 && !isVariationSelector(rs[i-1].r) && (i+1 >= len(rs) || !isVariationSelector(rs[i+1].r)):
			sb.WriteRune(r)
		case isDefaultIgnorable(r) || isBidiMark(r) || isBidiControl(r) || (r >= 0xFFF9 && r <= 0xFFFB):
			fmt.Fprintf(&sb, "⟨U+%04X⟩", r)
		default:
			sb.WriteString(text[ra.off : ra.off+ra.size])
		}
	}
	return sb.String()
}

// quoted shows control characters and escapes as Go escapes (ASCII only).
func quoted(s string) string {
	q := strconv.QuoteToASCII(truncateRunes(s, maxMatch))
	return q[1 : len(q)-1]
}
