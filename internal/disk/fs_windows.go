//go:build windows

package disk

import (
	"errors"
	"io/fs"
	"os"

	"golang.org/x/sys/windows"
)

// ONoFollow: Windows has no O_NOFOLLOW; store paths are checked with Lstat
// before they are opened (see memcore's openNoFollow).
const ONoFollow = 0

// The lock is one byte far beyond the data of the lock file: LockFileEx
// locks are mandatory on Windows, and the generation and holder kept at the
// start of the file must stay readable while another process holds it.
const (
	lockOffsetLow  = 0xFFFFFFFE
	lockOffsetHigh = 0x7FFFFFFF
)

// tryLockFile takes a LockFileEx lock without blocking: ok is false when
// another handle holds a conflicting lock.
func tryLockFile(f *os.File, exclusive bool) (bool, error) {
	flags := uint32(windows.LOCKFILE_FAIL_IMMEDIATELY)
	if exclusive {
		flags |= windows.LOCKFILE_EXCLUSIVE_LOCK
	}
	ol := &windows.Overlapped{Offset: lockOffsetLow, OffsetHigh: lockOffsetHigh}
	err := windows.LockFileEx(windows.Handle(f.Fd()), flags, 0, 1, 0, ol)
	switch {
	case err == nil:
		return true, nil
	case errors.Is(err, windows.ERROR_LOCK_VIOLATION), errors.Is(err, windows.ERROR_IO_PENDING):
		return false, nil
	default:
		return false, err
	}
}

func unlockFile(f *os.File) error {
	ol := &windows.Overlapped{Offset: lockOffsetLow, OffsetHigh: lockOffsetHigh}
	return windows.UnlockFileEx(windows.Handle(f.Fd()), 0, 1, 0, ol)
}

// Allocated is the file's size: NTFS allocation is not exposed by os.Stat.
func Allocated(fi fs.FileInfo) int64 { return fi.Size() }

// Inode is unknown on Windows; file signatures use size and mtime.
func Inode(fs.FileInfo) uint64 { return 0 }

// syncFS is not available: WriteFiles fsyncs file by file.
func syncFS(string) error { return errors.ErrUnsupported }

// isSyncDirUnsupported: FlushFileBuffers on a directory handle fails on
// Windows; renames there are durable once MoveFileEx returns.
func isSyncDirUnsupported(err error) bool { return true }
