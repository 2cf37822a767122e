package disk

import (
	"io/fs"
	"os"
)

// Sig identifies one version of a file cheaply.
type Sig struct {
	ino   uint64
	size  int64
	mtime int64
	ok    bool
}

// StatSig is the signature of the file at path; the zero Sig when it is
// missing.
func StatSig(path string) Sig {
	fi, err := os.Lstat(path)
	if err != nil {
		return Sig{}
	}
	return sigOf(fi)
}

func sigOf(fi fs.FileInfo) Sig {
	return Sig{ino: Inode(fi), size: fi.Size(), mtime: fi.ModTime().UnixNano(), ok: true}
}
