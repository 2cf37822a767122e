package memcore

import (
	"fmt"
	"slices"
	"strings"

	"github.com/odekmem/odekmem/internal/scan"
)

// dropSplitInjections is the block-level half of recall's final scan.
// The atoms chosen (indices into atoms, in block order) have each passed
// the scan on their own line; here they are read the way the model reads
// the block — one after another — and an injection that only shows when
// neighbours are joined ("…ignore all" / "previous instructions and…")
// drops every atom it involves. It returns the indices to drop and a
// warning per injection naming the atoms and the rule that decided.
func dropSplitInjections(atoms []Scored, chosen []int) (drop []int, warnings []string) {
	if len(chosen) < 2 {
		return nil, nil
	}
	texts := make([]string, len(chosen))
	for k, i := range chosen {
		texts[k] = oneLine(atoms[i].Atom.Text)
	}
	joined := scan.AcrossPassed(texts)
	if len(joined) == 0 {
		return nil, nil
	}
	seen := make([]bool, len(chosen))
	for _, j := range joined {
		ids := make([]string, 0, len(j.Parts))
		for _, p := range j.Parts {
			if !seen[p] {
				seen[p] = true
				drop = append(drop, chosen[p])
			}
			ids = append(ids, atoms[chosen[p]].Atom.ID)
		}
		warnings = append(warnings, fmt.Sprintf("dropped atoms %s: together they read as an injection (%s: %s)",
			strings.Join(ids, ", "), j.Finding.Rule, j.Finding.Reason))
	}
	slices.Sort(drop)
	return drop, warnings
}
