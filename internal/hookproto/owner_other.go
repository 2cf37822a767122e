//go:build !unix

package hookproto

// CheckSocket: owners and modes do not work the unix way here; the socket
// lives in the store directory or the user's own temp directory.
func CheckSocket(sock string) error { return nil }
