package memcore

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/odekmem/odekmem/memcore/scan"
)

// AddRequest describes a new atom.
type AddRequest struct {
	Text       string
	Type       string // default fact
	Source     string // default user_approved (a human surface)
	Confidence float64
	Pin        bool
	Context    AtomContext
	// CreatedAt defaults to now (import and tests set it).
	CreatedAt time.Time
	// ID keeps an existing id (import, undo); empty means a fresh one.
	ID string
	// QuarantineReason and QuarantinedAt keep an imported quarantine entry's
	// history.
	QuarantineReason string
	QuarantinedAt    time.Time
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
}

// prepared is an AddRequest after scanning, redaction and embedding, ready
// to be committed under the lock.
type prepared struct {
	atom   Atom
	quar   *QuarantinedAtom
	vec    []float32
	result AddResult
}

func (s *Store) prepare(ctx context.Context, req AddRequest) (*prepared, error) {
	text := strings.TrimSpace(req.Text)
	if text == "" {
		return nil, ErrEmptyText
	}
	src := req.Source
	if src == "" {
		src = SourceUserApproved
	}
	if !ValidSource(src) {
		return nil, fmt.Errorf("unknown source class %q: allowed %s", src, strings.Join(SourceClasses, ", "))
	}
	typ := req.Type
	if typ == "" {
		typ = TypeFact
	}
	res := scan.Scan(text)
	p := &prepared{}
	p.result.Findings = res.Findings
	if res.Redacted != text {
		text = res.Redacted
		p.result.Redacted = true
	}
	text = Truncate(text, s.cfg.AtomMaxChars)
	id := req.ID
	if id == "" {
		id = NewID()
	} else if !ValidID(id) {
		return nil, fmt.Errorf("%w: %q", ErrInvalidID, id)
	}
	created := req.CreatedAt
	if created.IsZero() {
		created = s.now()
	}
	conf := req.Confidence
	if math.IsNaN(conf) || conf < 0 {
		conf = 0
	}
	if conf > 1 {
		conf = 1
	}
	ctxc := req.Context
	ctxc.RelatedAtomIDs = append([]string(nil), ctxc.RelatedAtomIDs...)
	p.atom = Atom{ID: id, SourceClass: src, Type: NormalizeType(typ), CreatedAt: created.UTC(), Context: ctxc, Pin: req.Pin, Confidence: conf, Text: text}

	reason := ""
	switch {
	case res.Blocked():
		reason = res.RejectReason()
	case req.QuarantineReason != "":
		reason = Truncate(req.QuarantineReason, 200)
	case IsTainted(src):
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
	err = s.withWrite(func() error { return s.commitLocked(p) })
	return p.result, err
}

// AddBatch adds many atoms under one lock with one atoms.json write, for
// ingest and import. Results are in request order; a request that fails
// preparation has its error in errs at the same index.
func (s *Store) AddBatch(ctx context.Context, reqs []AddRequest) ([]AddResult, []error, error) {
	preps := make([]*prepared, len(reqs))
	errs := make([]error, len(reqs))
	results := make([]AddResult, len(reqs))
	for i, r := range reqs {
		preps[i], errs[i] = s.prepare(ctx, r)
	}
	err := s.withWrite(func() error {
		s.batching = true
		defer func() { s.batching = false }()
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
		e.raw = nil
		p.result.Refreshed = true
		p.result.Atom = cloneAtom(e.atom)
		return s.saveAtomsLocked()
	}
	victims, err := s.planEvictionLocked(p.atom, nil)
	if err != nil {
		return err
	}
	if err := s.writeChunk(p.atom.ID, p.atom.Text); err != nil {
		return err
	}
	e := &entry{atom: p.atom}
	s.order = append(s.order, e)
	s.byID[p.atom.ID] = e
	s.removeVictimsFromMetaLocked(victims)
	if err := s.saveAtomsLocked(); err != nil {
		// Roll back the in-memory state; the chunk is an orphan that the
		// next open moves aside.
		s.order = s.order[:len(s.order)-1]
		delete(s.byID, p.atom.ID)
		return err
	}
	if err := s.vec.add(p.atom.ID, p.atom.Text, p.vec); err != nil {
		return err
	}
	p.result.Evicted = s.finishVictimsLocked(victims)
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
	return s.vec.maybeSnapshot(false)
}

// findTwinLocked returns a live atom that the new one duplicates: the same
// normalised text, or a cosine at or above dedup_threshold.
func (s *Store) findTwinLocked(p *prepared) *entry {
	norm := NormalizeText(p.atom.Text)
	for i := len(s.order) - 1; i >= 0; i-- {
		if NormalizeText(s.order[i].atom.Text) == norm {
			return s.order[i]
		}
	}
	if s.cfg.DedupThreshold <= 0 || p.vec == nil {
		return nil
	}
	id, cos := s.vec.nearest(p.vec)
	if id != "" && cos >= float32(s.cfg.DedupThreshold) {
		return s.byID[id]
	}
	return nil
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
	share := int64(float64(s.cfg.CapBytes()) * s.cfg.QuarantineSharePercent / 100)
	var dropped []*QuarantinedAtom
	if s.cfg.CapBytes() > 0 {
		// Quarantine's own share: drop the oldest entries (never a trusted atom).
		for len(s.quar) > 1 && int64(len(s.quarantineJSON())) > share {
			dropped = append(dropped, s.oldestQuarantineLocked())
		}
		if int64(len(s.quarantineJSON())) > share {
			s.quar = s.quar[:len(s.quar)-1]
			s.quar = append(s.quar, dropped...)
			return fmt.Errorf("%w: one quarantine entry is larger than quarantine's share (%d bytes)", ErrCapExceeded, share)
		}
		for s.projectedLocked() > s.cfg.CapBytes() && len(s.quar) > 1 {
			dropped = append(dropped, s.oldestQuarantineLocked())
		}
		if s.projectedLocked() > s.cfg.CapBytes() {
			s.quar = s.quar[:len(s.quar)-1]
			s.quar = append(s.quar, dropped...)
			sortQuar(s.quar)
			return fmt.Errorf("%w: store uses %s of %s; quarantine cannot evict trusted atoms", ErrCapExceeded, humanBytes(s.totalLocked()), humanBytes(s.cfg.CapBytes()))
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

// ExpireQuarantine removes quarantine entries past their TTL now and
// returns how many went.
func (s *Store) ExpireQuarantine() (int, error) {
	n := 0
	err := s.withWrite(func() error {
		before := len(s.quar)
		s.expireLocked()
		n = before - len(s.quar)
		return nil
	})
	return n, err
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

// projectedLocked estimates the store's allocated size once every pending
// change is on disk, including the vector cache at its next snapshot.
func (s *Store) projectedLocked() int64 {
	var t int64
	for rel, n := range s.usage {
		switch rel {
		case fileAtoms, fileQuarantine, fileVectors:
			continue
		}
		t += n
	}
	t += roundUp(int64(s.atomsLen()), s.blockSz)
	t += roundUp(int64(len(s.quarantineJSON())), s.blockSz)
	var cache int64 = 64
	for _, e := range s.order {
		cache += s.cacheEntrySize(e.atom.ID, e.atom.Text)
	}
	t += roundUp(cache, s.blockSz)
	return t
}

func (s *Store) atomsLen() int {
	n := 4
	for _, e := range s.order {
		n += len(s.recordBytes(e)) + 4
	}
	return n
}

// planEvictionLocked picks the atoms to evict so that adding a (nil for a
// size check only) fits under the cap. It removes nothing.
func (s *Store) planEvictionLocked(a Atom, extra []Atom) ([]string, error) {
	capB := s.cfg.CapBytes()
	if capB <= 0 {
		return nil, nil
	}
	rec, _ := json.MarshalIndent(a, "  ", "  ")
	need := s.projectedLocked() + roundUp(int64(len(a.Text)), s.blockSz) + int64(len(rec)+4) + s.cacheEntrySize(a.ID, a.Text)
	if need <= capB {
		return nil, nil
	}
	now := s.now()
	type cand struct {
		id    string
		score float64
		free  int64
		quar  bool
	}
	var cands []cand
	for _, q := range s.quar {
		if s.cfg.QuarantineTTLDays > 0 && now.After(q.ExpiresAt(s.cfg.QuarantineTTLDays)) {
			b, _ := json.MarshalIndent(q, "  ", "  ")
			cands = append(cands, cand{id: q.ID, score: -1, free: int64(len(b) + 4), quar: true})
		}
	}
	var live []cand
	for _, e := range s.order {
		if e.atom.Pin {
			continue
		}
		live = append(live, cand{id: e.atom.ID, score: e.atom.Retention(now, s.cfg.DecayHalfLifeDays),
			free: s.usage[filepath.Join(dirChunks, e.atom.ID+chunkExt)] + int64(len(s.recordBytes(e))+4) + s.cacheEntrySize(e.atom.ID, e.atom.Text)})
	}
	sort.SliceStable(live, func(i, j int) bool {
		if live[i].score != live[j].score {
			return live[i].score < live[j].score
		}
		return s.byID[live[i].id].atom.CreatedAt.Before(s.byID[live[j].id].atom.CreatedAt)
	})
	cands = append(cands, live...)
	var victims []string
	for _, c := range cands {
		if need <= capB {
			break
		}
		victims = append(victims, c.id)
		need -= c.free
	}
	if need > capB {
		return nil, fmt.Errorf("%w: store would use %s of the %s cap (max_size_mb %g) and every remaining atom is pinned; unpin or forget atoms, or raise max_size_mb",
			ErrCapExceeded, humanBytes(need), humanBytes(capB), s.cfg.MaxSizeMB)
	}
	return victims, nil
}

// removeVictimsFromMetaLocked drops victims from the in-memory metadata so
// the next atoms.json/quarantine.json write no longer lists them.
func (s *Store) removeVictimsFromMetaLocked(victims []string) {
	if len(victims) == 0 {
		return
	}
	gone := map[string]bool{}
	for _, id := range victims {
		gone[id] = true
	}
	keep := s.order[:0]
	for _, e := range s.order {
		if gone[e.atom.ID] {
			delete(s.byID, e.atom.ID)
			continue
		}
		keep = append(keep, e)
	}
	for i := len(keep); i < len(s.order); i++ {
		s.order[i] = nil
	}
	s.order = keep
	qkeep := s.quar[:0]
	quarChanged := false
	for _, q := range s.quar {
		if gone[q.ID] {
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
	if len(victims) > 0 && len(victims)*10 > len(s.order)+len(victims) {
		s.vec.mu.Lock()
		s.vec.dirty += snapshotEvery // a large eviction compacts the cache
		s.vec.mu.Unlock()
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
	err := s.withWrite(func() error {
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
		return fmt.Errorf("%w: no atom %s", ErrNotFound, id)
	})
	return a, q, err
}

// Restore puts back an atom that Forget removed (undo), with its id, source
// class and timestamps. It goes through the scanner again.
func (s *Store) Restore(ctx context.Context, a Atom, q *QuarantinedAtom) (AddResult, error) {
	req := AddRequest{ID: a.ID, Text: a.Text, Type: a.Type, Source: a.SourceClass, Confidence: a.Confidence, Pin: a.Pin, Context: a.Context, CreatedAt: a.CreatedAt}
	if q != nil {
		req.QuarantineReason, req.QuarantinedAt = q.Reason, q.QuarantinedAt
	}
	return s.Add(ctx, req)
}

// Promote moves a quarantined atom to the live store as user_approved: a
// person vouched for it. Characters a person cannot see are removed from
// its text first. The result reports any finding that still blocks it.
func (s *Store) Promote(ctx context.Context, id string) (Atom, error) {
	_, q, err := s.Get(id)
	if err != nil {
		return Atom{}, err
	}
	if q == nil {
		return Atom{}, fmt.Errorf("%w: %s", ErrNotQuarantined, id)
	}
	a := q.Atom
	a.Text = strings.TrimSpace(stripHidden(a.Text))
	if a.Text == "" {
		return Atom{}, fmt.Errorf("promote %s: %w after removing hidden characters", id, ErrEmptyText)
	}
	a.SourceClass = SourceUserApproved
	if err := s.vec.waitReady(ctx); err != nil {
		return Atom{}, err
	}
	vec, err := s.vec.embed(ctx, a.Text)
	if err != nil {
		return Atom{}, fmt.Errorf("embed atom: %w", err)
	}
	err = s.withWrite(func() error {
		i := s.quarIndex(id)
		if i < 0 {
			return fmt.Errorf("%w: %s is no longer quarantined", ErrNotFound, id)
		}
		victims, err := s.planEvictionLocked(a, nil)
		if err != nil {
			return err
		}
		if err := s.writeChunk(a.ID, a.Text); err != nil {
			return err
		}
		e := &entry{atom: a}
		s.order = append(s.order, e)
		s.byID[a.ID] = e
		removed := s.quar[i]
		s.quar = append(s.quar[:i], s.quar[i+1:]...)
		s.removeVictimsFromMetaLocked(victims)
		if err := s.writeAtomsLocked(); err != nil {
			s.order = s.order[:len(s.order)-1]
			delete(s.byID, a.ID)
			s.quar = append(s.quar, removed)
			sortQuar(s.quar)
			return err
		}
		if err := s.writeQuarantineLocked(); err != nil {
			return err
		}
		if err := s.vec.add(a.ID, a.Text, vec); err != nil {
			return err
		}
		s.finishVictimsLocked(victims)
		return s.vec.maybeSnapshot(false)
	})
	return a, err
}

// SetPin pins or unpins a live atom. Pinned atoms are never evicted.
func (s *Store) SetPin(ctx context.Context, id string, pin bool) (Atom, error) {
	var a Atom
	err := s.withWrite(func() error {
		e := s.byID[id]
		if e == nil {
			if s.quarIndex(id) >= 0 {
				return fmt.Errorf("%w: %s is quarantined; promote it first", ErrNotLive, id)
			}
			return fmt.Errorf("%w: no atom %s", ErrNotFound, id)
		}
		if e.atom.Pin != pin {
			e.atom.Pin = pin
			e.raw = nil
			if err := s.writeAtomsLocked(); err != nil {
				e.atom.Pin = !pin
				e.raw = nil
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
	var p PendingReview
	err := s.withWrite(func() error {
		i := s.pendingIndex(pendingID)
		if i < 0 {
			return fmt.Errorf("%w: no pending review %s", ErrNotFound, pendingID)
		}
		p = s.model.Pending[i]
		if r := scan.Scan(p.Value); r.Blocked() {
			return fmt.Errorf("confirm %s: value %s", pendingID, r.RejectReason())
		}
		m := s.model.clone()
		if err := m.Apply(p.Field, p.Value); err != nil {
			return fmt.Errorf("confirm %s: %w", pendingID, err)
		}
		m.Pending = append(m.Pending[:i:i], m.Pending[i+1:]...)
		old := s.model
		s.model = m
		if err := s.writeUserModelLocked(); err != nil {
			s.model = old
			return err
		}
		return nil
	})
	return p, err
}

// Reject removes a pending inference without applying it and returns it
// (for undo).
func (s *Store) Reject(ctx context.Context, pendingID string) (PendingReview, error) {
	var p PendingReview
	err := s.withWrite(func() error {
		i := s.pendingIndex(pendingID)
		if i < 0 {
			return fmt.Errorf("%w: no pending review %s", ErrNotFound, pendingID)
		}
		p = s.model.Pending[i]
		old := s.model
		m := s.model.clone()
		m.Pending = append(m.Pending[:i:i], m.Pending[i+1:]...)
		s.model = m
		if err := s.writeUserModelLocked(); err != nil {
			s.model = old
			return err
		}
		return nil
	})
	return p, err
}

func (s *Store) pendingIndex(id string) int {
	for i, p := range s.model.Pending {
		if p.ID == id {
			return i
		}
	}
	return -1
}

// QueuePending adds an inference to pending_review: scanned (a blocked value
// is refused), deduplicated by field and value, and capped at
// user_state_max_pending by dropping the oldest. It returns the entry, or
// ok=false when it was a duplicate.
func (s *Store) QueuePending(ctx context.Context, p PendingReview) (PendingReview, bool, error) {
	canon := CanonicalField(p.Field)
	if canon == "" {
		return p, false, fmt.Errorf("%w %q", ErrUnknownField, p.Field)
	}
	for _, txt := range []string{p.Value, p.Evidence} {
		if r := scan.Scan(txt); r.Blocked() {
			return p, false, fmt.Errorf("%w: pending %s: %s", ErrBlocked, canon, r.RejectReason())
		}
	}
	p.Evidence = Truncate(scanRedact(p.Evidence), 500)
	p.Value = Truncate(strings.TrimSpace(p.Value), 300)
	if p.ID == "" {
		p.ID = NewID()
	}
	if p.CreatedAt.IsZero() {
		p.CreatedAt = s.now().UTC()
	}
	ok := true
	err := s.withWrite(func() error {
		if cur, _ := s.model.Get(canon); strings.EqualFold(cur, p.Value) && !strings.HasPrefix(canon, "technical.") {
			ok = false
			return nil
		}
		for _, q := range s.model.Pending {
			if CanonicalField(q.Field) == canon && strings.EqualFold(q.Value, p.Value) {
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
		s.model = m
		return s.writeUserModelLocked()
	})
	return p, ok, err
}

// ApplyDirect sets a user-model field without review. It is for direct,
// low-impact inferences (focus, technical) and for human edits; the value
// is scanned first.
func (s *Store) ApplyDirect(ctx context.Context, field, value string) error {
	if r := scan.Scan(value); r.Blocked() {
		return fmt.Errorf("%w: %s: %s", ErrBlocked, field, r.RejectReason())
	}
	return s.withWrite(func() error {
		m := s.model.clone()
		if err := m.Apply(field, value); err != nil {
			return err
		}
		s.model = m
		return s.writeUserModelLocked()
	})
}

// RestorePending puts back a pending review that Reject removed (undo).
func (s *Store) RestorePending(ctx context.Context, p PendingReview) error {
	_, _, err := s.QueuePending(ctx, p)
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

var _ = errors.New
