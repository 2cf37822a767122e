package memcore

import (
	"errors"
	"fmt"
	"github.com/odekmem/odekmem/memcore/internal/disk"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/odekmem/odekmem/internal/vocab"
)

// Open-time checks and repair of the store directory: who owns it, links,
// modes, leftover temp files and chunk files without metadata. odek writes
// the same directory without a lock, so everything here leaves alone what
// may belong to a writer that is still running and every file odekmem does
// not own.

// orphanGrace is how old a chunk without metadata must be before it counts
// as one whose metadata was lost: younger, another writer (odek takes no
// lock) may be between writing the chunk and atoms.json.
const orphanGrace = 2 * time.Minute

// Source class and reason of a chunk adopted into quarantine.
const (
	SourceRecovered = "recovered"
	ReasonRecovered = "metadata lost to a concurrent writer"
)

// ownedFiles are the top-level files odekmem reads or writes. Every other
// file (odek's vectors.gob*, vectors_meta.json, nudges.json, files of
// newer odek versions) is left untouched and counted as "other".
var ownedFiles = map[string]bool{
	fileAtoms: true, fileQuarantine: true, fileUserModel: true, fileAssoc: true,
	fileAssocKinds: true, fileVectors: true, fileLockName: true, fileContradictions: true,
}

func unsafeStore(path, why, fix string) error {
	return fmt.Errorf("%w: %s %s; odekmem refuses to use it: %s", ErrUnsafeStore, path, why, fix)
}

// checkPathLocked refuses a store path that is a symbolic link or belongs
// to another user, and tightens its mode to want; a path that stays
// writable by group or others after a failed chmod is refused. It reports
// only changes that happened.
func (s *Store) checkPathLocked(p string, fi fs.FileInfo, want fs.FileMode) error {
	if fi.Mode()&fs.ModeSymlink != 0 {
		return unsafeStore(p, "is a symbolic link (odekmem never follows links inside a store)",
			fmt.Sprintf("remove the link (rm %q) or put the real file or directory there", p))
	}
	if owner := disk.ForeignOwner(fi); owner != "" {
		return unsafeStore(p, "belongs to "+owner, disk.FixOwnerHint(p))
	}
	perm := fi.Mode().Perm()
	if perm == want {
		return nil
	}
	rel, _ := filepath.Rel(s.dir, p)
	if rel == "." {
		rel = s.dir
	}
	problem := fmt.Sprintf("mode %04o", perm)
	cerr := os.Chmod(p, want)
	after, serr := os.Lstat(p)
	switch {
	case serr == nil && after.Mode().Perm() == want:
		s.report(rel, problem, fmt.Sprintf("tightened to %04o", want))
	case serr == nil && after.Mode().Perm()&0o022 == 0:
		why := "mode unchanged"
		if cerr != nil {
			why = cerr.Error()
		}
		s.report(rel, problem, fmt.Sprintf("could not tighten (%s); run: chmod %o %q", why, want, p))
	default:
		why := "mode unchanged"
		if cerr != nil {
			why = cerr.Error()
		}
		return unsafeStore(p, fmt.Sprintf("is writable by other users (%s) and could not be tightened (%s)", problem, why),
			fmt.Sprintf("run: chmod %o %q", want, p))
	}
	return nil
}

// checkDirLocked checks one of the store's directories; a missing optional
// directory is fine.
func (s *Store) checkDirLocked(p string, follow, optional bool) error {
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
		return unsafeStore(p, "is not a directory", fmt.Sprintf("move it away (mv %q %q.bak)", p, p))
	}
	return s.checkPathLocked(p, fi, 0o700)
}

// sweepLocked checks the store before a repairing load: the directory (a
// link the person gave is followed; nothing inside is), chunks/ and
// corrupt/ are real directories of this user, owned files are regular
// files of this user with mode 0600; stale temp files are swept. It fills
// chunkNames and chunkSize from the same pass over chunks/.
func (s *Store) sweepLocked() error {
	if err := s.checkDirLocked(s.dir, true, false); err != nil {
		return err
	}
	chunks := filepath.Join(s.dir, dirChunks)
	if err := s.checkDirLocked(chunks, false, true); err != nil {
		return err
	}
	if err := s.checkDirLocked(filepath.Join(s.dir, dirCorrupt), false, true); err != nil {
		return err
	}
	ents, err := os.ReadDir(s.dir)
	if err != nil {
		return fmt.Errorf("read store %s: %w", s.dir, err)
	}
	for _, e := range ents {
		name := e.Name()
		p := filepath.Join(s.dir, name)
		if disk.IsTempName(name) {
			s.sweepTempLocked(p, name)
			continue
		}
		if !ownedFiles[name] {
			continue // not ours: untouched
		}
		fi, err := os.Lstat(p)
		if err != nil {
			continue
		}
		if fi.Mode()&fs.ModeSymlink == 0 && !fi.Mode().IsRegular() {
			return unsafeStore(p, "is not a regular file", fmt.Sprintf("move it away (mv %q %q.bak)", p, p))
		}
		if err := s.checkPathLocked(p, fi, 0o600); err != nil {
			return err
		}
	}
	ents, err = os.ReadDir(chunks)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("read %s: %w", chunks, err)
	}
	s.chunkNames = make(map[string]bool, len(ents))
	s.chunkSize = make(map[string]int64, len(ents))
	for _, e := range ents {
		name := e.Name()
		p := filepath.Join(chunks, name)
		rel := filepath.Join(dirChunks, name)
		if disk.IsTempName(name) {
			s.sweepTempLocked(p, name)
			continue
		}
		fi, err := e.Info()
		if err != nil {
			continue
		}
		if fi.Mode()&fs.ModeSymlink != 0 {
			// Never followed: the link itself goes aside (a rename does
			// not follow it).
			s.report(rel, "symbolic link in chunks/ (never followed)", s.moveAside(rel))
			continue
		}
		if fi.Mode().IsRegular() {
			if err := s.checkPathLocked(p, fi, 0o600); err != nil {
				return err
			}
			if fi.Mode().Perm() != 0o600 {
				fi, _ = os.Lstat(p)
			}
			if fi != nil {
				s.chunkSize[name] = disk.Allocated(fi)
			}
		}
		s.chunkNames[name] = true
	}
	return nil
}

// sweepTempLocked handles a temp file: one younger than disk.StaleTempAge may
// belong to a running writer and is left alone; odek's vector temp files
// are odek's. A stale one is what a crashed writer left before its rename
// (nothing acknowledged it) and is removed.
func (s *Store) sweepTempLocked(p, name string) {
	if strings.HasSuffix(name, ".tmp") {
		return
	}
	fi, err := os.Lstat(p)
	if err != nil || time.Since(fi.ModTime()) < disk.StaleTempAge {
		return
	}
	os.Remove(p)
	s.wrote = true
}

// moveAside moves a damaged file into corrupt/, never deleting it and
// never through a link.
func (s *Store) moveAside(rel string) string {
	src := filepath.Join(s.dir, rel)
	dstDir, err := s.corruptDir(filepath.Dir(rel))
	if err != nil {
		return "could not move aside: " + err.Error()
	}
	dst := filepath.Join(dstDir, filepath.Base(rel)+"."+s.now().UTC().Format("20060102T150405")+"-"+vocab.NewID()[:6])
	if err := os.Rename(src, dst); err != nil {
		return "could not move aside: " + err.Error()
	}
	s.wrote = true
	disk.SyncDir(dstDir)
	disk.SyncDir(filepath.Dir(src))
	r, _ := filepath.Rel(s.dir, dst)
	return "moved to " + r
}

// corruptDir creates corrupt/ (and sub, e.g. "chunks") as real directories
// of mode 0700, refusing any component that is a link or not a directory.
func (s *Store) corruptDir(sub string) (string, error) {
	p := filepath.Join(s.dir, dirCorrupt)
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

// readStoreFileLimited is readStoreFile for a file that has a known upper
// size: a larger one is an error naming the file, not an allocation.
func (s *Store) readStoreFileLimited(rel string, limit int64) ([]byte, error) {
	f, err := openNoFollow(filepath.Join(s.dir, rel))
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

// readStoreFile reads a store file, refusing a symbolic link.
func (s *Store) readStoreFile(rel string) ([]byte, error) {
	f, err := openNoFollow(filepath.Join(s.dir, rel))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	// Sized like os.ReadFile: atoms.json and vectors.odm are megabytes at
	// 18k atoms, and growing the buffer from zero costs a fifth of Open.
	size := 512
	if fi, err := f.Stat(); err == nil && fi.Size() < 1<<34 {
		size += int(fi.Size())
	}
	data := make([]byte, 0, size)
	for {
		n, err := f.Read(data[len(data):cap(data)])
		data = data[:len(data)+n]
		if err == io.EOF {
			return data, nil
		}
		if err != nil {
			return nil, err
		}
		if len(data) == cap(data) {
			data = append(data, 0)[:len(data)]
		}
	}
}

// openNoFollow opens a file for reading without following a symbolic link
// (O_NOFOLLOW; on Windows, an Lstat first) and refuses anything but a
// regular file.
func openNoFollow(p string) (*os.File, error) {
	if disk.ONoFollow == 0 {
		if fi, err := os.Lstat(p); err != nil {
			return nil, err
		} else if fi.Mode()&fs.ModeSymlink != 0 {
			return nil, fmt.Errorf("%s: symbolic link refused", filepath.Base(p))
		}
	}
	f, err := os.OpenFile(p, os.O_RDONLY|disk.ONoFollow, 0)
	if err != nil {
		if fi, lerr := os.Lstat(p); lerr == nil && fi.Mode()&fs.ModeSymlink != 0 {
			return nil, fmt.Errorf("%s: symbolic link refused", filepath.Base(p))
		}
		return nil, err
	}
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		f.Close()
		return nil, fmt.Errorf("%s: not a regular file", filepath.Base(p))
	}
	return f, nil
}

// checkChunksLocked deals with chunk files no live atom owns. A chunk
// younger than orphanGrace is left alone. An older one whose id is not in
// the store lost its metadata to a concurrent writer (odek rewrites
// atoms.json without a lock): its text is adopted into quarantine as
// source class "recovered" — lossless and still untrusted — and reported.
// Anything else is moved aside.
func (s *Store) checkChunksLocked() error {
	var names []string
	if s.chunkNames != nil {
		for name := range s.chunkNames {
			names = append(names, name)
		}
	} else {
		ents, err := os.ReadDir(filepath.Join(s.dir, dirChunks))
		if err != nil {
			return nil
		}
		for _, e := range ents {
			names = append(names, e.Name())
		}
	}
	var adopted []string
	for _, name := range names {
		if disk.IsTempName(name) {
			continue
		}
		id, ok := strings.CutSuffix(name, chunkExt)
		rel := filepath.Join(dirChunks, name)
		p := filepath.Join(s.dir, rel)
		switch {
		case !ok || !vocab.ValidID(id):
			s.report(rel, "unexpected file in chunks/", s.moveAside(rel))
			delete(s.chunkSize, name)
		case s.byID[id] != nil:
		case chunkIsFresh(p):
			// Another writer may be between this chunk and atoms.json:
			// decided at a later load.
		case s.quarIndex(id) >= 0:
			s.report(rel, "chunk of a quarantined atom", s.moveAside(rel))
			delete(s.chunkSize, name)
		default:
			text, err := s.readChunk(id)
			if err != nil {
				s.report(rel, "unreadable chunk without metadata: "+err.Error(), s.moveAside(rel))
				delete(s.chunkSize, name)
				continue
			}
			created := s.now().UTC()
			if fi, err := os.Lstat(p); err == nil {
				created = fi.ModTime().UTC()
			}
			q := &QuarantinedAtom{
				Atom:          Atom{ID: id, SourceClass: SourceRecovered, Type: TypeObservation, CreatedAt: created, Text: text},
				QuarantinedAt: s.now().UTC(),
				Reason:        ReasonRecovered,
			}
			s.quar = append(s.quar, q)
			adopted = append(adopted, name)
		}
	}
	if len(adopted) == 0 {
		return nil
	}
	// quarantine.json holds the text before the chunk goes.
	if err := s.writeQuarantineLocked(); err != nil {
		for range adopted {
			s.quar = s.quar[:len(s.quar)-1]
		}
		return err
	}
	for _, name := range adopted {
		rel := filepath.Join(dirChunks, name)
		os.Remove(filepath.Join(s.dir, rel))
		delete(s.chunkSize, name)
		s.report(rel, "chunk without metadata in atoms.json ("+ReasonRecovered+")",
			"adopted into quarantine as source "+SourceRecovered+"; review it with the quarantine verbs")
	}
	disk.SyncDir(filepath.Join(s.dir, dirChunks))
	return nil
}

func chunkIsFresh(path string) bool {
	fi, err := os.Lstat(path)
	return err == nil && time.Since(fi.ModTime()) < orphanGrace
}

// odekVectorsPresent reports whether odek's vector cache files exist.
func (s *Store) odekVectorsPresent() bool {
	for _, name := range []string{"vectors.gob", "vectors.gob.emb"} {
		if _, err := os.Lstat(filepath.Join(s.dir, name)); err == nil {
			return true
		}
	}
	return false
}

// ownWindow is how long this process watches the atoms it wrote: odek's
// unlocked read-modify-write of atoms.json can only drop a record it read
// before the record was written, and it writes within seconds of reading.
const ownWindow = 10 * time.Minute

type ownRecord struct {
	e  *entry
	at time.Time
}

// noteOwnLocked remembers a live atom this process wrote.
func (s *Store) noteOwnLocked(e *entry) {
	if s.own == nil {
		s.own = map[string]*ownRecord{}
	}
	s.own[e.atom.ID] = &ownRecord{e: e, at: time.Now()}
}

// readdOwnLocked puts back into a freshly loaded atoms.json the atoms this
// process wrote that are missing from it while their chunk is still there:
// another writer rewrote atoms.json from a read older than our write (odek
// takes no lock). An atom whose chunk is gone was forgotten on purpose and
// is let go. It returns how many it re-added.
func (s *Store) readdOwnLocked(order *[]*entry, byID map[string]*entry) int {
	n := 0
	now := time.Now()
	for id, o := range s.own {
		if now.Sub(o.at) > ownWindow {
			delete(s.own, id)
			continue
		}
		if e := byID[id]; e != nil {
			o.e = e // later writes change the loaded entry
			continue
		}
		if s.chunkNames != nil {
			if !s.chunkNames[id+chunkExt] {
				delete(s.own, id)
				continue
			}
		} else if _, err := os.Lstat(s.chunkPath(id)); err != nil {
			delete(s.own, id)
			continue
		}
		byID[id] = o.e
		*order = append(*order, o.e)
		n++
	}
	return n
}
