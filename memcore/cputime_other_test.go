//go:build !unix

package memcore_test

import "time"

// processCPU is unavailable here: benchmarks report 0 CPU time.
func processCPU() time.Duration { return 0 }

func syncDisks() {}
