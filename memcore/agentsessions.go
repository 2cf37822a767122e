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

	"github.com/odekmem/odekmem/internal/textutil"

	"github.com/odekmem/odekmem/internal/scan"
)

// The agent-session log: the person's own recent messages per agent
// session, recorded by an agent hook (odekmem hook claude-code) so that a
// separate process — the MCP server — can tell whether text an agent
// proposes is the person's own words. It is odekmem's own file (not part
// of the FORMATS.md contract with odek), bounded, secrets redacted, and
// counted against the size cap like every file under the store.
const fileAgentSessions = "agent_sessions.json"

// Bounds of the agent-session log.
const (
	maxAgentSessions        = 64
	maxAgentSessionMessages = 8
	maxAgentMessageChars    = 8000
)

// AgentSession is one agent session as the hook recorded it.
type AgentSession struct {
	ID      string    `json:"id"`
	Agent   string    `json:"agent"`
	Project string    `json:"project,omitempty"`
	Turn    int       `json:"turn"`
	Updated time.Time `json:"updated"`
	// Messages are the person's newest typed messages, oldest first.
	Messages []AgentMessage `json:"messages"`
}

// AgentMessage is one message the person typed.
type AgentMessage struct {
	Turn int       `json:"turn"`
	At   time.Time `json:"at"`
	Text string    `json:"text"`
}

// maxAgentSessionsBytes bounds what is read of agent_sessions.json: the
// log's own bounds make it at most about 2 MiB, so a larger file was not
// written by odekmem.
const maxAgentSessionsBytes = 8 << 20

// readAgentSessions reads the log like every store file (never through a
// symbolic link, bounded). Messages dated in the future are dropped: the
// log vouches for the person's recent words, and a forged future time would
// keep a message "recent" for good.
func (s *Store) readAgentSessions() ([]AgentSession, error) {
	b, err := s.files.ReadFileLimited(fileAgentSessions, maxAgentSessionsBytes)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var list []AgentSession
	if err := json.Unmarshal(b, &list); err != nil {
		return nil, fmt.Errorf("%s: %w", fileAgentSessions, err)
	}
	limit := s.now().Add(5 * time.Minute)
	for i := range list {
		kept := list[i].Messages[:0]
		for _, m := range list[i].Messages {
			if !m.At.After(limit) {
				kept = append(kept, m)
			}
		}
		list[i].Messages = kept
		if list[i].Updated.After(limit) {
			list[i].Updated = limit
		}
	}
	return list, nil
}

// AgentSessions returns the recorded agent sessions, newest first, or with
// ids only those sessions. A damaged log reads as empty (it is rebuilt by
// the next message).
func (s *Store) AgentSessions(ctx context.Context, ids ...string) ([]AgentSession, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if s.closed {
		return nil, ErrClosed
	}
	list, _ := s.readAgentSessions()
	if len(ids) > 0 {
		kept := list[:0]
		for _, a := range list {
			if slices.Contains(ids, a.ID) {
				kept = append(kept, a)
			}
		}
		list = kept
	}
	sort.SliceStable(list, func(i, j int) bool { return list[i].Updated.After(list[j].Updated) })
	return list, nil
}

// RecordAgentMessage appends a message the person typed to an agent
// session's log and returns the session's turn number for it. Secrets are
// redacted before the text touches disk; the log keeps the newest
// sessions and messages only and never pushes the store over its cap.
func (s *Store) RecordAgentMessage(ctx context.Context, agent, sessionID, project, text string, at time.Time) (int, error) {
	if strings.TrimSpace(sessionID) == "" {
		return 0, errors.New("record agent message: empty session id")
	}
	if at.IsZero() {
		at = s.now()
	}
	red, _ := scan.Redact(text)
	red = textutil.TruncateChars(red, maxAgentMessageChars)
	turn := 0
	err := s.update(ctx, func(t *tx) error {
		list, err := s.readAgentSessions()
		if err != nil {
			s.report(fileAgentSessions, err.Error(), "rebuilt")
			list = nil
		}
		idx := -1
		for i := range list {
			if list[i].ID == sessionID {
				idx = i
			}
		}
		if idx < 0 {
			list = append(list, AgentSession{ID: textutil.TruncateChars(sessionID, 200), Agent: agent})
			idx = len(list) - 1
		}
		a := &list[idx]
		a.Turn++
		turn = a.Turn
		a.Updated = at
		if project != "" {
			a.Project = project
		}
		if strings.TrimSpace(red) != "" {
			a.Messages = append(a.Messages, AgentMessage{Turn: turn, At: at, Text: red})
		}
		if len(a.Messages) > maxAgentSessionMessages {
			a.Messages = a.Messages[len(a.Messages)-maxAgentSessionMessages:]
		}
		sort.SliceStable(list, func(i, j int) bool { return list[i].Updated.After(list[j].Updated) })
		if len(list) > maxAgentSessions {
			list = list[:maxAgentSessions]
		}
		for {
			b, err := json.MarshalIndent(list, "", "  ")
			if err != nil {
				return err
			}
			if capB := s.cfg.capBytes(); capB > 0 {
				need := s.projectedLocked() - s.size.usage[fileAgentSessions] + roundUp(int64(len(b)), s.size.blockSz)
				if need > capB {
					if len(list) > 1 {
						list = list[:len(list)-1] // the oldest session goes first
						continue
					}
					return fmt.Errorf("%w: no room for the agent-session log", ErrCapExceeded)
				}
			}
			// Other processes read this log from disk each time.
			t.writeLog(fileAgentSessions, b)
			return nil
		}
	})
	return turn, err
}
