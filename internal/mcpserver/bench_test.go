package mcpserver_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"sort"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/odekmem/odekmem/internal/testkit"
	"github.com/odekmem/odekmem/memcore"
)

// MCP search round trip: a real `odekmem mcp` subprocess over stdio (the
// way agents run it), the SDK's client calling search_memories; each
// iteration is one request and its response. Offline embedder.
//
//	go test ./internal/mcpserver/ -run '^$' -bench MCPSearch -benchtime 200x -timeout 30m

func BenchmarkMCPSearch(b *testing.B) {
	queries := []string{"retry backoff for the queue worker", "flaky parser test on staging", "sqlite cache migration decision",
		"goroutine deadlock race detector", "helm chart ingress secret rotation", "p99 latency of the query index"}
	for _, n := range []int{1000, 18000} {
		b.Run(fmt.Sprintf("%dk", n/1000), func(b *testing.B) {
			home := testkit.SeedHome(b, "mcpbench", n)
			cmd := exec.Command(bin, "mcp", "--home", home)
			cmd.Env = append(os.Environ(), "ODEK_HOME=")
			ctx := context.Background()
			cs, err := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1"}, nil).Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
			if err != nil {
				b.Fatal(err)
			}
			defer cs.Close()
			call := func(i int) time.Duration {
				start := time.Now()
				res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "search_memories", Arguments: map[string]any{"query": queries[i%len(queries)], "k": 8}})
				d := time.Since(start)
				if err != nil || res.IsError {
					b.Fatalf("search: %v %v", err, res)
				}
				return d
			}
			for i := 0; i < 5; i++ {
				call(i) // the index fills after open
			}
			ds := make([]time.Duration, 0, b.N)
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				ds = append(ds, call(i))
			}
			b.StopTimer()
			sort.Slice(ds, func(i, j int) bool { return ds[i] < ds[j] })
			q := func(p float64) float64 {
				return float64(ds[max(0, min(int(p*float64(len(ds))+0.5)-1, len(ds)-1))].Microseconds()) / 1000
			}
			b.ReportMetric(q(0.50), "p50-ms")
			b.ReportMetric(q(0.99), "p99-ms")
		})
	}
}

// MCP search after another process wrote: each iteration, a second store
// open on the same directory (as `odekmem serve` or a hook process is)
// adds one atom, then the `odekmem mcp` subprocess answers search_memories;
// the time is the search's, which includes following the other process's
// write. cpu is the server's CPU time for the call (Linux).
// ODEKMEM_BENCH_BEFORE=/path/to/an/older/odekmem adds that binary's runs.
//
//	go test ./internal/mcpserver/ -run '^$' -bench MCPSearchAfterWrite -benchtime 50x -timeout 30m
func BenchmarkMCPSearchAfterWrite(b *testing.B) {
	bins := []struct{ name, path string }{{"after", bin}}
	if p := os.Getenv("ODEKMEM_BENCH_BEFORE"); p != "" {
		bins = append([]struct{ name, path string }{{"before", p}}, bins...)
	}
	for _, n := range []int{1000, 18000} {
		home := testkit.SeedHome(b, "mcpwrite", n)
		for _, bn := range bins {
			b.Run(fmt.Sprintf("%dk/%s", n/1000, bn.name), func(b *testing.B) {
				cmd := exec.Command(bn.path, "mcp", "--home", home)
				cmd.Env = append(os.Environ(), "ODEK_HOME=")
				ctx := context.Background()
				cs, err := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1"}, nil).Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
				if err != nil {
					b.Fatal(err)
				}
				defer cs.Close()
				other := testkit.OpenHome(b, home)
				call := func() (time.Duration, time.Duration) {
					cpu0 := cpuOf(cmd.Process.Pid)
					start := time.Now()
					res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "search_memories", Arguments: map[string]any{"query": "retry backoff for the queue worker", "k": 8}})
					d := time.Since(start)
					if err != nil || res.IsError {
						b.Fatalf("search: %v %v", err, res)
					}
					return d, cpuOf(cmd.Process.Pid) - cpu0
				}
				call()
				ds := make([]time.Duration, 0, b.N)
				cpus := make([]time.Duration, 0, b.N)
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					b.StopTimer()
					if _, err := other.Add(ctx, memcore.AddRequest{Text: fmt.Sprintf("the person said something new about the queue worker, %s, number %d", bn.name, i), Source: memcore.SourceUserSaid}); err != nil {
						b.Fatal(err)
					}
					b.StartTimer()
					d, cpu := call()
					ds, cpus = append(ds, d), append(cpus, cpu)
				}
				b.StopTimer()
				other.Close(context.Background())
				b.ReportMetric(quantileMS(ds, 0.5), "p50-ms")
				b.ReportMetric(quantileMS(ds, 0.99), "p99-ms")
				b.ReportMetric(quantileMS(cpus, 0.5), "cpu-p50-ms")
			})
		}
	}
}
