package cli

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/odekmem/odekmem/memcore"
	"github.com/odekmem/odekmem/memcore/scan"
)

func cmdRecall(c *ctx) error {
	if len(c.p.pos) == 0 {
		return usagef("expected recall <message>")
	}
	h := memcore.NewHook(c.store, memcore.HookOptions{})
	tc := h.BeforeTurn(c, memcore.Turn{Message: strings.Join(c.p.pos, " "), SessionID: c.p.flags["session"], Project: c.p.flags["project"]})
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

// transcriptLine is one line of an ingest transcript.
type transcriptLine struct {
	Role    string `json:"role"`
	Content string `json:"content"`
	Session string `json:"session"`
	Turn    int    `json:"turn"`
	Project string `json:"project"`
	Time    string `json:"time"`
}

// IngestSummary is ingest's --json output.
type IngestSummary struct {
	Messages    int      `json:"messages"`
	Added       int      `json:"added"`
	Quarantined int      `json:"quarantined"`
	Refreshed   int      `json:"refreshed"`
	Promoted    int      `json:"promoted"`
	Links       int      `json:"links"`
	Evicted     int      `json:"evicted"`
	Inferences  int64    `json:"inferences"`
	Warnings    []string `json:"warnings,omitempty"`
}

func cmdIngest(c *ctx) error {
	if len(c.p.pos) > 1 {
		return usagef("expected ingest [FILE|-]")
	}
	var r io.Reader = c.env.Stdin
	if len(c.p.pos) == 1 && c.p.pos[0] != "-" {
		f, err := os.Open(c.p.pos[0])
		if err != nil {
			return fmt.Errorf("ingest: %w", err)
		}
		defer f.Close()
		r = f
	}
	var turns []memcore.Turn
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 4<<20)
	line := 0
	for sc.Scan() {
		line++
		text := strings.TrimSpace(sc.Text())
		if text == "" {
			continue
		}
		t := memcore.Turn{SessionID: c.p.flags["session"], Project: c.p.flags["project"]}
		if strings.HasPrefix(text, "{") {
			var tl transcriptLine
			if err := json.Unmarshal([]byte(text), &tl); err != nil {
				return fmt.Errorf("ingest: line %d: invalid JSON: %v", line, err)
			}
			if tl.Role != "" && tl.Role != "user" {
				continue // only the person's own messages are extracted
			}
			t.Message = tl.Content
			if tl.Session != "" {
				t.SessionID = tl.Session
			}
			if tl.Project != "" {
				t.Project = tl.Project
			}
			t.TurnIndex = tl.Turn
			if tl.Time != "" {
				ts, err := time.Parse(time.RFC3339Nano, tl.Time)
				if err != nil {
					return fmt.Errorf("ingest: line %d: time %q is not RFC 3339", line, tl.Time)
				}
				t.Time = ts
			}
		} else {
			t.Message = text
		}
		turns = append(turns, t)
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("ingest: line %d: %w", line+1, err)
	}
	h := memcore.NewHook(c.store, memcore.HookOptions{})
	var sum IngestSummary
	bar := newProgress(c.env.Stderr, c.env.StderrIsTerminal && !c.json, len(turns))
	for i, t := range turns {
		rr, err := h.RecordUserMessage(c, t)
		if err != nil {
			bar.done()
			return fmt.Errorf("ingest: message %d: %w", i+1, err)
		}
		sum.Messages++
		for _, a := range rr.Added {
			sum.Evicted += len(a.Evicted)
			switch {
			case a.Quarantined:
				sum.Quarantined++
			case a.Refreshed:
				sum.Refreshed++
			default:
				sum.Added++
			}
		}
		sum.Promoted += len(rr.Promoted)
		sum.Links += rr.Links
		sum.Warnings = append(sum.Warnings, rr.Warnings...)
		bar.set(i + 1)
	}
	h.Wait()
	bar.done()
	sum.Inferences = h.Inferences()
	sum.Warnings = append(sum.Warnings, h.Warnings()...)
	if c.json {
		return c.emitJSON(sum)
	}
	c.out("ingested %d messages: %d atoms added, %d refreshed, %d quarantined, %d promoted, %d links, %d user-state inferences\n",
		sum.Messages, sum.Added, sum.Refreshed, sum.Quarantined, sum.Promoted, sum.Links, sum.Inferences)
	if sum.Evicted > 0 {
		c.warn("evicted %d older atoms to stay under the size cap", sum.Evicted)
	}
	for _, w := range dedupe(sum.Warnings) {
		c.warn("%s", scan.Visible(w))
	}
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

// progress draws a one-line bar on a terminal and nothing elsewhere.
type progress struct {
	w     io.Writer
	on    bool
	total int
	last  time.Time
}

func newProgress(w io.Writer, on bool, total int) *progress {
	return &progress{w: w, on: on && total > 0, total: total}
}

func (p *progress) set(n int) {
	if !p.on || (time.Since(p.last) < 50*time.Millisecond && n < p.total) {
		return
	}
	p.last = time.Now()
	const width = 30
	fill := width * n / p.total
	fmt.Fprintf(p.w, "\r[%s%s] %s/%d", strings.Repeat("#", fill), strings.Repeat(".", width-fill), strconv.Itoa(n), p.total)
}

func (p *progress) done() {
	if p.on {
		fmt.Fprintln(p.w)
	}
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
