// Package vocab is the vocabulary of the store's on-disk format shared by
// memcore and the odekmem front ends: the source classes, the atom types
// and the id alphabet. memcore's exported constants (memcore.SourceUserSaid,
// memcore.TypeFact, …) are these values; the lists and checks stay here, out
// of the library's public API.
package vocab

import (
	"crypto/rand"
	"encoding/hex"
	"strings"
)

// Source classes (FORMATS.md). Only UserSaid and UserApproved are trusted.
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

// IsTainted reports whether a source class is untrusted: everything except
// user_said and user_approved, including unknown classes.
func IsTainted[S ~string](source S) bool {
	return source != SourceUserSaid && source != SourceUserApproved
}

// ValidSource reports whether s is one of the nine source classes.
func ValidSource[S ~string](s S) bool {
	for _, c := range SourceClasses {
		if c == string(s) {
			return true
		}
	}
	return false
}

// NormalizeType maps a type to one of the nine primary types, or to
// observation when it is unknown. Case and surrounding space are ignored.
func NormalizeType[T ~string](t T) T {
	t = T(strings.ToLower(strings.TrimSpace(string(t))))
	if ValidType(t) {
		return t
	}
	return TypeObservation
}

// ValidType reports whether t is one of the nine primary types or observation.
func ValidType[T ~string](t T) bool {
	for _, known := range AtomTypes {
		if string(t) == known {
			return true
		}
	}
	return false
}

// NewID returns a fresh 128-bit random id as 32 lowercase hex digits.
func NewID() string {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic("vocab: crypto/rand failed: " + err.Error())
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
	if id == "" || len(id) > 128 || idByte[id[0]] != idAlnum {
		return false
	}
	// One table load per byte: every id of a store is checked at each
	// open, some of them twice (atoms.json and the vector cache).
	for i := 1; i < len(id); i++ {
		if idByte[id[i]] == 0 {
			return false
		}
	}
	return true
}

// idByte classes the bytes of ValidID's alphabet: idAlnum for lowercase
// ASCII letters and digits, idSep for '-' and '_' (not first), 0 for
// anything else.
const (
	idAlnum = 1
	idSep   = 2
)

var idByte = func() (t [256]uint8) {
	for c := '0'; c <= '9'; c++ {
		t[c] = idAlnum
	}
	for c := 'a'; c <= 'z'; c++ {
		t[c] = idAlnum
	}
	t['-'], t['_'] = idSep, idSep
	return t
}()
