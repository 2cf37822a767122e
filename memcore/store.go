package memcore

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
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

// Options configures Open. Zero values mean documented defaults.
type Options struct {
	// Config is memory.extended; zero value means DefaultConfig().
	Config *Config
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// Embedder computes vectors; nil means the configured embedder (the
	// offline hash embedder by default).
	Embedder Embedder
	// LLM is the memory LLM; nil means rule-based fallbacks only.
	LLM LLMClient
	// ReadOnly opens without taking the write lock for recovery; damaged
	// pieces are reported but not moved.
	ReadOnly bool
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

	mu     sync.RWMutex
	lock   *fileLock
	closed bool

	order []*entry
	byID  map[string]*entry
	quar  []*QuarantinedAtom
	model UserModel
	graph *assocGraph

	sigs     map[string]fileSig
	usage    map[string]int64 // rel path → allocated bytes
	blockSz  int64
	problems []Problem
	reported map[string]bool

	vec *vectorState

	chunkNames map[string]bool // chunk file names seen by the last repairing load

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
		cfg = *opts.Config
	}
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	now := opts.Now
	if now == nil {
		now = time.Now
	}
	s := &Store{dir: dir, cfg: cfg, now: now, opts: opts, byID: map[string]*entry{}, graph: newAssocGraph(),
		sigs: map[string]fileSig{}, usage: map[string]int64{}, blockSz: 4096, reported: map[string]bool{}}
	if err := os.MkdirAll(filepath.Join(dir, dirChunks), 0o700); err != nil {
		return nil, fmt.Errorf("create store %s: %w", dir, err)
	}
	l, err := openLock(filepath.Join(dir, fileLockName))
	if err != nil {
		return nil, err
	}
	s.lock = l
	emb := opts.Embedder
	if emb == nil {
		emb = NewHashEmbedder()
	}
	s.vec = newVectorState(s, emb)
	if err := s.lock.lock(true); err != nil {
		l.close()
		return nil, err
	}
	s.vec.loadCache()
	err = s.loadAllLocked(true)
	if err == nil {
		err = s.vec.open()
	}
	s.lock.unlock()
	if err != nil {
		l.close()
		return nil, err
	}
	return s, nil
}

// Close releases the lock file. The store is unusable afterwards.
func (s *Store) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil
	}
	s.closed = true
	s.vec.close()
	return s.lock.close()
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

// moveAside moves a damaged file into corrupt/, never deleting it.
func (s *Store) moveAside(rel string) string {
	src := filepath.Join(s.dir, rel)
	dstDir := filepath.Join(s.dir, dirCorrupt, filepath.Dir(rel))
	if err := os.MkdirAll(dstDir, 0o700); err != nil {
		return "could not move aside: " + err.Error()
	}
	dst := filepath.Join(dstDir, filepath.Base(rel)+"."+s.now().UTC().Format("20060102T150405")+"-"+NewID()[:6])
	if err := os.Rename(src, dst); err != nil {
		return "could not move aside: " + err.Error()
	}
	syncDir(dstDir)
	syncDir(filepath.Dir(src))
	r, _ := filepath.Rel(s.dir, dst)
	return "moved to " + r
}

// saveAside writes recovered bytes of a damaged record into corrupt/.
func (s *Store) saveAside(name string, data []byte) string {
	dir := filepath.Join(s.dir, dirCorrupt)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "could not save aside: " + err.Error()
	}
	p := filepath.Join(dir, name+"."+s.now().UTC().Format("20060102T150405")+"-"+NewID()[:6])
	if err := writeFileAtomic(p, data); err != nil {
		return "could not save aside: " + err.Error()
	}
	r, _ := filepath.Rel(s.dir, p)
	return "saved to " + r
}

func (s *Store) tracked() []string {
	return []string{fileAtoms, fileQuarantine, fileUserModel, fileAssoc, fileAssocKinds}
}

// changedLocked reports whether any tracked file differs from what this
// process last read or wrote.
func (s *Store) changedLocked() bool {
	for _, f := range s.tracked() {
		if statSig(filepath.Join(s.dir, f)) != s.sigs[f] {
			return true
		}
	}
	return false
}

// syncLocked reloads from disk when another process changed the store.
// The caller holds s.mu (write) and the file lock.
func (s *Store) syncLocked(repair bool) error {
	if !s.changedLocked() {
		return nil
	}
	if err := s.loadAllLocked(repair); err != nil {
		return err
	}
	return s.vec.reconcile()
}

// withWrite runs fn holding the process mutex and the exclusive file lock,
// after reloading anything another process changed.
func (s *Store) withWrite(fn func() error) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return ErrClosed
	}
	if err := s.lock.lock(true); err != nil {
		return err
	}
	defer s.lock.unlock()
	if err := s.syncLocked(true); err != nil {
		return err
	}
	return fn()
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
	if err := s.lock.lock(false); err != nil {
		return false, err
	}
	defer s.lock.unlock()
	if !s.changedLocked() {
		return false, nil
	}
	if err := s.loadAllLocked(false); err != nil {
		return false, err
	}
	return true, s.vec.reconcile()
}

// read runs fn under the read lock after an opportunistic refresh.
func (s *Store) read(fn func()) {
	s.Refresh()
	s.mu.RLock()
	defer s.mu.RUnlock()
	fn()
}

// loadAllLocked (re)reads every metadata file. With repair, damaged pieces
// are moved aside and files rewritten without them.
func (s *Store) loadAllLocked(repair bool) error {
	s.chunkNames = nil
	if repair {
		s.sweepLocked()
		if ents, err := os.ReadDir(filepath.Join(s.dir, dirChunks)); err == nil {
			s.chunkNames = make(map[string]bool, len(ents))
			for _, e := range ents {
				s.chunkNames[e.Name()] = true
			}
		}
	}
	if err := s.loadAtomsLocked(repair); err != nil {
		return err
	}
	s.loadQuarantineLocked(repair)
	s.loadUserModelLocked(repair)
	s.loadAssocLocked(repair)
	if repair {
		s.checkChunksLocked()
	}
	s.measureLocked()
	return nil
}

// sweepLocked removes leftover temp files, tightens permissions and moves
// aside symlinks that lead outside the store.
func (s *Store) sweepLocked() {
	for _, d := range []string{s.dir, filepath.Join(s.dir, dirChunks)} {
		if fi, err := os.Stat(d); err == nil && fi.Mode().Perm() != 0o700 {
			os.Chmod(d, 0o700)
			rel, _ := filepath.Rel(s.dir, d)
			s.report(rel, fmt.Sprintf("directory mode %04o", fi.Mode().Perm()), "tightened to 0700")
		}
		ents, err := os.ReadDir(d)
		if err != nil {
			continue
		}
		for _, e := range ents {
			p := filepath.Join(d, e.Name())
			rel, _ := filepath.Rel(s.dir, p)
			if strings.HasPrefix(e.Name(), tmpPrefix) {
				os.Remove(p)
				continue
			}
			if e.Type()&fs.ModeSymlink != 0 {
				target, err := filepath.EvalSymlinks(p)
				root, _ := filepath.EvalSymlinks(s.dir)
				if err != nil || !strings.HasPrefix(target, root+string(filepath.Separator)) {
					s.report(rel, "symlink leading outside the store", s.moveAside(rel))
				}
				continue
			}
			if e.Type().IsRegular() {
				if fi, err := e.Info(); err == nil && fi.Mode().Perm() != 0o600 {
					os.Chmod(p, 0o600)
					s.report(rel, fmt.Sprintf("file mode %04o", fi.Mode().Perm()), "tightened to 0600")
				}
			}
		}
	}
}

// readStoreFile reads a store file without following a symlink out of it.
func (s *Store) readStoreFile(rel string) ([]byte, error) {
	p := filepath.Join(s.dir, rel)
	fi, err := os.Lstat(p)
	if err != nil {
		return nil, err
	}
	if fi.Mode()&fs.ModeSymlink != 0 {
		target, err := filepath.EvalSymlinks(p)
		root, _ := filepath.EvalSymlinks(s.dir)
		if err != nil || !strings.HasPrefix(target, root+string(filepath.Separator)) {
			return nil, fmt.Errorf("symlink leading outside the store")
		}
	}
	return os.ReadFile(p)
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
		recs, err = decodeArray(data)
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
	for _, raw := range recs {
		var a Atom
		if err := json.Unmarshal(raw, &a); err != nil {
			if repair {
				s.report(fileAtoms, "invalid record: "+err.Error(), s.saveAside("atoms-record.json", raw))
			}
			dirty = true
			continue
		}
		if !ValidID(a.ID) {
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
		e := &entry{atom: a, raw: indentRecord(raw)}
		if prev, ok := old[a.ID]; ok && bytes.Equal(prev.raw, e.raw) {
			e.atom.Text = prev.atom.Text
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
		if !ValidSource(a.SourceClass) || IsTainted(a.SourceClass) {
			if repair {
				s.report(fileAtoms, fmt.Sprintf("atom %s has untrusted source class %q in the live store", a.ID, a.SourceClass), "moved to quarantine")
				toQuarantine = append(toQuarantine, &QuarantinedAtom{Atom: e.atom, QuarantinedAt: s.now().UTC(), Reason: "tainted"})
				dirty = true
			}
			continue
		}
		byID[a.ID] = e
		order = append(order, e)
	}
	s.order, s.byID = order, byID
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

// checkChunksLocked moves aside chunk files that no live atom owns.
func (s *Store) checkChunksLocked() {
	ents, err := os.ReadDir(filepath.Join(s.dir, dirChunks))
	if err != nil {
		return
	}
	for _, e := range ents {
		name := e.Name()
		if strings.HasPrefix(name, tmpPrefix) {
			continue
		}
		id, ok := strings.CutSuffix(name, chunkExt)
		rel := filepath.Join(dirChunks, name)
		switch {
		case !ok || !ValidID(id):
			s.report(rel, "unexpected file in chunks/", s.moveAside(rel))
		case s.byID[id] == nil:
			s.report(rel, "chunk without metadata in atoms.json", s.moveAside(rel))
		}
	}
}

func (s *Store) loadQuarantineLocked(repair bool) {
	s.quar = nil
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
		if err := json.Unmarshal(raw, &q); err != nil || !ValidID(q.ID) || seen[q.ID] {
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
		err = json.Unmarshal(data, &s.model)
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
		if !ValidID(p.ID) {
			if repair {
				b, _ := json.Marshal(p)
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
	if err == nil {
		err = json.Unmarshal(data, &plain)
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
	for _, id := range sortedKeys(plain) {
		for _, n := range plain[id] {
			if !ValidID(id) || !ValidID(n) {
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
	filepath.WalkDir(s.dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		fi, err := d.Info()
		if err != nil {
			return nil
		}
		rel, _ := filepath.Rel(s.dir, p)
		s.usage[rel] = allocated(fi)
		return nil
	})
	if st, err := statfsBlock(s.dir); err == nil && st > 0 {
		s.blockSz = st
	}
}

// account re-measures one file after a write or removal.
func (s *Store) account(rel string) {
	fi, err := os.Lstat(filepath.Join(s.dir, rel))
	if err != nil {
		delete(s.usage, rel)
		return
	}
	s.usage[rel] = allocated(fi)
}

func (s *Store) totalLocked() int64 {
	var t int64
	for _, n := range s.usage {
		t += n
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
	s.sigs[name] = statSig(filepath.Join(s.dir, name))
	s.account(name)
	return nil
}

func (s *Store) writeAtomsLocked() error { return s.writeTracked(fileAtoms, s.atomsJSON()) }

func (s *Store) quarantineJSON() []byte {
	list := make([]*QuarantinedAtom, len(s.quar))
	copy(list, s.quar)
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
	b, err := json.MarshalIndent(s.model, "", "  ")
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
	if err := s.writeTracked(fileAssoc, a); err != nil {
		return err
	}
	return s.writeTracked(fileAssocKinds, k)
}

func (s *Store) writeChunk(id, text string) error {
	rel := filepath.Join(dirChunks, id+chunkExt)
	if err := writeFileAtomic(filepath.Join(s.dir, rel), []byte(text)); err != nil {
		return err
	}
	s.account(rel)
	return nil
}

func (s *Store) removeChunk(id string) {
	rel := filepath.Join(dirChunks, id+chunkExt)
	os.Remove(filepath.Join(s.dir, rel))
	delete(s.usage, rel)
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
	err = fmt.Errorf("%w: no atom %s", ErrNotFound, id)
	s.read(func() {
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
	})
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

var _ = context.Background
