// Package extcfg is odek's memory.extended object (the design's field
// reference, seed/EXTENDED_MEMORY.md, plus odekmem's additions) exactly as
// odek reads and writes it: one field per JSON key, each value meaning
// what it means to odek (max_size_mb 0 is no cap, associations_enabled
// false turns links off, …).
//
// It is the one list of those keys. memcore.Config maps to and from it
// (Config.MarshalJSON and UnmarshalJSON) and resolves every Config into it
// at Open: the store reads these fields. internal/config walks its keys
// for the ODEK_MEMORY_EXTENDED_* variables and --memory-extended-* flags.
package extcfg

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// Extended is memory.extended with odek's meaning of every value.
type Extended struct {
	Enabled                     bool      `json:"enabled"`
	MaxSizeMB                   float64   `json:"max_size_mb"` // 0: no cap
	SemanticSearchTopK          int       `json:"semantic_search_top_k"`
	SemanticSearchOverfetch     int       `json:"semantic_search_overfetch"`
	SemanticSearchMinScore      float64   `json:"semantic_search_min_score"` // 0: no gate
	SemanticSearchRerank        bool      `json:"semantic_search_rerank"`
	AtomMaxChars                int       `json:"atom_max_chars"`
	MemoryBudgetChars           int       `json:"memory_budget_chars"`  // 0: no memory block
	DecayHalfLifeDays           float64   `json:"decay_half_life_days"` // 0: no decay
	DecayHalfLifeByType         HalfLives `json:"decay_half_life_days_by_type"`
	QuarantineTTLDays           float64   `json:"quarantine_ttl_days"` // 0: never expires
	EvictionPolicy              string    `json:"eviction_policy"`
	PredictiveIntents           int       `json:"predictive_intents"` // 0: none
	AutoExtractPerTurn          bool      `json:"auto_extract_per_turn"`
	InferUserState              bool      `json:"infer_user_state"`
	UserStateTurnInterval       int       `json:"user_state_turn_interval"`
	UserStateMaxPending         int       `json:"user_state_max_pending"`
	AssociationsEnabled         bool      `json:"associations_enabled"`
	AssociationSemanticTopK     int       `json:"association_semantic_top_k"` // 0: no semantic links
	ProactiveReturnAfterBreak   bool      `json:"proactive_return_after_break"`
	StyleMirroringEnabled       bool      `json:"style_mirroring_enabled"`
	AnaphoraResolutionEnabled   bool      `json:"anaphora_resolution_enabled"`
	FollowUpAnticipationEnabled bool      `json:"follow_up_anticipation_enabled"`

	// odekmem additions.
	DedupThreshold         float64 `json:"dedup_threshold"` // 0: exact text only
	Index                  string  `json:"index"`
	QuarantineSharePercent float64 `json:"quarantine_share_percent"`
	BreakHours             float64 `json:"break_hours"`
	HookTimeoutSeconds     float64 `json:"hook_timeout_seconds"`
	AgentName              string  `json:"agent_name"`
}

// HalfLives is decay_half_life_days_by_type: atom type → half-life in
// days (0: that type never decays). Decoded JSON is laid over the current
// value: the types it names are replaced (keys lower-cased), the others
// kept; null keeps everything.
type HalfLives map[string]float64

// UnmarshalJSON reads the object form over the current value.
func (h *HalfLives) UnmarshalJSON(b []byte) error {
	var m map[string]float64
	if err := json.Unmarshal(b, &m); err != nil {
		return fmt.Errorf("expected an object of atom type → days: %w", err)
	}
	if m == nil {
		return nil
	}
	out := make(HalfLives, len(*h)+len(m))
	for k, v := range *h {
		out[k] = v
	}
	for k, v := range m {
		out[strings.ToLower(strings.TrimSpace(k))] = v
	}
	*h = out
	return nil
}

// ParsePairs reads the text form "decision=365,intent=14" (the form of
// environment variables and flags): type=days pairs separated by commas,
// keys lower-cased. The error names the first bad pair.
func ParsePairs(value string) (map[string]float64, error) {
	out := map[string]float64{}
	for _, part := range strings.Split(value, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		k, v, ok := strings.Cut(part, "=")
		if !ok {
			return nil, fmt.Errorf("expected type=days pairs separated by commas")
		}
		x, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
		if err != nil {
			return nil, fmt.Errorf("%q is not a number of days", strings.TrimSpace(v))
		}
		out[strings.ToLower(strings.TrimSpace(k))] = x
	}
	return out, nil
}
