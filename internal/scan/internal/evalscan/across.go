package main

import "github.com/odekmem/odekmem/internal/scan"

// acrossBlocked reports whether the block-level scan finds an injection
// split across the atoms. (scripts/scan-eval.sh replaces this file by one
// returning false for a baseline without scan.Across.)
func acrossBlocked(atoms []string) bool { return len(scan.Across(atoms)) > 0 }
