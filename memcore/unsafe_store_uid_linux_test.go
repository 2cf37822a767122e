//go:build linux

package memcore_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"testing"

	"github.com/odekmem/odekmem/memcore"
)

// Issue 10 item 11, the failed-chmod branch for real. As root chmod never
// fails, so these tests open the store where it does: in a child process
// running as another user (nobody, uid 65534) against a store root owns,
// and against a store whose chmod the kernel refuses (an immutable
// directory or file, chattr +i). The store must refuse to open with an
// error that says what to run, must not write into the store it refuses,
// and must never claim a change that did not happen.

const (
	uidNobody = 65534
	envChild  = "ODEKMEM_TEST_UNSAFE_CHILD"
)

// childResult is what the child process reports about its Open.
type childResult struct {
	Err      string   `json:"err"`
	Unsafe   bool     `json:"unsafe"`
	Problems []string `json:"problems"`
	Atoms    int      `json:"atoms"`
}

// TestUnsafeStoreChildProcess is not a test on its own: it is the child
// the tests below start under another uid. It opens the store named by
// the environment and prints what happened.
func TestUnsafeStoreChildProcess(t *testing.T) {
	dir := os.Getenv(envChild)
	if dir == "" {
		t.Skip("the child half of the uid tests; runs only when they start it")
	}
	var res childResult
	s, err := memcore.Open(context.Background(), dir, memcore.Options{})
	if err != nil {
		res.Err, res.Unsafe = err.Error(), errors.Is(err, memcore.ErrUnsafeStore)
	} else {
		res.Atoms = must(s.Stats(context.Background())).Live
		for _, p := range s.Problems() {
			res.Problems = append(res.Problems, p.String())
		}
		s.Close(context.Background())
	}
	b, _ := json.Marshal(res)
	os.Stdout.Write(append([]byte("\nCHILD-RESULT "), append(b, '\n')...))
}

// uidNeedRoot skips unless the test can hand files to other users.
func uidNeedRoot(t *testing.T) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("needs root: the test gives the store to root and runs odekmem as uid 65534, which only root can arrange")
	}
}

// uidBinary copies the test binary where uid 65534 can run it (the go
// build cache directory is private to root).
func uidBinary(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "odekmem-uid-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	os.Chmod(dir, 0o755)
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	in, err := os.Open(self)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	bin := filepath.Join(dir, "memcore.test")
	out, err := os.OpenFile(bin, os.O_CREATE|os.O_WRONLY|os.O_EXCL, 0o755)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(out, in); err != nil {
		t.Fatal(err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
	return bin
}

// uidPublicDir is a directory every user can reach, for stores the child
// opens.
func uidPublicDir(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "odekmem-uid-store-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		exec.Command("chattr", "-R", "-i", dir).Run()
		os.RemoveAll(dir)
	})
	os.Chmod(dir, 0o755)
	return dir
}

// runAsNobody opens dir in a child process running as uid/gid 65534.
func runAsNobody(t *testing.T, bin, dir string) childResult {
	t.Helper()
	cmd := exec.Command(bin, "-test.run=^TestUnsafeStoreChildProcess$", "-test.count=1")
	cmd.Env = append(os.Environ(), envChild+"="+dir, "HOME=/nonexistent", "GOCOVERDIR=")
	cmd.Dir = "/"
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: uidNobody, Gid: uidNobody}}
	out, err := cmd.CombinedOutput()
	if err != nil && len(out) == 0 {
		if errors.Is(err, syscall.EPERM) || errors.Is(err, os.ErrPermission) {
			t.Skipf("setuid to %d is not permitted here: %v", uidNobody, err)
		}
		t.Fatalf("child: %v", err)
	}
	i := strings.LastIndex(string(out), "CHILD-RESULT ")
	if i < 0 {
		if strings.Contains(string(out), "permission denied") || strings.Contains(string(out), "operation not permitted") {
			t.Skipf("the child could not run as uid %d: %s", uidNobody, out)
		}
		t.Fatalf("child printed no result (%v):\n%s", err, out)
	}
	var res childResult
	line := strings.SplitN(string(out[i+len("CHILD-RESULT "):]), "\n", 2)[0]
	if err := json.Unmarshal([]byte(line), &res); err != nil {
		t.Fatalf("child result %q: %v", line, err)
	}
	return res
}

// listTree lists every path under dir with its mode and owner.
func listTree(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
		if err != nil {
			return nil
		}
		st := fi.Sys().(*syscall.Stat_t)
		rel, _ := filepath.Rel(dir, p)
		out = append(out, rel+" "+fi.Mode().String()+" "+uidStr(int(st.Uid)))
		return nil
	})
	sort.Strings(out)
	return out
}

func uidStr(n int) string {
	b, _ := json.Marshal(n)
	return string(b)
}

// wantRefused checks a refusal: ErrUnsafeStore, the path, a command to
// run, and no claim of a change.
func wantRefused(t *testing.T, res childResult, path string, run ...string) {
	t.Helper()
	if !res.Unsafe {
		t.Fatalf("the store was not refused as unsafe: %+v", res)
	}
	if !strings.Contains(res.Err, path) {
		t.Fatalf("the error does not name %s: %s", path, res.Err)
	}
	for _, r := range run {
		if !strings.Contains(res.Err, r) {
			t.Fatalf("the error does not say what to run (%q): %s", r, res.Err)
		}
	}
	if strings.Contains(res.Err, "tightened to") {
		t.Fatalf("the refusal claims a change: %s", res.Err)
	}
}

// TestAttackWorldWritableStoreOwnedByRootOpenedByAnotherUser: the store
// directory belongs to root with mode 0777 and holds a forged user_said
// atom; odekmem runs as uid 65534, so the chmod would fail. It refuses,
// says what to run, and leaves the directory as it was: no lock file, no
// chunks directory, no claim of a tightening.
func TestAttackWorldWritableStoreOwnedByRootOpenedByAnotherUser(t *testing.T) {
	uidNeedRoot(t)
	bin := uidBinary(t)
	dir := uidPlantedStore(t)
	os.Chmod(dir, 0o777)
	before := listTree(t, dir)
	res := runAsNobody(t, bin, dir)
	wantRefused(t, res, dir, "run: ")
	wantTreeUnchanged(t, dir, before)
}

// TestAttackStoreFileOwnedByRootInStoreOfAnotherUser: the person (uid
// 65534) owns the store, but atoms.json in it belongs to root and is
// group- and world-writable. Refused, naming the file and the fix.
func TestAttackStoreFileOwnedByRootInStoreOfAnotherUser(t *testing.T) {
	bin, dir := uidNobodysStore(t)
	atoms := filepath.Join(dir, "atoms.json")
	os.Chown(atoms, 0, 0)
	os.Chmod(atoms, 0o666)
	res := runAsNobody(t, bin, dir)
	wantRefused(t, res, atoms, "chown")
	fi, _ := os.Stat(atoms)
	if fi.Mode().Perm() != 0o666 {
		t.Fatalf("mode of the refused file changed to %v", fi.Mode())
	}
}

// TestAttackGroupWritableStoreFileOfThePersonIsTightened: the file is the
// person's own (uid 65534) and group-writable; as that user the chmod
// works, and the store reports exactly that.
func TestAttackGroupWritableStoreFileOfThePersonIsTightened(t *testing.T) {
	bin, dir := uidNobodysStore(t)
	atoms := filepath.Join(dir, "atoms.json")
	os.Chmod(atoms, 0o660)
	res := runAsNobody(t, bin, dir)
	if res.Err != "" || res.Atoms != 1 {
		t.Fatalf("the person's own store did not open: %+v", res)
	}
	fi, _ := os.Stat(atoms)
	if fi.Mode().Perm() != 0o600 {
		t.Fatalf("atoms.json mode %v after open", fi.Mode())
	}
	claimed := false
	for _, p := range res.Problems {
		claimed = claimed || strings.Contains(p, "atoms.json") && strings.Contains(p, "tightened to 0600")
	}
	if !claimed {
		t.Fatalf("the tightening was not reported: %v", res.Problems)
	}
}

// uidPlantedStore is a store directory (mode 0700) in a directory every
// user can reach, holding a forged trusted atom.
func uidPlantedStore(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(uidPublicDir(t), "extended")
	os.Mkdir(dir, 0o700)
	stPlantTrusted(t, dir)
	return dir
}

// uidNobodysStore is a planted store that belongs to uid 65534, and the
// binary to open it as that user (root only).
func uidNobodysStore(t *testing.T) (bin, dir string) {
	t.Helper()
	uidNeedRoot(t)
	bin = uidBinary(t)
	dir = uidPlantedStore(t)
	uidChownTree(dir, uidNobody)
	return bin, dir
}

// uidChownTree gives dir and everything in it to uid.
func uidChownTree(dir string, uid int) {
	filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
		if err == nil {
			os.Lchown(p, uid, uid)
		}
		return nil
	})
}

// wantTreeUnchanged fails unless dir holds exactly the entries before
// listed (listTree).
func wantTreeUnchanged(t *testing.T, dir string, before []string) {
	t.Helper()
	if after := listTree(t, dir); strings.Join(after, "\n") != strings.Join(before, "\n") {
		t.Fatalf("the refused store changed:\nbefore %v\nafter  %v", before, after)
	}
}

// openInProcess opens dir in this process, which must be refused; what
// names the store in the failure. It returns the refusal as a child would
// report it, for wantRefused.
func openInProcess(t *testing.T, dir, what string) childResult {
	t.Helper()
	s, err := memcore.Open(context.Background(), dir, memcore.Options{})
	if err == nil {
		n := must(s.Stats(context.Background())).Live
		s.Close(context.Background())
		t.Fatalf("%s was used (%d atoms)", what, n)
	}
	return childResult{Err: err.Error(), Unsafe: errors.Is(err, memcore.ErrUnsafeStore)}
}

// chattrImmutable makes p immutable, so that even its owner's chmod
// fails; it skips when the file system or the container does not allow it.
func chattrImmutable(t *testing.T, p string) {
	t.Helper()
	if _, err := exec.LookPath("chattr"); err != nil {
		t.Skip("chattr is not installed: cannot make a chmod fail for the owner")
	}
	if out, err := exec.Command("chattr", "+i", p).CombinedOutput(); err != nil {
		t.Skipf("chattr +i %s: %v %s (the file system or the container does not allow immutable files)", p, err, out)
	}
	t.Cleanup(func() { exec.Command("chattr", "-i", p).Run() })
}

// TestAttackFailedChmodOfWorldWritableStoreDirIsRefused: the directory is
// the person's own and mode 0777, and its chmod fails (immutable). The
// store refuses with "run: chmod 700 …" and does not claim it tightened
// anything; the directory keeps its mode and gains no file.
func TestAttackFailedChmodOfWorldWritableStoreDirIsRefused(t *testing.T) {
	dir := uidPlantedStore(t)
	os.Chmod(dir, 0o777)
	chattrImmutable(t, dir)
	before := listTree(t, dir)
	wantRefused(t, openInProcess(t, dir, "a world-writable store whose chmod failed"), dir, "chmod 700")
	wantTreeUnchanged(t, dir, before)
}

// TestAttackFailedChmodOfGroupWritableStoreFileIsRefused: the same for a
// store file: atoms.json is group-writable and cannot be tightened.
func TestAttackFailedChmodOfGroupWritableStoreFileIsRefused(t *testing.T) {
	dir := uidPlantedStore(t)
	atoms := filepath.Join(dir, "atoms.json")
	os.Chmod(atoms, 0o660)
	chattrImmutable(t, atoms)
	wantRefused(t, openInProcess(t, dir, "a group-writable store file whose chmod failed"), atoms, "chmod 600")
	fi, _ := os.Stat(atoms)
	if fi.Mode().Perm() != 0o660 {
		t.Fatalf("mode changed to %v", fi.Mode())
	}
}
