package memcore

import (
	"time"

	"github.com/odekmem/odekmem/memcore/scan"
)

// Atom is one memory: a short typed statement with its provenance. Its
// JSON is the record of atoms.json.
type Atom struct {
	// ID is 32 lowercase hex digits.
	ID string `json:"id"`
	// SourceClass is where the content came from (a Source constant). Only
	// SourceUserSaid and SourceUserApproved atoms are ever recalled.
	SourceClass string `json:"source_class"`
	// Type is a Type constant.
	Type      string      `json:"type"`
	CreatedAt time.Time   `json:"created_at"`
	Context   AtomContext `json:"context"`
	// Pin keeps the atom from eviction and decay.
	Pin bool `json:"pin,omitempty"`
	// Confidence is in (0, 1]; 0 means unset and counts as 1.
	Confidence float64 `json:"confidence,omitempty"`
	// Text is the memory, secrets redacted.
	Text string `json:"text,omitempty"`
}

// AtomContext is where an atom was said.
type AtomContext struct {
	SessionID string `json:"session_id,omitempty"`
	Turn      int    `json:"turn,omitempty"`
	// Project is the working directory or project name.
	Project string `json:"project,omitempty"`
	// RelatedAtomIDs are the atoms it is linked to.
	RelatedAtomIDs []string `json:"related_atom_ids,omitempty"`
}

// AddRequest is one atom to store.
type AddRequest struct {
	Text string
	// Type is a Type constant (any letter case); "" means fact, anything
	// else is ErrUnknownType.
	Type string
	// Source is the atom's source class. Trust is never the zero value: ""
	// stores the atom as agent_generated, in quarantine. Pass
	// SourceUserSaid only for the person's own words, SourceUserApproved
	// only for what a person added or approved; tool output, files, web
	// pages, MCP results and subagents have their own classes and wait in
	// quarantine for a person.
	Source string
	// Confidence is in (0, 1]; 0 means unset (scored as 1). A negative,
	// NaN or larger value is ErrInvalidConfidence.
	Confidence float64
	// Pin keeps the atom from eviction and decay.
	Pin     bool
	Context AtomContext
	// CreatedAt defaults to now.
	CreatedAt time.Time
	// Link links a new live atom to its temporal, task and semantic
	// neighbours when Config.AssociationsEnabled is set.
	Link bool
}

// AddResult is what Add did.
type AddResult struct {
	Atom Atom `json:"atom"`
	// Quarantined is true when the atom went to quarantine (a tainted
	// source or a blocking scan finding); Reason says why and Findings
	// lists what the scanner found.
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
	// Links counts the associations a Link request created.
	Links int `json:"links,omitempty"`
}

// SearchOptions narrows Search and Recall.
type SearchOptions struct {
	// K is how many atoms to return (default semantic_search_top_k).
	K int
	// Project keeps atoms of one project, compared by lower-cased base
	// name, so "/home/me/payments-api" and "payments-api" match.
	Project string
	// Type keeps one atom type (a Type constant, any letter case; another
	// is ErrUnknownType); Source keeps one source class.
	Type, Source string
	// Types, when set, admits only these types.
	Types []string
	// MinScore overrides semantic_search_min_score when non-nil.
	MinScore *float64
}

// Scored is a recalled atom and how it ranked: Composite is
// 0.6·Sim + 0.4·Retention, and Retention is
// Confidence × 0.5^(AgeDays/HalfLife) × Trust.
type Scored struct {
	Atom Atom `json:"atom"`
	// Cosine is the raw cosine between the query's and the atom's vectors;
	// VecSim is that cosine calibrated onto the common scale; Lexical is
	// the BM25 channel's score; Sim fuses the two and is what the
	// min-score gate and Composite use.
	Cosine  float64 `json:"cosine"`
	VecSim  float64 `json:"vector_similarity"`
	Sim     float64 `json:"similarity"`
	Lexical float64 `json:"lexical"`
	// LexRank is the atom's 1-based BM25 rank, 0 if that channel missed it.
	LexRank    int     `json:"lexical_rank"`
	Confidence float64 `json:"confidence"`
	AgeDays    float64 `json:"age_days"`
	// HalfLife is the half-life in days that aged the atom (0: no decay).
	HalfLife  float64 `json:"half_life_days"`
	Decay     float64 `json:"decay"`
	Trust     float64 `json:"trust"`
	Retention float64 `json:"retention"`
	Composite float64 `json:"composite"`
	// Via says which query found it: "literal", "intent: …" or "type: …".
	Via string `json:"via,omitempty"`
}

// Block is the memory block for one prompt.
type Block struct {
	// Text is the exact block to inject ("" when nothing qualified).
	Text string `json:"text"`
	// Atoms are the atoms in the block, in order.
	Atoms []Scored `json:"atoms"`
	// Cut lists atoms left out because the budget was used up.
	Cut []string `json:"cut,omitempty"`
	// Dropped lists atoms that failed the final scan, alone or together
	// with their neighbours (an injection split across atoms).
	Dropped []string `json:"dropped,omitempty"`
	// Warnings name the atoms of each injection found only across atoms.
	Warnings []string `json:"warnings,omitempty"`
	// Used and Budget are characters of memory_budget_chars.
	Used   int `json:"used"`
	Budget int `json:"budget"`
}

// Turn is one message of the person, as the Hook and the Tool take it.
type Turn struct {
	// Message is the person's current message, verbatim.
	Message string
	// SessionID groups turns; it also scopes what the memory tool may
	// forget or pin (only atoms it added in the same session).
	SessionID string
	// Project is the working directory or project name.
	Project string
	// TurnIndex is the turn within the session; 0 lets the Hook count.
	TurnIndex int
	// Time is when the message was sent; zero means now.
	Time time.Time
	// PreviousMessageAt is when the person's previous message in this
	// session was recorded. A caller that does not keep one Hook alive
	// across turns (a hook process per prompt) passes it so that an inline
	// approval knows which quarantine entries answer it; zero means the
	// Hook's own record, and when neither is known a bare "odek, remember
	// that" approves nothing.
	PreviousMessageAt time.Time
}

// TurnContext is what BeforeTurn gives the agent for one prompt.
type TurnContext struct {
	// Message is the message after untrusted wrappers were stripped and
	// the first pronoun resolved (when that applied).
	Message  string `json:"message"`
	Resolved bool   `json:"resolved"`
	// Blocks are the texts to inject, in order: style guidance, user
	// state, a return-after-break note and the memory block.
	Blocks      []string `json:"blocks"`
	StyleBlock  string   `json:"style_block,omitempty"`
	UserState   string   `json:"user_state_block,omitempty"`
	ResumeBlock string   `json:"resume_block,omitempty"`
	Memory      Block    `json:"memory"`
	// Intents are the predicted follow-ups that were searched too.
	Intents []string `json:"intents,omitempty"`
	// Reranked is true when the memory LLM's order decided the atoms' order.
	Reranked bool `json:"reranked"`
	// Warnings are soft failures (LLM down, scan drops) worth logging.
	Warnings []string `json:"warnings,omitempty"`
}

// RecordResult is what RecordUserMessage did with one message.
type RecordResult struct {
	// Added are the atoms extracted from the message.
	Added []AddResult `json:"added"`
	// Promoted are quarantined atoms an inline approval ("odek, remember
	// that") promoted.
	Promoted []string `json:"promoted,omitempty"`
	// Links counts the associations created.
	Links int `json:"links"`
	// Inference is true when a user-model inference started in the
	// background (Hook.Close waits for it).
	Inference bool `json:"inference_started"`
	// Extractor is "llm" or "rules".
	Extractor string   `json:"extractor"`
	Warnings  []string `json:"warnings,omitempty"`
	// Approval is true when the message was an inline approval.
	Approval bool `json:"approval,omitempty"`
	// SkippedTurn is true when the turn was already recorded.
	SkippedTurn bool `json:"skipped,omitempty"`
	// Contradictions are older atoms the new ones superseded; they wait
	// for the person, who keeps the new, the old or both.
	Contradictions []Contradiction `json:"contradictions,omitempty"`
}

// Contradiction is an older atom a newer one superseded.
type Contradiction struct {
	ID string `json:"id"`
	// Old and New are atom ids.
	Old string `json:"old"`
	New string `json:"new"`
	// Subject is what both are about, when the rule found it.
	Subject string `json:"subject,omitempty"`
	// Method is "rule" or "llm".
	Method    string    `json:"method"`
	CreatedAt time.Time `json:"created_at"`
	// Resolution is "", "keep-new", "keep-old" or "keep-both".
	Resolution string     `json:"resolution,omitempty"`
	ResolvedAt *time.Time `json:"resolved_at,omitempty"`
}

// ToolSpec describes the agent's memory tool as data, for any provider.
type ToolSpec struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	// Parameters is the JSON Schema of the arguments object Tool.CallJSON
	// takes: "action" is required and enumerates only the actions the
	// tool can do.
	Parameters map[string]any `json:"parameters"`
}
