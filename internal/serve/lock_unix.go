//go:build unix

package serve

import (
	"io/fs"

	"github.com/odekmem/odekmem/internal/lockfile"
	"github.com/odekmem/odekmem/internal/owner"
)

// lockFile takes serve.lock exclusively without waiting, through the
// store's one lock (never following a link, a regular file only):
// ErrRunning when another server holds it.
func lockFile(path string) (func(), error) {
	l, err := lockfile.Open(path, 0)
	if err != nil {
		return nil, err
	}
	ok, err := l.TryLock(true)
	if err != nil || !ok {
		l.Close()
		if err == nil {
			err = ErrRunning
		}
		return nil, err
	}
	return func() { l.Unlock(); l.Close() }, nil
}

func ownedByMe(fi fs.FileInfo) bool { return owner.Foreign(fi) == "" }
