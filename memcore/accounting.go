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
	est := make(map[string]int64, len(s.order))
	for _, e := range s.order {
		est[e.atom.ID+chunkExt] = roundUp(int64(len(e.atom.Text)), s.size.blockSz)
	}
	s.setUsageAll(s.files.Usage(dirChunks, est))
}

func (s *Store) setUsageAll(u map[string]int64) {
	s.size.usage = u
	s.size.usageSum = 0
	for _, n := range u {
		s.size.usageSum += n
	}
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
	s.size.usageSum += n - s.size.usage[rel]
	s.size.usage[rel] = n
}

func (s *Store) dropUsage(rel string) {
	s.size.usageSum -= s.size.usage[rel]
	delete(s.size.usage, rel)
}

func (s *Store) totalLocked() int64 { return s.size.usageSum }

// ---- incremental accounting and the duplicate index ----

// track (re)counts e in recBytes and cacheBytes; call it after e.raw or
// e.atom changed.
func (s *Store) track(e *entry) {
	s.untrack(e)
	e.recLen = int64(len(s.recordBytes(e)) + 4)
	e.cacheLen = s.cacheEntrySize(e.atom.ID, e.atom.Text)
	s.size.recBytes += e.recLen
	s.size.cacheBytes += e.cacheLen
	e.tracked = true
}

func (s *Store) untrack(e *entry) {
	if e.tracked {
		s.size.recBytes -= e.recLen
		s.size.cacheBytes -= e.cacheLen
		e.tracked = false
	}
}

func (s *Store) retrackAllLocked() {
	s.size.recBytes, s.size.cacheBytes = 0, 0
	s.dup.normIdx = nil
	s.dup.evictIdx, s.dup.evictStale = nil, 0
	for _, e := range s.order {
		e.tracked = false
		s.track(e)
	}
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
