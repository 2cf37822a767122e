package mcpserver_test

import (
	"context"
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/odekmem/odekmem/memcore"
)

// MCP search round trip: a real `odekmem mcp` subprocess over stdio (the
// way agents run it), the SDK's client calling search_memories; each
// iteration is one request and its response. Offline embedder.
//
//	go test ./internal/mcpserver/ -run '^$' -bench MCPSearch -benchtime 200x -timeout 30m

var benchWords = strings.Fields(`parser lexer cache sqlite postgres deploy staging production branch release review test
table driven fixture golden snapshot retry timeout backoff queue worker cron schedule config yaml json toml go rust
python typescript react component hook state reducer migration schema index query latency throughput memory leak
profile flame graph benchmark allocation goroutine channel mutex deadlock race detector lint format vet module vendor`)

func benchHome(b *testing.B, n int) string {
	home := filepath.Join(os.TempDir(), fmt.Sprintf("odekmem-mcpbench-%d-%d", n, os.Getuid()))
	os.RemoveAll(home)
	st, err := memcore.Open(filepath.Join(home, "memory", "extended"), memcore.Options{})
	if err != nil {
		b.Fatal(err)
	}
	r := rand.New(rand.NewSource(int64(n)))
	ctx := context.Background()
	for i := 0; i < n; i += 1000 {
		var reqs []memcore.AddRequest
		for j := i; j < min(i+1000, n); j++ {
			var sb strings.Builder
			for sb.Len() < 270 {
				sb.WriteString(benchWords[r.Intn(len(benchWords))] + " ")
			}
			reqs = append(reqs, memcore.AddRequest{Text: fmt.Sprintf("Note %d: %s", j, strings.TrimSpace(sb.String())), Type: memcore.TypeFact, Source: memcore.SourceUserSaid})
		}
		if _, _, err := st.AddBatch(ctx, reqs); err != nil {
			b.Fatal(err)
		}
	}
	if _, err := st.Compact(ctx); err != nil {
		b.Fatal(err)
	}
	st.Close()
	b.Cleanup(func() { os.RemoveAll(home) })
	return home
}

func BenchmarkMCPSearch(b *testing.B) {
	queries := []string{"retry backoff for the queue worker", "flaky parser test on staging", "sqlite cache migration decision",
		"goroutine deadlock race detector", "helm chart ingress secret rotation", "p99 latency of the query index"}
	for _, n := range []int{1000, 18000} {
		b.Run(fmt.Sprintf("%dk", n/1000), func(b *testing.B) {
			home := benchHome(b, n)
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
