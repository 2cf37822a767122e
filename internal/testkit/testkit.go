// Package testkit is what the tests of several packages share: the odekmem
// binaries built once per test run, odek homes and their stores, copies of
// store directories, homes seeded with synthetic notes for benchmarks, and
// the plain terminal the TUI tests render in. Only tests import it.
package testkit

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"math/rand"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/lipgloss"
	"github.com/muesli/termenv"

	"github.com/odekmem/odekmem/internal/vocab"
	"github.com/odekmem/odekmem/memcore"
)

// The main packages tests run as subprocesses.
const (
	Odekmem = "github.com/odekmem/odekmem"
	Hook    = "github.com/odekmem/odekmem/cmd/odekmem-hook"
)

// RunWithBinaries builds each main package (named by import path) into one
// temporary directory, under the last element of its path, and stores the
// binary's path where its key points; then it runs the tests, removes the
// directory and exits with the tests' status. It is a whole TestMain.
//
// With ODEKMEM_TEST_BIN_DIR set (make test builds the binaries once there
// for every package), the binaries found in it are used as they are.
func RunWithBinaries(m *testing.M, bins map[*string]string) {
	if shared := os.Getenv("ODEKMEM_TEST_BIN_DIR"); shared != "" {
		found := true
		for dst, pkg := range bins {
			target := filepath.Join(shared, path.Base(pkg))
			if _, err := os.Stat(target); err != nil {
				found = false
				break
			}
			*dst = target
		}
		if found {
			os.Exit(m.Run())
		}
	}
	dir, err := os.MkdirTemp("", "odekmem-test-bin")
	if err != nil {
		panic(err)
	}
	for dst, pkg := range bins {
		target := filepath.Join(dir, path.Base(pkg))
		cmd := exec.Command("go", "build", "-o", target, pkg)
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0") // as make build ships them
		if out, err := cmd.CombinedOutput(); err != nil {
			os.RemoveAll(dir)
			panic("build " + pkg + ": " + err.Error() + "\n" + string(out))
		}
		*dst = target
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// CopyDir copies the directory tree src to dst (which must not hold any of
// its files yet), with directories 0700 and files 0600 as a store keeps
// them.
func CopyDir(tb testing.TB, src, dst string) {
	tb.Helper()
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		to := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(to, 0o700)
		}
		in, err := os.Open(p)
		if err != nil {
			return err
		}
		defer in.Close()
		out, err := os.OpenFile(to, os.O_CREATE|os.O_WRONLY|os.O_EXCL, 0o600)
		if err != nil {
			return err
		}
		_, err = io.Copy(out, in)
		if cerr := out.Close(); err == nil {
			err = cerr
		}
		return err
	})
	if err != nil {
		tb.Fatal(err)
	}
}

// StoreDir is the store directory of an odek home.
func StoreDir(home string) string { return filepath.Join(home, "memory", "extended") }

// OpenHome opens the store of an odek home with default options; it is
// closed when tb ends (closing it earlier is fine).
func OpenHome(tb testing.TB, home string) *memcore.Store {
	tb.Helper()
	st, err := memcore.Open(context.Background(), StoreDir(home), memcore.Options{})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { st.Close(context.Background()) })
	return st
}

// Words is the vocabulary of the synthetic notes: a developer's topics,
// so that searches for them find something.
var Words = strings.Fields(`parser lexer cache sqlite postgres deploy staging production branch release review test
table driven fixture golden snapshot retry timeout backoff queue worker cron schedule config yaml json toml go rust
python typescript react component hook state reducer migration schema index query latency throughput memory leak
profile flame graph benchmark allocation goroutine channel mutex deadlock race detector lint format vet module vendor
docker image container kubernetes helm chart ingress service secret token rotation audit log metric trace span alert
pager oncall incident postmortem runbook dashboard grafana prometheus loki tempo sentry feature flag rollout canary`)

// Note is a synthetic note of words drawn from Words, shorter than n bytes.
func Note(r *rand.Rand, n int) string {
	var b strings.Builder
	b.WriteString("Note: ")
	for b.Len() < n-12 {
		b.WriteString(Words[r.Intn(len(Words))])
		b.WriteByte(' ')
	}
	t := strings.TrimSpace(b.String())
	return t[:min(len(t), n-1)]
}

// SeedHome returns an odek home (under the system temp directory, named
// after name and n, removed when tb ends) whose store holds n distinct
// user_said facts of about 300 characters, compacted. The notes depend only
// on n, so every run measures the same store.
func SeedHome(tb testing.TB, name string, n int) string {
	tb.Helper()
	home := filepath.Join(os.TempDir(), fmt.Sprintf("odekmem-%s-%d-%d", name, n, os.Getuid()))
	os.RemoveAll(home)
	st, err := memcore.Open(context.Background(), StoreDir(home), memcore.Options{})
	if err != nil {
		tb.Fatal(err)
	}
	defer st.Close(context.Background())
	r := rand.New(rand.NewSource(int64(n)))
	ctx := context.Background()
	for i := 0; i < n; i += 1000 {
		var reqs []memcore.AddRequest
		for j := i; j < min(i+1000, n); j++ {
			reqs = append(reqs, memcore.AddRequest{Text: fmt.Sprintf("%s (%d)", Note(r, 290), j), Type: memcore.TypeFact, Source: memcore.SourceUserSaid})
		}
		if _, _, err := st.AddBatch(ctx, reqs); err != nil {
			tb.Fatal(err)
		}
	}
	if _, err := st.Compact(ctx); err != nil {
		tb.Fatal(err)
	}
	if st, err := st.Stats(ctx); err != nil || st.Live < n*99/100 {
		tb.Fatalf("fixture holds %d atoms, want about %d", st.Live, n)
	}
	tb.Cleanup(func() { os.RemoveAll(home) })
	return home
}

// PlainTerminal sets lipgloss to the ASCII profile on a dark background,
// as the TUI's goldens and output assertions expect: no colour, so any
// escape sequence in a View would come from data.
func PlainTerminal() {
	lipgloss.SetColorProfile(termenv.Ascii)
	lipgloss.SetHasDarkBackground(true)
}

// QueuePending adds reviews to pending_review in the store's
// user_model.json as another program sharing the store (odek) writes them:
// the file is read, the entries appended and the file rewritten. An open
// Store sees them on its next call.
func QueuePending(tb testing.TB, storeDir string, ps ...memcore.PendingReview) {
	tb.Helper()
	path := filepath.Join(storeDir, "user_model.json")
	m := map[string]any{}
	if b, err := os.ReadFile(path); err == nil {
		if err := json.Unmarshal(b, &m); err != nil {
			tb.Fatalf("read %s: %v", path, err)
		}
	} else if !os.IsNotExist(err) {
		tb.Fatal(err)
	}
	list, _ := m["pending_review"].([]any)
	for _, p := range ps {
		if p.ID == "" {
			p.ID = vocab.NewID()
		}
		if p.CreatedAt.IsZero() {
			p.CreatedAt = time.Now().UTC()
		}
		list = append(list, p)
	}
	m["pending_review"] = list
	b, err := json.Marshal(m)
	if err != nil {
		tb.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o600); err != nil {
		tb.Fatal(err)
	}
}

// Soak reports whether this run is the soak tier (make soak sets
// ODEKMEM_SOAK=1): crash, concurrency and scale tests then run their full
// number of rounds; in make test they run a few, so the tier stays fast and
// still fails on a regression.
func Soak() bool { return os.Getenv("ODEKMEM_SOAK") == "1" }

// Rounds is n in the soak tier and short otherwise.
func Rounds(short, n int) int {
	if Soak() {
		return n
	}
	return short
}

// Seed returns a seed for a randomised test and logs it, so a failure can
// be replayed: ODEKMEM_SEED=<seed> gives the same run.
func Seed(tb testing.TB) int64 {
	tb.Helper()
	seed := time.Now().UnixNano()
	if s := os.Getenv("ODEKMEM_SEED"); s != "" {
		if _, err := fmt.Sscan(s, &seed); err != nil {
			tb.Fatalf("ODEKMEM_SEED=%q: %v", s, err)
		}
	}
	tb.Logf("seed %d (replay with ODEKMEM_SEED=%d)", seed, seed)
	return seed
}
