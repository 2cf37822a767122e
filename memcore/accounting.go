package memcore

import (
	"encoding/json"

	"github.com/odekmem/odekmem/internal/disk"
	"github.com/odekmem/odekmem/internal/textutil"
)

// measureLocked walks the store and records allocated bytes per file
// (the chunks' sizes from the full check's pass when it just ran).
func (s *Store) measureLocked() {
	s.setUsageAll(s.files.Usage(dirChunks, s.chunkSize))
	if st, err := disk.BlockSize(s.dir); err == nil && st > 0 {
		s.size.blockSz = st
	}
}

// estimateLocked is measureLocked without a stat of every chunk: each
// live atom's chunk counts as its text rounded up to whole blocks, which
// is what it allocates on the file systems odekmem is measured on (ext4,
// APFS, NTFS for files past the MFT record). Files in chunks/ that no live
// atom owns are counted by the next full check.
func (s *Store) estimateLocked() {
	if !s.size.blockKnown {
		if st, err := disk.BlockSize(s.dir); err == nil && st > 0 {
			s.size.blockSz = st
		}
		s.size.blockKnown = true
	}
	// The chunks' entries are added to the usage map when a write or
	// Stats first needs them (ensureUsageLocked): a read-only verb never
	// builds 18k paths for them.
	s.setUsageAll(s.files.Usage(dirChunks, map[string]int64{}))
	s.size.chunksLazy = true
}

func (s *Store) setUsageAll(u map[string]int64) {
	s.size.usage = u
	s.size.usageSum = 0
	s.size.chunksLazy = false
	for _, n := range u {
		s.size.usageSum += n
	}
}

// chunkEstimate is what a chunk holding text allocates (estimateLocked).
func (s *Store) chunkEstimate(text string) int64 {
	return roundUp(int64(len(text)), s.size.blockSz)
}

// ensureUsageLocked adds the live atoms' chunks to the usage map when the
// last load left them implicit; every writer of the map and every reader
// of a chunk's entry calls it first.
func (s *Store) ensureUsageLocked() {
	if !s.size.chunksLazy {
		return
	}
	s.size.chunksLazy = false
	for _, e := range s.order {
		n := s.chunkEstimate(e.atom.Text)
		s.size.usage[chunkRel(e.atom.ID)] = n
		s.size.usageSum += n
	}
}

// implicitChunksLocked is what the chunks ensureUsageLocked has not added
// yet allocate, for a reader under the read lock.
func (s *Store) implicitChunksLocked() int64 {
	if !s.size.chunksLazy {
		return 0
	}
	var t int64
	for _, e := range s.order {
		t += s.chunkEstimate(e.atom.Text)
	}
	return t
}

// account re-measures one file after a write or removal.
func (s *Store) account(rel string) {
	n, ok := s.files.Allocated(rel)
	if !ok {
		s.dropUsage(rel)
		return
	}
	s.setUsage(rel, n)
}

func (s *Store) setUsage(rel string, n int64) {
	s.ensureUsageLocked()
	s.size.usageSum += n - s.size.usage[rel]
	s.size.usage[rel] = n
}

func (s *Store) dropUsage(rel string) {
	s.ensureUsageLocked()
	s.size.usageSum -= s.size.usage[rel]
	delete(s.size.usage, rel)
}

func (s *Store) totalLocked() int64 {
	s.ensureUsageLocked()
	return s.size.usageSum
}

// ---- incremental accounting and the duplicate index ----

// track (re)counts e in recBytes and cacheBytes; call it after e.raw or
// e.atom changed.
func (s *Store) track(e *entry) {
	s.untrack(e)
	e.recLen = int64(len(s.recordBytes(e)) + 4)
	e.cacheLen = s.cacheEntrySize(e.atom.ID, e.atom.Text)
	e.words = -1
	if !s.size.wordsStale {
		e.words = int32(wordCount(e.atom.Text))
		s.size.cacheWords += int64(e.words)
	}
	s.size.recBytes += e.recLen
	s.size.cacheBytes += e.cacheLen
	e.tracked = true
}

func (s *Store) untrack(e *entry) {
	if e.tracked {
		s.size.recBytes -= e.recLen
		s.size.cacheBytes -= e.cacheLen
		if !s.size.wordsStale && e.words >= 0 {
			s.size.cacheWords -= int64(e.words)
		}
		e.tracked = false
	}
}

func (s *Store) retrackAllLocked() {
	s.size.recBytes, s.size.cacheBytes = 0, 0
	// Words are counted when a write first needs them, not by every load.
	s.size.cacheWords, s.size.wordsStale = 0, true
	s.dup.normIdx = nil
	s.dup.evictIdx, s.dup.evictStale = nil, 0
	for _, e := range s.order {
		e.tracked = false
		s.track(e)
	}
}

// wordsLocked counts every live atom's words if a load left them
// uncounted, and returns their sum.
func (s *Store) wordsLocked() int64 {
	if s.size.wordsStale {
		var t int64
		for _, e := range s.order {
			e.words = int32(wordCount(e.atom.Text))
			t += int64(e.words)
		}
		s.size.cacheWords, s.size.wordsStale = t, false
		if s.size.lexRatio == 0 && s.size.loadedLexBytes > 0 && t > 0 {
			s.setLexRatio(s.size.loadedLexBytes, t)
		}
	}
	return s.size.cacheWords
}

// defaultLexRatio is the vector cache's lexical bytes per word assumed
// until a snapshot of this store was written or read: the encoding
// measured 1.9 on notes of 300 characters.
const defaultLexRatio = 3.0

// setLexRatio calibrates the lexical part of the cache estimate on a
// snapshot of lexBytes for words words, with a margin.
func (s *Store) setLexRatio(lexBytes, words int64) {
	if words > 0 {
		s.size.lexRatio = min(max(1.05*float64(lexBytes)/float64(words), 1), 32)
	}
}

// lexBytesOf is e's estimated share of the cache's lexical sections
// (after wordsLocked).
func (s *Store) lexBytesOf(e *entry) int64 {
	r := s.size.lexRatio
	if r == 0 {
		r = defaultLexRatio
	}
	return int64(r * float64(max(e.words, 0)))
}

// cacheProjectedLocked is the estimated size of the vector cache holding
// every live atom.
func (s *Store) cacheProjectedLocked() int64 {
	w := s.wordsLocked()
	r := s.size.lexRatio
	if r == 0 {
		r = defaultLexRatio
	}
	return s.cacheFixedSize() + s.size.cacheBytes + int64(r*float64(w))
}

func (e *entry) normText() string {
	if e.norm == "" {
		e.norm = textutil.Normalize(e.atom.Text)
	}
	return e.norm
}

// twinByNorm returns the newest live atom whose normalised text is norm.
func (s *Store) twinByNorm(norm string) *entry {
	if s.dup.normIdx == nil {
		s.dup.normIdx = make(map[string]*entry, len(s.order))
		s.dup.normDups = 0
		for _, e := range s.order {
			s.indexNormLocked(e)
		}
	}
	return s.dup.normIdx[norm]
}

// appendEntryLocked adds a live atom to the in-memory metadata.
func (s *Store) appendEntryLocked(e *entry) {
	s.noteOwnLocked(e)
	s.order = append(s.order, e)
	s.byID[e.atom.ID] = e
	s.track(e)
	if s.dup.normIdx != nil {
		s.indexNormLocked(e)
	}
	s.insertEvictionLocked(e)
}

func (s *Store) indexNormLocked(e *entry) {
	if _, dup := s.dup.normIdx[e.normText()]; dup {
		s.dup.normDups++ // two live atoms with one text (another program wrote them)
	}
	s.dup.normIdx[e.norm] = e
}

// forgetEntryLocked updates the accounting and the duplicate index for an
// entry that left s.order (the caller removes it from order and byID).
func (s *Store) forgetEntryLocked(e *entry) {
	if o := s.own[e.atom.ID]; o != nil && o.e == e {
		delete(s.own, e.atom.ID)
	}
	s.untrack(e)
	if s.dup.evictIdx != nil {
		s.dup.evictStale++ // skipped lazily: byID no longer maps to e
	}
	if s.dup.normIdx == nil || s.dup.normIdx[e.normText()] != e {
		return
	}
	delete(s.dup.normIdx, e.norm)
	if s.dup.normDups == 0 {
		return
	}
	for i := len(s.order) - 1; i >= 0; i-- {
		if o := s.order[i]; o != e && s.byID[o.atom.ID] == o && o.normText() == e.norm {
			s.dup.normIdx[e.norm] = o
			return
		}
	}
}

// quarEntrySize is what q adds to quarantine.json.
func (s *Store) quarEntrySize(q *QuarantinedAtom) int64 {
	if n, ok := s.size.quarSizes[q]; ok {
		return n
	}
	if s.size.quarSizes == nil || len(s.size.quarSizes) > 2*len(s.quar)+64 {
		s.size.quarSizes = make(map[*QuarantinedAtom]int64, len(s.quar))
	}
	b, err := json.MarshalIndent((*quarEntry)(q), "  ", "  ")
	if err != nil {
		panic("memcore: marshal quarantine entry: " + err.Error())
	}
	n := int64(len(b) + 4)
	s.size.quarSizes[q] = n
	return n
}

// quarBytesLocked is len(quarantineJSON()) without marshalling it.
func (s *Store) quarBytesLocked() int64 {
	t := int64(2)
	for _, q := range s.quar {
		t += s.quarEntrySize(q)
	}
	return t
}
