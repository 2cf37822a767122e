package memcore

import (
	"crypto/rand"
	"encoding/hex"
	"math"
	"strings"
	"time"
	"unicode/utf8"
)

// Source classes record where an atom's content came from. Only the two
// trusted classes are ever recalled; the rest live in quarantine until a
// person promotes them.
const (
	SourceUserSaid       = "user_said"
	SourceUserApproved   = "user_approved"
	SourceInferred       = "inferred"
	SourceToolOutput     = "tool_output"
	SourceFileRead       = "file_read"
	SourceWeb            = "web"
	SourceMCP            = "mcp"
	SourceSubagent       = "subagent"
	SourceAgentGenerated = "agent_generated"
)

// SourceClasses lists every source class in the design's order.
var SourceClasses = []string{
	SourceUserSaid, SourceUserApproved, SourceInferred, SourceToolOutput,
	SourceFileRead, SourceWeb, SourceMCP, SourceSubagent, SourceAgentGenerated,
}

// Atom types. Observation is the legacy fallback for unknown types.
const (
	TypePreference  = "preference"
	TypeIntent      = "intent"
	TypeFact        = "fact"
	TypeDecision    = "decision"
	TypeGoal        = "goal"
	TypeConvention  = "convention"
	TypeFile        = "file"
	TypeError       = "error"
	TypeQuestion    = "question"
	TypeObservation = "observation"
)

// AtomTypes lists the nine primary types followed by the legacy observation.
var AtomTypes = []string{
	TypePreference, TypeIntent, TypeFact, TypeDecision, TypeGoal,
	TypeConvention, TypeFile, TypeError, TypeQuestion, TypeObservation,
}

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

// NewID returns a fresh 128-bit random id as 32 lowercase hex digits.
func NewID() string {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic("memcore: crypto/rand failed: " + err.Error())
	}
	return hex.EncodeToString(b[:])
}

// ValidID reports whether id is in the store's id alphabet: 1 to 128
// characters of lowercase ASCII letters, digits, '-' and '_', starting with
// a letter or digit. Ids written by odekmem and odek are 32 lowercase hex
// digits; other programs' ids (UUIDs, slugs) load as long as they keep to
// the alphabet. Ids become file names (chunks/<id>.md), so anything outside
// it is refused everywhere an id is taken — load, import, links, pending
// reviews: a leading '.' could pose as a writer's temp file (".tmp-x") and
// be swept, upper case collides on case-insensitive file systems, and
// separators, "..", NUL and control characters escape or break the path.
func ValidID(id string) bool {
	if id == "" || len(id) > 128 {
		return false
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		switch {
		case c >= '0' && c <= '9', c >= 'a' && c <= 'z':
		case (c == '-' || c == '_') && i > 0:
		default:
			return false
		}
	}
	return true
}

// IsTainted reports whether a source class is untrusted: everything except
// user_said and user_approved, including unknown classes.
func IsTainted(source string) bool {
	return source != SourceUserSaid && source != SourceUserApproved
}

// ValidSource reports whether s is one of the nine source classes.
func ValidSource(s string) bool {
	for _, c := range SourceClasses {
		if c == s {
			return true
		}
	}
	return false
}

// NormalizeType maps a type to one of the nine primary types, or to
// observation when it is unknown. Case and surrounding space are ignored.
func NormalizeType(t string) string {
	t = strings.ToLower(strings.TrimSpace(t))
	for _, known := range AtomTypes {
		if t == known {
			return t
		}
	}
	return TypeObservation
}

// ValidType reports whether t is one of the nine primary types or observation.
func ValidType(t string) bool {
	for _, known := range AtomTypes {
		if t == known {
			return true
		}
	}
	return false
}

// TrustBoost is 1 for the trusted classes and 0 for every other class.
func TrustBoost(source string) float64 {
	if IsTainted(source) {
		return 0
	}
	return 1
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

// Decay is 0.5^(age_days/half_life_days). A non-positive half-life disables
// decay (factor 1).
func Decay(ageDays, halfLifeDays float64) float64 {
	if halfLifeDays <= 0 {
		return 1
	}
	return math.Pow(0.5, ageDays/halfLifeDays)
}

// Retention is confidence × decay × trust boost: the score that ranks atoms
// for recall and picks the next eviction victim.
func (a Atom) Retention(now time.Time, halfLifeDays float64) float64 {
	return a.EffectiveConfidence() * Decay(a.AgeDays(now), halfLifeDays) * TrustBoost(a.SourceClass)
}

// Truncate cuts s to at most max bytes on a UTF-8 rune boundary. A
// non-positive max leaves s unchanged.
func Truncate(s string, max int) string {
	if max <= 0 || len(s) <= max {
		return s
	}
	cut := max
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut]
}

// TruncateChars cuts s to at most max characters (runes).
func TruncateChars(s string, max int) string {
	if max <= 0 || utf8.RuneCountInString(s) <= max {
		return s
	}
	n := 0
	for i := range s {
		if n == max {
			return s[:i]
		}
		n++
	}
	return s
}

// NormalizeText is the comparison form used for exact-duplicate detection:
// lowercase with runs of white space folded to one space.
func NormalizeText(s string) string {
	return strings.Join(strings.Fields(strings.ToLower(s)), " ")
}
