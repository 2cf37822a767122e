package memcore

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"

	"github.com/odekmem/odekmem/internal/vocab"
	"github.com/odekmem/odekmem/memcore/internal/index"

	"github.com/odekmem/odekmem/memcore/embed"
	"github.com/odekmem/odekmem/memcore/vindex"
)

// Embedder turns text into L2-normalised vectors; see package embed.
type Embedder = embed.Embedder

// NewHashEmbedder returns the offline default: 768-d feature hashing.
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
	snapshotEvery    = 512 // changes after which a snapshot is written
	syncEmbedLimit   = 4096
	maxCacheEntrySum = 1 << 31
)

type vectorMeta struct {
	Fingerprint string `json:"fingerprint"`
	Corpus      string `json:"corpus"`
	File        string `json:"file,omitempty"`
	Quant       string `json:"quant,omitempty"`
}

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

	cache     map[string]index.CacheEntry // loaded at open, consumed by loadAtoms
	cacheDone chan func()                 // pending startLoadCache
	dirty     int

	lsh *index.LSH // candidates for write-time dedup; nil = build on demand

	// stale is set when embedding the atoms a reconcile found missing
	// failed (a cancelled ctx, an embedder error): the next operation
	// reconciles again.
	stale atomic.Bool

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
		return e.Text, true
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
	// Not a pool: a future that Open's parse of atoms.json overlaps.
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
	data, _, err := v.s.files.ReadFile(fileVectors)
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
	fp, entries, err := index.DecodeCache(data, vocab.ValidID)
	if err != nil {
		return damaged("damaged vector cache: "+err.Error(), "; rebuilding from chunks")
	}
	if fp != v.emb.Fingerprint() {
		// Texts are still good; vectors are rebuilt.
		for id, e := range entries {
			e.Raw = nil
			entries[id] = e
		}
		return func() { v.cache = entries }
	}
	return func() { v.cache = entries }
}

// open builds the indexes from the cache and the live atoms; the caller
// holds no lock (Open has not returned yet).
func (v *vectorState) open(ctx context.Context) error {
	v.finishLoadCache()
	defer func() { v.cache = nil }()
	embed, err := v.reconcileFrom(v.cache)
	if err == nil && embed != nil {
		err = embed(ctx)
	}
	return err
}

// reconcile makes the index match the live atoms after a reload. The
// caller holds s.mu; the returned embed (nil when nothing is missing)
// embeds the atoms the index lacks and must be called after s.mu is
// released, with the caller's ctx: with an HTTP embedder it is a network
// call. If it fails, v.stale makes the next operation try again.
func (v *vectorState) reconcile() (embed func(context.Context) error, err error) {
	return v.reconcileFrom(nil)
}

// catchUp runs the embed a reconcile returned; no lock is held.
func (v *vectorState) catchUp(ctx context.Context, embed func(context.Context) error) error {
	if embed == nil {
		return nil
	}
	if err := embed(ctx); err != nil {
		v.stale.Store(true)
		return err
	}
	return nil
}

// reconcileFrom makes the indexes match the live atoms, taking vectors
// from cache where it has them; see reconcile.
func (v *vectorState) reconcileFrom(cache map[string]index.CacheEntry) (func(context.Context) error, error) {
	v.stale.Store(false)
	v.waitBuild()
	v.mu.Lock()
	if v.idx == nil {
		dims := v.emb.Dims()
		if dims == 0 {
			for _, e := range cache {
				if e.Dims() > 0 {
					dims = e.Dims()
					break
				}
			}
		}
		if dims == 0 {
			// HTTP embedder of unknown width: learn it lazily.
			v.mu.Unlock()
			return v.missingEmbed(nil), nil
		}
		if err := v.newIndexes(dims); err != nil {
			v.mu.Unlock()
			return nil, err
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
	var cached []index.Item
	for _, e := range v.s.order {
		id := e.atom.ID
		if _, ok := v.texts[id]; ok {
			continue
		}
		if c, ok := cache[id]; ok && c.Dims() == v.idx.Dims() && c.Text == e.atom.Text {
			cached = append(cached, index.Item{ID: id, Text: e.atom.Text, Raw: c.Raw})
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
		return nil, nil
	}
	v.loadCachedLocked(cached)
	v.mu.Unlock()
	if len(missing) == 0 {
		return nil, nil
	}
	if len(missing) <= syncEmbedLimit {
		return v.missingEmbed(missing), nil
	}
	v.startBuild(missing)
	return nil, nil
}

// missingEmbed captures the texts of the atoms in ids (nil = every live
// atom) while the caller holds s.mu, and returns the embedding of them to
// run once s.mu is released.
func (v *vectorState) missingEmbed(ids []string) func(context.Context) error {
	if ids == nil {
		for _, e := range v.s.order {
			ids = append(ids, e.atom.ID)
		}
	}
	texts := make([]string, len(ids))
	for i, id := range ids {
		texts[i] = v.s.byID[id].atom.Text
	}
	return func(ctx context.Context) error { return v.embedMissing(ctx, ids, texts) }
}

// asyncLoadMin is the number of cached vectors from which Open fills the
// indexes in the background.
const asyncLoadMin = 2048

// loadCachedLocked adds cached vectors to the vector and lexical indexes.
// v.mu is held.
func (v *vectorState) loadCachedLocked(items []index.Item) {
	if len(items) == 0 {
		return
	}
	ok := index.Fill(v.idx, v.lex, items)
	v.qmu.Lock()
	if v.qv == nil {
		v.qv = make(map[string][]byte, len(items))
	}
	for i, it := range items {
		if ok[i] {
			v.texts[it.ID] = it.Text
			v.qv[it.ID] = it.Raw
		} else {
			v.lex.Remove(it.ID)
		}
	}
	v.qmu.Unlock()
}

// embedMissing embeds atoms that have no vector yet and indexes them. It
// reads no store state (the texts are given), so no store lock is needed.
func (v *vectorState) embedMissing(ctx context.Context, ids, texts []string) error {
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
			if err := v.idx.Add(id, index.RoundTrip(vec)); err != nil {
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
		v.lsh.Add(id, vec)
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
		v.lsh.Remove(id)
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
	return index.RoundTrip(vecs[0]), nil
}

// nearest returns the live atom whose vector has the highest raw cosine
// with vec (a document vector), for write-time dedup. Candidates come from
// index.LSH, so an add does not scan every vector; a query whose buckets are
// crowded falls back to a full search.
func (v *vectorState) nearest(vec []float32) (string, float32) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.idx == nil || v.idx.Len() == 0 || len(vec) != v.idx.Dims() {
		return "", 0
	}
	if v.lsh == nil {
		v.lsh = index.NewLSH(v.idx.Dims())
		v.qmu.Lock()
		if v.qv == nil {
			v.qv = map[string][]byte{}
		}
		dims := v.idx.Dims()
		for id := range v.texts {
			if raw := v.qv[id]; len(raw) == 4+dims {
				// The int8 form orders coordinates as the vector does.
				v.lsh.AddRaw(id, raw)
				continue
			}
			if d, ok := v.idx.Vector(id); ok {
				v.lsh.Add(id, d)
				v.qv[id] = index.EncodeQuantized(d)
			}
		}
		v.qmu.Unlock()
	}
	cands := v.lsh.Candidates(vec)
	if len(cands) > index.MaxCandidates {
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
