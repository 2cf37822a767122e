package config_test

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/odekmem/odekmem/internal/config"
	"github.com/odekmem/odekmem/memcore"
)

func hWriteFile(t *testing.T, path, data string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(data), 0o600); err != nil {
		t.Fatal(err)
	}
}

func hJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func hEnv(m map[string]string) func(string) string {
	return func(k string) string { return m[k] }
}

func TestConfigDefaultsMatchFieldReference(t *testing.T) {
	home := t.TempDir()
	s, err := config.Load(config.LoadOptions{Home: home, Getenv: hEnv(nil), ProjectDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	c := s.Extended
	// The design's field reference, as odek's JSON, plus odekmem's additions.
	var want map[string]any
	if err := json.Unmarshal([]byte(`{"enabled": false, "max_size_mb": 100, "semantic_search_top_k": 10, "semantic_search_overfetch": 4,
	  "semantic_search_min_score": 0.55, "semantic_search_rerank": true, "atom_max_chars": 300, "memory_budget_chars": 2000,
	  "decay_half_life_days": 30, "quarantine_ttl_days": 7, "eviction_policy": "retention_decay", "predictive_intents": 3,
	  "auto_extract_per_turn": true, "infer_user_state": true, "user_state_turn_interval": 5, "user_state_max_pending": 20,
	  "associations_enabled": true, "association_semantic_top_k": 3, "proactive_return_after_break": true,
	  "style_mirroring_enabled": true, "anaphora_resolution_enabled": true, "follow_up_anticipation_enabled": true,
	  "decay_half_life_days_by_type": {"decision": 1095, "convention": 1095, "preference": 1095, "goal": 1095, "fact": 1095, "file": 90, "error": 90},
	  "dedup_threshold": 0.92, "index": "exact", "quarantine_share_percent": 5, "break_hours": 6, "hook_timeout_seconds": 30, "agent_name": "odek"}`), &want); err != nil {
		t.Fatal(err)
	}
	var got map[string]any
	if err := json.Unmarshal([]byte(hJSON(t, c)), &got); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("defaults:\n got %v\nwant %v", got, want)
	}
	if c != memcore.DefaultConfig() {
		t.Fatalf("defaults %+v are not DefaultConfig()", c)
	}
	if s.StoreDir() != filepath.Join(home, "memory", "extended") {
		t.Fatalf("store dir %s", s.StoreDir())
	}
}

func TestConfigLayersFileEnvFlags(t *testing.T) {
	home := t.TempDir()
	hWriteFile(t, filepath.Join(home, "config.json"), `{
	  "model": "big-model", "base_url": "http://example.invalid/v1", "thinking": true,
	  "memory": {
	    "embedding": {"provider": "http", "base_url": "http://emb.invalid/v1", "model": "nomic-embed-text"},
	    "extended": {"enabled": true, "max_size_mb": 50, "semantic_search_top_k": 7, "semantic_search_rerank": false,
	                 "quarantine_ttl_days": 0, "llm": {"base_url": "http://llm.invalid/v1", "model": "qwen2.5:7b", "timeout_seconds": 9}}
	  }}`)
	env := hEnv(map[string]string{
		"ODEK_MEMORY_EXTENDED_SEMANTIC_SEARCH_TOP_K": "12",
		"ODEK_MEMORY_EXTENDED_DECAY_HALF_LIFE_DAYS":  "0",
		"ODEK_MEMORY_EXTENDED_ATOM_MAX_CHARS":        "280",
		"ODEK_MODEL":                                 "env-model",
	})
	s, err := config.Load(config.LoadOptions{Home: home, Getenv: env, ProjectDir: t.TempDir(),
		Flags: map[string]string{"atom_max_chars": "200", "associations_enabled": "false"}})
	if err != nil {
		t.Fatal(err)
	}
	c := s.Extended
	checks := []struct {
		name      string
		got, want any
	}{
		{"enabled from file", c.Enabled, true},
		{"max_size_mb from file", c.MaxSizeMB, 50.0},
		{"top_k env beats file", c.SemanticSearchTopK, 12},
		{"rerank false from file", c.NoRerank, true},
		{"ttl explicit zero honoured", c.NoQuarantineTTL, true},
		{"half-life explicit zero from env", c.NoDecay, true},
		{"flag beats env", c.AtomMaxChars, 200},
		{"bool flag", c.NoAssociations, true},
		{"untouched default", c.MemoryBudgetChars, 2000},
		{"dedicated llm", s.LLM.Model, "qwen2.5:7b"},
		{"shared model from env", s.Shared.Model, "env-model"},
		{"shared thinking", s.Shared.Thinking, true},
		{"embedding falls back to shared memory.embedding", s.EffectiveEmbedding().Model, "nomic-embed-text"},
	}
	for _, ch := range checks {
		if ch.got != ch.want {
			t.Errorf("%s: got %v, want %v", ch.name, ch.got, ch.want)
		}
	}
}

func TestConfigEveryFieldHasEnvAndFlag(t *testing.T) {
	keys := config.Keys()
	if len(keys) < 22 {
		t.Fatalf("only %d keys", len(keys))
	}
	for _, k := range keys {
		var c memcore.Config = memcore.DefaultConfig()
		val := "1"
		if config.IsBoolKey(k) {
			val = "false"
			if k == "enabled" {
				val = "true" // the only field whose default is false
			}
		}
		if k == "eviction_policy" {
			val = "retention_decay"
		}
		if k == "index" {
			val = "hnsw"
		}
		if k == "decay_half_life_days_by_type" {
			val = "intent=14"
		}
		if err := config.Set(&c, k, val); err != nil {
			t.Errorf("Set(%s): %v", k, err)
		}
		env := config.EnvName(k)
		if !strings.HasPrefix(env, "ODEK_MEMORY_EXTENDED_") || strings.ToUpper(env) != env {
			t.Errorf("env name %s", env)
		}
		s, err := config.Load(config.LoadOptions{Home: t.TempDir(), Getenv: hEnv(map[string]string{env: val}), ProjectDir: t.TempDir()})
		if err != nil {
			t.Errorf("%s=%s: %v", env, val, err)
			continue
		}
		if s.Extended == memcore.DefaultConfig() && val != "retention_decay" {
			t.Errorf("%s=%s changed nothing", env, val)
		}
		if !strings.HasPrefix(config.FlagName(k), "memory-extended-") {
			t.Errorf("flag name %s", config.FlagName(k))
		}
	}
}

func TestConfigInvalidValuesNameTheField(t *testing.T) {
	cases := []struct {
		name, key, val, want string
	}{
		{"negative size", "max_size_mb", "-1", "max_size_mb"},
		{"unknown policy", "eviction_policy", "lru", `"retention_decay"`},
		{"min score above 1", "semantic_search_min_score", "1.5", "semantic_search_min_score"},
		{"overfetch negative", "semantic_search_overfetch", "-1", "semantic_search_overfetch"},
		{"not a number", "atom_max_chars", "many", "atom_max_chars"},
		{"not a bool", "enabled", "yes please", "true or false"},
		{"unknown index", "index", "annoy", `"exact" or "hnsw"`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := config.Load(config.LoadOptions{Home: t.TempDir(), Getenv: hEnv(nil), ProjectDir: t.TempDir(), Flags: map[string]string{tc.key: tc.val}})
			if err == nil || !errors.Is(err, memcore.ErrInvalidConfig) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v, want an ErrInvalidConfig naming %s", err, tc.want)
			}
		})
	}
}

func TestProjectConfigCannotSetMemory(t *testing.T) {
	home, proj := t.TempDir(), t.TempDir()
	hWriteFile(t, filepath.Join(proj, "odek.json"), `{"model": "project-model", "base_url": "http://p.invalid/v1",
	  "memory": {"extended": {"max_size_mb": 1, "enabled": true}}, "embedding": {"provider": "http"}, "guard": {"enabled": false}}`)
	s, err := config.Load(config.LoadOptions{Home: home, Getenv: hEnv(nil), ProjectDir: proj})
	if err != nil {
		t.Fatal(err)
	}
	if s.Extended.MaxSizeMB != 100 || s.Extended.Enabled {
		t.Fatalf("project odek.json changed memory.extended: %+v", s.Extended)
	}
	joined := strings.Join(s.Warnings, "\n")
	for _, sect := range []string{`"memory"`, `"embedding"`, `"guard"`} {
		if !strings.Contains(joined, sect) {
			t.Errorf("no warning about %s in %q", sect, joined)
		}
	}
	if s.Shared.Model != "" || s.Shared.BaseURL != "" {
		t.Errorf("a project config redirected the memory LLM: %+v", s.Shared)
	}
	if !strings.Contains(joined, "base_url") {
		t.Errorf("no warning about the model settings in %q", joined)
	}
}

// Every shared-model key of the user's config.json reaches the shared
// model, and a project odek.json that sets any of them is refused by name.
func TestSharedModelKeysUserAppliedProjectRefused(t *testing.T) {
	home, proj := t.TempDir(), t.TempDir()
	hWriteFile(t, filepath.Join(home, "config.json"), `{"model": "m1", "base_url": "http://u.invalid/v1", "api_key": "k1",
	  "thinking": true, "max_tokens": 321, "temperature": 0.25, "timeout": 17}`)
	hWriteFile(t, filepath.Join(proj, "odek.json"), `{"model": "evil", "base_url": "http://evil.invalid/v1", "api_key": "k2",
	  "thinking": false, "max_tokens": 9, "temperature": 1.5, "timeout": 1}`)
	s, err := config.Load(config.LoadOptions{Home: home, Getenv: hEnv(nil), ProjectDir: proj})
	if err != nil {
		t.Fatal(err)
	}
	want := config.LLMConfig{Model: "m1", BaseURL: "http://u.invalid/v1", APIKey: "k1", Thinking: true, MaxTokens: 321, Temperature: 0.25, TimeoutSeconds: 17}
	if s.Shared != want {
		t.Errorf("shared model = %+v, want the user's %+v", s.Shared, want)
	}
	joined := strings.Join(s.Warnings, "\n")
	if !strings.Contains(joined, "(model, base_url, api_key, thinking, max_tokens, temperature, timeout)") {
		t.Errorf("the warning does not name every refused project key: %q", joined)
	}
}

func TestConfigBrokenFileIsAnError(t *testing.T) {
	home := t.TempDir()
	hWriteFile(t, filepath.Join(home, "config.json"), `{"memory": {"extended": {"max_size_mb": "big"}}}`)
	_, err := config.Load(config.LoadOptions{Home: home, Getenv: hEnv(nil), ProjectDir: t.TempDir()})
	if err == nil || !strings.Contains(err.Error(), "max_size_mb") {
		t.Fatalf("got %v", err)
	}
}

func TestMemoryLLMChoosesDedicatedThenSharedThenNone(t *testing.T) {
	s := config.Settings{Extended: memcore.DefaultConfig()}
	if l, e := s.MemoryLLM(), s.EffectiveEmbedding(); l != nil || e.Provider != "hash" {
		t.Fatalf("nothing configured: llm %+v embedding %+v", l, e)
	}
	s.Shared = config.LLMConfig{Model: "deep-thinker", BaseURL: "http://127.0.0.1:1/v1", Thinking: true}
	if l := s.MemoryLLM(); l == nil || l.Model != "deep-thinker" {
		t.Fatalf("shared model not used: %+v", l)
	}
	s.LLM = &config.LLMConfig{Model: "qwen2.5:7b", BaseURL: "http://127.0.0.1:2/v1"}
	if l := s.MemoryLLM(); l == nil || l.Model != "qwen2.5:7b" {
		t.Fatalf("dedicated model not preferred: %+v", l)
	}
	s.LLM = &config.LLMConfig{BaseURL: "http://127.0.0.1:2/v1"} // no model: not a dedicated LLM
	if l := s.MemoryLLM(); l == nil || l.Model != "deep-thinker" {
		t.Fatalf("a dedicated llm without a model should fall back to the shared one: %+v", l)
	}
	s.SharedEmbedding = &config.EmbeddingConfig{Provider: "http", BaseURL: "http://e/v1", Model: "nomic-embed-text"}
	if e := s.EffectiveEmbedding(); e.Model != "nomic-embed-text" {
		t.Fatalf("shared embedding not used: %+v", e)
	}
	opts, err := s.StoreOptions(nil, nil)
	if err != nil || opts.LLM == nil || opts.Embedder == nil || opts.Embedder.Fingerprint() != "http/nomic-embed-text/0" {
		t.Fatalf("store options: %+v %v", opts, err)
	}
}

// TestNewClientsRejectBadModelConfig: a memory LLM or an embedder the
// configuration cannot build is an error naming the section.
func TestNewClientsRejectBadModelConfig(t *testing.T) {
	cases := []struct {
		name string
		err  func() error
		want string
	}{
		{"llm without base url", func() error { _, err := config.NewLLM(config.LLMConfig{Model: "m"}); return err }, "memory.extended.llm"},
		{"llm without model", func() error { _, err := config.NewLLM(config.LLMConfig{BaseURL: "http://127.0.0.1:1/v1"}); return err }, "memory.extended.llm"},
		{"http embedder without model", func() error {
			_, err := config.NewEmbedder(config.EmbeddingConfig{Provider: "http", BaseURL: "http://127.0.0.1:1/v1"})
			return err
		}, "embedding"},
		{"unknown embedder", func() error { _, err := config.NewEmbedder(config.EmbeddingConfig{Provider: "word2vec"}); return err }, "embedding.provider"},
		{"hash narrower than 768", func() error {
			_, err := config.NewEmbedder(config.EmbeddingConfig{Provider: "hash", Dims: 64})
			return err
		}, "embedding.dims"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.err()
			if !errors.Is(err, memcore.ErrInvalidConfig) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v does not name %s", err, tc.want)
			}
		})
	}
	for cfg, fp := range map[config.EmbeddingConfig]string{
		{}:                             "hash/1/768",
		{Provider: "hash", Dims: 1024}: "hash/1/1024",
		{Provider: "http", BaseURL: "http://127.0.0.1:1/v1", Model: "nomic-embed-text", Dims: 768}: "http/nomic-embed-text/768",
	} {
		e, err := config.NewEmbedder(cfg)
		if err != nil || e.Fingerprint() != fp {
			t.Errorf("NewEmbedder(%+v): %v %v, want %s", cfg, e, err, fp)
		}
	}
}

func TestThinkingSharedModelWarns(t *testing.T) {
	home := t.TempDir()
	hWriteFile(t, filepath.Join(home, "config.json"), `{"model": "deep-thinker", "base_url": "http://x.invalid/v1", "thinking": true}`)
	s, err := config.Load(config.LoadOptions{Home: home, Getenv: hEnv(nil)})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(strings.Join(s.Warnings, "\n"), "thinking") {
		t.Fatalf("no thinking warning in %q", s.Warnings)
	}
	hWriteFile(t, filepath.Join(home, "config.json"), `{"model": "deep-thinker", "base_url": "http://x.invalid/v1", "thinking": true,
	  "memory": {"extended": {"llm": {"model": "small", "base_url": "http://y.invalid/v1"}}}}`)
	if s, _ = config.Load(config.LoadOptions{Home: home, Getenv: hEnv(nil)}); len(s.Warnings) != 0 {
		t.Fatalf("a dedicated memory LLM still warned: %q", s.Warnings)
	}
}

func TestNoProjectFileUnlessAsked(t *testing.T) {
	home, proj := t.TempDir(), t.TempDir()
	hWriteFile(t, filepath.Join(proj, "odek.json"), `{"model": "project-model", "memory": {"extended": {"max_size_mb": 1}}}`)
	t.Chdir(proj)
	s, err := config.Load(config.LoadOptions{Home: home, Getenv: hEnv(nil)})
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Warnings) != 0 {
		t.Fatalf("odek.json in the working directory was read without ProjectDir: %q", s.Warnings)
	}
	s, _ = config.Load(config.LoadOptions{Home: home, Getenv: hEnv(nil), ProjectDir: proj})
	if len(s.Warnings) == 0 {
		t.Fatal("the project file named by ProjectDir was not read")
	}
}

// TestHalfLivesConfigLayers: the per-type half-lives come from the config
// file (an object that overrides only the types it names), the
// environment and flags; bad keys and values are named.
func TestHalfLivesConfigLayers(t *testing.T) {
	home := t.TempDir()
	hWriteFile(t, home+"/config.json", `{"memory":{"extended":{"decay_half_life_days":20,"decay_half_life_days_by_type":{"decision":400,"question":5}}}}`)
	s, err := config.Load(config.LoadOptions{Home: home, Getenv: hEnv(map[string]string{"ODEK_MEMORY_EXTENDED_DECAY_HALF_LIFE_DAYS_BY_TYPE": "goal=0"}), ProjectDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	c := s.Extended
	for typ, want := range map[string]float64{"decision": 400, "question": 5, "goal": 0, "fact": 1095, "intent": 20, "observation": 20, "file": 90} {
		if got := c.HalfLifeFor(memcore.Atom{Type: memcore.Type(typ)}); got != want {
			t.Errorf("half-life of %s = %v, want %v", typ, got, want)
		}
	}
	for _, bad := range []string{`{"decision":-1}`, `{"widget":10}`, `[1,2]`} {
		hWriteFile(t, home+"/config.json", `{"memory":{"extended":{"decay_half_life_days_by_type":`+bad+`}}}`)
		_, err := config.Load(config.LoadOptions{Home: home, Getenv: hEnv(nil), ProjectDir: t.TempDir()})
		if err == nil || !strings.Contains(err.Error(), "decay_half_life_days_by_type") {
			t.Errorf("%s: error %v does not name the field", bad, err)
		}
	}
	hWriteFile(t, home+"/config.json", `{}`)
	for _, bad := range []string{"goal", "goal=soon", "decision=1,intent"} {
		_, err := config.Load(config.LoadOptions{Home: home, Getenv: hEnv(map[string]string{"ODEK_MEMORY_EXTENDED_DECAY_HALF_LIFE_DAYS_BY_TYPE": bad}), ProjectDir: t.TempDir()})
		if err == nil || !strings.Contains(err.Error(), "decay_half_life_days_by_type") {
			t.Errorf("environment %q: error %v does not name the field", bad, err)
		}
	}
	out, err := json.Marshal(c)
	if err != nil || !strings.Contains(string(out), `"decay_half_life_days_by_type":{`) {
		t.Fatalf("config JSON %s %v", out, err)
	}
}
