package memcore

import (
	"fmt"
	"strings"

	"github.com/odekmem/odekmem/internal/scan"
)

// dropSplitInjections is the block-level half of recall's final scan.
// Each atom has already passed the scan on its own line; here the atoms
// are read the way the model reads the block — one after another — and
// an injection that only shows when neighbours are joined ("…ignore all"
// / "previous instructions and…") drops every atom it involves. The
// warning names the atoms and the rule that decided.
func dropSplitInjections(atoms []Scored) (kept []Scored, dropped []string, warnings []string) {
	if len(atoms) < 2 {
		return atoms, nil, nil
	}
	texts := make([]string, len(atoms))
	for i, a := range atoms {
		texts[i] = oneLine(a.Atom.Text)
	}
	joined := scan.AcrossPassed(texts)
	if len(joined) == 0 {
		return atoms, nil, nil
	}
	drop := make([]bool, len(atoms))
	for _, j := range joined {
		ids := make([]string, 0, len(j.Parts))
		for _, p := range j.Parts {
			drop[p] = true
			ids = append(ids, atoms[p].Atom.ID)
		}
		warnings = append(warnings, fmt.Sprintf("dropped atoms %s: together they read as an injection (%s: %s)",
			strings.Join(ids, ", "), j.Finding.Rule, j.Finding.Reason))
	}
	for i, a := range atoms {
		if drop[i] {
			dropped = append(dropped, a.Atom.ID)
		} else {
			kept = append(kept, a)
		}
	}
	return kept, dropped, warnings
}
