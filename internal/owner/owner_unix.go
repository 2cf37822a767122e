//go:build unix

// Package owner is the one check of who owns a file: the store, the
// socket directory of odekmem serve, the MCP server's token. Whoever owns
// a path odekmem reads can put words there, so a path of another user is
// refused, with its owner named.
package owner

import (
	"fmt"
	"io/fs"
	"os"
	"sync"
	"syscall"
)

// Foreign describes fi's owner when it is not the user this process runs
// as (its effective uid), or returns "" when the file is this user's.
func Foreign(fi fs.FileInfo) string {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok || int(st.Uid) == euid() {
		return ""
	}
	return fmt.Sprintf("uid %d (this process runs as uid %d)", st.Uid, euid())
}

// euid is the effective uid, asked once: odekmem never changes it, and a
// full check asks for every chunk.
var euid = sync.OnceValue(os.Geteuid)

// FixHint is the command that gives a path back to the current user.
func FixHint(path string) string {
	return fmt.Sprintf("check who put it there, then run: sudo chown -R %d %q", os.Geteuid(), path)
}
