package memcore

import "github.com/odekmem/odekmem/internal/engine"

// Source classes record where an atom's content came from. Only the two
// trusted classes are ever recalled; the rest wait in quarantine until a
// person promotes them.
const (
	SourceUserSaid       = engine.SourceUserSaid       // "user_said": the person's own words (trusted)
	SourceUserApproved   = engine.SourceUserApproved   // "user_approved": a person added or promoted it (trusted)
	SourceInferred       = engine.SourceInferred       // "inferred": the memory LLM's inference
	SourceToolOutput     = engine.SourceToolOutput     // "tool_output": a tool's result
	SourceFileRead       = engine.SourceFileRead       // "file_read": a file the agent read
	SourceWeb            = engine.SourceWeb            // "web": a web page
	SourceMCP            = engine.SourceMCP            // "mcp": an MCP server
	SourceSubagent       = engine.SourceSubagent       // "subagent": another agent
	SourceAgentGenerated = engine.SourceAgentGenerated // "agent_generated": the agent's own words
)

// Atom types.
const (
	TypePreference  = engine.TypePreference  // "preference"
	TypeIntent      = engine.TypeIntent      // "intent"
	TypeFact        = engine.TypeFact        // "fact"
	TypeDecision    = engine.TypeDecision    // "decision"
	TypeGoal        = engine.TypeGoal        // "goal"
	TypeConvention  = engine.TypeConvention  // "convention"
	TypeFile        = engine.TypeFile        // "file"
	TypeError       = engine.TypeError       // "error"
	TypeQuestion    = engine.TypeQuestion    // "question"
	TypeObservation = engine.TypeObservation // "observation"
)

// Errors; match them with errors.Is (the messages add detail).
var (
	// ErrClosed means the store or hook was used after Close.
	ErrClosed = engine.ErrClosed
	// ErrNotFound means no atom has the given id.
	ErrNotFound = engine.ErrNotFound
	// ErrInvalidID means a string cannot be an atom id (32 lowercase hex
	// digits; ids become file names, so anything else is refused).
	ErrInvalidID = engine.ErrInvalidID
	// ErrInvalidConfig means a Config value is out of range; the message
	// names the field and the allowed values.
	ErrInvalidConfig = engine.ErrInvalidConfig
	// ErrEmptyText means an atom's text is empty after trimming.
	ErrEmptyText = engine.ErrEmptyText
	// ErrUnknownType means an atom type is not one of the Type constants.
	ErrUnknownType = engine.ErrUnknownType
	// ErrInvalidConfidence means a confidence is outside (0, 1] (0 = unset).
	ErrInvalidConfidence = engine.ErrInvalidConfidence
	// ErrBlocked means a trusted write was rejected by the scanner; the
	// atom went to quarantine instead (AddResult.Reason says why).
	ErrBlocked = engine.ErrBlocked
	// ErrCapExceeded means a write would push the store over max_size_mb
	// and nothing evictable is left. Nothing was removed.
	ErrCapExceeded = engine.ErrCapExceeded
	// ErrUnsafeStore means the store directory or one of its files is a
	// symbolic link, belongs to another user, or is writable by others:
	// the store is refused rather than trusted. The message names the
	// path and the command that fixes it.
	ErrUnsafeStore = engine.ErrUnsafeStore
	// ErrLockTimeout means another process held the store's lock for longer
	// than Options.LockTimeout.
	ErrLockTimeout = engine.ErrLockTimeout
)
