//go:build unix

package memcore_test

import (
	"io/fs"
	"syscall"
)

// stAllocated is the disk space a file occupies (what du reports).
func stAllocated(fi fs.FileInfo) int64 {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return int64(st.Blocks) * 512
	}
	return fi.Size()
}
