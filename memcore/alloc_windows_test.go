//go:build windows

package memcore_test

import "io/fs"

// stAllocated is the file's size: NTFS allocation is not exposed by os.Stat.
func stAllocated(fi fs.FileInfo) int64 { return fi.Size() }
