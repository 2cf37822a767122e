package disk

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/odekmem/odekmem/internal/par"
)

// Temp files. Every file is written through a temp file beside its target
// named ".<name>.tmp-<random>", as odek names its own, then renamed. A temp
// file may belong to a writer that is still running (odek takes no lock),
// so one is never moved, deleted or reported until it is older than
// StaleTempAge; odek's vector temp files ("vectors.gob.tmp" and the like)
// are odek's and never touched at all.
const StaleTempAge = 10 * time.Minute

// TempName is the temp file name for target name.
func TempName(name string) string { return "." + name + ".tmp-" + randomSuffix() }

// IsTempName reports whether name is an in-flight write's temp file:
// ".<name>.tmp-<random>" (odek and odekmem), the ".tmp-<name>-<random>"
// odekmem used before, or a "<name>.tmp" of odek's vector cache.
func IsTempName(name string) bool {
	if strings.HasSuffix(name, ".tmp") && len(name) > 4 {
		return true
	}
	if !strings.HasPrefix(name, ".") {
		return false
	}
	if strings.HasPrefix(name, ".tmp-") {
		return true
	}
	i := strings.LastIndex(name, ".tmp-")
	return i > 1 && !strings.ContainsAny(name[i+5:], "./")
}

// WriteFile writes data to path so that readers see either the old
// file or the whole new one: a temp file in the same directory created with
// O_EXCL and mode 0600, write, fsync, rename, fsync the directory.
func WriteFile(path string, data []byte) error {
	st, err := Stage(path, data)
	if err != nil {
		return err
	}
	return st.Commit(true)
}

// Staged is a temp file written and fsynced, waiting to be renamed
// over its target.
type Staged struct {
	tmp, path string
}

// Stage writes data into a fresh temp file next to path (O_EXCL, mode
// 0600) and fsyncs it.
func Stage(path string, data []byte) (*Staged, error) {
	dir := filepath.Dir(path)
	var f *os.File
	var tmp string
	var err error
	for i := 0; i < 10; i++ {
		tmp = filepath.Join(dir, TempName(filepath.Base(path)))
		f, err = os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if err == nil || !errors.Is(err, fs.ErrExist) {
			break
		}
	}
	if err != nil {
		return nil, fmt.Errorf("create temp file for %s: %w", filepath.Base(path), err)
	}
	cleanup := func() { f.Close(); os.Remove(tmp) }
	if _, err := f.Write(data); err != nil {
		cleanup()
		return nil, fmt.Errorf("write %s: %w", filepath.Base(path), err)
	}
	if err := f.Sync(); err != nil {
		cleanup()
		return nil, fmt.Errorf("fsync %s: %w", filepath.Base(path), err)
	}
	if err := f.Close(); err != nil {
		os.Remove(tmp)
		return nil, fmt.Errorf("close %s: %w", filepath.Base(path), err)
	}
	return &Staged{tmp: tmp, path: path}, nil
}

// Commit renames the temp file over its target and, with syncDir, fsyncs
// the directory so the rename is durable.
func (st *Staged) Commit(sync bool) error {
	if err := os.Rename(st.tmp, st.path); err != nil {
		os.Remove(st.tmp)
		return fmt.Errorf("rename %s: %w", filepath.Base(st.path), err)
	}
	if sync {
		return SyncDir(filepath.Dir(st.path))
	}
	return nil
}

func (st *Staged) Abort() { os.Remove(st.tmp) }

// WriteFiles writes many new files of one directory atomically and
// durably, as WriteFile does one by one, but with one flush for all:
// every temp file is written (O_EXCL, 0600), then syncfs(2) makes all of
// their data durable at once (one journal commit instead of one per file),
// then they are renamed and the directory is fsynced once. Where syncfs is
// unavailable each temp file is fsynced. It returns the first error; files
// already renamed stay.
func WriteFiles(dir string, files map[string][]byte) error {
	type tmpFile struct {
		tmp, path string
		data      []byte
		err       error
	}
	staged := make([]tmpFile, 0, len(files))
	for name, data := range files {
		staged = append(staged, tmpFile{path: filepath.Join(dir, name), data: data})
	}
	// File creation is a synchronous metadata operation that dominates
	// small writes; several in flight overlap their latency.
	par.For(len(staged), 8, 8, func(i int) {
		t := &staged[i]
		t.tmp, t.err = writeTemp(t.path, t.data)
	})
	abort := func() {
		for _, t := range staged {
			if t.tmp != "" {
				os.Remove(t.tmp)
			}
		}
	}
	for _, t := range staged {
		if t.err != nil {
			abort()
			return t.err
		}
	}
	if err := syncFS(dir); err != nil {
		for _, t := range staged {
			if err := fsyncPath(t.tmp); err != nil {
				abort()
				return err
			}
		}
	}
	for i, t := range staged {
		if err := os.Rename(t.tmp, t.path); err != nil {
			for _, u := range staged[i:] {
				os.Remove(u.tmp)
			}
			return fmt.Errorf("rename %s: %w", filepath.Base(t.path), err)
		}
	}
	return SyncDir(dir)
}

// writeTemp writes data into a fresh temp file next to path (O_EXCL, mode
// 0600) without fsync and returns its name.
func writeTemp(path string, data []byte) (string, error) {
	dir, name := filepath.Split(path)
	var f *os.File
	var tmp string
	var err error
	for i := 0; i < 10; i++ {
		tmp = filepath.Join(dir, TempName(name))
		f, err = os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if err == nil || !errors.Is(err, fs.ErrExist) {
			break
		}
	}
	if err != nil {
		return "", fmt.Errorf("create temp file for %s: %w", name, err)
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		os.Remove(tmp)
		return "", fmt.Errorf("write %s: %w", name, err)
	}
	if err := f.Close(); err != nil {
		os.Remove(tmp)
		return "", fmt.Errorf("close %s: %w", name, err)
	}
	return tmp, nil
}

func fsyncPath(p string) error {
	f, err := os.OpenFile(p, os.O_RDWR, 0)
	if err != nil {
		return err
	}
	defer f.Close()
	if err := f.Sync(); err != nil {
		return fmt.Errorf("fsync %s: %w", filepath.Base(p), err)
	}
	return nil
}

func SyncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return fmt.Errorf("open dir for fsync: %w", err)
	}
	defer d.Close()
	if err := d.Sync(); err != nil && !isSyncDirUnsupported(err) {
		return fmt.Errorf("fsync dir %s: %w", dir, err)
	}
	return nil
}

// randomSuffix is 12 random hex digits for a temp file name.
func randomSuffix() string {
	var b [6]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}
