package disk

import "syscall"

// BlockSize is the allocation unit of the file system holding dir: the
// fragment size, or the block size when the file system reports none.
func BlockSize(dir string) (int64, error) {
	var st syscall.Statfs_t
	if err := syscall.Statfs(dir, &st); err != nil {
		return 0, err
	}
	n := int64(st.Frsize)
	if n <= 0 {
		n = int64(st.Bsize)
	}
	return saneBlock(n), nil
}
