//go:build !linux

package cputime

import "time"

// Thread is not available here: ok is always false.
func Thread() (d time.Duration, ok bool) { return 0, false }

// LockThread does nothing here.
func LockThread() func() { return func() {} }
