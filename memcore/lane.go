package memcore

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/odekmem/odekmem/internal/scan"
	"github.com/odekmem/odekmem/internal/textutil"
	"github.com/odekmem/odekmem/internal/vocab"
)

// The lane ("from your messages — keep?") holds what the judgement of the
// person's messages was not sure about: a sentence that may be a one-off
// request rather than a standing rule, a statement right under a paste
// that may be the paste's last line, a memory LLM's memory whose quote did
// not verify. Nothing in the lane is trusted or recalled. The person keeps
// an entry (it becomes a user_approved atom whose Origin names the lane
// and holds the message it came from) or drops it.
//
// The lane is odekmem's own file (lane.json: not part of the FORMATS.md
// contract with odek), bounded, secrets redacted, and counted against the
// size cap like every file under the store.
const fileLane = "lane.json"

// Bounds of the lane.
const (
	maxLaneEntries      = 500
	maxLaneMessageChars = 2000
	maxLaneBytes        = 8 << 20
)

// LaneEntry is one candidate memory from the person's own messages
// waiting for them.
type LaneEntry struct {
	ID string `json:"id"`
	// Text is the memory as it would be stored: the person's words
	// verbatim, or a memory LLM's wording (then Quote holds the words it
	// claimed to rest on).
	Text  string `json:"text"`
	Type  Type   `json:"type"`
	Quote string `json:"quote,omitempty"`
	// Why says why the judgement was not sure.
	Why string `json:"why"`
	// Message is the message it came from (secrets redacted, bounded):
	// the evidence a person reads before keeping it.
	Message   string      `json:"message"`
	Context   AtomContext `json:"context"`
	CreatedAt time.Time   `json:"created_at"`
}

// readLane reads the lane like every store file (never through a symbolic
// link, bounded).
func (s *Store) readLane() ([]LaneEntry, error) {
	b, err := s.files.ReadFileLimited(fileLane, maxLaneBytes)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var list []LaneEntry
	if err := json.Unmarshal(b, &list); err != nil {
		return nil, fmt.Errorf("%s: %w", fileLane, err)
	}
	kept := list[:0]
	for _, e := range list {
		if vocab.ValidID(e.ID) && strings.TrimSpace(e.Text) != "" {
			kept = append(kept, e)
		}
	}
	return kept, nil
}

// writeLaneLocked writes the lane, dropping the oldest entries while it
// would push the store over its cap.
func (s *Store) writeLaneLocked(t *tx, list []LaneEntry) error {
	sort.SliceStable(list, func(i, j int) bool { return list[i].CreatedAt.After(list[j].CreatedAt) })
	if len(list) > maxLaneEntries {
		list = list[:maxLaneEntries]
	}
	for {
		b, err := json.MarshalIndent(list, "", "  ")
		if err != nil {
			return err
		}
		if capB := s.cfg.capBytes(); capB > 0 {
			need := s.projectedLocked() - s.size.usage[fileLane] + roundUp(int64(len(b)), s.size.blockSz)
			if need > capB {
				if len(list) > 0 {
					list = list[:len(list)-1]
					continue
				}
				return fmt.Errorf("%w: no room for the lane", ErrCapExceeded)
			}
		}
		t.writeLog(fileLane, b)
		return nil
	}
}

// Lane returns the entries waiting for the person, newest first; with
// sessions, only those sessions'. The Hook puts there what its judgement
// of the person's messages was not sure about (RecordResult.Lane). A
// damaged lane reads as empty.
func (s *Store) Lane(ctx context.Context, sessions ...string) ([]LaneEntry, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if s.closed {
		return nil, ErrClosed
	}
	list, err := s.readLane()
	if err != nil {
		s.report(fileLane, err.Error(), "read as empty")
		return nil, nil
	}
	if len(sessions) > 0 {
		kept := list[:0]
		for _, e := range list {
			for _, sid := range sessions {
				if e.Context.SessionID == sid {
					kept = append(kept, e)
					break
				}
			}
		}
		list = kept
	}
	sort.SliceStable(list, func(i, j int) bool { return list[i].CreatedAt.After(list[j].CreatedAt) })
	return list, nil
}

// addLane puts candidates in the lane. A text the scanner blocks never
// waits there: it is stored as the person's words would be, which puts it
// in the quarantine with the scanner's reason. An entry whose text is
// already in the lane or already a live atom is left out. The IDs of reqs
// are ignored: the lane gives each entry its own.
func (s *Store) addLane(ctx context.Context, reqs []LaneEntry) ([]LaneEntry, []AddResult, error) {
	var entries []LaneEntry
	var blocked []AddResult
	for _, r := range reqs {
		text := strings.TrimSpace(r.Text)
		if text == "" {
			continue
		}
		res := scan.Scan(text)
		if res.Blocked() {
			ar, err := s.Add(ctx, AddRequest{Text: text, Type: r.Type, Source: SourceUserSaid, Context: r.Context, CreatedAt: r.CreatedAt})
			if err != nil {
				return entries, blocked, err
			}
			blocked = append(blocked, ar)
			continue
		}
		typ, err := atomType(r.Type)
		if err != nil || typ == "" {
			typ = TypeFact
		}
		msg, _ := scan.Redact(r.Message)
		quote, _ := scan.Redact(r.Quote)
		created := r.CreatedAt
		if created.IsZero() {
			created = s.now()
		}
		ctxc := r.Context
		ctxc.SessionID, ctxc.Project = scanRedact(ctxc.SessionID), scanRedact(ctxc.Project)
		entries = append(entries, LaneEntry{ID: vocab.NewID(), Text: textutil.Truncate(res.Redacted, s.cfg.AtomMaxChars), Type: typ,
			Quote: textutil.Truncate(quote, s.cfg.AtomMaxChars), Why: textutil.Truncate(scanRedact(r.Why), 200),
			Message: textutil.TruncateChars(msg, maxLaneMessageChars), Context: ctxc, CreatedAt: created.UTC()})
	}
	if len(entries) == 0 {
		return nil, blocked, nil
	}
	var added []LaneEntry
	err := s.update(ctx, func(t *tx) error {
		list, err := s.readLane()
		if err != nil {
			s.report(fileLane, err.Error(), "rebuilt")
			list = nil
		}
		seen := map[string]bool{}
		for _, e := range list {
			seen[normKey(e.Text)] = true
		}
		for _, e := range s.order {
			seen[normKey(e.atom.Text)] = true
		}
		for _, e := range entries {
			k := normKey(e.Text)
			if seen[k] {
				continue
			}
			seen[k] = true
			list = append(list, e)
			added = append(added, e)
		}
		if len(added) == 0 {
			return nil
		}
		return s.writeLaneLocked(t, list)
	})
	return added, blocked, err
}

// normKey is a text compared without case and runs of space.
func normKey(s string) string { return strings.ToLower(strings.Join(strings.Fields(s), " ")) }

// takeLane removes the entries ids name (each an id or a unique prefix of
// at least four characters) from the lane and returns them, in the order
// of ids; when one names no entry, it takes none.
func (s *Store) takeLane(ctx context.Context, ids []string) ([]LaneEntry, error) {
	var taken []LaneEntry
	err := s.update(ctx, func(t *tx) error {
		taken = nil
		list, err := s.readLane()
		if err != nil {
			return err
		}
		take := map[string]bool{}
		for _, id := range ids {
			i := slices.IndexFunc(list, func(e LaneEntry) bool {
				return e.ID == id || len(id) >= 4 && strings.HasPrefix(e.ID, id) && !ambiguousLane(list, id)
			})
			if i < 0 {
				return fmt.Errorf("%w: no lane entry %s", ErrNotFound, id)
			}
			if !take[list[i].ID] {
				take[list[i].ID] = true
				taken = append(taken, list[i])
			}
		}
		kept := list[:0]
		for _, e := range list {
			if !take[e.ID] {
				kept = append(kept, e)
			}
		}
		return s.writeLaneLocked(t, kept)
	})
	return taken, err
}

// ambiguousLane reports whether more than one entry starts with prefix.
func ambiguousLane(list []LaneEntry, prefix string) bool {
	n := 0
	for _, e := range list {
		if strings.HasPrefix(e.ID, prefix) {
			n++
		}
	}
	return n > 1
}

// putBackLane returns entries to the lane (the undo of keep and drop).
func (s *Store) putBackLane(ctx context.Context, entries []LaneEntry) error {
	return s.update(ctx, func(t *tx) error {
		list, err := s.readLane()
		if err != nil {
			list = nil
		}
		have := map[string]bool{}
		for _, e := range list {
			have[e.ID] = true
		}
		for _, e := range entries {
			if !have[e.ID] {
				list = append(list, e)
			}
		}
		return s.writeLaneLocked(t, list)
	})
}

// Keep stores lane entries as user_approved atoms — the person vouched
// for them — each with an Origin that names the lane and holds the message
// it came from, and removes them from the lane. Each id may be a unique
// prefix of at least four characters; an id that names no entry is
// ErrNotFound, and then none is kept (no id at all is
// ErrInvalidArgument). To keep a whole session's entries,
// pass the ids Lane(ctx, session) returns. The results are in the order of
// ids; an entry that fails to be stored goes back to the lane, and the
// error names it. One Undo forgets the atoms and puts the entries back.
func (s *Store) Keep(ctx context.Context, ids ...string) ([]AddResult, Undo, error) {
	if len(ids) == 0 {
		return nil, Undo{}, fmt.Errorf("%w: keep: no lane entry given", ErrInvalidArgument)
	}
	taken, err := s.takeLane(ctx, ids)
	if err != nil {
		return nil, Undo{}, err
	}
	return s.keepEntries(ctx, taken)
}

func (s *Store) keepEntries(ctx context.Context, taken []LaneEntry) ([]AddResult, Undo, error) {
	var results []AddResult
	var errs []string
	for _, e := range taken {
		r, err := s.Add(ctx, AddRequest{Text: e.Text, Type: e.Type, Source: SourceUserApproved, Context: e.Context, Link: true,
			quote: e.Quote, origin: &Origin{SourceClass: SourceUserSaid, Reason: "kept from the lane: " + e.Why,
				QuarantinedAt: e.CreatedAt, PromotedAt: s.now().UTC(), Evidence: e.Message}})
		if err != nil {
			errs = append(errs, err.Error())
			if perr := s.putBackLane(ctx, []LaneEntry{e}); perr != nil {
				errs = append(errs, perr.Error())
			}
			continue
		}
		results = append(results, r)
	}
	label := "keep " + shortID(taken[0].ID)
	if len(taken) > 1 {
		label = fmt.Sprintf("keep %d", len(taken))
		if session := taken[0].Context.SessionID; !slices.ContainsFunc(taken, func(e LaneEntry) bool { return e.Context.SessionID != session }) {
			label += " from session " + session
		}
	}
	u := Undo{label: label, back: func(ctx context.Context) error {
		for _, r := range results {
			if r.Duplicate || r.Refreshed {
				continue // the atom was there before: not the keep's to remove
			}
			if _, _, _, err := s.forget(ctx, r.Atom.ID, nil); err != nil && !errors.Is(err, ErrNotFound) {
				return err
			}
		}
		return s.putBackLane(ctx, taken)
	}}
	if len(errs) > 0 {
		return results, u, errors.New(strings.Join(errs, "; "))
	}
	return results, u, nil
}

// Drop removes a lane entry: the person does not want it remembered. Its
// Undo puts it back.
func (s *Store) Drop(ctx context.Context, id string) (LaneEntry, Undo, error) {
	taken, err := s.takeLane(ctx, []string{id})
	if err != nil {
		return LaneEntry{}, Undo{}, err
	}
	return taken[0], Undo{label: "drop " + shortID(taken[0].ID), back: func(ctx context.Context) error { return s.putBackLane(ctx, taken) }}, nil
}
