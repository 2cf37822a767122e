package scan

import (
	"encoding/json"
	"fmt"
	"sort"
	"unicode/utf8"
)

// Severity says what a finding means for the write path.
type Severity int

const (
	// Warn findings are shown to the reviewer but do not reject the text.
	Warn Severity = iota
	// Block findings reject the text (the atom is quarantined as scan_rejected).
	Block
)

// String returns "warn" or "block".
func (s Severity) String() string {
	switch s {
	case Warn:
		return "warn"
	case Block:
		return "block"
	}
	return fmt.Sprintf("severity(%d)", int(s))
}

// MarshalJSON encodes the severity as "warn" or "block".
func (s Severity) MarshalJSON() ([]byte, error) { return json.Marshal(s.String()) }

// UnmarshalJSON accepts "warn" or "block".
func (s *Severity) UnmarshalJSON(b []byte) error {
	var str string
	if err := json.Unmarshal(b, &str); err != nil {
		return err
	}
	switch str {
	case "warn":
		*s = Warn
	case "block":
		*s = Block
	default:
		return fmt.Errorf("scan: unknown severity %q", str)
	}
	return nil
}

// Kind is the family a finding belongs to.
type Kind string

// Finding kinds.
const (
	KindInvisible          Kind = "invisible"
	KindTagSmuggling       Kind = "tag_smuggling"
	KindVariationSelectors Kind = "variation_selectors"
	KindBidi               Kind = "bidi"
	KindControl            Kind = "control"
	KindANSI               Kind = "ansi"
	KindMixedScript        Kind = "mixed_script"
	KindInjection          Kind = "injection"
	KindCredential         Kind = "credential"
	// KindOversize: the input exceeds MaxInput and was not scanned whole.
	KindOversize Kind = "oversize"
)

// Finding is one thing the scanner noticed.
type Finding struct {
	Kind     Kind     `json:"kind"`
	Rule     string   `json:"rule"`
	Severity Severity `json:"severity"`
	// Start and End are byte offsets into the original input.
	Start int `json:"start"`
	End   int `json:"end"`
	// Match is the matched span made safe to show (invisible characters
	// spelled out, secrets redacted).
	Match  string `json:"match"`
	Reason string `json:"reason"`
	// Hidden is the ASCII text smuggled in tag characters, decoded.
	Hidden string `json:"hidden,omitempty"`
}

// Result is the outcome of Scan.
type Result struct {
	Findings []Finding `json:"findings"`
	// Redacted is the input with every detected secret replaced by
	// [REDACTED:<kind>].
	Redacted string `json:"redacted"`
}

// Blocked reports whether any finding has Block severity.
func (r Result) Blocked() bool {
	_, ok := r.FirstBlock()
	return ok
}

// FirstBlock returns the first blocking finding (in input order).
func (r Result) FirstBlock() (Finding, bool) {
	for _, f := range r.Findings {
		if f.Severity == Block {
			return f, true
		}
	}
	return Finding{}, false
}

// maxRejectReason caps RejectReason's length in bytes.
const maxRejectReason = 200

// RejectReason returns "scan_rejected: <rule>: <reason>" for the first
// blocking finding, at most 200 bytes and cut on a rune boundary, or "" when
// nothing blocks.
func (r Result) RejectReason() string {
	f, ok := r.FirstBlock()
	if !ok {
		return ""
	}
	s := "scan_rejected: " + f.Rule + ": " + f.Reason
	return truncateRunes(s, maxRejectReason)
}

// truncateRunes cuts s to at most n bytes without splitting a rune.
func truncateRunes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	i := n
	for i > 0 && !utf8.RuneStart(s[i]) {
		i--
	}
	return s[:i]
}

func sortFindings(fs []Finding) {
	sort.SliceStable(fs, func(i, j int) bool {
		if fs[i].Start != fs[j].Start {
			return fs[i].Start < fs[j].Start
		}
		if fs[i].Severity != fs[j].Severity {
			return fs[i].Severity > fs[j].Severity
		}
		return fs[i].End > fs[j].End
	})
}

// mergeOverlapping folds every element of xs (sorted by start) that starts
// inside the element kept before it into that element, whose end grows to
// cover both; the first of overlapping elements survives. span gives an
// element's start and a pointer to its end. xs is reused.
func mergeOverlapping[T any](xs []T, span func(*T) (start int, end *int)) []T {
	if len(xs) < 2 {
		return xs
	}
	out := xs[:1]
	for k := 1; k < len(xs); k++ {
		_, lastEnd := span(&out[len(out)-1])
		start, end := span(&xs[k])
		if start < *lastEnd {
			*lastEnd = max(*lastEnd, *end)
			continue
		}
		out = append(out, xs[k])
	}
	return out
}
