package memcore

import (
	"bytes"
	"encoding/json"
	"github.com/odekmem/odekmem/memcore/internal/index"
	"sort"
)

// maybeSnapshot writes the cache when enough changed. Caller holds the
// store's write lock and file lock.
func (v *vectorState) maybeSnapshot(force bool) error {
	v.mu.RLock()
	dirty := v.dirty
	v.mu.RUnlock()
	if dirty == 0 || (!force && dirty < snapshotEvery) || v.building.Load() {
		return nil
	}
	return v.snapshot()
}

func (v *vectorState) snapshot() error {
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
	index.EncodeCache(&buf, v.emb.Fingerprint(), v.idx.Dims(), ids, v.texts, v.quantized)
	v.mu.RUnlock()
	if err := v.s.writeTracked(fileVectors, buf.Bytes()); err != nil {
		return err
	}
	// vectors_meta.json is odek's when odek's cache is there: writing ours
	// over it would make odek rebuild, and odek's over ours is ignored
	// (vectors.odm names its own embedder). On a store without odek's
	// cache it tells odek that nothing there is its own.
	if !v.s.odekVectorsPresent() {
		meta, _ := json.MarshalIndent(vectorMeta{Fingerprint: v.emb.Fingerprint(), Corpus: index.CorpusHash(ids), File: fileVectors, Quant: "int8"}, "", "  ")
		if err := v.s.writeTracked(fileVectorsMeta, meta); err != nil {
			return err
		}
	}
	v.mu.Lock()
	v.dirty = 0
	v.mu.Unlock()
	return nil
}

// quantized returns id's cache encoding, computing it once: snapshots then
// copy bytes instead of quantising every vector again. Re-quantising a
// vector that came from the cache gives back the same bytes.
func (v *vectorState) quantized(id string) []byte {
	v.qmu.Lock()
	b, ok := v.qv[id]
	v.qmu.Unlock()
	if ok {
		return b
	}
	vec, _ := v.idx.Vector(id)
	b = index.EncodeQuantized(vec)
	v.qmu.Lock()
	if v.qv == nil {
		v.qv = map[string][]byte{}
	}
	v.qv[id] = b
	v.qmu.Unlock()
	return b
}

func (v *vectorState) storeQuantized(id string, vec []float32) {
	b := index.EncodeQuantized(vec)
	v.qmu.Lock()
	if v.qv == nil {
		v.qv = map[string][]byte{}
	}
	v.qv[id] = b
	v.qmu.Unlock()
}

func (v *vectorState) dropQuantized(id string) {
	v.qmu.Lock()
	delete(v.qv, id)
	v.qmu.Unlock()
}

func (v *vectorState) dims() int {
	v.mu.RLock()
	defer v.mu.RUnlock()
	if v.idx == nil {
		return v.emb.Dims()
	}
	return v.idx.Dims()
}
