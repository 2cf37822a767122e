// Package config layers odek's configuration for the odekmem binary:
// ~/.odek/config.json, the project's odek.json, ODEK_* environment
// variables and --memory-extended-* flags, into a memcore.Config, and
// builds the memory LLM and the embedder it names (through memcore/openai)
// to pass to memcore.Open. The memcore library itself reads no
// configuration files or environment and builds no clients.
package config

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"math"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/odekmem/odekmem/internal/extcfg"
	"github.com/odekmem/odekmem/internal/guard"
	"github.com/odekmem/odekmem/memcore"
	"github.com/odekmem/odekmem/memcore/llm"
	"github.com/odekmem/odekmem/memcore/openai"
)

// configField is one key of odek's memory.extended object reachable from
// JSON, the environment and flags (extcfg.Extended is the one list).
type configField struct {
	key  string // json key, e.g. max_size_mb
	kind reflect.Kind
}

// scalarFields is the list, read from extcfg.Extended once (every flag
// and key lookup asks for it).
var scalarFields = sync.OnceValue(func() []configField {
	t := reflect.TypeOf(extcfg.Extended{})
	out := make([]configField, 0, t.NumField())
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		key, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		out = append(out, configField{key: key, kind: f.Type.Kind()})
	}
	return out
})

// Keys lists every memory.extended key (but llm and embedding) in odek's
// order.
func Keys() []string {
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

// Set assigns one memory.extended key of c from its string form, as the
// environment and flags give it, with odek's meaning of the value (see
// memcore.Config: "max_size_mb" 0 is no cap, "associations_enabled" false
// turns links off); decay_half_life_days_by_type takes type=days pairs
// separated by commas, laid over the current table. The error names the
// key and what it accepts.
func Set(c *memcore.Config, key, value string) error {
	for _, f := range scalarFields() {
		if f.key != key {
			continue
		}
		value = strings.TrimSpace(value)
		var v any
		switch f.kind {
		case reflect.Bool:
			b, err := strconv.ParseBool(value)
			if err != nil {
				return fmt.Errorf("%w: memory.extended.%s = %q: allowed true or false", memcore.ErrInvalidConfig, key, value)
			}
			v = b
		case reflect.Int:
			n, err := strconv.Atoi(value)
			if err != nil {
				return fmt.Errorf("%w: memory.extended.%s = %q: allowed an integer", memcore.ErrInvalidConfig, key, value)
			}
			v = n
		case reflect.Float64:
			x, err := strconv.ParseFloat(value, 64)
			if err != nil || math.IsNaN(x) || math.IsInf(x, 0) {
				return fmt.Errorf("%w: memory.extended.%s = %q: allowed a number", memcore.ErrInvalidConfig, key, value)
			}
			v = x
		case reflect.Map:
			m, err := extcfg.ParsePairs(value)
			if err != nil {
				return fmt.Errorf("%w: memory.extended.%s = %q: %v", memcore.ErrInvalidConfig, key, value, err)
			}
			v = m
		default:
			v = value
		}
		b, err := json.Marshal(map[string]any{key: v})
		if err == nil {
			err = json.Unmarshal(b, c)
		}
		if err != nil {
			return fmt.Errorf("%w: memory.extended.%s = %q: %v", memcore.ErrInvalidConfig, key, value, err)
		}
		return nil
	}
	return fmt.Errorf("%w: unknown key memory.extended.%s", memcore.ErrInvalidConfig, key)
}

// setSection decodes the memory.extended section key into *dst; null
// leaves *dst as it was.
func setSection[T any](dst **T, key string, msg json.RawMessage) error {
	var v T
	if err := json.Unmarshal(msg, &v); err != nil {
		return fmt.Errorf("%w: memory.extended.%s: %v", memcore.ErrInvalidConfig, key, err)
	}
	if string(msg) != "null" {
		*dst = &v
	}
	return nil
}

// applyJSON overlays the keys present in raw (a memory.extended object):
// the scalar keys on c, "llm" and "embedding" on *llmDst and *embDst.
// Keys that are present are honoured even when zero.
func applyJSON(c *memcore.Config, llmDst **LLMConfig, embDst **EmbeddingConfig, raw map[string]json.RawMessage, warn func(string)) error {
	known := map[string]configField{}
	for _, f := range scalarFields() {
		known[f.key] = f
	}
	for _, key := range slices.Sorted(maps.Keys(raw)) {
		msg := raw[key]
		switch key {
		case "llm":
			if err := setSection(llmDst, key, msg); err != nil {
				return err
			}
			continue
		case "embedding":
			if err := setSection(embDst, key, msg); err != nil {
				return err
			}
			continue
		}
		if _, ok := known[key]; !ok {
			if warn != nil {
				warn(fmt.Sprintf("unknown config key memory.extended.%s ignored", key))
			}
			continue
		}
		one, err := json.Marshal(map[string]json.RawMessage{key: msg})
		if err == nil {
			err = json.Unmarshal(one, c)
		}
		if err != nil {
			return fmt.Errorf("%w: memory.extended.%s: %v", memcore.ErrInvalidConfig, key, err)
		}
	}
	return nil
}

// LLMConfig is an OpenAI-compatible chat model as odek's configuration
// names it: memory.extended.llm, or the top-level model settings.
type LLMConfig struct {
	BaseURL        string  `json:"base_url,omitempty"`
	APIKey         string  `json:"api_key,omitempty"`
	Model          string  `json:"model,omitempty"`
	MaxTokens      int     `json:"max_tokens,omitempty"`
	Temperature    float64 `json:"temperature,omitempty"`
	TimeoutSeconds int     `json:"timeout_seconds,omitempty"`
	Thinking       bool    `json:"thinking,omitempty"`
}

// EmbeddingConfig is memory.extended.embedding (or memory.embedding):
// provider "hash" (the offline default; "local" and "" too) or "http"
// ("openai" and "ollama" too: an OpenAI-compatible /v1/embeddings).
type EmbeddingConfig struct {
	Provider string `json:"provider,omitempty"`
	BaseURL  string `json:"base_url,omitempty"`
	APIKey   string `json:"api_key,omitempty"`
	Model    string `json:"model,omitempty"`
	Dims     int    `json:"dims,omitempty"`
}

// Settings is everything odekmem reads from the layered configuration: the
// memory.extended section and the top-level model settings that the shared
// LLM client is built from.
type Settings struct {
	Home     string
	Extended memcore.Config
	// LLM is memory.extended.llm; nil when omitted.
	LLM *LLMConfig
	// Embedding is memory.extended.embedding; nil when omitted.
	Embedding *EmbeddingConfig
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
	if s.Embedding != nil {
		return *s.Embedding
	}
	if s.SharedEmbedding != nil {
		return *s.SharedEmbedding
	}
	return EmbeddingConfig{Provider: "hash"}
}

// MemoryLLM is the memory LLM's configuration: the dedicated
// memory.extended.llm when it names a model, otherwise the shared
// top-level model when it has a model and a base URL, otherwise nil (no
// memory LLM: rule-based fallbacks).
func (s Settings) MemoryLLM() *LLMConfig {
	switch l := s.LLM; {
	case l != nil && l.Model != "":
		c := *l
		return &c
	case s.Shared.Model != "" && s.Shared.BaseURL != "":
		c := s.Shared
		return &c
	}
	return nil
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

// sharedField is one top-level key of a config file that sets the shared
// model: whether the file sets it, and how it applies.
type sharedField struct {
	name  string
	set   bool
	apply func()
}

func field[T any](name string, v, dst *T) sharedField {
	return sharedField{name, v != nil, func() {
		if v != nil {
			*dst = *v
		}
	}}
}

// sharedFields lists the keys of fc that set the shared model l. Applying
// the user's file and refusing them in a project file walk this one list,
// so a key cannot be added to one and forgotten in the other.
func (fc fileConfig) sharedFields(l *LLMConfig) []sharedField {
	return []sharedField{
		field("model", fc.Model, &l.Model),
		field("base_url", fc.BaseURL, &l.BaseURL),
		field("api_key", fc.APIKey, &l.APIKey),
		field("thinking", fc.Thinking, &l.Thinking),
		field("max_tokens", fc.MaxTokens, &l.MaxTokens),
		field("temperature", fc.Temperature, &l.Temperature),
		field("timeout", fc.Timeout, &l.TimeoutSeconds),
	}
}

func (fc fileConfig) applyShared(l *LLMConfig) {
	for _, f := range fc.sharedFields(l) {
		f.apply()
	}
}

// LoadOptions says where the layers come from.
type LoadOptions struct {
	Home   string              // --home; overrides ODEK_HOME and ~/.odek
	Getenv func(string) string // nil = os.Getenv
	// ProjectDir is the directory whose odek.json is read; "" reads no
	// project file (the working directory is never consulted implicitly).
	ProjectDir string
	Flags      map[string]string // memory.extended key → value from --memory-extended-* flags
}

// Load merges ~/.odek/config.json, the project ./odek.json (which
// may not set memory, embedding or guard), ODEK_* environment variables and
// flags, in that order, and validates the result.
func Load(opts LoadOptions) (Settings, error) {
	getenv := opts.Getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	s := Settings{Extended: memcore.DefaultConfig()}
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

	if projDir := opts.ProjectDir; projDir != "" {
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
				for _, f := range fc.sharedFields(new(LLMConfig)) {
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
	for _, key := range Keys() {
		if v, ok := lookupEnv(getenv, EnvName(key)); ok {
			if err := Set(&s.Extended, key, v); err != nil {
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
				return s, fmt.Errorf("%w: %s=%q: %v", memcore.ErrInvalidConfig, e.name, v, err)
			}
		}
	}

	// Flags last.
	for _, key := range slices.Sorted(maps.Keys(opts.Flags)) {
		if err := Set(&s.Extended, key, opts.Flags[key]); err != nil {
			return s, fmt.Errorf("--%s: %w", FlagName(key), err)
		}
	}
	if err := s.Extended.Validate(); err != nil {
		return s, err
	}
	if err := s.EffectiveEmbedding().validate(); err != nil {
		return s, err
	}
	if l := s.LLM; (l == nil || l.Model == "") && s.Shared.Thinking && s.Shared.Model != "" && s.Shared.BaseURL != "" {
		warn(thinkingWarning(s.Shared.Model))
	}
	return s, nil
}

// thinkingWarning is the warning the design asks for when the memory
// layer runs on the shared model, which has thinking enabled, because no
// dedicated memory.extended.llm is configured.
func thinkingWarning(model string) string {
	return fmt.Sprintf("memory: model %q has thinking enabled and no dedicated memory.extended.llm is configured; "+
		"extraction and rerank may be slow and expensive", model)
}

// guardChat is the chat client of a guard of provider "openai".
func guardChat(baseURL, apiKey, model string, timeout time.Duration, hc *http.Client) (llm.Client, error) {
	return openai.NewChat(openai.ChatConfig{BaseURL: baseURL, APIKey: apiKey, Model: model, Timeout: timeout, HTTPClient: hc})
}

// validate names the first problem with an embedding configuration.
func (e EmbeddingConfig) validate() error {
	switch e.Provider {
	case "", "hash", "local", "http", "openai", "ollama":
	default:
		return fmt.Errorf("%w: memory.extended.embedding.provider = %q: allowed \"hash\", \"http\", \"openai\" or \"ollama\"", memcore.ErrInvalidConfig, e.Provider)
	}
	if e.Dims < 0 {
		return fmt.Errorf("%w: memory.extended.embedding.dims = %d: allowed an integer ≥ 0", memcore.ErrInvalidConfig, e.Dims)
	}
	return nil
}

// NewEmbedder builds the embedder a configuration names: "hash" (or empty,
// or "local") is memcore's offline feature-hashing embedder, at least 768
// dimensions wide; "http", "openai" and "ollama" use an OpenAI-compatible
// /v1/embeddings endpoint through memcore/openai (base URL default
// http://localhost:11434/v1, Ollama's).
func NewEmbedder(c EmbeddingConfig) (memcore.Embedder, error) {
	if err := c.validate(); err != nil {
		return nil, err
	}
	switch c.Provider {
	case "http", "openai", "ollama":
		base := c.BaseURL
		if base == "" {
			base = "http://localhost:11434/v1"
		}
		h, err := openai.NewEmbedder(openai.EmbedderConfig{BaseURL: base, APIKey: c.APIKey, Model: c.Model, Dims: c.Dims, Timeout: 30 * time.Second})
		if err != nil {
			return nil, fmt.Errorf("%w: memory.extended.embedding: %v", memcore.ErrInvalidConfig, err)
		}
		return h, nil
	}
	e, err := memcore.NewHashEmbedder(c.Dims)
	if err != nil {
		return nil, fmt.Errorf("memory.extended: %w", err)
	}
	return e, nil
}

// NewLLM builds the memory LLM a configuration names (an OpenAI-compatible
// chat endpoint, through memcore/openai); the model and the base URL are
// both required.
func NewLLM(c LLMConfig) (llm.Client, error) {
	cl, err := openai.NewChat(openai.ChatConfig{BaseURL: c.BaseURL, APIKey: c.APIKey, Model: c.Model, MaxTokens: c.MaxTokens,
		Temperature: c.Temperature, Timeout: time.Duration(c.TimeoutSeconds) * time.Second})
	if err != nil {
		return nil, fmt.Errorf("%w: memory.extended.llm: %v", memcore.ErrInvalidConfig, err)
	}
	return cl, nil
}

// StoreOptions are the memcore.Options every odekmem process opens the
// store with: memory.extended, the memory LLM (MemoryLLM) and the embedder
// (EffectiveEmbedding) built from the configuration, and the guard's
// second opinion when the guard section covers memory. now is the store's
// clock (nil: the real one); getenv resolves the guard's key variables
// (nil: the process environment).
func (s Settings) StoreOptions(now func() time.Time, getenv func(string) string) (memcore.Options, error) {
	if getenv == nil {
		getenv = os.Getenv
	}
	cfg := s.Extended
	opts := memcore.Options{Config: &cfg, Now: now}
	var err error
	if opts.Embedder, err = NewEmbedder(s.EffectiveEmbedding()); err != nil {
		return memcore.Options{}, err
	}
	if l := s.MemoryLLM(); l != nil {
		if opts.LLM, err = NewLLM(*l); err != nil {
			return memcore.Options{}, err
		}
	}
	if s.Guard.CoversMemory() {
		if opts.Guard, err = guard.New(s.Guard, getenv, nil, guardChat); err != nil {
			return memcore.Options{}, err
		}
	}
	return opts, nil
}

// OpenStore opens the store at dir the way every odekmem process does,
// with StoreOptions. The CLI, the MCP server, the per-prompt hook and
// serve all open through here, so none of them can skip the guard a
// person configured.
func (s Settings) OpenStore(ctx context.Context, dir string, now func() time.Time, getenv func(string) string) (*memcore.Store, error) {
	opts, err := s.StoreOptions(now, getenv)
	if err != nil {
		return nil, err
	}
	return memcore.Open(ctx, dir, opts)
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
		if err := applyJSON(&s.Extended, &s.LLM, &s.Embedding, ext, warn); err != nil {
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
