package memcore

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"reflect"

	"github.com/odekmem/odekmem/internal/disk"
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
	return disk.IndentArray(len(s.order), func(i int) []byte { return s.recordBytes(s.order[i]) })
}

// writeTracked writes a metadata file other processes reload the store
// for, remembering the version it wrote.
func (s *Store) writeTracked(name string, data []byte) error {
	sig, err := s.files.WriteFile(name, data)
	if err != nil {
		return err
	}
	s.sigs[name] = sig
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
// atoms.json, overlapping the two fsyncs, so that atoms.json never lists
// an atom whose chunk could be missing after a crash (WriteNewThen).
func (s *Store) writeChunkAndAtomsLocked(id, text string) error {
	rel := chunkRel(id)
	if err := s.files.WriteNewThen(rel, []byte(text), fileAtoms, s.atomsJSON()); err != nil {
		// The chunk is not there: its estimate leaves the accounting
		// (the failed write makes the next operation reload anyway).
		s.dropUsage(rel)
		return err
	}
	s.account(rel)
	s.account(dirChunks)
	s.sigs[fileAtoms] = disk.StatSig(s.files.Abs(fileAtoms))
	s.account(fileAtoms)
	return nil
}

// chunkRel is the path of id's chunk inside the store.
func chunkRel(id string) string { return filepath.Join(dirChunks, id+chunkExt) }

// readChunk reads id's text from its chunk file, checking the file as a
// full check would (disk.Dir.ReadTextChecked): a link is refused
// (disk.ErrLink), a file of another user refuses the store (unsafeChunk),
// a loose mode is tightened.
func (s *Store) readChunk(id string) (string, error) {
	return s.files.ReadTextChecked(chunkRel(id), maxChunkReadSize)
}

// unsafeChunk is the ErrUnsafeStore a chunk read found (a file of another
// user, or one left writable that could not be tightened), nil otherwise.
func unsafeChunk(err error) error {
	var u *disk.UnsafeError
	if errors.As(err, &u) {
		return storeErr(err)
	}
	return nil
}

// invalidateLocked makes the next locked operation reload everything from
// disk: used after a failed write left memory and disk out of step.
func (s *Store) invalidateLocked() {
	s.sigs = map[string]disk.Sig{}
	s.gen = ^uint64(0)
}
