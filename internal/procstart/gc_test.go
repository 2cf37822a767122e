package procstart

import (
	"math"
	"os"
	"os/exec"
	"runtime"
	"runtime/debug"
	"strconv"
	"testing"
	"time"
)

// TestDeferGCComesBackAtTheLimit runs in a child process (the collector's
// settings are the whole process's): with the collector deferred, a
// process that allocates far past the limit must find it on again, with
// the default settings, and its heap bounded by about the limit.
func TestDeferGCComesBackAtTheLimit(t *testing.T) {
	if os.Getenv("PROCSTART_GC_CHILD") == "1" {
		childAllocates(t)
		return
	}
	cmd := exec.Command(os.Args[0], "-test.run", "^TestDeferGCComesBackAtTheLimit$", "-test.v")
	cmd.Env = append(os.Environ(), "PROCSTART_GC_CHILD=1", "GOGC=", "GOMEMLIMIT=")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("child: %v\n%s", err, out)
	}
	t.Logf("%s", out)
}

var sink [][]byte

func childAllocates(t *testing.T) {
	os.Unsetenv("GOGC")
	os.Unsetenv("GOMEMLIMIT")
	const limit = 32 << 20
	DeferGC(limit)
	if !GCDeferred() {
		t.Fatal("DeferGC did not defer the collector")
	}
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	gc0 := ms.NumGC
	// Below the limit: no collection at all.
	for i := 0; i < 8; i++ {
		sink = append(sink, make([]byte, 1<<20))
	}
	runtime.ReadMemStats(&ms)
	if ms.NumGC != gc0 {
		t.Fatalf("%d collections below the limit, want none", ms.NumGC-gc0)
	}
	// Far past it, in garbage: the collector must come back and stay on.
	var peak uint64
	for i := 0; i < 400; i++ {
		sink = append(sink[:8], make([]byte, 1<<20))
		if i%50 == 0 {
			runtime.ReadMemStats(&ms)
			peak = max(peak, ms.HeapAlloc)
		}
	}
	runtime.ReadMemStats(&ms)
	if ms.NumGC == gc0 {
		t.Fatal("no collection ran although the heap went far past the limit")
	}
	// The restore runs in the cleanup goroutine after that collection:
	// wait for it without forcing one.
	deadline := time.Now().Add(10 * time.Second)
	for GCDeferred() && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	if GCDeferred() {
		t.Fatal("400 MB of garbage later, the collector is still deferred")
	}
	if prev := debug.SetGCPercent(100); prev != 100 {
		t.Fatalf("GC percent after the restore = %d, want the default 100", prev)
	}
	if prev := debug.SetMemoryLimit(-1); prev != math.MaxInt64 {
		t.Fatalf("memory limit after the restore = %d, want none", prev)
	}
	if peak > 4*limit {
		t.Fatalf("heap reached %d MB with the collector deferred under a %d MB limit", peak>>20, limit>>20)
	}
	t.Logf("peak heap %d MB under a %d MB limit; collector restored", peak>>20, limit>>20)
}

// TestDeferGCLeavesAPersonsSettings: GOGC or GOMEMLIMIT set means the
// person chose; DeferGC changes nothing.
func TestDeferGCLeavesAPersonsSettings(t *testing.T) {
	if os.Getenv("PROCSTART_GC_CHILD") == "2" {
		DeferGC(DeferLimit)
		if GCDeferred() {
			t.Fatal("DeferGC deferred the collector although GOGC is set")
		}
		if prev := debug.SetGCPercent(50); prev != 50 {
			t.Fatalf("GC percent = %d, want the GOGC=50 the process was started with", prev)
		}
		return
	}
	cmd := exec.Command(os.Args[0], "-test.run", "^TestDeferGCLeavesAPersonsSettings$")
	cmd.Env = append(os.Environ(), "PROCSTART_GC_CHILD=2", "GOGC="+strconv.Itoa(50))
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("child: %v\n%s", err, out)
	}
}
