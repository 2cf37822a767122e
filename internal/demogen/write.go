package main

// Writing the generated files: atomically, 0700 directories and 0600 files,
// stale chunks removed.

import (
	"os"
	"path/filepath"
	"sort"
)

// WriteDir writes files under dir (0700 dirs, 0600 files, atomically) and
// removes stale chunk files that are not part of the output.
func WriteDir(dir string, files map[string][]byte) error {
	for _, d := range []string{dir, filepath.Join(dir, "chunks")} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			return err
		}
		if err := os.Chmod(d, 0o700); err != nil {
			return err
		}
	}
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		if err := writeAtomic(filepath.Join(dir, filepath.FromSlash(n)), files[n]); err != nil {
			return err
		}
	}
	old, err := filepath.Glob(filepath.Join(dir, "chunks", "*.md"))
	if err != nil {
		return err
	}
	for _, p := range old {
		if _, ok := files["chunks/"+filepath.Base(p)]; !ok {
			if err := os.Remove(p); err != nil {
				return err
			}
		}
	}
	return syncDir(filepath.Join(dir, "chunks"))
}

func writeAtomic(path string, data []byte) (err error) {
	dir := filepath.Dir(path)
	tmp := filepath.Join(dir, "."+filepath.Base(path)+".tmp")
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			os.Remove(tmp)
		}
	}()
	if _, err = f.Write(data); err != nil {
		f.Close()
		return err
	}
	if err = f.Sync(); err != nil {
		f.Close()
		return err
	}
	if err = f.Close(); err != nil {
		return err
	}
	if err = os.Rename(tmp, path); err != nil {
		return err
	}
	return syncDir(dir)
}

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}
