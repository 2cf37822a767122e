package memcore

import "container/list"

// maxHookSessions bounds the per-session state a Hook keeps (turn counter,
// recent messages, last activity). An agent that serves many sessions over
// a long life forgets the least recently used one first; a forgotten
// session that comes back starts counting turns again.
const maxHookSessions = 1024

// sessionLRU maps session ids to their state, keeping at most max entries.
// The caller holds the Hook's mutex.
type sessionLRU struct {
	max   int
	byID  map[string]*list.Element
	order *list.List // front = most recently used; values are *sessionEntry
}

type sessionEntry struct {
	id    string
	state *sessionState
}

func newSessionLRU(max int) *sessionLRU {
	return &sessionLRU{max: max, byID: map[string]*list.Element{}, order: list.New()}
}

// get returns the state of a session, creating it (and evicting the least
// recently used session beyond max) when it is new.
func (l *sessionLRU) get(id string) *sessionState {
	if el, ok := l.byID[id]; ok {
		l.order.MoveToFront(el)
		return el.Value.(*sessionEntry).state
	}
	st := &sessionState{}
	l.byID[id] = l.order.PushFront(&sessionEntry{id: id, state: st})
	for l.order.Len() > l.max {
		old := l.order.Back()
		l.order.Remove(old)
		delete(l.byID, old.Value.(*sessionEntry).id)
	}
	return st
}

// len is the number of sessions held.
func (l *sessionLRU) len() int { return l.order.Len() }
