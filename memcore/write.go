package memcore

import (
	"context"
	"encoding/json"
	"fmt"
	"github.com/odekmem/odekmem/memcore/internal/par"
	"math"
	"path/filepath"
	"sort"
	"strings"
	"time"
	"unicode"

	"github.com/odekmem/odekmem/internal/textutil"
	"github.com/odekmem/odekmem/internal/umfield"
	"github.com/odekmem/odekmem/internal/vocab"
	"github.com/odekmem/odekmem/memcore/scan"
)

// AddRequest describes a new atom.
type AddRequest struct {
	Text string
	// Type is one of the Type constants (case-insensitive); "" means fact, anything
	// else is ErrUnknownType.
	Type string
	// Source is the atom's source class. Trust is never the zero value: ""
	// stores the atom as agent_generated, in quarantine. A human surface
	// (CLI or TUI add) passes SourceUserApproved, per-turn extraction
	// SourceUserSaid.
	Source string
	// Confidence is in (0, 1]; 0 means unset and is stored without a
	// confidence, which every reader scores as 1.0. A negative, NaN or
	// larger value is ErrInvalidConfidence.
	Confidence float64
	Pin        bool
	Context    AtomContext
	// Origin keeps where a promoted atom came from (import and undo pass
	// it back); nil for a new atom.
	Origin *Origin
	// CreatedAt defaults to now (import and tests set it).
	CreatedAt time.Time
	// ID keeps an existing id (import, undo); empty means a fresh one.
	ID string
	// QuarantineReason and QuarantinedAt keep an imported quarantine entry's
	// history.
	QuarantineReason string
	QuarantinedAt    time.Time
	// exactDedup limits write-time dedup to the same normalised text (and
	// the same id): import restores atoms as they were where they came
	// from, where near duplicates were distinct atoms, and a vector search
	// per atom would dominate a large import.
	exactDedup bool
	// Link links a new live atom to its temporal, task and semantic
	// neighbours (associate), as every write of odek's does, when
	// associations_enabled is set. Human surfaces (CLI and TUI add) set it.
	Link bool
}

// AddResult says what became of an AddRequest.
type AddResult struct {
	Atom Atom `json:"atom"`
	// Quarantined is true when the atom went to quarantine (tainted source
	// or a blocking scan finding); Reason says why.
	Quarantined bool           `json:"quarantined"`
	Reason      string         `json:"reason,omitempty"`
	Findings    []scan.Finding `json:"findings,omitempty"`
	// Refreshed is true when the text matched a live atom, which was
	// refreshed (same id, newer timestamp, higher confidence) instead.
	Refreshed bool `json:"refreshed,omitempty"`
	// Redacted is true when secrets were replaced by [REDACTED:kind].
	Redacted bool `json:"redacted,omitempty"`
	// Evicted lists atoms removed to stay under the size cap.
	Evicted []string `json:"evicted,omitempty"`
	// Duplicate is true when an import found the id already present.
	Duplicate bool `json:"duplicate,omitempty"`
	// Links counts the associations a Link request created.
	Links int `json:"links,omitempty"`
}

// prepared is an AddRequest after scanning, redaction and embedding, ready
// to be committed under the lock.
type prepared struct {
	atom   Atom
	quar   *QuarantinedAtom
	vec    []float32
	result AddResult
	// exactDedup skips the near-duplicate search (AddRequest.exactDedup).
	exactDedup bool
}

func (s *Store) prepare(ctx context.Context, req AddRequest) (*prepared, error) {
	text := strings.TrimSpace(req.Text)
	if text == "" {
		return nil, ErrEmptyText
	}
	src := req.Source
	if src == "" {
		src = SourceAgentGenerated // unknown provenance is never trusted
	}
	if !vocab.ValidSource(src) {
		return nil, fmt.Errorf("unknown source class %q: allowed %s", src, strings.Join(vocab.SourceClasses, ", "))
	}
	typ := strings.ToLower(strings.TrimSpace(req.Type))
	if typ == "" {
		typ = TypeFact
	}
	if !vocab.ValidType(typ) {
		return nil, fmt.Errorf("%w %q: allowed %s", ErrUnknownType, req.Type, strings.Join(vocab.AtomTypes, ", "))
	}
	if c := req.Confidence; math.IsNaN(c) || c < 0 || c > 1 {
		return nil, fmt.Errorf("%w: confidence %v: allowed a number greater than 0 and at most 1 (0 means unset: 1.0)", ErrInvalidConfidence, c)
	}
	res := scan.Scan(text)
	p := &prepared{exactDedup: req.exactDedup}
	p.result.Findings = res.Findings
	if res.Redacted != text {
		text = res.Redacted
		p.result.Redacted = true
	}
	text = textutil.Truncate(text, s.cfg.AtomMaxChars)
	id := req.ID
	if id == "" {
		id = vocab.NewID()
	} else if !vocab.ValidID(id) {
		return nil, fmt.Errorf("%w: %q", ErrInvalidID, scanRedact(id))
	} else if scanRedact(id) != id {
		return nil, fmt.Errorf("%w: the id looks like a credential", ErrInvalidID)
	}
	created := req.CreatedAt
	if created.IsZero() {
		created = s.now()
	}
	conf := req.Confidence
	ctxc := req.Context
	ctxc.RelatedAtomIDs = append([]string(nil), ctxc.RelatedAtomIDs...)
	// Context strings reach atoms.json too: no secret in them either.
	ctxc.SessionID, ctxc.Project = scanRedact(ctxc.SessionID), scanRedact(ctxc.Project)
	p.atom = Atom{ID: id, SourceClass: src, Type: typ, CreatedAt: created.UTC(), Context: ctxc, Pin: req.Pin, Confidence: conf, Text: text,
		Origin: cleanOrigin(req.Origin)}

	guardReason := s.guardWriteReason(ctx, text, src, res)
	reason := ""
	switch {
	case res.Blocked() && strings.HasPrefix(req.QuarantineReason, "scan_rejected"):
		reason = textutil.Truncate(req.QuarantineReason, 200) // an import keeps its history
	case res.Blocked():
		reason = res.RejectReason()
	case guardReason != "":
		reason = guardReason
	case req.QuarantineReason != "":
		reason = textutil.Truncate(req.QuarantineReason, 200)
	case vocab.IsTainted(src):
		reason = "tainted"
	}
	if reason != "" {
		p.atom.Pin = false
		qa := s.now().UTC()
		if !req.QuarantinedAt.IsZero() {
			qa = req.QuarantinedAt.UTC()
		}
		p.quar = &QuarantinedAtom{Atom: p.atom, QuarantinedAt: qa, Reason: reason}
		p.result.Quarantined, p.result.Reason = true, reason
		p.result.Atom = p.atom
		return p, nil
	}
	if err := s.vec.waitReady(ctx); err != nil {
		return nil, err
	}
	vec, err := s.vec.embed(ctx, text)
	if err != nil {
		return nil, fmt.Errorf("embed atom: %w", err)
	}
	p.vec = vec
	p.result.Atom = p.atom
	return p, nil
}

// Add scans, redacts and stores one atom. Trusted atoms (user_said,
// user_approved) that pass the scanner become live and recallable; tainted
// ones and any that the scanner blocks go to quarantine. When the cap would
// be exceeded, expired quarantine and then the lowest-retention unpinned
// atoms are evicted; if that cannot make room, ErrCapExceeded is returned
// and nothing is removed. The atom is durable when Add returns nil.
func (s *Store) Add(ctx context.Context, req AddRequest) (AddResult, error) {
	p, err := s.prepare(ctx, req)
	if err != nil {
		return AddResult{}, err
	}
	err = s.withWriteCtx(ctx, func() error { return s.commitLocked(p) })
	if err == nil && req.Link && !p.result.Quarantined && !p.result.Duplicate && !p.result.Refreshed {
		n, lerr := s.associate(ctx, p.result.Atom.ID)
		p.result.Links = n
		if lerr != nil {
			err = fmt.Errorf("atom %s was added, but linking it failed: %w", p.result.Atom.ID, lerr)
		}
	}
	return p.result, err
}

// AddBatch adds many atoms under one lock with one atoms.json write, for
// ingest and import. Results are in request order; a request that fails
// preparation has its error in errs at the same index.
func (s *Store) AddBatch(ctx context.Context, reqs []AddRequest) ([]AddResult, []error, error) {
	preps := make([]*prepared, len(reqs))
	errs := make([]error, len(reqs))
	results := make([]AddResult, len(reqs))
	// Scanning and embedding are pure CPU work: spread them over the cores.
	par.For(len(reqs), 32, 0, func(i int) { preps[i], errs[i] = s.prepare(ctx, reqs[i]) })
	err := s.withWriteCtx(ctx, func() error {
		s.batching = true
		defer func() {
			s.batching = false
			s.batchDirty, s.batchQuarDirty, s.batchAssocDirty = false, false, false
			if len(s.pendingChunks) > 0 || len(s.pendingRemove) > 0 {
				// The flush failed before writing them: memory is ahead of disk.
				s.pendingChunks, s.pendingRemove = nil, nil
				s.invalidateLocked()
			}
		}()
		for i, p := range preps {
			if p == nil {
				continue
			}
			if err := s.commitLocked(p); err != nil {
				errs[i] = err
			}
			results[i] = p.result
		}
		return s.flushBatchLocked()
	})
	return results, errs, err
}

// commitLocked stores a prepared atom. Caller holds the write locks.
func (s *Store) commitLocked(p *prepared) error {
	s.expireLocked()
	if s.byID[p.atom.ID] != nil || s.quarIndex(p.atom.ID) >= 0 {
		p.result.Duplicate = true
		return nil
	}
	if p.quar != nil {
		return s.commitQuarantineLocked(p)
	}
	if e := s.findTwinLocked(p); e != nil {
		old := e.atom
		e.atom.CreatedAt = p.atom.CreatedAt
		if p.atom.EffectiveConfidence() > old.EffectiveConfidence() || old.Confidence > 0 && p.atom.Confidence == 0 {
			e.atom.Confidence = p.atom.Confidence
		}
		if p.atom.Pin {
			e.atom.Pin = true
		}
		oldRaw := e.raw
		e.raw = nil
		s.track(e)
		s.reindexEvictionLocked(e)
		p.result.Refreshed = true
		p.result.Atom = cloneAtom(e.atom)
		if err := s.saveAtomsLocked(); err != nil {
			e.atom, e.raw = old, oldRaw
			s.track(e)
			s.reindexEvictionLocked(e)
			return err
		}
		return nil
	}
	victims, err := s.planEvictionLocked(p.atom, nil)
	if err != nil {
		return err
	}
	e := &entry{atom: p.atom}
	s.appendEntryLocked(e)
	s.removeVictimsFromMetaLocked(victims)
	if s.batching {
		err = s.writeChunk(p.atom.ID, p.atom.Text)
		if err == nil {
			err = s.saveAtomsLocked()
		}
	} else {
		err = s.writeChunkAndAtomsLocked(p.atom.ID, p.atom.Text)
	}
	if err != nil {
		// Memory is ahead of disk (the new atom, the victims): reload from
		// disk before the next operation.
		s.popEntryLocked(e)
		s.invalidateLocked()
		return err
	}
	if err := s.vec.add(p.atom.ID, p.atom.Text, p.vec); err != nil {
		return err
	}
	p.result.Evicted = s.finishVictimsLocked(victims)
	if s.batching {
		return nil
	}
	return s.vec.maybeSnapshot(false)
}

// saveAtomsLocked writes atoms.json unless a batch defers it.
func (s *Store) saveAtomsLocked() error {
	if s.batching {
		s.batchDirty = true
		return nil
	}
	return s.writeAtomsLocked()
}

func (s *Store) saveQuarantineLocked() error {
	if s.batching {
		s.batchQuarDirty = true
		return nil
	}
	return s.writeQuarantineLocked()
}

func (s *Store) flushBatchLocked() error {
	// Chunks first: atoms.json must never list an atom whose chunk is not
	// durable yet.
	if err := s.flushChunksLocked(); err != nil {
		return err
	}
	if s.batchDirty {
		s.batchDirty = false
		if err := s.writeAtomsLocked(); err != nil {
			return err
		}
	}
	if s.batchQuarDirty {
		s.batchQuarDirty = false
		if err := s.writeQuarantineLocked(); err != nil {
			return err
		}
	}
	if s.batchAssocDirty {
		s.batchAssocDirty = false
		if err := s.writeAssocLocked(); err != nil {
			return err
		}
	}
	s.removePendingChunksLocked()
	return s.vec.maybeSnapshot(false)
}

// findTwinLocked returns a live atom that the new one duplicates: the same
// normalised text, or a cosine at or above dedup_threshold.
func (s *Store) findTwinLocked(p *prepared) *entry {
	if e := s.twinByNorm(textutil.Normalize(p.atom.Text)); e != nil {
		return e
	}
	if s.cfg.DedupThreshold <= 0 || p.vec == nil || p.exactDedup {
		return nil
	}
	id, cos := s.vec.nearest(p.vec)
	if id != "" && cos >= float32(s.cfg.DedupThreshold) {
		if e := s.byID[id]; e != nil && sameFacts(e.atom.Text, p.atom.Text) {
			return e
		}
	}
	return nil
}

// sameFacts reports whether two near-identical texts state the same thing:
// the same numbers and identifiers with digits ("Python 3.11" is not
// "Python 3.12") and the same negations ("always" is not "never"). Texts
// that differ in these are different memories however close their vectors.
func sameFacts(a, b string) bool {
	fa, fb := factTokens(a), factTokens(b)
	if len(fa) != len(fb) {
		return false
	}
	for k, n := range fa {
		if fb[k] != n {
			return false
		}
	}
	return true
}

var negations = map[string]bool{"not": true, "no": true, "never": true, "don't": true, "dont": true, "doesn't": true,
	"isn't": true, "won't": true, "can't": true, "cannot": true, "without": true, "avoid": true, "stop": true, "always": true}

func factTokens(s string) map[string]int {
	out := map[string]int{}
	for _, w := range strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !(unicode.IsLetter(r) || unicode.IsDigit(r) || r == '\'' || r == '.' || r == '_' || r == '-')
	}) {
		w = strings.Trim(w, ".-_'")
		if negations[w] || strings.IndexFunc(w, unicode.IsDigit) >= 0 {
			out[w]++
		}
	}
	return out
}

func (s *Store) quarIndex(id string) int {
	for i, q := range s.quar {
		if q.ID == id {
			return i
		}
	}
	return -1
}

func (s *Store) commitQuarantineLocked(p *prepared) error {
	s.quar = append(s.quar, p.quar)
	share := int64(float64(s.cfg.capBytes()) * s.cfg.QuarantineSharePercent / 100)
	var dropped []*QuarantinedAtom
	if s.cfg.capBytes() > 0 {
		// Quarantine's own share: drop the oldest entries (never a trusted atom).
		for len(s.quar) > 1 && s.quarBytesLocked() > share {
			dropped = append(dropped, s.oldestQuarantineLocked())
		}
		if s.quarBytesLocked() > share {
			s.quar = s.quar[:len(s.quar)-1]
			s.quar = append(s.quar, dropped...)
			return fmt.Errorf("%w: one quarantine entry is larger than quarantine's share (%d bytes)", ErrCapExceeded, share)
		}
		for s.projectedLocked() > s.cfg.capBytes() && len(s.quar) > 1 {
			dropped = append(dropped, s.oldestQuarantineLocked())
		}
		if s.projectedLocked() > s.cfg.capBytes() {
			s.quar = s.quar[:len(s.quar)-1]
			s.quar = append(s.quar, dropped...)
			sortQuar(s.quar)
			return fmt.Errorf("%w: store uses %s of %s; quarantine cannot evict trusted atoms", ErrCapExceeded, humanBytes(s.totalLocked()), humanBytes(s.cfg.capBytes()))
		}
	}
	if err := s.saveQuarantineLocked(); err != nil {
		s.quar = s.quar[:len(s.quar)-1]
		s.quar = append(s.quar, dropped...)
		sortQuar(s.quar)
		return err
	}
	for _, d := range dropped {
		p.result.Evicted = append(p.result.Evicted, d.ID)
		s.dropLinksLocked(d.ID)
	}
	return nil
}

func sortQuar(q []*QuarantinedAtom) {
	sort.SliceStable(q, func(i, j int) bool { return q[i].QuarantinedAt.Before(q[j].QuarantinedAt) })
}

// oldestQuarantineLocked removes and returns the oldest quarantine entry
// other than the newest (the one being added).
func (s *Store) oldestQuarantineLocked() *QuarantinedAtom {
	best := 0
	for i, q := range s.quar[:len(s.quar)-1] {
		if q.QuarantinedAt.Before(s.quar[best].QuarantinedAt) {
			best = i
		}
	}
	q := s.quar[best]
	s.quar = append(s.quar[:best], s.quar[best+1:]...)
	return q
}

// expireLocked removes quarantine entries past quarantine_ttl_days.
func (s *Store) expireLocked() {
	if s.cfg.QuarantineTTLDays <= 0 {
		return
	}
	now := s.now()
	keep := s.quar[:0]
	var gone []string
	for _, q := range s.quar {
		if now.After(q.ExpiresAt(s.cfg.QuarantineTTLDays)) {
			gone = append(gone, q.ID)
			continue
		}
		keep = append(keep, q)
	}
	if len(gone) == 0 {
		return
	}
	s.quar = keep
	s.saveQuarantineLocked()
	for _, id := range gone {
		s.dropLinksLocked(id)
	}
}

// ---- size accounting and eviction ----

func roundUp(n, block int64) int64 {
	if n <= 0 {
		return 0
	}
	return (n + block - 1) / block * block
}

// cacheEntrySize is what one atom adds to vectors.odm.
func (s *Store) cacheEntrySize(id, text string) int64 {
	dims := s.vec.dims()
	if dims == 0 {
		dims = 768
	}
	return int64(2 + len(id) + 4 + len(text) + 4 + dims)
}

// capSlackBlocks is the margin projectedLocked keeps under the cap.
const capSlackBlocks = 4

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
	t := capSlackBlocks*s.blockSz + s.usageSum - s.usage[fileAtoms] - s.usage[fileQuarantine] - s.usage[fileVectors] - s.usage[dirChunks]
	// chunks/ itself grows with its entries (and never shrinks on ext4).
	t += max(s.usage[dirChunks], roundUp(int64(len(s.order))*dirEntryEstimate, s.blockSz))
	t += roundUp(4+s.recBytes, s.blockSz)
	t += roundUp(s.quarBytesLocked(), s.blockSz)
	t += roundUp(64+s.cacheBytes, s.blockSz)
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
	need := s.projectedLocked() + roundUp(int64(len(a.Text)), s.blockSz) + int64(len(rec)+4) + s.cacheEntrySize(a.ID, a.Text) + dirEntryEstimate
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
		if s.cfg.QuarantineTTLDays > 0 && now.After(q.ExpiresAt(s.cfg.QuarantineTTLDays)) {
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
	// scan or sort of every atom per add. Entries of atoms that left the
	// store are dropped from its front here, so a run of evictions (an
	// import into a full store) does not walk them again on every add.
	idx := s.evictionOrderLocked()
	for len(idx) > 0 && s.byID[idx[0].atom.ID] != idx[0] {
		idx, s.evictStale = idx[1:], max(0, s.evictStale-1)
	}
	s.evictIdx = idx
	for _, e := range idx {
		if need <= capB {
			break
		}
		if e.atom.Pin || s.byID[e.atom.ID] != e {
			continue
		}
		victims = append(victims, e.atom.ID)
		need -= s.usage[filepath.Join(dirChunks, e.atom.ID+chunkExt)] + e.recLen + e.cacheLen
	}
	if need > capB {
		return nil, fmt.Errorf("%w: store would use %s of the %s cap (max_size_mb %g) and every remaining atom is pinned; unpin or forget atoms, or raise max_size_mb",
			ErrCapExceeded, humanBytes(need), humanBytes(capB), s.cfg.MaxSizeMB)
	}
	return victims, nil
}

// evictKey orders live atoms by retention independently of the clock:
// retention = confidence × 0.5^((now − created)/half_life), so comparing
// log2(confidence) + created/half_life compares retention at any now.
// (Atoms dated in the future, whose age Retention clamps to zero, are
// ordered as if they were not clamped.)
func (s *Store) evictKey(e *entry) float64 {
	k := math.Log2(e.atom.EffectiveConfidence())
	if h := s.cfg.DecayHalfLifeDays; h > 0 {
		k += float64(e.atom.CreatedAt.UnixNano()) / (h * 24 * float64(time.Hour))
	}
	return k
}

func (s *Store) evictLess(a, b *entry) bool {
	ka, kb := s.evictKey(a), s.evictKey(b)
	if ka != kb {
		return ka < kb
	}
	return a.atom.CreatedAt.Before(b.atom.CreatedAt)
}

// evictionOrderLocked returns live atoms (and possibly stale entries, which
// callers skip) by ascending retention, rebuilding the index if needed.
func (s *Store) evictionOrderLocked() []*entry {
	if s.evictIdx == nil || s.evictStale > len(s.evictIdx)/2+64 {
		idx := make([]*entry, len(s.order))
		copy(idx, s.order)
		sort.SliceStable(idx, func(i, j int) bool { return s.evictLess(idx[i], idx[j]) })
		s.evictIdx, s.evictStale = idx, 0
	}
	return s.evictIdx
}

// insertEvictionLocked adds a new live entry to the eviction index.
func (s *Store) insertEvictionLocked(e *entry) {
	if s.evictIdx == nil {
		return
	}
	i := sort.Search(len(s.evictIdx), func(i int) bool { return s.evictLess(e, s.evictIdx[i]) })
	s.evictIdx = append(s.evictIdx, nil)
	copy(s.evictIdx[i+1:], s.evictIdx[i:])
	s.evictIdx[i] = e
}

// reindexEvictionLocked repositions e after its confidence or timestamp
// changed.
func (s *Store) reindexEvictionLocked(e *entry) {
	if s.evictIdx == nil {
		return
	}
	for i, x := range s.evictIdx {
		if x == e {
			s.evictIdx = append(s.evictIdx[:i], s.evictIdx[i+1:]...)
			break
		}
	}
	s.insertEvictionLocked(e)
}

// removeVictimsFromMetaLocked drops victims from the in-memory metadata so
// the next atoms.json/quarantine.json write no longer lists them.
func (s *Store) removeVictimsFromMetaLocked(victims []string) {
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
	keep := s.order[:0]
	removed := make([]*entry, 0, len(gone))
	for i, e := range s.order {
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
		s.saveQuarantineLocked()
	}
}

// finishVictimsLocked removes evicted atoms' chunks, vectors and links once
// the metadata no longer lists them.
func (s *Store) finishVictimsLocked(victims []string) []string {
	for _, id := range victims {
		s.removeChunk(id)
		s.vec.remove(id)
		s.dropLinksLocked(id)
	}
	if len(victims) > 0 && len(victims)*10 > len(s.order)+len(victims) && !s.closing {
		// A large eviction (over 10% of the corpus) compacts the vector
		// cache in the background, once this write has released the lock.
		s.bg.Add(1)
		go func() {
			defer s.bg.Done()
			s.Compact(context.Background())
		}()
	}
	return victims
}

func (s *Store) dropLinksLocked(id string) {
	if s.graph.remove(id) {
		if s.batching {
			s.batchAssocDirty = true
			return
		}
		s.writeAssocLocked()
	}
}

// ---- mutations by id ----

// Forget removes an atom from the live store or the quarantine, with its
// chunk, vector and links. It returns the removed atom (for undo).
func (s *Store) Forget(ctx context.Context, id string) (Atom, *QuarantinedAtom, error) {
	var a Atom
	var q *QuarantinedAtom
	err := s.withWriteCtx(ctx, func() error {
		if e := s.byID[id]; e != nil {
			a = cloneAtom(e.atom)
			s.removeVictimsFromMetaLocked([]string{id})
			if err := s.writeAtomsLocked(); err != nil {
				return err
			}
			s.finishVictimsLocked([]string{id})
			return s.vec.maybeSnapshot(false)
		}
		if i := s.quarIndex(id); i >= 0 {
			c := *s.quar[i]
			q = &c
			a = c.Atom
			s.quar = append(s.quar[:i], s.quar[i+1:]...)
			if err := s.writeQuarantineLocked(); err != nil {
				return err
			}
			s.dropLinksLocked(id)
			return nil
		}
		return missingAtom(id)
	})
	return a, q, err
}

// Restore puts back an atom that Forget removed (undo), with its id, source
// class and timestamps. It goes through the scanner again.
func (s *Store) Restore(ctx context.Context, a Atom, q *QuarantinedAtom) (AddResult, error) {
	req := AddRequest{ID: a.ID, Text: a.Text, Type: a.Type, Source: a.SourceClass, Confidence: a.Confidence, Pin: a.Pin, Context: a.Context, CreatedAt: a.CreatedAt,
		Origin: a.Origin}
	if q != nil {
		req.QuarantineReason, req.QuarantinedAt = q.Reason, q.QuarantinedAt
		// Undoing the forget of an entry whose TTL has run out restarts its
		// clock; otherwise the next write's expiry sweep would remove it again.
		if exp := q.ExpiresAt(s.cfg.QuarantineTTLDays); !exp.IsZero() && !s.now().Before(exp) {
			req.QuarantinedAt = s.now()
		}
	}
	return s.Add(ctx, req)
}

// Promote moves a quarantined atom to the live store as user_approved: a
// person vouched for it. Characters a person cannot see are removed from
// its text, secrets are redacted again and the text is scanned again; the
// entry's source class, reason and findings are kept in Atom.Origin. A text
// that still fails the scan is promoted (the person saw the findings) with
// Origin.StillBlocked set, and recall never injects it.
func (s *Store) Promote(ctx context.Context, id string) (Atom, error) {
	return s.promote(ctx, id, true)
}

// commitPromoteLocked replaces quarantine entry id by the live atom a.
// Caller holds the write locks.
func (s *Store) commitPromoteLocked(id string, a Atom, vec []float32) error {
	i := s.quarIndex(id)
	if i < 0 || s.byID[id] != nil {
		return notFound("%s is no longer quarantined", id)
	}
	victims, err := s.planEvictionLocked(a, nil)
	if err != nil {
		return err
	}
	e := &entry{atom: a}
	s.appendEntryLocked(e)
	s.quar = append(s.quar[:i:i], s.quar[i+1:]...)
	s.removeVictimsFromMetaLocked(victims)
	// atoms.json first: a crash before quarantine.json is rewritten
	// leaves the atom in both, which the next load resolves in favour
	// of the live copy; the other order could lose it.
	if err := s.writeChunkAndAtomsLocked(a.ID, a.Text); err != nil {
		s.popEntryLocked(e)
		s.invalidateLocked()
		return err
	}
	if err := s.writeQuarantineLocked(); err != nil {
		s.invalidateLocked()
		return err
	}
	if err := s.vec.add(a.ID, a.Text, vec); err != nil {
		return err
	}
	s.finishVictimsLocked(victims)
	return s.vec.maybeSnapshot(false)
}

// SetPin pins or unpins a live atom. Pinned atoms are never evicted.
func (s *Store) SetPin(ctx context.Context, id string, pin bool) (Atom, error) {
	var a Atom
	err := s.withWriteCtx(ctx, func() error {
		e := s.byID[id]
		if e == nil {
			if s.quarIndex(id) >= 0 {
				return fmt.Errorf("%w: %s is quarantined; promote it first", ErrNotLive, id)
			}
			return missingAtom(id)
		}
		if e.atom.Pin != pin {
			oldRaw := e.raw
			e.atom.Pin = pin
			e.raw = nil
			s.track(e)
			if err := s.writeAtomsLocked(); err != nil {
				e.atom.Pin = !pin
				e.raw = oldRaw
				s.track(e)
				return err
			}
		}
		a = cloneAtom(e.atom)
		return nil
	})
	return a, err
}

// ---- user model ----

// Confirm applies a pending inference to the user model and removes it
// from the queue. An unknown field path is ErrUnknownField and the entry
// stays queued. Only human surfaces (CLI, TUI) should call it.
func (s *Store) Confirm(ctx context.Context, pendingID string) (PendingReview, error) {
	return s.settlePending(pendingID, true)
}

// Reject removes a pending inference without applying it and returns it
// (for undo).
func (s *Store) Reject(ctx context.Context, pendingID string) (PendingReview, error) {
	return s.settlePending(pendingID, false)
}

// settlePending removes a pending review from the queue, first applying
// its value to the model when apply is set.
func (s *Store) settlePending(pendingID string, apply bool) (PendingReview, error) {
	var p PendingReview
	err := s.withWrite(func() error {
		i := s.pendingIndex(pendingID)
		if i < 0 {
			return notFound("no pending review %s", pendingID)
		}
		p = s.model.Pending[i]
		m := s.model.clone()
		if apply {
			v, err := checkUserModelValue(p.Field, p.Value)
			if err != nil {
				return fmt.Errorf("confirm %s: %w", pendingID, err)
			}
			if err := m.Apply(p.Field, v); err != nil {
				return fmt.Errorf("confirm %s: %w", pendingID, err)
			}
		}
		m.Pending = append(m.Pending[:i:i], m.Pending[i+1:]...)
		return s.saveModelLocked(m)
	})
	return p, err
}

// saveModelLocked makes m the user model and writes it; on a failed write
// the previous model stays, so memory never runs ahead of disk.
func (s *Store) saveModelLocked(m UserModel) error {
	old := s.model
	s.model = m
	if err := s.writeUserModelLocked(); err != nil {
		s.model = old
		return err
	}
	return nil
}

func (s *Store) pendingIndex(id string) int {
	for i, p := range s.model.Pending {
		if p.ID == id {
			return i
		}
	}
	return -1
}

// queuePending adds an inference to pending_review: scanned (a blocked value
// is refused), deduplicated by field and value, and capped at
// user_state_max_pending by dropping the oldest. It returns the entry, or
// ok=false when it was a duplicate.
func (s *Store) queuePending(ctx context.Context, p PendingReview) (PendingReview, bool, error) {
	canon := umfield.Canonical(p.Field)
	if canon == "" {
		return p, false, fmt.Errorf("%w %q", ErrUnknownField, p.Field)
	}
	v, err := checkUserModelValue(canon, p.Value)
	if err != nil {
		return p, false, fmt.Errorf("pending: %w", err)
	}
	if r := scan.Scan(p.Evidence); r.Blocked() {
		return p, false, fmt.Errorf("%w: pending %s evidence: %s", ErrBlocked, canon, r.RejectReason())
	}
	if s.guardRejects(ctx, p.Value+"\n"+p.Evidence) {
		return p, false, fmt.Errorf("%w: pending %s: %w", ErrBlocked, canon, ErrGuardRejected)
	}
	p.Evidence = textutil.Truncate(scanRedact(p.Evidence), 500)
	p.Value = v
	if p.ID == "" {
		p.ID = vocab.NewID()
	}
	if p.CreatedAt.IsZero() {
		p.CreatedAt = s.now().UTC()
	}
	ok := true
	err = s.withWriteCtx(ctx, func() error {
		if cur, _ := s.model.Get(canon); strings.EqualFold(cur, p.Value) && !strings.HasPrefix(canon, "technical.") {
			ok = false
			return nil
		}
		for _, q := range s.model.Pending {
			if umfield.Canonical(q.Field) == canon && strings.EqualFold(q.Value, p.Value) {
				ok = false
				return nil
			}
		}
		m := s.model.clone()
		m.Pending = append(m.Pending, p)
		sortPending(m.Pending)
		if max := s.cfg.UserStateMaxPending; max >= 0 && len(m.Pending) > max {
			m.Pending = m.Pending[len(m.Pending)-max:]
		}
		return s.saveModelLocked(m)
	})
	return p, ok, err
}

// applyDirect sets a user-model field without review. It is for direct,
// low-impact inferences (focus, technical) and for human edits; the value
// is scanned first.
func (s *Store) applyDirect(ctx context.Context, field, value string) error {
	value, err := checkUserModelValue(field, value)
	if err != nil {
		return err
	}
	if s.guardRejects(ctx, value) {
		return fmt.Errorf("%w: %s: %w", ErrBlocked, field, ErrGuardRejected)
	}
	return s.withWriteCtx(ctx, func() error {
		m := s.model.clone()
		if err := m.Apply(field, value); err != nil {
			return err
		}
		return s.saveModelLocked(m)
	})
}

// RestorePending puts back a pending review that Reject removed (undo).
func (s *Store) RestorePending(ctx context.Context, p PendingReview) error {
	_, _, err := s.queuePending(ctx, p)
	return err
}

func scanRedact(s string) string {
	out, _ := scan.Redact(s)
	return out
}

// humanBytes formats a byte count as KiB/MiB.
func humanBytes(n int64) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}
