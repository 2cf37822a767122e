package index

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/odekmem/odekmem/internal/embed"
	"github.com/odekmem/odekmem/internal/vindex"
)

// Tuning of the vector state.
const (
	// SnapshotEvery is the number of changes after which MaybeSnapshot
	// writes the cache.
	SnapshotEvery = 512
	// syncEmbedLimit is the most missing atoms a reconcile embeds in the
	// caller's embed; more are embedded by a background build.
	syncEmbedLimit = 4096
	// asyncLoadMin is the number of cached vectors from which the indexes
	// fill in the background.
	asyncLoadMin = 2048
)

// Live is the store's live atoms as the vector state sees them, read while
// the store's caller holds its lock.
type Live interface {
	// Text is the live atom's text (false when id is not live).
	Text(id string) (string, bool)
	// Each calls fn for every live atom, in the store's order.
	Each(fn func(id, text string))
}

// State is the store's vector state: the vector index, the lexical index
// and the hybrid search over both, the int8 forms the cache stores, the
// near-duplicate lookup, the cache loaded at open, and the background
// build that fills a large index. It never reads the store: the caller
// hands it the live atoms (Live) while holding the store's lock, and every
// embedding it needs is either done by the caller's ctx outside the
// store's locks (the embed a Reconcile returns, Embed) or by the
// background build, which Close cancels and waits for.
type State struct {
	kind  string // vindex kind
	emb   embed.Embedder
	calib *calibrator

	mu    sync.RWMutex
	idx   vindex.Index
	lex   *vindex.BM25
	hy    *vindex.Hybrid
	texts map[string]string // id → text of indexed atoms: through textsMap
	// textsOnce, when not nil, fills texts from an adopted snapshot on
	// first use: a verb that only searches never needs the map.
	textsOnce   *sync.Once
	textsFrom   *Snapshot
	textsFilled atomic.Bool // textsOnce has filled texts

	cache     map[string]CacheEntry // a first-format cache loaded at open, consumed by the store's load
	snap      *Snapshot             // a snapshot loaded at open (ODKMVEC2), adopted by Open
	loadedLex LexSize               // the loaded snapshot's lexical sections
	cacheDone chan loaded           // pending StartLoad
	dirty     int

	lsh      *LSH // candidates for write-time dedup; nil = build on demand
	nearests int  // Nearest calls answered without the LSH

	// stale is set when embedding the atoms a reconcile found missing
	// failed (a cancelled ctx, an embedder error): the next operation
	// reconciles again.
	stale atomic.Bool

	// ready is closed when the background build is done. It is replaced
	// when a build starts (under the store's write lock) while preparing
	// writers may be waiting on it outside that lock: an atomic pointer.
	ready    atomic.Pointer[chan struct{}]
	building atomic.Bool
	done     atomic.Int64
	total    atomic.Int64
	buildErr atomic.Value
	cancel   context.CancelFunc
	wg       sync.WaitGroup
}

// New is an empty vector state whose indexes are of kind (see vindex.New)
// and whose vectors come from emb.
func New(kind string, emb embed.Embedder) *State {
	v := &State{kind: kind, emb: emb, calib: &calibrator{emb: emb}, texts: map[string]string{}}
	done := make(chan struct{})
	close(done)
	v.ready.Store(&done)
	return v
}

// Embedder is the embedder the state was made with.
func (v *State) Embedder() embed.Embedder { return v.emb }

func (v *State) newIndexes(dims int) error {
	idx, err := vindex.New(v.kind, dims, vindex.Options{IDF: v.emb.Sparse()})
	if err != nil {
		return err
	}
	v.idx = idx
	v.lsh = nil
	v.lex = vindex.NewBM25()
	v.calib.bg.Store(nil)
	v.hy = vindex.NewHybrid(idx, v.lex, v.calib.cal, vindex.DefaultHybridOptions(v.emb.Sparse()))
	v.texts, v.textsOnce, v.textsFrom = map[string]string{}, nil, nil
	v.textsFilled.Store(false)
	return nil
}

// adoptLocked makes the snapshot loaded at open the indexes, using its
// sections in place: no vector is converted and no text tokenised. v.mu
// is held; false when the snapshot cannot serve (another embedder or
// width, or an index kind that keeps a graph).
func (v *State) adoptLocked(s *Snapshot) (bool, error) {
	if s == nil || s.Fingerprint != v.emb.Fingerprint() || (v.emb.Dims() != 0 && v.emb.Dims() != s.Dims) {
		return false, nil
	}
	if v.kind != "" && v.kind != vindex.KindExact {
		return false, nil
	}
	// The snapshot's id map (built and checked once, by DecodeSnapshot)
	// becomes the index's: the snapshot is not looked into by id again.
	// The index gets its own copy of the ids (it moves rows in place as it
	// removes them): the snapshot's stay its entries', which textsMap
	// fills the id → text map from later.
	ex, err := vindex.NewExactFrom(s.Dims, vindex.Options{IDF: v.emb.Sparse()}, slices.Clone(s.IDs), s.Rows, s.Facs, s.DF, s.Codes, s.index)
	if err != nil {
		return false, nil
	}
	s.index = nil
	v.idx = ex
	v.lsh = nil
	v.lex = vindex.NewBM25From(s.Lex)
	v.calib.bg.Store(nil)
	v.hy = vindex.NewHybrid(ex, v.lex, v.calib.cal, vindex.DefaultHybridOptions(v.emb.Sparse()))
	v.texts, v.textsOnce, v.textsFrom = nil, new(sync.Once), s
	v.textsFilled.Store(false)
	return true, nil
}

// textsMap is id → text of the indexed atoms, filled from the adopted
// snapshot on first use. Called with v.mu held, for reading or writing
// (the fill is once, so readers may race to it); the map is written
// only under the write lock.
func (v *State) textsMap() map[string]string {
	if once := v.textsOnce; once != nil {
		once.Do(func() {
			s := v.textsFrom
			m := make(map[string]string, s.Len())
			for i, id := range s.IDs {
				m[id] = s.Text(i)
			}
			v.texts = m
			v.textsFilled.Store(true)
		})
	}
	return v.texts
}

// nTexts is len(textsMap()) without filling it; v.mu is held. Until the
// fill nothing changed the indexed atoms (every change goes through
// textsMap): they are the snapshot's entries.
func (v *State) nTexts() int {
	if v.textsOnce != nil && !v.textsFilled.Load() {
		return v.textsFrom.Len()
	}
	return len(v.texts)
}

// Cached is what the cache loaded by StartLoad holds for one atom.
type Cached struct {
	Text      string
	NormHash  uint64 // textutil.NormalHash of Text, when HasNorm
	HasNorm   bool
	DocLen    int // BM25 length of Text (vindex.DocLen), when HasDocLen
	HasDocLen bool
}

// CachedAt is id's entry in the cache loaded by StartLoad, so that the
// store's load can skip reading its chunk (FinishLoad must have been
// called). hint is where id is expected in the cache (its position among
// the live atoms, the order a snapshot is written in): tried before the
// lookup by id, it spares a map lookup per atom at open.
func (v *State) CachedAt(hint int, id string) (Cached, bool) {
	if v.snap != nil {
		i, ok := v.snap.at(hint, id)
		if !ok {
			return Cached{}, false
		}
		c := Cached{Text: v.snap.Text(i), DocLen: v.snap.DocLen(i), HasDocLen: true}
		c.NormHash, c.HasNorm = v.snap.NormHash(i)
		return c, true
	}
	if e, ok := v.cache[id]; ok {
		return Cached{Text: e.Text}, true
	}
	return Cached{}, false
}

// CachedText is id's text as the cache loaded by StartLoad holds it
// (CachedAt without a hint).
func (v *State) CachedText(id string) (string, bool) {
	c, ok := v.CachedAt(-1, id)
	return c.Text, ok
}

// Damage is what loading the cache file found wrong with it: the file is
// to be moved aside; Rebuild says the vectors are rebuilt from the texts.
type Damage struct {
	Problem string
	Rebuild bool
}

type loaded struct {
	cache  map[string]CacheEntry
	snap   *Snapshot
	damage *Damage
}

// StartLoad reads (read returns the cache file's bytes) and decodes the
// cache in the background while the store sweeps its directory and parses
// its metadata; FinishLoad waits for it. validID rejects ids the store
// could not hold. A cache of another embedder keeps its texts; its vectors
// are dropped. The indexes are filled from the cache by Open, in the
// background for a large store: filling them while the store parses
// atoms.json made it usable later on two cores (384 ms against 279 ms at
// 18k atoms).
func (v *State) StartLoad(read func() ([]byte, error), validID func(string) bool) {
	v.cache, v.snap = nil, nil
	ch := make(chan loaded, 1)
	v.cacheDone = ch
	// Not a pool: a future that the store's parse of atoms.json overlaps.
	go func() { ch <- v.readCache(read, validID) }()
}

// FinishLoad waits for StartLoad and returns the damage it found (nil when
// none, or when StartLoad is not pending).
func (v *State) FinishLoad() *Damage {
	if v.cacheDone == nil {
		return nil
	}
	l := <-v.cacheDone
	v.cacheDone = nil
	v.cache, v.snap = l.cache, l.snap
	if l.snap != nil {
		v.loadedLex = l.snap.lexSize
	}
	return l.damage
}

// LoadedLexSize is the LexSize of the snapshot StartLoad read (zero when
// none).
func (v *State) LoadedLexSize() LexSize { return v.loadedLex }

func (v *State) readCache(read func() ([]byte, error), validID func(string) bool) loaded {
	data, err := read()
	if errors.Is(err, fs.ErrNotExist) {
		return loaded{}
	}
	if err != nil {
		return loaded{damage: &Damage{Problem: err.Error()}}
	}
	if IsSnapshot(data) {
		snap, err := DecodeSnapshot(data, validID)
		if err != nil {
			return loaded{damage: &Damage{Problem: "damaged vector cache: " + err.Error(), Rebuild: true}}
		}
		return loaded{snap: snap}
	}
	fp, entries, err := DecodeCache(data, validID)
	if err != nil {
		return loaded{damage: &Damage{Problem: "damaged vector cache: " + err.Error(), Rebuild: true}}
	}
	if fp != v.emb.Fingerprint() {
		// Texts are still good; vectors are rebuilt.
		for id, e := range entries {
			e.Raw = nil
			entries[id] = e
		}
	}
	return loaded{cache: entries}
}

// Open builds the indexes from the cache StartLoad loaded and the live
// atoms, embedding with ctx what the cache lacks (a large store fills in
// the background instead); the store's caller holds no lock (the store is
// not open yet). The loaded cache is dropped afterwards.
func (v *State) Open(ctx context.Context, live Live) error {
	defer func() { v.cache, v.snap = nil, nil }()
	if v.snap != nil {
		v.mu.Lock()
		adopted, err := v.adoptLocked(v.snap)
		if err == nil && adopted && snapshotIsLive(v.snap, live) {
			// Entry for entry the live atoms: nothing to remove, add or
			// embed, so the reconcile (two lookups by id per atom) has
			// nothing to do.
			v.stale.Store(false)
			v.mu.Unlock()
			return nil
		}
		if err == nil && !adopted {
			// Another embedder or index kind: the texts served the load;
			// the vectors are rebuilt (this width's rows still fill an
			// index of another kind).
			v.cache = v.snap.entries(v.emb.Fingerprint(), v.emb.Dims())
		}
		v.mu.Unlock()
		if err != nil {
			return err
		}
	}
	if v.cache != nil && v.snap == nil {
		// A first-format cache: the next write converts it (which also
		// calibrates the store's estimate of the cache's size).
		defer func() {
			v.mu.Lock()
			v.dirty = max(v.dirty, SnapshotEvery)
			v.mu.Unlock()
		}()
	}
	embed, err := v.reconcileFrom(live, v.cache)
	if err == nil && embed != nil {
		err = embed(ctx)
	}
	return err
}

// OrderedLive is a Live that also shows its atoms by position, in the
// order of Each.
type OrderedLive interface {
	Live
	Len() int
	At(i int) (id, text string)
}

// snapshotIsLive reports whether the snapshot's entries are the live
// atoms, in order and with the same texts (the common case: the cache
// was written from this set of atoms), without looking an id up.
func snapshotIsLive(s *Snapshot, live Live) bool {
	ol, ok := live.(OrderedLive)
	if !ok || ol.Len() != s.Len() {
		return false
	}
	for i, sid := range s.IDs {
		if id, text := ol.At(i); id != sid || text != s.Text(i) {
			return false
		}
	}
	return true
}

// Reconcile makes the index match the live atoms after a reload. The
// store's caller holds its lock; the returned embed (nil when nothing is
// missing) embeds the atoms the index lacks and must be called once that
// lock is released, with the caller's ctx (CatchUp): with an HTTP embedder
// it is a network call. If it fails, Stale makes the next operation try
// again.
func (v *State) Reconcile(live Live) (embed func(context.Context) error, err error) {
	return v.reconcileFrom(live, nil)
}

// Stale reports whether the last catch-up failed, so that the next
// operation must reconcile again.
func (v *State) Stale() bool { return v.stale.Load() }

// MarkStale makes the next operation reconcile again (a read left the
// embedding of a reconcile to it).
func (v *State) MarkStale() { v.stale.Store(true) }

// CatchUp runs the embed a Reconcile returned; no store lock is held.
func (v *State) CatchUp(ctx context.Context, embed func(context.Context) error) error {
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
// from cache where it has them; see Reconcile.
func (v *State) reconcileFrom(live Live, cache map[string]CacheEntry) (func(context.Context) error, error) {
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
			return v.missingEmbed(live, nil), nil
		}
		if err := v.newIndexes(dims); err != nil {
			v.mu.Unlock()
			return nil, err
		}
	}
	texts := v.textsMap()
	for id, old := range texts {
		if t, ok := live.Text(id); !ok || t != old {
			v.idx.Remove(id)
			v.lex.RemoveText(id, old)
			delete(texts, id)
			if v.lsh != nil {
				v.lsh.Remove(id)
			}
		}
	}
	var missing, missingTexts []string
	var cached []Item
	live.Each(func(id, text string) {
		if _, ok := texts[id]; ok {
			return
		}
		if c, ok := cache[id]; ok && c.Dims() == v.idx.Dims() && c.Text == text {
			cached = append(cached, Item{ID: id, Text: text, Raw: c.Raw})
			return
		}
		missing, missingTexts = append(missing, id), append(missingTexts, text)
	})
	if len(cached) >= asyncLoadMin {
		// A large store: Open returns once the metadata is loaded and the
		// indexes fill from the cache in the background; searches and
		// writes wait for them (WaitReady, waitBuild).
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
		return func(ctx context.Context) error { return v.embedMissing(ctx, missing, missingTexts) }, nil
	}
	v.startBuildJob(nil, missing, missingTexts)
	return nil, nil
}

// missingEmbed captures the texts of the atoms in ids (nil = every live
// atom) while the store's caller holds its lock, and returns the
// embedding of them to run once that lock is released.
func (v *State) missingEmbed(live Live, ids []string) func(context.Context) error {
	var texts []string
	if ids == nil {
		live.Each(func(id, text string) { ids, texts = append(ids, id), append(texts, text) })
	} else {
		texts = make([]string, len(ids))
		for i, id := range ids {
			texts[i], _ = live.Text(id)
		}
	}
	return func(ctx context.Context) error { return v.embedMissing(ctx, ids, texts) }
}

// loadCachedLocked adds cached vectors to the vector and lexical indexes.
// v.mu is held.
func (v *State) loadCachedLocked(items []Item) {
	if len(items) == 0 {
		return
	}
	v.lsh = nil
	ok := Fill(v.idx, v.lex, items)
	texts := v.textsMap()
	for i, it := range items {
		if ok[i] {
			texts[it.ID] = it.Text
		} else {
			v.lex.Remove(it.ID)
		}
	}
}

// embedMissing embeds atoms that have no vector yet and indexes them. It
// reads no store state (the texts are given), so no store lock is needed.
func (v *State) embedMissing(ctx context.Context, ids, texts []string) error {
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
			rt := RoundTrip(vec)
			if err := v.idx.Add(id, rt); err != nil {
				v.mu.Unlock()
				return fmt.Errorf("index atom %s: %w", id, err)
			}
			if v.lsh != nil {
				v.lsh.Add(id, rt)
			}
			v.lex.Add(id, texts[start+i])
			v.textsMap()[id] = texts[start+i]
			v.dirty++
		}
		v.mu.Unlock()
		v.done.Add(int64(end - start))
	}
	return nil
}

// Add indexes a live atom whose vector was computed already.
func (v *State) Add(id, text string, vec []float32) error {
	v.waitBuild()
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.idx == nil {
		if err := v.newIndexes(len(vec)); err != nil {
			return err
		}
	}
	if old, ok := v.textsMap()[id]; ok {
		v.lex.RemoveText(id, old)
	}
	if err := v.idx.Add(id, vec); err != nil {
		return fmt.Errorf("index atom %s: %w", id, err)
	}
	if v.lsh != nil {
		v.lsh.Add(id, vec)
	}
	v.lex.Add(id, text)
	v.textsMap()[id] = text
	v.dirty++
	return nil
}

// Remove takes id out of the indexes.
func (v *State) Remove(id string) {
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
	texts := v.textsMap()
	if old, ok := texts[id]; ok {
		v.lex.RemoveText(id, old)
	}
	delete(texts, id)
}

// Embed computes one document vector, quantised as the cache stores it so
// every process scores the same numbers.
func (v *State) Embed(ctx context.Context, text string) ([]float32, error) {
	vecs, err := v.emb.Embed(ctx, []string{text})
	if err != nil {
		return nil, err
	}
	if len(vecs) != 1 {
		return nil, fmt.Errorf("embedder returned %d vectors for 1 text", len(vecs))
	}
	return RoundTrip(vecs[0]), nil
}
