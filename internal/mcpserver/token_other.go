//go:build !unix

package mcpserver

import "io/fs"

const oNoFollow = 0

// checkTokenMode: Windows file modes do not say who can read a file.
const checkTokenMode = false

// foreignOwner is not checked where files have no unix owner.
func foreignOwner(fs.FileInfo) string { return "" }
