//go:build !unix

package disk

import "os"

// StatDir is the state of the directory at path, without following a link
// (false when it cannot be read). There is no change time here: a chmod of
// the directory goes unseen until the next periodic full check.
func StatDir(path string) (DirState, bool) {
	fi, err := os.Lstat(path)
	if err != nil {
		return DirState{}, false
	}
	return DirState{Mtime: fi.ModTime().UnixNano()}, true
}
