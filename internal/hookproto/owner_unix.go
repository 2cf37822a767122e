//go:build unix

package hookproto

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"

	"github.com/odekmem/odekmem/internal/owner"
)

func ownedByMe(fi fs.FileInfo) bool { return owner.Foreign(fi) == "" }

// CheckSocket reports why the hook must not talk to a server at sock:
// whoever can write the socket's directory can put their own server there,
// read the person's prompt and answer with text the agent adds to its
// context. The directory must be this user's and writable by no one else,
// and a socket already there must be this user's. nil: safe (or nothing
// there yet).
func CheckSocket(sock string) error {
	dir := filepath.Dir(sock)
	fi, err := os.Lstat(dir)
	if err != nil {
		return nil // nothing there: nothing to talk to
	}
	if !fi.IsDir() || !ownedByMe(fi) || fi.Mode().Perm()&0o022 != 0 {
		return fmt.Errorf("socket directory %s is not private to this user (mode %04o); not using odekmem serve (run chmod 700 on it, or remove it if it is not yours)", dir, fi.Mode().Perm())
	}
	si, err := os.Lstat(sock)
	if err != nil {
		return nil
	}
	if si.Mode()&fs.ModeSocket == 0 || !ownedByMe(si) {
		return fmt.Errorf("%s is not a socket of this user; not using odekmem serve", sock)
	}
	return nil
}

// openLog opens the hook log for appending, creating it 0600, never
// through a symbolic link and never blocking on a FIFO.
func openLog(p string) (*os.File, error) {
	return os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_APPEND|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0o600)
}
