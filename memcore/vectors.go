package memcore

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"sync/atomic"

	"github.com/odekmem/odekmem/memcore/embed"
	"github.com/odekmem/odekmem/memcore/vindex"
)

// Embedder turns text into L2-normalised vectors; see package embed.
type Embedder = embed.Embedder

// NewHashEmbedder returns the offline default: 768-d feature hashing.
func NewHashEmbedder() Embedder { return embed.NewHash(768) }

// The derived vector cache. vectors_meta.json names the embedder and the
// corpus the cache was written for; vectors.odm holds ids, texts and int8
// quantised vectors. It is only a cache: anything missing or damaged is
// rebuilt from the chunk files.
const (
	fileVectors      = "vectors.odm"
	vecMagic         = "ODKMVEC1"
	snapshotEvery    = 512 // changes after which a snapshot is written
	syncEmbedLimit   = 4096
	maxCacheIDLen    = 256
	maxCacheTextLen  = 1 << 20
	maxCacheDims     = 1 << 16
	maxCacheEntrySum = 1 << 31
)

type vectorMeta struct {
	Fingerprint string `json:"fingerprint"`
	Corpus      string `json:"corpus"`
	File        string `json:"file,omitempty"`
	Quant       string `json:"quant,omitempty"`
}

type cacheEntry struct {
	text string
	vec  []float32
}

// vectorState owns the vector index, the lexical index and the cache.
type vectorState struct {
	s   *Store
	emb Embedder

	mu    sync.RWMutex
	idx   vindex.Index
	lex   *vindex.BM25
	hy    *vindex.Hybrid
	texts map[string]string // id → text of indexed atoms

	cache map[string]cacheEntry // loaded at open, consumed by loadAtoms
	dirty int

	ready    chan struct{}
	building atomic.Bool
	done     atomic.Int64
	total    atomic.Int64
	buildErr atomic.Value
	cancel   context.CancelFunc
	wg       sync.WaitGroup
}

func newVectorState(s *Store, emb Embedder) *vectorState {
	v := &vectorState{s: s, emb: emb, texts: map[string]string{}, ready: make(chan struct{})}
	close(v.ready)
	return v
}

func (v *vectorState) newIndexes(dims int) error {
	kind := v.s.cfg.Index
	idx, err := vindex.New(kind, dims, vindex.Options{IDF: v.emb.Sparse()})
	if err != nil {
		return err
	}
	v.idx = idx
	v.lex = vindex.NewBM25()
	v.hy = vindex.NewHybrid(idx, v.lex, v.emb.Calibrate, vindex.HybridOptions{})
	v.texts = map[string]string{}
	return nil
}

// cachedText lets loadAtoms take texts from the cache instead of chunks.
func (v *vectorState) cachedText(id string) (string, bool) {
	if e, ok := v.cache[id]; ok {
		return e.text, true
	}
	return "", false
}

// loadCache reads vectors.odm before atoms.json is loaded. Damage is
// reported and the file moved aside; the caller rebuilds.
func (v *vectorState) loadCache() {
	v.cache = nil
	data, err := v.s.readStoreFile(fileVectors)
	if errors.Is(err, fs.ErrNotExist) {
		return
	}
	if err != nil {
		v.s.report(fileVectors, err.Error(), v.s.moveAside(fileVectors))
		return
	}
	fp, entries, err := decodeVectorCache(data)
	if err != nil {
		v.s.report(fileVectors, "damaged vector cache: "+err.Error(), v.s.moveAside(fileVectors)+"; rebuilding from chunks")
		return
	}
	if fp != v.emb.Fingerprint() {
		// Texts are still good; vectors are rebuilt.
		for id, e := range entries {
			e.vec = nil
			entries[id] = e
		}
	}
	v.cache = entries
}

// open builds the indexes from the cache and the live atoms.
func (v *vectorState) open() error {
	defer func() { v.cache = nil }()
	return v.reconcileFrom(v.cache)
}

// reconcile makes the index match the live atoms after a reload.
func (v *vectorState) reconcile() error { return v.reconcileFrom(nil) }

func (v *vectorState) reconcileFrom(cache map[string]cacheEntry) error {
	v.waitBuild()
	v.mu.Lock()
	if v.idx == nil {
		dims := v.emb.Dims()
		if dims == 0 {
			for _, e := range cache {
				if len(e.vec) > 0 {
					dims = len(e.vec)
					break
				}
			}
		}
		if dims == 0 {
			// HTTP embedder of unknown width: learn it lazily.
			v.mu.Unlock()
			return v.rebuildMissing(context.Background(), nil)
		}
		if err := v.newIndexes(dims); err != nil {
			v.mu.Unlock()
			return err
		}
	}
	live := v.s.byID
	for id := range v.texts {
		if e, ok := live[id]; !ok || e.atom.Text != v.texts[id] {
			v.idx.Remove(id)
			v.lex.Remove(id)
			delete(v.texts, id)
		}
	}
	var missing []string
	for _, e := range v.s.order {
		id := e.atom.ID
		if _, ok := v.texts[id]; ok {
			continue
		}
		if c, ok := cache[id]; ok && len(c.vec) == v.idx.Dims() && c.text == e.atom.Text {
			if v.idx.Add(id, c.vec) == nil {
				v.lex.Add(id, e.atom.Text)
				v.texts[id] = e.atom.Text
				continue
			}
		}
		missing = append(missing, id)
	}
	v.mu.Unlock()
	if len(missing) == 0 {
		return nil
	}
	if len(missing) <= syncEmbedLimit {
		return v.rebuildMissing(context.Background(), missing)
	}
	v.startBuild(missing)
	return nil
}

// rebuildMissing embeds atoms that have no vector yet (nil = all live).
func (v *vectorState) rebuildMissing(ctx context.Context, ids []string) error {
	if ids == nil {
		for _, e := range v.s.order {
			ids = append(ids, e.atom.ID)
		}
	}
	texts := make([]string, len(ids))
	for i, id := range ids {
		texts[i] = v.s.byID[id].atom.Text
	}
	const batch = 256
	for start := 0; start < len(ids); start += batch {
		end := min(start+batch, len(ids))
		vecs, err := v.emb.Embed(ctx, texts[start:end])
		if err != nil {
			return fmt.Errorf("embed %d atoms: %w", end-start, err)
		}
		v.mu.Lock()
		if v.idx == nil && len(vecs) > 0 {
			if err := v.newIndexes(len(vecs[0])); err != nil {
				v.mu.Unlock()
				return err
			}
		}
		for i, vec := range vecs {
			id := ids[start+i]
			if err := v.idx.Add(id, quantizeRoundTrip(vec)); err != nil {
				v.mu.Unlock()
				return fmt.Errorf("index atom %s: %w", id, err)
			}
			v.lex.Add(id, texts[start+i])
			v.texts[id] = texts[start+i]
			v.dirty++
		}
		v.mu.Unlock()
		v.done.Add(int64(end - start))
	}
	return nil
}

// startBuild embeds many atoms in the background; searches wait for it.
func (v *vectorState) startBuild(ids []string) {
	ctx, cancel := context.WithCancel(context.Background())
	v.cancel = cancel
	v.ready = make(chan struct{})
	v.building.Store(true)
	v.done.Store(0)
	v.total.Store(int64(len(ids)))
	texts := make(map[string]string, len(ids))
	for _, id := range ids {
		texts[id] = v.s.byID[id].atom.Text
	}
	v.wg.Add(1)
	go func() {
		defer v.wg.Done()
		defer close(v.ready)
		defer v.building.Store(false)
		const batch = 256
		for start := 0; start < len(ids); start += batch {
			end := min(start+batch, len(ids))
			chunk := make([]string, 0, end-start)
			for _, id := range ids[start:end] {
				chunk = append(chunk, texts[id])
			}
			vecs, err := v.emb.Embed(ctx, chunk)
			if err != nil {
				v.buildErr.Store(err)
				return
			}
			v.mu.Lock()
			for i, vec := range vecs {
				id := ids[start+i]
				if v.idx.Add(id, quantizeRoundTrip(vec)) == nil {
					v.lex.Add(id, chunk[i])
					v.texts[id] = chunk[i]
					v.dirty++
				}
			}
			v.mu.Unlock()
			v.done.Add(int64(end - start))
		}
	}()
}

func (v *vectorState) waitBuild() {
	<-v.ready
}

// waitReady blocks until a background rebuild is done or ctx ends.
func (v *vectorState) waitReady(ctx context.Context) error {
	select {
	case <-v.ready:
		if err, _ := v.buildErr.Load().(error); err != nil {
			return fmt.Errorf("rebuild vector index: %w", err)
		}
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// IndexProgress reports a background index rebuild: done and total atoms,
// and whether it is still running.
func (s *Store) IndexProgress() (done, total int64, running bool) {
	return s.vec.done.Load(), s.vec.total.Load(), s.vec.building.Load()
}

func (v *vectorState) close() {
	if v.cancel != nil {
		v.cancel()
	}
	v.wg.Wait()
}

// add indexes a live atom whose vector was computed already.
func (v *vectorState) add(id, text string, vec []float32) error {
	v.waitBuild()
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.idx == nil {
		if err := v.newIndexes(len(vec)); err != nil {
			return err
		}
	}
	if err := v.idx.Add(id, vec); err != nil {
		return fmt.Errorf("index atom %s: %w", id, err)
	}
	v.lex.Add(id, text)
	v.texts[id] = text
	v.dirty++
	return nil
}

func (v *vectorState) remove(id string) {
	v.waitBuild()
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.idx == nil {
		return
	}
	if v.idx.Remove(id) {
		v.dirty++
	}
	v.lex.Remove(id)
	delete(v.texts, id)
}

// embed computes one document vector, quantised as the cache stores it so
// every process scores the same numbers.
func (v *vectorState) embed(ctx context.Context, text string) ([]float32, error) {
	vecs, err := v.emb.Embed(ctx, []string{text})
	if err != nil {
		return nil, err
	}
	if len(vecs) != 1 {
		return nil, fmt.Errorf("embedder returned %d vectors for 1 text", len(vecs))
	}
	return quantizeRoundTrip(vecs[0]), nil
}

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
	encodeVectorCache(&buf, v.emb.Fingerprint(), v.idx.Dims(), ids, v.texts, v.idx)
	v.mu.RUnlock()
	if err := v.s.writeTracked(fileVectors, buf.Bytes()); err != nil {
		return err
	}
	meta, _ := json.MarshalIndent(vectorMeta{Fingerprint: v.emb.Fingerprint(), Corpus: corpusHash(ids), File: fileVectors, Quant: "int8"}, "", "  ")
	if err := v.s.writeTracked(fileVectorsMeta, meta); err != nil {
		return err
	}
	v.mu.Lock()
	v.dirty = 0
	v.mu.Unlock()
	return nil
}

// quantizeRoundTrip returns vec as the cache will give it back: int8 with a
// per-vector scale, renormalised.
func quantizeRoundTrip(vec []float32) []float32 {
	q, scale := quantize(vec)
	return dequantize(q, scale)
}

func quantize(vec []float32) ([]int8, float32) {
	var maxAbs float32
	for _, x := range vec {
		if a := float32(math.Abs(float64(x))); a > maxAbs {
			maxAbs = a
		}
	}
	q := make([]int8, len(vec))
	if maxAbs == 0 {
		return q, 0
	}
	scale := maxAbs / 127
	for i, x := range vec {
		q[i] = int8(math.Round(float64(x / scale)))
	}
	return q, scale
}

func dequantize(q []int8, scale float32) []float32 {
	out := make([]float32, len(q))
	var norm float64
	for i, x := range q {
		out[i] = float32(x) * scale
		norm += float64(out[i]) * float64(out[i])
	}
	if norm > 0 {
		inv := float32(1 / math.Sqrt(norm))
		for i := range out {
			out[i] *= inv
		}
	}
	return out
}

// Cache layout: magic, u32 header length, header JSON {fingerprint, dims,
// count}, then per entry: u16 id length, id, u32 text length, text, f32
// scale, dims × int8; then an FNV-1a 64 checksum of everything before it.
func encodeVectorCache(w *bytes.Buffer, fp string, dims int, ids []string, texts map[string]string, idx vindex.Index) {
	w.WriteString(vecMagic)
	hdr, _ := json.Marshal(map[string]any{"fingerprint": fp, "dims": dims, "count": len(ids)})
	binary.Write(w, binary.LittleEndian, uint32(len(hdr)))
	w.Write(hdr)
	var b4 [4]byte
	for _, id := range ids {
		vec, _ := idx.Vector(id)
		binary.LittleEndian.PutUint16(b4[:2], uint16(len(id)))
		w.Write(b4[:2])
		w.WriteString(id)
		t := texts[id]
		binary.LittleEndian.PutUint32(b4[:], uint32(len(t)))
		w.Write(b4[:])
		w.WriteString(t)
		q, scale := quantize(vec)
		binary.LittleEndian.PutUint32(b4[:], math.Float32bits(scale))
		w.Write(b4[:])
		for _, x := range q {
			w.WriteByte(byte(x))
		}
	}
	h := fnv.New64a()
	h.Write(w.Bytes())
	binary.Write(w, binary.LittleEndian, h.Sum64())
}

func decodeVectorCache(data []byte) (string, map[string]cacheEntry, error) {
	if len(data) < len(vecMagic)+4+8 || string(data[:len(vecMagic)]) != vecMagic {
		return "", nil, errors.New("not an odekmem vector cache")
	}
	body, sum := data[:len(data)-8], binary.LittleEndian.Uint64(data[len(data)-8:])
	h := fnv.New64a()
	h.Write(body)
	if h.Sum64() != sum {
		return "", nil, errors.New("checksum mismatch")
	}
	r := bufio.NewReader(bytes.NewReader(body[len(vecMagic):]))
	var hl uint32
	if err := binary.Read(r, binary.LittleEndian, &hl); err != nil || int(hl) > len(body) {
		return "", nil, errors.New("bad header length")
	}
	hdrBytes := make([]byte, hl)
	if _, err := io.ReadFull(r, hdrBytes); err != nil {
		return "", nil, errors.New("truncated header")
	}
	var hdr struct {
		Fingerprint string `json:"fingerprint"`
		Dims        int    `json:"dims"`
		Count       int    `json:"count"`
	}
	if err := json.Unmarshal(hdrBytes, &hdr); err != nil {
		return "", nil, fmt.Errorf("header: %w", err)
	}
	if hdr.Dims <= 0 || hdr.Dims > maxCacheDims || hdr.Count < 0 || hdr.Count > len(body)/(hdr.Dims+10) {
		return "", nil, fmt.Errorf("implausible header dims=%d count=%d", hdr.Dims, hdr.Count)
	}
	out := make(map[string]cacheEntry, hdr.Count)
	q := make([]byte, hdr.Dims)
	var b4 [4]byte
	for i := 0; i < hdr.Count; i++ {
		if _, err := io.ReadFull(r, b4[:2]); err != nil {
			return "", nil, fmt.Errorf("entry %d: truncated", i)
		}
		idLen := int(binary.LittleEndian.Uint16(b4[:2]))
		if idLen == 0 || idLen > maxCacheIDLen {
			return "", nil, fmt.Errorf("entry %d: bad id length", i)
		}
		idb := make([]byte, idLen)
		if _, err := io.ReadFull(r, idb); err != nil {
			return "", nil, fmt.Errorf("entry %d: truncated id", i)
		}
		if _, err := io.ReadFull(r, b4[:]); err != nil {
			return "", nil, fmt.Errorf("entry %d: truncated", i)
		}
		tl := int(binary.LittleEndian.Uint32(b4[:]))
		if tl > maxCacheTextLen || tl > len(body) {
			return "", nil, fmt.Errorf("entry %d: bad text length", i)
		}
		tb := make([]byte, tl)
		if _, err := io.ReadFull(r, tb); err != nil {
			return "", nil, fmt.Errorf("entry %d: truncated text", i)
		}
		if _, err := io.ReadFull(r, b4[:]); err != nil {
			return "", nil, fmt.Errorf("entry %d: truncated scale", i)
		}
		scale := math.Float32frombits(binary.LittleEndian.Uint32(b4[:]))
		if _, err := io.ReadFull(r, q); err != nil {
			return "", nil, fmt.Errorf("entry %d: truncated vector", i)
		}
		qi := make([]int8, hdr.Dims)
		for j, x := range q {
			qi[j] = int8(x)
		}
		id := string(idb)
		if !ValidID(id) {
			return "", nil, fmt.Errorf("entry %d: invalid id", i)
		}
		out[id] = cacheEntry{text: string(tb), vec: dequantize(qi, scale)}
	}
	return hdr.Fingerprint, out, nil
}

// statfsBlock is the file system's block size.
func statfsBlock(dir string) (int64, error) {
	fi, err := os.Stat(dir)
	if err != nil {
		return 0, err
	}
	_ = fi
	return 4096, nil
}

var _ = filepath.Join

func (v *vectorState) dims() int {
	v.mu.RLock()
	defer v.mu.RUnlock()
	if v.idx == nil {
		return v.emb.Dims()
	}
	return v.idx.Dims()
}

// nearest returns the live atom whose vector has the highest raw cosine
// with vec (a document vector), for write-time dedup.
func (v *vectorState) nearest(vec []float32) (string, float32) {
	v.mu.RLock()
	defer v.mu.RUnlock()
	if v.idx == nil || v.idx.Len() == 0 {
		return "", 0
	}
	hits, err := v.idx.Search(vec, 5, nil)
	if err != nil {
		return "", 0
	}
	best, bestCos := "", float32(-2)
	for _, h := range hits {
		d, ok := v.idx.Vector(h.ID)
		if !ok {
			continue
		}
		var c float32
		for i := range d {
			c += d[i] * vec[i]
		}
		if c > bestCos {
			best, bestCos = h.ID, c
		}
	}
	return best, bestCos
}

// corpusHash is FORMATS.md's corpus id: "<count>:<16 hex>" with FNV-1a 64
// over the sorted ids, each followed by a NUL byte.
func corpusHash(ids []string) string {
	sorted := append([]string(nil), ids...)
	sort.Strings(sorted)
	h := fnv.New64a()
	for _, id := range sorted {
		h.Write([]byte(id))
		h.Write([]byte{0})
	}
	return fmt.Sprintf("%d:%016x", len(sorted), h.Sum64())
}
