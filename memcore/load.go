package memcore

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"path/filepath"
	"slices"

	"github.com/odekmem/odekmem/internal/disk"
	"github.com/odekmem/odekmem/internal/vocab"
)

// loadAllLocked (re)reads every metadata file. With repair, damaged pieces
// are moved aside and files rewritten without them.
func (s *Store) loadAllLocked(repair bool) error {
	s.chunkNames, s.chunkSize = nil, nil
	defer func() { s.chunkSize = nil }()
	full := false
	if repair {
		// A full check's one pass over chunks/ serves the sweep, the
		// texts from the cache, the orphan check and the size accounting.
		full = s.needFullCheckLocked()
		s.fullNext = false
		if err := s.sweepLocked(full); err != nil {
			return err
		}
		if err := s.files.Mkdir(dirChunks); err != nil {
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
	if repair && s.chunkNames != nil {
		if err := s.checkChunksLocked(); err != nil {
			return err
		}
		if s.freshOrphans {
			// Fresh orphans are decided by a later full check: none is
			// recorded, so the next repairing load is one.
			s.lock.ClearCheckState()
		} else {
			s.recordCheckLocked(true)
		}
	}
	if s.chunkSize != nil {
		s.measureLocked()
	} else {
		s.estimateLocked()
	}
	return nil
}

// readArrayLocked reads one of the store's JSON array files and records
// the version read. With repair it reports damage: an unreadable file is
// moved aside, a damaged one saved aside with its intact records kept
// (noun names them). ok is false when there is nothing to load (the file
// is missing or unreadable); dirty when the file must be rewritten.
func (s *Store) readArrayLocked(name, noun string, repair bool) (recs []json.RawMessage, ok, dirty bool) {
	a := s.files.ReadArray(name)
	s.sigs[name] = a.Sig
	if errors.Is(a.Err, fs.ErrNotExist) {
		return nil, false, false
	}
	if a.Err != nil {
		s.sigs[name] = disk.StatSig(s.files.Abs(name))
		if repair {
			s.report(name, a.Err.Error(), s.moveAside(name))
		}
		return nil, false, true
	}
	if a.Damage != nil {
		if repair {
			s.report(name, "invalid JSON: "+a.Damage.Error(), fmt.Sprintf("kept %d intact %s; %s", len(a.Recs), noun, s.saveAside(name, a.Data)))
		}
		dirty = true
	}
	return a.Recs, true, dirty
}

// readTrackedLocked reads a metadata file and records the version read.
func (s *Store) readTrackedLocked(name string) ([]byte, error) {
	data, sig, err := s.files.ReadFile(name)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		sig = disk.StatSig(s.files.Abs(name))
	}
	s.sigs[name] = sig
	return data, err
}

func (s *Store) loadAtomsLocked(repair bool) error {
	// Records whose bytes are those of a live entry of the last load are
	// that entry again (same[i]): a reload after another process's write
	// decodes only the records it changed.
	recs, same, decoded, ok, dirty := s.readAtomsFile(repair)
	// A damaged atoms.json (unreadable, or cut short) lost records: the
	// chunks they named are adopted at once (checkChunksLocked), which
	// takes a full check.
	s.atomsDamaged = repair && dirty
	if s.atomsDamaged && s.chunkNames == nil {
		if err := s.sweepChunksLocked(); err != nil {
			return err
		}
	}
	if !ok && !dirty {
		s.order, s.byID = nil, map[string]*entry{}
		s.retrackAllLocked()
		return nil
	}
	old := s.byID
	order := make([]*entry, 0, len(recs))
	byID := make(map[string]*entry, len(recs))
	var toQuarantine []*QuarantinedAtom
	for i, raw := range recs {
		var a Atom
		var ind []byte
		var err error
		p := same[i]
		if p != nil {
			a, ind = p.atom, p.raw
		} else {
			a, ind, err = decoded[i].Value, decoded[i].Indented, decoded[i].Err
		}
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
		if p != nil {
			e := &entry{atom: p.atom, raw: p.raw, orig: p.orig, norm: p.norm, normH: p.normH, normHashed: p.normHashed}
			byID[a.ID] = e
			order = append(order, e)
			continue
		}
		a.Text = ""
		e := &entry{atom: a, raw: ind, orig: ind}
		if prev, ok := old[a.ID]; ok && bytes.Equal(prev.raw, e.raw) {
			e.atom.Text, e.norm, e.normH, e.normHashed = prev.atom.Text, prev.norm, prev.normH, prev.normHashed
		} else if c, ok := s.cachedAt(len(order), a.ID); ok && (s.chunkNames == nil || s.chunkNames[a.ID+chunkExt]) {
			// Without a full check the cache is trusted for the text; a
			// chunk removed behind odekmem's back changed chunks/, which
			// makes the load a full one.
			e.atom.Text = c.Text
			e.normH, e.normHashed = c.NormHash, c.HasNorm
			if c.HasDocLen {
				e.words = int32(c.DocLen)
			}
		} else {
			text, err := s.readChunk(a.ID)
			if uerr := unsafeChunk(err); uerr != nil {
				return uerr
			}
			if err != nil && repair && errors.Is(err, disk.ErrLink) {
				rel := chunkRel(a.ID)
				s.report(rel, "symbolic link in chunks/ (never followed)", s.moveAside(rel))
			}
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
	if dirty && repair {
		if len(toQuarantine) > 0 {
			s.loadQuarantineLocked(true)
			for _, q := range toQuarantine {
				if q.Atom.Text != "" {
					s.files.Remove(chunkRel(q.ID))
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

// unchangedRecords returns, for each record of atoms.json, the live entry
// it was last loaded into or written from when the record's bytes are the
// same (nil otherwise). Records keep their order across writes, so most
// match by position; the rest are looked up by their bytes.
func (s *Store) unchangedRecords(recs [][]byte) []*entry {
	out := make([]*entry, len(recs))
	var byRaw map[string]*entry
	for i, raw := range recs {
		if i < len(s.order) && s.order[i].raw != nil && bytes.Equal(s.order[i].raw, raw) {
			out[i] = s.order[i]
			continue
		}
		if byRaw == nil {
			byRaw = make(map[string]*entry, len(s.order))
			for _, e := range s.order {
				if e.raw != nil {
					byRaw[string(e.raw)] = e
				}
			}
		}
		out[i] = byRaw[string(raw)]
	}
	return out
}

func (s *Store) loadQuarantineLocked(repair bool) {
	s.quar = nil
	s.size.quarSizes = nil
	recs, ok, dirty := s.readArrayLocked(fileQuarantine, "entries", repair)
	if !ok {
		return
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
	data, err := s.readTrackedLocked(fileUserModel)
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
	data, err := s.readTrackedLocked(fileAssoc)
	s.sigs[fileAssocKinds] = disk.StatSig(s.files.Abs(fileAssocKinds))
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
	if kd, _, err := s.files.ReadFile(fileAssocKinds); err == nil {
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
