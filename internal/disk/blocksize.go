package disk

// DefaultBlock is the allocation unit assumed when the file system's
// cannot be measured.
const DefaultBlock = 4096

// saneBlock keeps a measured block size within what file systems use (512
// bytes to 1 MiB); anything else means a misreport, and the default is
// used instead.
func saneBlock(n int64) int64 {
	if n < 512 || n > 1<<20 {
		return DefaultBlock
	}
	return n
}
