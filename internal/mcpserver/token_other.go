//go:build !unix

package mcpserver

const oNoFollow = 0

// checkTokenMode: Windows file modes do not say who can read a file.
const checkTokenMode = false
