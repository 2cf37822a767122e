package memcore

import (
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/odekmem/odekmem/internal/vocab"
)

// Config is the memory.extended section of the design's field reference,
// plus a few odekmem additions (marked).
//
// A Config you write as a literal (including the zero Config) means the
// defaults field by field: Open replaces every field left zero with its
// DefaultConfig value, so &Config{SemanticSearchTopK: 5} changes only the
// top K. To set a field to zero on purpose (no cap, no min-score gate, a
// feature off), start from DefaultConfig() and change it: a Config that
// came from DefaultConfig keeps its zero values. JSON decoded into a zero
// Config starts from DefaultConfig() too (UnmarshalJSON), so "false" and
// 0 in a file are kept.
type Config struct {
	// Enabled is odek's switch for Extended Memory; memcore does not read
	// it (whoever calls Open has decided).
	Enabled                 bool    `json:"enabled"`
	MaxSizeMB               float64 `json:"max_size_mb"`
	SemanticSearchTopK      int     `json:"semantic_search_top_k"`
	SemanticSearchOverfetch int     `json:"semantic_search_overfetch"`
	SemanticSearchMinScore  float64 `json:"semantic_search_min_score"`
	SemanticSearchRerank    bool    `json:"semantic_search_rerank"`
	AtomMaxChars            int     `json:"atom_max_chars"`
	MemoryBudgetChars       int     `json:"memory_budget_chars"`
	DecayHalfLifeDays       float64 `json:"decay_half_life_days"`
	// DecayHalfLifeByType (odekmem addition) sets a half-life in days per
	// atom type; a type it does not name uses decay_half_life_days, and 0
	// means that type never decays. The defaults keep decisions,
	// conventions, preferences, goals and facts for three years and files and
	// errors for a quarter, while intents, questions and observations fade
	// with decay_half_life_days (the design's 30). See HalfLifeFor.
	DecayHalfLifeByType         HalfLives `json:"decay_half_life_days_by_type"`
	QuarantineTTLDays           float64   `json:"quarantine_ttl_days"`
	EvictionPolicy              string    `json:"eviction_policy"`
	PredictiveIntents           int       `json:"predictive_intents"`
	AutoExtractPerTurn          bool      `json:"auto_extract_per_turn"`
	InferUserState              bool      `json:"infer_user_state"`
	UserStateTurnInterval       int       `json:"user_state_turn_interval"`
	UserStateMaxPending         int       `json:"user_state_max_pending"`
	AssociationsEnabled         bool      `json:"associations_enabled"`
	AssociationSemanticTopK     int       `json:"association_semantic_top_k"`
	ProactiveReturnAfterBreak   bool      `json:"proactive_return_after_break"`
	StyleMirroringEnabled       bool      `json:"style_mirroring_enabled"`
	AnaphoraResolutionEnabled   bool      `json:"anaphora_resolution_enabled"`
	FollowUpAnticipationEnabled bool      `json:"follow_up_anticipation_enabled"`

	// odekmem additions.

	// DedupThreshold is the cosine at or above which a new atom refreshes
	// an existing live atom instead of adding a twin; 0 disables.
	DedupThreshold float64 `json:"dedup_threshold"`
	// Index is the vector index kind: "exact" (default) or "hnsw".
	Index string `json:"index"`
	// QuarantineSharePercent bounds quarantine.json to this share of the cap.
	QuarantineSharePercent float64 `json:"quarantine_share_percent"`
	// BreakHours is the gap after which a session counts as resumed.
	BreakHours float64 `json:"break_hours"`
	// HookTimeoutSeconds bounds each LLM call the Hook makes in a turn
	// (extraction, intents, rerank, summaries, inference).
	HookTimeoutSeconds float64 `json:"hook_timeout_seconds"`
	// AgentName is the name the person addresses the agent by in inline
	// commands ("odek, remember that"); "" means "odek".
	AgentName string `json:"agent_name"`

	// fromDefaults is set by DefaultConfig: the zero values of such a
	// Config are explicit, not "unset".
	fromDefaults bool
}

// DefaultConfig returns the design's defaults.
func DefaultConfig() Config {
	return Config{
		Enabled:                     false,
		MaxSizeMB:                   100,
		SemanticSearchTopK:          10,
		SemanticSearchOverfetch:     4,
		SemanticSearchMinScore:      0.55,
		SemanticSearchRerank:        true,
		AtomMaxChars:                300,
		MemoryBudgetChars:           2000,
		DecayHalfLifeDays:           30,
		DecayHalfLifeByType:         defaultHalfLives(),
		fromDefaults:                true,
		QuarantineTTLDays:           7,
		EvictionPolicy:              "retention_decay",
		PredictiveIntents:           3,
		AutoExtractPerTurn:          true,
		InferUserState:              true,
		UserStateTurnInterval:       5,
		UserStateMaxPending:         20,
		AssociationsEnabled:         true,
		AssociationSemanticTopK:     3,
		ProactiveReturnAfterBreak:   true,
		StyleMirroringEnabled:       true,
		AnaphoraResolutionEnabled:   true,
		FollowUpAnticipationEnabled: true,
		DedupThreshold:              0.92,
		Index:                       "exact",
		QuarantineSharePercent:      5,
		BreakHours:                  6,
		HookTimeoutSeconds:          30,
		AgentName:                   defaultAgentName,
	}
}

// withDefaults is the Config as Open uses it: a Config that did not come
// from DefaultConfig has each zero field replaced by its default.
func (c Config) withDefaults() Config {
	if c.fromDefaults {
		return c
	}
	def := reflect.ValueOf(DefaultConfig())
	v := reflect.ValueOf(&c).Elem()
	for i := 0; i < v.NumField(); i++ {
		if f := v.Field(i); f.CanSet() && f.IsZero() {
			f.Set(def.Field(i))
		}
	}
	c.fromDefaults = true
	return c
}

// defaultAgentName is the agent's name in inline commands when
// Config.AgentName is empty.
const defaultAgentName = "odek"

// agentNameRe is what an agent name may be: a word or two a person types.
var agentNameRe = regexp.MustCompile(`^[\p{L}\p{N}][\p{L}\p{N}_.-]{0,31}(?: [\p{L}\p{N}][\p{L}\p{N}_.-]{0,31})?$`)

// defaultHalfLives are the default per-type half-lives in days: what a
// person decided, agreed, prefers, aims at or states as a fact stays true
// for months, files and recurring errors stay relevant for a quarter.
// Intents, questions and observations are absent: they fade with
// decay_half_life_days.
func defaultHalfLives() HalfLives {
	return halfLivesOf(map[string]float64{
		vocab.TypeDecision: 1095, vocab.TypeConvention: 1095, vocab.TypePreference: 1095, vocab.TypeGoal: 1095, vocab.TypeFact: 1095,
		vocab.TypeFile: 90, vocab.TypeError: 90,
	})
}

// HalfLives is decay_half_life_days_by_type: a half-life in days for some
// atom types. It is held in a canonical text form ("decision=1095,…", the
// types in the order of the Type constants) so that Config stays a comparable value; in
// JSON it is an object {"decision": 1095, …}, and an object in a config
// file overrides the types it names and keeps the others. Set it from JSON
// or start from DefaultConfig().
type HalfLives string

// halfLivesOf builds the canonical form of m (unknown types are kept
// after the known ones, sorted, so Validate can name them).
func halfLivesOf(m map[string]float64) HalfLives {
	var parts []string
	seen := map[string]bool{}
	for _, t := range vocab.AtomTypes {
		if v, ok := m[t]; ok {
			parts = append(parts, t+"="+strconv.FormatFloat(v, 'g', -1, 64))
			seen[t] = true
		}
	}
	for _, t := range slices.Sorted(maps.Keys(m)) {
		if !seen[t] {
			parts = append(parts, t+"="+strconv.FormatFloat(m[t], 'g', -1, 64))
		}
	}
	return HalfLives(strings.Join(parts, ","))
}

// parse reads the text form; the error names the first bad pair.
func (h HalfLives) parse() (map[string]float64, error) {
	return parseHalfLives(string(h), nil)
}

// lookup is the half-life set for typ, if any.
func (h HalfLives) lookup(typ string) (float64, bool) {
	rest := string(h)
	for rest != "" {
		var part string
		part, rest, _ = strings.Cut(rest, ",")
		k, v, ok := strings.Cut(part, "=")
		if ok && strings.TrimSpace(k) == typ {
			x, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
			return x, err == nil
		}
	}
	return 0, false
}

// MarshalJSON writes the object form.
func (h HalfLives) MarshalJSON() ([]byte, error) {
	m, err := h.parse()
	if err != nil {
		return nil, err
	}
	if m == nil {
		m = map[string]float64{}
	}
	return json.Marshal(m)
}

// UnmarshalJSON reads the object form over the current value: named types
// are replaced, the others kept; null keeps everything.
func (h *HalfLives) UnmarshalJSON(b []byte) error {
	var m map[string]float64
	if err := json.Unmarshal(b, &m); err != nil {
		return fmt.Errorf("expected an object of atom type → days: %w", err)
	}
	cur, err := h.parse()
	if err != nil {
		cur = map[string]float64{}
	}
	if cur == nil {
		cur = map[string]float64{}
	}
	for k, v := range m {
		cur[strings.ToLower(strings.TrimSpace(k))] = v
	}
	*h = halfLivesOf(cur)
	return nil
}

// halfLifeTable resolves every type's half-life once (at Open: the Store keeps it).
type halfLifeTable map[string]float64

func (c Config) halfLifeTable() halfLifeTable {
	t := make(halfLifeTable, len(vocab.AtomTypes))
	for _, typ := range vocab.AtomTypes {
		t[typ] = c.halfLife(typ)
	}
	return t
}

// forAtom is Config.HalfLifeFor from the table.
func (t halfLifeTable) forAtom(c Config, a Atom) float64 {
	if a.Pin {
		return 0
	}
	return t.forType(c, a.Type)
}

// forType is Config.halfLife from the table.
func (t halfLifeTable) forType(c Config, typ Type) float64 {
	if h, ok := t[string(typ)]; ok {
		return h
	}
	return c.halfLife(string(typ))
}

// halfLife is the half-life in days of an atom type: its entry in
// decay_half_life_days_by_type, else decay_half_life_days. 0 means no
// decay.
func (c Config) halfLife(typ string) float64 {
	if h, ok := c.DecayHalfLifeByType.lookup(typ); ok {
		return h
	}
	return c.DecayHalfLifeDays
}

// HalfLifeFor is the half-life in days that ages a in retention (Search's
// ranking and eviction):
// its type's entry in decay_half_life_days_by_type, else
// decay_half_life_days; 0 (never decaying) for a pinned atom.
func (c Config) HalfLifeFor(a Atom) float64 {
	if a.Pin {
		return 0
	}
	return c.halfLife(string(a.Type))
}

// capBytes is max_size_mb in bytes (1 MB = 1 MiB); 0 means no cap.
func (c Config) capBytes() int64 {
	return int64(c.MaxSizeMB * 1024 * 1024)
}

// Validate reports the first out-of-range field, naming it and the values
// it allows. It checks the Config as Open would use it (zero fields of a
// literal Config take their defaults).
func (c Config) Validate() error {
	c = c.withDefaults()
	bad := func(field, allowed string, got any) error {
		return fmt.Errorf("%w: memory.extended.%s = %v: allowed %s", ErrInvalidConfig, field, got, allowed)
	}
	nonNegF := map[string]float64{
		"max_size_mb": c.MaxSizeMB, "decay_half_life_days": c.DecayHalfLifeDays,
		"quarantine_ttl_days": c.QuarantineTTLDays, "break_hours": c.BreakHours,
		"hook_timeout_seconds": c.HookTimeoutSeconds,
	}
	for _, k := range slices.Sorted(maps.Keys(nonNegF)) {
		if v := nonNegF[k]; v < 0 || math.IsNaN(v) || math.IsInf(v, 0) {
			return bad(k, "a number ≥ 0", v)
		}
	}
	nonNegI := map[string]int{
		"semantic_search_top_k": c.SemanticSearchTopK, "atom_max_chars": c.AtomMaxChars,
		"memory_budget_chars": c.MemoryBudgetChars, "predictive_intents": c.PredictiveIntents,
		"user_state_turn_interval": c.UserStateTurnInterval, "user_state_max_pending": c.UserStateMaxPending,
		"association_semantic_top_k": c.AssociationSemanticTopK,
	}
	for _, k := range slices.Sorted(maps.Keys(nonNegI)) {
		if v := nonNegI[k]; v < 0 {
			return bad(k, "an integer ≥ 0", v)
		}
	}
	if c.SemanticSearchOverfetch < 1 {
		return bad("semantic_search_overfetch", "an integer ≥ 1", c.SemanticSearchOverfetch)
	}
	for k, v := range map[string]float64{"semantic_search_min_score": c.SemanticSearchMinScore, "dedup_threshold": c.DedupThreshold} {
		if v < 0 || v > 1 || math.IsNaN(v) {
			return bad(k, "a number from 0 to 1", v)
		}
	}
	hl, err := c.DecayHalfLifeByType.parse()
	if err != nil {
		return bad("decay_half_life_days_by_type", "type=days pairs", strconv.Quote(string(c.DecayHalfLifeByType)))
	}
	for _, t := range slices.Sorted(maps.Keys(hl)) {
		if !vocab.ValidType(t) {
			return bad("decay_half_life_days_by_type", "keys that are atom types ("+strings.Join(vocab.AtomTypes, ", ")+")", strconv.Quote(t))
		}
		if v := hl[t]; v < 0 || math.IsNaN(v) || math.IsInf(v, 0) {
			return bad("decay_half_life_days_by_type."+t, "a number ≥ 0", v)
		}
	}
	if c.QuarantineSharePercent < 0 || c.QuarantineSharePercent > 100 {
		return bad("quarantine_share_percent", "a number from 0 to 100", c.QuarantineSharePercent)
	}
	if c.EvictionPolicy != "retention_decay" {
		return bad("eviction_policy", `"retention_decay"`, strconv.Quote(c.EvictionPolicy))
	}
	if c.AgentName != "" && !agentNameRe.MatchString(c.AgentName) {
		return bad("agent_name", "one or two words of letters, digits, '_', '.' or '-' (at most 32 characters each)", strconv.Quote(c.AgentName))
	}
	if c.Index != "exact" && c.Index != "hnsw" {
		return bad("index", `"exact" or "hnsw"`, strconv.Quote(c.Index))
	}
	return nil
}

// parseHalfLives reads "decision=365,intent=14" over a copy of base.
func parseHalfLives(value string, base map[string]float64) (map[string]float64, error) {
	out := map[string]float64{}
	for k, v := range base {
		out[k] = v
	}
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

// UnmarshalJSON reads a Config over its current value. Decoded into a zero
// Config it starts from DefaultConfig(), so an explicit false or 0 in the
// JSON is kept rather than read as "unset, use the default".
func (c *Config) UnmarshalJSON(b []byte) error {
	if *c == (Config{}) {
		*c = DefaultConfig()
	}
	type plain Config // without this method
	return json.Unmarshal(b, (*plain)(c))
}
