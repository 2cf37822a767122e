package tui

import (
	"context"
	"fmt"
	"math/rand"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/odekmem/odekmem/internal/vocab"
	"github.com/odekmem/odekmem/memcore"
)

var (
	benchOnce sync.Once
	benchDir  string
	benchErr  error
)

func cleanupBench() {
	if benchDir != "" {
		os.RemoveAll(benchDir)
	}
}

var benchWords = strings.Fields(`payouts report merchant timezone migration checkout flag deploy helm cronjob
postgres replica cookie session retry idempotent webhook invoice ledger refund dispute settlement currency
rounding cents float schema index vacuum partition queue worker backoff jitter tracing span exporter metric
latency p99 alert pager runbook rollback canary blue green feature owner removal date ticket sprint review
lint vet race test fixture golden snapshot table driven mock container testcontainers kubectl argocd terraform
module state drift secret vault rotation token oauth scope consent cache eviction ttl warmup pagination cursor`)

// benchStore builds (once per process) a store of 18,000 user_said atoms
// of about 200 characters each.
func benchStore(b *testing.B, n int) string {
	benchOnce.Do(func() {
		benchDir, benchErr = os.MkdirTemp("", "odekmem-tui-bench-")
		if benchErr != nil {
			return
		}
		st, err := memcore.Open(context.Background(), benchDir, memcore.Options{Now: func() time.Time { return fixedNow }})
		if err != nil {
			benchErr = err
			return
		}
		defer st.Close(context.Background())
		rng := rand.New(rand.NewSource(1))
		const batch = 1000
		for done := 0; done < n; done += batch {
			reqs := make([]memcore.AddRequest, 0, batch)
			for i := 0; i < batch && done+i < n; i++ {
				var sb strings.Builder
				fmt.Fprintf(&sb, "note %d: ", done+i)
				for sb.Len() < 200 {
					sb.WriteString(benchWords[rng.Intn(len(benchWords))])
					sb.WriteByte(' ')
				}
				reqs = append(reqs, memcore.AddRequest{Text: strings.TrimSpace(sb.String()), Source: memcore.SourceUserSaid,
					Type: memcore.Type(vocab.AtomTypes[(done+i)%9]), CreatedAt: fixedNow.Add(-time.Duration(done+i) * time.Minute),
					Context: memcore.AtomContext{Project: fmt.Sprintf("~/src/p%d", (done+i)%7), SessionID: fmt.Sprintf("s-%d", (done+i)/40)}})
			}
			if _, _, err := st.AddBatch(context.Background(), reqs); err != nil {
				benchErr = err
				return
			}
		}
		// Write the vector cache so opening does not re-embed.
		_, benchErr = st.Compact(context.Background())
	})
	if benchErr != nil {
		b.Fatal(benchErr)
	}
	return benchDir
}

// BenchmarkFirstFrame18k measures building the root model, running every
// pane's load command and rendering the first frame over an open store of
// 18,000 atoms (target ≤ 500 ms).
func BenchmarkFirstFrame18k(b *testing.B) {
	dir := benchStore(b, 18000)
	st, err := memcore.Open(context.Background(), dir, memcore.Options{Now: func() time.Time { return fixedNow }})
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close(context.Background())
	if must(st.Stats(context.Background())).Live < 17000 {
		b.Fatalf("bench store has %d atoms", must(st.Stats(context.Background())).Live)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		m := New(context.Background(), st, staticOptions())
		m.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
		drive(m, m.Init())
		if v := m.View(); !strings.Contains(v, "Atoms 1") {
			b.Fatalf("first frame lacks the atoms:\n%s", v)
		}
	}
}

// BenchmarkOpenAndFirstFrame18k adds opening the store to the above.
func BenchmarkOpenAndFirstFrame18k(b *testing.B) {
	dir := benchStore(b, 18000)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		st, err := memcore.Open(context.Background(), dir, memcore.Options{Now: func() time.Time { return fixedNow }})
		if err != nil {
			b.Fatal(err)
		}
		m := New(context.Background(), st, staticOptions())
		m.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
		drive(m, m.Init())
		_ = m.View()
		st.Close(context.Background())
	}
}
