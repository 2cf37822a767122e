package memcore_test

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/odekmem/odekmem/memcore"
)

// configCase is one setting written the three ways a Config is built: a
// literal, DefaultConfig() edited, and odek's JSON decoded into a zero
// Config. want checks the store's Config (its resolved values).
type configCase struct {
	name    string
	literal memcore.Config
	edit    func(*memcore.Config)
	json    string
	want    func(memcore.Config) bool
}

// configCases names every memory.extended key at least once (a test below
// checks that), with its off value where odek has one, a set value, and
// the zero that used to depend on how the Config was built.
var configCases = []configCase{
	{"all defaults", memcore.Config{}, func(*memcore.Config) {}, `{}`,
		func(c memcore.Config) bool { return c == memcore.DefaultConfig() }},
	// The hidden bit of the old Config: MaxSizeMB 0 gave caps of 0,
	// 100 MB and 0 depending on the construction. Now 0 is the default.
	{"max_size_mb left zero is 100", memcore.Config{MaxSizeMB: 0}, func(c *memcore.Config) { c.MaxSizeMB = 0 }, `{}`,
		func(c memcore.Config) bool { return c.MaxSizeMB == 100 && !c.NoSizeCap }},
	{"enabled", memcore.Config{Enabled: true}, func(c *memcore.Config) { c.Enabled = true }, `{"enabled": true}`,
		func(c memcore.Config) bool { return c.Enabled }},
	{"no size cap", memcore.Config{NoSizeCap: true}, func(c *memcore.Config) { c.NoSizeCap = true }, `{"max_size_mb": 0}`,
		func(c memcore.Config) bool { return c.NoSizeCap && c.MaxSizeMB == 0 }},
	{"size cap 50", memcore.Config{MaxSizeMB: 50}, func(c *memcore.Config) { c.MaxSizeMB = 50 }, `{"max_size_mb": 50}`,
		func(c memcore.Config) bool { return c.MaxSizeMB == 50 }},
	{"top k", memcore.Config{SemanticSearchTopK: 3}, func(c *memcore.Config) { c.SemanticSearchTopK = 3 }, `{"semantic_search_top_k": 3}`,
		func(c memcore.Config) bool { return c.SemanticSearchTopK == 3 }},
	{"top k 0 is the default", memcore.Config{}, func(c *memcore.Config) { c.SemanticSearchTopK = 0 }, `{"semantic_search_top_k": 0}`,
		func(c memcore.Config) bool { return c.SemanticSearchTopK == 10 }},
	{"overfetch", memcore.Config{SemanticSearchOverfetch: 2}, func(c *memcore.Config) { c.SemanticSearchOverfetch = 2 }, `{"semantic_search_overfetch": 2}`,
		func(c memcore.Config) bool { return c.SemanticSearchOverfetch == 2 }},
	{"no min score", memcore.Config{NoMinScore: true}, func(c *memcore.Config) { c.NoMinScore = true }, `{"semantic_search_min_score": 0}`,
		func(c memcore.Config) bool { return c.NoMinScore && c.SemanticSearchMinScore == 0 }},
	{"min score", memcore.Config{SemanticSearchMinScore: 0.4}, func(c *memcore.Config) { c.SemanticSearchMinScore = 0.4 }, `{"semantic_search_min_score": 0.4}`,
		func(c memcore.Config) bool { return c.SemanticSearchMinScore == 0.4 }},
	{"no rerank", memcore.Config{NoRerank: true}, func(c *memcore.Config) { c.NoRerank = true }, `{"semantic_search_rerank": false}`,
		func(c memcore.Config) bool { return c.NoRerank }},
	{"atom max chars", memcore.Config{AtomMaxChars: 120}, func(c *memcore.Config) { c.AtomMaxChars = 120 }, `{"atom_max_chars": 120}`,
		func(c memcore.Config) bool { return c.AtomMaxChars == 120 }},
	{"no memory block", memcore.Config{NoMemoryBlock: true}, func(c *memcore.Config) { c.NoMemoryBlock = true }, `{"memory_budget_chars": 0}`,
		func(c memcore.Config) bool { return c.NoMemoryBlock && c.MemoryBudgetChars == 0 }},
	{"memory budget", memcore.Config{MemoryBudgetChars: 500}, func(c *memcore.Config) { c.MemoryBudgetChars = 500 }, `{"memory_budget_chars": 500}`,
		func(c memcore.Config) bool { return c.MemoryBudgetChars == 500 }},
	{"no decay", memcore.Config{NoDecay: true}, func(c *memcore.Config) { c.NoDecay = true }, `{"decay_half_life_days": 0}`,
		func(c memcore.Config) bool {
			return c.NoDecay && c.HalfLifeFor(memcore.Atom{Type: memcore.TypeIntent}) == 0 && c.HalfLifeFor(memcore.Atom{Type: memcore.TypeFact}) == 1095
		}},
	{"half-life", memcore.Config{DecayHalfLifeDays: 12}, func(c *memcore.Config) { c.DecayHalfLifeDays = 12 }, `{"decay_half_life_days": 12}`,
		func(c memcore.Config) bool { return c.HalfLifeFor(memcore.Atom{Type: memcore.TypeQuestion}) == 12 }},
	{"half-life by type over the defaults", memcore.Config{DecayHalfLifeByType: "decision=400,intent=0"},
		func(c *memcore.Config) { c.DecayHalfLifeByType = "decision=400,intent=0" }, `{"decay_half_life_days_by_type": {"Decision": 400, "intent": 0}}`,
		func(c memcore.Config) bool {
			hl := func(t memcore.Type) float64 { return c.HalfLifeFor(memcore.Atom{Type: t}) }
			return hl(memcore.TypeDecision) == 400 && hl(memcore.TypeIntent) == 0 && hl(memcore.TypeFile) == 90 && hl(memcore.TypeQuestion) == 30
		}},
	{"no quarantine ttl", memcore.Config{NoQuarantineTTL: true}, func(c *memcore.Config) { c.NoQuarantineTTL = true }, `{"quarantine_ttl_days": 0}`,
		func(c memcore.Config) bool { return c.NoQuarantineTTL && c.QuarantineTTLDays == 0 }},
	{"quarantine ttl", memcore.Config{QuarantineTTLDays: 2}, func(c *memcore.Config) { c.QuarantineTTLDays = 2 }, `{"quarantine_ttl_days": 2}`,
		func(c memcore.Config) bool { return c.QuarantineTTLDays == 2 }},
	{"eviction policy", memcore.Config{EvictionPolicy: "retention_decay"}, func(c *memcore.Config) { c.EvictionPolicy = "" }, `{"eviction_policy": "retention_decay"}`,
		func(c memcore.Config) bool { return c.EvictionPolicy == "retention_decay" }},
	{"no predictive intents", memcore.Config{NoPredictiveIntents: true}, func(c *memcore.Config) { c.NoPredictiveIntents = true }, `{"predictive_intents": 0}`,
		func(c memcore.Config) bool { return c.NoPredictiveIntents && c.PredictiveIntents == 0 }},
	{"predictive intents", memcore.Config{PredictiveIntents: 5}, func(c *memcore.Config) { c.PredictiveIntents = 5 }, `{"predictive_intents": 5}`,
		func(c memcore.Config) bool { return c.PredictiveIntents == 5 }},
	{"no auto extract", memcore.Config{NoAutoExtract: true}, func(c *memcore.Config) { c.NoAutoExtract = true }, `{"auto_extract_per_turn": false}`,
		func(c memcore.Config) bool { return c.NoAutoExtract }},
	{"no user-state inference", memcore.Config{NoUserStateInference: true}, func(c *memcore.Config) { c.NoUserStateInference = true }, `{"infer_user_state": false}`,
		func(c memcore.Config) bool { return c.NoUserStateInference }},
	{"user-state interval and queue", memcore.Config{UserStateTurnInterval: 2, UserStateMaxPending: 7},
		func(c *memcore.Config) { c.UserStateTurnInterval, c.UserStateMaxPending = 2, 7 }, `{"user_state_turn_interval": 2, "user_state_max_pending": 7}`,
		func(c memcore.Config) bool { return c.UserStateTurnInterval == 2 && c.UserStateMaxPending == 7 }},
	{"no associations", memcore.Config{NoAssociations: true}, func(c *memcore.Config) { c.NoAssociations = true }, `{"associations_enabled": false}`,
		func(c memcore.Config) bool { return c.NoAssociations }},
	{"no semantic links", memcore.Config{NoSemanticLinks: true}, func(c *memcore.Config) { c.NoSemanticLinks = true }, `{"association_semantic_top_k": 0}`,
		func(c memcore.Config) bool { return c.NoSemanticLinks && c.AssociationSemanticTopK == 0 }},
	{"semantic links", memcore.Config{AssociationSemanticTopK: 1}, func(c *memcore.Config) { c.AssociationSemanticTopK = 1 }, `{"association_semantic_top_k": 1}`,
		func(c memcore.Config) bool { return c.AssociationSemanticTopK == 1 }},
	{"no return after break", memcore.Config{NoReturnAfterBreak: true}, func(c *memcore.Config) { c.NoReturnAfterBreak = true }, `{"proactive_return_after_break": false}`,
		func(c memcore.Config) bool { return c.NoReturnAfterBreak }},
	{"no style mirroring", memcore.Config{NoStyleMirroring: true}, func(c *memcore.Config) { c.NoStyleMirroring = true }, `{"style_mirroring_enabled": false}`,
		func(c memcore.Config) bool { return c.NoStyleMirroring }},
	{"no anaphora", memcore.Config{NoAnaphora: true}, func(c *memcore.Config) { c.NoAnaphora = true }, `{"anaphora_resolution_enabled": false}`,
		func(c memcore.Config) bool { return c.NoAnaphora }},
	{"no follow-up anticipation", memcore.Config{NoFollowUpAnticipation: true}, func(c *memcore.Config) { c.NoFollowUpAnticipation = true }, `{"follow_up_anticipation_enabled": false}`,
		func(c memcore.Config) bool { return c.NoFollowUpAnticipation }},
	{"no dedup", memcore.Config{NoDedup: true}, func(c *memcore.Config) { c.NoDedup = true }, `{"dedup_threshold": 0}`,
		func(c memcore.Config) bool { return c.NoDedup && c.DedupThreshold == 0 }},
	{"dedup threshold", memcore.Config{DedupThreshold: 0.97}, func(c *memcore.Config) { c.DedupThreshold = 0.97 }, `{"dedup_threshold": 0.97}`,
		func(c memcore.Config) bool { return c.DedupThreshold == 0.97 }},
	{"odekmem additions", memcore.Config{Index: "hnsw", QuarantineSharePercent: 20, BreakHours: 2, HookTimeoutSeconds: 5, AgentName: "jarvis"},
		func(c *memcore.Config) {
			c.Index, c.QuarantineSharePercent, c.BreakHours, c.HookTimeoutSeconds, c.AgentName = "hnsw", 20, 2, 5, "jarvis"
		}, `{"index": "hnsw", "quarantine_share_percent": 20, "break_hours": 2, "hook_timeout_seconds": 5, "agent_name": "jarvis"}`,
		func(c memcore.Config) bool {
			return c.Index == "hnsw" && c.QuarantineSharePercent == 20 && c.BreakHours == 2 && c.HookTimeoutSeconds == 5 && c.AgentName == "jarvis"
		}},
}

// TestConfigThreeConstructionsOneStore: a literal, DefaultConfig() edited
// and odek's JSON decoded into a zero Config open stores with the same
// configuration, field by field, for every setting; the store's Config
// reopens the same store.
func TestConfigThreeConstructionsOneStore(t *testing.T) {
	for _, tc := range configCases {
		t.Run(tc.name, func(t *testing.T) {
			edited := memcore.DefaultConfig()
			tc.edit(&edited)
			var decoded memcore.Config
			if err := json.Unmarshal([]byte(tc.json), &decoded); err != nil {
				t.Fatal(err)
			}
			var got []memcore.Config
			for _, c := range []memcore.Config{tc.literal, edited, decoded} {
				st, err := memcore.Open(context.Background(), t.TempDir(), memcore.Options{Config: &c})
				if err != nil {
					t.Fatal(err)
				}
				got = append(got, st.Config())
				st.Close(context.Background())
			}
			for i, name := range []string{"DefaultConfig() edited", "JSON decoded"} {
				if d := configDiff(got[0], got[i+1]); d != "" {
					t.Errorf("the literal and %s open different stores: %s", name, d)
				}
			}
			if !tc.want(got[0]) {
				t.Errorf("store config %+v", got[0])
			}
			again := got[0]
			st, err := memcore.Open(context.Background(), t.TempDir(), memcore.Options{Config: &again})
			if err != nil {
				t.Fatal(err)
			}
			defer st.Close(context.Background())
			if d := configDiff(got[0], st.Config()); d != "" {
				t.Errorf("reopening with the store's Config changed it: %s", d)
			}
		})
	}
}

// configDiff names the fields in which a and b differ.
func configDiff(a, b memcore.Config) string {
	va, vb := reflect.ValueOf(a), reflect.ValueOf(b)
	var out []string
	for i := 0; i < va.NumField(); i++ {
		if x, y := va.Field(i).Interface(), vb.Field(i).Interface(); x != y {
			out = append(out, va.Type().Field(i).Name+": "+strings.TrimSpace(strings.ReplaceAll(fmtAny(x)+" vs "+fmtAny(y), "\n", " ")))
		}
	}
	return strings.Join(out, "; ")
}

func fmtAny(v any) string { b, _ := json.Marshal(v); return string(b) }

// TestConfigCasesCoverEveryKey: the table above sets every key of odek's
// memory.extended object, so a new field cannot skip the three-way check.
func TestConfigCasesCoverEveryKey(t *testing.T) {
	b, err := json.Marshal(memcore.Config{})
	if err != nil {
		t.Fatal(err)
	}
	var keys map[string]json.RawMessage
	if err := json.Unmarshal(b, &keys); err != nil {
		t.Fatal(err)
	}
	covered := map[string]bool{}
	for _, tc := range configCases {
		var m map[string]any
		if err := json.Unmarshal([]byte(tc.json), &m); err != nil {
			t.Fatal(err)
		}
		for k := range m {
			covered[k] = true
		}
	}
	for k := range keys {
		if !covered[k] {
			t.Errorf("no case sets memory.extended.%s", k)
		}
	}
	if len(keys) < 28 {
		t.Errorf("only %d keys in %s", len(keys), b)
	}
}

// TestConfigJSONIsOdeks: a Config's JSON is odek's object with odek's
// values (an off switch as odek's off value, the defaults written out),
// decoding lays over the current value, and keys that are not Config's
// (llm, embedding) are ignored.
func TestConfigJSONIsOdeks(t *testing.T) {
	b, err := json.Marshal(memcore.Config{NoAssociations: true, NoSizeCap: true, PredictiveIntents: 5})
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	for k, want := range map[string]any{"associations_enabled": false, "max_size_mb": 0.0, "predictive_intents": 5.0,
		"semantic_search_min_score": 0.55, "semantic_search_rerank": true, "eviction_policy": "retention_decay", "agent_name": "odek"} {
		if m[k] != want {
			t.Errorf("%s = %v, want %v", k, m[k], want)
		}
	}
	if hl, _ := m["decay_half_life_days_by_type"].(map[string]any); hl["decision"] != 1095.0 || hl["file"] != 90.0 {
		t.Errorf("decay_half_life_days_by_type = %v", m["decay_half_life_days_by_type"])
	}
	c := memcore.Config{MaxSizeMB: 7, NoRerank: true}
	if err := json.Unmarshal([]byte(`{"semantic_search_top_k": 4, "llm": {"model": "m"}, "embedding": {"provider": "http"}}`), &c); err != nil {
		t.Fatal(err)
	}
	if c.MaxSizeMB != 7 || !c.NoRerank || c.SemanticSearchTopK != 4 {
		t.Fatalf("layered decode: %+v", c)
	}
	var bad memcore.Config
	if err := json.Unmarshal([]byte(`{"max_size_mb": "big"}`), &bad); err == nil || !strings.Contains(err.Error(), "max_size_mb") {
		t.Fatalf("a string cap decoded: %v", err)
	}
}

// TestConfigValidateNamesTheKey: an out-of-range value is ErrInvalidConfig
// naming odek's key; a switch wins over the number it turns off.
func TestConfigValidateNamesTheKey(t *testing.T) {
	for key, c := range map[string]memcore.Config{
		"max_size_mb":                  {MaxSizeMB: -1},
		"semantic_search_min_score":    {SemanticSearchMinScore: 1.5},
		"semantic_search_top_k":        {SemanticSearchTopK: -2},
		"decay_half_life_days_by_type": {DecayHalfLifeByType: "decisions=3"},
		"eviction_policy":              {EvictionPolicy: "lru"},
		"index":                        {Index: "faiss"},
		"agent_name":                   {AgentName: "two words too"},
		"quarantine_share_percent":     {QuarantineSharePercent: 101},
	} {
		if err := c.Validate(); !errors.Is(err, memcore.ErrInvalidConfig) || !strings.Contains(err.Error(), key) {
			t.Errorf("%s: %v", key, err)
		}
	}
	if err := (memcore.Config{MaxSizeMB: -1, NoSizeCap: true}).Validate(); err != nil {
		t.Errorf("a switch that is on ignores its number: %v", err)
	}
	if err := (memcore.Config{}).Validate(); err != nil {
		t.Errorf("the zero Config: %v", err)
	}
}

// TestConfigLiteralTurnsFeaturesOff: a literal with one switch on changes
// what the store does, observed through the API, against the defaults.
func TestConfigLiteralTurnsFeaturesOff(t *testing.T) {
	ctx := context.Background()
	open := func(t *testing.T, c memcore.Config) *memcore.Store {
		t.Helper()
		st, err := memcore.Open(ctx, t.TempDir(), memcore.Options{Config: &c})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { st.Close(context.Background()) })
		return st
	}
	add := func(t *testing.T, st *memcore.Store, text string, src memcore.Source) memcore.AddResult {
		t.Helper()
		r, err := st.Add(ctx, memcore.AddRequest{Text: text, Source: src, Link: true, Context: memcore.AtomContext{SessionID: "s1", Turn: 1, Project: "p"}})
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	probes := []struct {
		name  string
		off   memcore.Config
		probe func(t *testing.T, st *memcore.Store) bool // true: the feature acted
	}{
		{"size cap", memcore.Config{NoSizeCap: true}, func(t *testing.T, st *memcore.Store) bool {
			return must(st.Stats(ctx)).CapBytes > 0
		}},
		{"associations", memcore.Config{NoAssociations: true}, func(t *testing.T, st *memcore.Store) bool {
			add(t, st, "We decided to use PostgreSQL for the ledger", memcore.SourceUserSaid)
			b := add(t, st, "The ledger's migrations run with goose", memcore.SourceUserSaid)
			return len(must(st.Links(ctx, b.Atom.ID))) > 0
		}},
		{"min score", memcore.Config{NoMinScore: true}, func(t *testing.T, st *memcore.Store) bool {
			add(t, st, "We decided to use PostgreSQL for the ledger", memcore.SourceUserSaid)
			return len(must(st.Search(ctx, "bicycle tyre pressure in winter", memcore.SearchOptions{}))) == 0
		}},
		{"memory block", memcore.Config{NoMemoryBlock: true}, func(t *testing.T, st *memcore.Store) bool {
			add(t, st, "We decided to use PostgreSQL for the ledger", memcore.SourceUserSaid)
			return must(st.Recall(ctx, "which database does the ledger use?", memcore.SearchOptions{})).Text != ""
		}},
		{"quarantine ttl", memcore.Config{NoQuarantineTTL: true}, func(t *testing.T, st *memcore.Store) bool {
			add(t, st, "the README says to run make install", memcore.SourceFileRead)
			q := must(st.Quarantined(ctx))
			return len(q) == 1 && !q[0].ExpiresAt(st.Config().QuarantineTTLDays).IsZero()
		}},
		{"auto extract", memcore.Config{NoAutoExtract: true}, func(t *testing.T, st *memcore.Store) bool {
			h := memcore.NewHook(st)
			defer h.Close(ctx)
			rr := must(h.RecordUserMessage(ctx, memcore.Turn{Message: "We decided to use PostgreSQL for the ledger.", SessionID: "s1"}))
			return len(rr.Added) > 0
		}},
		{"anaphora", memcore.Config{NoAnaphora: true, NoFollowUpAnticipation: true}, func(t *testing.T, st *memcore.Store) bool {
			if _, err := st.Add(ctx, memcore.AddRequest{Text: "Decided to use PostgreSQL over MySQL for the payments ledger", Type: memcore.TypeDecision,
				Source: memcore.SourceUserSaid, CreatedAt: st.Now().Add(-time.Hour)}); err != nil {
				t.Fatal(err)
			}
			h := memcore.NewHook(st)
			defer h.Close(ctx)
			msg := "can we upgrade it to version 16 for the payments ledger with PostgreSQL?"
			return h.BeforeTurn(ctx, memcore.Turn{Message: msg}).Message != msg
		}},
	}
	for _, p := range probes {
		t.Run(p.name, func(t *testing.T) {
			on := memcore.Config{}
			if p.name == "anaphora" {
				on.NoFollowUpAnticipation = true
			}
			if !p.probe(t, open(t, on)) {
				t.Fatal("the feature did not act with the defaults")
			}
			if p.probe(t, open(t, p.off)) {
				t.Fatalf("%+v did not turn it off", p.off)
			}
		})
	}
}
