// Package lockfile is odekmem's one lock: the store's lock file (shared
// for readers, exclusive for writers, with the write generation and the
// last exclusive holder kept in the file) and odekmem serve's one-server
// lock. It never follows a link, takes regular files only, and bounds
// every wait by a timeout and the caller's context.
package lockfile

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"
	"unicode/utf8"
)

// ErrTimeout means another process held the lock for longer than the
// timeout; the message names the lock file and its last exclusive holder.
var ErrTimeout = errors.New("timed out waiting for the store lock")

// ErrSymlink means the lock file is a symbolic link, which is never
// followed.
var ErrSymlink = errors.New("the lock file is a symbolic link")

// Lock is a lock on the store's lock file: flock(2) on unix and
// LockFileEx on Windows (fs_unix.go, fs_windows.go). Waiting for it is
// bounded by timeout and by the caller's context; the error then names the
// lock file and the process that last held it exclusively.
type Lock struct {
	f       *os.File
	path    string
	timeout time.Duration
}

// DefaultTimeout bounds the wait for another process's lock when Open
// is given no timeout.
const DefaultTimeout = 30 * time.Second

// The lock file holds the write generation (8 bytes) and then, written by
// each exclusive holder, a line naming it.
const (
	lockHolderOff = 8
	lockHolderLen = 120
)

// Open opens (creating it 0600) the lock file at path; timeout bounds
// Lock's wait (DefaultTimeout when zero or less).
func Open(path string, timeout time.Duration) (*Lock, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|oNoFollow, 0o600)
	if err != nil {
		if fi, lerr := os.Lstat(path); lerr == nil && fi.Mode()&fs.ModeSymlink != 0 {
			return nil, fmt.Errorf("open lock file: %w", ErrSymlink)
		}
		return nil, fmt.Errorf("open lock file: %w", err)
	}
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		f.Close()
		return nil, fmt.Errorf("open lock file %s: not a regular file", path)
	}
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	return &Lock{f: f, path: path, timeout: timeout}, nil
}

// Lock takes the lock (shared or exclusive), polling without blocking (a blocked flock cannot be
// cancelled) with a backoff from 1 to 20 ms, until the timeout or ctx ends.
func (l *Lock) Lock(ctx context.Context, exclusive bool) error {
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
			return fmt.Errorf("waiting for the store lock %s (held by %s): %w", l.path, l.Holder(), err)
		}
		left := time.Until(deadline)
		if left <= 0 {
			return fmt.Errorf("%w: %s is held by %s; waited %s", ErrTimeout, l.path, l.Holder(), l.timeout)
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

// TryLock takes the lock if no other process holds a conflicting one,
// without waiting; ok is false when one does.
func (l *Lock) TryLock(exclusive bool) (ok bool, err error) {
	ok, err = tryLockFile(l.f, exclusive)
	if err != nil {
		return false, fmt.Errorf("lock %s: %w", l.path, err)
	}
	if ok && exclusive {
		l.writeHolder()
	}
	return ok, nil
}

func (l *Lock) Unlock() { unlockFile(l.f) }

func (l *Lock) Close() error { return l.f.Close() }

// writeHolder records this process as the exclusive holder.
func (l *Lock) writeHolder() {
	exe, _ := os.Executable()
	line := fmt.Sprintf("pid %d (%s) since %s", os.Getpid(), filepath.Base(exe), time.Now().UTC().Format(time.RFC3339))
	var b [lockHolderLen]byte
	copy(b[:], line)
	l.f.WriteAt(b[:], lockHolderOff)
}

// Holder describes the last exclusive holder recorded in the lock file.
func (l *Lock) Holder() string {
	var b [lockHolderLen]byte
	n, _ := l.f.ReadAt(b[:], lockHolderOff)
	h := strings.TrimRight(string(b[:n]), "\x00")
	if h == "" || !utf8.ValidString(h) {
		return "another process"
	}
	return "another process (last exclusive holder: " + h + ")"
}

// Generation reads the write generation kept in the lock file: every
// writer bumps it under the exclusive lock, so another process notices a
// change even when a rewritten file happens to get the same inode, size and
// mtime as the version it read before.
func (l *Lock) Generation() uint64 {
	var b [8]byte
	if n, _ := l.f.ReadAt(b[:], 0); n != len(b) {
		return 0
	}
	return binary.LittleEndian.Uint64(b[:])
}

// Bump increments the generation; the caller holds the exclusive lock.
// It needs no fsync: after a crash every process starts by reading the
// files themselves.
func (l *Lock) Bump() uint64 {
	g := l.Generation() + 1
	var b [8]byte
	binary.LittleEndian.PutUint64(b[:], g)
	l.f.WriteAt(b[:], 0)
	return g
}
