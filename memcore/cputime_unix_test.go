//go:build unix

package memcore_test

import (
	"syscall"
	"time"
)

// processCPU is the CPU time (user + system) this process has used: on a
// shared machine it measures a benchmark's work where wall time measures
// the queue for the cores.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// syncDisks flushes dirty pages (a fixture just copied) so that a
// benchmark's own fsyncs do not pay for writing them.
func syncDisks() { syscall.Sync() }
