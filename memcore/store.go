package memcore

import (
	"context"
	"time"

	"github.com/odekmem/odekmem/internal/bridge"
	"github.com/odekmem/odekmem/internal/engine"
	"github.com/odekmem/odekmem/internal/mirror"
	"github.com/odekmem/odekmem/memcore/embed"
	"github.com/odekmem/odekmem/memcore/guard"
	"github.com/odekmem/odekmem/memcore/llm"
)

// Embedder turns text into L2-normalised vectors; see package embed.
type Embedder = embed.Embedder

// LLMClient is the memory LLM: one chat-completion call. Agents can hand
// in their own client; see package llm for the OpenAI-compatible one.
type LLMClient = llm.Client

// Options configure Open.
type Options struct {
	// Config is memory.extended; nil means DefaultConfig(), and zero
	// fields of a literal Config take their defaults (see Config).
	Config *Config
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// Embedder, when set, is used instead of the one Config.Embedding
	// names.
	Embedder Embedder
	// LLM, when set, is used instead of the one Config.LLM names.
	LLM LLMClient
	// Guard is an optional second opinion (package guard) on text the
	// local scanner passes on a tainted or inferred path. nil means none.
	Guard *guard.Guard
	// LockTimeout bounds the wait for the store's lock file while another
	// process holds it; zero means 30 s.
	LockTimeout time.Duration
}

// Store is one Extended Memory store: a directory in the format odek
// writes. Its methods are safe for concurrent use, and other processes
// (odek, odekmem, a second agent) may use the same directory at once.
type Store struct {
	e *engine.Store
}

func init() {
	bridge.Engine = func(v any) *engine.Store {
		if s, ok := v.(*Store); ok && s != nil {
			return s.e
		}
		return nil
	}
}

// Open opens the store in dir (the extended/ directory of odek's memory,
// usually ~/.odek/memory/extended), creating it if needed, and builds the
// embedder and memory LLM the Config names unless Options overrides them.
// Damage never prevents opening: intact atoms load and damaged files are
// moved into dir/corrupt/. A bad Config value is ErrInvalidConfig naming
// the field.
func Open(dir string, opts Options) (*Store, error) {
	eo := engine.Options{Now: opts.Now, Embedder: opts.Embedder, LLM: opts.LLM, Guard: opts.Guard, LockTimeout: opts.LockTimeout}
	if opts.Config != nil {
		c, err := opts.Config.engine()
		if err != nil {
			return nil, err
		}
		eo.Config = &c
	}
	e, err := engine.Open(dir, eo)
	if err != nil {
		return nil, err
	}
	return &Store{e: e}, nil
}

// Add stores one atom. Its text is scanned and its secrets redacted
// before anything touches disk; a trusted source (SourceUserSaid,
// SourceUserApproved) makes it live and recallable unless the scanner
// blocks it, every other source puts it in quarantine (AddResult says
// which, and why). A text matching a live atom refreshes that atom.
func (s *Store) Add(ctx context.Context, req AddRequest) (AddResult, error) {
	r, err := s.e.Add(ctx, mirror.Convert[engine.AddRequest](req))
	return mirror.Convert[AddResult](r), err
}

// Search returns the live atoms most relevant to query, best first, ranked
// by 0.6·similarity + 0.4·retention behind the min-score gate. Quarantined
// atoms are never searched.
func (s *Store) Search(ctx context.Context, query string, opts SearchOptions) ([]Scored, error) {
	r, err := s.e.Search(ctx, query, mirror.Convert[engine.SearchOptions](opts))
	return mirror.Convert[[]Scored](r), err
}

// Recall is Search shaped for a prompt: the atoms that fit
// memory_budget_chars, rescanned, as the text block to inject.
func (s *Store) Recall(ctx context.Context, message string, opts SearchOptions) (Block, error) {
	b, err := s.e.Recall(ctx, message, mirror.Convert[engine.SearchOptions](opts))
	return mirror.Convert[Block](b), err
}

// Get returns an atom by id, live or quarantined (quarantined is then
// true: it is never recalled until a person promotes it). An unknown id
// is ErrNotFound, a string that cannot be an id ErrInvalidID.
func (s *Store) Get(id string) (a Atom, quarantined bool, err error) {
	ea, q, err := s.e.Get(id)
	return mirror.Convert[Atom](ea), q != nil, err
}

// Forget removes an atom, live or quarantined, with its chunk, vector and
// links.
func (s *Store) Forget(ctx context.Context, id string) error {
	_, _, err := s.e.Forget(ctx, id)
	return err
}

// Close waits for the store's background work, then releases it; close
// every Hook over the store first. Afterwards every method returns
// ErrClosed.
func (s *Store) Close() error { return s.e.Close() }
