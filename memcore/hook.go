package memcore

import (
	"context"
	"fmt"
	"path"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/odekmem/odekmem/internal/llm"
	"github.com/odekmem/odekmem/internal/scan"
)

// Hook is what an agent calls each turn. BeforeTurn returns the blocks to
// inject into the system prompt (style guidance, user state, a
// return-after-break note, extended-memory atoms — the agent owns frozen
// facts, the buffer and episodes), the resolved message and the predicted
// intents. RecordUserMessage runs per-turn extraction over the person's
// message, applies inline approvals, links associations and keeps the
// user-state inference cadence.
//
// Every LLM call is bounded by the hook timeout and fails soft: a broken or
// slow memory LLM degrades to rule-based behaviour and a warning, never to
// an error in the agent's turn. A Hook is safe for concurrent use.
type Hook struct {
	store   *Store
	llm     llm.Client
	cfg     settings
	timeout time.Duration
	now     func() time.Time

	mu       sync.Mutex
	sessions *sessionLRU
	focus    string // normalised project of the last inference
	closed   bool   // set by Close under mu; no background work starts after

	// bgCtx is the context of the Hook's background work; Close cancels
	// it when its own ctx ends before that work finishes.
	bgCtx    context.Context
	bgCancel context.CancelFunc

	inferring atomic.Bool
	inferWG   sync.WaitGroup
	warnMu    sync.Mutex
	warnings  []string
}

type sessionState struct {
	turn     int
	recent   []string
	lastTime time.Time
	project  string
	resumed  bool
	// mark is where the person's previous message left the quarantine:
	// the window an inline approval covers starts there (approval.go).
	mark *approvalMark
}

// NewHook returns the per-turn hook over a store. It uses the store's
// memory LLM (none: rules) and bounds each LLM call in a turn by
// Config.HookTimeoutSeconds.
func NewHook(s *Store) *Hook {
	c := s.opts.LLM
	t := time.Duration(s.cfg.HookTimeoutSeconds * float64(time.Second))
	if t <= 0 {
		t = 30 * time.Second
	}
	bg, cancel := context.WithCancel(context.Background())
	h := &Hook{store: s, llm: c, cfg: s.cfg, timeout: t, now: s.now, sessions: newSessionLRU(maxHookSessions),
		bgCtx: bg, bgCancel: cancel}
	s.mu.Lock()
	if s.hooks == nil {
		s.hooks = map[*Hook]bool{}
	}
	s.hooks[h] = true
	s.mu.Unlock()
	return h
}

// Close stops the Hook: no background work starts afterwards, and Close
// waits for the running user-state inference to finish. When ctx ends
// first, Close cancels that work, waits for it to return and reports
// ctx's error. After Close, RecordUserMessage returns ErrClosed and
// BeforeTurn returns only the message. Store.Close closes the Hooks made on
// it.
func (h *Hook) Close(ctx context.Context) error {
	h.mu.Lock()
	h.closed = true
	h.mu.Unlock()
	h.store.mu.Lock()
	delete(h.store.hooks, h)
	h.store.mu.Unlock()
	done := make(chan struct{})
	// Not a pool: turns the wait for inferWG into a channel ctx can race.
	go func() {
		h.inferWG.Wait()
		close(done)
	}()
	select {
	case <-done:
		h.bgCancel()
		return nil
	case <-ctx.Done():
		if !h.inferring.Load() {
			// Nothing was running (at most a finished goroutine's last
			// defers): ctx ended before nothing, so no error.
			<-done
			h.bgCancel()
			return nil
		}
		h.bgCancel()
		<-done
		return ctx.Err()
	}
}

func (h *Hook) isClosed() bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.closed
}

// Turn is what the agent knows about the turn it is in: the Hook's calls
// and the memory Tool's calls take the same value. Provenance is decided
// from it, never from a model's arguments.
type Turn struct {
	// Message is the person's current message, verbatim.
	Message string
	// Earlier are the person's earlier messages in this session that
	// they typed, newest first (a hook's session log keeps them). The
	// memory tool's add_atom accepts a verbatim span of any of them as the
	// person's words, as it does of Message.
	Earlier []string
	// SessionID groups turns; it also scopes what the memory tool may
	// forget or pin (only atoms it added in the same session).
	SessionID string
	// Project is the working directory or project name; memcore compares
	// projects by their lower-cased base name.
	Project string
	// TurnIndex is the turn within the session; 0 lets the Hook count.
	TurnIndex int
	// Time is when the message was sent; zero means now.
	Time time.Time
	// PreviousMessageAt is when the person's previous message in this
	// session was recorded, on the store's clock. A caller that does not
	// keep one Hook alive across turns (a hook process per prompt) passes
	// it so that an inline approval knows which entries answer it; zero
	// means the Hook's own record. When neither is known, a bare inline
	// approval approves nothing.
	PreviousMessageAt time.Time
}

// TurnContext is what BeforeTurn returns.
type TurnContext struct {
	// Message is the message after untrusted wrappers were stripped and
	// the first pronoun resolved (when that applied).
	Message  string `json:"message"`
	Resolved bool   `json:"resolved"`
	// Blocks are the texts to inject, in the design's order.
	Blocks      []string `json:"blocks"`
	StyleBlock  string   `json:"style_block,omitempty"`
	UserState   string   `json:"user_state_block,omitempty"`
	ResumeBlock string   `json:"resume_block,omitempty"`
	Memory      Block    `json:"memory"`
	Intents     []string `json:"intents,omitempty"`
	// Reranked is true when the memory LLM's order decided the atoms' order.
	Reranked bool `json:"reranked"`
	// Warnings are soft failures (LLM down, scan drops) worth logging.
	Warnings []string `json:"warnings,omitempty"`
}

func (h *Hook) session(t Turn) *sessionState {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.sessions.get(t.SessionID)
}

func (h *Hook) llmCtx(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(ctx, h.timeout)
}

// BeforeTurn builds the context for one user message. It never fails: any
// step that errors is skipped and reported in Warnings.
func (h *Hook) BeforeTurn(ctx context.Context, t Turn) TurnContext {
	var tc TurnContext
	warn := func(format string, a ...any) {
		tc.Warnings = append(tc.Warnings, scanRedact(fmt.Sprintf(format, a...)))
	}
	msg := strings.TrimSpace(scan.StripUntrusted(t.Message))
	tc.Message = msg
	if h.isClosed() {
		warn("memory hook is closed")
		return tc
	}
	now := t.Time
	if now.IsZero() {
		now = h.now()
	}
	st := h.session(t)
	h.mu.Lock()
	recent := append([]string(nil), st.recent...)
	h.mu.Unlock()
	model, err := h.store.UserModel(ctx)
	if err != nil {
		warn("user model: %v", err)
		return tc
	}

	// Anaphora resolution against recent trusted atoms. Its search runs in
	// one pass with the literal searches of the message, which are kept
	// for recall when the message stays as it is.
	var pre *literalResults
	if h.cfg.AnaphoraResolutionEnabled && msg != "" && llm.HasReferentialPronoun(msg) {
		out, ok, lit, err := h.resolveAnaphora(ctx, msg, t, now)
		if err != nil {
			warn("anaphora: %v", err)
		}
		if ok {
			tc.Message, tc.Resolved = out, true
		} else {
			pre = lit
		}
	}

	// Style guidance and the user-state block come from confirmed values
	// only; pending inferences never reach a prompt.
	if h.cfg.StyleMirroringEnabled {
		tc.StyleBlock = h.styleBlock(model, warn)
	}
	if h.cfg.InferUserState {
		tc.UserState = h.userStateBlock(model, warn)
	}
	if h.cfg.ProactiveReturnAfterBreak {
		tc.ResumeBlock = h.resumeBlock(ctx, t, st, now, warn)
	}

	atoms, intents, reranked, err := h.recall(ctx, tc.Message, recent, model, t, warn, pre)
	if err != nil {
		warn("recall: %v", err)
	}
	tc.Intents, tc.Reranked = intents, reranked
	tc.Memory = h.store.renderBlock(atoms)
	for _, w := range tc.Memory.Warnings {
		warn("%s", w)
	}
	for _, b := range []string{tc.StyleBlock, tc.UserState, tc.ResumeBlock, tc.Memory.Text} {
		if b != "" {
			tc.Blocks = append(tc.Blocks, b)
		}
	}
	return tc
}

// projectKey normalises a project for comparison: odek stores a working
// directory in atoms and a name in the model, so compare base names.
func projectKey(p string) string {
	p = strings.TrimRight(strings.TrimSpace(p), "/\\")
	if p == "" {
		return ""
	}
	// Either separator, whatever OS wrote the atom (odek on Windows
	// stores C:\src\app).
	return strings.ToLower(path.Base(strings.ReplaceAll(p, "\\", "/")))
}

// RecordResult reports what RecordUserMessage stored.
type RecordResult struct {
	Added     []AddResult `json:"added"`
	Promoted  []string    `json:"promoted,omitempty"`
	Links     int         `json:"links"`
	Inference bool        `json:"inference_started"`
	Extractor string      `json:"extractor"` // "llm" or "judge" (offline)
	// Lane holds the candidates the judgement was not sure about: they
	// wait for the person (Store.Lane, Keep, Drop), never recalled.
	Lane        []LaneEntry `json:"lane,omitempty"`
	Warnings    []string    `json:"warnings,omitempty"`
	Approval    bool        `json:"approval,omitempty"`
	SkippedTurn bool        `json:"skipped,omitempty"`
	// Contradictions are older atoms the new ones superseded, waiting for
	// the person (see Store.Contradictions).
	Contradictions []Contradiction `json:"contradictions,omitempty"`
}

// RecordUserMessage runs the per-turn pipeline over one message from the
// person: strip untrusted wrappers, apply inline approvals ("odek, remember
// that"), extract atoms (memory LLM, or rules when none is configured or it
// fails), scan, store as user_said, link associations and start user-state
// inference on its cadence.
func (h *Hook) RecordUserMessage(ctx context.Context, t Turn) (RecordResult, error) {
	rrs, err := h.RecordUserMessages(ctx, []Turn{t})
	return rrs[0], err
}
