//go:build linux

package vindex

import (
	"runtime"
	"syscall"
	"time"
	"unsafe"
)

// threadCPU returns the calling thread's CPU time from
// CLOCK_THREAD_CPUTIME_ID (nanosecond resolution). Callers lock the OS
// thread. It lets the search benchmarks measure the index rather than the
// scheduler of a shared, loaded machine.
func threadCPU() (time.Duration, bool) {
	const clockThreadCPUTime = 3 // CLOCK_THREAD_CPUTIME_ID
	var ts syscall.Timespec
	_, _, errno := syscall.Syscall(syscall.SYS_CLOCK_GETTIME, clockThreadCPUTime, uintptr(unsafe.Pointer(&ts)), 0)
	if errno != 0 {
		return 0, false
	}
	return time.Duration(ts.Nano()), true
}

func lockThread() func() {
	runtime.LockOSThread()
	return runtime.UnlockOSThread
}
