package memcore

import (
	"context"
	"fmt"
	"math"
	"runtime"
	"sort"
	"strings"
	"sync/atomic"
	"time"
	"unicode"

	"github.com/odekmem/odekmem/internal/embed"
	"github.com/odekmem/odekmem/internal/humanize"
	"github.com/odekmem/odekmem/internal/par"
	"github.com/odekmem/odekmem/internal/score"
	"github.com/odekmem/odekmem/internal/textutil"
	"github.com/odekmem/odekmem/internal/vocab"

	"github.com/odekmem/odekmem/internal/scan"
)

// AddRequest describes a new atom.
type AddRequest struct {
	Text string
	// Type is one of the Type constants (case-insensitive); "" means fact,
	// anything else is ErrInvalidArgument.
	Type Type
	// Source is the atom's source class. Trust is never the zero value: ""
	// stores the atom as agent_generated, in quarantine. A human surface
	// (CLI or TUI add) passes SourceUserApproved, per-turn extraction
	// SourceUserSaid.
	Source Source
	// Confidence is in (0, 1]; 0 means unset and is stored without a
	// confidence, which every reader scores as 1.0. A negative, NaN or
	// larger value is ErrInvalidArgument.
	Confidence float64
	Pin        bool
	Context    AtomContext
	// CreatedAt defaults to now (import and tests set it).
	CreatedAt time.Time
	// origin keeps where a promoted atom came from, id an existing id, and
	// quarantineReason and quarantinedAt a quarantine entry's history:
	// only import and undo set them, so a caller cannot forge provenance.
	origin           *Origin
	quote            string
	id               string
	quarantineReason string
	quarantinedAt    time.Time
	// exactDedup limits write-time dedup to the same normalised text (and
	// the same id): import restores atoms as they were where they came
	// from, where near duplicates were distinct atoms, and a vector search
	// per atom would dominate a large import.
	exactDedup bool
	// Whole is the whole content Text was cut from (a tool result or an
	// agent's notification bounded to atom_max_chars). The scanner reads
	// it with Text: a finding anywhere in it quarantines the atom with
	// that finding, so a bound can never cut an attack out of sight.
	// Whole only ever makes an atom less trusted; it is not stored.
	Whole string
	// Link does for a new live atom what a write of the person's words
	// does: it links the atom to its temporal, task and semantic
	// neighbours (Associate), as every write of odek's does, when
	// associations_enabled is set, and records the older atoms it
	// supersedes (AddResult.Contradictions; DetectContradictions). Human
	// surfaces (CLI and TUI add) set it.
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
	// Contradictions are the older atoms a Link request's atom
	// superseded, waiting for the person.
	Contradictions []Contradiction `json:"contradictions,omitempty"`
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
		return nil, errEmptyText
	}
	src := req.Source
	if src == "" {
		src = SourceAgentGenerated // unknown provenance is never trusted
	}
	if !vocab.ValidSource(src) {
		return nil, fmt.Errorf("unknown source class %q: allowed %s", src, strings.Join(vocab.SourceClasses, ", "))
	}
	typ, err := atomType(req.Type)
	if err != nil {
		return nil, err
	}
	if typ == "" {
		typ = TypeFact
	}
	if c := req.Confidence; math.IsNaN(c) || c < 0 || c > 1 {
		return nil, fmt.Errorf("%w: confidence %v: allowed a number greater than 0 and at most 1 (0 means unset: 1.0)", errInvalidConfidence, c)
	}
	res := scan.Scan(text)
	if w := strings.TrimSpace(req.Whole); w != "" && w != text {
		if wr := scan.Scan(w); wr.Blocked() && !res.Blocked() {
			res.Findings = append(res.Findings, wr.Findings...)
			if req.quarantineReason == "" {
				req.quarantineReason = "scan_rejected: " + strings.TrimPrefix(wr.RejectReason(), "scan_rejected: ") + " (in the whole content)"
			}
		}
	}
	p := &prepared{exactDedup: req.exactDedup}
	p.result.Findings = res.Findings
	if res.Redacted != text {
		text = res.Redacted
		p.result.Redacted = true
	}
	text = textutil.Truncate(text, s.cfg.AtomMaxChars)
	id := req.id
	if id == "" {
		id = vocab.NewID()
	} else if !vocab.ValidID(id) {
		return nil, fmt.Errorf("%w: %q", errInvalidID, scanRedact(id))
	} else if scanRedact(id) != id {
		return nil, fmt.Errorf("%w: the id looks like a credential", errInvalidID)
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
		Origin: cleanOrigin(req.origin), Quote: textutil.Truncate(strings.TrimSpace(scanRedact(req.quote)), s.cfg.AtomMaxChars)}

	guardReason := s.guardWriteReason(ctx, text, src, res)
	reason := ""
	switch {
	case strings.HasPrefix(req.quarantineReason, "scan_rejected") && (res.Blocked() || req.Whole != ""):
		reason = textutil.Truncate(req.quarantineReason, 200) // an import keeps its history
	case res.Blocked():
		reason = res.RejectReason()
	case guardReason != "":
		reason = guardReason
	case req.quarantineReason != "":
		reason = textutil.Truncate(req.quarantineReason, 200)
	case vocab.IsTainted(src):
		reason = "tainted"
	}
	if reason != "" {
		p.atom.Pin = false
		qa := s.now().UTC()
		if !req.quarantinedAt.IsZero() {
			qa = req.quarantinedAt.UTC()
		}
		p.quar = &QuarantinedAtom{Atom: p.atom, QuarantinedAt: qa, Reason: reason}
		p.result.Quarantined, p.result.Reason = true, reason
		p.result.Atom = p.atom
		return p, nil
	}
	if err := s.vec.WaitReady(ctx); err != nil {
		return nil, err
	}
	vec, err := s.vec.Embed(ctx, text)
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
// Invalid input (empty text, unknown type, bad confidence) is ErrInvalidArgument.
// A text the scanner blocks is not an error: it goes to quarantine
// (AddResult.Quarantined, Reason).
func (s *Store) Add(ctx context.Context, req AddRequest) (AddResult, error) {
	p, err := s.prepare(ctx, req)
	if err != nil {
		return AddResult{}, err
	}
	err = s.update(ctx, func(t *tx) error { return s.commitLocked(t, p) })
	if err == nil && req.Link && !p.result.Quarantined && !p.result.Duplicate && !p.result.Refreshed {
		n, lerr := s.associate(ctx, p.result.Atom.ID)
		p.result.Links = n
		if lerr != nil {
			err = fmt.Errorf("atom %s was added, but linking it failed: %w", p.result.Atom.ID, lerr)
		}
		cs, cerr := s.DetectContradictions(ctx, p.result.Atom.ID)
		p.result.Contradictions = cs
		if cerr != nil && err == nil {
			err = fmt.Errorf("atom %s was added, but the contradiction check failed: %w", p.result.Atom.ID, cerr)
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
	// Scanning and embedding are pure CPU work: spread them over the
	// cores. With the built-in embedder and no guard they are local work
	// of bounded time, so the commit takes each atom as soon as it is
	// prepared, while the rest are still being prepared (at the cap the
	// commit's near-duplicate search and evictions took as long as the
	// preparation). A remote embedder or guard is never called with the
	// store locked, a background index build (after open, or an embedder
	// change) is waited for before the locks are taken, and a small batch
	// (the hook's) is prepared outside the locks: then every atom is
	// prepared first.
	ready := func(int) {}
	wait := func() {}
	if len(reqs) >= pipelineMin && s.localPrepare() && s.vec.WaitReady(ctx) == nil {
		done := make([]chan struct{}, len(reqs))
		for i := range done {
			done[i] = make(chan struct{})
		}
		var next atomic.Int64
		wait = par.Go(min(runtime.GOMAXPROCS(0), len(reqs)), func() {
			for {
				i := int(next.Add(1) - 1)
				if i >= len(reqs) {
					return
				}
				preps[i], errs[i] = s.prepare(ctx, reqs[i])
				close(done[i])
			}
		})
		ready = func(i int) { <-done[i] }
	} else {
		par.For(len(reqs), 32, 0, func(i int) { preps[i], errs[i] = s.prepare(ctx, reqs[i]) })
	}
	err := s.update(ctx, func(t *tx) error {
		// Evictions are batched: an evicted atom leaves byID, the indexes
		// and the accounting at once, and s.order in one pass at the end
		// (each atom of a batch into a full store evicts about one, and
		// removing each from s.order copied the whole slice).
		s.deferOrder = true
		defer s.compactOrderLocked()
		for i := range preps {
			ready(i)
			p := preps[i]
			if p == nil {
				continue
			}
			if err := s.commitLocked(t, p); err != nil {
				errs[i] = err
			}
			results[i] = p.result
		}
		return nil
	})
	wait() // when the update failed before taking every atom
	return results, errs, err
}

// pipelineMin is the batch size from which AddBatch overlaps preparing and
// committing: an import's or ingest's batch, not the hook's few atoms.
const pipelineMin = 64

// localPrepare reports whether prepare does only local, bounded work: the
// built-in embedder (memcore's own, or the one an agent passed as
// NewHashEmbedder) and no guard (whose LLM is a network call).
func (s *Store) localPrepare() bool {
	_, native := s.vec.Embedder().(embed.Native)
	return native && s.opts.Guard == nil
}

// commitLocked stores a prepared atom in t. Caller holds the write locks.
func (s *Store) commitLocked(t *tx, p *prepared) error {
	if s.byID[p.atom.ID] != nil || s.quarIndex(p.atom.ID) >= 0 {
		p.result.Duplicate = true
		return nil
	}
	if p.quar != nil {
		return s.commitQuarantineLocked(t, p)
	}
	if e := s.findTwinLocked(p); e != nil {
		old := e.atom
		e.atom.CreatedAt = p.atom.CreatedAt
		if score.Confidence(p.atom.Confidence) > score.Confidence(old.Confidence) || old.Confidence > 0 && p.atom.Confidence == 0 {
			e.atom.Confidence = p.atom.Confidence
		}
		if p.atom.Pin {
			e.atom.Pin = true
		}
		e.raw = nil
		s.track(e)
		s.reindexEvictionLocked(e)
		p.result.Refreshed = true
		p.result.Atom = cloneAtom(e.atom)
		t.atoms = true
		return nil
	}
	victims, err := s.planEvictionLocked(p.atom, nil)
	if err != nil {
		return err
	}
	e := &entry{atom: p.atom}
	s.appendEntryLocked(e)
	s.removeVictimsFromMetaLocked(t, victims)
	t.writeChunk(p.atom.ID, p.atom.Text)
	t.atoms = true
	if err := s.vec.Add(p.atom.ID, p.atom.Text, p.vec); err != nil {
		return err
	}
	p.result.Evicted = s.finishVictimsLocked(t, victims)
	return nil
}

// findTwinLocked returns a live atom that the new one duplicates: the same
// normalised text, or a cosine at or above dedup_threshold.
func (s *Store) findTwinLocked(p *prepared) *entry {
	if e := s.twinByText(p.atom.Text); e != nil {
		return e
	}
	if s.cfg.DedupThreshold <= 0 || p.vec == nil || p.exactDedup {
		return nil
	}
	id, cos := s.vec.Nearest(p.vec)
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

func (s *Store) commitQuarantineLocked(t *tx, p *prepared) error {
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
	t.quar = true
	for _, d := range dropped {
		p.result.Evicted = append(p.result.Evicted, d.ID)
		s.dropLinksLocked(t, d.ID)
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

// expireLocked removes quarantine entries past quarantine_ttl_days. One
// rule says when: only a compaction a person asked for (Compact) does
// this, and the size cap takes an expired entry first when it needs room
// (planEvictionLocked, which reports it in AddResult.Evicted). An ordinary
// write never drops what a person may not have looked at yet.
func (s *Store) expireLocked(t *tx) {
	if s.cfg.QuarantineTTLDays <= 0 {
		return
	}
	now := s.now()
	keep := s.quar[:0]
	var gone []string
	for _, q := range s.quar {
		if q.expired(s.cfg.QuarantineTTLDays, now) {
			gone = append(gone, q.ID)
			continue
		}
		keep = append(keep, q)
	}
	if len(gone) == 0 {
		return
	}
	s.quar = keep
	s.saveQuarantineLocked(t)
	for _, id := range gone {
		s.dropLinksLocked(t, id)
	}
}

func scanRedact(s string) string {
	out, _ := scan.Redact(s)
	return out
}

// humanBytes formats a byte count as the front ends do.
func humanBytes(n int64) string { return humanize.Bytes(n) }
