package memcore

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/odekmem/odekmem/internal/scan"
	"github.com/odekmem/odekmem/internal/score"
	"github.com/odekmem/odekmem/internal/vocab"
)

// Tool is the agent's memory tool. Provenance is decided here, never by the
// model: Remember stores user_said only when the text is a whole,
// meaning-preserving span of the person's message (Turn.Message), and
// agent_generated (in quarantine) otherwise; where the text goes (session,
// turn, project) comes from the Turn, which the caller builds from what it
// recorded itself, never from the model's arguments. The tool may forget
// or pin only atoms it added itself in the same session that nobody has
// reviewed since; it may list the quarantine (wrapped as untrusted,
// hidden characters spelled out, blocked entries withheld) and the pending
// reviews, and reject a pending review (the person asked the agent to drop
// an inference); it cannot promote, confirm, unpin or edit the user model.
// Its acts have no Undo: a person's surface can undo the person's acts
// only.
//
// The typed methods are the tool; CallJSON is the same tool for a model
// that speaks raw function-calling JSON (MemoryToolSpec describes its
// arguments). A Tool is safe for concurrent use.
type Tool struct {
	store *Store

	mu       sync.Mutex
	proposed map[string]map[string]proposal // session → atoms this tool added
	sessions []string                       // sessions in first-use order, for the bound
}

// proposal is what an atom was when the tool left it. If a person has
// reviewed it since (promoted, pinned or unpinned it), it is theirs, not
// the agent's.
type proposal struct {
	source      Source
	quarantined bool
	pinned      bool
}

// Bounds on what a Tool remembers about its own proposals, and on what a
// model may send it.
const (
	toolMaxSessions   = 256
	toolMaxPerSession = 4096
)

// ToolMaxText is the longest memory Tool.Remember takes, and ToolMaxQuery
// the longest query Tool.Search and Tool.Quarantine take, in
// characters: a memory is one statement, and a query a few words. Longer
// arguments are refused with an error that names the limit.
const (
	ToolMaxText  = 4000
	ToolMaxQuery = 1000
)

// NewTool returns the memory tool over a store.
func NewTool(s *Store) *Tool { return &Tool{store: s, proposed: map[string]map[string]proposal{}} }

// RememberRequest is what an agent proposes to remember.
type RememberRequest struct {
	// Text is the memory: one self-contained statement, at most
	// ToolMaxText characters.
	Text string
	// Type is one of the atom types (Type constants); empty means fact.
	Type Type
	// Confidence is how sure the agent is, greater than 0 and at most 1;
	// zero means 1.
	Confidence float64
}

// RememberResult is what Tool.Remember stored.
type RememberResult struct {
	// ID is the atom's id: a new one, or the memory it matched when
	// Existing is set.
	ID          string
	SourceClass Source
	// Quarantined is true when the memory waits for the person's review
	// and is not recalled until they promote it.
	Quarantined bool
	// Reason is why it was quarantined: "tainted" for agent-originated
	// text, "scan_rejected: …" when the scanner blocked it.
	Reason string
	// NotVerbatim says why the text was not taken as the person's own
	// words ("" when it was).
	NotVerbatim string
	// Existing is true when the text matched a memory that was already
	// stored (a refresh or a duplicate): nothing new was proposed, and the
	// memory is not the agent's to forget or pin.
	Existing bool
}

// errHumanOnly is returned to the agent for actions reserved for a person.
var errHumanOnly = errors.New("only the user can do this: tell them what you wanted to do and why")

// errNotYours is returned when the agent asks to forget or pin an atom it
// did not add in this session; errReviewed when it did, but the person
// has reviewed the atom since.
var (
	errNotYours = errors.New("refused: the memory tool may only forget or pin memories it added itself in this session and the user has not reviewed since; anything else is the user's to change")
	errReviewed = errors.New("refused: the user has reviewed this memory since it was proposed (promoted, pinned or unpinned it), so it is theirs now; only the user can change it")
)

// tooLong is the error for an argument over its bound.
func tooLong(name string, n, limit int) error {
	return fmt.Errorf("%s is too long: %d characters; at most %d", name, n, limit)
}

// required rejects an empty or blank argument.
func required(name, v string) error {
	if strings.TrimSpace(v) == "" {
		return fmt.Errorf("%s is required", name)
	}
	return nil
}

// Remember proposes a memory from turn: user_said and live when Text is
// verbatim the person's words in turn.Message or one of turn.Earlier (see
// docs/trust.md's provenance rule), agent_generated and in quarantine otherwise. The atom records
// turn's session, turn number and project. Bad arguments (empty or too long
// text, an unknown type, a confidence outside (0, 1]) are errors, and
// nothing is stored.
func (t *Tool) Remember(ctx context.Context, turn Turn, r RememberRequest) (RememberResult, error) {
	if err := required("text", r.Text); err != nil {
		return RememberResult{}, err
	}
	if n := utf8.RuneCountInString(r.Text); n > ToolMaxText {
		return RememberResult{}, tooLong("text", n, ToolMaxText)
	}
	typ := Type(strings.ToLower(strings.TrimSpace(string(r.Type))))
	if typ == "" {
		typ = TypeFact
	}
	if !vocab.ValidType(typ) {
		return RememberResult{}, fmt.Errorf("%w %q: allowed %s", errUnknownType, scan.Visible(string(r.Type)), strings.Join(vocab.AtomTypes[:9], ", "))
	}
	conf := r.Confidence
	if conf == 0 {
		conf = 1
	}
	if !(conf > 0 && conf <= 1) {
		return RememberResult{}, fmt.Errorf("%w: confidence %v: allowed a number greater than 0 and at most 1", errInvalidConfidence, r.Confidence)
	}
	src, why := SourceAgentGenerated, ""
	// Any message the person typed in this session vouches for its own
	// words: the newest first.
	for i, msg := range append([]string{turn.Message}, turn.Earlier...) {
		if strings.TrimSpace(msg) == "" {
			continue
		}
		ok, reason := verbatimUserSpan(msg, r.Text)
		if ok {
			src, why = SourceUserSaid, ""
			break
		}
		if i == 0 || why == "" {
			why = reason
		}
	}
	res, err := t.store.Add(ctx, AddRequest{Text: r.Text, Type: typ, Confidence: conf, Source: src,
		Context: AtomContext{SessionID: turn.SessionID, Turn: turn.TurnIndex, Project: turn.Project}})
	if err != nil {
		return RememberResult{}, err
	}
	existing := res.Refreshed || res.Duplicate
	// A refresh or a duplicate names an atom that already existed
	// (possibly the person's): it is not the agent's to forget later.
	if !existing {
		t.record(turn.SessionID, res.Atom.ID, proposal{source: res.Atom.SourceClass, quarantined: res.Quarantined, pinned: res.Atom.Pin})
	}
	return RememberResult{ID: res.Atom.ID, SourceClass: res.Atom.SourceClass, Quarantined: res.Quarantined, Reason: res.Reason,
		NotVerbatim: why, Existing: existing}, nil
}

// Search searches the trusted memories for the model (o as for
// Store.Search). The final scan of the recall block applies: an atom whose
// text fails it (a promoted injection, a tampered chunk) is not returned,
// only counted in withheld.
func (t *Tool) Search(ctx context.Context, query string, o SearchOptions) (hits []Scored, withheld int, err error) {
	if err := required("query", query); err != nil {
		return nil, 0, err
	}
	if n := utf8.RuneCountInString(query); n > ToolMaxQuery {
		return nil, 0, tooLong("query", n, ToolMaxQuery)
	}
	all, err := t.store.Search(ctx, query, o)
	if err != nil {
		return nil, 0, err
	}
	hits = make([]Scored, 0, len(all))
	for _, h := range all {
		if t.store.verdicts.Blocked(h.Atom.Text) {
			withheld++
			continue
		}
		hits = append(hits, h)
	}
	return hits, withheld, nil
}

// Forget deletes a memory the tool added in turn's session, if it is still
// as the tool left it: same source class, still (or still not) in
// quarantine, pinned only if the tool pinned it. The check and the delete
// are one step under the store's write lock, so a person's review that
// lands in between cannot be overridden. Anything else is refused.
func (t *Tool) Forget(ctx context.Context, turn Turn, id string) error {
	guard, err := t.guard(turn.SessionID, id)
	if err != nil {
		return err
	}
	// Not the person's act: no undo record.
	if _, _, _, err := t.store.forget(ctx, id, guard); err != nil {
		if errors.Is(err, ErrNotFound) {
			t.drop(turn.SessionID, id) // gone already (evicted, expired)
		}
		return err
	}
	t.drop(turn.SessionID, id)
	return nil
}

// Pin keeps a live memory the tool added in turn's session from being
// evicted, under the same rule and the same locked check as Forget.
func (t *Tool) Pin(ctx context.Context, turn Turn, id string) error {
	guard, err := t.guard(turn.SessionID, id)
	if err != nil {
		return err
	}
	a, _, err := t.store.setPin(ctx, id, true, guard)
	if err != nil {
		return err
	}
	t.record(turn.SessionID, id, proposal{source: a.SourceClass, pinned: true})
	return nil
}

// ListPending returns the user-model inferences waiting for the person.
// They are a model's guesses: each value and its evidence come wrapped as
// untrusted content, confidences rounded to two decimals.
func (t *Tool) ListPending(ctx context.Context) ([]PendingReview, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	um, err := t.store.UserModel(ctx)
	ps := um.Pending
	if err != nil {
		return nil, err
	}
	out := make([]PendingReview, 0, len(ps))
	for _, p := range ps {
		v := PendingReview{ID: p.ID, Field: scan.Visible(p.Field), Value: untrusted("pending_value", p.Value),
			Confidence: score.Round(p.Confidence), CreatedAt: p.CreatedAt}
		if p.Evidence != "" {
			v.Evidence = untrusted("pending_evidence", p.Evidence)
		}
		out = append(out, v)
	}
	return out, nil
}

// RejectPending discards a pending user-model inference (the person asked
// the agent to drop it). Confirming one is the person's act only.
func (t *Tool) RejectPending(ctx context.Context, id string) error {
	if err := required("pending_id", id); err != nil {
		return err
	}
	_, _, err := t.store.settlePending(ctx, id, false)
	return err
}

// untrusted is store text wrapped for a model the way the hook wraps what
// it injects: secrets redacted, control characters and escapes removed,
// invisible characters spelled out, inside an untrusted-content block.
func untrusted(source, text string) string {
	r, _ := scan.Redact(text)
	return scan.Wrap(source, scan.Visible(r))
}

func (t *Tool) record(session, id string, p proposal) {
	t.mu.Lock()
	defer t.mu.Unlock()
	ids := t.proposed[session]
	if ids == nil {
		if len(t.sessions) >= toolMaxSessions {
			delete(t.proposed, t.sessions[0])
			t.sessions = t.sessions[1:]
		}
		ids = map[string]proposal{}
		t.proposed[session] = ids
		t.sessions = append(t.sessions, session)
	}
	if _, ok := ids[id]; ok || len(ids) < toolMaxPerSession {
		ids[id] = p
	}
}

func (t *Tool) drop(session, id string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	delete(t.proposed[session], id)
}

// guard returns the check the store runs under its write lock before the
// tool forgets or pins id: the atom must be one the tool added in session
// and be as the tool left it.
func (t *Tool) guard(session, id string) (func(Atom, *QuarantinedAtom) error, error) {
	if err := required("atom_id", id); err != nil {
		return nil, err
	}
	t.mu.Lock()
	p, ok := t.proposed[session][id]
	t.mu.Unlock()
	if !ok {
		return nil, errNotYours
	}
	return func(a Atom, q *QuarantinedAtom) error {
		if a.SourceClass != p.source || (q != nil) != p.quarantined || a.Pin != p.pinned || a.Origin != nil {
			return errReviewed
		}
		return nil
	}, nil
}
