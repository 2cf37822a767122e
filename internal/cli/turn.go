package cli

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/odekmem/odekmem/memcore"
	"github.com/odekmem/odekmem/memcore/scan"
)

func cmdRecall(c *ctx) error {
	msg, err := textArg(c, "recall", "recall <message>")
	if err != nil {
		return err
	}
	h := memcore.NewHook(c.store, memcore.HookOptions{})
	tc := h.BeforeTurn(c, memcore.Turn{Message: msg, SessionID: c.p.flags["session"], Project: c.p.flags["project"]})
	if c.json {
		return c.emitJSON(tc)
	}
	for _, w := range tc.Warnings {
		c.warn("%s", scan.Visible(w))
	}
	if len(tc.Blocks) == 0 {
		fmt.Fprintln(c.env.Stderr, "(nothing would be injected for this message)")
		return nil
	}
	c.out("%s\n", scan.Visible(strings.Join(tc.Blocks, "\n\n")))
	return nil
}

func dedupe(in []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, s := range in {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}

// byteProgress draws "import: 120000 lines, 34.0 MiB of 230.0 MiB (14%)"
// on a terminal, at most every 100 ms, and nothing elsewhere.
type byteProgress struct {
	w     io.Writer
	on    bool
	verb  string
	total int64
	last  time.Time
	drawn bool
}

func newByteProgress(w io.Writer, on bool, verb string, total int64) *byteProgress {
	return &byteProgress{w: w, on: on, verb: verb, total: total}
}

func (p *byteProgress) set(lines int, n int64) {
	if !p.on || time.Since(p.last) < 100*time.Millisecond {
		return
	}
	p.last, p.drawn = time.Now(), true
	if p.total > 0 {
		fmt.Fprintf(p.w, "\r%s: %d lines, %s of %s (%d%%)  ", p.verb, lines, human(n), human(p.total), 100*n/p.total)
		return
	}
	fmt.Fprintf(p.w, "\r%s: %d lines, %s  ", p.verb, lines, human(n))
}

func (p *byteProgress) done() {
	if p.drawn {
		fmt.Fprintln(p.w)
	}
}
