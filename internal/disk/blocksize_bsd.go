//go:build darwin || freebsd

package disk

import "syscall"

// BlockSize is the allocation unit of the file system holding dir
// (f_bsize, the fundamental block size, on the BSDs and macOS).
func BlockSize(dir string) (int64, error) {
	var st syscall.Statfs_t
	if err := syscall.Statfs(dir, &st); err != nil {
		return 0, err
	}
	return saneBlock(int64(st.Bsize)), nil
}
