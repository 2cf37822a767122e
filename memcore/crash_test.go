package memcore_test

import (
	"bufio"
	"context"
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/odekmem/odekmem/internal/testkit"
	"github.com/odekmem/odekmem/memcore"
)

const stCrashEnv = "ODEKMEM_ST_CRASH_DIR"

func stCrashConfig() *memcore.Config {
	cfg := memcore.DefaultConfig()
	cfg.NoDedup = true
	return &cfg
}

// TestCrashChild is the child of TestCrashKill9: it adds atoms forever and
// acknowledges each on stdout only after Add returned.
func TestCrashChild(t *testing.T) {
	dir := os.Getenv(stCrashEnv)
	if dir == "" {
		t.Skip("child process of TestCrashKill9")
	}
	s, err := memcore.Open(context.Background(), dir, memcore.Options{Config: stCrashConfig()})
	if err != nil {
		fmt.Printf("error %v\n", err)
		os.Exit(3)
	}
	fmt.Println("ready")
	seed, _ := strconv.ParseInt(os.Getenv(stCrashEnv+"_SEED"), 10, 64)
	r := rand.New(rand.NewSource(seed))
	ctx := context.Background()
	for i := 0; ; i++ {
		text := fmt.Sprintf("crash %d %s", i, stText(r, 120))
		var res memcore.AddResult
		if i%7 == 3 {
			rs, errs, err := s.AddBatch(ctx, []memcore.AddRequest{{Text: text, Source: memcore.SourceUserApproved}})
			if err == nil {
				err = errs[0]
			}
			if err != nil {
				fmt.Printf("error %v\n", err)
				os.Exit(3)
			}
			res = rs[0]
		} else {
			res, err = s.Add(ctx, memcore.AddRequest{Source: memcore.SourceUserApproved, Text: text})
			if err != nil {
				fmt.Printf("error %v\n", err)
				os.Exit(3)
			}
		}
		if i%5 == 4 {
			// Some churn: forget an atom acknowledged as forgotten too.
			if _, _, _, err := s.Forget(ctx, res.Atom.ID); err != nil {
				fmt.Printf("error %v\n", err)
				os.Exit(3)
			}
			fmt.Printf("forgot %s\n", res.Atom.ID)
			continue
		}
		fmt.Printf("ack %s %s\n", res.Atom.ID, res.Atom.Text)
	}
}

// TestCrashKill9 kills a writing child with SIGKILL at random moments and
// checks that everything it acknowledged survived.
func TestCrashKill9(t *testing.T) {
	rounds := testkit.Rounds(12, 200) // make soak: 200
	dir := stDir(t)
	acked := map[string]string{}
	forgot := map[string]bool{}
	seed := testkit.Seed(t)
	r := rand.New(rand.NewSource(seed))
	start := time.Now()
	for round := 0; round < rounds; round++ {
		cmd := exec.Command(os.Args[0], "-test.run=^TestCrashChild$", "-test.count=1")
		cmd.Env = append(os.Environ(), stCrashEnv+"="+dir, stCrashEnv+"_SEED="+strconv.FormatInt(seed+int64(round), 10))
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		lines := make(chan string, 1024)
		go func() {
			sc := bufio.NewScanner(out)
			sc.Buffer(make([]byte, 1<<16), 1<<20)
			for sc.Scan() {
				lines <- sc.Text()
			}
			close(lines)
		}()
		var got []string
		ready := false
		timeout := time.After(30 * time.Second)
		for !ready {
			select {
			case l, ok := <-lines:
				if !ok {
					cmd.Wait()
					t.Fatalf("round %d: child exited before ready: %v", round, got)
				}
				if l == "ready" {
					ready = true
				} else {
					got = append(got, l)
				}
			case <-timeout:
				cmd.Process.Kill()
				t.Fatalf("round %d: child never became ready", round)
			}
		}
		// Every other round waits for the child's first acknowledgement
		// before the random delay, so a slow machine (the race detector
		// under load) still kills children mid-stream after some writes
		// were acknowledged; the other rounds kill wherever the delay
		// lands, the open included.
		if round%2 == 1 {
			first := time.After(30 * time.Second)
		wait:
			for {
				select {
				case l, ok := <-lines:
					if !ok {
						break wait
					}
					got = append(got, l)
					if strings.HasPrefix(l, "ack ") {
						break wait
					}
				case <-first:
					break wait
				}
			}
		}
		time.Sleep(time.Duration(5+r.Intn(36)) * time.Millisecond)
		cmd.Process.Signal(syscall.SIGKILL)
		for l := range lines {
			got = append(got, l)
		}
		cmd.Wait()
		for _, l := range got {
			switch {
			case strings.HasPrefix(l, "ack "):
				f := strings.SplitN(l, " ", 3)
				if len(f) == 3 {
					acked[f[1]] = f[2]
				}
			case strings.HasPrefix(l, "forgot "):
				forgot[strings.TrimPrefix(l, "forgot ")] = true
			case strings.HasPrefix(l, "error "):
				t.Fatalf("round %d: child: %s", round, l)
			}
		}
		// The killed child's temp files look like a running writer's for
		// ten minutes and are left alone until then: age them.
		stAgeTempFiles(t, dir, time.Hour)
		// Reopen in-process: must succeed and hold every acknowledged atom.
		s, err := memcore.Open(context.Background(), dir, memcore.Options{Config: stCrashConfig()})
		if err != nil {
			t.Fatalf("round %d: open after kill: %v", round, err)
		}
		stCheckTree(t, dir)
		live := map[string]string{}
		for _, a := range must(s.List(context.Background(), memcore.Filter{})) {
			live[a.ID] = a.Text
		}
		s.Close(context.Background())
		for id, text := range acked {
			if forgot[id] {
				if _, ok := live[id]; ok {
					t.Fatalf("round %d: forgotten atom %s is back", round, id)
				}
				continue
			}
			if got, ok := live[id]; !ok {
				t.Fatalf("round %d: acknowledged atom %s lost", round, id)
			} else if got != text {
				t.Fatalf("round %d: atom %s text %q, want %q", round, id, got, text)
			}
			chunk := stReadFile(t, filepath.Join(dir, "chunks", id+".md"))
			if string(chunk) != text {
				t.Fatalf("round %d: chunk %s = %q", round, id, chunk)
			}
		}
		if t.Failed() {
			t.FailNow()
		}
	}
	t.Logf("%d rounds, %d acknowledged atoms, %d forgotten, %s", rounds, len(acked), len(forgot), time.Since(start).Round(time.Millisecond))
	if len(acked) == 0 {
		t.Fatal("child never acknowledged anything")
	}
}

// stAgeTempFiles makes every temp file under dir look d old.
func stAgeTempFiles(t testing.TB, dir string, d time.Duration) {
	t.Helper()
	old := time.Now().Add(-d)
	filepath.WalkDir(dir, func(p string, e os.DirEntry, err error) error {
		if err == nil && strings.HasPrefix(e.Name(), ".") && strings.Contains(e.Name(), ".tmp-") {
			os.Chtimes(p, old, old)
		}
		return nil
	})
}
