package memcore

import (
	"encoding/json"
	"fmt"
	"reflect"

	"github.com/odekmem/odekmem/internal/engine"
	"github.com/odekmem/odekmem/internal/mirror"
)

// Config is memory.extended of odek's config.json: the JSON keys are the
// design's, plus odekmem's additions after FollowUpAnticipationEnabled.
//
// A literal Config means the defaults field by field: a zero field takes
// its default, so &Config{SemanticSearchTopK: 5} changes only top-k. To
// turn a switch off or set a number to 0, start from DefaultConfig(),
// whose zero fields are taken as they are. JSON decoded into a zero
// Config starts from DefaultConfig() too, so an explicit false in the
// JSON stays false. Open checks the values and names the first bad one
// (ErrInvalidConfig).
type Config struct {
	// Enabled is odek's switch for Extended Memory; memcore does not read
	// it (whoever calls Open has decided).
	Enabled bool `json:"enabled"`
	// MaxSizeMB caps the store on disk; the lowest-retention unpinned atoms
	// are evicted to stay under it.
	MaxSizeMB float64 `json:"max_size_mb"`
	// SemanticSearchTopK is how many atoms Search and Recall return at
	// most; SemanticSearchOverfetch multiplies it for the candidates that
	// are ranked; SemanticSearchMinScore is the similarity gate.
	SemanticSearchTopK      int     `json:"semantic_search_top_k"`
	SemanticSearchOverfetch int     `json:"semantic_search_overfetch"`
	SemanticSearchMinScore  float64 `json:"semantic_search_min_score"`
	// SemanticSearchRerank lets the memory LLM reorder the Hook's atoms.
	SemanticSearchRerank bool `json:"semantic_search_rerank"`
	// AtomMaxChars bounds one atom's text; MemoryBudgetChars the memory
	// block injected per turn.
	AtomMaxChars      int `json:"atom_max_chars"`
	MemoryBudgetChars int `json:"memory_budget_chars"`
	// DecayHalfLifeDays ages every atom type DecayHalfLifeByType does not
	// name.
	DecayHalfLifeDays float64 `json:"decay_half_life_days"`
	// DecayHalfLifeByType is a half-life in days per atom type (a Type
	// constant); 0 means that type never decays. The defaults keep
	// decisions, conventions, preferences, goals and facts for three years
	// and files and errors for a quarter; intents, questions and
	// observations fade with DecayHalfLifeDays.
	DecayHalfLifeByType map[string]float64 `json:"decay_half_life_days_by_type"`
	// QuarantineTTLDays is how long quarantined atoms wait for a person.
	QuarantineTTLDays float64 `json:"quarantine_ttl_days"`
	// EvictionPolicy is "retention_decay", the only policy.
	EvictionPolicy string `json:"eviction_policy"`
	// PredictiveIntents is how many follow-up intents the Hook predicts
	// and searches for each turn (0 = none).
	PredictiveIntents int `json:"predictive_intents"`
	// AutoExtractPerTurn makes RecordUserMessage extract atoms.
	AutoExtractPerTurn bool `json:"auto_extract_per_turn"`
	// InferUserState makes the Hook infer the user model every
	// UserStateTurnInterval turns; inferences wait for a person's review,
	// at most UserStateMaxPending of them.
	InferUserState        bool `json:"infer_user_state"`
	UserStateTurnInterval int  `json:"user_state_turn_interval"`
	UserStateMaxPending   int  `json:"user_state_max_pending"`
	// AssociationsEnabled links new atoms to their temporal, task and
	// AssociationSemanticTopK nearest neighbours, and recall follows links.
	AssociationsEnabled     bool `json:"associations_enabled"`
	AssociationSemanticTopK int  `json:"association_semantic_top_k"`
	// The Hook's proactive blocks: a summary when the person returns after
	// BreakHours, style guidance, pronoun resolution, follow-up intents.
	ProactiveReturnAfterBreak   bool `json:"proactive_return_after_break"`
	StyleMirroringEnabled       bool `json:"style_mirroring_enabled"`
	AnaphoraResolutionEnabled   bool `json:"anaphora_resolution_enabled"`
	FollowUpAnticipationEnabled bool `json:"follow_up_anticipation_enabled"`

	// DedupThreshold is the cosine at or above which a new atom refreshes
	// an existing live atom instead of adding a twin; 0 disables.
	DedupThreshold float64 `json:"dedup_threshold"`
	// Index is the vector index kind: "exact" (default) or "hnsw".
	Index string `json:"index"`
	// QuarantineSharePercent bounds quarantine.json to this share of the cap.
	QuarantineSharePercent float64 `json:"quarantine_share_percent"`
	// BreakHours is the gap after which a session counts as resumed.
	BreakHours float64 `json:"break_hours"`
	// HookTimeoutSeconds bounds each LLM call the Hook makes in a turn.
	HookTimeoutSeconds float64 `json:"hook_timeout_seconds"`
	// AgentName is the name the person addresses the agent by in inline
	// commands ("odek, remember that"); "" means "odek".
	AgentName string `json:"agent_name"`

	// LLM is the memory LLM Open builds when Options.LLM is nil; nil
	// means no LLM (rule-based extraction and fallbacks).
	LLM *LLMConfig `json:"llm,omitempty"`
	// Embedding is the embedder Open builds when Options.Embedder is nil;
	// nil means the offline hash embedder.
	Embedding *EmbeddingConfig `json:"embedding,omitempty"`

	// complete is set by DefaultConfig and by decoding JSON into a zero
	// Config: the zero fields of such a Config are explicit, not "unset".
	complete bool
}

// LLMConfig is an OpenAI-compatible chat model (/v1/chat/completions).
type LLMConfig struct {
	BaseURL        string  `json:"base_url,omitempty"`
	APIKey         string  `json:"api_key,omitempty"`
	Model          string  `json:"model,omitempty"`
	MaxTokens      int     `json:"max_tokens,omitempty"`
	Temperature    float64 `json:"temperature,omitempty"`
	TimeoutSeconds int     `json:"timeout_seconds,omitempty"`
	// Thinking keeps a reasoning model's thinking on (slower; off by default).
	Thinking bool `json:"thinking,omitempty"`
}

// EmbeddingConfig selects the embedder: Provider "hash" (offline, the
// default) or "http" (an OpenAI-compatible /v1/embeddings endpoint, with
// BaseURL, Model and optionally APIKey and Dims).
type EmbeddingConfig struct {
	Provider string `json:"provider,omitempty"`
	BaseURL  string `json:"base_url,omitempty"`
	APIKey   string `json:"api_key,omitempty"`
	Model    string `json:"model,omitempty"`
	Dims     int    `json:"dims,omitempty"`
}

// DefaultConfig returns the design's defaults.
func DefaultConfig() Config {
	c := configFrom(engine.DefaultConfig())
	c.complete = true
	return c
}

// UnmarshalJSON reads a Config over its current value. Decoded into a zero
// Config it starts from DefaultConfig(), so an explicit false or 0 in the
// JSON is kept rather than read as "unset, use the default". An object for
// decay_half_life_days_by_type replaces the types it names and keeps the
// others.
func (c *Config) UnmarshalJSON(b []byte) error {
	if reflect.ValueOf(*c).IsZero() {
		*c = DefaultConfig()
	}
	e, err := c.engine()
	if err != nil {
		return err
	}
	if err := json.Unmarshal(b, &e); err != nil {
		return err
	}
	complete := c.complete
	*c = configFrom(e)
	c.complete = complete
	return nil
}

// engine is c as the engine takes it.
func (c Config) engine() (engine.Config, error) {
	var e engine.Config
	if c.complete {
		e = engine.DefaultConfig()
		e.DecayHalfLifeByType = ""
	}
	halfLives := c.DecayHalfLifeByType
	c.DecayHalfLifeByType = nil
	ev := reflect.ValueOf(&e).Elem()
	cv := reflect.ValueOf(c)
	for i := 0; i < cv.NumField(); i++ {
		f := cv.Type().Field(i)
		if f.IsExported() && f.Name != "DecayHalfLifeByType" {
			mirror.Copy(ev.FieldByName(f.Name), cv.Field(i))
		}
	}
	if halfLives != nil {
		b, err := json.Marshal(halfLives)
		if err != nil {
			return e, fmt.Errorf("%w: decay_half_life_days_by_type: %v", ErrInvalidConfig, err)
		}
		if err := e.DecayHalfLifeByType.UnmarshalJSON(b); err != nil {
			return e, fmt.Errorf("%w: decay_half_life_days_by_type: %v", ErrInvalidConfig, err)
		}
	}
	return e, nil
}

// configFrom is the engine's config as a Config (not complete).
func configFrom(e engine.Config) Config {
	var c Config
	cv := reflect.ValueOf(&c).Elem()
	ev := reflect.ValueOf(e)
	for i := 0; i < cv.NumField(); i++ {
		f := cv.Type().Field(i)
		if f.IsExported() && f.Name != "DecayHalfLifeByType" {
			mirror.Copy(cv.Field(i), ev.FieldByName(f.Name))
		}
	}
	if e.DecayHalfLifeByType != "" {
		if b, err := e.DecayHalfLifeByType.MarshalJSON(); err == nil {
			_ = json.Unmarshal(b, &c.DecayHalfLifeByType)
		}
	}
	return c
}
