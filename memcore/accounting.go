package memcore

import (
	"encoding/json"
	"path/filepath"
	"strings"

	"github.com/odekmem/odekmem/internal/disk"
	"github.com/odekmem/odekmem/internal/index"
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
	// The live atoms' chunks are not put in the usage map (a read-only
	// verb would build 18k paths for nothing): each entry of this load is
	// marked (lazyGen) and their estimate kept as one sum, until a write
	// measures or removes the chunk (takeLazyChunk).
	s.setUsageAll(s.files.Usage(dirChunks, map[string]int64{}))
	s.size.lazyGen++
	for _, e := range s.order {
		e.lazyGen = s.size.lazyGen
		s.size.lazySum += s.chunkEstimate(e.atom.Text)
	}
}

func (s *Store) setUsageAll(u map[string]int64) {
	s.size.usage = u
	s.size.usageSum = 0
	s.size.lazySum = 0
	s.size.lazyGen++ // no entry of an earlier load is implicit any more
	for _, n := range u {
		s.size.usageSum += n
	}
}

// chunkEstimate is what a chunk holding text allocates (estimateLocked).
func (s *Store) chunkEstimate(text string) int64 {
	return roundUp(int64(len(text)), s.size.blockSz)
}

// lazyChunk reports whether e's chunk is counted only in the sum of the
// last estimate.
func (s *Store) lazyChunk(e *entry) bool {
	return e != nil && e.lazyGen == s.size.lazyGen && e.lazyGen != 0
}

// takeLazyChunk moves e's chunk out of the estimate's sum: its usage is
// measured, or dropped, from now on.
func (s *Store) takeLazyChunk(e *entry) {
	if s.lazyChunk(e) {
		s.size.lazySum -= s.chunkEstimate(e.atom.Text)
		e.lazyGen = 0
	}
}

// chunkUsage is what e's chunk counts for.
func (s *Store) chunkUsage(e *entry) int64 {
	if s.lazyChunk(e) {
		return s.chunkEstimate(e.atom.Text)
	}
	return s.size.usage[chunkRel(e.atom.ID)]
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

// chunkEntry is the live atom whose chunk rel is (nil for other files).
func (s *Store) chunkEntry(rel string) *entry {
	name, ok := strings.CutPrefix(rel, dirChunks+string(filepath.Separator))
	if !ok {
		return nil
	}
	id, ok := strings.CutSuffix(name, chunkExt)
	if !ok {
		return nil
	}
	return s.byID[id]
}

func (s *Store) setUsage(rel string, n int64) {
	if s.size.lazySum != 0 {
		s.takeLazyChunk(s.chunkEntry(rel))
	}
	s.size.usageSum += n - s.size.usage[rel]
	s.size.usage[rel] = n
}

func (s *Store) dropUsage(rel string) {
	if s.size.lazySum != 0 {
		s.takeLazyChunk(s.chunkEntry(rel))
	}
	s.size.usageSum -= s.size.usage[rel]
	delete(s.size.usage, rel)
}

// totalLocked is the store's allocated size as measured and estimated.
func (s *Store) totalLocked() int64 { return s.size.usageSum + s.size.lazySum }

// ---- incremental accounting and the duplicate index ----

// track (re)counts e in recBytes and cacheBytes; call it after e.raw or
// e.atom changed.
func (s *Store) track(e *entry) {
	s.untrack(e)
	e.recLen = int64(len(s.recordBytes(e)) + 4)
	e.cacheLen = s.cacheEntrySize(e.atom.ID, e.atom.Text)
	if !s.size.wordsStale {
		s.size.cacheWords += int64(s.entryWords(e))
	}
	s.size.recBytes += e.recLen
	s.size.cacheBytes += e.cacheLen
	e.tracked = true
}

func (s *Store) untrack(e *entry) {
	if e.tracked {
		s.size.recBytes -= e.recLen
		s.size.cacheBytes -= e.cacheLen
		if !s.size.wordsStale {
			s.size.cacheWords -= int64(s.entryWords(e))
		}
		e.tracked = false
	}
}

func (s *Store) retrackAllLocked() {
	s.size.recBytes, s.size.cacheBytes = 0, 0
	// Words are summed when a write first needs them, not by every load.
	s.size.cacheWords, s.size.wordsStale = 0, true
	s.dup.normIdx = nil
	s.dup.evictIdx, s.dup.evictStale = nil, 0
	for _, e := range s.order {
		e.tracked = false
		s.track(e)
	}
}

// entryWords is what e's lexical postings are estimated from: its BM25
// length when the vector cache gave it at load, else the number of its
// words (at least its BM25 length: the index drops stop words).
func (s *Store) entryWords(e *entry) int32 {
	if e.words < 0 {
		e.words = int32(wordCount(e.atom.Text))
	}
	return e.words
}

// wordsLocked sums entryWords over the live atoms if a load left the sum
// stale, and returns it.
func (s *Store) wordsLocked() int64 {
	if s.size.wordsStale {
		var t int64
		for _, e := range s.order {
			t += int64(s.entryWords(e))
		}
		s.size.cacheWords, s.size.wordsStale = t, false
		if s.size.lexRatio == 0 && s.size.loadedLex.Bytes > 0 {
			s.setLexRatio(s.size.loadedLex)
		}
	}
	return s.size.cacheWords
}

// defaultLexRatio is the vector cache's lexical bytes per BM25 term
// assumed until a snapshot of this store was written or read (measured:
// 2.1 on notes of 300 characters, 4.5 on short numeric ones).
const defaultLexRatio = 6.0

// setLexRatio calibrates the lexical part of the cache estimate on a
// snapshot (its lexical bytes over its total BM25 length), with a margin.
func (s *Store) setLexRatio(l index.LexSize) {
	if l.Terms > 0 {
		s.size.lexRatio = min(max(1.05*float64(l.Bytes)/float64(l.Terms), 1), 64)
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

// normHash is textutil.NormalHash of the text, computed once.
func (e *entry) normHash() uint64 {
	if !e.normHashed {
		e.normH, e.normHashed = textutil.NormalHash(e.atom.Text), true
	}
	return e.normH
}

// twinByText returns the newest live atom whose normalised text is
// text's. The index holds the hashes of the normalised texts (no
// normalised string is built per atom); a hit is confirmed on the texts.
func (s *Store) twinByText(text string) *entry {
	if s.dup.normIdx == nil {
		s.dup.normIdx = make(map[uint64]*entry, len(s.order))
		s.dup.normDups = 0
		for _, e := range s.order {
			if s.byID[e.atom.ID] == e { // not one a batch evicted (deferOrder)
				s.indexNormLocked(e)
			}
		}
	}
	e := s.dup.normIdx[textutil.NormalHash(text)]
	if e == nil || e.normText() != textutil.Normalize(text) {
		return nil
	}
	return e
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
	h := e.normHash()
	if _, dup := s.dup.normIdx[h]; dup {
		s.dup.normDups++ // two live atoms with one text (another program wrote them)
	}
	s.dup.normIdx[h] = e
}

// forgetEntryLocked updates the accounting and the duplicate index for an
// entry that left s.order (the caller removes it from order and byID).
func (s *Store) forgetEntryLocked(e *entry) {
	if o := s.own[e.atom.ID]; o != nil && o.e == e {
		delete(s.own, e.atom.ID)
	}
	s.untrack(e)
	s.takeLazyChunk(e) // removeChunkLocked drops its usage now
	if s.dup.evictIdx != nil {
		s.dup.evictStale++ // skipped lazily: byID no longer maps to e
	}
	h := e.normHash()
	if s.dup.normIdx == nil || s.dup.normIdx[h] != e {
		return
	}
	delete(s.dup.normIdx, h)
	if s.dup.normDups == 0 {
		return
	}
	for i := len(s.order) - 1; i >= 0; i-- {
		if o := s.order[i]; o != e && s.byID[o.atom.ID] == o && o.normHash() == h {
			s.dup.normIdx[h] = o
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
