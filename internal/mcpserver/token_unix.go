//go:build unix

package mcpserver

import (
	"syscall"
)

const oNoFollow = syscall.O_NOFOLLOW

// checkTokenMode: unix modes say who else can read the token file.
const checkTokenMode = true
