// Package procstart records when the process started, for logs that report
// a whole process's time, and defers garbage collection in a short-lived
// process (DeferGC). It depends only on the standard library's runtime,
// time, syscall, os and sync packages, so it is among the first packages
// initialised (Go initialises the packages whose imports are done in
// import-path order): what it misses is the runtime's own start, well
// under a millisecond, and the exec itself.
package procstart

import "time"

// Time is when this package was initialised: as near the process's start
// as a Go program can see.
var Time = time.Now()

// Since is the time since the process started.
func Since() time.Duration { return time.Since(Time) }

// CPU is the CPU time (user and system, all threads) the process has used
// so far, initialisation included; 0 where the platform does not say.
func CPU() time.Duration { return cpuTime() }

// EnvStart names the variable through which a parent that handed its work
// to this process (odekmem-hook falling back to `odekmem hook`) passes
// the time it started, in Unix nanoseconds, so the child can report the
// time the agent waited for.
const EnvStart = "ODEKMEM_HOOK_T0"
