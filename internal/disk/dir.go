package disk

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/odekmem/odekmem/internal/par"
)

// CorruptDir is the directory of a store that damaged files are moved
// into; nothing is ever deleted for being damaged.
const CorruptDir = "corrupt"

// Dir is a store directory as the file layer sees it: files named by their
// path relative to it, read without following a link, written atomically,
// and moved into corrupt/ when damaged. Report and Changed tell the store
// what the layer found and did; either may be nil.
type Dir struct {
	Path string
	// Now stamps the names of files moved or saved aside.
	Now func() time.Time
	// Report records damage found (or a mode tightened) and what was done.
	Report func(file, problem, action string)
	// Changed is called whenever a file of the store was created, moved
	// or removed, so other processes learn to reload.
	Changed func()
}

// Abs is the absolute path of rel.
func (d *Dir) Abs(rel string) string { return filepath.Join(d.Path, rel) }

func (d *Dir) report(file, problem, action string) {
	if d.Report != nil {
		d.Report(file, problem, action)
	}
}

func (d *Dir) changed() {
	if d.Changed != nil {
		d.Changed()
	}
}

// Exists reports whether rel exists (a link counts; it is not followed).
func (d *Dir) Exists(rel string) bool {
	_, err := os.Lstat(d.Abs(rel))
	return err == nil
}

// Mkdir creates the directory rel (mode 0700) unless it exists.
func (d *Dir) Mkdir(rel string) error {
	if err := os.Mkdir(d.Abs(rel), 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
		return err
	}
	return nil
}

// Remove removes rel if it is there.
func (d *Dir) Remove(rel string) {
	os.Remove(d.Abs(rel))
	d.changed()
}

// RemoveMany removes every file in rels, several at a time: an unlink is a
// synchronous metadata operation, and a batch into a full store removes
// one evicted chunk per atom it adds.
func (d *Dir) RemoveMany(rels []string) {
	if len(rels) == 0 {
		return
	}
	par.For(len(rels), 16, 8, func(i int) { os.Remove(d.Abs(rels[i])) })
	d.changed()
}

// WriteFile writes rel atomically and durably (WriteFile) and returns the
// signature of what it wrote.
func (d *Dir) WriteFile(rel string, data []byte) (Sig, error) {
	if err := WriteFile(d.Abs(rel), data); err != nil {
		return Sig{}, err
	}
	d.changed()
	return StatSig(d.Abs(rel)), nil
}

// WriteNewThen writes the new file first (durably), staging second
// meanwhile, and renames second into place only once first is durable:
// second never names a first that a crash could lose. Their fsyncs
// overlap. If second cannot be written, first is removed again.
func (d *Dir) WriteNewThen(first string, firstData []byte, second string, secondData []byte) error {
	var ferr, err error
	var st *Staged
	par.Do(func() { ferr = WriteFile(d.Abs(first), firstData) },
		func() { st, err = Stage(d.Abs(second), secondData) })
	if ferr != nil {
		if st != nil {
			st.Abort()
		}
		return ferr
	}
	d.changed()
	if err == nil {
		err = st.Commit(true)
	}
	if err != nil {
		os.Remove(d.Abs(first))
	}
	return err
}

// ReadFile reads rel, refusing a symbolic link or anything but a regular
// file, and returns the signature of the version it read (a missing file
// has the zero Sig, as StatSig gives).
func (d *Dir) ReadFile(rel string) ([]byte, Sig, error) {
	f, err := openNoFollow(d.Abs(rel))
	if err != nil {
		return nil, Sig{}, err
	}
	defer f.Close()
	// Sized like os.ReadFile: atoms.json and vectors.odm are megabytes at
	// 18k atoms, and growing the buffer from zero costs a fifth of Open.
	size := 512
	var sig Sig
	if fi, err := f.Stat(); err == nil {
		sig = sigOf(fi)
		if fi.Size() < 1<<34 {
			size += int(fi.Size())
		}
	}
	data := make([]byte, 0, size)
	for {
		n, err := f.Read(data[len(data):cap(data)])
		data = data[:len(data)+n]
		if err == io.EOF {
			return data, sig, nil
		}
		if err != nil {
			return nil, Sig{}, err
		}
		if len(data) == cap(data) {
			data = append(data, 0)[:len(data)]
		}
	}
}

// ReadFileLimited is ReadFile for a file that has a known upper size: a
// larger one is an error naming the file, not an allocation.
func (d *Dir) ReadFileLimited(rel string, limit int64) ([]byte, error) {
	f, err := openNoFollow(d.Abs(rel))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > limit {
		return nil, fmt.Errorf("%s: larger than %d bytes; refused", rel, limit)
	}
	return b, nil
}

// ReadText reads rel as text: at most limit bytes of it, invalid UTF-8
// replaced.
func (d *Dir) ReadText(rel string, limit int) (string, error) {
	data, _, err := d.ReadFile(rel)
	if err != nil {
		return "", err
	}
	if len(data) > limit {
		data = data[:limit]
	}
	return string(bytes.ToValidUTF8(data, []byte("\uFFFD"))), nil
}

// ErrLink is a store file that is a symbolic link: never followed.
var ErrLink = errors.New("symbolic link refused")

// ReadTextChecked is ReadText for a file of the store that no sweep has
// checked (a chunk a verb reads): a symbolic link is refused with ErrLink
// (never followed), a file of another user with an *UnsafeError, and a
// mode other than 0600 is tightened on the open file and reported, as the
// sweep would have.
func (d *Dir) ReadTextChecked(rel string, limit int) (string, error) {
	p := d.Abs(rel)
	f, err := openNoFollow(p)
	if err != nil {
		if fi, lerr := os.Lstat(p); lerr == nil && fi.Mode()&fs.ModeSymlink != 0 {
			return "", fmt.Errorf("%s: %w", filepath.Base(p), ErrLink)
		}
		return "", err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return "", err
	}
	if err := d.checkPath(p, fi, 0o600, func() error { return f.Chmod(0o600) }, f.Stat); err != nil {
		return "", err
	}
	data, err := io.ReadAll(io.LimitReader(f, int64(limit)))
	if err != nil {
		return "", err
	}
	return string(bytes.ToValidUTF8(data, []byte("\uFFFD"))), nil
}

// openNoFollow opens a file for reading without following a symbolic link
// (O_NOFOLLOW; on Windows, an Lstat first) and refuses anything but a
// regular file.
func openNoFollow(p string) (*os.File, error) {
	if ONoFollow == 0 {
		if fi, err := os.Lstat(p); err != nil {
			return nil, err
		} else if fi.Mode()&fs.ModeSymlink != 0 {
			return nil, fmt.Errorf("%s: %w", filepath.Base(p), ErrLink)
		}
	}
	f, err := os.OpenFile(p, os.O_RDONLY|ONoFollow, 0)
	if err != nil {
		if fi, lerr := os.Lstat(p); lerr == nil && fi.Mode()&fs.ModeSymlink != 0 {
			return nil, fmt.Errorf("%s: %w", filepath.Base(p), ErrLink)
		}
		return nil, err
	}
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		f.Close()
		return nil, fmt.Errorf("%s: not a regular file", filepath.Base(p))
	}
	return f, nil
}

// MoveAside moves the damaged file rel into corrupt/ (under the same
// sub-directory), never deleting it and never through a link, and returns
// what happened, for a report.
func (d *Dir) MoveAside(rel string) string {
	src := d.Abs(rel)
	dstDir, err := d.corruptDir(filepath.Dir(rel))
	if err != nil {
		return "could not move aside: " + err.Error()
	}
	dst := filepath.Join(dstDir, d.asideName(filepath.Base(rel)))
	if err := os.Rename(src, dst); err != nil {
		return "could not move aside: " + err.Error()
	}
	d.changed()
	SyncDir(dstDir)
	SyncDir(filepath.Dir(src))
	r, _ := filepath.Rel(d.Path, dst)
	return "moved to " + r
}

// SaveAside writes recovered bytes of a damaged record into corrupt/ under
// name and returns what happened, for a report.
func (d *Dir) SaveAside(name string, data []byte) string {
	dir := d.Abs(CorruptDir)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "could not save aside: " + err.Error()
	}
	p := filepath.Join(dir, d.asideName(name))
	if err := WriteFile(p, data); err != nil {
		return "could not save aside: " + err.Error()
	}
	d.changed()
	r, _ := filepath.Rel(d.Path, p)
	return "saved to " + r
}

// asideName is name stamped with the time and six random hex digits.
func (d *Dir) asideName(name string) string {
	now := time.Now
	if d.Now != nil {
		now = d.Now
	}
	var b [3]byte
	rand.Read(b[:])
	return name + "." + now().UTC().Format("20060102T150405") + "-" + hex.EncodeToString(b[:])
}

// corruptDir creates corrupt/ (and sub, e.g. "chunks") as real directories
// of mode 0700, refusing any component that is a link or not a directory.
func (d *Dir) corruptDir(sub string) (string, error) {
	p := d.Abs(CorruptDir)
	parts := []string{""}
	if sub != "." && sub != "" {
		parts = append(parts, strings.Split(sub, string(filepath.Separator))...)
	}
	for _, part := range parts {
		p = filepath.Join(p, part)
		fi, err := os.Lstat(p)
		if errors.Is(err, fs.ErrNotExist) {
			if err := os.Mkdir(p, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
				return "", err
			}
			continue
		}
		if err != nil {
			return "", err
		}
		if fi.Mode()&fs.ModeSymlink != 0 || !fi.IsDir() {
			return "", fmt.Errorf("%s is not a directory of the store", p)
		}
	}
	return p, nil
}
