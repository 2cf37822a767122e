//go:build unix

package cli_test

import (
	"bytes"
	"fmt"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/odekmem/odekmem/internal/cli"
	"github.com/odekmem/odekmem/internal/testkit"
)

// BenchmarkHookNoServeInProcess is the per-prompt hook without a running
// serve (`odekmem hook claude-code`, ODEKMEM_NO_SERVE=1) at 18k atoms,
// called through cli.Main in this process rather than as a child process:
// every call opens the store, recalls, renders and scans the block,
// records the prompt and writes, as the process does, without the process
// start — so a CPU profile (-cpuprofile) shows where the hook's own work
// goes. Reported: cpu-ms/op, this process's user+system time per call
// (the background work a call leaves behind included).
//
//	go test ./internal/cli/ -run '^$' -bench HookNoServeInProcess -benchtime 40x -count 6
func BenchmarkHookNoServeInProcess(b *testing.B) {
	home := filepath.Join(b.TempDir(), "home")
	testkit.CopyDir(b, testkit.SeedHome(b, "hookinproc", 18000), home)
	qs := []string{"How should I structure the retry backoff for the queue worker?", "Why is the parser test flaky on the staging branch?",
		"What did we decide about the sqlite cache migration?", "Which dashboard shows the p99 latency of the query index?"}
	call := func(i int) {
		p := fmt.Sprintf(`{"session_id":"bench-%d","cwd":"/tmp","hook_event_name":"UserPromptSubmit","prompt":%q}`, i%7, qs[i%len(qs)])
		var out, errb bytes.Buffer
		code := cli.Main([]string{"hook", "claude-code", "--home", home}, cli.Env{Stdout: &out, Stderr: &errb, Stdin: strings.NewReader(p),
			Getenv: func(k string) string {
				if k == "ODEKMEM_NO_SERVE" {
					return "1"
				}
				return ""
			}, ProjectDir: home})
		if code != 0 || !strings.Contains(out.String(), "Extended memory") {
			b.Fatalf("hook: exit %d, no memory block: %s %s", code, out.String(), errb.String())
		}
	}
	call(0) // the page cache, and the store's first open
	b.ResetTimer()
	cpu0 := rusageCPU()
	for i := 0; i < b.N; i++ {
		call(i + 1)
	}
	b.ReportMetric(float64((rusageCPU()-cpu0).Microseconds())/1000/float64(b.N), "cpu-ms/op")
}

// rusageCPU is this process's user and system CPU time so far.
func rusageCPU() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
