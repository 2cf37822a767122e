//go:build unix

package mcpserver

import (
	"fmt"
	"io/fs"
	"os"
	"syscall"
)

const oNoFollow = syscall.O_NOFOLLOW

// checkTokenMode: unix modes say who else can read the token file.
const checkTokenMode = true

// foreignOwner names the owner of fi when it is not this process's user.
func foreignOwner(fi fs.FileInfo) string {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok || int(st.Uid) == os.Geteuid() {
		return ""
	}
	return fmt.Sprintf("uid %d", st.Uid)
}
