//go:build !linux && !darwin && !freebsd

package disk

import "os"

// BlockSize is the allocation unit of the file system holding dir. This
// OS has no statfs in the standard library: 4 KiB, the default cluster of
// NTFS, APFS, ext4 and most others, is assumed.
func BlockSize(dir string) (int64, error) {
	if _, err := os.Stat(dir); err != nil {
		return 0, err
	}
	return DefaultBlock, nil
}
