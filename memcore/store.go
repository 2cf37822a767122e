package memcore

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/odekmem/odekmem/internal/textutil"
	"github.com/odekmem/odekmem/internal/vocab"
	"github.com/odekmem/odekmem/memcore/guard"
	"github.com/odekmem/odekmem/memcore/internal/par"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"sync"
	"time"
)

// File names inside the store directory (FORMATS.md).
const (
	fileAtoms        = "atoms.json"
	fileQuarantine   = "quarantine.json"
	fileUserModel    = "user_model.json"
	fileAssoc        = "associations.json"
	fileAssocKinds   = "associations_kinds.json"
	fileVectorsMeta  = "vectors_meta.json"
	fileLockName     = ".lock"
	dirChunks        = "chunks"
	dirCorrupt       = "corrupt"
	chunkExt         = ".md"
	maxChunkReadSize = 1 << 20
)

// Options configures Open. Open builds what the Config says (the embedder
// from Config.Embedding, the memory LLM from Config.LLM); Embedder and LLM
// override those. The zero Options is a store with DefaultConfig(), the
// offline hash embedder and no LLM.
type Options struct {
	// Config is memory.extended; nil means DefaultConfig(), and zero
	// fields of a literal Config take their defaults (see Config).
	Config *Config
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// Embedder, when set, is used instead of the one Config.Embedding
	// names.
	Embedder Embedder
	// LLM, when set, is used instead of the one Config.LLM names.
	LLM LLMClient
	// Guard is the optional second opinion (memcore/guard): text the local
	// scanner passes on a tainted or inferred path, and every promote of
	// a flagged entry, gets its verdict. nil means none.
	Guard *guard.Guard
	// LockTimeout bounds the wait for the store's lock file while another
	// process holds it; zero means DefaultLockTimeout (30 s).
	LockTimeout time.Duration
}

// Problem is one piece of damage found while opening or reloading a store.
type Problem struct {
	File    string `json:"file"`
	Problem string `json:"problem"`
	Action  string `json:"action"`
}

func (p Problem) String() string {
	return fmt.Sprintf("%s: %s (%s)", p.File, p.Problem, p.Action)
}

// QuarantinedAtom is an atom held back from recall until a person promotes
// it, with why and since when.
type QuarantinedAtom struct {
	Atom
	QuarantinedAt time.Time `json:"quarantined_at"`
	Reason        string    `json:"reason"`
	// orig is the entry as read from quarantine.json, for its unknown
	// fields.
	orig []byte
}

// quarEntry is a QuarantinedAtom in quarantine.json, with the unknown
// fields it was read with.
type quarEntry QuarantinedAtom

// MarshalJSON writes the entry with the unknown fields it was read with.
func (q quarEntry) MarshalJSON() ([]byte, error) {
	b, err := json.Marshal(QuarantinedAtom(q))
	if err != nil {
		return nil, err
	}
	return keepUnknown(b, q.orig, schemaOf(reflect.TypeFor[QuarantinedAtom]())), nil
}

// ExpiresAt is when the TTL removes the entry; zero when TTL is disabled.
func (q QuarantinedAtom) ExpiresAt(ttlDays float64) time.Time {
	if ttlDays <= 0 {
		return time.Time{}
	}
	return q.QuarantinedAt.Add(time.Duration(ttlDays * 24 * float64(time.Hour)))
}

type entry struct {
	atom Atom
	raw  []byte // record bytes as laid out inside atoms.json; nil → marshal
	orig []byte // the record as read, for its unknown fields (nil: ours)
	norm string // textutil.Normalize(atom.Text), computed on first use

	// Incremental size accounting (see track).
	recLen, cacheLen int64
	tracked          bool
}

// Store is an open extended-memory directory. All methods are safe for
// concurrent use, within a process and across processes sharing the
// directory: writers hold an flock on the store's lock file and reload
// whatever another process changed before they modify anything.
type Store struct {
	dir  string
	cfg  Config
	now  func() time.Time
	opts Options

	mu      sync.RWMutex
	lock    *fileLock
	closed  bool
	closing bool // Close has begun: no new background work starts

	order []*entry
	byID  map[string]*entry
	quar  []*QuarantinedAtom
	model UserModel
	graph *assocGraph
	// contra are the recorded contradictions (contradictions.json).
	contra []Contradiction

	sigs     map[string]fileSig
	gen      uint64           // write generation last seen in the lock file
	usage    map[string]int64 // rel path → allocated bytes
	usageSum int64            // sum of usage

	// Incremental size accounting (see projectedLocked): bytes the live
	// atoms add to atoms.json and to the vector cache, and the JSON size of
	// each quarantine entry.
	recBytes, cacheBytes int64
	quarSizes            map[*QuarantinedAtom]int64

	normIdx  map[string]*entry // normalised text → newest live atom; nil = rebuild
	normDups int               // texts held by more than one live atom

	evictIdx   []*entry // live atoms by ascending retention; nil = rebuild
	evictStale int      // entries in evictIdx that left the store
	wrote      bool     // a file changed during the current withWrite

	pendingChunks map[string]string // batch: chunks to write at flush
	pendingRemove []string          // batch: chunks to remove after flush
	blockSz       int64
	problems      []Problem
	reported      map[string]bool

	vec *vectorState

	chunkNames map[string]bool  // chunk file names seen by the last repairing load
	chunkSize  map[string]int64 // their allocated sizes (during that load)

	bg sync.WaitGroup // background compactions

	// own holds the live atoms this process wrote in the last ownWindow,
	// to re-add any that a writer without the lock (odek) drops by
	// rewriting atoms.json from an older read (see readdOwnLocked).
	own map[string]*ownRecord
	// assocExtra holds members of associations.json that are not link
	// lists (another writer's), written back as read.
	assocExtra   map[string]json.RawMessage
	readdPending bool // a non-repairing load re-added some: write them

	batching, batchDirty, batchQuarDirty, batchAssocDirty bool
}

// Dir is the store directory (…/memory/extended).
func (s *Store) Dir() string { return s.dir }

// Config is the configuration the store was opened with.
func (s *Store) Config() Config { return s.cfg }

// Open opens (creating if needed) the store in dir. Damage never prevents
// opening: intact atoms load, damaged pieces are moved into dir/corrupt/
// and reported by Problems.
func Open(dir string, opts Options) (*Store, error) {
	cfg := DefaultConfig()
	if opts.Config != nil {
		cfg = opts.Config.withDefaults()
	}
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	emb := opts.Embedder
	if emb == nil {
		var ec EmbeddingConfig
		if cfg.Embedding != nil {
			ec = *cfg.Embedding
		}
		var err error
		if emb, err = NewEmbedder(ec); err != nil {
			return nil, err
		}
	}
	if opts.LLM == nil && cfg.LLM != nil {
		var err error
		if opts.LLM, err = newLLM(*cfg.LLM); err != nil {
			return nil, err
		}
	}
	now := opts.Now
	if now == nil {
		now = time.Now
	}
	s := &Store{dir: dir, cfg: cfg, now: now, opts: opts, byID: map[string]*entry{}, graph: newAssocGraph(),
		sigs: map[string]fileSig{}, usage: map[string]int64{}, blockSz: 4096, reported: map[string]bool{}}
	// Only the directory itself: chunks/ is checked (never followed as a
	// link) before the first load creates it.
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("create store %s: %w", dir, err)
	}
	// The directory is checked before anything is written into it: a
	// store of another user, or one left writable by others, is refused
	// without a lock file of ours appearing in it (the sweep under the
	// lock checks it again with everything else).
	if err := s.checkDirLocked(dir, true, false); err != nil {
		return nil, err
	}
	l, err := openLock(filepath.Join(dir, fileLockName), opts.LockTimeout)
	if err != nil {
		return nil, err
	}
	s.lock = l
	s.vec = newVectorState(s, emb)
	if err := s.lock.lock(context.Background(), true); err != nil {
		l.close()
		return nil, err
	}
	s.gen = s.lock.generation()
	s.vec.startLoadCache()
	err = s.loadAllLocked(true)
	s.vec.finishLoadCache()
	s.lock.unlock()
	if err == nil {
		// Without the file lock: filling the index may embed texts the
		// cache lacks (a network call with an HTTP embedder).
		err = s.vec.open()
	}
	if err != nil {
		l.close()
		return nil, err
	}
	return s, nil
}

// Close waits for the store's background work (a compaction, an index
// build), then releases the lock file. Afterwards every method that returns
// an error returns ErrClosed, and the others return empty results. A Hook
// over the store must be closed first (Hook.Close).
func (s *Store) Close() error {
	s.mu.Lock()
	if s.closed || s.closing {
		s.mu.Unlock()
		return nil
	}
	// Background compactions start only inside a write, under mu, while
	// the store is not closing: none starts after this, and one already
	// started runs to its end.
	s.closing = true
	s.mu.Unlock()
	s.bg.Wait()
	s.mu.Lock()
	s.closed = true
	s.mu.Unlock()
	s.vec.close()
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.lock.close()
}

func (s *Store) isClosed() bool {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.closed
}

// Problems returns the damage found since open, each reported once.
func (s *Store) Problems() []Problem {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return append([]Problem(nil), s.problems...)
}

func (s *Store) report(file, problem, action string) {
	key := file + "\x00" + problem
	if s.reported[key] {
		return
	}
	s.reported[key] = true
	s.problems = append(s.problems, Problem{File: file, Problem: problem, Action: action})
}

// saveAside writes recovered bytes of a damaged record into corrupt/.
func (s *Store) saveAside(name string, data []byte) string {
	dir := filepath.Join(s.dir, dirCorrupt)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "could not save aside: " + err.Error()
	}
	p := filepath.Join(dir, name+"."+s.now().UTC().Format("20060102T150405")+"-"+vocab.NewID()[:6])
	if err := writeFileAtomic(p, data); err != nil {
		return "could not save aside: " + err.Error()
	}
	s.wrote = true
	r, _ := filepath.Rel(s.dir, p)
	return "saved to " + r
}

func (s *Store) tracked() []string {
	return []string{fileAtoms, fileQuarantine, fileUserModel, fileAssoc, fileAssocKinds, fileContradictions}
}

// changedLocked reports whether any tracked file differs from what this
// process last read or wrote.
func (s *Store) changedLocked() bool {
	if s.lock.generation() != s.gen {
		return true
	}
	for _, f := range s.tracked() {
		if statSig(filepath.Join(s.dir, f)) != s.sigs[f] {
			return true
		}
	}
	return false
}

// syncLocked reloads the metadata from disk when another process changed
// the store and reports whether it did; the caller then reconciles the
// vector index (s.vec.reconcile) after releasing the file lock, because
// that may embed texts, a network call with an HTTP embedder. The caller
// holds s.mu (write) and the file lock.
func (s *Store) syncLocked(repair bool) (bool, error) {
	if !s.changedLocked() {
		return false, nil
	}
	s.gen = s.lock.generation()
	if err := s.loadAllLocked(repair); err != nil {
		return true, err
	}
	return true, nil
}

// withWrite runs fn holding the process mutex and the exclusive file lock,
// after reloading anything another process changed. The vector index
// catches up with such a reload after the file lock is released: until
// then write-time dedup may miss the other process's atoms, which is all.
func (s *Store) withWrite(fn func() error) error {
	return s.withWriteCtx(context.Background(), fn)
}

// withWriteCtx is withWrite whose wait for the file lock ends with ctx.
func (s *Store) withWriteCtx(ctx context.Context, fn func() error) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return ErrClosed
	}
	if err := s.lock.lock(ctx, true); err != nil {
		return err
	}
	s.wrote = false
	reloaded, err := s.syncLocked(true)
	if err == nil {
		err = fn()
	}
	// Whatever was written (even by a write that failed half-way), other
	// processes must reload before their next read-modify-write.
	if s.wrote {
		s.gen = s.lock.bump()
	}
	s.lock.unlock()
	if reloaded {
		if rerr := s.vec.reconcile(); err == nil {
			err = rerr
		}
	}
	return err
}

// Refresh reloads the store if another process changed it and reports
// whether anything changed. Readers call it before showing data.
func (s *Store) Refresh() (bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return false, ErrClosed
	}
	if !s.changedLocked() {
		return false, nil
	}
	if err := s.lock.lock(context.Background(), false); err != nil {
		return false, err
	}
	if !s.changedLocked() {
		s.lock.unlock()
		return false, nil
	}
	s.gen = s.lock.generation()
	err := s.loadAllLocked(false)
	s.lock.unlock()
	if err != nil {
		return false, err
	}
	if s.readdPending {
		// Atoms of ours another writer dropped: write them back now.
		if err := s.lock.lock(context.Background(), true); err != nil {
			return true, err
		}
		s.wrote = false
		s.readdPending = false
		if _, err = s.syncLocked(true); err == nil && s.readdPending {
			err = s.writeAtomsLocked()
		}
		s.readdPending = false
		if s.wrote {
			s.gen = s.lock.bump()
		}
		s.lock.unlock()
		if err != nil {
			return true, err
		}
	}
	return true, s.vec.reconcile()
}

// read runs fn under the read lock after an opportunistic refresh; after
// Close it returns ErrClosed without running fn.
func (s *Store) read(fn func()) error {
	s.Refresh()
	s.mu.RLock()
	defer s.mu.RUnlock()
	if s.closed {
		return ErrClosed
	}
	fn()
	return nil
}

// loadAllLocked (re)reads every metadata file. With repair, damaged pieces
// are moved aside and files rewritten without them.
func (s *Store) loadAllLocked(repair bool) error {
	s.chunkNames, s.chunkSize = nil, nil
	defer func() { s.chunkSize = nil }()
	if repair {
		// One pass over chunks/ serves the sweep, the texts from the cache,
		// the orphan check and the size accounting.
		if err := s.sweepLocked(); err != nil {
			return err
		}
		if err := os.Mkdir(filepath.Join(s.dir, dirChunks), 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
			return fmt.Errorf("create chunks directory: %w", err)
		}
	}
	if err := s.loadAtomsLocked(repair); err != nil {
		return err
	}
	s.loadQuarantineLocked(repair)
	s.loadUserModelLocked(repair)
	s.loadAssocLocked(repair)
	s.loadContradictionsLocked(repair)
	if repair {
		if err := s.checkChunksLocked(); err != nil {
			return err
		}
	}
	s.measureLocked()
	return nil
}

// decodeArray decodes a JSON array leniently: the intact prefix of a
// truncated file is returned with the error that stopped decoding.
func decodeArray(data []byte) ([]json.RawMessage, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	if d, ok := tok.(json.Delim); !ok || d != '[' {
		return nil, fmt.Errorf("not a JSON array")
	}
	var out []json.RawMessage
	for dec.More() {
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return out, err
		}
		out = append(out, raw)
	}
	if _, err := dec.Token(); err != nil {
		return out, err
	}
	if _, err := dec.Token(); err == nil {
		return out, fmt.Errorf("data after the array")
	}
	return out, nil
}

func (s *Store) loadAtomsLocked(repair bool) error {
	data, err := s.readStoreFile(fileAtoms)
	if errors.Is(err, fs.ErrNotExist) {
		s.order, s.byID = nil, map[string]*entry{}
		s.retrackAllLocked()
		s.sigs[fileAtoms] = fileSig{}
		return nil
	}
	dirty := false
	var recs []json.RawMessage
	if err != nil {
		if repair {
			s.report(fileAtoms, err.Error(), s.moveAside(fileAtoms))
		}
		dirty = true
	} else if len(bytes.TrimSpace(data)) > 0 {
		if json.Unmarshal(data, &recs) != nil || recs == nil {
			recs, err = decodeArray(data) // lenient: keeps the intact prefix
		}
		if err != nil {
			if repair {
				s.report(fileAtoms, "invalid JSON: "+err.Error(), fmt.Sprintf("kept %d intact records; %s", len(recs), s.saveAside(fileAtoms, data)))
			}
			dirty = true
		}
	}
	old := s.byID
	order := make([]*entry, 0, len(recs))
	byID := make(map[string]*entry, len(recs))
	var toQuarantine []*QuarantinedAtom
	decoded := decodeRecords(recs)
	for i, raw := range recs {
		a, ind, err := decoded[i].atom, decoded[i].raw, decoded[i].err
		if err != nil {
			if repair {
				s.report(fileAtoms, "invalid record: "+err.Error(), s.saveAside("atoms-record.json", raw))
			}
			dirty = true
			continue
		}
		if !vocab.ValidID(a.ID) {
			if repair {
				s.report(fileAtoms, fmt.Sprintf("invalid id %q", a.ID), s.saveAside("atoms-record.json", raw))
			}
			dirty = true
			continue
		}
		if _, dup := byID[a.ID]; dup {
			if repair {
				s.report(fileAtoms, "duplicate id "+a.ID, "kept the first record; "+s.saveAside("atoms-record.json", raw))
			}
			dirty = true
			continue
		}
		a.Text = ""
		e := &entry{atom: a, raw: ind, orig: ind}
		if prev, ok := old[a.ID]; ok && bytes.Equal(prev.raw, e.raw) {
			e.atom.Text, e.norm = prev.atom.Text, prev.norm
		} else if t, ok := s.vec.cachedText(a.ID); ok && s.chunkNames[a.ID+chunkExt] {
			e.atom.Text = t
		} else {
			text, err := s.readChunk(a.ID)
			if err != nil {
				if !repair {
					continue // another process may be mid-write; the next locked load decides
				}
				s.report(filepath.Join(fileAtoms), "atom "+a.ID+" has no chunk: "+err.Error(), s.saveAside("atoms-record.json", raw))
				dirty = true
				continue
			}
			e.atom.Text = text
		}
		if !vocab.ValidSource(a.SourceClass) || vocab.IsTainted(a.SourceClass) {
			if repair {
				s.report(fileAtoms, fmt.Sprintf("atom %s has untrusted source class %q in the live store", a.ID, a.SourceClass), "moved to quarantine")
				toQuarantine = append(toQuarantine, &QuarantinedAtom{Atom: e.atom, QuarantinedAt: s.now().UTC(), Reason: "tainted", orig: e.orig})
				dirty = true
			}
			continue
		}
		byID[a.ID] = e
		order = append(order, e)
	}
	if n := s.readdOwnLocked(&order, byID); n > 0 {
		dirty = true
		if repair {
			s.report(fileAtoms, fmt.Sprintf("%d atoms odekmem wrote were dropped from atoms.json by another writer (odek writes without a lock)", n), "re-added")
		} else {
			s.readdPending = true
		}
	}
	s.order, s.byID = order, byID
	s.retrackAllLocked()
	s.sigs[fileAtoms] = statSig(filepath.Join(s.dir, fileAtoms))
	if dirty && repair {
		if len(toQuarantine) > 0 {
			s.loadQuarantineLocked(true)
			for _, q := range toQuarantine {
				if q.Atom.Text != "" {
					os.Remove(s.chunkPath(q.ID))
				}
				s.quar = append(s.quar, q)
			}
			if err := s.writeQuarantineLocked(); err != nil {
				return err
			}
		}
		return s.writeAtomsLocked()
	}
	return nil
}

type decodedRecord struct {
	atom Atom
	raw  []byte
	err  error
}

// decodeRecords unmarshals atoms.json records and lays out each as
// atoms.json holds it, on every core: this is most of Open's work.
func decodeRecords(recs []json.RawMessage) []decodedRecord {
	out := make([]decodedRecord, len(recs))
	par.For(len(recs), 256, 0, func(i int) {
		d := &out[i]
		if d.err = json.Unmarshal(recs[i], &d.atom); d.err == nil {
			d.raw = indentRecord(recs[i])
		}
	})
	return out
}

func indentRecord(raw json.RawMessage) []byte {
	var buf bytes.Buffer
	if err := json.Indent(&buf, bytes.TrimSpace(raw), "  ", "  "); err != nil {
		return nil
	}
	return buf.Bytes()
}

func (s *Store) chunkPath(id string) string {
	return filepath.Join(s.dir, dirChunks, id+chunkExt)
}

func (s *Store) readChunk(id string) (string, error) {
	data, err := s.readStoreFile(filepath.Join(dirChunks, id+chunkExt))
	if err != nil {
		return "", err
	}
	if len(data) > maxChunkReadSize {
		data = data[:maxChunkReadSize]
	}
	return string(bytes.ToValidUTF8(data, []byte("\uFFFD"))), nil
}

func (s *Store) loadQuarantineLocked(repair bool) {
	s.quar = nil
	s.quarSizes = nil
	data, err := s.readStoreFile(fileQuarantine)
	s.sigs[fileQuarantine] = statSig(filepath.Join(s.dir, fileQuarantine))
	if errors.Is(err, fs.ErrNotExist) {
		return
	}
	if err != nil {
		if repair {
			s.report(fileQuarantine, err.Error(), s.moveAside(fileQuarantine))
		}
		return
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return
	}
	recs, err := decodeArray(data)
	dirty := false
	if err != nil {
		if repair {
			s.report(fileQuarantine, "invalid JSON: "+err.Error(), fmt.Sprintf("kept %d intact entries; %s", len(recs), s.saveAside(fileQuarantine, data)))
		}
		dirty = true
	}
	seen := map[string]bool{}
	for _, raw := range recs {
		var q QuarantinedAtom
		if err := json.Unmarshal(raw, &q); err != nil || !vocab.ValidID(q.ID) || seen[q.ID] {
			if repair {
				why := "invalid entry"
				if err != nil {
					why += ": " + err.Error()
				} else if seen[q.ID] {
					why = "duplicate id " + q.ID
				} else {
					why = fmt.Sprintf("invalid id %q", q.ID)
				}
				s.report(fileQuarantine, why, s.saveAside("quarantine-entry.json", raw))
			}
			dirty = true
			continue
		}
		seen[q.ID] = true
		q.orig = raw
		if s.byID[q.ID] != nil {
			// A promotion that crashed between writing atoms.json and
			// quarantine.json: the live copy wins.
			dirty = true
			continue
		}
		if q.Reason == "" {
			q.Reason = "tainted"
		}
		s.quar = append(s.quar, &q)
	}
	if dirty && repair {
		s.writeQuarantineLocked()
	}
}

func (s *Store) loadUserModelLocked(repair bool) {
	s.model = UserModel{}
	data, err := s.readStoreFile(fileUserModel)
	s.sigs[fileUserModel] = statSig(filepath.Join(s.dir, fileUserModel))
	if errors.Is(err, fs.ErrNotExist) {
		return
	}
	if err == nil {
		err = json.Unmarshal(data, (*userModelFile)(&s.model))
	}
	if err != nil {
		s.model = UserModel{}
		if repair {
			s.report(fileUserModel, "invalid: "+err.Error(), s.moveAside(fileUserModel))
		}
		return
	}
	// Pending entries with unusable ids are dropped (saved aside).
	var keep []PendingReview
	for _, p := range s.model.Pending {
		if !vocab.ValidID(p.ID) {
			if repair {
				b, _ := json.Marshal(pendingEntry(p))
				s.report(fileUserModel, fmt.Sprintf("pending review with invalid id %q", p.ID), s.saveAside("pending-entry.json", b))
			}
			continue
		}
		keep = append(keep, p)
	}
	if len(keep) != len(s.model.Pending) {
		s.model.Pending = keep
		if repair {
			s.writeUserModelLocked()
		}
	}
}

func (s *Store) loadAssocLocked(repair bool) {
	s.graph = newAssocGraph()
	data, err := s.readStoreFile(fileAssoc)
	s.sigs[fileAssoc] = statSig(filepath.Join(s.dir, fileAssoc))
	s.sigs[fileAssocKinds] = statSig(filepath.Join(s.dir, fileAssocKinds))
	if errors.Is(err, fs.ErrNotExist) {
		return
	}
	var plain map[string][]string
	s.assocExtra = nil
	if err == nil {
		// A member whose value is not a list of ids is another writer's
		// (a newer odek's): kept as read and written back.
		var members map[string]json.RawMessage
		if err = json.Unmarshal(data, &members); err == nil {
			plain = make(map[string][]string, len(members))
			for k, v := range members {
				var ids []string
				if json.Unmarshal(v, &ids) == nil {
					plain[k] = ids
					continue
				}
				if s.assocExtra == nil {
					s.assocExtra = map[string]json.RawMessage{}
				}
				s.assocExtra[k] = v
			}
		}
	}
	if err != nil {
		if repair {
			s.report(fileAssoc, "invalid: "+err.Error(), s.moveAside(fileAssoc))
		}
		return
	}
	var kinds map[string]string
	if kd, err := s.readStoreFile(fileAssocKinds); err == nil {
		if json.Unmarshal(kd, &kinds) != nil && repair {
			s.report(fileAssocKinds, "invalid JSON", s.moveAside(fileAssocKinds))
		}
	}
	known := func(id string) bool {
		if s.byID[id] != nil {
			return true
		}
		for _, q := range s.quar {
			if q.ID == id {
				return true
			}
		}
		return false
	}
	bad := 0
	for _, id := range slices.Sorted(maps.Keys(plain)) {
		for _, n := range plain[id] {
			if !vocab.ValidID(id) || !vocab.ValidID(n) {
				bad++
				continue
			}
			if !known(id) || !known(n) {
				continue // links to forgotten atoms are dropped quietly
			}
			s.graph.link(id, n, kinds[pairKey(id, n)])
		}
	}
	if bad > 0 && repair {
		s.report(fileAssoc, fmt.Sprintf("%d links with invalid ids", bad), "skipped")
		s.writeAssocLocked()
	}
}

// measureLocked walks the store and records allocated bytes per file.
func (s *Store) measureLocked() {
	s.usage = map[string]int64{}
	s.usageSum = 0
	chunksDir := filepath.Join(s.dir, dirChunks)
	filepath.WalkDir(s.dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if s.chunkSize != nil && p == chunksDir {
			// Measured by the sweep of this load already.
			if fi, err := d.Info(); err == nil {
				s.setUsage(dirChunks, allocated(fi))
			}
			for name, n := range s.chunkSize {
				s.setUsage(filepath.Join(dirChunks, name), n)
			}
			return filepath.SkipDir
		}
		fi, err := d.Info()
		if err != nil {
			return nil
		}
		rel, _ := filepath.Rel(s.dir, p)
		s.setUsage(rel, allocated(fi))
		return nil
	})
	for id := range s.pendingChunks {
		s.setUsage(filepath.Join(dirChunks, id+chunkExt), roundUp(int64(len(s.pendingChunks[id])), s.blockSz))
	}
	if st, err := statfsBlock(s.dir); err == nil && st > 0 {
		s.blockSz = st
	}
}

// account re-measures one file after a write or removal.
func (s *Store) account(rel string) {
	fi, err := os.Lstat(filepath.Join(s.dir, rel))
	if err != nil {
		s.dropUsage(rel)
		return
	}
	s.setUsage(rel, allocated(fi))
}

func (s *Store) setUsage(rel string, n int64) {
	s.usageSum += n - s.usage[rel]
	s.usage[rel] = n
}

func (s *Store) dropUsage(rel string) {
	s.usageSum -= s.usage[rel]
	delete(s.usage, rel)
}

func (s *Store) totalLocked() int64 { return s.usageSum }

// ---- incremental accounting and the duplicate index ----

// track (re)counts e in recBytes and cacheBytes; call it after e.raw or
// e.atom changed.
func (s *Store) track(e *entry) {
	s.untrack(e)
	e.recLen = int64(len(s.recordBytes(e)) + 4)
	e.cacheLen = s.cacheEntrySize(e.atom.ID, e.atom.Text)
	s.recBytes += e.recLen
	s.cacheBytes += e.cacheLen
	e.tracked = true
}

func (s *Store) untrack(e *entry) {
	if e.tracked {
		s.recBytes -= e.recLen
		s.cacheBytes -= e.cacheLen
		e.tracked = false
	}
}

func (s *Store) retrackAllLocked() {
	s.recBytes, s.cacheBytes = 0, 0
	s.normIdx = nil
	s.evictIdx, s.evictStale = nil, 0
	for _, e := range s.order {
		e.tracked = false
		s.track(e)
	}
}

func (e *entry) normText() string {
	if e.norm == "" {
		e.norm = textutil.Normalize(e.atom.Text)
	}
	return e.norm
}

// twinByNorm returns the newest live atom whose normalised text is norm.
func (s *Store) twinByNorm(norm string) *entry {
	if s.normIdx == nil {
		s.normIdx = make(map[string]*entry, len(s.order))
		s.normDups = 0
		for _, e := range s.order {
			s.indexNormLocked(e)
		}
	}
	return s.normIdx[norm]
}

// appendEntryLocked adds a live atom to the in-memory metadata.
func (s *Store) appendEntryLocked(e *entry) {
	s.noteOwnLocked(e)
	s.order = append(s.order, e)
	s.byID[e.atom.ID] = e
	s.track(e)
	if s.normIdx != nil {
		s.indexNormLocked(e)
	}
	s.insertEvictionLocked(e)
}

func (s *Store) indexNormLocked(e *entry) {
	if _, dup := s.normIdx[e.normText()]; dup {
		s.normDups++ // two live atoms with one text (another program wrote them)
	}
	s.normIdx[e.norm] = e
}

// forgetEntryLocked updates the accounting and the duplicate index for an
// entry that left s.order (the caller removes it from order and byID).
func (s *Store) forgetEntryLocked(e *entry) {
	if o := s.own[e.atom.ID]; o != nil && o.e == e {
		delete(s.own, e.atom.ID)
	}
	s.untrack(e)
	if s.evictIdx != nil {
		s.evictStale++ // skipped lazily: byID no longer maps to e
	}
	if s.normIdx == nil || s.normIdx[e.normText()] != e {
		return
	}
	delete(s.normIdx, e.norm)
	if s.normDups == 0 {
		return
	}
	for i := len(s.order) - 1; i >= 0; i-- {
		if o := s.order[i]; o != e && s.byID[o.atom.ID] == o && o.normText() == e.norm {
			s.normIdx[e.norm] = o
			return
		}
	}
}

// popEntryLocked undoes appendEntryLocked for the last entry.
func (s *Store) popEntryLocked(e *entry) {
	if n := len(s.order); n > 0 && s.order[n-1] == e {
		s.order[n-1] = nil
		s.order = s.order[:n-1]
	}
	delete(s.byID, e.atom.ID)
	s.forgetEntryLocked(e)
}

// quarEntrySize is what q adds to quarantine.json.
func (s *Store) quarEntrySize(q *QuarantinedAtom) int64 {
	if n, ok := s.quarSizes[q]; ok {
		return n
	}
	if s.quarSizes == nil || len(s.quarSizes) > 2*len(s.quar)+64 {
		s.quarSizes = make(map[*QuarantinedAtom]int64, len(s.quar))
	}
	b, err := json.MarshalIndent((*quarEntry)(q), "  ", "  ")
	if err != nil {
		panic("memcore: marshal quarantine entry: " + err.Error())
	}
	n := int64(len(b) + 4)
	s.quarSizes[q] = n
	return n
}

// quarBytesLocked is len(quarantineJSON()) without marshalling it.
func (s *Store) quarBytesLocked() int64 {
	t := int64(2)
	for _, q := range s.quar {
		t += s.quarEntrySize(q)
	}
	return t
}

// ---- writers ----

func (s *Store) recordBytes(e *entry) []byte {
	if e.raw != nil {
		return e.raw
	}
	meta := e.atom
	meta.Text = ""
	if e.orig != nil {
		b, err := json.Marshal(meta)
		if err != nil {
			panic("memcore: marshal atom: " + err.Error())
		}
		var buf bytes.Buffer
		if json.Indent(&buf, keepUnknown(b, e.orig, schemaOf(reflect.TypeFor[Atom]())), "  ", "  ") == nil {
			e.raw = buf.Bytes()
			return e.raw
		}
	}
	b, err := json.MarshalIndent(meta, "  ", "  ")
	if err != nil {
		panic("memcore: marshal atom: " + err.Error())
	}
	e.raw = b
	return b
}

func (s *Store) atomsJSON() []byte {
	size := 4
	for _, e := range s.order {
		size += len(s.recordBytes(e)) + 4
	}
	buf := make([]byte, 0, size)
	buf = append(buf, '[')
	for i, e := range s.order {
		if i > 0 {
			buf = append(buf, ',')
		}
		buf = append(buf, "\n  "...)
		buf = append(buf, s.recordBytes(e)...)
	}
	if len(s.order) > 0 {
		buf = append(buf, '\n')
	}
	buf = append(buf, ']')
	return buf
}

func (s *Store) writeTracked(name string, data []byte) error {
	if err := writeFileAtomic(filepath.Join(s.dir, name), data); err != nil {
		return err
	}
	s.wrote = true
	s.sigs[name] = statSig(filepath.Join(s.dir, name))
	s.account(name)
	return nil
}

func (s *Store) writeAtomsLocked() error { return s.writeTracked(fileAtoms, s.atomsJSON()) }

func (s *Store) quarantineJSON() []byte {
	list := make([]*quarEntry, len(s.quar))
	for i, q := range s.quar {
		list[i] = (*quarEntry)(q)
	}
	b, err := json.MarshalIndent(list, "", "  ")
	if err != nil {
		panic("memcore: marshal quarantine: " + err.Error())
	}
	if len(list) == 0 {
		b = []byte("[]")
	}
	return b
}

func (s *Store) writeQuarantineLocked() error {
	return s.writeTracked(fileQuarantine, s.quarantineJSON())
}

func (s *Store) writeUserModelLocked() error {
	b, err := json.MarshalIndent(userModelFile(s.model), "", "  ")
	if err != nil {
		return fmt.Errorf("marshal user model: %w", err)
	}
	return s.writeTracked(fileUserModel, b)
}

func (s *Store) writeAssocLocked() error {
	a, k, err := s.graph.marshal()
	if err != nil {
		return fmt.Errorf("marshal associations: %w", err)
	}
	if len(s.assocExtra) > 0 {
		var members map[string]json.RawMessage
		if err := json.Unmarshal(a, &members); err != nil {
			return fmt.Errorf("marshal associations: %w", err)
		}
		for key, v := range s.assocExtra {
			if _, ours := members[key]; !ours {
				members[key] = v
			}
		}
		if a, err = json.MarshalIndent(members, "", "  "); err != nil {
			return fmt.Errorf("marshal associations: %w", err)
		}
	}
	if err := s.writeTracked(fileAssoc, a); err != nil {
		return err
	}
	return s.writeTracked(fileAssocKinds, k)
}

// writeChunk writes an atom's text. In a batch the write is deferred to
// flushBatchLocked (which writes every chunk before atoms.json) and counted
// at its estimated size meanwhile.
func (s *Store) writeChunk(id, text string) error {
	rel := filepath.Join(dirChunks, id+chunkExt)
	if s.batching {
		if s.pendingChunks == nil {
			s.pendingChunks = map[string]string{}
		}
		s.pendingChunks[id] = text
		s.setUsage(rel, roundUp(int64(len(text)), s.blockSz))
		return nil
	}
	if err := writeFileAtomic(filepath.Join(s.dir, rel), []byte(text)); err != nil {
		return err
	}
	s.wrote = true
	s.account(rel)
	return nil
}

// writeChunkAndAtomsLocked durably writes a new atom's chunk and then
// atoms.json, overlapping the two fsyncs: atoms.json is staged (written and
// fsynced under a temp name) while the chunk is written, and renamed into
// place only once the chunk is durable, so atoms.json never lists an atom
// whose chunk could be missing after a crash.
func (s *Store) writeChunkAndAtomsLocked(id, text string) error {
	rel := filepath.Join(dirChunks, id+chunkExt)
	chunkErr := make(chan error, 1)
	go func() { chunkErr <- writeFileAtomic(filepath.Join(s.dir, rel), []byte(text)) }()
	st, err := stageFile(filepath.Join(s.dir, fileAtoms), s.atomsJSON())
	if cerr := <-chunkErr; cerr != nil {
		if st != nil {
			st.abort()
		}
		return cerr
	}
	s.wrote = true
	s.account(rel)
	s.account(dirChunks)
	if err == nil {
		err = st.commit(true)
	}
	if err != nil {
		os.Remove(filepath.Join(s.dir, rel))
		s.dropUsage(rel)
		return err
	}
	s.sigs[fileAtoms] = statSig(filepath.Join(s.dir, fileAtoms))
	s.account(fileAtoms)
	return nil
}

// invalidateLocked makes the next locked operation reload everything from
// disk: used after a failed write left memory and disk out of step.
func (s *Store) invalidateLocked() {
	s.sigs = map[string]fileSig{}
	s.gen = ^uint64(0)
}

// flushChunksLocked writes the chunks a batch deferred.
func (s *Store) flushChunksLocked() error {
	if len(s.pendingChunks) == 0 {
		return nil
	}
	files := make(map[string][]byte, len(s.pendingChunks))
	for id, text := range s.pendingChunks {
		files[id+chunkExt] = []byte(text)
	}
	pend := s.pendingChunks
	s.pendingChunks = nil
	s.wrote = true
	err := writeFilesAtomic(filepath.Join(s.dir, dirChunks), files)
	for id := range pend {
		if err != nil {
			os.Remove(s.chunkPath(id))
		}
		s.account(filepath.Join(dirChunks, id+chunkExt))
	}
	s.account(dirChunks)
	return err
}

// removePendingChunksLocked removes chunks of atoms a batch evicted, once
// atoms.json no longer lists them.
func (s *Store) removePendingChunksLocked() {
	for _, id := range s.pendingRemove {
		rel := filepath.Join(dirChunks, id+chunkExt)
		os.Remove(filepath.Join(s.dir, rel))
		s.dropUsage(rel)
		s.wrote = true
	}
	s.pendingRemove = nil
}

func (s *Store) removeChunk(id string) {
	rel := filepath.Join(dirChunks, id+chunkExt)
	if s.batching {
		if _, ok := s.pendingChunks[id]; ok {
			delete(s.pendingChunks, id)
			s.dropUsage(rel)
			return
		}
		// atoms.json still lists the atom until the batch is flushed, so the
		// file goes then; its bytes leave the projection now, or every later
		// atom of the batch would evict again for space already freed.
		s.pendingRemove = append(s.pendingRemove, id)
		s.dropUsage(rel)
		return
	}
	os.Remove(filepath.Join(s.dir, rel))
	s.wrote = true
	s.dropUsage(rel)
}

// ---- readers ----

// Filter selects atoms for List. Empty fields match everything.
type Filter struct {
	Type, Source, Project, Session string
}

func (f Filter) match(a Atom) bool {
	return (f.Type == "" || a.Type == f.Type) && (f.Source == "" || a.SourceClass == f.Source) &&
		(f.Project == "" || a.Context.Project == f.Project) && (f.Session == "" || a.Context.SessionID == f.Session)
}

// List returns live atoms matching f, newest first.
func (s *Store) List(f Filter) []Atom {
	var out []Atom
	s.read(func() {
		out = make([]Atom, 0, len(s.order))
		for i := len(s.order) - 1; i >= 0; i-- {
			if a := s.order[i].atom; f.match(a) {
				out = append(out, cloneAtom(a))
			}
		}
	})
	sort.SliceStable(out, func(i, j int) bool { return out[i].CreatedAt.After(out[j].CreatedAt) })
	return out
}

func cloneAtom(a Atom) Atom {
	a.Context.RelatedAtomIDs = append([]string(nil), a.Context.RelatedAtomIDs...)
	a.Origin = cloneOrigin(a.Origin)
	return a
}

// Len is the number of live atoms.
func (s *Store) Len() int {
	n := 0
	s.read(func() { n = len(s.order) })
	return n
}

// Get returns a live or quarantined atom by id. For a quarantined atom, q is
// non-nil.
func (s *Store) Get(id string) (a Atom, q *QuarantinedAtom, err error) {
	err = missingAtom(id)
	if rerr := s.read(func() {
		if e := s.byID[id]; e != nil {
			a, err = cloneAtom(e.atom), nil
			return
		}
		for _, qa := range s.quar {
			if qa.ID == id {
				c := *qa
				c.Atom = cloneAtom(qa.Atom)
				a, q, err = c.Atom, &c, nil
				return
			}
		}
	}); rerr != nil {
		return Atom{}, nil, rerr
	}
	return
}

// Quarantined returns the quarantine, oldest first.
func (s *Store) Quarantined() []QuarantinedAtom {
	var out []QuarantinedAtom
	s.read(func() {
		for _, q := range s.quar {
			c := *q
			c.Atom = cloneAtom(q.Atom)
			out = append(out, c)
		}
	})
	sort.SliceStable(out, func(i, j int) bool { return out[i].QuarantinedAt.Before(out[j].QuarantinedAt) })
	return out
}

// UserModel returns a copy of the user model including pending reviews.
func (s *Store) UserModel() UserModel {
	var m UserModel
	s.read(func() { m = s.model.clone() })
	return m
}

// Pending returns pending reviews, oldest first.
func (s *Store) Pending() []PendingReview {
	m := s.UserModel()
	sortPending(m.Pending)
	return m.Pending
}

// Links returns an atom's associations.
func (s *Store) Links(id string) []Link {
	var out []Link
	s.read(func() { out = s.graph.neighbours(id) })
	return out
}

// LinkCount is the number of association pairs.
func (s *Store) LinkCount() int {
	n := 0
	s.read(func() { n = s.graph.count() })
	return n
}

// Now is the store's clock.
func (s *Store) Now() time.Time { return s.now() }
