package disk

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/odekmem/odekmem/internal/owner"
)

// Open-time checks and repair of a store directory: who owns it, links,
// modes and leftover temp files. Another program (odek) writes the same
// directory without a lock, so everything here leaves alone what may belong
// to a writer that is still running and every file the store does not own.

// UnsafeError is a store path the layer refuses to use: why, and the
// command that fixes it.
type UnsafeError struct {
	Path, Why, Fix string
}

func (e *UnsafeError) Error() string { return e.Path + " " + e.Why + ": " + e.Fix }

func unsafePath(path, why, fix string) error {
	return &UnsafeError{Path: path, Why: why, Fix: fix}
}

// CheckPath refuses a store path that is a symbolic link or belongs to
// another user, and tightens its mode to want; a path that stays writable
// by group or others after a failed chmod is refused. It reports only
// changes that happened.
func (d *Dir) CheckPath(p string, fi fs.FileInfo, want fs.FileMode) error {
	return d.checkPath(p, fi, want, func() error { return os.Chmod(p, want) }, func() (fs.FileInfo, error) { return os.Lstat(p) })
}

// checkPath is CheckPath with the chmod and the stat after it given: by
// path for a swept file, on the open descriptor for a file being read.
func (d *Dir) checkPath(p string, fi fs.FileInfo, want fs.FileMode, chmod func() error, restat func() (fs.FileInfo, error)) error {
	if fi.Mode()&fs.ModeSymlink != 0 {
		return unsafePath(p, "is a symbolic link (odekmem never follows links inside a store)",
			fmt.Sprintf("remove the link (rm %q) or put the real file or directory there", p))
	}
	if who := owner.Foreign(fi); who != "" {
		return unsafePath(p, "belongs to "+who, owner.FixHint(p))
	}
	perm := fi.Mode().Perm()
	if perm == want {
		return nil
	}
	rel, _ := filepath.Rel(d.Path, p)
	if rel == "." {
		rel = d.Path
	}
	problem := fmt.Sprintf("mode %04o", perm)
	cerr := chmod()
	after, serr := restat()
	why := "mode unchanged"
	if cerr != nil {
		why = cerr.Error()
	}
	switch {
	case serr == nil && after.Mode().Perm() == want:
		d.report(rel, problem, fmt.Sprintf("tightened to %04o", want))
	case serr == nil && after.Mode().Perm()&0o022 == 0:
		d.report(rel, problem, fmt.Sprintf("could not tighten (%s); run: chmod %o %q", why, want, p))
	default:
		return unsafePath(p, fmt.Sprintf("is writable by other users (%s) and could not be tightened (%s)", problem, why),
			fmt.Sprintf("run: chmod %o %q", want, p))
	}
	return nil
}

// CheckDir checks one of the store's directories (follow: the path itself
// may be a link the person gave); a missing optional directory is fine.
func (d *Dir) CheckDir(p string, follow, optional bool) error {
	var fi fs.FileInfo
	var err error
	if follow {
		fi, err = os.Stat(p)
	} else {
		fi, err = os.Lstat(p)
	}
	if errors.Is(err, fs.ErrNotExist) && optional {
		return nil
	}
	if err != nil {
		return fmt.Errorf("store %s: %w", p, err)
	}
	if fi.Mode()&fs.ModeSymlink == 0 && !fi.IsDir() {
		return unsafePath(p, "is not a directory", fmt.Sprintf("move it away (mv %q %q.bak)", p, p))
	}
	return d.CheckPath(p, fi, 0o700)
}

// Listing is what a sweep found in a sub-directory: every file name but
// in-flight temp files, and the allocated size of the regular files.
type Listing struct {
	Names map[string]bool
	Sizes map[string]int64
}

// Sweep checks the store before a repairing load: the directory (a link
// the person gave is followed; nothing inside is), sub and corrupt/ are
// real directories of this user, the owned top-level files are regular
// files of this user with mode 0600, and stale temp files are removed. In
// sub a symbolic link is moved aside, never followed, and every regular
// file gets mode 0600. It returns the listing of sub from the same pass.
// It is SweepTop and SweepSub.
func (d *Dir) Sweep(owned map[string]bool, sub string) (Listing, error) {
	if err := d.SweepTop(owned, sub); err != nil {
		return Listing{}, err
	}
	return d.SweepSub(sub)
}

// SweepTop is the part of Sweep that does not depend on the size of the
// store: the directory, sub and corrupt/ as directories, and the top-level
// files. A store's chunks are checked when read (ReadChecked) and by
// SweepSub.
func (d *Dir) SweepTop(owned map[string]bool, sub string) error {
	for _, c := range []struct {
		p      string
		follow bool
	}{{d.Path, true}, {d.Abs(sub), false}, {d.Abs(CorruptDir), false}} {
		if err := d.CheckDir(c.p, c.follow, c.p != d.Path); err != nil {
			return err
		}
	}
	ents, err := os.ReadDir(d.Path)
	if err != nil {
		return fmt.Errorf("read store %s: %w", d.Path, err)
	}
	for _, e := range ents {
		name := e.Name()
		p := filepath.Join(d.Path, name)
		if IsTempName(name) {
			d.sweepTemp(p, name)
			continue
		}
		if !owned[name] {
			continue // not ours: untouched
		}
		fi, err := os.Lstat(p)
		if err != nil {
			continue
		}
		if fi.Mode()&fs.ModeSymlink == 0 && !fi.Mode().IsRegular() {
			return unsafePath(p, "is not a regular file", fmt.Sprintf("move it away (mv %q %q.bak)", p, p))
		}
		if err := d.CheckPath(p, fi, 0o600); err != nil {
			return err
		}
	}
	return nil
}

// SweepSub is the part of Sweep that visits every file of sub: a
// symbolic link is moved aside (never followed), a regular file of
// another user refuses the store, every regular file gets mode 0600,
// stale temp files are removed. It returns the listing.
func (d *Dir) SweepSub(sub string) (Listing, error) {
	subDir := d.Abs(sub)
	ents, err := os.ReadDir(subDir)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return Listing{}, fmt.Errorf("read %s: %w", subDir, err)
	}
	l := Listing{Names: make(map[string]bool, len(ents)), Sizes: make(map[string]int64, len(ents))}
	for _, e := range ents {
		name := e.Name()
		p := filepath.Join(subDir, name)
		rel := filepath.Join(sub, name)
		if IsTempName(name) {
			d.sweepTemp(p, name)
			continue
		}
		fi, err := e.Info()
		if err != nil {
			continue
		}
		if fi.Mode()&fs.ModeSymlink != 0 {
			// Never followed: the link itself goes aside (a rename does
			// not follow it).
			d.report(rel, "symbolic link in "+sub+"/ (never followed)", d.MoveAside(rel))
			continue
		}
		if fi.Mode().IsRegular() {
			if err := d.CheckPath(p, fi, 0o600); err != nil {
				return Listing{}, err
			}
			if fi.Mode().Perm() != 0o600 {
				fi, _ = os.Lstat(p)
			}
			if fi != nil {
				l.Sizes[name] = Allocated(fi)
			}
		}
		l.Names[name] = true
	}
	return l, nil
}

// sweepTemp handles a temp file: one younger than StaleTempAge may belong
// to a running writer and is left alone; odek's vector temp files are
// odek's. A stale one is what a crashed writer left before its rename
// (nothing acknowledged it) and is removed.
func (d *Dir) sweepTemp(p, name string) {
	if strings.HasSuffix(name, ".tmp") {
		return
	}
	fi, err := os.Lstat(p)
	if err != nil || time.Since(fi.ModTime()) < StaleTempAge {
		return
	}
	os.Remove(p)
	d.changed()
}

// List names the files of sub (nil when it cannot be read).
func (d *Dir) List(sub string) []string {
	ents, err := os.ReadDir(d.Abs(sub))
	if err != nil {
		return nil
	}
	names := make([]string, len(ents))
	for i, e := range ents {
		names[i] = e.Name()
	}
	return names
}

// ModTime is rel's modification time (false when it cannot be read).
func (d *Dir) ModTime(rel string) (time.Time, bool) {
	fi, err := os.Lstat(d.Abs(rel))
	if err != nil {
		return time.Time{}, false
	}
	return fi.ModTime(), true
}

// Usage walks the store and returns the allocated bytes of every file and
// directory by relative path. When known is given, sub was measured by a
// sweep already: only the directory itself is measured again, its files
// take their sizes from known.
func (d *Dir) Usage(sub string, known map[string]int64) map[string]int64 {
	usage := map[string]int64{}
	subDir := d.Abs(sub)
	filepath.WalkDir(d.Path, func(p string, e fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if known != nil && p == subDir {
			if fi, err := e.Info(); err == nil {
				usage[sub] = Allocated(fi)
			}
			for name, n := range known {
				usage[filepath.Join(sub, name)] = n
			}
			return filepath.SkipDir
		}
		fi, err := e.Info()
		if err != nil {
			return nil
		}
		rel, _ := filepath.Rel(d.Path, p)
		usage[rel] = Allocated(fi)
		return nil
	})
	return usage
}

// Allocated is the allocated size of rel (false when it is missing).
func (d *Dir) Allocated(rel string) (int64, bool) {
	fi, err := os.Lstat(d.Abs(rel))
	if err != nil {
		return 0, false
	}
	return Allocated(fi), true
}
