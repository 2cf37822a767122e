// Package review is what a person does with their agent's memory: look at
// the quarantine and promote what they vouch for, pin, confirm or reject
// the user-model inferences waiting for them, settle contradictions, undo
// their latest act, and keep the store in shape. It is for an agent that
// offers its person such commands itself (odek's "memory extended
// promote", "pending", "confirm" …); odekmem's TUI and CLI are a
// ready-made surface for the same acts.
//
// Nothing here may be driven by a model: every method is a person's act.
// Give the agent's model the memory tool (memcore.Tool) instead, which
// cannot promote, confirm or unpin.
package review

import (
	"context"
	"time"

	"github.com/odekmem/odekmem/internal/bridge"
	"github.com/odekmem/odekmem/internal/engine"
	"github.com/odekmem/odekmem/internal/mirror"
	"github.com/odekmem/odekmem/memcore"
	"github.com/odekmem/odekmem/memcore/guard"
)

// Store is the person's side of a memcore.Store. It shares the store's
// state and its Close: after memcore.Store.Close, every method returns
// memcore.ErrClosed.
type Store struct {
	e *engine.Store
}

// For returns the person's side of s.
func For(s *memcore.Store) *Store {
	e := bridge.Engine(s)
	if e == nil {
		panic("review.For: nil store")
	}
	return &Store{e: e}
}

// Quarantined is an atom waiting in quarantine: what the agent read (tool
// output, files, web, MCP, subagents), what the memory LLM inferred, and
// the person's words the scanner blocked. It is never recalled until a
// person promotes it, and expires after Config.QuarantineTTLDays.
type Quarantined struct {
	memcore.Atom
	QuarantinedAt time.Time `json:"quarantined_at"`
	// Reason is why it is here: "tainted" for a tainted source class,
	// "scan_rejected: …" with the scanner's finding, "recovered" for a
	// record a concurrent writer lost.
	Reason string `json:"reason"`
}

// Pending is a user-model inference waiting for the person: Field (a path
// such as "style.tone") would become Value.
type Pending struct {
	ID         string    `json:"id"`
	Field      string    `json:"field"`
	Value      string    `json:"value"`
	Evidence   string    `json:"evidence,omitempty"`
	Confidence float64   `json:"confidence,omitempty"`
	CreatedAt  time.Time `json:"created_at"`
}

// Field is one confirmed value of the user model.
type Field struct {
	Path  string `json:"path"`
	Value string `json:"value"`
}

// Filter narrows List; empty fields match everything. Type is a
// memcore.Type constant in any letter case; Project is compared by
// lower-cased base name.
type Filter struct {
	Type, Source, Project, Session string
}

// Stats is the store's size against its cap and what it holds.
type Stats struct {
	Dir        string `json:"dir"`
	CapBytes   int64  `json:"cap_bytes"`
	TotalBytes int64  `json:"total_bytes"`
	// Components are the bytes of each file kind (atoms, chunks,
	// quarantine, user_model, associations, vectors).
	Components map[string]int64 `json:"components"`
	Live       int              `json:"live"`
	Pinned     int              `json:"pinned"`
	Quarantine int              `json:"quarantine"`
	Pending    int              `json:"pending"`
	Links      int              `json:"links"`
	ByType     map[string]int   `json:"by_type"`
	BySource   map[string]int   `json:"by_source"`
	ByReason   map[string]int   `json:"by_reason"`
	ByProject  map[string]int   `json:"by_project"`
	// Index describes the vector index and its cache.
	Index struct {
		Kind        string `json:"kind"`
		Fingerprint string `json:"fingerprint"`
		Dims        int    `json:"dims"`
		Vectors     int    `json:"vectors"`
		// Stale counts index changes not yet in the on-disk cache.
		Stale int `json:"stale"`
		// Rebuilding is set while a background rebuild runs; Done of
		// Total atoms are embedded so far.
		Rebuilding bool  `json:"rebuilding"`
		Done       int64 `json:"rebuild_done,omitempty"`
		Total      int64 `json:"rebuild_total,omitempty"`
	} `json:"index"`
	// Guard counts the guard's checks (nil without a guard).
	Guard *guard.Stats `json:"guard,omitempty"`
	// OtherBytes and OtherFiles are files odekmem does not know (odek's
	// nudges.json, for one): left untouched, counted against the cap.
	OtherBytes int64    `json:"other_bytes"`
	OtherFiles []string `json:"other_files,omitempty"`
}

// CompactResult is what Compact reclaimed.
type CompactResult struct {
	Before    int64 `json:"before_bytes"`
	After     int64 `json:"after_bytes"`
	Reclaimed int64 `json:"reclaimed_bytes"`
	Expired   int   `json:"expired_quarantine"`
	Vectors   int   `json:"vectors"`
}

// Resolutions of a contradiction. A superseded atom is kept and shown,
// linked to its successor, but never recalled above it.
const (
	KeepNew  = engine.ResolveKeepNew  // "keep-new": the older atom stays superseded
	KeepOld  = engine.ResolveKeepOld  // "keep-old": the newer one is superseded instead
	KeepBoth = engine.ResolveKeepBoth // "keep-both": neither is
)

// Errors, besides memcore's; match them with errors.Is.
var (
	// ErrNotQuarantined means Promote was asked for a live atom.
	ErrNotQuarantined = engine.ErrNotQuarantined
	// ErrNotLive means SetPin was asked for an atom that is not live.
	ErrNotLive = engine.ErrNotLive
	// ErrUnknownField means a pending review names a user-model path
	// Confirm does not understand; the review stays queued.
	ErrUnknownField = engine.ErrUnknownField
	// ErrGuardRejected means the guard judged a promoted text or an
	// inferred value an injection.
	ErrGuardRejected = engine.ErrGuardRejected
	// ErrBadResolution is a resolution other than KeepNew, KeepOld or
	// KeepBoth.
	ErrBadResolution = engine.ErrBadResolution
	// ErrNothingToUndo means Undo found no act left to take back.
	ErrNothingToUndo = engine.ErrNothingToUndo
)

// Quarantined returns the quarantine, oldest first.
func (r *Store) Quarantined() ([]Quarantined, error) {
	q, err := r.e.Quarantined()
	return mirror.Convert[[]Quarantined](q), err
}

// Promote moves a quarantined atom to the live store as user_approved: the
// person vouches for it. Characters a person cannot see are removed, secrets
// redacted and the text scanned again; a text that still fails the scan is
// promoted (the person saw the findings) but recall never injects it.
func (r *Store) Promote(ctx context.Context, id string) (memcore.Atom, error) {
	a, err := r.e.Promote(ctx, id)
	return mirror.Convert[memcore.Atom](a), err
}

// SetPin pins or unpins a live atom; a pinned atom is never evicted and
// does not decay.
func (r *Store) SetPin(ctx context.Context, id string, pin bool) (memcore.Atom, error) {
	a, err := r.e.SetPin(ctx, id, pin)
	return mirror.Convert[memcore.Atom](a), err
}

// Pending returns the user-model inferences waiting for the person,
// oldest first.
func (r *Store) Pending() ([]Pending, error) {
	p, err := r.e.Pending()
	return mirror.Convert[[]Pending](p), err
}

// Confirm applies a pending inference to the user model (its value is
// scanned again) and removes it from the queue.
func (r *Store) Confirm(ctx context.Context, pendingID string) (Pending, error) {
	p, err := r.e.Confirm(ctx, pendingID)
	return mirror.Convert[Pending](p), err
}

// Reject removes a pending inference without applying it.
func (r *Store) Reject(ctx context.Context, pendingID string) (Pending, error) {
	p, err := r.e.Reject(ctx, pendingID)
	return mirror.Convert[Pending](p), err
}

// UserModel returns the confirmed user model as paths and values in a
// fixed order (style, focus, interaction, technical), skipping empty ones.
func (r *Store) UserModel() ([]Field, error) {
	m, err := r.e.UserModel()
	if err != nil {
		return nil, err
	}
	var out []Field
	for _, v := range m.Values() {
		out = append(out, Field{Path: v[0], Value: v[1]})
	}
	return out, nil
}

// Contradictions lists pairs where a newer atom superseded an older one,
// newest first: those waiting for the person, or all of them with all.
func (r *Store) Contradictions(all bool) ([]memcore.Contradiction, error) {
	c, err := r.e.Contradictions(all)
	return mirror.Convert[[]memcore.Contradiction](c), err
}

// ResolveContradiction settles one: KeepNew, KeepOld or KeepBoth.
func (r *Store) ResolveContradiction(ctx context.Context, id, resolution string) (memcore.Contradiction, error) {
	c, err := r.e.ResolveContradiction(ctx, id, resolution)
	return mirror.Convert[memcore.Contradiction](c), err
}

// Undo takes back the latest act not yet undone — memcore.Store.Forget,
// Promote, SetPin, Confirm or Reject, through this store value — and
// returns what it was ("forget 0f3a1c2d"). A forgotten atom comes back
// with its links, a promoted one goes back to quarantine, a confirmed
// field gets its old value back and the review is queued again. The
// memory tool's and the Hook's writes are not in the log. With nothing
// left it returns ErrNothingToUndo; the log is in memory and keeps the
// latest 256 acts.
func (r *Store) Undo(ctx context.Context) (string, error) { return r.e.Undo(ctx) }

// List returns the live atoms matching f, newest first.
func (r *Store) List(f Filter) ([]memcore.Atom, error) {
	a, err := r.e.List(engine.Filter(f))
	return mirror.Convert[[]memcore.Atom](a), err
}

// Stats measures the store.
func (r *Store) Stats() (Stats, error) {
	s, err := r.e.Stats()
	return mirror.Convert[Stats](s), err
}

// Compact expires old quarantine entries, rewrites the vector cache and
// every metadata file, and reports the bytes reclaimed.
func (r *Store) Compact(ctx context.Context) (CompactResult, error) {
	c, err := r.e.Compact(ctx)
	return mirror.Convert[CompactResult](c), err
}
