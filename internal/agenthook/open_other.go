//go:build !unix

package agenthook

import "os"

// openNoBlock opens path for reading (no FIFOs to block on here).
func openNoBlock(path string) (*os.File, error) { return os.Open(path) }
