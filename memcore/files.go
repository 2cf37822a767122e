package memcore

import (
	"bytes"
	"encoding/json"
	"fmt"
	"github.com/odekmem/odekmem/memcore/internal/disk"
	"github.com/odekmem/odekmem/memcore/internal/par"
	"os"
	"path/filepath"
	"reflect"
)

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
	if err := disk.WriteFile(filepath.Join(s.dir, name), data); err != nil {
		return err
	}
	s.wrote = true
	s.sigs[name] = disk.StatSig(filepath.Join(s.dir, name))
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

// writeChunkAndAtomsLocked durably writes a new atom's chunk and then
// atoms.json, overlapping the two fsyncs: atoms.json is staged (written and
// fsynced under a temp name) while the chunk is written, and renamed into
// place only once the chunk is durable, so atoms.json never lists an atom
// whose chunk could be missing after a crash.
func (s *Store) writeChunkAndAtomsLocked(id, text string) error {
	rel := filepath.Join(dirChunks, id+chunkExt)
	var cerr, err error
	var st *disk.Staged
	par.Do(func() { cerr = disk.WriteFile(filepath.Join(s.dir, rel), []byte(text)) },
		func() { st, err = disk.Stage(filepath.Join(s.dir, fileAtoms), s.atomsJSON()) })
	if cerr != nil {
		if st != nil {
			st.Abort()
		}
		return cerr
	}
	s.wrote = true
	s.account(rel)
	s.account(dirChunks)
	if err == nil {
		err = st.Commit(true)
	}
	if err != nil {
		os.Remove(filepath.Join(s.dir, rel))
		s.dropUsage(rel)
		return err
	}
	s.sigs[fileAtoms] = disk.StatSig(filepath.Join(s.dir, fileAtoms))
	s.account(fileAtoms)
	return nil
}

// invalidateLocked makes the next locked operation reload everything from
// disk: used after a failed write left memory and disk out of step.
func (s *Store) invalidateLocked() {
	s.sigs = map[string]disk.Sig{}
	s.gen = ^uint64(0)
}
