//go:build windows

package disk

import (
	"errors"
	"io/fs"
)

// ONoFollow: Windows has no O_NOFOLLOW; store paths are checked with Lstat
// before they are opened (see memcore's openNoFollow).
const ONoFollow = 0

// Allocated is the file's size: NTFS allocation is not exposed by os.Stat.
func Allocated(fi fs.FileInfo) int64 { return fi.Size() }

// Inode is unknown on Windows; file signatures use size and mtime.
func Inode(fs.FileInfo) uint64 { return 0 }

// syncFS is not available: WriteFiles fsyncs file by file.
func syncFS(string) error { return errors.ErrUnsupported }

// isSyncDirUnsupported: FlushFileBuffers on a directory handle fails on
// Windows; renames there are durable once MoveFileEx returns.
func isSyncDirUnsupported(err error) bool { return true }
