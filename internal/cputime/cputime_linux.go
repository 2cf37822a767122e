//go:build linux

// Package cputime reads the calling OS thread's CPU time, so a benchmark
// on a shared, loaded machine can report the work of the code it measures
// rather than its wait for a core.
package cputime

import (
	"runtime"
	"time"

	"golang.org/x/sys/unix"
)

// Thread returns the calling thread's CPU time (CLOCK_THREAD_CPUTIME_ID,
// nanosecond resolution); ok is false where it cannot be read. Callers
// lock the goroutine to its thread (LockThread) around what they measure.
func Thread() (d time.Duration, ok bool) {
	var ts unix.Timespec
	if unix.ClockGettime(unix.CLOCK_THREAD_CPUTIME_ID, &ts) != nil {
		return 0, false
	}
	return time.Duration(ts.Nano()), true
}

// LockThread locks the calling goroutine to its OS thread and returns the
// unlock.
func LockThread() func() {
	runtime.LockOSThread()
	return runtime.UnlockOSThread
}
