package memcore

import (
	"time"

	"github.com/odekmem/odekmem/internal/score"
	"github.com/odekmem/odekmem/internal/vocab"
)

// Source classes record where an atom's content came from. Only the two
// trusted classes are ever recalled; the rest live in quarantine until a
// person promotes them.
const (
	SourceUserSaid       = vocab.SourceUserSaid       // "user_said": the person's own words (trusted)
	SourceUserApproved   = vocab.SourceUserApproved   // "user_approved": a person added or promoted it (trusted)
	SourceInferred       = vocab.SourceInferred       // "inferred": the memory LLM's inference
	SourceToolOutput     = vocab.SourceToolOutput     // "tool_output": a tool's result
	SourceFileRead       = vocab.SourceFileRead       // "file_read": a file the agent read
	SourceWeb            = vocab.SourceWeb            // "web": a web page
	SourceMCP            = vocab.SourceMCP            // "mcp": an MCP server
	SourceSubagent       = vocab.SourceSubagent       // "subagent": another agent
	SourceAgentGenerated = vocab.SourceAgentGenerated // "agent_generated": the agent's own words
)

// Atom types. Add refuses any other type (ErrUnknownType); a type the
// memory LLM makes up becomes observation.
const (
	TypePreference  = vocab.TypePreference  // "preference"
	TypeIntent      = vocab.TypeIntent      // "intent"
	TypeFact        = vocab.TypeFact        // "fact"
	TypeDecision    = vocab.TypeDecision    // "decision"
	TypeGoal        = vocab.TypeGoal        // "goal"
	TypeConvention  = vocab.TypeConvention  // "convention"
	TypeFile        = vocab.TypeFile        // "file"
	TypeError       = vocab.TypeError       // "error"
	TypeQuestion    = vocab.TypeQuestion    // "question"
	TypeObservation = vocab.TypeObservation // "observation"
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
	// Quote is the person's words a memory LLM's memory rests on, a span
	// of their own message that the judgement verified (odekmem's own
	// key; odek ignores it). Empty when the text itself is their words.
	Quote string `json:"quote,omitempty"`
}

// retention is the atom's confidence × decay × trust boost (score.Retention).
func (a Atom) retention(now time.Time, halfLifeDays float64) float64 {
	return score.Retention(a.Confidence, a.CreatedAt, now, halfLifeDays, a.SourceClass)
}
