package memcore

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/odekmem/odekmem/internal/disk"
)

// exportFile writes Export's output to a new file at path, never through a
// symbolic link or into a file someone else prepared: a new file is created
// exclusively with mode 0600; an existing regular file is replaced
// atomically, never opened; a link or anything but a regular file is
// refused. On error nothing is left at a path that did not exist.
func (s *Store) exportFile(ctx context.Context, path string) error {
	return writeNewFile(path, func(w io.Writer) error { return s.Export(ctx, w) })
}

// writeNewFile creates the file at path with what fill writes, without
// ever writing through a symbolic link or into a file someone else
// prepared: a new file is created exclusively (O_EXCL|O_NOFOLLOW, mode
// 0600); an existing regular file is replaced atomically by a new 0600 file
// (a temp file beside it, renamed over it), never opened; a symbolic link
// or anything but a regular file at path is refused. The file is fsynced;
// on error nothing is left at a path that did not exist.
func writeNewFile(path string, fill func(io.Writer) error) error {
	fi, err := os.Lstat(path)
	switch {
	case err == nil && fi.Mode()&fs.ModeSymlink != 0:
		return fmt.Errorf("export: %s is a symbolic link; odekmem does not write through links: remove it or choose another path", path)
	case err == nil && !fi.Mode().IsRegular():
		return fmt.Errorf("export: %s exists and is not a regular file", path)
	case err == nil:
		return replaceFile(path, fill)
	case errors.Is(err, fs.ErrNotExist):
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL|disk.ONoFollow, 0o600)
		if err != nil {
			return fmt.Errorf("export: %w", err)
		}
		if err := fillFile(f, fill); err != nil {
			os.Remove(path)
			return err
		}
		return nil
	default:
		return fmt.Errorf("export: %w", err)
	}
}

// replaceFile writes a new 0600 file beside path and renames it over
// path: the old file (and anyone holding it open) never sees the content.
func replaceFile(path string, fill func(io.Writer) error) error {
	dir := filepath.Dir(path)
	var f *os.File
	var tmp string
	var err error
	for i := 0; i < 10; i++ {
		tmp = filepath.Join(dir, disk.TempName(filepath.Base(path)))
		f, err = os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL|disk.ONoFollow, 0o600)
		if err == nil || !errors.Is(err, fs.ErrExist) {
			break
		}
	}
	if err != nil {
		return fmt.Errorf("export: create a new file beside %s: %w", path, err)
	}
	if err := fillFile(f, fill); err != nil {
		os.Remove(tmp)
		return err
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("export: replace %s: %w", path, err)
	}
	return disk.SyncDir(dir)
}

// fillFile writes into f, fsyncs and closes it.
func fillFile(f *os.File, fill func(io.Writer) error) error {
	if err := fill(f); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return fmt.Errorf("export: %w", err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("export: %w", err)
	}
	return nil
}
