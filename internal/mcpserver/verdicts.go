package mcpserver

import (
	"sync"

	"github.com/odekmem/odekmem/memcore/scan"
)

// verdictCacheSize bounds the remembered verdicts; the cache starts over
// when it is full.
const verdictCacheSize = 2048

// verdictCache remembers the final scan's verdict on each text it saw. The
// same atoms come back search after search in a long-running server, and
// a scan costs about 0.1 ms per atom; the key is the text itself, so a
// chunk changed on disk is a new key and is scanned again.
type verdictCache struct {
	mu sync.Mutex
	m  map[string]bool
}

// blocked reports whether the scanner blocks text.
func (c *verdictCache) blocked(text string) bool {
	c.mu.Lock()
	v, ok := c.m[text]
	c.mu.Unlock()
	if ok {
		return v
	}
	v = scan.Scan(text).Blocked()
	c.mu.Lock()
	if c.m == nil || len(c.m) >= verdictCacheSize {
		c.m = make(map[string]bool, 64)
	}
	c.m[text] = v
	c.mu.Unlock()
	return v
}
