package memcore

import (
	"encoding/binary"
	"errors"
	"fmt"
	"github.com/odekmem/odekmem/memcore/internal/par"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
)

// tmpPrefix marks files that are being written; Open sweeps leftovers.
const tmpPrefix = ".tmp-"

// writeFileAtomic writes data to path so that readers see either the old
// file or the whole new one: a temp file in the same directory created with
// O_EXCL and mode 0600, write, fsync, rename, fsync the directory.
func writeFileAtomic(path string, data []byte) error {
	st, err := stageFile(path, data)
	if err != nil {
		return err
	}
	return st.commit(true)
}

// stagedFile is a temp file written and fsynced, waiting to be renamed
// over its target.
type stagedFile struct {
	tmp, path string
}

// stageFile writes data into a fresh temp file next to path (O_EXCL, mode
// 0600) and fsyncs it.
func stageFile(path string, data []byte) (*stagedFile, error) {
	dir := filepath.Dir(path)
	var f *os.File
	var tmp string
	var err error
	for i := 0; i < 10; i++ {
		tmp = filepath.Join(dir, tmpPrefix+filepath.Base(path)+"-"+NewID()[:12])
		f, err = os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if err == nil || !errors.Is(err, fs.ErrExist) {
			break
		}
	}
	if err != nil {
		return nil, fmt.Errorf("create temp file for %s: %w", filepath.Base(path), err)
	}
	cleanup := func() { f.Close(); os.Remove(tmp) }
	if _, err := f.Write(data); err != nil {
		cleanup()
		return nil, fmt.Errorf("write %s: %w", filepath.Base(path), err)
	}
	if err := f.Sync(); err != nil {
		cleanup()
		return nil, fmt.Errorf("fsync %s: %w", filepath.Base(path), err)
	}
	if err := f.Close(); err != nil {
		os.Remove(tmp)
		return nil, fmt.Errorf("close %s: %w", filepath.Base(path), err)
	}
	return &stagedFile{tmp: tmp, path: path}, nil
}

// commit renames the temp file over its target and, with syncDir, fsyncs
// the directory so the rename is durable.
func (st *stagedFile) commit(sync bool) error {
	if err := os.Rename(st.tmp, st.path); err != nil {
		os.Remove(st.tmp)
		return fmt.Errorf("rename %s: %w", filepath.Base(st.path), err)
	}
	if sync {
		return syncDir(filepath.Dir(st.path))
	}
	return nil
}

func (st *stagedFile) abort() { os.Remove(st.tmp) }

// writeFilesAtomic writes many new files of one directory atomically and
// durably, as writeFileAtomic does one by one, but with one flush for all:
// every temp file is written (O_EXCL, 0600), then syncfs(2) makes all of
// their data durable at once (one journal commit instead of one per file),
// then they are renamed and the directory is fsynced once. Where syncfs is
// unavailable each temp file is fsynced. It returns the first error; files
// already renamed stay.
func writeFilesAtomic(dir string, files map[string][]byte) error {
	type tmpFile struct {
		tmp, path string
		data      []byte
		err       error
	}
	staged := make([]tmpFile, 0, len(files))
	for name, data := range files {
		staged = append(staged, tmpFile{path: filepath.Join(dir, name), data: data})
	}
	// File creation is a synchronous metadata operation that dominates
	// small writes; several in flight overlap their latency.
	par.For(len(staged), 8, 8, func(i int) {
		t := &staged[i]
		t.tmp, t.err = writeTemp(t.path, t.data)
	})
	abort := func() {
		for _, t := range staged {
			if t.tmp != "" {
				os.Remove(t.tmp)
			}
		}
	}
	for _, t := range staged {
		if t.err != nil {
			abort()
			return t.err
		}
	}
	if err := syncFS(dir); err != nil {
		for _, t := range staged {
			if err := fsyncPath(t.tmp); err != nil {
				abort()
				return err
			}
		}
	}
	for i, t := range staged {
		if err := os.Rename(t.tmp, t.path); err != nil {
			for _, u := range staged[i:] {
				os.Remove(u.tmp)
			}
			return fmt.Errorf("rename %s: %w", filepath.Base(t.path), err)
		}
	}
	return syncDir(dir)
}

// writeTemp writes data into a fresh temp file next to path (O_EXCL, mode
// 0600) without fsync and returns its name.
func writeTemp(path string, data []byte) (string, error) {
	dir, name := filepath.Split(path)
	var f *os.File
	var tmp string
	var err error
	for i := 0; i < 10; i++ {
		tmp = filepath.Join(dir, tmpPrefix+name+"-"+NewID()[:12])
		f, err = os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if err == nil || !errors.Is(err, fs.ErrExist) {
			break
		}
	}
	if err != nil {
		return "", fmt.Errorf("create temp file for %s: %w", name, err)
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		os.Remove(tmp)
		return "", fmt.Errorf("write %s: %w", name, err)
	}
	if err := f.Close(); err != nil {
		os.Remove(tmp)
		return "", fmt.Errorf("close %s: %w", name, err)
	}
	return tmp, nil
}

// syncFS flushes the whole file system holding dir (syncfs(2)).
func syncFS(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	nr, ok := sysSyncfs[runtime.GOOS+"/"+runtime.GOARCH]
	if !ok {
		return syscall.ENOSYS
	}
	_, _, errno := syscall.Syscall(nr, d.Fd(), 0, 0)
	if errno != 0 {
		return errno
	}
	return nil
}

// sysSyncfs is syncfs(2)'s number where the syscall package lacks it; on
// any other platform writeFilesAtomic fsyncs file by file.
var sysSyncfs = map[string]uintptr{
	"linux/amd64": 306, "linux/arm64": 267, "linux/riscv64": 267, "linux/loong64": 267,
	"linux/386": 344, "linux/arm": 373, "linux/ppc64le": 348, "linux/s390x": 336,
}

func fsyncPath(p string) error {
	f, err := os.OpenFile(p, os.O_RDWR, 0)
	if err != nil {
		return err
	}
	defer f.Close()
	if err := f.Sync(); err != nil {
		return fmt.Errorf("fsync %s: %w", filepath.Base(p), err)
	}
	return nil
}

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return fmt.Errorf("open dir for fsync: %w", err)
	}
	defer d.Close()
	if err := d.Sync(); err != nil && !errors.Is(err, syscall.EINVAL) {
		return fmt.Errorf("fsync dir %s: %w", dir, err)
	}
	return nil
}

// fileLock is an flock(2) on a lock file inside the store. flock locks
// belong to the open file description, so two Stores in one process exclude
// each other as two processes do.
type fileLock struct {
	f *os.File
}

func openLock(path string) (*fileLock, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("open lock file: %w", err)
	}
	return &fileLock{f: f}, nil
}

func (l *fileLock) lock(exclusive bool) error {
	how := syscall.LOCK_SH
	if exclusive {
		how = syscall.LOCK_EX
	}
	for {
		err := syscall.Flock(int(l.f.Fd()), how)
		if errors.Is(err, syscall.EINTR) {
			continue
		}
		if err != nil {
			return fmt.Errorf("lock store: %w", err)
		}
		return nil
	}
}

func (l *fileLock) unlock() {
	syscall.Flock(int(l.f.Fd()), syscall.LOCK_UN)
}

func (l *fileLock) close() error { return l.f.Close() }

// generation reads the write generation kept in the lock file: every
// writer bumps it under the exclusive lock, so another process notices a
// change even when a rewritten file happens to get the same inode, size and
// mtime as the version it read before.
func (l *fileLock) generation() uint64 {
	var b [8]byte
	if n, _ := l.f.ReadAt(b[:], 0); n != len(b) {
		return 0
	}
	return binary.LittleEndian.Uint64(b[:])
}

// bump increments the generation; the caller holds the exclusive lock.
// It needs no fsync: after a crash every process starts by reading the
// files themselves.
func (l *fileLock) bump() uint64 {
	g := l.generation() + 1
	var b [8]byte
	binary.LittleEndian.PutUint64(b[:], g)
	l.f.WriteAt(b[:], 0)
	return g
}

// allocated is the disk space a file occupies (what du reports).
func allocated(fi fs.FileInfo) int64 {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return st.Blocks * 512
	}
	return fi.Size()
}

// dirUsage walks dir and sums allocated bytes per top-level component name.
func dirUsage(dir string) (map[string]int64, int64, error) {
	use := map[string]int64{}
	var total int64
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil
			}
			return err
		}
		fi, err := d.Info()
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil
			}
			return err
		}
		n := allocated(fi)
		rel, _ := filepath.Rel(dir, p)
		comp := componentOf(rel)
		use[comp] += n
		total += n
		return nil
	})
	return use, total, err
}

// componentOf maps a path relative to the store to its budget component.
func componentOf(rel string) string {
	first, _, _ := strings.Cut(rel, string(filepath.Separator))
	switch {
	case rel == ".":
		return "directory"
	case first == "chunks":
		return "chunks"
	case first == "corrupt":
		return "corrupt"
	case strings.HasPrefix(first, "vectors"):
		return "vectors"
	case first == fileAtoms:
		return "atoms"
	case first == fileQuarantine:
		return "quarantine"
	case first == fileUserModel:
		return "user_model"
	case strings.HasPrefix(first, "associations"):
		return "associations"
	default:
		return "other"
	}
}

// fileSig identifies one version of a file cheaply.
type fileSig struct {
	ino   uint64
	size  int64
	mtime int64
	ok    bool
}

func statSig(path string) fileSig {
	fi, err := os.Stat(path)
	if err != nil {
		return fileSig{}
	}
	sig := fileSig{size: fi.Size(), mtime: fi.ModTime().UnixNano(), ok: true}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		sig.ino = st.Ino
	}
	return sig
}
