package memcore

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/odekmem/odekmem/memcore/guard"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// Config is the memory.extended section of the design's field reference,
// plus a few odekmem additions (marked). Zero values are meaningful where
// the field allows zero; use DefaultConfig for the design's defaults.
type Config struct {
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
	// LLMTimeoutSeconds bounds each per-turn LLM call when llm is omitted.
	HookTimeoutSeconds float64 `json:"hook_timeout_seconds"`
	// AgentName is the name the person addresses the agent by in inline
	// commands ("odek, remember that"); "" means DefaultAgentName.
	AgentName string `json:"agent_name"`

	LLM       *LLMConfig       `json:"llm,omitempty"`
	Embedding *EmbeddingConfig `json:"embedding,omitempty"`
}

// LLMConfig configures an OpenAI-compatible chat model.
type LLMConfig struct {
	BaseURL        string  `json:"base_url,omitempty"`
	APIKey         string  `json:"api_key,omitempty"`
	Model          string  `json:"model,omitempty"`
	MaxTokens      int     `json:"max_tokens,omitempty"`
	Temperature    float64 `json:"temperature,omitempty"`
	TimeoutSeconds int     `json:"timeout_seconds,omitempty"`
	Thinking       bool    `json:"thinking,omitempty"`
}

// EmbeddingConfig selects the embedder: provider "hash" (offline default) or
// "http" (an OpenAI-compatible /v1/embeddings endpoint).
type EmbeddingConfig struct {
	Provider string `json:"provider,omitempty"`
	BaseURL  string `json:"base_url,omitempty"`
	APIKey   string `json:"api_key,omitempty"`
	Model    string `json:"model,omitempty"`
	Dims     int    `json:"dims,omitempty"`
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
		DecayHalfLifeByType:         DefaultHalfLives(),
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
		AgentName:                   DefaultAgentName,
	}
}

// DefaultAgentName is the agent's name in inline commands when
// Config.AgentName is empty.
const DefaultAgentName = "odek"

// agentNameRe is what an agent name may be: a word or two a person types.
var agentNameRe = regexp.MustCompile(`^[\p{L}\p{N}][\p{L}\p{N}_.-]{0,31}(?: [\p{L}\p{N}][\p{L}\p{N}_.-]{0,31})?$`)

// DefaultHalfLives are the default per-type half-lives in days: what a
// person decided, agreed, prefers, aims at or states as a fact stays true
// for months, files and recurring errors stay relevant for a quarter.
// Intents, questions and observations are absent: they fade with
// decay_half_life_days.
func DefaultHalfLives() HalfLives {
	return HalfLivesOf(map[string]float64{
		TypeDecision: 1095, TypeConvention: 1095, TypePreference: 1095, TypeGoal: 1095, TypeFact: 1095,
		TypeFile: 90, TypeError: 90,
	})
}

// HalfLives is decay_half_life_days_by_type: a half-life in days for some
// atom types. It is held in a canonical text form ("decision=1095,…", the
// types in AtomTypes order) so that Config stays a comparable value; in
// JSON it is an object {"decision": 1095, …}, and an object in a config
// file overrides the types it names and keeps the others. The environment
// and flags take the text form (ODEK_MEMORY_EXTENDED_DECAY_HALF_LIFE_DAYS_BY_TYPE=intent=14).
type HalfLives string

// HalfLivesOf builds the canonical form of m (unknown types are kept
// after the known ones, sorted, so Validate can name them).
func HalfLivesOf(m map[string]float64) HalfLives {
	var parts []string
	seen := map[string]bool{}
	for _, t := range AtomTypes {
		if v, ok := m[t]; ok {
			parts = append(parts, t+"="+strconv.FormatFloat(v, 'g', -1, 64))
			seen[t] = true
		}
	}
	for _, t := range sortedKeys(m) {
		if !seen[t] {
			parts = append(parts, t+"="+strconv.FormatFloat(m[t], 'g', -1, 64))
		}
	}
	return HalfLives(strings.Join(parts, ","))
}

// Map parses the text form; the error names the first bad pair.
func (h HalfLives) Map() (map[string]float64, error) {
	return parseHalfLives(string(h), nil)
}

// Lookup is the half-life set for typ, if any.
func (h HalfLives) Lookup(typ string) (float64, bool) {
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
	m, err := h.Map()
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
	cur, err := h.Map()
	if err != nil {
		cur = map[string]float64{}
	}
	if cur == nil {
		cur = map[string]float64{}
	}
	for k, v := range m {
		cur[strings.ToLower(strings.TrimSpace(k))] = v
	}
	*h = HalfLivesOf(cur)
	return nil
}

// halfLifeTable resolves every type's half-life once (for a search).
type halfLifeTable map[string]float64

func (c Config) halfLifeTable() halfLifeTable {
	t := make(halfLifeTable, len(AtomTypes))
	for _, typ := range AtomTypes {
		t[typ] = c.HalfLife(typ)
	}
	return t
}

// forAtom is Config.HalfLifeFor from the table.
func (t halfLifeTable) forAtom(c Config, a Atom) float64 {
	if a.Pin {
		return 0
	}
	if h, ok := t[a.Type]; ok {
		return h
	}
	return c.HalfLife(a.Type)
}

// HalfLife is the half-life in days of an atom type: its entry in
// decay_half_life_days_by_type, else decay_half_life_days. 0 means no
// decay.
func (c Config) HalfLife(typ string) float64 {
	if h, ok := c.DecayHalfLifeByType.Lookup(typ); ok {
		return h
	}
	return c.DecayHalfLifeDays
}

// HalfLifeFor is the half-life that ages a (an atom's type's half-life;
// 0, never decaying, for a pinned atom).
func (c Config) HalfLifeFor(a Atom) float64 {
	if a.Pin {
		return 0
	}
	return c.HalfLife(a.Type)
}

// CapBytes is max_size_mb in bytes (1 MB = 1 MiB); 0 means no cap.
func (c Config) CapBytes() int64 {
	return int64(c.MaxSizeMB * 1024 * 1024)
}

// Validate reports the first out-of-range field, naming it and the values
// it allows.
func (c Config) Validate() error {
	bad := func(field, allowed string, got any) error {
		return fmt.Errorf("%w: memory.extended.%s = %v: allowed %s", ErrInvalidConfig, field, got, allowed)
	}
	nonNegF := map[string]float64{
		"max_size_mb": c.MaxSizeMB, "decay_half_life_days": c.DecayHalfLifeDays,
		"quarantine_ttl_days": c.QuarantineTTLDays, "break_hours": c.BreakHours,
		"hook_timeout_seconds": c.HookTimeoutSeconds,
	}
	for _, k := range sortedKeys(nonNegF) {
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
	for _, k := range sortedKeys(nonNegI) {
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
	hl, err := c.DecayHalfLifeByType.Map()
	if err != nil {
		return bad("decay_half_life_days_by_type", "type=days pairs", strconv.Quote(string(c.DecayHalfLifeByType)))
	}
	for _, t := range sortedKeys(hl) {
		if !ValidType(t) {
			return bad("decay_half_life_days_by_type", "keys that are atom types ("+strings.Join(AtomTypes, ", ")+")", strconv.Quote(t))
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
	if e := c.Embedding; e != nil {
		switch e.Provider {
		case "", "hash", "local", "http", "openai", "ollama":
		default:
			return bad("embedding.provider", `"hash", "http", "openai" or "ollama"`, strconv.Quote(e.Provider))
		}
		if e.Dims < 0 {
			return bad("embedding.dims", "an integer ≥ 0", e.Dims)
		}
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

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// configField is one scalar field of Config reachable from JSON, the
// environment and flags.
type configField struct {
	key   string // json key, e.g. max_size_mb
	index int
	kind  reflect.Kind
}

func scalarFields() []configField {
	t := reflect.TypeOf(Config{})
	var out []configField
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		k := f.Type.Kind()
		if k == reflect.Pointer {
			continue
		}
		key, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		out = append(out, configField{key: key, index: i, kind: k})
	}
	return out
}

// ConfigKeys lists every scalar memory.extended key in declaration order.
func ConfigKeys() []string {
	var keys []string
	for _, f := range scalarFields() {
		keys = append(keys, f.key)
	}
	return keys
}

// EnvName is the environment variable for a key: ODEK_MEMORY_EXTENDED_<KEY>.
func EnvName(key string) string { return "ODEK_MEMORY_EXTENDED_" + strings.ToUpper(key) }

// FlagName is the command-line flag for a key: memory-extended-<key-with-dashes>.
func FlagName(key string) string {
	return "memory-extended-" + strings.ReplaceAll(key, "_", "-")
}

// Set assigns one scalar field from its string form, as the environment and
// flags give it. The error names the field and what it accepts.
func (c *Config) Set(key, value string) error {
	for _, f := range scalarFields() {
		if f.key != key {
			continue
		}
		v := reflect.ValueOf(c).Elem().Field(f.index)
		value = strings.TrimSpace(value)
		switch f.kind {
		case reflect.Bool:
			b, err := strconv.ParseBool(value)
			if err != nil {
				return fmt.Errorf("%w: memory.extended.%s = %q: allowed true or false", ErrInvalidConfig, key, value)
			}
			v.SetBool(b)
		case reflect.Int:
			n, err := strconv.Atoi(value)
			if err != nil {
				return fmt.Errorf("%w: memory.extended.%s = %q: allowed an integer", ErrInvalidConfig, key, value)
			}
			v.SetInt(int64(n))
		case reflect.Float64:
			x, err := strconv.ParseFloat(value, 64)
			if err != nil {
				return fmt.Errorf("%w: memory.extended.%s = %q: allowed a number", ErrInvalidConfig, key, value)
			}
			v.SetFloat(x)
		case reflect.String:
			if hl, ok := v.Addr().Interface().(*HalfLives); ok {
				// type=days pairs, comma-separated, over the current values.
				cur, _ := hl.Map()
				m, err := parseHalfLives(value, cur)
				if err != nil {
					return fmt.Errorf("%w: memory.extended.%s = %q: %v", ErrInvalidConfig, key, value, err)
				}
				*hl = HalfLivesOf(m)
				break
			}
			v.SetString(value)
		}
		return nil
	}
	return fmt.Errorf("%w: unknown key memory.extended.%s", ErrInvalidConfig, key)
}

// applyJSON overlays the keys present in raw (a memory.extended object).
// Keys that are present are honoured even when zero.
func (c *Config) applyJSON(raw map[string]json.RawMessage, warn func(string)) error {
	known := map[string]configField{}
	for _, f := range scalarFields() {
		known[f.key] = f
	}
	for _, key := range sortedKeys(raw) {
		msg := raw[key]
		switch key {
		case "llm":
			var l LLMConfig
			if err := json.Unmarshal(msg, &l); err != nil {
				return fmt.Errorf("%w: memory.extended.llm: %v", ErrInvalidConfig, err)
			}
			if string(msg) != "null" {
				c.LLM = &l
			}
			continue
		case "embedding":
			var e EmbeddingConfig
			if err := json.Unmarshal(msg, &e); err != nil {
				return fmt.Errorf("%w: memory.extended.embedding: %v", ErrInvalidConfig, err)
			}
			if string(msg) != "null" {
				c.Embedding = &e
			}
			continue
		}
		f, ok := known[key]
		if !ok {
			if warn != nil {
				warn(fmt.Sprintf("unknown config key memory.extended.%s ignored", key))
			}
			continue
		}
		field := reflect.ValueOf(c).Elem().Field(f.index)
		if err := json.Unmarshal(msg, field.Addr().Interface()); err != nil {
			return fmt.Errorf("%w: memory.extended.%s: %v", ErrInvalidConfig, key, err)
		}
	}
	return nil
}

// Settings is everything odekmem reads from the layered configuration: the
// memory.extended section and the top-level model settings that the shared
// LLM client is built from.
type Settings struct {
	Home     string
	Extended Config
	// Shared is the agent's own model (top-level model, base_url, …).
	Shared LLMConfig
	// SharedEmbedding is memory.embedding, used when memory.extended.embedding
	// is omitted.
	SharedEmbedding *EmbeddingConfig
	// Guard is the top-level "guard" section of ~/.odek/config.json (the
	// optional second opinion; see memcore/guard). A project's odek.json
	// may not set it.
	Guard guard.Config
	// Warnings are problems that did not stop loading (ignored project keys,
	// unknown keys); callers print them on stderr.
	Warnings []string
}

// StoreDir is <home>/memory/extended.
func (s Settings) StoreDir() string { return filepath.Join(s.Home, "memory", "extended") }

// EffectiveEmbedding is memory.extended.embedding, falling back to the shared
// memory.embedding, falling back to the offline hash embedder.
func (s Settings) EffectiveEmbedding() EmbeddingConfig {
	if s.Extended.Embedding != nil {
		return *s.Extended.Embedding
	}
	if s.SharedEmbedding != nil {
		return *s.SharedEmbedding
	}
	return EmbeddingConfig{Provider: "hash"}
}

type fileConfig struct {
	Model       *string                    `json:"model"`
	BaseURL     *string                    `json:"base_url"`
	APIKey      *string                    `json:"api_key"`
	Thinking    *bool                      `json:"thinking"`
	MaxTokens   *int                       `json:"max_tokens"`
	Temperature *float64                   `json:"temperature"`
	Timeout     *int                       `json:"timeout"`
	Memory      map[string]json.RawMessage `json:"memory"`
	Embedding   json.RawMessage            `json:"embedding"`
	Guard       json.RawMessage            `json:"guard"`
}

func (fc fileConfig) applyShared(l *LLMConfig) {
	if fc.Model != nil {
		l.Model = *fc.Model
	}
	if fc.BaseURL != nil {
		l.BaseURL = *fc.BaseURL
	}
	if fc.APIKey != nil {
		l.APIKey = *fc.APIKey
	}
	if fc.Thinking != nil {
		l.Thinking = *fc.Thinking
	}
	if fc.MaxTokens != nil {
		l.MaxTokens = *fc.MaxTokens
	}
	if fc.Temperature != nil {
		l.Temperature = *fc.Temperature
	}
	if fc.Timeout != nil {
		l.TimeoutSeconds = *fc.Timeout
	}
}

// LoadOptions says where the layers come from. Zero fields mean the real
// process environment: HOME/ODEK_HOME, os.Getenv and ./odek.json.
type LoadOptions struct {
	Home       string // --home; overrides ODEK_HOME and ~/.odek
	Getenv     func(string) string
	ProjectDir string            // directory holding odek.json; "" = current directory
	Flags      map[string]string // memory.extended key → value from --memory-extended-* flags
}

// LoadSettings merges ~/.odek/config.json, the project ./odek.json (which
// may not set memory, embedding or guard), ODEK_* environment variables and
// flags, in that order, and validates the result.
func LoadSettings(opts LoadOptions) (Settings, error) {
	getenv := opts.Getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	s := Settings{Extended: DefaultConfig()}
	switch {
	case opts.Home != "":
		s.Home = opts.Home
	case getenv("ODEK_HOME") != "":
		s.Home = getenv("ODEK_HOME")
	default:
		h, err := os.UserHomeDir()
		if err != nil {
			return s, fmt.Errorf("find home directory: %w (set ODEK_HOME or --home)", err)
		}
		s.Home = filepath.Join(h, ".odek")
	}
	warn := func(m string) { s.Warnings = append(s.Warnings, m) }

	userPath := filepath.Join(s.Home, "config.json")
	if fc, ok, err := readFileConfig(userPath); err != nil {
		return s, err
	} else if ok {
		fc.applyShared(&s.Shared)
		if err := s.applyMemory(fc, userPath, warn); err != nil {
			return s, err
		}
		if len(fc.Guard) > 0 {
			dec := json.NewDecoder(bytes.NewReader(fc.Guard))
			dec.DisallowUnknownFields()
			if err := dec.Decode(&s.Guard); err != nil {
				return s, fmt.Errorf("%s: guard: %w", userPath, err)
			}
			if err := s.Guard.Validate(); err != nil {
				return s, fmt.Errorf("%s: %w", userPath, err)
			}
		}
	}

	projDir := opts.ProjectDir
	if projDir == "" {
		projDir, _ = os.Getwd()
	}
	if projDir != "" {
		projPath := filepath.Join(projDir, "odek.json")
		if filepath.Clean(projPath) != filepath.Clean(userPath) {
			fc, ok, err := readFileConfig(projPath)
			if err != nil {
				warn(fmt.Sprintf("%s ignored: %v", projPath, err))
			} else if ok {
				for _, sect := range []struct {
					name string
					set  bool
				}{{"memory", fc.Memory != nil}, {"embedding", len(fc.Embedding) > 0}, {"guard", len(fc.Guard) > 0}} {
					if sect.set {
						warn(fmt.Sprintf("%s: project config may not set %q; ignored (set it in %s, ODEK_MEMORY_EXTENDED_* or --memory-extended-*)", projPath, sect.name, userPath))
					}
				}
				// The shared model is the memory LLM when memory.extended.llm
				// is omitted, so a cloned repository must not redirect it
				// either: it would receive the person's API key and messages
				// and could plant trusted atoms.
				var shared []string
				for _, f := range []struct {
					name string
					set  bool
				}{{"model", fc.Model != nil}, {"base_url", fc.BaseURL != nil}, {"api_key", fc.APIKey != nil}, {"thinking", fc.Thinking != nil},
					{"max_tokens", fc.MaxTokens != nil}, {"temperature", fc.Temperature != nil}, {"timeout", fc.Timeout != nil}} {
					if f.set {
						shared = append(shared, f.name)
					}
				}
				if len(shared) > 0 {
					warn(fmt.Sprintf("%s: project config may not set the model odekmem uses for memory (%s); ignored (set it in %s or ODEK_*)", projPath, strings.Join(shared, ", "), userPath))
				}
			}
		}
	}

	// Environment.
	for _, key := range ConfigKeys() {
		if v, ok := lookupEnv(getenv, EnvName(key)); ok {
			if err := s.Extended.Set(key, v); err != nil {
				return s, fmt.Errorf("%s: %w", EnvName(key), err)
			}
		}
	}
	for _, e := range []struct {
		name string
		set  func(string) error
	}{
		{"ODEK_MODEL", func(v string) error { s.Shared.Model = v; return nil }},
		{"ODEK_BASE_URL", func(v string) error { s.Shared.BaseURL = v; return nil }},
		{"ODEK_API_KEY", func(v string) error { s.Shared.APIKey = v; return nil }},
		{"ODEK_THINKING", func(v string) error { b, err := strconv.ParseBool(v); s.Shared.Thinking = b; return err }},
		{"ODEK_MAX_TOKENS", func(v string) error { n, err := strconv.Atoi(v); s.Shared.MaxTokens = n; return err }},
		{"ODEK_TEMPERATURE", func(v string) error { x, err := strconv.ParseFloat(v, 64); s.Shared.Temperature = x; return err }},
		{"ODEK_TIMEOUT", func(v string) error { n, err := strconv.Atoi(v); s.Shared.TimeoutSeconds = n; return err }},
	} {
		if v, ok := lookupEnv(getenv, e.name); ok {
			if err := e.set(v); err != nil {
				return s, fmt.Errorf("%w: %s=%q: %v", ErrInvalidConfig, e.name, v, err)
			}
		}
	}

	// Flags last.
	for _, key := range sortedKeys(opts.Flags) {
		if err := s.Extended.Set(key, opts.Flags[key]); err != nil {
			return s, fmt.Errorf("--%s: %w", FlagName(key), err)
		}
	}
	if err := s.Extended.Validate(); err != nil {
		return s, err
	}
	return s, nil
}

func lookupEnv(getenv func(string) string, name string) (string, bool) {
	v := getenv(name)
	return v, v != ""
}

func (s *Settings) applyMemory(fc fileConfig, path string, warn func(string)) error {
	if fc.Memory == nil {
		return nil
	}
	if raw, ok := fc.Memory["extended"]; ok {
		var ext map[string]json.RawMessage
		if err := json.Unmarshal(raw, &ext); err != nil {
			return fmt.Errorf("%s: memory.extended: %w", path, err)
		}
		if err := s.Extended.applyJSON(ext, warn); err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
	}
	if raw, ok := fc.Memory["embedding"]; ok && string(raw) != "null" {
		var e EmbeddingConfig
		if err := json.Unmarshal(raw, &e); err != nil {
			return fmt.Errorf("%s: memory.embedding: %w", path, err)
		}
		s.SharedEmbedding = &e
	}
	return nil
}

func readFileConfig(path string) (fileConfig, bool, error) {
	var fc fileConfig
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return fc, false, nil
	}
	if err != nil {
		return fc, false, fmt.Errorf("read config: %w", err)
	}
	if err := json.Unmarshal(data, &fc); err != nil {
		return fc, false, fmt.Errorf("%s: invalid JSON: %w", path, err)
	}
	return fc, true, nil
}

// IsBoolKey reports whether a memory.extended key holds a boolean, so a
// bare --memory-extended-<key> flag means true.
func IsBoolKey(key string) bool {
	for _, f := range scalarFields() {
		if f.key == key {
			return f.kind == reflect.Bool
		}
	}
	return false
}
