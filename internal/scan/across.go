package scan

import "strings"

// Joined is an injection that only shows when texts are read together.
type Joined struct {
	// Parts are the indices (into the slice given to Across) of the texts
	// involved, in order.
	Parts []int
	// Finding is the blocking finding on the joined text; its offsets
	// refer to the joined text, not to any one part.
	Finding Finding
}

// Across scans texts that will be shown to a model together, one after
// another (the atoms of a recall block), for an injection split across
// them: every pair of neighbours, joined by a space, and then the whole
// sequence. Parts that block on their own are skipped (the caller drops
// them anyway) and break the sequence. Each result names the parts
// involved; a finding on the whole sequence names the parts its span
// touches.
func Across(parts []string) []Joined {
	if len(parts) < 2 {
		return nil
	}
	alone := make([]bool, len(parts))
	for i, p := range parts {
		alone[i] = Scan(p).Blocked()
	}
	return across(parts, alone)
}

// AcrossPassed is Across for parts the caller has already scanned one by
// one and found clean (recall's final scan), saving those scans.
func AcrossPassed(parts []string) []Joined {
	if len(parts) < 2 {
		return nil
	}
	return across(parts, make([]bool, len(parts)))
}

func across(parts []string, alone []bool) []Joined {
	var out []Joined
	involved := make([]bool, len(parts))
	for i := 0; i+1 < len(parts); i++ {
		if alone[i] || alone[i+1] {
			continue
		}
		if f, ok := joinedInjection(parts[i] + " " + parts[i+1]); ok {
			out = append(out, Joined{Parts: []int{i, i + 1}, Finding: f})
			involved[i], involved[i+1] = true, true
		}
	}
	// The whole run of clean, not yet involved parts.
	var idx []int
	var sb strings.Builder
	var starts []int
	for i, p := range parts {
		if alone[i] || involved[i] {
			continue
		}
		if sb.Len() > 0 {
			sb.WriteByte(' ')
		}
		starts = append(starts, sb.Len())
		idx = append(idx, i)
		sb.WriteString(p)
	}
	if len(idx) >= 3 {
		if f, ok := joinedInjection(sb.String()); ok {
			j := Joined{Finding: f}
			for k, i := range idx {
				end := sb.Len()
				if k+1 < len(starts) {
					end = starts[k+1]
				}
				if starts[k] < f.End && end > f.Start || f.Start == f.End && starts[k] <= f.Start && f.Start <= end {
					j.Parts = append(j.Parts, i)
				}
			}
			if len(j.Parts) == 0 {
				j.Parts = idx // a finding no part's span holds: fail closed
			}
			out = append(out, j)
		}
	}
	return out
}

// tooLarge is the finding on a joined text longer than MaxInput: it
// cannot be read as one, so it fails closed (the caller drops its parts).
func tooLarge(text string) Finding {
	return Finding{Kind: KindOversize, Rule: "too_large", Severity: Block, Start: 0, End: len(text), Match: "joined text",
		Reason: "the texts shown together exceed the scanner's limit and cannot be read as one"}
}

// joinedInjection is injectionBlock(Scan(text)), the question Across asks
// of every joined text, answered first by rulesBlock: the whole Scan (with
// its credential pass, half the cost of a scan, and the learned detector's
// last word, both of which injectionBlock ignores) runs only for a text
// that holds an injection, to return its finding as Scan reports it.
func joinedInjection(text string) (Finding, bool) {
	if len(text) > MaxInput {
		return tooLarge(text), true
	}
	if !rulesBlock(text) {
		return Finding{}, false
	}
	return injectionBlock(Scan(text))
}

// rulesBlock reports whether Scan(text) holds a finding injectionBlock
// takes — a blocking injection finding other than the learned detector's
// last word — running only the passes that finding depends on: the
// character pass (for the stripped text) and detectInjection without the
// last word. Credentials are not looked for: detectInjection uses them
// only to redact a finding's Match, never to decide. A text over MaxInput
// is reported by Scan as too large, not scanned, so it has no such
// finding here either. TestRulesBlockAgreesWithScan holds the two
// together.
func rulesBlock(text string) bool {
	if len(text) > MaxInput {
		return false
	}
	_, st := charPass(text, nil)
	for _, f := range detectInjection(text, st, buildView(st, true), nil, false) {
		if f.Severity == Block && f.Kind == KindInjection && f.Rule != ModelRule {
			return true
		}
	}
	return false
}

// injectionBlock returns the first blocking injection finding of the
// rules. The learned detector's is left out: it judges a text as written,
// and two unrelated atoms read as one sentence are not one.
func injectionBlock(r Result) (Finding, bool) {
	for _, f := range r.Findings {
		if f.Severity == Block && f.Kind == KindInjection && f.Rule != ModelRule {
			return f, true
		}
	}
	return Finding{}, false
}
