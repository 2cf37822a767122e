//go:build !unix

package hookproto

import "os"

// CheckSocket: owners and modes do not work the unix way here; the socket
// lives in the store directory or the user's own temp directory.
func CheckSocket(sock string) error { return nil }

// openLog opens the hook log for appending, creating it 0600 (AppendLog
// checks it is a regular file).
func openLog(p string) (*os.File, error) {
	return os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
}
