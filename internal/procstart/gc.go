package procstart

import (
	"math"
	"os"
	"runtime"
	"runtime/debug"
	"sync/atomic"
)

// DeferLimit is the runtime memory at which a process that deferred its
// collector (DeferGC) turns it back on: above what a verb on a store at
// the default cap allocates (about 30 MB at 18k atoms; mapped cache files
// do not count), and low enough that a verb on a much larger store, or a
// bulk job, soon collects as usual.
const DeferLimit = 64 << 20

var deferred atomic.Bool

// sentinel is the object whose cleanup tells that a collection ran. It
// holds a pointer so that it is not a tiny allocation (whose cleanups may
// never run).
type sentinel struct {
	_ *int
	_ [24]byte
}

// DeferGC turns the garbage collector off until the heap reaches limit or
// RestoreGC is called. A CLI verb (search, the per-prompt hook, show) opens
// the store, answers and exits: nearly everything it allocates is the
// store's indexes, live until exit, so collecting while they are built is
// wasted work — and a collection that scans a freshly allocated large
// array before the loader writes it maps the kernel's zero page under it,
// so each later write is a copy-on-write fault with a TLB flush on every
// core the process runs on. Measured on an 18k-atom store, that was a
// third of `odekmem search`'s CPU time (BENCHMARKS.md).
//
// When the runtime's memory reaches limit, the collector runs (the memory limit
// forces it) and the first collection restores the default settings, so a
// bulk job or a verb on a very large store collects as it always did. A
// long-lived process (serve, the MCP server, the TUI) calls RestoreGC
// once it is up, a bulk job (import, ingest, eval) at its start. Nothing changes when GOGC or GOMEMLIMIT is set: the
// person's choice stands.
func DeferGC(limit int64) {
	if os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" || limit <= 0 {
		return
	}
	if !deferred.CompareAndSwap(false, true) {
		return
	}
	debug.SetMemoryLimit(limit)
	debug.SetGCPercent(-1)
	runtime.AddCleanup(new(sentinel), func(struct{}) { RestoreGC() }, struct{}{})
}

// RestoreGC turns the collector back on with the default settings when
// DeferGC turned it off; otherwise it does nothing.
func RestoreGC() {
	if deferred.CompareAndSwap(true, false) {
		debug.SetGCPercent(100)
		debug.SetMemoryLimit(math.MaxInt64)
	}
}

// GCDeferred reports whether the collector is off (DeferGC) and not yet
// restored.
func GCDeferred() bool { return deferred.Load() }
