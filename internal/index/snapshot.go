package index

import (
	"encoding/json"
	"fmt"

	"github.com/odekmem/odekmem/internal/vindex"
)

// Writer writes a snapshot: cache is vectors.odm's content, and meta
// gives vectors_meta.json's (naming file as the cache), for the caller to
// write where it is the store's to write.
type Writer func(cache []byte, meta func(file string) []byte) error

// MaybeSnapshot snapshots when enough changes are unsaved (with force,
// when any is) and no background build runs: SnapshotEvery, or an eighth
// of the index for a large one, so that a store at its cap taking in a
// stream of atoms (each evicting one) rewrites its cache every few
// thousand changes rather than every few hundred. The store's caller
// holds its write locks.
func (v *State) MaybeSnapshot(force bool, write Writer) error {
	v.mu.RLock()
	dirty, n := v.dirty, v.nTexts()
	v.mu.RUnlock()
	if dirty == 0 || (!force && dirty < max(SnapshotEvery, n/8)) || v.building.Load() {
		return nil
	}
	return v.Snapshot(write)
}

// Unsaved reports whether at least SnapshotEvery changes are not in the
// cache file (what a writer closing the store writes out).
func (v *State) Unsaved() bool {
	v.mu.RLock()
	defer v.mu.RUnlock()
	return v.dirty >= SnapshotEvery && !v.building.Load()
}

// vectorMeta is vectors_meta.json as odekmem writes it (FORMATS.md).
type vectorMeta struct {
	Fingerprint string `json:"fingerprint"`
	Corpus      string `json:"corpus"`
	File        string `json:"file,omitempty"`
	Quant       string `json:"quant,omitempty"`
}

// Snapshot encodes the indexes (EncodeSnapshot) and hands the file to
// write; once written, nothing counts as unsaved.
func (v *State) Snapshot(write Writer) error {
	v.mu.RLock()
	if v.idx == nil {
		v.mu.RUnlock()
		return nil
	}
	ex, ok := v.idx.(interface {
		Export(func(ids []string, rows []int8, facs []float32, df []int32, codes []uint64))
	})
	if !ok {
		v.mu.RUnlock()
		return fmt.Errorf("snapshot: index %T cannot export its rows", v.idx)
	}
	var data []byte
	var ids []string
	var err error
	texts := v.textsMap()
	ex.Export(func(rowIDs []string, rows []int8, facs []float32, df []int32, codes []uint64) {
		ids = append([]string(nil), rowIDs...)
		data, err = EncodeSnapshot(SnapshotSource{
			Fingerprint: v.emb.Fingerprint(), Dims: v.idx.Dims(), IDs: rowIDs,
			Text: func(i int) string { return texts[rowIDs[i]] },
			Rows: rows, Facs: facs, DF: df, Codes: codes, Lex: v.lex,
		})
	})
	v.mu.RUnlock()
	if err != nil {
		return err
	}
	meta := func(file string) []byte {
		b, _ := json.MarshalIndent(vectorMeta{Fingerprint: v.emb.Fingerprint(), Corpus: CorpusHash(ids), File: file, Quant: "int8"}, "", "  ")
		return b
	}
	if err := write(data, meta); err != nil {
		return err
	}
	v.mu.Lock()
	v.dirty = 0
	v.mu.Unlock()
	return nil
}

// Dims is the width of the indexed vectors (the embedder's before the
// first vector; 0 when neither knows yet).
func (v *State) Dims() int {
	v.mu.RLock()
	defer v.mu.RUnlock()
	if v.idx == nil {
		return v.emb.Dims()
	}
	return v.idx.Dims()
}

// Stats describes the index: how many vectors of what width, and how many
// changes the cache file lacks.
func (v *State) Stats() (vectors, dims, unsaved int) {
	v.mu.RLock()
	defer v.mu.RUnlock()
	if v.idx != nil {
		vectors, dims = v.idx.Len(), v.idx.Dims()
	}
	return vectors, dims, v.dirty
}

// Hybrid is the hybrid search over both indexes (nil before the first
// vector), its dense calibration measured on the index as it is now.
func (v *State) Hybrid() *vindex.Hybrid {
	v.mu.RLock()
	hy := v.hy
	v.mu.RUnlock()
	if hy != nil {
		v.calib.measure(hy.Vec())
	}
	return hy
}
