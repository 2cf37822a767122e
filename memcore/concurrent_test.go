package memcore_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/odekmem/odekmem/internal/testkit"
	"github.com/odekmem/odekmem/memcore"
)

const (
	stWriterEnv   = "ODEKMEM_ST_WRITER_DIR"
	stWriterCount = "ODEKMEM_ST_WRITER_N"
	stWriterName  = "ODEKMEM_ST_WRITER_NAME"
	stWriterSeed  = "ODEKMEM_ST_WRITER_SEED"
)

// TestWriterChild is a child of TestTwoWriterProcesses.
func TestWriterChild(t *testing.T) {
	dir := os.Getenv(stWriterEnv)
	if dir == "" {
		t.Skip("child process of TestTwoWriterProcesses")
	}
	n, _ := strconv.Atoi(os.Getenv(stWriterCount))
	name := os.Getenv(stWriterName)
	s, err := memcore.Open(context.Background(), dir, memcore.Options{Config: stCrashConfig()})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close(context.Background())
	seed, _ := strconv.ParseInt(os.Getenv(stWriterSeed), 10, 64)
	r := rand.New(rand.NewSource(seed))
	for i := 0; i < n; i++ {
		text := fmt.Sprintf("writer %s atom %d %s", name, i, stText(r, 100))
		res, err := s.Add(context.Background(), memcore.AddRequest{Source: memcore.SourceUserApproved, Text: text})
		if err != nil {
			t.Fatal(err)
		}
		fmt.Printf("ack %s\n", res.Atom.ID)
	}
}

func TestTwoWriterProcesses(t *testing.T) {
	n := testkit.Rounds(100, 500)
	seed := testkit.Seed(t)
	dir := stDir(t)
	// Create the store first so both children find it.
	s0 := stOpen(t, dir, memcore.Options{})
	s0.Close(context.Background())
	type child struct {
		cmd *exec.Cmd
		out strings.Builder
		err strings.Builder
	}
	var kids []*child
	for i, name := range []string{"A", "B"} {
		c := &child{cmd: exec.Command(os.Args[0], "-test.run=^TestWriterChild$", "-test.count=1")}
		c.cmd.Env = append(os.Environ(), stWriterEnv+"="+dir, stWriterCount+"="+strconv.Itoa(n), stWriterName+"="+name, stWriterSeed+"="+strconv.FormatInt(seed+int64(i), 10))
		c.cmd.Stdout, c.cmd.Stderr = &c.out, &c.err
		if err := c.cmd.Start(); err != nil {
			t.Fatal(err)
		}
		kids = append(kids, c)
	}
	acked := map[string]bool{}
	for _, c := range kids {
		if err := c.cmd.Wait(); err != nil {
			t.Fatalf("child: %v\n%s\n%s", err, c.out.String(), c.err.String())
		}
		for _, l := range strings.Split(c.out.String(), "\n") {
			if id, ok := strings.CutPrefix(l, "ack "); ok {
				acked[id] = true
			}
		}
	}
	if len(acked) != 2*n {
		t.Fatalf("children acknowledged %d atoms, want %d", len(acked), 2*n)
	}
	onDisk := stAtomsOnDisk(t, dir)
	for id := range acked {
		if !onDisk[id] {
			t.Errorf("atom %s missing from atoms.json (lost update)", id)
		}
		if _, err := os.Stat(filepath.Join(dir, "chunks", id+".md")); err != nil {
			t.Errorf("chunk of %s: %v", id, err)
		}
	}
	s := stOpen(t, dir, memcore.Options{})
	if must(s.Stats(context.Background())).Live != 2*n || len(s.Problems()) != 0 {
		t.Fatalf("reopened: %d atoms, problems %v", must(s.Stats(context.Background())).Live, s.Problems())
	}
	stCheckTree(t, dir)
}

// TestTwoStoresInterleaved runs two Store instances on one directory in one
// process: adds, forgets and pins interleave without a lost update.
func TestTwoStoresInterleaved(t *testing.T) {
	dir := stDir(t)
	cfg := stCrashConfig()
	a := stOpen(t, dir, memcore.Options{Config: cfg})
	b := stOpen(t, dir, memcore.Options{Config: cfg})
	ctx := context.Background()
	const per = 60
	type want struct {
		live, pin bool
	}
	var mu sync.Mutex
	expect := map[string]want{}
	var wg sync.WaitGroup
	for w, s := range []*memcore.Store{a, b, a, b} {
		wg.Add(1)
		go func(w int, s *memcore.Store) {
			defer wg.Done()
			r := rand.New(rand.NewSource(int64(w)))
			for i := 0; i < per; i++ {
				res, err := s.Add(ctx, memcore.AddRequest{Source: memcore.SourceUserApproved, Text: fmt.Sprintf("worker %d item %d %s", w, i, stText(r, 80))})
				if err != nil {
					t.Error(err)
					return
				}
				id := res.Atom.ID
				st := want{live: true}
				switch i % 4 {
				case 1:
					if _, _, _, err := s.Forget(ctx, id); err != nil {
						t.Error(err)
						return
					}
					st.live = false
				case 2:
					if _, _, err := s.SetPin(ctx, id, true); err != nil {
						t.Error(err)
						return
					}
					st.pin = true
				case 3:
					s.SetPin(ctx, id, true)
					if _, _, err := s.SetPin(ctx, id, false); err != nil {
						t.Error(err)
						return
					}
				}
				mu.Lock()
				expect[id] = st
				mu.Unlock()
			}
		}(w, s)
	}
	wg.Wait()
	if t.Failed() {
		return
	}
	for _, s := range []*memcore.Store{a, b, stOpen(t, dir, memcore.Options{Config: cfg})} {
		live := map[string]memcore.Atom{}
		for _, x := range must(s.List(ctx, memcore.Filter{})) {
			live[x.ID] = x
		}
		n := 0
		for id, w := range expect {
			x, ok := live[id]
			if ok != w.live {
				t.Fatalf("atom %s live=%v want %v", id, ok, w.live)
			}
			if ok {
				n++
				if x.Pin != w.pin {
					t.Fatalf("atom %s pin=%v want %v", id, x.Pin, w.pin)
				}
			}
		}
		if n != len(live) {
			t.Fatalf("store has %d live atoms, expected %d", len(live), n)
		}
	}
}

// TestPromoteExpireRace promotes quarantined atoms through one Store while
// another expires them: each ends up exactly once, live or gone.
func TestPromoteExpireRace(t *testing.T) {
	dir := stDir(t)
	clk := stNewClock()
	a := stOpen(t, dir, memcore.Options{Now: clk.Now})
	b := stOpen(t, dir, memcore.Options{Now: clk.Now})
	ctx := context.Background()
	r := rand.New(rand.NewSource(9))
	var ids []string
	for i := 0; i < 40; i++ {
		ids = append(ids, stAdd(t, a, memcore.AddRequest{Text: fmt.Sprintf("tool output %d %s", i, stText(r, 60)), Source: memcore.SourceToolOutput}).Atom.ID)
	}
	clk.Advance(8 * 24 * time.Hour)
	promoted := make([]bool, len(ids))
	var wg sync.WaitGroup
	wg.Add(2)
	go func() {
		defer wg.Done()
		for i, id := range ids {
			_, _, err := a.Promote(ctx, id)
			switch {
			case err == nil:
				promoted[i] = true
			case errors.Is(err, memcore.ErrNotFound):
			default:
				t.Errorf("promote: %v", err)
			}
		}
	}()
	go func() {
		defer wg.Done()
		for i := 0; i < 20; i++ {
			if _, err := memcore.ExpireQuarantine(b); err != nil {
				t.Error(err)
			}
		}
	}()
	wg.Wait()
	c := stOpen(t, dir, memcore.Options{Now: clk.Now})
	for i, id := range ids {
		x, q, err := c.Get(ctx, id)
		switch {
		case promoted[i]:
			if err != nil || q != nil || x.SourceClass != memcore.SourceUserApproved {
				t.Fatalf("promoted %s: %+v %v %v", id, x, q, err)
			}
		case err == nil:
			if q != nil {
				t.Fatalf("%s still quarantined after expiry", id)
			}
			t.Fatalf("%s live but promote failed", id)
		}
	}
	if len(must(c.Quarantined(ctx))) != 0 {
		t.Fatalf("quarantine not empty: %d", len(must(c.Quarantined(ctx))))
	}
}
