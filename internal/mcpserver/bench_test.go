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
