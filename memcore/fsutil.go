package memcore

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"github.com/odekmem/odekmem/internal/vocab"
	"github.com/odekmem/odekmem/memcore/internal/par"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"
	"unicode/utf8"
)

// Temp files. Every file is written through a temp file beside its target
// named ".<name>.tmp-<random>", as odek names its own, then renamed. A temp
// file may belong to a writer that is still running (odek takes no lock),
// so one is never moved, deleted or reported until it is older than
// staleTempAge; odek's vector temp files ("vectors.gob.tmp" and the like)
// are odek's and never touched at all.
const staleTempAge = 10 * time.Minute

// tempName is the temp file name for target name.
func tempName(name string) string { return "." + name + ".tmp-" + vocab.NewID()[:12] }

// isTempName reports whether name is an in-flight write's temp file:
// ".<name>.tmp-<random>" (odek and odekmem), the ".tmp-<name>-<random>"
// odekmem used before, or a "<name>.tmp" of odek's vector cache.
func isTempName(name string) bool {
	if strings.HasSuffix(name, ".tmp") && len(name) > 4 {
		return true
	}
	if !strings.HasPrefix(name, ".") {
		return false
	}
	if strings.HasPrefix(name, ".tmp-") {
		return true
	}
	i := strings.LastIndex(name, ".tmp-")
	return i > 1 && !strings.ContainsAny(name[i+5:], "./")
}

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
		tmp = filepath.Join(dir, tempName(filepath.Base(path)))
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
		tmp = filepath.Join(dir, tempName(name))
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
	if err := d.Sync(); err != nil && !isSyncDirUnsupported(err) {
		return fmt.Errorf("fsync dir %s: %w", dir, err)
	}
	return nil
}

// fileLock is a lock on the store's lock file: flock(2) on unix and
// LockFileEx on Windows (fs_unix.go, fs_windows.go). Waiting for it is
// bounded by timeout and by the caller's context; the error then names the
// lock file and the process that last held it exclusively.
type fileLock struct {
	f       *os.File
	path    string
	timeout time.Duration
}

// DefaultLockTimeout bounds the wait for another process's store lock when
// Options.LockTimeout is zero.
const DefaultLockTimeout = 30 * time.Second

// The lock file holds the write generation (8 bytes) and then, written by
// each exclusive holder, a line naming it.
const (
	lockHolderOff = 8
	lockHolderLen = 120
)

func openLock(path string, timeout time.Duration) (*fileLock, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|oNoFollow, 0o600)
	if err != nil {
		if fi, lerr := os.Lstat(path); lerr == nil && fi.Mode()&fs.ModeSymlink != 0 {
			return nil, unsafeStore(path, "is a symbolic link (odekmem never follows links inside a store)", fmt.Sprintf("remove the link: rm %q", path))
		}
		return nil, fmt.Errorf("open lock file: %w", err)
	}
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		f.Close()
		return nil, fmt.Errorf("open lock file %s: not a regular file", path)
	}
	if timeout <= 0 {
		timeout = DefaultLockTimeout
	}
	return &fileLock{f: f, path: path, timeout: timeout}, nil
}

// lock takes the lock, polling without blocking (a blocked flock cannot be
// cancelled) with a backoff from 1 to 20 ms, until the timeout or ctx ends.
func (l *fileLock) lock(ctx context.Context, exclusive bool) error {
	deadline := time.Now().Add(l.timeout)
	delay := time.Millisecond
	var timer *time.Timer
	for {
		ok, err := tryLockFile(l.f, exclusive)
		if err != nil {
			return fmt.Errorf("lock store %s: %w", l.path, err)
		}
		if ok {
			if exclusive {
				l.writeHolder()
			}
			return nil
		}
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("waiting for the store lock %s (held by %s): %w", l.path, l.holder(), err)
		}
		left := time.Until(deadline)
		if left <= 0 {
			return fmt.Errorf("%w: %s is held by %s; waited %s", ErrLockTimeout, l.path, l.holder(), l.timeout)
		}
		d := min(delay, left)
		if timer == nil {
			timer = time.NewTimer(d)
			defer timer.Stop()
		} else {
			timer.Reset(d)
		}
		select {
		case <-ctx.Done():
		case <-timer.C:
		}
		delay = min(2*delay, 20*time.Millisecond)
	}
}

func (l *fileLock) unlock() { unlockFile(l.f) }

func (l *fileLock) close() error { return l.f.Close() }

// writeHolder records this process as the exclusive holder.
func (l *fileLock) writeHolder() {
	exe, _ := os.Executable()
	line := fmt.Sprintf("pid %d (%s) since %s", os.Getpid(), filepath.Base(exe), time.Now().UTC().Format(time.RFC3339))
	var b [lockHolderLen]byte
	copy(b[:], line)
	l.f.WriteAt(b[:], lockHolderOff)
}

// holder describes the last exclusive holder recorded in the lock file.
func (l *fileLock) holder() string {
	var b [lockHolderLen]byte
	n, _ := l.f.ReadAt(b[:], lockHolderOff)
	h := strings.TrimRight(string(b[:n]), "\x00")
	if h == "" || !utf8.ValidString(h) {
		return "another process"
	}
	return "another process (last exclusive holder: " + h + ")"
}

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
	case rel == "." || rel == fileLockName:
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
	case first == fileContradictions:
		return "contradictions"
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
	fi, err := os.Lstat(path)
	if err != nil {
		return fileSig{}
	}
	return fileSig{ino: inode(fi), size: fi.Size(), mtime: fi.ModTime().UnixNano(), ok: true}
}
