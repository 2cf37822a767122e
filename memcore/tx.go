package memcore

import (
	"context"
	"os"
	"path/filepath"

	"github.com/odekmem/odekmem/internal/disk"
)

// tx collects the writes of one update, as bbolt's Tx does: the metadata
// files to rewrite, the chunks to write and the chunks to remove. commit
// writes them once, chunks first, so atoms.json never lists an atom whose
// chunk is not durable, and removes chunks only once atoms.json no longer
// lists them. Add is a tx of one atom, AddBatch (ingest, import) a tx of
// many: both commit once.
//
// Every write runs in a tx.
type tx struct {
	s                  *Store
	atoms, quar, assoc bool              // files to rewrite at commit
	model, contra      bool              // user_model.json, contradictions.json
	vectors            bool              // rewrite vectors.odm however little changed
	logs               map[string][]byte // untracked files (agent sessions) to write
	chunks             map[string]string // id → text to write at commit
	remove             map[string]bool   // ids whose chunks go after commit
	after              []func()          // run after a successful commit, locks held
}

// onCommit runs fn after the tx committed, still under the write locks
// (Compact measures what its rewrite reclaimed).
func (t *tx) onCommit(fn func()) { t.after = append(t.after, fn) }

// setModelLocked makes m the user model, written at t's commit.
func (s *Store) setModelLocked(t *tx, m UserModel) {
	s.model = m
	t.model = true
}

// writeLog writes a file other processes do not reload the store for
// (they read it from disk each time) at t's commit.
func (t *tx) writeLog(name string, data []byte) {
	if t.logs == nil {
		t.logs = map[string][]byte{}
	}
	t.logs[name] = data
}

// update runs fn with a fresh tx under the write locks (withWriteCtx) and
// commits what it collected, even when fn failed part-way (what fn changed
// in memory must reach disk). A commit that fails leaves memory ahead of
// disk: the next operation reloads everything.
func (s *Store) update(ctx context.Context, fn func(t *tx) error) error {
	return s.withWriteCtx(ctx, func() error {
		t := &tx{s: s}
		err := fn(t)
		if cerr := t.commit(); cerr != nil {
			s.invalidateLocked()
			if err == nil {
				err = cerr
			}
		}
		return err
	})
}

// writeChunk defers an atom's text to commit, counting it at its estimated
// size meanwhile (the cap check of the tx's next atom sees it).
func (t *tx) writeChunk(id, text string) {
	if t.chunks == nil {
		t.chunks = map[string]string{}
	}
	t.chunks[id] = text
	// An id evicted earlier in this tx and written again (an import that
	// brings back an atom a newer one of the same batch evicted) keeps
	// its new chunk: unlinking it after commit would leave atoms.json
	// listing an atom whose text is gone.
	delete(t.remove, id)
	t.s.setUsage(filepath.Join(dirChunks, id+chunkExt), roundUp(int64(len(text)), t.s.size.blockSz))
}

// removeChunkLocked removes an evicted or forgotten atom's chunk after
// commit (atoms.json lists the atom until then).
// Its bytes leave the accounting now, or every later atom of the tx would
// evict again for space already freed.
// A chunk this tx was to write is not written; the id is still unlinked
// after commit, since a chunk of the same id may be on disk from before
// (evicted, written again and evicted again in one batch).
func (s *Store) removeChunkLocked(t *tx, id string) {
	s.dropUsage(filepath.Join(dirChunks, id+chunkExt))
	delete(t.chunks, id)
	if t.remove == nil {
		t.remove = map[string]bool{}
	}
	t.remove[id] = true
}

// saveQuarantineLocked rewrites quarantine.json at t's commit.
func (s *Store) saveQuarantineLocked(t *tx) { t.quar = true }

// saveAssocLocked rewrites the associations at t's commit.
func (s *Store) saveAssocLocked(t *tx) { t.assoc = true }

// commit writes what the tx collected: chunks, atoms.json, quarantine.json,
// the contradictions, the associations, the user model and logs, then
// removes chunks and snapshots the vector cache when enough changed (or
// when the tx asked for it). One new atom alone overlaps its chunk's fsync
// with atoms.json's (writeChunkAndAtomsLocked).
func (t *tx) commit() error {
	if err := t.write(); err != nil {
		return err
	}
	for _, fn := range t.after {
		fn()
	}
	return nil
}

func (t *tx) write() error {
	s := t.s
	if !t.atoms && !t.quar && !t.assoc && !t.model && !t.contra && !t.vectors &&
		len(t.logs) == 0 && len(t.chunks) == 0 && len(t.remove) == 0 {
		return nil
	}
	if len(t.chunks) == 1 && t.atoms {
		for id, text := range t.chunks {
			if err := s.writeChunkAndAtomsLocked(id, text); err != nil {
				return err
			}
		}
		t.chunks, t.atoms = nil, false
	}
	if len(t.chunks) > 0 {
		files := make(map[string][]byte, len(t.chunks))
		for id, text := range t.chunks {
			files[id+chunkExt] = []byte(text)
		}
		s.wrote = true
		err := disk.WriteFiles(filepath.Join(s.dir, dirChunks), files)
		for id := range t.chunks {
			if err != nil {
				os.Remove(s.files.Abs(chunkRel(id)))
			}
			s.account(filepath.Join(dirChunks, id+chunkExt))
		}
		s.account(dirChunks)
		if err != nil {
			return err
		}
	}
	if t.atoms {
		if err := s.writeAtomsLocked(); err != nil {
			return err
		}
	}
	if t.quar {
		if err := s.writeQuarantineLocked(); err != nil {
			return err
		}
	}
	if t.contra {
		if err := s.writeContradictionsLocked(); err != nil {
			return err
		}
	}
	if t.assoc {
		if err := s.writeAssocLocked(); err != nil {
			return err
		}
	}
	if t.model {
		if err := s.writeUserModelLocked(); err != nil {
			return err
		}
	}
	for name, data := range t.logs {
		// Not s.wrote: no tracked file changed, so other processes need
		// not reload the store.
		if err := disk.WriteFile(filepath.Join(s.dir, name), data); err != nil {
			return err
		}
		s.account(name)
	}
	if len(t.remove) > 0 {
		rels := make([]string, 0, len(t.remove))
		for id := range t.remove {
			rels = append(rels, chunkRel(id))
		}
		s.files.RemoveMany(rels)
	}
	if t.vectors {
		return s.vec.Snapshot(s.writeVectors)
	}
	return s.maybeSnapshotLocked()
}
