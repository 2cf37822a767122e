//go:build unix

package memcore_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/odekmem/odekmem/memcore"
)

const stLockEnv = "ODEKMEM_ST_LOCK_DIR"

// TestLockHolderChild is the child of the lock tests: it opens the store
// (recording itself as the lock's last holder, as every odekmem writer
// does), then holds the lock file exclusively until its stdin closes.
func TestLockHolderChild(t *testing.T) {
	dir := stChildDir(t, stLockEnv)
	s, err := memcore.Open(context.Background(), dir, memcore.Options{})
	stChildCheck(err)
	defer s.Close(context.Background())
	f, err := os.OpenFile(filepath.Join(dir, ".lock"), os.O_RDWR, 0)
	stChildCheck(err)
	stChildCheck(syscall.Flock(int(f.Fd()), syscall.LOCK_EX))
	stChildHold()
}

// stChildDir is the store directory a lock-holding child test works on
// (stHoldInChild sets env); run directly, the child test skips.
func stChildDir(t *testing.T, env string) string {
	dir := os.Getenv(env)
	if dir == "" {
		t.Skip("child process of the lock tests (stHoldInChild)")
	}
	return dir
}

// stChildHold tells the parent that this child holds the lock and keeps
// it until the parent closes the child's stdin.
func stChildHold() {
	fmt.Println("locked", os.Getpid())
	bufio.NewReader(os.Stdin).ReadString('\n')
}

// stChildCheck ends a lock-holding child process that failed, telling the
// parent why (stHoldInChild reads it).
func stChildCheck(err error) {
	if err != nil {
		fmt.Println("error", err)
		os.Exit(3)
	}
}

// stHoldLock starts a process holding the store's lock; release ends it.
func stHoldLock(t *testing.T, dir string) (pid int, release func()) {
	t.Helper()
	return stHoldInChild(t, "TestLockHolderChild", stLockEnv, dir)
}

// stHoldInChild runs the test named child in a new process of this test
// binary, with env set to dir, and waits until the child prints
// "locked PID" (it holds the lock) or fails. release (also run at cleanup)
// closes the child's stdin, which ends it, and waits for it.
func stHoldInChild(t *testing.T, child, env, dir string) (pid int, release func()) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^"+child+"$", "-test.count=1")
	cmd.Env = append(os.Environ(), env+"="+dir)
	in, _ := cmd.StdinPipe()
	out, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(out)
	for sc.Scan() {
		if f := strings.Fields(sc.Text()); len(f) == 2 && f[0] == "locked" {
			pid, _ = strconv.Atoi(f[1])
			break
		} else if len(f) > 0 && f[0] == "error" {
			t.Fatalf("%s: %s", child, sc.Text())
		}
	}
	if pid == 0 {
		cmd.Process.Kill()
		cmd.Wait()
		t.Fatalf("%s never took the lock", child)
	}
	done := false
	release = func() {
		if !done {
			done = true
			in.Close()
			cmd.Wait()
		}
	}
	t.Cleanup(release)
	return pid, release
}

// TestLockTimeoutNamesTheHolder: a write waiting for a lock another process
// holds gives up after LockTimeout with an error naming the lock file and
// the process holding it, and works once the lock is free.
func TestLockTimeoutNamesTheHolder(t *testing.T) {
	dir := stDir(t)
	s := stOpen(t, dir, memcore.Options{LockTimeout: 300 * time.Millisecond})
	pid, release := stHoldLock(t, dir)
	start := time.Now()
	_, err := s.Add(context.Background(), memcore.AddRequest{Text: "must not wait forever", Source: memcore.SourceUserApproved})
	if !errors.Is(err, memcore.ErrLockTimeout) {
		t.Fatalf("add while another process holds the lock: %v", err)
	}
	if !strings.Contains(err.Error(), filepath.Join(dir, ".lock")) || !strings.Contains(err.Error(), fmt.Sprintf("pid %d ", pid)) {
		t.Fatalf("error does not name the lock file and pid %d: %v", pid, err)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Fatalf("waited %s for a 300ms timeout", d)
	}
	if _, err := memcore.Open(context.Background(), dir, memcore.Options{LockTimeout: 100 * time.Millisecond}); !errors.Is(err, memcore.ErrLockTimeout) {
		t.Fatalf("open while locked: %v", err)
	}
	release()
	stAdd(t, s, memcore.AddRequest{Text: "written once the lock is free", Source: memcore.SourceUserApproved})
}

// TestLockWaitEndsWithContext: cancelling the caller's context ends the
// wait for the lock with the context's error, long before the timeout.
func TestLockWaitEndsWithContext(t *testing.T) {
	dir := stDir(t)
	s := stOpen(t, dir, memcore.Options{LockTimeout: time.Hour})
	stHoldLock(t, dir)
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := s.Add(ctx, memcore.AddRequest{Text: "cancelled while waiting", Source: memcore.SourceUserApproved})
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("add with an expiring context: %v", err)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Fatalf("waited %s", d)
	}
	if len(must(s.List(context.Background(), memcore.Filter{}))) != 0 {
		t.Fatal("a cancelled add was stored")
	}
}
