package cli

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/odekmem/odekmem/internal/scan"
	"github.com/odekmem/odekmem/memcore"
)

func cmdRecall(c *ctx) error {
	msg, err := textArg(c, "recall", "recall <message>")
	if err != nil {
		return err
	}
	h := memcore.NewHook(c.store)
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
	// plain prints whole lines every plainEvery (--progress on a pipe or
	// a log) instead of redrawing one on a terminal.
	plain bool
	// committed, when >= 0, is how many lines are durable in the store.
	committed int
	lines     int
	n         int64
	shown     string
}

// plainEvery is how often --progress prints a line.
const plainEvery = 2 * time.Second

func newByteProgress(w io.Writer, on bool, verb string, total int64) *byteProgress {
	return &byteProgress{w: w, on: on, verb: verb, total: total, committed: -1}
}

// progressBar is newByteProgress for a verb with --progress: drawn on a
// terminal, printed as lines with --progress, silent otherwise (and with
// --json unless --progress asks).
func progressBar(c *ctx, verb string, total int64) *byteProgress {
	if c.p.bools["progress"] {
		p := newByteProgress(c.env.Stderr, true, verb, total)
		p.plain = !c.env.StderrIsTerminal
		return p
	}
	return newByteProgress(c.env.Stderr, c.env.StderrIsTerminal && !c.json, verb, total)
}

func (p *byteProgress) set(lines int, n int64) {
	p.lines, p.n = lines, n
	every := 100 * time.Millisecond
	if p.plain {
		every = plainEvery
	}
	if !p.on || time.Since(p.last) < every {
		return
	}
	p.last, p.drawn = time.Now(), true
	p.draw()
}

func (p *byteProgress) draw() {
	end, lead := "  ", "\r"
	if p.plain {
		end, lead = "\n", ""
	}
	msg := fmt.Sprintf("%s: %d lines, %s", p.verb, p.lines, human(p.n))
	if p.total > 0 {
		msg = fmt.Sprintf("%s: %d lines, %s of %s (%d%%)", p.verb, p.lines, human(p.n), human(p.total), 100*p.n/p.total)
	}
	if p.committed >= 0 {
		msg += fmt.Sprintf(", %d committed", p.committed)
	}
	if p.plain && msg == p.shown {
		return
	}
	p.shown = msg
	fmt.Fprint(p.w, lead+msg+end)
}

func (p *byteProgress) done() {
	if p.plain {
		p.draw() // the final count
		return
	}
	if p.drawn {
		fmt.Fprintln(p.w)
	}
}
