package memcore

import (
	"time"

	"github.com/odekmem/odekmem/internal/score"
	"github.com/odekmem/odekmem/internal/vocab"
)

// Source is an atom's source class: where its content came from (the
// design's source_class). Only the two trusted classes are ever recalled;
// the rest live in quarantine until a person promotes them. The zero
// value is no class: Add stores such an atom as agent_generated.
type Source string

// The source classes of the design, and SourceRecovered (odekmem's).
const (
	SourceUserSaid       Source = vocab.SourceUserSaid       // "user_said": the person's own words (trusted)
	SourceUserApproved   Source = vocab.SourceUserApproved   // "user_approved": a person added or promoted it (trusted)
	SourceInferred       Source = vocab.SourceInferred       // "inferred": the memory LLM's inference
	SourceToolOutput     Source = vocab.SourceToolOutput     // "tool_output": a tool's result
	SourceFileRead       Source = vocab.SourceFileRead       // "file_read": a file the agent read
	SourceWeb            Source = vocab.SourceWeb            // "web": a web page
	SourceMCP            Source = vocab.SourceMCP            // "mcp": an MCP server
	SourceSubagent       Source = vocab.SourceSubagent       // "subagent": another agent
	SourceAgentGenerated Source = vocab.SourceAgentGenerated // "agent_generated": the agent's own words
)

// Type is an atom's kind (the design's atom types). Add refuses any other
// type (ErrInvalidArgument); a type the memory LLM makes up becomes
// observation. The zero value means fact to Add.
type Type string

// The atom types of the design.
const (
	TypePreference  Type = vocab.TypePreference  // "preference"
	TypeIntent      Type = vocab.TypeIntent      // "intent"
	TypeFact        Type = vocab.TypeFact        // "fact"
	TypeDecision    Type = vocab.TypeDecision    // "decision"
	TypeGoal        Type = vocab.TypeGoal        // "goal"
	TypeConvention  Type = vocab.TypeConvention  // "convention"
	TypeFile        Type = vocab.TypeFile        // "file"
	TypeError       Type = vocab.TypeError       // "error"
	TypeQuestion    Type = vocab.TypeQuestion    // "question"
	TypeObservation Type = vocab.TypeObservation // "observation"
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
	SourceClass Source      `json:"source_class"`
	Type        Type        `json:"type"`
	CreatedAt   time.Time   `json:"created_at"`
	Context     AtomContext `json:"context"`
	Pin         bool        `json:"pin,omitempty"`
	Confidence  float64     `json:"confidence,omitempty"`
	Text        string      `json:"text,omitempty"`
	// Origin is set on a promoted atom: where it came from (odekmem's own
	// key; odek ignores it).
	Origin *Origin `json:"origin,omitempty"`
	// Quote is the person's words a memory LLM's memory rests on, a span
	// of their own message that the judgement verified (odekmem's own
	// key; odek ignores it). Empty when the text itself is their words.
	Quote string `json:"quote,omitempty"`
}

// retention is the atom's confidence × decay × trust boost (score.Retention).
func (a Atom) retention(now time.Time, halfLifeDays float64) float64 {
	return score.Retention(a.Confidence, a.CreatedAt, now, halfLifeDays, a.SourceClass)
}
