package memcore

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/odekmem/odekmem/internal/vocab"
	"github.com/odekmem/odekmem/memcore/internal/disk"
	"github.com/odekmem/odekmem/memcore/internal/par"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
)

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
		s.sigs[fileAtoms] = disk.Sig{}
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
	s.sigs[fileAtoms] = disk.StatSig(filepath.Join(s.dir, fileAtoms))
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
	s.size.quarSizes = nil
	data, err := s.readStoreFile(fileQuarantine)
	s.sigs[fileQuarantine] = disk.StatSig(filepath.Join(s.dir, fileQuarantine))
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
	s.sigs[fileUserModel] = disk.StatSig(filepath.Join(s.dir, fileUserModel))
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
	s.sigs[fileAssoc] = disk.StatSig(filepath.Join(s.dir, fileAssoc))
	s.sigs[fileAssocKinds] = disk.StatSig(filepath.Join(s.dir, fileAssocKinds))
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
