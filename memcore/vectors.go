package memcore

import (
	"context"

	"github.com/odekmem/odekmem/internal/index"
	"github.com/odekmem/odekmem/internal/vocab"
)

// The derived vector cache: vectors.odm holds odekmem's own metadata (the
// embedder fingerprint and width in its header), ids, texts and int8
// quantised vectors. It is only a cache: anything missing or damaged is
// rebuilt from the chunk files. odek's cache (vectors.gob, vectors.gob.emb
// and vectors_meta.json) is odek's: never read, and vectors_meta.json is
// written only while odek's files are absent, so neither program
// invalidates the other's cache.
//
// The vector state itself (indexes, cache, background build,
// near-duplicate lookup) is index.State; this file is the glue: the live
// atoms it is shown, the files it is read from and written to, and the
// damage it reports.
const fileVectors = "vectors.odm"

// liveAtoms shows the store's live atoms to the vector state; the caller
// holds s.mu.
type liveAtoms struct{ s *Store }

func (l liveAtoms) Text(id string) (string, bool) {
	if e := l.s.byID[id]; e != nil {
		return e.atom.Text, true
	}
	return "", false
}

func (l liveAtoms) Len() int { return len(l.s.order) }

func (l liveAtoms) At(i int) (id, text string) {
	e := l.s.order[i]
	return e.atom.ID, e.atom.Text
}

func (l liveAtoms) Each(fn func(id, text string)) {
	for _, e := range l.s.order {
		fn(e.atom.ID, e.atom.Text)
	}
}

// startVectorLoad reads and decodes vectors.odm in the background while
// Open sweeps the directory and parses atoms.json.
func (s *Store) startVectorLoad() {
	s.vec.StartLoad(func() ([]byte, error) {
		data, _, err := s.files.MapFile(fileVectors)
		return data, err
	}, vocab.ValidID)
}

// finishVectorLoad waits for startVectorLoad and reports a damaged cache,
// moving it aside (unless the sweep moved it meanwhile).
func (s *Store) finishVectorLoad() {
	d := s.vec.FinishLoad()
	s.size.loadedLex = s.vec.LoadedLexSize()
	if d == nil || !s.files.Exists(fileVectors) {
		return
	}
	action := s.moveAside(fileVectors)
	if d.Rebuild {
		action += "; rebuilding from chunks"
	}
	s.report(fileVectors, d.Problem, action)
}

// cachedAt lets loadAtoms take texts from the cache instead of chunks;
// hint is the atom's position among the live atoms (index.State.CachedAt).
func (s *Store) cachedAt(hint int, id string) (index.Cached, bool) {
	s.finishVectorLoad()
	return s.vec.CachedAt(hint, id)
}

// reconcileVectorsLocked makes the index match the live atoms after a
// reload; the returned embed runs once s.mu is released, with the
// caller's ctx (see index.State.Reconcile).
func (s *Store) reconcileVectorsLocked() (func(context.Context) error, error) {
	return s.vec.Reconcile(liveAtoms{s})
}

// writeVectors writes a snapshot of the vector state: vectors.odm, and
// vectors_meta.json unless odek's cache is there (writing ours over it
// would make odek rebuild, and odek's over ours is ignored: vectors.odm
// names its own embedder). On a store without odek's cache it tells odek
// that nothing there is its own. The caller holds the write locks.
func (s *Store) writeVectors(cache []byte, meta func(file string) []byte) error {
	if err := s.writeTracked(fileVectors, cache); err != nil {
		return err
	}
	s.setLexRatio(index.SnapshotLexSize(cache))
	if !s.odekVectorsPresent() {
		return s.writeTracked(fileVectorsMeta, meta(fileVectors))
	}
	return nil
}

// flushVectorsLocked writes the vector cache at Close when this process
// left many changes out of it (a bulk writer: a large store snapshots
// only every eighth of its size), if no other process holds the store.
// s.mu is held.
func (s *Store) flushVectorsLocked() {
	if s.closed || !s.vec.Unsaved() {
		return
	}
	if ok, err := s.lock.TryLock(true); err != nil || !ok {
		return // another process is at work: its next snapshot will do
	}
	defer s.lock.Unlock()
	s.vec.Snapshot(s.writeVectors)
}

// maybeSnapshotLocked writes the vector cache when enough changed.
func (s *Store) maybeSnapshotLocked() error { return s.vec.MaybeSnapshot(false, s.writeVectors) }
