package memcore

import (
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/odekmem/odekmem/internal/extcfg"
	"github.com/odekmem/odekmem/internal/vocab"
)

// Config is the memory.extended section of odek's configuration (the
// design's field reference) plus a few odekmem additions.
//
// The zero value of every field is its default: Config{} is the design's
// defaults, and a literal names only what it changes
// (Config{SemanticSearchTopK: 5}). Where zero is a setting of its own (no
// size cap, no min-score gate, a feature turned off), a No… switch names
// it, as bbolt's Options.NoSync does: Config{NoAssociations: true}. A
// switch wins over the number it turns off. DefaultConfig returns the same
// defaults written out, so editing it and writing a literal give the same
// store.
//
// In JSON (MarshalJSON, UnmarshalJSON) a Config is odek's memory.extended
// object, key for key and with odek's meaning of every value:
// "associations_enabled": false is NoAssociations, "max_size_mb": 0 is
// NoSizeCap, "predictive_intents": 0 is NoPredictiveIntents, and a 0 in a
// number field that has no switch means that field's default. Decoding
// lays the JSON over the Config's current value, so the keys it leaves
// out keep what they were (the defaults, decoding into a zero Config).
// Keys of the section that are not Config's (llm, embedding) are ignored:
// the memory LLM and the embedder are Options.
//
// Each field's doc gives its JSON key and default.
type Config struct {
	// Enabled is odek's master switch for Extended Memory (enabled;
	// default false). memcore does not read it: whoever calls Open has
	// decided.
	Enabled bool

	// MaxSizeMB is the disk budget of the store directory in MiB, counted
	// as allocated blocks (max_size_mb; default 100). A write that would
	// exceed it evicts expired quarantine, then the unpinned atoms of
	// lowest retention.
	MaxSizeMB float64
	// NoSizeCap lets the store grow without a budget (max_size_mb 0).
	NoSizeCap bool

	// SemanticSearchTopK is how many atoms a recall returns
	// (semantic_search_top_k; default 10).
	SemanticSearchTopK int
	// SemanticSearchOverfetch multiplies the top K into the candidate pool
	// that filtering and rerank work on (semantic_search_overfetch;
	// default 4).
	SemanticSearchOverfetch int
	// SemanticSearchMinScore is the gate on the calibrated similarity, from
	// 0 to 1, below which a candidate is not recalled
	// (semantic_search_min_score; default 0.55).
	SemanticSearchMinScore float64
	// NoMinScore recalls candidates whatever their similarity
	// (semantic_search_min_score 0).
	NoMinScore bool
	// NoRerank keeps the composite-score order instead of letting the
	// memory LLM reorder the candidates (semantic_search_rerank false).
	NoRerank bool

	// AtomMaxChars caps a stored atom's text, in bytes cut on a UTF-8
	// boundary (atom_max_chars; default 300).
	AtomMaxChars int
	// MemoryBudgetChars caps the memory block a turn injects, in
	// characters, wrapper included (memory_budget_chars; default 2000).
	MemoryBudgetChars int
	// NoMemoryBlock injects no memory atoms (memory_budget_chars 0); the
	// style, user-state and return-after-break blocks still come.
	NoMemoryBlock bool

	// DecayHalfLifeDays is the half-life in days of an atom's retention for
	// the types DecayHalfLifeByType does not name (decay_half_life_days;
	// default 30: intents, questions and observations fade).
	DecayHalfLifeDays float64
	// NoDecay keeps those types from decaying (decay_half_life_days 0).
	NoDecay bool
	// DecayHalfLifeByType sets a half-life in days per atom type over the
	// default table (decay_half_life_days_by_type, odekmem's; default
	// decision, convention, preference, goal and fact 1095, file and error
	// 90); 0 means that type never decays. A type it names replaces the
	// default entry; the others keep theirs.
	DecayHalfLifeByType HalfLives

	// QuarantineTTLDays is how long a quarantined atom waits for a person
	// before it is deleted (quarantine_ttl_days; default 7).
	QuarantineTTLDays float64
	// NoQuarantineTTL keeps quarantined atoms until a person acts
	// (quarantine_ttl_days 0).
	NoQuarantineTTL bool
	// EvictionPolicy is the eviction algorithm (eviction_policy; default
	// and only value "retention_decay").
	EvictionPolicy string

	// PredictiveIntents is the most follow-up intents predicted per turn
	// (predictive_intents; default 3).
	PredictiveIntents int
	// NoPredictiveIntents predicts none (predictive_intents 0): recall
	// uses the literal message only, as NoFollowUpAnticipation does.
	NoPredictiveIntents bool
	// NoFollowUpAnticipation turns predicted-intent recall off
	// (follow_up_anticipation_enabled false).
	NoFollowUpAnticipation bool

	// NoAutoExtract stops the Hook extracting atoms from every message
	// (auto_extract_per_turn false); inline commands still apply.
	NoAutoExtract bool
	// NoUserStateInference turns background user-state inference off
	// (infer_user_state false).
	NoUserStateInference bool
	// UserStateTurnInterval runs user-state inference every N turns, and
	// on a real project change (user_state_turn_interval; default 5).
	UserStateTurnInterval int
	// UserStateMaxPending caps the review queue of pending inferences;
	// the oldest go first (user_state_max_pending; default 20).
	UserStateMaxPending int

	// NoAssociations turns temporal, task and semantic links off
	// (associations_enabled false).
	NoAssociations bool
	// AssociationSemanticTopK is how many semantic neighbours a new atom
	// is linked to (association_semantic_top_k; default 3).
	AssociationSemanticTopK int
	// NoSemanticLinks links new atoms to their temporal and task
	// neighbours only (association_semantic_top_k 0).
	NoSemanticLinks bool

	// NoReturnAfterBreak drops the "where you left off" note after a break
	// (proactive_return_after_break false).
	NoReturnAfterBreak bool
	// NoStyleMirroring drops the style guidance built from confirmed
	// user-model values (style_mirroring_enabled false).
	NoStyleMirroring bool
	// NoAnaphora leaves the message's first pronoun unresolved
	// (anaphora_resolution_enabled false).
	NoAnaphora bool

	// The rest are odekmem's additions.

	// DedupThreshold is the cosine at or above which a new atom refreshes
	// an existing live atom instead of adding a twin (dedup_threshold;
	// default 0.92).
	DedupThreshold float64
	// NoDedup refreshes only an atom of the same normalised text
	// (dedup_threshold 0).
	NoDedup bool
	// Index is the vector index (index; default "exact"): exact search,
	// through a quantised first pass past 32,768 atoms. "hnsw" is retired
	// and means the same, so configurations that chose it keep working.
	Index string
	// QuarantineSharePercent bounds quarantine.json to this share of the
	// size cap (quarantine_share_percent; default 5).
	QuarantineSharePercent float64
	// BreakHours is the gap after which a session counts as resumed
	// (break_hours; default 6).
	BreakHours float64
	// HookTimeoutSeconds bounds each memory-LLM call the Hook makes in a
	// turn (hook_timeout_seconds; default 30).
	HookTimeoutSeconds float64
	// AgentName is the name a person addresses the agent by in inline
	// commands, "odek, remember that" (agent_name; default "odek").
	AgentName string
}

// defaultExtended is the design's defaults with odek's meaning of every
// value.
func defaultExtended() extcfg.Extended {
	return extcfg.Extended{
		MaxSizeMB:                   100,
		SemanticSearchTopK:          10,
		SemanticSearchOverfetch:     4,
		SemanticSearchMinScore:      0.55,
		SemanticSearchRerank:        true,
		AtomMaxChars:                300,
		MemoryBudgetChars:           2000,
		DecayHalfLifeDays:           30,
		DecayHalfLifeByType:         defaultHalfLives(),
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

// DefaultConfig returns the defaults written out: every number at its
// default, every switch off. It opens the same store as Config{}.
func DefaultConfig() Config { return configOf(defaultExtended()) }

// defaultAgentName is the agent's name in inline commands when
// Config.AgentName is empty.
const defaultAgentName = "odek"

// validAgentName reports whether name is what an agent name may be: a
// word or two a person types — one or two words separated by one space,
// each of 1–32 characters, starting with a letter or digit, the rest
// letters, digits, '_', '.' or '-'. (It was the regular expression
// ^[\p{L}\p{N}][\p{L}\p{N}_.-]{0,31}(?: [\p{L}\p{N}][\p{L}\p{N}_.-]{0,31})?$,
// whose compiled program allocated 2.5 MB at every process start: issue 24.)
func validAgentName(name string) bool {
	first, second, two := strings.Cut(name, " ")
	return validAgentWord(first) && (!two || validAgentWord(second))
}

func validAgentWord(w string) bool {
	if w == "" || !utf8.ValidString(w) || utf8.RuneCountInString(w) > 32 {
		return false
	}
	for i, r := range w {
		switch {
		case unicode.IsLetter(r) || unicode.IsNumber(r):
		case i > 0 && (r == '_' || r == '.' || r == '-'):
		default:
			return false
		}
	}
	return true
}

// defaultHalfLives are the default per-type half-lives in days: what a
// person decided, agreed, prefers, aims at or states as a fact stays true
// for months, files and recurring errors stay relevant for a quarter.
// Intents, questions and observations are absent: they fade with
// decay_half_life_days.
func defaultHalfLives() extcfg.HalfLives {
	return extcfg.HalfLives{
		vocab.TypeDecision: 1095, vocab.TypeConvention: 1095, vocab.TypePreference: 1095, vocab.TypeGoal: 1095, vocab.TypeFact: 1095,
		vocab.TypeFile: 90, vocab.TypeError: 90,
	}
}

// extended resolves c into odek's meaning of every value, the settings
// the store reads: a zero number takes its default, a switch that is on
// makes its number 0 (odek's "off"), and DecayHalfLifeByType is laid over
// the default table. Negative and out-of-range values pass through for
// Validate to name.
func (c Config) extended() extcfg.Extended {
	d := defaultExtended()
	num := func(v, def float64, off bool) float64 {
		switch {
		case off:
			return 0
		case v == 0:
			return def
		}
		return v
	}
	count := func(v, def int, off bool) int { return int(num(float64(v), float64(def), off)) }
	text := func(v, def string) string {
		if strings.TrimSpace(v) == "" {
			return def
		}
		return v
	}
	hl := d.DecayHalfLifeByType
	if m, err := c.DecayHalfLifeByType.parse(); err == nil {
		for k, v := range m {
			hl[k] = v
		}
	}
	return extcfg.Extended{
		Enabled:                     c.Enabled,
		MaxSizeMB:                   num(c.MaxSizeMB, d.MaxSizeMB, c.NoSizeCap),
		SemanticSearchTopK:          count(c.SemanticSearchTopK, d.SemanticSearchTopK, false),
		SemanticSearchOverfetch:     count(c.SemanticSearchOverfetch, d.SemanticSearchOverfetch, false),
		SemanticSearchMinScore:      num(c.SemanticSearchMinScore, d.SemanticSearchMinScore, c.NoMinScore),
		SemanticSearchRerank:        !c.NoRerank,
		AtomMaxChars:                count(c.AtomMaxChars, d.AtomMaxChars, false),
		MemoryBudgetChars:           count(c.MemoryBudgetChars, d.MemoryBudgetChars, c.NoMemoryBlock),
		DecayHalfLifeDays:           num(c.DecayHalfLifeDays, d.DecayHalfLifeDays, c.NoDecay),
		DecayHalfLifeByType:         hl,
		QuarantineTTLDays:           num(c.QuarantineTTLDays, d.QuarantineTTLDays, c.NoQuarantineTTL),
		EvictionPolicy:              text(c.EvictionPolicy, d.EvictionPolicy),
		PredictiveIntents:           count(c.PredictiveIntents, d.PredictiveIntents, c.NoPredictiveIntents),
		AutoExtractPerTurn:          !c.NoAutoExtract,
		InferUserState:              !c.NoUserStateInference,
		UserStateTurnInterval:       count(c.UserStateTurnInterval, d.UserStateTurnInterval, false),
		UserStateMaxPending:         count(c.UserStateMaxPending, d.UserStateMaxPending, false),
		AssociationsEnabled:         !c.NoAssociations,
		AssociationSemanticTopK:     count(c.AssociationSemanticTopK, d.AssociationSemanticTopK, c.NoSemanticLinks),
		ProactiveReturnAfterBreak:   !c.NoReturnAfterBreak,
		StyleMirroringEnabled:       !c.NoStyleMirroring,
		AnaphoraResolutionEnabled:   !c.NoAnaphora,
		FollowUpAnticipationEnabled: !c.NoFollowUpAnticipation,
		DedupThreshold:              num(c.DedupThreshold, d.DedupThreshold, c.NoDedup),
		Index:                       text(c.Index, d.Index),
		QuarantineSharePercent:      num(c.QuarantineSharePercent, d.QuarantineSharePercent, false),
		BreakHours:                  num(c.BreakHours, d.BreakHours, false),
		HookTimeoutSeconds:          num(c.HookTimeoutSeconds, d.HookTimeoutSeconds, false),
		AgentName:                   text(c.AgentName, d.AgentName),
	}
}

// configOf is the Config of odek's values e, written out: the zero of a
// number with a switch turns the switch on, the zero of one without means
// its default.
func configOf(e extcfg.Extended) Config {
	return Config{
		Enabled:                 e.Enabled,
		MaxSizeMB:               e.MaxSizeMB,
		NoSizeCap:               e.MaxSizeMB == 0,
		SemanticSearchTopK:      e.SemanticSearchTopK,
		SemanticSearchOverfetch: e.SemanticSearchOverfetch,
		SemanticSearchMinScore:  e.SemanticSearchMinScore,
		NoMinScore:              e.SemanticSearchMinScore == 0,
		NoRerank:                !e.SemanticSearchRerank,
		AtomMaxChars:            e.AtomMaxChars,
		MemoryBudgetChars:       e.MemoryBudgetChars,
		NoMemoryBlock:           e.MemoryBudgetChars == 0,
		DecayHalfLifeDays:       e.DecayHalfLifeDays,
		NoDecay:                 e.DecayHalfLifeDays == 0,
		DecayHalfLifeByType:     halfLivesOf(e.DecayHalfLifeByType),
		QuarantineTTLDays:       e.QuarantineTTLDays,
		NoQuarantineTTL:         e.QuarantineTTLDays == 0,
		EvictionPolicy:          e.EvictionPolicy,
		PredictiveIntents:       e.PredictiveIntents,
		NoPredictiveIntents:     e.PredictiveIntents == 0,
		NoFollowUpAnticipation:  !e.FollowUpAnticipationEnabled,
		NoAutoExtract:           !e.AutoExtractPerTurn,
		NoUserStateInference:    !e.InferUserState,
		UserStateTurnInterval:   e.UserStateTurnInterval,
		UserStateMaxPending:     e.UserStateMaxPending,
		NoAssociations:          !e.AssociationsEnabled,
		AssociationSemanticTopK: e.AssociationSemanticTopK,
		NoSemanticLinks:         e.AssociationSemanticTopK == 0,
		NoReturnAfterBreak:      !e.ProactiveReturnAfterBreak,
		NoStyleMirroring:        !e.StyleMirroringEnabled,
		NoAnaphora:              !e.AnaphoraResolutionEnabled,
		DedupThreshold:          e.DedupThreshold,
		NoDedup:                 e.DedupThreshold == 0,
		Index:                   e.Index,
		QuarantineSharePercent:  e.QuarantineSharePercent,
		BreakHours:              e.BreakHours,
		HookTimeoutSeconds:      e.HookTimeoutSeconds,
		AgentName:               e.AgentName,
	}
}

// MarshalJSON writes odek's memory.extended object with every key, each
// at the value the store uses (a switch that is on as odek's off value).
func (c Config) MarshalJSON() ([]byte, error) {
	if _, err := c.DecayHalfLifeByType.parse(); err != nil {
		return nil, fmt.Errorf("decay_half_life_days_by_type: %w", err)
	}
	return json.Marshal(c.extended())
}

// UnmarshalJSON reads odek's memory.extended object over c: the keys it
// names replace c's values with odek's meaning (see Config), the others
// keep theirs, and keys that are not Config's are ignored. Values are
// checked by Validate (Open calls it), not here.
func (c *Config) UnmarshalJSON(b []byte) error {
	e := c.extended()
	if err := json.Unmarshal(b, &e); err != nil {
		return err
	}
	*c = configOf(e)
	return nil
}

// HalfLives is a per-type table of half-lives in days in a canonical text
// form, "decision=1095,file=90" (types in the order of the Type
// constants), so that Config stays a comparable value. Build one with
// Config's JSON ("decay_half_life_days_by_type": {"decision": 1095}) or
// write the text.
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
	return extcfg.ParsePairs(string(h))
}

// lookup is the half-life h sets for typ, if any.
func (h HalfLives) lookup(typ string) (float64, bool) {
	rest := string(h)
	for rest != "" {
		var part string
		part, rest, _ = strings.Cut(rest, ",")
		k, v, ok := strings.Cut(part, "=")
		if ok && strings.ToLower(strings.TrimSpace(k)) == typ {
			x, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
			return x, err == nil
		}
	}
	return 0, false
}

// HalfLifeFor is the half-life in days that ages a in retention (Search's
// ranking and eviction): its type's entry in DecayHalfLifeByType, else in
// the default table, else DecayHalfLifeDays; 0 (never decaying) for a
// pinned atom, and for the types that fall to DecayHalfLifeDays when
// NoDecay is set.
func (c Config) HalfLifeFor(a Atom) float64 {
	if a.Pin {
		return 0
	}
	typ := string(a.Type)
	if h, ok := c.DecayHalfLifeByType.lookup(typ); ok {
		return h
	}
	if h, ok := defaultHalfLives()[typ]; ok {
		return h
	}
	d := defaultExtended()
	return num0(c.DecayHalfLifeDays, d.DecayHalfLifeDays, c.NoDecay)
}

// num0 is a number field's value as the store uses it: 0 when its switch
// is on, the default when it is 0.
func num0(v, def float64, off bool) float64 {
	switch {
	case off:
		return 0
	case v == 0:
		return def
	}
	return v
}

// Validate reports the first out-of-range field of c as Open would use it,
// naming its JSON key and the values it allows (ErrInvalidConfig).
func (c Config) Validate() error {
	bad := func(field, allowed string, got any) error {
		return fmt.Errorf("%w: memory.extended.%s = %v: allowed %s", ErrInvalidConfig, field, got, allowed)
	}
	if _, err := c.DecayHalfLifeByType.parse(); err != nil {
		return bad("decay_half_life_days_by_type", "type=days pairs", strconv.Quote(string(c.DecayHalfLifeByType)))
	}
	e := c.extended()
	nonNegF := map[string]float64{
		"max_size_mb": e.MaxSizeMB, "decay_half_life_days": e.DecayHalfLifeDays,
		"quarantine_ttl_days": e.QuarantineTTLDays, "break_hours": e.BreakHours,
		"hook_timeout_seconds": e.HookTimeoutSeconds,
	}
	for _, k := range slices.Sorted(maps.Keys(nonNegF)) {
		if v := nonNegF[k]; v < 0 || math.IsNaN(v) || math.IsInf(v, 0) {
			return bad(k, "a number ≥ 0", v)
		}
	}
	nonNegI := map[string]int{
		"semantic_search_top_k": e.SemanticSearchTopK, "atom_max_chars": e.AtomMaxChars,
		"memory_budget_chars": e.MemoryBudgetChars, "predictive_intents": e.PredictiveIntents,
		"user_state_turn_interval": e.UserStateTurnInterval, "user_state_max_pending": e.UserStateMaxPending,
		"association_semantic_top_k": e.AssociationSemanticTopK, "semantic_search_overfetch": e.SemanticSearchOverfetch,
	}
	for _, k := range slices.Sorted(maps.Keys(nonNegI)) {
		if v := nonNegI[k]; v < 0 {
			return bad(k, "an integer ≥ 0", v)
		}
	}
	for _, k := range []string{"dedup_threshold", "semantic_search_min_score"} {
		v := map[string]float64{"semantic_search_min_score": e.SemanticSearchMinScore, "dedup_threshold": e.DedupThreshold}[k]
		if v < 0 || v > 1 || math.IsNaN(v) {
			return bad(k, "a number from 0 to 1", v)
		}
	}
	for _, t := range slices.Sorted(maps.Keys(e.DecayHalfLifeByType)) {
		if !vocab.ValidType(t) {
			return bad("decay_half_life_days_by_type", "keys that are atom types ("+strings.Join(vocab.AtomTypes, ", ")+")", strconv.Quote(t))
		}
		if v := e.DecayHalfLifeByType[t]; v < 0 || math.IsNaN(v) || math.IsInf(v, 0) {
			return bad("decay_half_life_days_by_type."+t, "a number ≥ 0", v)
		}
	}
	if v := e.QuarantineSharePercent; v < 0 || v > 100 || math.IsNaN(v) {
		return bad("quarantine_share_percent", "a number from 0 to 100", v)
	}
	if e.EvictionPolicy != "retention_decay" {
		return bad("eviction_policy", `"retention_decay"`, strconv.Quote(e.EvictionPolicy))
	}
	if !validAgentName(e.AgentName) {
		return bad("agent_name", "one or two words of letters, digits, '_', '.' or '-' (at most 32 characters each)", strconv.Quote(e.AgentName))
	}
	if e.Index != "exact" && e.Index != "hnsw" {
		return bad("index", `"exact" or "hnsw"`, strconv.Quote(e.Index))
	}
	return nil
}

// settings is a Config resolved once at Open into odek's meaning of every
// value (extcfg.Extended): what the store, the Hook and the Tool read.
type settings struct{ extcfg.Extended }

// capBytes is max_size_mb in bytes (1 MB = 1 MiB); 0 means no cap.
func (c settings) capBytes() int64 {
	return int64(c.MaxSizeMB * 1024 * 1024)
}

// agentName is the name the person addresses the agent by.
func (c settings) agentName() string {
	if n := strings.TrimSpace(c.AgentName); n != "" {
		return n
	}
	return defaultAgentName
}

// halfLife is the half-life in days of an atom type: its entry in
// decay_half_life_days_by_type, else decay_half_life_days. 0 means no
// decay.
func (c settings) halfLife(typ string) float64 {
	if h, ok := c.DecayHalfLifeByType[typ]; ok {
		return h
	}
	return c.DecayHalfLifeDays
}

// halfLifeTable resolves every type's half-life once (at Open: the Store
// keeps it).
type halfLifeTable map[string]float64

func (c settings) halfLifeTable() halfLifeTable {
	t := make(halfLifeTable, len(vocab.AtomTypes))
	for _, typ := range vocab.AtomTypes {
		t[typ] = c.halfLife(typ)
	}
	return t
}

// forAtom is the half-life that ages a (0 for a pinned atom).
func (t halfLifeTable) forAtom(c settings, a Atom) float64 {
	if a.Pin {
		return 0
	}
	return t.forType(c, a.Type)
}

// forType is settings.halfLife from the table.
func (t halfLifeTable) forType(c settings, typ Type) float64 {
	if h, ok := t[string(typ)]; ok {
		return h
	}
	return c.halfLife(string(typ))
}
