package mcpserver

import (
	"container/list"
	"sync"

	"github.com/odekmem/odekmem/internal/vocab"
)

// maxSessions bounds the per-MCP-session state the server keeps (one
// entry per client session; a stdio server has one, an HTTP server one per
// client that connected). The least recently used goes first; a client
// whose entry went gets a fresh one, so it can no longer withdraw what it
// proposed before — the cautious side.
var maxSessions = 256

// sessionIDs maps MCP sessions to the session id their memories record
// ("mcp-" and 12 random hex digits), least recently used first out.
type sessionIDs struct {
	mu    sync.Mutex
	order *list.List               // of *sessionEntry, most recent at the front
	byKey map[string]*list.Element // MCP session → element of order
}

type sessionEntry struct{ key, id string }

func newSessionIDs() *sessionIDs {
	return &sessionIDs{order: list.New(), byKey: map[string]*list.Element{}}
}

// get returns key's session id, making one on first use.
func (m *sessionIDs) get(key string) string {
	m.mu.Lock()
	defer m.mu.Unlock()
	if el, ok := m.byKey[key]; ok {
		m.order.MoveToFront(el)
		return el.Value.(*sessionEntry).id
	}
	for m.order.Len() >= max(maxSessions, 1) {
		old := m.order.Back()
		m.order.Remove(old)
		delete(m.byKey, old.Value.(*sessionEntry).key)
	}
	e := &sessionEntry{key: key, id: "mcp-" + vocab.NewID()[:12]}
	m.byKey[key] = m.order.PushFront(e)
	return e.id
}

// len is how many sessions are kept.
func (m *sessionIDs) len() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.byKey)
}
