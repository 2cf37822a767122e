package scan

import (
	"strings"
	"unicode"
)

var oneLine = strings.NewReplacer("\n", " ", "\t", " ")

// maxMatch caps Finding.Match for pattern findings.
const maxMatch = 160

// Scan runs every rule over text and returns the findings (in input order)
// and the text with secrets redacted. Scan is pure and safe for concurrent
// use.
func Scan(text string) Result {
	findings, st := charPass(text, make([]Finding, 0, 4))

	creds := credentialFindings(st)
	// Text smuggled in tag characters is decoded into Finding.Hidden; a
	// secret hidden there is redacted from Hidden and Match, and the whole
	// tag run is redacted from the output.
	for i := range findings {
		f := &findings[i]
		if f.Kind != KindTagSmuggling || f.Hidden == "" {
			continue
		}
		red, hs := Redact(f.Hidden)
		if len(hs) == 0 {
			continue
		}
		f.Hidden = red
		f.Match = truncateRunes("⟨TAG:"+Visible(red)+"⟩", maxMatch)
		creds = append(creds, Finding{Kind: KindCredential, Rule: hs[0].Rule, Severity: Block, Start: f.Start, End: f.End,
			Match: "[REDACTED:" + hs[0].Rule + "]", Reason: "secret smuggled in tag characters (redacted)"})
	}
	if len(creds) > 1 {
		sortFindings(creds)
		merged := creds[:1]
		for _, c := range creds[1:] {
			last := &merged[len(merged)-1]
			if c.Start < last.End {
				if c.End > last.End {
					last.End = c.End
				}
				continue
			}
			merged = append(merged, c)
		}
		creds = merged
	}
	findings = append(findings, creds...)

	v := buildView(st, true)
	for _, h := range matchInjection(v.s, false) {
		a, b := v.span(h.a, h.b)
		findings = append(findings, Finding{Kind: KindInjection, Rule: h.rule, Severity: Block, Start: a, End: b,
			Match: safeMatch(text[a:b], creds, a), Reason: h.reason})
	}
	if h, ok := encodedInjection(st.s); ok {
		a := st.orig(h.a)
		b := st.orig(h.b-1) + 1
		findings = append(findings, Finding{Kind: KindInjection, Rule: h.rule, Severity: Block, Start: a, End: b,
			Match: safeMatch(text[a:b], creds, a), Reason: h.reason})
	}
	n := len(findings)
	findings = mixedScript(text, findings)
	if len(creds) > 0 {
		for i := n; i < len(findings); i++ {
			findings[i].Match = safeMatch(text[findings[i].Start:findings[i].End], creds, findings[i].Start)
		}
	}

	sortFindings(findings)
	return Result{Findings: findings, Redacted: redactSpans(text, creds)}
}

// safeMatch renders a matched span for display: secrets inside it are
// redacted, invisible characters spelled out, and it is capped in length.
func safeMatch(span string, creds []Finding, base int) string {
	end := base + len(span)
	var local []Finding
	for _, c := range creds {
		if c.End <= base || c.Start >= end {
			continue
		}
		c.Start -= base
		c.End -= base
		if c.Start < 0 {
			c.Start = 0
		}
		if c.End > len(span) {
			c.End = len(span)
		}
		local = append(local, c)
	}
	s := oneLine.Replace(Visible(redactSpans(span, local)))
	if len(s) > maxMatch {
		s = truncateRunes(s, maxMatch) + "…"
	}
	return s
}

// mixedScript warns about tokens that mix Latin letters with Cyrillic or
// Greek ones (a classic homoglyph disguise). Whole words in one script are
// fine. Invisible characters do not split a token.
func mixedScript(text string, findings []Finding) []Finding {
	start := -1
	end := 0
	var latin, other bool
	emit := func() {
		if start >= 0 && latin && other {
			findings = append(findings, Finding{Kind: KindMixedScript, Rule: "mixed_script", Severity: Warn,
				Start: start, End: end, Match: Visible(text[start:end]),
				Reason: "word mixes Latin with Cyrillic or Greek letters (possible look-alike disguise)"})
		}
		start, latin, other = -1, false, false
	}
	for i, r := range text {
		switch {
		case unicode.IsLetter(r) || unicode.IsMark(r) || r == '\'' || r == '-' || r == '_':
			if start < 0 {
				start = i
			}
			end = i + len(string(r))
			if r < 0x80 {
				if r != '\'' && r != '-' && r != '_' {
					latin = true
				}
			} else if unicode.Is(unicode.Cyrillic, r) || unicode.Is(unicode.Greek, r) {
				other = true
			} else if unicode.Is(unicode.Latin, r) {
				latin = true
			}
		case dropInView(r) || isVariationSelector(r):
			// invisible: does not split the token
		default:
			emit()
		}
	}
	emit()
	return findings
}
