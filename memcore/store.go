package memcore

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"sync"
	"time"

	"github.com/odekmem/odekmem/internal/disk"
	"github.com/odekmem/odekmem/internal/guard"
	"github.com/odekmem/odekmem/internal/index"
	"github.com/odekmem/odekmem/internal/lockfile"
	"github.com/odekmem/odekmem/internal/scan"
	"github.com/odekmem/odekmem/memcore/llm"
)

// File names inside the store directory (FORMATS.md).
const (
	fileAtoms        = "atoms.json"
	fileQuarantine   = "quarantine.json"
	fileUserModel    = "user_model.json"
	fileAssoc        = "associations.json"
	fileAssocKinds   = "associations_kinds.json"
	fileVectorsMeta  = "vectors_meta.json"
	fileLockName     = ".lock"
	dirChunks        = "chunks"
	dirCorrupt       = "corrupt"
	chunkExt         = ".md"
	maxChunkReadSize = 1 << 20
)

// Options configures Open. The zero Options is a store with the default
// Config, the offline hash embedder and no memory LLM (the offline
// judgement extracts, rules predict; see package memcore/llm). memcore builds no
// clients itself: package memcore/openai has an embedder and a memory LLM
// for OpenAI-compatible servers, to pass here.
type Options struct {
	// Config is memory.extended; nil, like every zero field of a Config,
	// means the defaults (see Config).
	Config *Config
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// Embedder embeds atom texts and queries; nil means the offline hash
	// embedder. Changing it (a new Fingerprint) re-embeds the store at the
	// next open.
	Embedder Embedder
	// LLM is the memory LLM; nil means none: every task falls back to its
	// offline behaviour.
	LLM llm.Client
	// Guard is the optional second opinion: text the local
	// scanner passes on a tainted or inferred path, and every promote of
	// a flagged entry, gets its verdict. Text it judges an injection waits
	// in quarantine with the reason "scan_rejected: guard: …" (the guard's
	// own words are not kept). nil means none. odekmem builds it from the
	// guard settings of its config file; its type is internal to this
	// module, so an agent program leaves it nil (the scanner still runs).
	Guard *guard.Guard
	// LockTimeout bounds the wait for the store's lock file while another
	// process holds it; zero means 30 s. The ctx of
	// each call can end the wait sooner.
	LockTimeout time.Duration
}

// Problem is one piece of damage found while opening or reloading a store.
type Problem struct {
	File    string `json:"file"`
	Problem string `json:"problem"`
	Action  string `json:"action"`
}

func (p Problem) String() string {
	return fmt.Sprintf("%s: %s (%s)", p.File, p.Problem, p.Action)
}

// QuarantinedAtom is an atom held back from recall until a person promotes
// it, with why and since when.
type QuarantinedAtom struct {
	Atom
	QuarantinedAt time.Time `json:"quarantined_at"`
	Reason        string    `json:"reason"`
	// orig is the entry as read from quarantine.json, for its unknown
	// fields.
	orig []byte
}

// quarEntry is a QuarantinedAtom in quarantine.json, with the unknown
// fields it was read with.
type quarEntry QuarantinedAtom

// MarshalJSON writes the entry with the unknown fields it was read with.
func (q quarEntry) MarshalJSON() ([]byte, error) {
	b, err := json.Marshal(QuarantinedAtom(q))
	if err != nil {
		return nil, err
	}
	return keepUnknown(b, q.orig, schemaOf(reflect.TypeFor[QuarantinedAtom]())), nil
}

// ExpiresAt is when the TTL removes the entry; zero when TTL is disabled
// and for a recovered entry (the person's own note whose record was lost
// waits until they review it).
func (q QuarantinedAtom) ExpiresAt(ttlDays float64) time.Time {
	if ttlDays <= 0 || q.SourceClass == SourceRecovered {
		return time.Time{}
	}
	return q.QuarantinedAt.Add(time.Duration(ttlDays * 24 * float64(time.Hour)))
}

// expired reports whether the entry is past its TTL at now.
func (q *QuarantinedAtom) expired(ttlDays float64, now time.Time) bool {
	exp := q.ExpiresAt(ttlDays)
	return !exp.IsZero() && now.After(exp)
}

type entry struct {
	atom Atom
	raw  []byte // record bytes as laid out inside atoms.json; nil → marshal
	orig []byte // the record as read, for its unknown fields (nil: ours)
	norm string // textutil.Normalize(atom.Text), computed on first use
	// normH is textutil.NormalHash(atom.Text) once normHashed.
	normH      uint64
	normHashed bool

	// Incremental size accounting (see track).
	recLen, cacheLen int64
	words            int32  // what the cache's postings are estimated from (entryWords), -1 until known
	lazyGen          uint32 // == sizes.lazyGen: the chunk is counted in sizes.lazySum
	tracked          bool
}

// sizes is the store's allocated-size accounting: per-file usage, and
// incremental counts of what the live atoms add to atoms.json and to the
// vector cache and what each quarantine entry adds to quarantine.json
// (see projectedLocked).
type sizes struct {
	usage                map[string]int64 // rel path → allocated bytes
	usageSum             int64            // sum of usage
	recBytes, cacheBytes int64
	// cacheWords sums the live atoms' entryWords (stale after a load until
	// a write needs it); lexRatio is the cache's lexical bytes per word,
	// measured on the last snapshot written or read (0: not yet;
	// loadedLex is the loaded one's).
	cacheWords int64
	wordsStale bool
	lexRatio   float64
	loadedLex  index.LexSize
	quarSizes  map[*QuarantinedAtom]int64
	blockSz    int64 // the file system's allocation unit
	blockKnown bool  // blockSz was asked of the file system
	// lazySum is the estimate of the chunks of the entries of the last
	// load marked with lazyGen, which are not in usage (estimateLocked).
	lazySum int64
	lazyGen uint32
}

// derived are indexes over the live atoms, rebuilt on demand.
type derived struct {
	normIdx  map[uint64]*entry // textutil.NormalHash → newest live atom; nil = rebuild
	normDups int               // texts held by more than one live atom

	// evictIdx holds the live atoms by ascending retention, one list per
	// half-life (atoms of one half-life keep their order as time passes;
	// atoms of different half-lives do not); nil = rebuild.
	evictIdx   map[float64][]*entry
	evictStale int // entries in evictIdx that left the store
}

// Store is an open extended-memory directory. All methods are safe for
// concurrent use, within a process and across processes sharing the
// directory: a reader holds the store's lock file shared and a writer
// exclusively (flock, LockFileEx on Windows), and each reloads whatever
// another process changed before it reads or modifies anything.
type Store struct {
	dir  string
	cfg  settings      // the Config as Open resolved it
	hl   halfLifeTable // cfg's half-life per atom type
	now  func() time.Time
	opts Options

	mu      sync.RWMutex
	files   *disk.Dir // the store's files: reads, atomic writes, corrupt/
	lock    *lockfile.Lock
	closed  bool
	closing bool // Close has begun: no new background work starts

	order []*entry
	byID  map[string]*entry
	// deferOrder is set while AddBatch commits: evicted entries stay in
	// order (not in byID) until compactOrderLocked; orderGone counts them.
	deferOrder bool
	orderGone  int
	quar       []*QuarantinedAtom
	model      UserModel
	graph      *assocGraph
	// contra are the recorded contradictions (contradictions.json).
	contra []Contradiction

	sigs  map[string]disk.Sig
	gen   uint64  // write generation last seen in the lock file
	size  sizes   // allocated-size accounting
	dup   derived // the duplicate and eviction indexes
	wrote bool    // a file changed during the current write

	problems []Problem
	reported map[string]bool

	vec *index.State

	chunkNames   map[string]bool  // chunk file names seen by the last full check (nil: that load was not one)
	atomsDamaged bool             // the last repairing load found atoms.json damaged: orphan chunks are adopted at once
	chunkSize    map[string]int64 // their allocated sizes (during that load)
	freshOrphans bool             // the last full check left chunks without metadata for a later one
	fullNext     bool             // the next repairing load is a full check (Compact)

	bg sync.WaitGroup // background compactions
	// bgCtx is the background compactions' context; Close cancels it.
	bgCtx    context.Context
	bgCancel context.CancelFunc
	// hooks are the Hooks NewHook made on this store: Close closes them.
	hooks map[*Hook]bool

	verdicts scan.Verdicts // the final scan's verdicts before text reaches a prompt

	// own holds the live atoms this process wrote in the last ownWindow,
	// to re-add any that a writer without the lock (odek) drops by
	// rewriting atoms.json from an older read (see readdOwnLocked).
	own map[string]*ownRecord
	// assocExtra holds members of associations.json that are not link
	// lists (another writer's), written back as read.
	assocExtra   map[string]json.RawMessage
	readdPending bool // a non-repairing load re-added some: write them
}

// Dir is the store directory (…/memory/extended).
func (s *Store) Dir() string { return s.dir }

// Config is the configuration the store was opened with, written out:
// every number at the value the store uses (0 where its No… switch is on),
// so Open with it opens the same store.
func (s *Store) Config() Config { return configOf(s.cfg.Extended) }

// Open opens (creating if needed) the store in dir. Damage never prevents
// opening: intact atoms load, damaged pieces are moved into dir/corrupt/
// and reported by Problems. ctx bounds the open: the wait for the lock file
// (also bounded by Options.LockTimeout) and the embedding of atoms the
// vector cache lacks, a network call with an HTTP embedder; it is not kept
// afterwards.
func Open(ctx context.Context, dir string, opts Options) (*Store, error) {
	var c Config
	if opts.Config != nil {
		c = *opts.Config
	}
	if err := c.Validate(); err != nil {
		return nil, err
	}
	cfg := settings{c.extended()}
	emb := indexEmbedder(opts.Embedder)
	now := opts.Now
	if now == nil {
		now = time.Now
	}
	s := &Store{dir: dir, cfg: cfg, hl: cfg.halfLifeTable(), now: now, opts: opts, byID: map[string]*entry{}, graph: newAssocGraph(),
		sigs: map[string]disk.Sig{}, size: sizes{usage: map[string]int64{}, blockSz: 4096}, reported: map[string]bool{}}
	s.bgCtx, s.bgCancel = context.WithCancel(context.Background())
	s.files = &disk.Dir{Path: dir, Now: now, Report: s.report, Changed: func() { s.wrote = true }}
	// Only the directory itself: chunks/ is checked (never followed as a
	// link) before the first load creates it.
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("create store %s: %w", dir, err)
	}
	// The directory is checked before anything is written into it: a
	// store of another user, or one left writable by others, is refused
	// without a lock file of ours appearing in it (the sweep under the
	// lock checks it again with everything else).
	if err := s.checkDirLocked(dir, true, false); err != nil {
		return nil, err
	}
	l, err := openLock(filepath.Join(dir, fileLockName), opts.LockTimeout)
	if err != nil {
		return nil, err
	}
	s.lock = l
	s.vec = index.New(cfg.Index, emb)
	if err := s.lock.Lock(ctx, true); err != nil {
		l.Close()
		return nil, err
	}
	s.gen = s.lock.Generation()
	s.startVectorLoad()
	err = s.loadAllLocked(true)
	s.finishVectorLoad()
	s.lock.Unlock()
	if err == nil {
		// Without the file lock: filling the index may embed texts the
		// cache lacks (a network call with an HTTP embedder).
		err = s.vec.Open(ctx, liveAtoms{s})
	}
	if err != nil {
		l.Close()
		return nil, err
	}
	return s, nil
}

// Close closes the Hooks made on the store — each waits for its running
// user-state inference until ctx ends, then cancels it — cancels the
// store's background work (a compaction, an index build) and waits for it
// to return, then releases the lock file. The store is closed whatever
// ctx does; Close reports ctx's error when ctx ended before a Hook's
// inference finished. Afterwards every method that reads or writes the
// store returns ErrClosed (Dir, Config, Now and Problems still answer).
// Closing a Hook first is allowed, not required; closing twice returns nil.
func (s *Store) Close(ctx context.Context) error {
	if ctx == nil {
		ctx = context.Background()
	}
	s.mu.Lock()
	if s.closed || s.closing {
		s.mu.Unlock()
		return nil
	}
	// Background compactions start only inside a write, under mu, while
	// the store is not closing: none starts after this.
	s.closing = true
	hooks := s.hooks
	s.hooks = nil
	s.mu.Unlock()
	// The Hooks made on this store stop first: their background inference
	// (bounded by hook_timeout_seconds) ends before the store it writes.
	var herr error
	for h := range hooks {
		if err := h.Close(ctx); err != nil && herr == nil {
			herr = err
		}
	}
	// A background compaction is cancelled (it commits whole or not at
	// all) rather than awaited to its end.
	s.bgCancel()
	s.bg.Wait()
	s.mu.Lock()
	s.flushVectorsLocked()
	s.closed = true
	s.mu.Unlock()
	s.vec.Close()
	s.mu.Lock()
	defer s.mu.Unlock()
	return errors.Join(herr, s.lock.Close())
}

func (s *Store) isClosed() bool {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.closed
}

// Problems returns the damage found since open, each reported once.
func (s *Store) Problems() []Problem {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return append([]Problem(nil), s.problems...)
}

func (s *Store) report(file, problem, action string) {
	key := file + "\x00" + problem
	if s.reported[key] {
		return
	}
	s.reported[key] = true
	s.problems = append(s.problems, Problem{File: file, Problem: problem, Action: action})
}

func (s *Store) tracked() []string {
	return []string{fileAtoms, fileQuarantine, fileUserModel, fileAssoc, fileAssocKinds, fileContradictions}
}

// changedLocked reports whether any tracked file differs from what this
// process last read or wrote.
func (s *Store) changedLocked() bool {
	if s.lock.Generation() != s.gen {
		return true
	}
	for _, f := range s.tracked() {
		if disk.StatSig(filepath.Join(s.dir, f)) != s.sigs[f] {
			return true
		}
	}
	return false
}

// syncLocked reloads the metadata from disk when another process changed
// the store and reports whether it did; the caller then reconciles the
// vector index (reconcileVectorsLocked) after releasing the file lock, because
// that may embed texts, a network call with an HTTP embedder. The caller
// holds s.mu (write) and the file lock.
func (s *Store) syncLocked(repair bool) (bool, error) {
	if !s.changedLocked() && !(repair && s.needFullCheckLocked()) {
		return false, nil
	}
	s.gen = s.lock.Generation()
	if err := s.loadAllLocked(repair); err != nil {
		return true, err
	}
	return true, nil
}

// withWriteCtx runs fn holding the process mutex and the exclusive file
// lock, after reloading anything another process changed; the wait for the
// file lock ends with ctx. The vector index catches up with such a reload
// after both locks are released, with ctx: until then write-time dedup may
// miss the other process's atoms, which is all. Writes go through update,
// which runs fn with a tx.
func (s *Store) withWriteCtx(ctx context.Context, fn func() error) error {
	embed, err := s.withWriteLocked(ctx, fn)
	if cerr := s.vec.CatchUp(ctx, embed); err == nil {
		err = cerr
	}
	return err
}

func (s *Store) withWriteLocked(ctx context.Context, fn func() error) (func(context.Context) error, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil, ErrClosed
	}
	if err := s.lock.Lock(ctx, true); err != nil {
		return nil, err
	}
	s.wrote = false
	reloaded, err := s.syncLocked(true)
	if err == nil {
		err = fn()
	}
	// Whatever was written (even by a write that failed half-way), other
	// processes must reload before their next read-modify-write.
	if s.wrote {
		s.gen = s.lock.Bump()
		// chunks/ was as a full check saw it (syncLocked made sure):
		// what this write changed there is odekmem's own.
		s.recordCheckLocked(false)
	}
	s.lock.Unlock()
	var embed func(context.Context) error
	if reloaded || s.vec.Stale() {
		var rerr error
		if embed, rerr = s.reconcileVectorsLocked(); err == nil {
			err = rerr
		}
	}
	return embed, err
}

// Refresh reloads the store if another process changed it and reports
// whether anything changed (every read reloads anyway: Refresh is for a
// surface that redraws only on change). Like every method that reads or
// writes, it waits for another process's lock until ctx ends or
// Options.LockTimeout passes, whichever comes first.
func (s *Store) Refresh(ctx context.Context) (bool, error) { return s.refresh(ctx) }

// refresh is Refresh whose waits (the shared file lock, the embedding of
// atoms another process added) end with ctx.
func (s *Store) refresh(ctx context.Context) (bool, error) {
	changed, embed, err := s.refreshLocked(ctx)
	if cerr := s.vec.CatchUp(ctx, embed); err == nil {
		err = cerr
	}
	return changed, err
}

func (s *Store) refreshLocked(ctx context.Context) (bool, func(context.Context) error, error) {
	// Readers check for another process's change under the shared lock,
	// so concurrent readers (serve, MCP over HTTP) do not queue; only a
	// change takes the exclusive lock and reloads.
	s.mu.RLock()
	closed, unchanged := s.closed, !s.closed && !s.changedLocked() && !s.vec.Stale()
	s.mu.RUnlock()
	if closed {
		return false, nil, ErrClosed
	}
	if unchanged {
		return false, nil, nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return false, nil, ErrClosed
	}
	if !s.changedLocked() {
		if s.vec.Stale() {
			embed, err := s.reconcileVectorsLocked()
			return false, embed, err
		}
		return false, nil, nil
	}
	if err := s.lock.Lock(ctx, false); err != nil {
		return false, nil, err
	}
	if !s.changedLocked() {
		s.lock.Unlock()
		return false, nil, nil
	}
	s.gen = s.lock.Generation()
	err := s.loadAllLocked(false)
	s.lock.Unlock()
	if err != nil {
		return false, nil, err
	}
	if s.readdPending {
		// Atoms of ours another writer dropped: write them back now.
		if err := s.lock.Lock(ctx, true); err != nil {
			return true, nil, err
		}
		s.wrote = false
		s.readdPending = false
		if _, err = s.syncLocked(true); err == nil && s.readdPending {
			err = s.writeAtomsLocked()
		}
		s.readdPending = false
		if s.wrote {
			s.gen = s.lock.Bump()
		}
		s.lock.Unlock()
		if err != nil {
			return true, nil, err
		}
	}
	embed, err := s.reconcileVectorsLocked()
	return true, embed, err
}

// read runs fn under the read lock after refreshing from disk; after Close
// it returns ErrClosed without running fn, and a failed reload (the wait
// for the shared lock timed out) returns its error. Embedding atoms another
// process added is not a read's business: it is left to the next search
// or write, which does it with its caller's ctx.
func (s *Store) read(ctx context.Context, fn func()) error {
	_, embed, err := s.refreshLocked(ctx)
	if err != nil {
		return err
	}
	if embed != nil {
		s.vec.MarkStale()
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	if s.closed {
		return ErrClosed
	}
	fn()
	return nil
}
