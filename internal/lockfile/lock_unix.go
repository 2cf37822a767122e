//go:build unix

package lockfile

import (
	"errors"
	"os"
	"syscall"
)

// oNoFollow makes open(2) fail on a symbolic link instead of following it.
const oNoFollow = syscall.O_NOFOLLOW

// tryLockFile takes an flock(2) without blocking: ok is false when another
// open file description holds a conflicting lock. flock locks belong to the
// open file description, so two Stores in one process exclude each other
// as two processes do.
func tryLockFile(f *os.File, exclusive bool) (bool, error) {
	how := syscall.LOCK_SH | syscall.LOCK_NB
	if exclusive {
		how = syscall.LOCK_EX | syscall.LOCK_NB
	}
	for {
		err := syscall.Flock(int(f.Fd()), how)
		switch {
		case err == nil:
			return true, nil
		case errors.Is(err, syscall.EINTR):
			continue
		case errors.Is(err, syscall.EWOULDBLOCK):
			return false, nil
		default:
			return false, err
		}
	}
}

func unlockFile(f *os.File) error {
	return syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
}
