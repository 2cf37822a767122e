package memcore

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/odekmem/odekmem/internal/disk"
	"github.com/odekmem/odekmem/internal/lockfile"

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

// Source class and reasons of a chunk adopted into quarantine: its
// record was dropped by another writer (odek takes no lock), or atoms.json
// was damaged and moved aside.
const (
	SourceRecovered       Source = "recovered"
	reasonRecovered              = "metadata lost to a concurrent writer"
	reasonRecoveredDamage        = "its record was in a damaged atoms.json (saved in corrupt/)"
)

// ownedFiles are the top-level files odekmem reads or writes. Every other
// file (odek's vectors.gob*, vectors_meta.json, nudges.json, files of
// newer odek versions) is left untouched and counted as "other".
var ownedFiles = map[string]bool{
	fileAtoms: true, fileQuarantine: true, fileUserModel: true, fileAssoc: true,
	fileAssocKinds: true, fileVectors: true, fileLockName: true, fileContradictions: true, fileLane: true,
}

func unsafeStore(path, why, fix string) error {
	return fmt.Errorf("%w: %s %s; odekmem refuses to use it: %s", ErrUnsafeStore, path, why, fix)
}

// checkDirLocked checks one of the store's directories; a missing optional
// directory is fine.
func (s *Store) checkDirLocked(p string, follow, optional bool) error {
	return storeErr(s.files.CheckDir(p, follow, optional))
}

// storeErr turns the disk layer's refusal of a path into ErrUnsafeStore.
func storeErr(err error) error {
	var u *disk.UnsafeError
	if errors.As(err, &u) {
		return unsafeStore(u.Path, u.Why, u.Fix)
	}
	return err
}

// A repairing load checks the directory and the top-level files every
// time (disk.Dir.SweepTop: ownership, links, modes, stale temp files), and
// a chunk when it reads one (readChunk). It visits every chunk (a full
// check: SweepSub, then checkChunksLocked adopts or moves aside chunks
// without metadata) only when something may have changed them behind
// odekmem's back: the lock file records the state of chunks/ that the last
// full check or odekmem's own last write left (disk.CheckState), and a
// different state (another program created, removed or renamed a chunk, or
// changed the directory's mode), a damaged atoms.json, Compact, or a full
// check older than fullCheckEvery makes the next repairing load a full
// one. A store of 18k atoms so opens without 18k stats.
const fullCheckEvery = time.Hour

// needFullCheckLocked reports whether the next repairing load must visit
// every chunk; the caller holds the exclusive lock.
func (s *Store) needFullCheckLocked() bool {
	if s.fullNext {
		return true
	}
	st, ok := s.lock.CheckState()
	if !ok || time.Since(st.At) > fullCheckEvery || st.At.After(time.Now().Add(time.Minute)) {
		return true
	}
	cur, ok := disk.StatDir(s.files.Abs(dirChunks))
	return !ok || cur != (disk.DirState{Ino: st.Ino, Mtime: st.Mtime, Ctime: st.Ctime})
}

// sweepLocked checks the store before a repairing load: the directory
// and its top-level files always, and with full every chunk, filling
// chunkNames and chunkSize from the same pass over chunks/.
func (s *Store) sweepLocked(full bool) error {
	if err := s.files.SweepTop(ownedFiles, dirChunks); err != nil {
		return storeErr(err)
	}
	if !full {
		return nil
	}
	return s.sweepChunksLocked()
}

// sweepChunksLocked is the full check's pass over chunks/.
func (s *Store) sweepChunksLocked() error {
	l, err := s.files.SweepSub(dirChunks)
	if err != nil {
		return storeErr(err)
	}
	s.chunkNames, s.chunkSize = l.Names, l.Sizes
	return nil
}

// recordCheckLocked writes the check state after a full check (full) or
// after a write of odekmem's that left chunks/ as a full check would
// have seen it (the state matched before the write: checkMatched). The
// caller holds the exclusive lock.
func (s *Store) recordCheckLocked(full bool) {
	cur, ok := disk.StatDir(s.files.Abs(dirChunks))
	if !ok {
		return
	}
	st := lockfile.CheckState{At: time.Now(), Ino: cur.Ino, Mtime: cur.Mtime, Ctime: cur.Ctime}
	if !full {
		prev, ok := s.lock.CheckState()
		if !ok {
			return
		}
		st.At = prev.At
	}
	s.lock.SetCheckState(st)
}

// moveAside moves a damaged file into corrupt/ and says so, for a report.
func (s *Store) moveAside(rel string) string { return s.files.MoveAside(rel) }

// saveAside writes recovered bytes of a damaged record into corrupt/.
func (s *Store) saveAside(name string, data []byte) string { return s.files.SaveAside(name, data) }

// checkChunksLocked deals with chunk files no live atom owns. A chunk
// younger than orphanGrace is left alone. An older one whose id is not in
// the store lost its metadata to a concurrent writer (odek rewrites
// atoms.json without a lock): its text is adopted into quarantine as
// source class "recovered" — lossless and still untrusted — and reported.
// Anything else is moved aside.
func (s *Store) checkChunksLocked() error {
	names := make([]string, 0, len(s.chunkNames))
	for name := range s.chunkNames {
		names = append(names, name)
	}
	var adopted []string
	s.freshOrphans = false
	for _, name := range names {
		if disk.IsTempName(name) {
			continue
		}
		id, ok := strings.CutSuffix(name, chunkExt)
		rel := filepath.Join(dirChunks, name)
		switch {
		case !ok || !vocab.ValidID(id):
			s.report(rel, "unexpected file in chunks/", s.moveAside(rel))
			delete(s.chunkSize, name)
		case s.byID[id] != nil:
		case s.chunkFresh(rel) && !s.atomsDamaged:
			// Another writer may be between this chunk and atoms.json:
			// decided at a later load (a full one: freshOrphans keeps the
			// check state from being recorded). When atoms.json was
			// damaged the cause is known, and the notes come back at once.
			s.freshOrphans = true
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
			if mtime, ok := s.files.ModTime(rel); ok {
				created = mtime.UTC()
			}
			reason := reasonRecovered
			if s.atomsDamaged {
				reason = reasonRecoveredDamage
			}
			q := &QuarantinedAtom{
				Atom:          Atom{ID: id, SourceClass: SourceRecovered, Type: TypeObservation, CreatedAt: created, Text: text},
				QuarantinedAt: s.now().UTC(),
				Reason:        reason,
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
	if s.atomsDamaged {
		// One line that says what came back and what did not.
		s.report(fileAtoms, fmt.Sprintf("%d notes lost their records with the damaged file", len(adopted)),
			fmt.Sprintf("their texts are back in quarantine as source %s, kept until you review them (odekmem quarantine, or pane 2): type, pin, project and session are lost; promote what is yours", SourceRecovered))
	}
	for _, name := range adopted {
		rel := filepath.Join(dirChunks, name)
		s.files.Remove(rel)
		delete(s.chunkSize, name)
		if !s.atomsDamaged {
			s.report(rel, "chunk without metadata in atoms.json ("+reasonRecovered+")",
				"adopted into quarantine as source "+string(SourceRecovered)+"; review it with the quarantine verbs")
		}
	}
	disk.SyncDir(s.files.Abs(dirChunks))
	return nil
}

// chunkFresh reports whether the chunk file rel is younger than orphanGrace.
func (s *Store) chunkFresh(rel string) bool {
	mtime, ok := s.files.ModTime(rel)
	return ok && time.Since(mtime) < orphanGrace
}

// odekVectorsPresent reports whether odek's vector cache files exist.
func (s *Store) odekVectorsPresent() bool {
	return s.files.Exists("vectors.gob") || s.files.Exists("vectors.gob.emb")
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
		} else if !s.files.Exists(chunkRel(id)) {
			delete(s.own, id)
			continue
		}
		byID[id] = o.e
		*order = append(*order, o.e)
		n++
	}
	return n
}
