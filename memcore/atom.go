package memcore

import (
	"math"
	"time"

	"github.com/odekmem/odekmem/internal/score"
	"github.com/odekmem/odekmem/internal/vocab"
)

// Source classes record where an atom's content came from. Only the two
// trusted classes are ever recalled; the rest live in quarantine until a
// person promotes them.
const (
	SourceUserSaid       = vocab.SourceUserSaid
	SourceUserApproved   = vocab.SourceUserApproved
	SourceInferred       = vocab.SourceInferred
	SourceToolOutput     = vocab.SourceToolOutput
	SourceFileRead       = vocab.SourceFileRead
	SourceWeb            = vocab.SourceWeb
	SourceMCP            = vocab.SourceMCP
	SourceSubagent       = vocab.SourceSubagent
	SourceAgentGenerated = vocab.SourceAgentGenerated
)

// Atom types. Observation is the legacy fallback for unknown types.
const (
	TypePreference  = vocab.TypePreference
	TypeIntent      = vocab.TypeIntent
	TypeFact        = vocab.TypeFact
	TypeDecision    = vocab.TypeDecision
	TypeGoal        = vocab.TypeGoal
	TypeConvention  = vocab.TypeConvention
	TypeFile        = vocab.TypeFile
	TypeError       = vocab.TypeError
	TypeQuestion    = vocab.TypeQuestion
	TypeObservation = vocab.TypeObservation
)

// AtomContext records where in the conversation an atom came from.
type AtomContext struct {
	SessionID      string   `json:"session_id,omitempty"`
	Turn           int      `json:"turn,omitempty"`
	Project        string   `json:"project,omitempty"`
	RelatedAtomIDs []string `json:"related_atom_ids,omitempty"`
}

// Atom is one memory: a small typed statement with its provenance.
type Atom struct {
	ID          string      `json:"id"`
	SourceClass string      `json:"source_class"`
	Type        string      `json:"type"`
	CreatedAt   time.Time   `json:"created_at"`
	Context     AtomContext `json:"context"`
	Pin         bool        `json:"pin,omitempty"`
	Confidence  float64     `json:"confidence,omitempty"`
	Text        string      `json:"text,omitempty"`
	// Origin is set on a promoted atom: where it came from (odekmem's own
	// key; odek ignores it).
	Origin *Origin `json:"origin,omitempty"`
}

// EffectiveConfidence is the confidence used in scoring: a missing or
// non-positive value means 1.0, and values above 1 are clamped.
func (a Atom) EffectiveConfidence() float64 {
	c := a.Confidence
	if c <= 0 || math.IsNaN(c) {
		return 1
	}
	if c > 1 {
		return 1
	}
	return c
}

// AgeDays is the atom's age in days at now; never negative.
func (a Atom) AgeDays(now time.Time) float64 {
	d := now.Sub(a.CreatedAt).Hours() / 24
	if d < 0 {
		return 0
	}
	return d
}

// Retention is confidence × decay × trust boost: the score that ranks atoms
// for recall and picks the next eviction victim.
func (a Atom) Retention(now time.Time, halfLifeDays float64) float64 {
	return a.EffectiveConfidence() * score.Decay(a.AgeDays(now), halfLifeDays) * score.Trust(a.SourceClass)
}
