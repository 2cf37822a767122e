package index

import (
	"bytes"
	"encoding/json"
	"sort"

	"github.com/odekmem/odekmem/internal/vindex"
)

// Writer writes a snapshot: cache is vectors.odm's content, and meta
// gives vectors_meta.json's (naming file as the cache), for the caller to
// write where it is the store's to write.
type Writer func(cache []byte, meta func(file string) []byte) error

// MaybeSnapshot snapshots when SnapshotEvery changes are unsaved (with
// force, when any is) and no background build runs. The store's caller
// holds its write locks.
func (v *State) MaybeSnapshot(force bool, write Writer) error {
	v.mu.RLock()
	dirty := v.dirty
	v.mu.RUnlock()
	if dirty == 0 || (!force && dirty < SnapshotEvery) || v.building.Load() {
		return nil
	}
	return v.Snapshot(write)
}

// vectorMeta is vectors_meta.json as odekmem writes it (FORMATS.md).
type vectorMeta struct {
	Fingerprint string `json:"fingerprint"`
	Corpus      string `json:"corpus"`
	File        string `json:"file,omitempty"`
	Quant       string `json:"quant,omitempty"`
}

// Snapshot encodes the cache of every indexed atom and hands it to write;
// once written, nothing counts as unsaved.
func (v *State) Snapshot(write Writer) error {
	v.mu.RLock()
	if v.idx == nil {
		v.mu.RUnlock()
		return nil
	}
	ids := make([]string, 0, len(v.texts))
	for id := range v.texts {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	var buf bytes.Buffer
	size := 64
	for _, id := range ids {
		size += 10 + len(id) + len(v.texts[id]) + v.idx.Dims()
	}
	buf.Grow(size)
	EncodeCache(&buf, v.emb.Fingerprint(), v.idx.Dims(), ids, v.texts, v.quantized)
	v.mu.RUnlock()
	meta := func(file string) []byte {
		b, _ := json.MarshalIndent(vectorMeta{Fingerprint: v.emb.Fingerprint(), Corpus: CorpusHash(ids), File: file, Quant: "int8"}, "", "  ")
		return b
	}
	if err := write(buf.Bytes(), meta); err != nil {
		return err
	}
	v.mu.Lock()
	v.dirty = 0
	v.mu.Unlock()
	return nil
}

// quantized returns id's cache encoding, computing it once: snapshots then
// copy bytes instead of quantising every vector again. Re-quantising a
// vector that came from the cache gives back the same bytes.
func (v *State) quantized(id string) []byte {
	v.qmu.Lock()
	b, ok := v.qv[id]
	v.qmu.Unlock()
	if ok {
		return b
	}
	vec, _ := v.idx.Vector(id)
	b = EncodeQuantized(vec)
	v.qmu.Lock()
	if v.qv == nil {
		v.qv = map[string][]byte{}
	}
	v.qv[id] = b
	v.qmu.Unlock()
	return b
}

func (v *State) storeQuantized(id string, vec []float32) {
	b := EncodeQuantized(vec)
	v.qmu.Lock()
	if v.qv == nil {
		v.qv = map[string][]byte{}
	}
	v.qv[id] = b
	v.qmu.Unlock()
}

func (v *State) dropQuantized(id string) {
	v.qmu.Lock()
	delete(v.qv, id)
	v.qmu.Unlock()
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
