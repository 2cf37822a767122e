//go:build unix

package agenthook

import (
	"os"
	"syscall"
)

// openNoBlock opens path for reading without blocking on a FIFO and
// without following a final symbolic link.
func openNoBlock(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK|syscall.O_NOFOLLOW, 0)
}
