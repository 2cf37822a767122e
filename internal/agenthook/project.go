package agenthook

import (
	"os"
	"path/filepath"
)

// ProjectRoot maps a working directory onto the project an atom records:
// the root of the git work tree containing dir (the nearest ancestor with
// a .git entry, file or directory), else dir itself, cleaned and absolute.
// "" stays "".
func ProjectRoot(dir string) string {
	if dir == "" {
		return ""
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return filepath.Clean(dir)
	}
	for d := abs; ; {
		if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil {
			return d
		}
		parent := filepath.Dir(d)
		if parent == d {
			return abs
		}
		d = parent
	}
}
