package views

import (
	"strings"
	"sync"
	"time"

	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"

	"github.com/odekmem/odekmem/internal/humanize"
	"github.com/odekmem/odekmem/internal/lazyre"
	"github.com/odekmem/odekmem/internal/scan"
)

// Safe makes store text terminal-safe: control characters and escape
// sequences removed, invisible characters spelled out (⟨U+200B⟩). Every
// string from the store goes through Safe (or Line) before it is rendered.
func Safe(s string) string { return scan.Visible(s) }

// Line is Safe flattened to one line: newlines and tabs become spaces. It
// takes any string type (memcore.Type, memcore.Source).
func Line[S ~string](s S) string {
	v := scan.Visible(string(s))
	if strings.ContainsAny(v, "\n\t\r") {
		v = strings.NewReplacer("\r\n", " ", "\n", " ", "\t", " ", "\r", " ").Replace(v)
	}
	return v
}

// Cut truncates a (possibly styled) string to width cells with an ellipsis.
func Cut(s string, w int) string {
	if w <= 0 {
		return ""
	}
	if lipgloss.Width(s) <= w {
		return s
	}
	return ansi.Truncate(s, w, "…")
}

// Fit cuts s to w cells and pads it with spaces to exactly w.
func Fit(s string, w int) string {
	s = Cut(s, w)
	if n := lipgloss.Width(s); n < w {
		s += strings.Repeat(" ", w-n)
	}
	return s
}

// FitLines cuts every line of s to w and pads/cuts to exactly h lines.
func FitLines(s string, w, h int) string {
	lines := strings.Split(s, "\n")
	if len(lines) > h {
		lines = lines[:h]
	}
	for i, l := range lines {
		lines[i] = Cut(l, w)
	}
	for len(lines) < h {
		lines = append(lines, "")
	}
	return strings.Join(lines, "\n")
}

var markRe = lazyre.New(`⟨[^⟩]*⟩|\[REDACTED:[^\]]*\]`)

// Mark styles the spelled-out invisible characters (⟨…⟩) and redactions
// ([REDACTED:…]) in text already made safe.
func Mark(safe string, invisible, redaction lipgloss.Style) string {
	return markRe.ReplaceAllStringFunc(safe, func(m string) string {
		if strings.HasPrefix(m, "[REDACTED") {
			return redaction.Render(m)
		}
		return invisible.Render(m)
	})
}

// Wrap wraps plain text to width, keeping words whole where it can.
func Wrap(s string, w int) string {
	if w <= 0 {
		return s
	}
	return ansi.Wrap(s, w, " ")
}

// Age formats an age given in days by the front ends' one rule
// (humanize.Age): 3h, 12d, 1.2y.
func Age(days float64) string {
	return humanize.Age(time.Duration(days*24*float64(time.Hour)), "now")
}

// Bytes formats a byte count (humanize.Bytes).
func Bytes(n int64) string { return humanize.Bytes(n) }

// ShortID is the first 8 characters of an id, made safe.
func ShortID(id string) string {
	id = Line(id)
	if len(id) > 8 {
		return id[:8]
	}
	return id
}

// RenderCache caches rendered markdown by (content, width). It is safe for
// concurrent use because rendering happens in commands.
type RenderCache struct {
	mu sync.Mutex
	m  map[renderKey]string
}

type renderKey struct {
	content string
	width   int
}

// NewRenderCache returns an empty cache.
func NewRenderCache() *RenderCache { return &RenderCache{m: map[renderKey]string{}} }

// Get returns a cached rendering.
func (c *RenderCache) Get(content string, width int) (string, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	s, ok := c.m[renderKey{content, width}]
	return s, ok
}

// Put stores a rendering, dropping everything when the cache grows large.
func (c *RenderCache) Put(content string, width int, out string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.m) > 256 {
		c.m = map[renderKey]string{}
	}
	c.m[renderKey{content, width}] = out
}
