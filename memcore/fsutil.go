package memcore

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// tmpPrefix marks files that are being written; Open sweeps leftovers.
const tmpPrefix = ".tmp-"

// writeFileAtomic writes data to path so that readers see either the old
// file or the whole new one: a temp file in the same directory created with
// O_EXCL and mode 0600, write, fsync, rename, fsync the directory.
func writeFileAtomic(path string, data []byte) error {
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
		return fmt.Errorf("create temp file for %s: %w", filepath.Base(path), err)
	}
	cleanup := func() { f.Close(); os.Remove(tmp) }
	if _, err := f.Write(data); err != nil {
		cleanup()
		return fmt.Errorf("write %s: %w", filepath.Base(path), err)
	}
	if err := f.Sync(); err != nil {
		cleanup()
		return fmt.Errorf("fsync %s: %w", filepath.Base(path), err)
	}
	if err := f.Close(); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("close %s: %w", filepath.Base(path), err)
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("rename %s: %w", filepath.Base(path), err)
	}
	return syncDir(dir)
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
