package scan

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"unicode"
	"unicode/utf8"
)

var oneLine = strings.NewReplacer("\n", " ", "\t", " ")

// maxMatch caps Finding.Match for pattern findings.
const maxMatch = 160

// Scan runs every rule over text and returns the findings (in input order)
// and the text with secrets redacted. Scan is pure and safe for concurrent
// use.
func Scan(text string) Result {
	if len(text) > MaxInput {
		return oversize(text)
	}
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
		creds = mergeOverlapping(creds, func(f *Finding) (int, *int) { return f.Start, &f.End })
	}
	findings = append(findings, creds...)

	v := buildView(st, true)
	findings = append(findings, detectInjection(text, st, v, creds, true)...)
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

// MaxInput is the largest text Scan examines, in bytes (256 KiB). Every
// pass is linear in its input; the bound keeps the time and memory of one
// call bounded too (see BENCHMARKS.md for the worst inputs at the limit). Atoms are capped at
// atom_max_chars long before this; the bound exists for imports, loaded
// files and API callers.
const MaxInput = 256 << 10

// ErrTooLarge is returned by [CheckSize] for input over [MaxInput].
var ErrTooLarge = errors.New("scan: input too large")

// CheckSize returns an error naming the size and the limit when text is
// longer than [MaxInput].
func CheckSize(text string) error {
	if len(text) > MaxInput {
		return fmt.Errorf("%w: %d bytes, the limit is %d bytes (256 KiB)", ErrTooLarge, len(text), MaxInput)
	}
	return nil
}

// oversize is the result for text over MaxInput: one blocking finding, and
// Redacted holds the first MaxInput bytes (cut on a rune boundary) with
// secrets redacted — the rest is never returned, so nothing unscanned can
// be stored from it.
func oversize(text string) Result {
	head := truncateRunes(text, MaxInput)
	red, creds := Redact(head)
	fs := []Finding{{Kind: KindOversize, Rule: "too_large", Severity: Block, Start: 0, End: len(text),
		Match:  fmt.Sprintf("%d bytes", len(text)),
		Reason: fmt.Sprintf("input of %d bytes exceeds the scanner's limit of %d bytes; only the first %d bytes were scanned", len(text), MaxInput, MaxInput)}}
	fs = append(fs, creds...)
	sortFindings(fs)
	return Result{Findings: fs, Redacted: red}
}

// detectInjection runs the pattern rules and the scored detector over the
// normalised view of the stripped text, over the view with every hidden
// character read as a space (so removing them can never assemble a phrase
// the scan did not see, nor hide one by gluing words together), and over
// each decoding of a disguise (base64, hex, binary, rot13, leetspeak,
// letters spaced or dotted apart, words joined by separators, %-escapes).
// lastWord runs the learned detector over the text itself when every rule
// passed; without it the rules' findings are the same and only that last
// one (ModelRule) is left out. creds only redact the findings' Match.
func detectInjection(text string, st strippedText, v matchView, creds []Finding, lastWord bool) []Finding {
	var out []Finding
	seen := map[string]bool{}
	emit := func(rule, reason string, a, b int) {
		if seen[rule] {
			return
		}
		seen[rule] = true
		out = append(out, Finding{Kind: KindInjection, Rule: rule, Severity: Block, Start: a, End: b,
			Match: safeMatch(text[a:b], creds, a), Reason: reason})
	}
	// The rules read the view with quotations inside talk about attacks
	// blanked out (quoted.go); the learned detector reads it whole.
	mv := maskQuotedDiscussion(v.s)
	at := map[string][2]int{} // view offsets of each rule's first hit, for the veto
	for _, h := range matchInjection(mv, false) {
		a, b := v.span(h.a, h.b)
		if _, ok := at[h.rule]; !ok {
			at[h.rule] = [2]int{h.a, h.b}
		}
		emit(h.rule, h.reason, a, b)
	}
	h, scored, sum := scoreSummary(mv)
	if mv != v.s {
		_, _, sum = scoreSummary(v.s)
	}
	if scored {
		a, b := v.span(h.a, h.b)
		at["score_"+h.top] = [2]int{h.a, h.b}
		emit("score_"+h.top, h.reason(""), a, b)
	}
	if h, ok := encodedInjection(st.s); ok {
		a := st.orig(h.a)
		b := st.orig(h.b-1) + 1
		emit(h.rule, h.reason, a, b)
	}
	if len(out) > 0 {
		vetoSoft(out, v.s, at)
	}
	if hasBlock(out) || len(text) == 0 {
		return out
	}
	// Disguises: the whole text is the span. The learned detector also
	// reads what the decoders below produce (they fire only on text that
	// looks like their disguise); the spelling variants above it sees
	// through its character n-grams already.
	decoded := false
	try := func(prefix, what, d string) bool {
		if hs := matchInjection(d, true); len(hs) > 0 {
			emit(prefix+hs[0].rule, what+": "+hs[0].reason, 0, len(text))
			return true
		}
		h, ok, sum := scoreSummary(d)
		if ok {
			emit(prefix+"score_"+h.top, h.reason(what+": "), 0, len(text))
			return true
		}
		if decoded {
			if mh, ok := scoreModel(d, &sum); ok {
				emit(prefix+ModelRule, what+": "+mh.why, 0, len(text))
				return true
			}
		}
		return false
	}
	if len(st.s) != len(text) {
		if try("hidden_", "with hidden characters read as spaces", Normalize(hiddenAsSpace(text))) {
			return out
		}
	}
	if d, ok := decodeLeet(v.s); ok && try("leet_", "leetspeak-decoded", d) {
		return out
	}
	if d, ok := decodeSeparators(v.s); ok && try("joined_", "separator-joined words split", d) {
		return out
	}
	if d, ok := unspaceLetters(st.s); ok && try("spaced_", "spaced-out letters joined", Normalize(d)) {
		return out
	}
	if d, ok := percentDecode(v.s); ok && try("urlenc_", "%-decoded", Normalize(d)) {
		return out
	}
	if d, ok := caesar(v.s); ok && try("caesar_", "Caesar/rot13-decoded", d) {
		return out
	}
	decoded = true
	if d, ok := reversedText(v.s); ok && try("reversed_", "read backwards", d) {
		return out
	}
	if d, ok := morseText(st.s); ok && try("morse_", "Morse-decoded", d) {
		return out
	}
	if d, ok := pigLatinText(v.s); ok && try("piglatin_", "pig-latin-decoded", d) {
		return out
	}
	// Every rule passed: the learned detector has the last word.
	if !lastWord {
		return out
	}
	if mh, ok := scoreModel(v.s, &sum); ok {
		a, b := v.span(mh.a, mh.b)
		emit(ModelRule, mh.why, a, b)
	}
	return out
}

// softRules are the plain-view rules whose wording also fits ordinary
// text addressed to agents — conventions in an AGENTS.md, documentation,
// security write-ups — and which made most false blocks on the training
// sources. When a text's only blocks are theirs and the learned detector
// reads the words around every one of their hits as ordinary (probability
// below modelVeto), they warn instead of blocking: the reviewer still sees
// them. Decoded or disguised text, credentials, hidden characters, planted
// commands, secrets named beside a send verb and the exact attack
// phrasings never take this path.
var softRules = map[string]bool{
	"conditional_trigger": true, "html_comment_instruction": true,
	"score_addresses_the_agent": true, "score_override_of_instructions": true, "score_exfiltration_sink": true,
	"score_hide_from_the_person": true, "score_names_the_agent": true, "score_persona": true,
	"score_deceive_the_person": true, "score_personal_data_request": true,
}

// modelVeto is the learned detector's probability below which a soft
// rule's block becomes a warning. Chosen on the training sources: below
// it lay 22 of their rule-only false blocks and none of their attacks.
const modelVeto = 0.10

// vetoContext bounds the words the model reads on each side of a soft
// rule's hit: the sentence around it, at most this many bytes each way, so
// ordinary text padded around an attack (or run into its sentence) cannot
// dilute the model's reading of the attack itself.
const vetoContext = 40

// vetoStretch is the longest stretch of a sentence the veto reads at once.
const vetoStretch = 160

// vetoSoft turns the blocks in out into warnings when every one is a soft
// rule's and the learned detector scores the words around each of their
// hits (at holds the view offsets of each rule's hit) below modelVeto.
func vetoSoft(out []Finding, view string, at map[string][2]int) {
	var spans [][2]int
	for _, f := range out {
		if f.Severity != Block {
			continue
		}
		sp, ok := at[f.Rule]
		if !softRules[f.Rule] || !ok {
			return
		}
		spans = append(spans, sp)
	}
	if len(spans) == 0 {
		return
	}
	sents := sentenceSpans(view)
	p := 0.0
	read := func(w string) bool {
		_, _, sum := scoreSummary(w)
		mh, ok := modelBest(w, &sum)
		p = max(p, mh.p)
		return ok && p < modelVeto
	}
	for _, sp := range spans {
		if !read(hitWindow(view, sents, sp[0], sp[1])) {
			return
		}
	}
	// A rule reports its first hit only: an ordinary sentence must not
	// vouch for an attack later in the text. Every sentence, pair of short
	// neighbours and stretch of a long sentence on which a rule fires must
	// read as ordinary too.
	check := func(w string) bool {
		if len(matchInjection(w, true)) == 0 {
			if _, scored, _ := scoreSummary(w); !scored {
				return true
			}
		}
		return read(w)
	}
	for i, sp := range sents {
		for a := sp[0]; ; a += vetoStretch / 2 {
			if !check(view[a:min(sp[1], a+vetoStretch)]) {
				return
			}
			if a+vetoStretch >= sp[1] {
				break
			}
		}
		if i+1 < len(sents) && sents[i+1][1]-sp[0] <= 3*vetoStretch/2 && !check(view[sp[0]:sents[i+1][1]]) {
			return
		}
	}
	for i := range out {
		out[i].Severity = Warn
		out[i].Reason += fmt.Sprintf(" — a warning, not a block: the learned detector reads the words around it as ordinary (p=%.2f < %.2f)", math.Floor(p*100)/100, modelVeto)
	}
}

// hitWindow returns the words around the view span [a, b): the sentences
// that hold it, cut to vetoContext bytes on each side at a space.
func hitWindow(view string, sents [][2]int, a, b int) string {
	wa, wb := a, b
	for _, s := range sents {
		if s[0] <= a && a < s[1] {
			wa = s[0]
		}
		if s[0] < b && b <= s[1] {
			wb = s[1]
		}
	}
	if wa < a-vetoContext {
		wa = a - vetoContext
		if k := strings.IndexByte(view[wa:a], ' '); k >= 0 {
			wa += k + 1
		}
	}
	if wb > b+vetoContext {
		wb = b + vetoContext
		if k := strings.LastIndexByte(view[b:wb], ' '); k >= 0 {
			wb = b + k
		}
	}
	return view[wa:wb]
}

func hasBlock(fs []Finding) bool {
	for _, f := range fs {
		if f.Severity == Block {
			return true
		}
	}
	return false
}

// hiddenAsSpace replaces every hidden character and escape sequence of text
// with a space. It walks text as normalizeOnce does, but the two differ in
// every decision (space or nothing; variation selectors; invalid bytes), so
// each stays a plain loop on the scanner's path.
func hiddenAsSpace(text string) string {
	var sb strings.Builder
	sb.Grow(len(text))
	for i := 0; i < len(text); {
		if text[i] == 0x1B {
			i += escapeLen(text[i:])
			sb.WriteByte(' ')
			continue
		}
		r, n := utf8.DecodeRuneInString(text[i:])
		if r != '\n' && r != '\t' && (dropInView(r) || isVariationSelector(r)) {
			sb.WriteByte(' ')
		} else {
			sb.WriteString(text[i : i+n])
		}
		i += n
	}
	return sb.String()
}
