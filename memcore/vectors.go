package memcore

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"sync/atomic"

	"github.com/odekmem/odekmem/internal/vocab"
	"github.com/odekmem/odekmem/memcore/embed"
	"github.com/odekmem/odekmem/memcore/vindex"
)

// Embedder turns text into L2-normalised vectors; see package embed.
type Embedder = embed.Embedder

// newHashEmbedder returns the offline default: 768-d feature hashing.
func newHashEmbedder() Embedder { return embed.NewHash(768) }

// The derived vector cache: vectors.odm holds odekmem's own metadata (the
// embedder fingerprint and width in its header), ids, texts and int8
// quantised vectors. It is only a cache: anything missing or damaged is
// rebuilt from the chunk files. odek's cache (vectors.gob, vectors.gob.emb
// and vectors_meta.json) is odek's: never read, and vectors_meta.json is
// written only while odek's files are absent, so neither program
// invalidates the other's cache.
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

// cacheEntry is one decoded cache entry. raw is the vector exactly as the
// cache stores it (f32 scale, dims × int8; see encodeQuantized), nil when
// the vector cannot be used (another embedder, or a scale that quantize
// never writes).
type cacheEntry struct {
	text string
	raw  []byte
}

// dims is the width of the entry's vector (0 when it has none).
func (c cacheEntry) dims() int { return max(len(c.raw)-4, 0) }

// vectorState owns the vector index, the lexical index and the cache.
type vectorState struct {
	s     *Store
	emb   Embedder
	calib *calibrator

	mu    sync.RWMutex
	idx   vindex.Index
	lex   *vindex.BM25
	hy    *vindex.Hybrid
	texts map[string]string // id → text of indexed atoms

	cache     map[string]cacheEntry // loaded at open, consumed by loadAtoms
	cacheDone chan func()           // pending startLoadCache
	dirty     int

	lsh *dedupLSH // candidates for write-time dedup; nil = build on demand

	qmu sync.Mutex
	qv  map[string][]byte // id → f32 scale + int8 vector as the cache stores it

	ready    chan struct{}
	building atomic.Bool
	done     atomic.Int64
	total    atomic.Int64
	buildErr atomic.Value
	cancel   context.CancelFunc
	wg       sync.WaitGroup
}

func newVectorState(s *Store, emb Embedder) *vectorState {
	v := &vectorState{s: s, emb: emb, calib: &calibrator{emb: emb}, texts: map[string]string{}, ready: make(chan struct{})}
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
	v.lsh = nil
	v.lex = vindex.NewBM25()
	v.calib.bg.Store(nil)
	v.hy = vindex.NewHybrid(idx, v.lex, v.calib.cal, vindex.DefaultHybridOptions(v.emb.Sparse()))
	v.texts = map[string]string{}
	v.qmu.Lock()
	v.qv = nil
	v.qmu.Unlock()
	return nil
}

// cachedText lets loadAtoms take texts from the cache instead of chunks.
func (v *vectorState) cachedText(id string) (string, bool) {
	v.finishLoadCache()
	if e, ok := v.cache[id]; ok {
		return e.text, true
	}
	return "", false
}

// startLoadCache reads and decodes vectors.odm in the background while
// Open sweeps the directory and parses atoms.json; finishLoadCache (called
// by the first cachedText, and by Open) waits for it and reports damage.
func (v *vectorState) startLoadCache() {
	v.cache = nil
	ch := make(chan func(), 1)
	v.cacheDone = ch
	go func() { ch <- v.readCache() }()
}

func (v *vectorState) finishLoadCache() {
	if v.cacheDone == nil {
		return
	}
	apply := <-v.cacheDone
	v.cacheDone = nil
	apply()
}

// readCache does the reading and decoding, touching no store state, and
// returns what to apply on the caller's goroutine. The indexes are filled
// from the cache after Open, in the background for a large store: filling
// them while Open parses atoms.json made the store usable later on two
// cores (384 ms against 279 ms at 18k atoms).
func (v *vectorState) readCache() func() {
	data, err := v.s.readStoreFile(fileVectors)
	if errors.Is(err, fs.ErrNotExist) {
		return func() {}
	}
	damaged := func(problem, suffix string) func() {
		return func() {
			if _, err := os.Lstat(filepath.Join(v.s.dir, fileVectors)); err != nil {
				return // moved aside by the sweep meanwhile
			}
			v.s.report(fileVectors, problem, v.s.moveAside(fileVectors)+suffix)
		}
	}
	if err != nil {
		return damaged(err.Error(), "")
	}
	fp, entries, err := decodeVectorCache(data)
	if err != nil {
		return damaged("damaged vector cache: "+err.Error(), "; rebuilding from chunks")
	}
	if fp != v.emb.Fingerprint() {
		// Texts are still good; vectors are rebuilt.
		for id, e := range entries {
			e.raw = nil
			entries[id] = e
		}
		return func() { v.cache = entries }
	}
	return func() { v.cache = entries }
}

// open builds the indexes from the cache and the live atoms.
func (v *vectorState) open() error {
	v.finishLoadCache()
	defer func() { v.cache = nil }()
	return v.reconcileFrom(v.cache)
}

// reconcile makes the index match the live atoms after a reload.
func (v *vectorState) reconcile() error { return v.reconcileFrom(nil) }

// reconcileFrom makes the indexes match the live atoms, taking vectors
// from cache where it has them.
func (v *vectorState) reconcileFrom(cache map[string]cacheEntry) error {
	v.waitBuild()
	v.mu.Lock()
	if v.idx == nil {
		dims := v.emb.Dims()
		if dims == 0 {
			for _, e := range cache {
				if e.dims() > 0 {
					dims = e.dims()
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
	v.lsh = nil
	live := v.s.byID
	for id := range v.texts {
		if e, ok := live[id]; !ok || e.atom.Text != v.texts[id] {
			v.idx.Remove(id)
			v.lex.Remove(id)
			delete(v.texts, id)
			v.dropQuantized(id)
		}
	}
	var missing []string
	var cached []cachedItem
	for _, e := range v.s.order {
		id := e.atom.ID
		if _, ok := v.texts[id]; ok {
			continue
		}
		if c, ok := cache[id]; ok && c.dims() == v.idx.Dims() && c.text == e.atom.Text {
			cached = append(cached, cachedItem{id: id, text: e.atom.Text, raw: c.raw})
			continue
		}
		missing = append(missing, id)
	}
	if len(cached) >= asyncLoadMin {
		// A large store: Open returns once the metadata is loaded and the
		// indexes fill from the cache in the background; searches and
		// writes wait for them (waitReady, waitBuild).
		missingTexts := make([]string, len(missing))
		for i, id := range missing {
			missingTexts[i] = v.s.byID[id].atom.Text
		}
		v.mu.Unlock()
		v.startBuildJob(cached, missing, missingTexts)
		return nil
	}
	v.loadCachedLocked(cached)
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

// asyncLoadMin is the number of cached vectors from which Open fills the
// indexes in the background.
const asyncLoadMin = 2048

type cachedItem struct {
	id, text string
	raw      []byte // f32 scale + dims × int8, as the cache stores it
}

// loadCachedLocked adds cached vectors to the vector and lexical indexes.
// v.mu is held.
func (v *vectorState) loadCachedLocked(items []cachedItem) {
	if len(items) == 0 {
		return
	}
	ok := fillIndexes(v.idx, v.lex, items)
	v.qmu.Lock()
	if v.qv == nil {
		v.qv = make(map[string][]byte, len(items))
	}
	for i, it := range items {
		if ok[i] {
			v.texts[it.id] = it.text
			v.qv[it.id] = it.raw
		} else {
			v.lex.Remove(it.id)
		}
	}
	v.qmu.Unlock()
}

// fillIndexes adds cached items to a vector and a lexical index with their
// bulk-load paths, filling both at once (each is safe for concurrent use):
// an exact index takes the cache's int8 rows as they are, BM25 tokenises
// across the cores. It reports which items the vector index took.
func fillIndexes(idx vindex.Index, lex *vindex.BM25, items []cachedItem) []bool {
	return fillIndexesN(idx, lex, items, 0)
}

// fillIndexesN is fillIndexes tokenising on at most workers goroutines
// (0 = GOMAXPROCS).
func fillIndexesN(idx vindex.Index, lex *vindex.BM25, items []cachedItem, workers int) []bool {
	ids := make([]string, len(items))
	texts := make([]string, len(items))
	for i, it := range items {
		ids[i], texts[i] = it.id, it.text
	}
	ok := make([]bool, len(items))
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		if ex, isExact := idx.(*vindex.Exact); isExact {
			d := ex.Dims()
			rows := make([]int8, len(items)*d)
			for i, it := range items {
				row := rows[i*d : (i+1)*d]
				if len(it.raw) != 4+d || rawScale(it.raw) == 0 {
					continue // a zero vector: the row stays zero
				}
				for j, b := range it.raw[4:] {
					row[j] = int8(b)
				}
			}
			if ex.AddQuantized(ids, rows) == nil {
				for i := range ok {
					ok[i] = true
				}
			}
			return
		}
		for i, it := range items {
			ok[i] = idx.Add(it.id, rawVector(it.raw)) == nil
		}
	}()
	lex.AddManyN(ids, texts, workers)
	wg.Wait()
	return ok
}

// rawScale is the scale of a cached vector (f32 scale, dims × int8).
func rawScale(raw []byte) float32 {
	return math.Float32frombits(binary.LittleEndian.Uint32(raw))
}

// rawVector dequantises a cached vector (f32 scale, dims × int8).
func rawVector(raw []byte) []float32 {
	q := make([]int8, len(raw)-4)
	for i, b := range raw[4:] {
		q[i] = int8(b)
	}
	return dequantize(q, rawScale(raw))
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
		v.lsh = nil
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
	list := make([]string, len(ids))
	for i, id := range ids {
		list[i] = v.s.byID[id].atom.Text
	}
	v.startBuildJob(nil, ids, list)
}

// startBuildJob fills the indexes in the background, first from cached
// vectors, then by embedding the atoms in ids (whose texts are given: the
// job never reads the store's state). Searches and writes wait for it.
func (v *vectorState) startBuildJob(cached []cachedItem, ids, idTexts []string) {
	ctx, cancel := context.WithCancel(context.Background())
	v.cancel = cancel
	ready := make(chan struct{})
	v.ready = ready
	v.building.Store(true)
	v.done.Store(0)
	v.total.Store(int64(len(cached) + len(ids)))
	texts := make(map[string]string, len(ids))
	for i, id := range ids {
		texts[id] = idTexts[i]
	}
	v.wg.Add(1)
	go func() {
		defer v.wg.Done()
		defer close(ready)
		defer v.building.Store(false)
		v.mu.RLock()
		ex, isExact := v.idx.(*vindex.Exact)
		v.mu.RUnlock()
		if isExact && len(cached) > 0 {
			ex.Reserve(len(cached) + len(ids))
		}
		const chunk = 4096
		for start := 0; start < len(cached); start += chunk {
			if ctx.Err() != nil {
				v.buildErr.Store(ctx.Err())
				return
			}
			end := min(start+chunk, len(cached))
			v.mu.Lock()
			v.loadCachedLocked(cached[start:end])
			v.mu.Unlock()
			v.done.Add(int64(end - start))
		}
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
			v.lsh = nil
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
	if v.lsh != nil {
		v.lsh.add(id, vec)
	}
	v.storeQuantized(id, vec)
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
	if v.lsh != nil {
		v.lsh.remove(id)
	}
	v.lex.Remove(id)
	delete(v.texts, id)
	v.dropQuantized(id)
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
	size := 64
	for _, id := range ids {
		size += 10 + len(id) + len(v.texts[id]) + v.idx.Dims()
	}
	buf.Grow(size)
	encodeVectorCache(&buf, v.emb.Fingerprint(), v.idx.Dims(), ids, v.texts, v.quantized)
	v.mu.RUnlock()
	if err := v.s.writeTracked(fileVectors, buf.Bytes()); err != nil {
		return err
	}
	// vectors_meta.json is odek's when odek's cache is there: writing ours
	// over it would make odek rebuild, and odek's over ours is ignored
	// (vectors.odm names its own embedder). On a store without odek's
	// cache it tells odek that nothing there is its own.
	if !v.s.odekVectorsPresent() {
		meta, _ := json.MarshalIndent(vectorMeta{Fingerprint: v.emb.Fingerprint(), Corpus: corpusHash(ids), File: fileVectors, Quant: "int8"}, "", "  ")
		if err := v.s.writeTracked(fileVectorsMeta, meta); err != nil {
			return err
		}
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
func encodeVectorCache(w *bytes.Buffer, fp string, dims int, ids []string, texts map[string]string, quantized func(id string) []byte) {
	w.WriteString(vecMagic)
	hdr, _ := json.Marshal(map[string]any{"fingerprint": fp, "dims": dims, "count": len(ids)})
	binary.Write(w, binary.LittleEndian, uint32(len(hdr)))
	w.Write(hdr)
	var b4 [4]byte
	for _, id := range ids {
		binary.LittleEndian.PutUint16(b4[:2], uint16(len(id)))
		w.Write(b4[:2])
		w.WriteString(id)
		t := texts[id]
		binary.LittleEndian.PutUint32(b4[:], uint32(len(t)))
		w.Write(b4[:])
		w.WriteString(t)
		w.Write(quantized(id)) // f32 scale, dims × int8
	}
	h := fnv.New64a()
	h.Write(w.Bytes())
	binary.Write(w, binary.LittleEndian, h.Sum64())
}

// encodeQuantized is a vector as the cache stores it: f32 scale then int8s.
func encodeQuantized(vec []float32) []byte {
	q, scale := quantize(vec)
	out := make([]byte, 4+len(q))
	binary.LittleEndian.PutUint32(out, math.Float32bits(scale))
	for i, x := range q {
		out[4+i] = byte(x)
	}
	return out
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
	b = encodeQuantized(vec)
	v.qmu.Lock()
	if v.qv == nil {
		v.qv = map[string][]byte{}
	}
	v.qv[id] = b
	v.qmu.Unlock()
	return b
}

func (v *vectorState) storeQuantized(id string, vec []float32) {
	b := encodeQuantized(vec)
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
	p := body[len(vecMagic):]
	hl := binary.LittleEndian.Uint32(p)
	p = p[4:]
	if uint64(hl) > uint64(len(p)) {
		return "", nil, errors.New("truncated header")
	}
	var hdr struct {
		Fingerprint string `json:"fingerprint"`
		Dims        int    `json:"dims"`
		Count       int    `json:"count"`
	}
	if err := json.Unmarshal(p[:hl], &hdr); err != nil {
		return "", nil, fmt.Errorf("header: %w", err)
	}
	p = p[hl:]
	if hdr.Dims <= 0 || hdr.Dims > maxCacheDims || hdr.Count < 0 || hdr.Count > len(body)/(hdr.Dims+10) {
		return "", nil, fmt.Errorf("implausible header dims=%d count=%d", hdr.Dims, hdr.Count)
	}
	out := make(map[string]cacheEntry, hdr.Count)
	// All vectors go into one slab, so the file's bytes can be dropped.
	vw := 4 + hdr.Dims
	slab := make([]byte, hdr.Count*vw)
	for i := 0; i < hdr.Count; i++ {
		if len(p) < 2 {
			return "", nil, fmt.Errorf("entry %d: truncated", i)
		}
		idLen := int(binary.LittleEndian.Uint16(p))
		p = p[2:]
		if idLen == 0 || idLen > maxCacheIDLen {
			return "", nil, fmt.Errorf("entry %d: bad id length", i)
		}
		if len(p) < idLen {
			return "", nil, fmt.Errorf("entry %d: truncated id", i)
		}
		id := string(p[:idLen])
		p = p[idLen:]
		if len(p) < 4 {
			return "", nil, fmt.Errorf("entry %d: truncated", i)
		}
		tl := int(binary.LittleEndian.Uint32(p))
		p = p[4:]
		if tl > maxCacheTextLen || tl > len(body) {
			return "", nil, fmt.Errorf("entry %d: bad text length", i)
		}
		if len(p) < tl {
			return "", nil, fmt.Errorf("entry %d: truncated text", i)
		}
		text := string(p[:tl])
		p = p[tl:]
		if len(p) < 4 {
			return "", nil, fmt.Errorf("entry %d: truncated scale", i)
		}
		if len(p) < vw {
			return "", nil, fmt.Errorf("entry %d: truncated vector", i)
		}
		raw := slab[i*vw : (i+1)*vw : (i+1)*vw]
		copy(raw, p[:vw])
		p = p[vw:]
		if !vocab.ValidID(id) {
			return "", nil, fmt.Errorf("entry %d: invalid id", i)
		}
		if sc := rawScale(raw); sc < 0 || math.IsNaN(float64(sc)) || math.IsInf(float64(sc), 0) {
			raw = nil // not what quantize writes: re-embed
		}
		out[id] = cacheEntry{text: text, raw: raw}
	}
	return hdr.Fingerprint, out, nil
}

func (v *vectorState) dims() int {
	v.mu.RLock()
	defer v.mu.RUnlock()
	if v.idx == nil {
		return v.emb.Dims()
	}
	return v.idx.Dims()
}

// nearest returns the live atom whose vector has the highest raw cosine
// with vec (a document vector), for write-time dedup. Candidates come from
// dedupLSH, so an add does not scan every vector; a query whose buckets are
// crowded falls back to a full search.
func (v *vectorState) nearest(vec []float32) (string, float32) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.idx == nil || v.idx.Len() == 0 || len(vec) != v.idx.Dims() {
		return "", 0
	}
	if v.lsh == nil {
		v.lsh = newDedupLSH(v.idx.Dims())
		v.qmu.Lock()
		if v.qv == nil {
			v.qv = map[string][]byte{}
		}
		dims := v.idx.Dims()
		for id := range v.texts {
			if raw := v.qv[id]; len(raw) == 4+dims {
				// The int8 form orders coordinates as the vector does.
				v.lsh.addRaw(id, raw)
				continue
			}
			if d, ok := v.idx.Vector(id); ok {
				v.lsh.add(id, d)
				v.qv[id] = encodeQuantized(d)
			}
		}
		v.qmu.Unlock()
	}
	cands := v.lsh.candidates(vec)
	if len(cands) > lshMaxCandidates {
		cands = cands[:0]
		hits, err := v.idx.Search(vec, 5, nil)
		if err != nil {
			return "", 0
		}
		for _, h := range hits {
			cands = append(cands, h.ID)
		}
	}
	best, bestCos := "", float32(-2)
	if ex, ok := v.idx.(*vindex.Exact); ok {
		// The stored (dequantised, renormalised) vectors' cosines, with
		// the index's SIMD kernel.
		cos := make([]float32, len(cands))
		found := make([]bool, len(cands))
		ex.CosinesWeighted(vec, cands, cos, found)
		for i, id := range cands {
			if found[i] && cos[i] > bestCos {
				best, bestCos = id, cos[i]
			}
		}
		return best, bestCos
	}
	var misses []string
	v.qmu.Lock()
	for _, id := range cands {
		// The cached int8 form gives the cosine of the stored vector (the
		// dequantised, renormalised one) without copying it.
		b := v.qv[id]
		if len(b) != 4+len(vec) {
			misses = append(misses, id)
			continue
		}
		var dot, nq float32
		for i, x := range b[4:] {
			f := float32(int8(x))
			dot += f * vec[i]
			nq += f * f
		}
		if nq == 0 {
			continue
		}
		if c := dot / float32(math.Sqrt(float64(nq))); c > bestCos {
			best, bestCos = id, c
		}
	}
	v.qmu.Unlock()
	for _, id := range misses {
		d, ok := v.idx.Vector(id)
		if !ok {
			continue
		}
		var c float32
		for i := range d {
			c += d[i] * vec[i]
		}
		if c > bestCos {
			best, bestCos = id, c
		}
	}
	return best, bestCos
}

// dedupLSH is a locality-sensitive hash for write-time dedup: bit i is
// whether vec[a_i] > vec[b_i] for fixed random coordinate pairs, that is
// the sign of a projection onto e_a − e_b, a (sparse) random hyperplane
// through the origin that works for non-negative embeddings too. Like sign
// random projections, near duplicates agree on almost every bit, so they
// share one of 24 bands of 16 bits (cosine 0.92: 94%; 0.95: 99%), while
// unrelated texts rarely do (cosine 0.3: under 1%).
// Candidates are verified with the exact cosine, so the index can only
// miss, never invent, a duplicate.
const (
	lshBands         = 24
	lshBits          = 16
	lshMaxCandidates = 2048
)

type dedupLSH struct {
	coords  []int // pairs: a_i = coords[2i], b_i = coords[2i+1]
	bits    int
	buckets [lshBands]map[uint16][]string
	keysOf  map[string][lshBands]uint16
	seen    map[string]bool // scratch for candidates
}

func newDedupLSH(dims int) *dedupLSH {
	bits := lshBits
	if dims < lshBands*bits {
		bits = max(1, dims/lshBands)
	}
	l := &dedupLSH{bits: bits, coords: make([]int, 2*lshBands*bits), keysOf: map[string][lshBands]uint16{}}
	var x uint64 = 0x9e3779b97f4a7c15 // fixed splitmix64 stream: every process picks the same pairs
	next := func() int {
		x += 0x9e3779b97f4a7c15
		z := x
		z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
		z = (z ^ (z >> 27)) * 0x94d049bb133111eb
		return int((z ^ (z >> 31)) % uint64(dims))
	}
	for i := 0; i < len(l.coords); i += 2 {
		l.coords[i] = next()
		l.coords[i+1] = next()
		for dims > 1 && l.coords[i+1] == l.coords[i] {
			l.coords[i+1] = next()
		}
	}
	for b := range l.buckets {
		l.buckets[b] = map[uint16][]string{}
	}
	return l
}

func (l *dedupLSH) keys(vec []float32) [lshBands]uint16 {
	var k [lshBands]uint16
	for b := 0; b < lshBands; b++ {
		var key uint16
		for j := 0; j < l.bits; j++ {
			key <<= 1
			i := 2 * (b*l.bits + j)
			if a, c := l.coords[i], l.coords[i+1]; a < len(vec) && c < len(vec) && vec[a] > vec[c] {
				key |= 1
			}
		}
		k[b] = key
	}
	return k
}

// keysRaw is keys for a vector in the cache's encoding (f32 scale, int8s):
// a positive scale preserves the order of every coordinate pair, and a
// zero scale is the zero vector.
func (l *dedupLSH) keysRaw(raw []byte) [lshBands]uint16 {
	var k [lshBands]uint16
	if rawScale(raw) <= 0 {
		return k
	}
	q := raw[4:]
	for b := 0; b < lshBands; b++ {
		var key uint16
		for j := 0; j < l.bits; j++ {
			key <<= 1
			i := 2 * (b*l.bits + j)
			if a, c := l.coords[i], l.coords[i+1]; a < len(q) && c < len(q) && int8(q[a]) > int8(q[c]) {
				key |= 1
			}
		}
		k[b] = key
	}
	return k
}

func (l *dedupLSH) add(id string, vec []float32) { l.addKeys(id, l.keys(vec)) }

func (l *dedupLSH) addRaw(id string, raw []byte) { l.addKeys(id, l.keysRaw(raw)) }

func (l *dedupLSH) addKeys(id string, k [lshBands]uint16) {
	l.remove(id)
	l.keysOf[id] = k
	for b, key := range k {
		l.buckets[b][key] = append(l.buckets[b][key], id)
	}
}

func (l *dedupLSH) remove(id string) {
	k, ok := l.keysOf[id]
	if !ok {
		return
	}
	delete(l.keysOf, id)
	for b, key := range k {
		list := l.buckets[b][key]
		for i, x := range list {
			if x == id {
				list[i] = list[len(list)-1]
				list = list[:len(list)-1]
				break
			}
		}
		if len(list) == 0 {
			delete(l.buckets[b], key)
		} else {
			l.buckets[b][key] = list
		}
	}
}

// candidates lists the distinct ids sharing at least one band with vec.
func (l *dedupLSH) candidates(vec []float32) []string {
	k := l.keys(vec)
	var out []string
	if l.seen == nil {
		l.seen = map[string]bool{}
	}
	seen := l.seen
	clear(seen)
	for b, key := range k {
		for _, id := range l.buckets[b][key] {
			if !seen[id] {
				seen[id] = true
				out = append(out, id)
			}
		}
		if len(out) > lshMaxCandidates {
			break
		}
	}
	return out
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
