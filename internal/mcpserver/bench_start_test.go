package mcpserver_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/odekmem/odekmem/internal/testkit"
)

// MCP start as a whole process, the way an agent starts the server: exec
// `odekmem mcp`, send initialize, then notifications/initialized and
// tools/list over stdio, and time each answer from the exec. The first
// tool call (search_memories) follows, timed the same way: it waits for the
// store. Each iteration is one process. Offline embedder, stores of
// 300-character atoms. list-cpu is the CPU time the process had used
// when tools/list was answered (all threads, /proc/<pid>/task/*/schedstat;
// Linux only), which a loaded machine does not inflate the way it does
// wall time.
//
//	go test ./internal/mcpserver/ -run '^$' -bench MCPStart -benchtime 20x -timeout 30m
//
// ODEKMEM_BENCH_BEFORE=/path/to/an/older/odekmem adds the same runs of that
// binary, interleaved, for a before/after figure from one run.
func BenchmarkMCPStart(b *testing.B) {
	bins := []struct{ name, path string }{{"after", bin}}
	if p := os.Getenv("ODEKMEM_BENCH_BEFORE"); p != "" {
		bins = append([]struct{ name, path string }{{"before", p}}, bins...)
	}
	for _, n := range []int{1000, 18000} {
		home := testkit.SeedHome(b, "mcpstart", n)
		for _, bn := range bins {
			b.Run(fmt.Sprintf("%dk/%s", n/1000, bn.name), func(b *testing.B) {
				startOnce(b, bn.path, home) // warm the page cache
				var initD, listD, callD, cpuD []time.Duration
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					d := startOnce(b, bn.path, home)
					initD, listD, callD, cpuD = append(initD, d[0]), append(listD, d[1]), append(callD, d[2]), append(cpuD, d[3])
				}
				b.StopTimer()
				b.ReportMetric(quantileMS(initD, 0.5), "init-p50-ms")
				b.ReportMetric(quantileMS(listD, 0.5), "list-p50-ms")
				b.ReportMetric(quantileMS(listD, 0.99), "list-p99-ms")
				b.ReportMetric(quantileMS(callD, 0.5), "call-p50-ms")
				b.ReportMetric(quantileMS(cpuD, 0.5), "list-cpu-p50-ms")
			})
		}
	}
}

// startOnce runs one server process and returns the times from exec to the
// initialize answer, the tools/list answer and the first tool call's
// answer, and the CPU time the process had used at the tools/list answer.
func startOnce(b *testing.B, path, home string) [4]time.Duration {
	b.Helper()
	cmd := exec.Command(path, "mcp", "--home", home)
	cmd.Env = append(os.Environ(), "ODEK_HOME=")
	in, err := cmd.StdinPipe()
	if err != nil {
		b.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	start := time.Now()
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	defer cmd.Wait()
	defer in.Close()
	r := bufio.NewReader(out)
	send := func(s string) {
		if _, err := io.WriteString(in, s+"\n"); err != nil {
			b.Fatal(err)
		}
	}
	await := func(id int) time.Duration {
		for {
			line, err := r.ReadString('\n')
			if err != nil {
				b.Fatalf("waiting for answer %d: %v", id, err)
			}
			var m struct {
				ID    *int            `json:"id"`
				Error json.RawMessage `json:"error"`
			}
			if json.Unmarshal([]byte(line), &m) == nil && m.ID != nil && *m.ID == id {
				if len(m.Error) > 0 || strings.Contains(line, `"isError":true`) {
					b.Fatalf("answer %d: %s", id, line)
				}
				return time.Since(start)
			}
		}
	}
	var d [4]time.Duration
	send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"bench","version":"1"}}}`)
	d[0] = await(1)
	send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	send(`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`)
	d[1] = await(2)
	d[3] = cpuOf(cmd.Process.Pid)
	send(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"search_memories","arguments":{"query":"retry backoff for the queue worker"}}}`)
	d[2] = await(3)
	return d
}

// cpuOf is the CPU time a process has used so far, summed over its threads
// (Linux /proc/<pid>/task/*/schedstat, nanoseconds; 0 elsewhere).
func cpuOf(pid int) time.Duration {
	tasks, _ := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/schedstat", pid))
	var total int64
	for _, t := range tasks {
		b, err := os.ReadFile(t)
		if err != nil {
			continue
		}
		var ns int64
		fmt.Sscan(string(b), &ns)
		total += ns
	}
	return time.Duration(total)
}

func quantileMS(ds []time.Duration, p float64) float64 {
	s := append([]time.Duration(nil), ds...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	return float64(s[max(0, min(int(p*float64(len(s))+0.5)-1, len(s)-1))].Microseconds()) / 1000
}
