package memcore

import (
	"context"
	"os"
	"path/filepath"

	"github.com/odekmem/odekmem/memcore/internal/disk"
)

// tx collects the writes of one update, as bbolt's Tx does: the metadata
// files to rewrite, the chunks to write and the chunks to remove. commit
// writes them once, chunks first, so atoms.json never lists an atom whose
// chunk is not durable, and removes chunks only once atoms.json no longer
// lists them. Add is a tx of one atom, AddBatch (ingest, import) a tx of
// many: both commit once.
//
// The few single-operation paths that still write through at once
// (Forget, Promote, the expiry of Compact) pass a nil *tx: its methods then
// write immediately.
type tx struct {
	s                  *Store
	atoms, quar, assoc bool              // files to rewrite at commit
	chunks             map[string]string // id → text to write at commit
	remove             []string          // ids whose chunks go after commit
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
	t.s.setUsage(filepath.Join(dirChunks, id+chunkExt), roundUp(int64(len(text)), t.s.size.blockSz))
}

// removeChunkLocked removes an evicted or forgotten atom's chunk: at once
// without a tx, else after commit (atoms.json lists the atom until then).
// Its bytes leave the accounting now, or every later atom of the tx would
// evict again for space already freed.
func (s *Store) removeChunkLocked(t *tx, id string) {
	s.dropUsage(filepath.Join(dirChunks, id+chunkExt))
	switch {
	case t == nil:
		os.Remove(s.chunkPath(id))
		s.wrote = true
	case t.chunks[id] != "":
		delete(t.chunks, id)
	default:
		t.remove = append(t.remove, id)
	}
}

// saveQuarantineLocked rewrites quarantine.json at t's commit, or at once
// without a tx.
func (s *Store) saveQuarantineLocked(t *tx) {
	if t != nil {
		t.quar = true
		return
	}
	s.writeQuarantineLocked()
}

// saveAssocLocked rewrites the associations at t's commit, or at once
// without a tx.
func (s *Store) saveAssocLocked(t *tx) {
	if t != nil {
		t.assoc = true
		return
	}
	s.writeAssocLocked()
}

// commit writes what the tx collected: chunks, atoms.json, quarantine.json,
// the associations, then removes chunks and snapshots the vector cache when
// enough changed. One new atom alone overlaps its chunk's fsync with
// atoms.json's (writeChunkAndAtomsLocked).
func (t *tx) commit() error {
	s := t.s
	if !t.atoms && !t.quar && !t.assoc && len(t.chunks) == 0 && len(t.remove) == 0 {
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
				os.Remove(s.chunkPath(id))
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
	if t.assoc {
		if err := s.writeAssocLocked(); err != nil {
			return err
		}
	}
	for _, id := range t.remove {
		os.Remove(s.chunkPath(id))
		s.wrote = true
	}
	return s.vec.maybeSnapshot(false)
}
