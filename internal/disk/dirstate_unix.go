//go:build unix

package disk

import "golang.org/x/sys/unix"

// StatDir is the state of the directory at path, without following a link
// (false when it cannot be read).
func StatDir(path string) (DirState, bool) {
	var st unix.Stat_t
	if err := unix.Lstat(path, &st); err != nil {
		return DirState{}, false
	}
	return DirState{Ino: uint64(st.Ino), Mtime: st.Mtim.Nano(), Ctime: st.Ctim.Nano()}, true
}
