package cli_test

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/odekmem/odekmem/internal/testkit"
)

// Whole odekmem processes, timed from exec to exit, the way a person or
// an agent waits for them (issue 24): `odekmem version` and `odekmem
// help` (no store), `odekmem search` and the per-prompt hook without a
// running serve (`odekmem hook claude-code` with ODEKMEM_NO_SERVE=1: it
// opens the store, recalls, records the prompt and writes) at 1k and 18k
// atoms of 300 characters. Offline embedder, no LLM.
//
//	go test ./internal/cli/ -run '^$' -bench Process -benchtime 20x -timeout 60m
//
// Reported: p50-ms and p99-ms of the wall time and cpu-p50-ms of the
// process's user+system time (which a loaded machine inflates less). (Not
// the peak resident set: Linux reports a child's as at least its parent's
// at the fork, here the benchmark's own.) ODEKMEM_BENCH_BEFORE=/path/to/an
// older odekmem runs that binary too, alternating with this one run by
// run (so both see the same load), on its own copy of each store brought
// to its own vector cache format by `compact` first, and reports its
// figures as before-*.
func BenchmarkProcess(b *testing.B) {
	before := os.Getenv("ODEKMEM_BENCH_BEFORE")
	prompt := func(i int) string {
		qs := []string{"How should I structure the retry backoff for the queue worker?", "Why is the parser test flaky on the staging branch?",
			"What did we decide about the sqlite cache migration?", "Which dashboard shows the p99 latency of the query index?"}
		return fmt.Sprintf(`{"session_id":"bench-%d","cwd":"/tmp","hook_event_name":"UserPromptSubmit","prompt":%q}`, i%7, qs[i%len(qs)])
	}
	cases := []struct {
		name  string
		atoms int
		run   func(i int, home string) (args []string, stdin string, env []string)
	}{
		{"version", 0, func(int, string) ([]string, string, []string) { return []string{"version"}, "", nil }},
		{"help", 0, func(int, string) ([]string, string, []string) { return []string{"help"}, "", nil }},
		{"search/1k", 1000, searchArgs},
		{"search/18k", 18000, searchArgs},
		{"hook-no-serve/1k", 1000, func(i int, home string) ([]string, string, []string) {
			return []string{"hook", "claude-code", "--home", home}, prompt(i), []string{"ODEKMEM_NO_SERVE=1"}
		}},
		{"hook-no-serve/18k", 18000, func(i int, home string) ([]string, string, []string) {
			return []string{"hook", "claude-code", "--home", home}, prompt(i), []string{"ODEKMEM_NO_SERVE=1"}
		}},
	}
	seeded := map[int]string{}
	seed := func(n int) string { // removed when the whole benchmark ends
		if seeded[n] == "" {
			seeded[n] = testkit.SeedHome(b, "procbench", n)
		}
		return seeded[n]
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			homes := map[string]string{} // binary → its home (a copy per binary)
			bins := []string{odekmemBin}
			if before != "" {
				bins = append(bins, before)
			}
			for _, bin := range bins {
				if c.atoms == 0 {
					homes[bin] = b.TempDir()
					continue
				}
				home := filepath.Join(b.TempDir(), "home")
				testkit.CopyDir(b, seed(c.atoms), home)
				if bin != odekmemBin {
					// The older binary rewrites the cache in its own format
					// (once: it cannot read the newer one, reports it as
					// damage, exit status 3, and rebuilds it).
					out, err := exec.Command(bin, "--home", home, "compact").CombinedOutput()
					var ee *exec.ExitError
					if err != nil && !(errors.As(err, &ee) && ee.ExitCode() == 3) {
						b.Fatalf("%s compact: %v\n%s", bin, err, out)
					}
					os.RemoveAll(filepath.Join(testkit.StoreDir(home), "corrupt"))
				}
				homes[bin] = home
			}
			type sample struct{ wall, cpu []float64 }
			got := map[string]*sample{}
			for _, bin := range bins {
				got[bin] = &sample{}
				runProcess(b, bin, c.run, 0, homes[bin]) // warm the page cache
			}
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				for _, bin := range bins {
					w, cpu := runProcess(b, bin, c.run, i+1, homes[bin])
					s := got[bin]
					s.wall, s.cpu = append(s.wall, w), append(s.cpu, cpu)
				}
			}
			b.StopTimer()
			report := func(prefix string, s *sample) {
				b.ReportMetric(quantile(s.wall, 0.5), prefix+"p50-ms")
				b.ReportMetric(quantile(s.wall, 0.99), prefix+"p99-ms")
				b.ReportMetric(quantile(s.cpu, 0.5), prefix+"cpu-p50-ms")
			}
			report("", got[odekmemBin])
			if before != "" {
				report("before-", got[before])
			}
			b.ReportMetric(0, "ns/op")
		})
	}
}

func searchArgs(i int, home string) ([]string, string, []string) {
	qs := []string{"retry backoff for the queue worker", "flaky parser test on staging", "sqlite cache migration decision", "p99 latency of the query index"}
	return []string{"--home", home, "search", qs[i%len(qs)]}, "", nil
}

// runProcess runs one process and returns its wall time and CPU time in
// milliseconds.
func runProcess(b *testing.B, bin string, run func(int, string) ([]string, string, []string), i int, home string) (wall, cpu float64) {
	b.Helper()
	args, stdin, env := run(i, home)
	cmd := exec.Command(bin, args...)
	cmd.Env = append(append(os.Environ(), "ODEK_HOME="), env...)
	if stdin != "" {
		cmd.Stdin = strings.NewReader(stdin)
	}
	start := time.Now()
	out, err := cmd.CombinedOutput()
	d := time.Since(start)
	if err != nil {
		b.Fatalf("%s %v: %v\n%s", bin, args, err, out)
	}
	st := cmd.ProcessState
	return float64(d.Microseconds()) / 1000, float64((st.UserTime() + st.SystemTime()).Microseconds()) / 1000
}

func quantile(xs []float64, p float64) float64 {
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	if len(s) == 0 {
		return 0
	}
	return s[max(0, min(int(p*float64(len(s))+0.5)-1, len(s)-1))]
}
