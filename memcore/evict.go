package memcore

import (
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"time"

	"github.com/odekmem/odekmem/internal/score"
	"github.com/odekmem/odekmem/internal/vindex"
)

// ---- size accounting and eviction ----

func roundUp(n, block int64) int64 {
	if n <= 0 {
		return 0
	}
	return (n + block - 1) / block * block
}

// cacheEntrySize is what one atom adds to vectors.odm (index.Snapshot's
// layout) besides its lexical postings: its id and text with their
// offsets, its int8 row, factor and BM25 length. The postings and its
// share of the term table are estimated from its words (lexBytesOf).
func (s *Store) cacheEntrySize(id, text string) int64 {
	dims := s.vec.Dims()
	if dims == 0 {
		dims = 768
	}
	return int64(4 + len(id) + 8 + len(text) + dims + 4 + 4)
}

// cacheFixedSize is what vectors.odm holds besides its entries: the
// header, section alignment and the per-dimension counts, and the binary
// codes of an index large enough to keep them.
func (s *Store) cacheFixedSize() int64 {
	dims := int64(max(s.vec.Dims(), 768))
	t := 2048 + 4*dims
	if len(s.order) >= vindex.DefaultQuantMin {
		t += int64(len(s.order)) * int64(vindex.CodeWords(int(dims))) * 8
	}
	return t
}

// wordCount counts the runs of non-space bytes in text.
func wordCount(text string) int {
	n, in := 0, false
	for i := 0; i < len(text); i++ {
		sp := text[i] <= ' '
		if !sp && !in {
			n++
		}
		in = !sp
	}
	return n
}

// capSlackBlocks is the margin projectedLocked keeps under the cap. Four
// blocks once fell one short under heavy load (a file's allocation then
// ran a block past its size's rounding); eight is 32 KiB on ext4, 3% of
// a 1 MB cap and nothing on the default 100 MB.
const capSlackBlocks = 8

// dirEntryEstimate is what one chunk file adds to the chunks/ directory
// (an ext4 entry for a 35-byte name is 44 bytes, plus htree slack).
const dirEntryEstimate = 64

// projectedLocked estimates the store's allocated size once every pending
// change is on disk, including the vector cache at its next snapshot. It is
// O(1) apart from the quarantine sum: the per-file usage, the atoms.json
// records and the cache entries are counted incrementally.
func (s *Store) projectedLocked() int64 {
	// A few blocks of slack cover what the estimate cannot see exactly
	// (block rounding of rewritten files, directory growth).
	t := capSlackBlocks*s.size.blockSz + s.totalLocked() - s.size.usage[fileAtoms] - s.size.usage[fileQuarantine] - s.size.usage[fileVectors] - s.size.usage[dirChunks]
	// chunks/ itself grows with its entries (and never shrinks on ext4).
	t += max(s.size.usage[dirChunks], roundUp(int64(len(s.order))*dirEntryEstimate, s.size.blockSz))
	t += roundUp(4+s.size.recBytes, s.size.blockSz)
	t += roundUp(s.quarBytesLocked(), s.size.blockSz)
	t += roundUp(s.cacheProjectedLocked(), s.size.blockSz)
	return t
}

// planEvictionLocked picks the atoms to evict so that adding a (nil for a
// size check only) fits under the cap. It removes nothing.
func (s *Store) planEvictionLocked(a Atom, extra []Atom) ([]string, error) {
	capB := s.cfg.capBytes()
	if capB <= 0 {
		return nil, nil
	}
	rec, _ := json.MarshalIndent(a, "  ", "  ")
	need := s.projectedLocked() + roundUp(int64(len(a.Text)), s.size.blockSz) + int64(len(rec)+4) + s.cacheEntrySize(a.ID, a.Text) +
		s.lexBytesOf(&entry{words: int32(wordCount(a.Text))}) + dirEntryEstimate
	if need <= capB {
		return nil, nil
	}
	now := s.now()
	type cand struct {
		id   string
		free int64
	}
	var cands []cand
	for _, q := range s.quar {
		if q.expired(s.cfg.QuarantineTTLDays, now) {
			cands = append(cands, cand{id: q.ID, free: s.quarEntrySize(q)})
		}
	}
	var victims []string
	for _, c := range cands {
		if need <= capB {
			break
		}
		victims = append(victims, c.id)
		need -= c.free
	}
	// Then live atoms by ascending retention, from the eviction index: no
	// scan or sort of every atom per add.
	s.evictionWalkLocked(now, func(e *entry) bool {
		if need <= capB {
			return false
		}
		if !e.atom.Pin {
			victims = append(victims, e.atom.ID)
			need -= s.chunkUsage(e) + e.recLen + e.cacheLen + s.lexBytesOf(e)
		}
		return true
	})
	if need > capB {
		return nil, fmt.Errorf("%w: store would use %s of the %s cap (max_size_mb %g) and every remaining atom is pinned; unpin or forget atoms, or raise max_size_mb",
			ErrCapExceeded, humanBytes(need), humanBytes(capB), s.cfg.MaxSizeMB)
	}
	return victims, nil
}

// evictHalfLife is the half-life class of e in the eviction index: its
// type's half-life (pinned atoms are never evicted, so a pin does not move
// an atom between classes).
func (s *Store) evictHalfLife(e *entry) float64 { return s.hl.forType(s.cfg, e.atom.Type) }

// evictKey orders the live atoms of one half-life h by retention
// independently of the clock: log2 retention = log2(confidence × trust)
// − (now − created)/h, so comparing log2(confidence × trust) + created/h
// compares retention at any now. (Atoms dated in the future, whose age
// retention clamps to zero, are ordered as if they were not clamped.)
func evictKey(e *entry, h float64) float64 {
	k := math.Log2(score.Confidence(e.atom.Confidence) * score.Trust(e.atom.SourceClass))
	if h > 0 {
		k += float64(e.atom.CreatedAt.UnixNano()) / (h * 24 * float64(time.Hour))
	}
	return k
}

// evictLogRetention is log2 of e's retention at now, from its key.
func evictLogRetention(e *entry, h float64, now time.Time) float64 {
	k := evictKey(e, h)
	if h > 0 {
		k -= float64(now.UnixNano()) / (h * 24 * float64(time.Hour))
	}
	return k
}

func evictLess(a, b *entry, h float64) bool {
	ka, kb := evictKey(a, h), evictKey(b, h)
	if ka != kb {
		return ka < kb
	}
	return a.atom.CreatedAt.Before(b.atom.CreatedAt)
}

// evictionIndexLocked returns the eviction index (which may hold stale
// entries; callers skip them), rebuilding it if needed.
func (s *Store) evictionIndexLocked() map[float64][]*entry {
	if s.dup.evictIdx == nil || s.dup.evictStale > s.dup.evictLen()/2+64 {
		idx := map[float64][]*entry{}
		for _, e := range s.order {
			h := s.evictHalfLife(e)
			idx[h] = append(idx[h], e)
		}
		for h, list := range idx {
			sort.SliceStable(list, func(i, j int) bool { return evictLess(list[i], list[j], h) })
		}
		s.dup.evictIdx, s.dup.evictStale = idx, 0
	}
	return s.dup.evictIdx
}

func (d *derived) evictLen() int {
	n := 0
	for _, list := range d.evictIdx {
		n += len(list)
	}
	return n
}

// evictionWalkLocked calls fn with the live atoms (pinned ones included)
// by ascending retention at now, merging the half-life lists, until fn
// returns false. Entries of atoms that left the store are dropped from
// the front of each list on the way, so a run of evictions (an import into
// a full store) does not walk them again on every add.
func (s *Store) evictionWalkLocked(now time.Time, fn func(e *entry) bool) {
	idx := s.evictionIndexLocked()
	type head struct {
		h    float64
		list []*entry
	}
	heads := make([]head, 0, len(idx))
	for h, list := range idx {
		for len(list) > 0 && s.byID[list[0].atom.ID] != list[0] {
			list, s.dup.evictStale = list[1:], max(0, s.dup.evictStale-1)
		}
		idx[h] = list
		if len(list) > 0 {
			heads = append(heads, head{h, list})
		}
	}
	for len(heads) > 0 {
		best, bestR := -1, 0.0
		for i, hd := range heads {
			r := evictLogRetention(hd.list[0], hd.h, now)
			if best < 0 || r < bestR || r == bestR && hd.list[0].atom.CreatedAt.Before(heads[best].list[0].atom.CreatedAt) {
				best, bestR = i, r
			}
		}
		e := heads[best].list[0]
		if heads[best].list = heads[best].list[1:]; len(heads[best].list) == 0 {
			heads = append(heads[:best], heads[best+1:]...)
		}
		if s.byID[e.atom.ID] != e {
			continue
		}
		if !fn(e) {
			return
		}
	}
}

// insertEvictionLocked adds a new live entry to the eviction index.
func (s *Store) insertEvictionLocked(e *entry) {
	if s.dup.evictIdx == nil {
		return
	}
	h := s.evictHalfLife(e)
	list := s.dup.evictIdx[h]
	i := sort.Search(len(list), func(i int) bool { return evictLess(e, list[i], h) })
	list = append(list, nil)
	copy(list[i+1:], list[i:])
	list[i] = e
	s.dup.evictIdx[h] = list
}

// reindexEvictionLocked repositions e after its confidence or timestamp
// changed.
func (s *Store) reindexEvictionLocked(e *entry) {
	if s.dup.evictIdx == nil {
		return
	}
	h := s.evictHalfLife(e)
	list := s.dup.evictIdx[h]
	for i, x := range list {
		if x == e {
			s.dup.evictIdx[h] = append(list[:i], list[i+1:]...)
			break
		}
	}
	s.insertEvictionLocked(e)
}

// removeVictimsFromMetaLocked drops victims from the in-memory metadata so
// the next atoms.json/quarantine.json write no longer lists them.
func (s *Store) removeVictimsFromMetaLocked(t *tx, victims []string) {
	if len(victims) == 0 {
		return
	}
	// Live victims by entry: the walk over s.order compares pointers (no
	// id hashing per atom) and stops once all are found; the quarantine is
	// walked only for victims that are not live.
	gone := map[*entry]bool{}
	quarGone := map[string]bool{}
	for _, id := range victims {
		if e := s.byID[id]; e != nil {
			gone[e] = true
		} else {
			quarGone[id] = true
		}
	}
	if s.deferOrder {
		// AddBatch drops them from s.order when it is done.
		for e := range gone {
			delete(s.byID, e.atom.ID)
			s.forgetEntryLocked(e)
			s.orderGone++
		}
		gone = nil
	}
	keep := s.order[:0]
	removed := make([]*entry, 0, len(gone))
	for i, e := range s.order {
		if len(gone) == 0 {
			keep = s.order
			break
		}
		if len(removed) == len(gone) {
			keep = append(keep, s.order[i:]...)
			break
		}
		if gone[e] {
			delete(s.byID, e.atom.ID)
			removed = append(removed, e)
			continue
		}
		keep = append(keep, e)
	}
	for i := len(keep); i < len(s.order); i++ {
		s.order[i] = nil
	}
	s.order = keep
	for _, e := range removed {
		s.forgetEntryLocked(e)
	}
	if len(quarGone) == 0 {
		return
	}
	qkeep := s.quar[:0]
	quarChanged := false
	for _, q := range s.quar {
		if quarGone[q.ID] {
			quarChanged = true
			continue
		}
		qkeep = append(qkeep, q)
	}
	s.quar = qkeep
	if quarChanged {
		s.saveQuarantineLocked(t)
	}
}

// compactOrderLocked drops from s.order the entries a batch evicted
// (deferOrder) in one pass, and ends deferring.
func (s *Store) compactOrderLocked() {
	s.deferOrder = false
	if s.orderGone == 0 {
		return
	}
	keep := s.order[:0]
	for _, e := range s.order {
		if s.byID[e.atom.ID] == e {
			keep = append(keep, e)
		}
	}
	for i := len(keep); i < len(s.order); i++ {
		s.order[i] = nil
	}
	s.order, s.orderGone = keep, 0
}

// finishVictimsLocked removes evicted atoms' chunks, vectors and links once
// the metadata no longer lists them.
func (s *Store) finishVictimsLocked(t *tx, victims []string) []string {
	for _, id := range victims {
		s.removeChunkLocked(t, id)
		s.vec.Remove(id)
		s.dropLinksLocked(t, id)
	}
	if len(victims) > 0 && len(victims)*10 > len(s.order)+len(victims) && !s.closing {
		// A large eviction (over 10% of the corpus) compacts the vector
		// cache in the background, once this write has released the lock.
		s.bg.Add(1)
		// Background work owned by the Store: Close waits for it (s.bg).
		go func() {
			defer s.bg.Done()
			s.compact(s.bgCtx, false)
		}()
	}
	return victims
}

func (s *Store) dropLinksLocked(t *tx, id string) {
	if s.graph.remove(id) {
		s.saveAssocLocked(t)
	}
}
