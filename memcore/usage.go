package memcore

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"
	"time"

	"github.com/odekmem/odekmem/internal/disk"
	"github.com/odekmem/odekmem/internal/lockfile"
)

// dirUsage walks dir and sums allocated bytes per top-level component name.
func dirUsage(dir string) (map[string]int64, int64, error) {
	use := map[string]int64{}
	var total int64
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil
			}
			return err
		}
		fi, err := d.Info()
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil
			}
			return err
		}
		n := disk.Allocated(fi)
		rel, _ := filepath.Rel(dir, p)
		comp := componentOf(rel)
		use[comp] += n
		total += n
		return nil
	})
	return use, total, err
}

// componentOf maps a path relative to the store to its budget component.
func componentOf(rel string) string {
	first, _, _ := strings.Cut(rel, string(filepath.Separator))
	switch {
	case rel == "." || rel == fileLockName:
		return "directory"
	case first == "chunks":
		return "chunks"
	case first == "corrupt":
		return "corrupt"
	case strings.HasPrefix(first, "vectors"):
		return "vectors"
	case first == fileAtoms:
		return "atoms"
	case first == fileQuarantine:
		return "quarantine"
	case first == fileUserModel:
		return "user_model"
	case strings.HasPrefix(first, "associations"):
		return "associations"
	case first == fileContradictions:
		return "contradictions"
	case first == fileLane:
		return "lane"
	default:
		return "other"
	}
}

// openLock opens the store's lock file; a symbolic link there is an unsafe
// store, never followed.
func openLock(path string, timeout time.Duration) (*lockfile.Lock, error) {
	l, err := lockfile.Open(path, timeout)
	if errors.Is(err, lockfile.ErrSymlink) {
		return nil, unsafeStore(path, "is a symbolic link (odekmem never follows links inside a store)", fmt.Sprintf("remove the link: rm %q", path))
	}
	return l, err
}
