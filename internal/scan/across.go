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
		if f, ok := injectionBlock(Scan(parts[i] + " " + parts[i+1])); ok {
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
		if f, ok := injectionBlock(Scan(sb.String())); ok {
			j := Joined{Finding: f}
			for k, i := range idx {
				end := sb.Len()
				if k+1 < len(starts) {
					end = starts[k+1]
				}
				if starts[k] < f.End && end > f.Start {
					j.Parts = append(j.Parts, i)
				}
			}
			if len(j.Parts) > 0 {
				out = append(out, j)
			}
		}
	}
	return out
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
