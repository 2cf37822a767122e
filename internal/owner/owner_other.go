//go:build !unix

// Package owner is the one check of who owns a file (see owner_unix.go).
package owner

import "io/fs"

// Foreign: ownership is not checked where files have no unix owner (ACLs
// decide access on Windows).
func Foreign(fs.FileInfo) string { return "" }

// FixHint: nothing to run where ownership is not checked.
func FixHint(path string) string { return "take ownership of " + path }
