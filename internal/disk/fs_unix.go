//go:build unix

package disk

import (
	"errors"
	"io/fs"
	"os"
	"runtime"
	"syscall"
)

// ONoFollow makes open(2) fail on a symbolic link instead of following it.
const ONoFollow = syscall.O_NOFOLLOW

// Allocated is the disk space a file occupies (what du reports).
func Allocated(fi fs.FileInfo) int64 {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return int64(st.Blocks) * 512
	}
	return fi.Size()
}

// Inode is the file's inode number (0 when unknown).
func Inode(fi fs.FileInfo) uint64 {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Ino)
	}
	return 0
}

// syncFS flushes the whole file system holding dir (syncfs(2)) where the
// platform has it.
func syncFS(dir string) error {
	nr, ok := sysSyncfs[runtime.GOOS+"/"+runtime.GOARCH]
	if !ok {
		return errors.ErrUnsupported
	}
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	_, _, errno := syscall.Syscall(nr, d.Fd(), 0, 0)
	if errno != 0 {
		return errno
	}
	return nil
}

// sysSyncfs is syncfs(2)'s number where the syscall package lacks it; on
// any other platform WriteFiles fsyncs file by file.
var sysSyncfs = map[string]uintptr{
	"linux/amd64": 306, "linux/arm64": 267, "linux/riscv64": 267, "linux/loong64": 267,
	"linux/386": 344, "linux/arm": 373, "linux/ppc64le": 348, "linux/s390x": 336,
}

// isSyncDirUnsupported reports an fsync error on a directory that only
// means the platform cannot sync directories.
func isSyncDirUnsupported(err error) bool { return errors.Is(err, syscall.EINVAL) }
