package scan

import "sync"

// verdictsSize bounds what Verdicts remembers; it starts over when full.
const verdictsSize = 2048

// Verdicts remembers Scan's Blocked verdict per text. The final scans
// before text reaches a prompt see the same atoms turn after turn, and a
// scan costs about 0.1 ms per atom; the key is the text itself, so a text
// that changed (a chunk edited on disk) is scanned again. The zero value
// is ready to use and safe for concurrent use.
type Verdicts struct {
	mu sync.Mutex
	m  map[string]bool
}

// Blocked reports whether Scan(text).Blocked().
func (v *Verdicts) Blocked(text string) bool {
	v.mu.Lock()
	b, ok := v.m[text]
	v.mu.Unlock()
	if ok {
		return b
	}
	b = Scan(text).Blocked()
	v.mu.Lock()
	if v.m == nil || len(v.m) >= verdictsSize {
		v.m = make(map[string]bool, 64)
	}
	v.m[text] = b
	v.mu.Unlock()
	return b
}
