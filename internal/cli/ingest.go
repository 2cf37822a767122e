// The ingest verb: two passes over a transcript (which sessions hold an
// approval, then the turns in order) and the role rules of issue 10 item 7.
// It is a little over 500 lines because the passes share their decoding and
// splitting them apart would scatter one contract over several files.

package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/odekmem/odekmem/internal/agenthook"
	"github.com/odekmem/odekmem/internal/jsonl"
	"github.com/odekmem/odekmem/internal/procstart"
	"github.com/odekmem/odekmem/internal/scan"
	"github.com/odekmem/odekmem/internal/textutil"
	"github.com/odekmem/odekmem/memcore"
)

// Ingest: who is the person. Only a line with one explicit "role":"user"
// (duplicate keys in any letter case are an error for the line) whose type
// and content parts are plain text is the person's own message and goes
// through the per-turn pipeline as user_said. Everything else — no role,
// tool results (also inside a user-role message), assistant turns, web,
// file, MCP and subagent content — is stored as one tainted quarantine
// candidate with the closest source class, never as the person's words.

// maxMessage bounds one message (and add text, recall and search input).
const maxMessage = 64 << 10

// ingestBatch is how many messages or candidates share one store write.
const ingestBatch = 512

// transcriptLine is one JSONL line of an ingest transcript.
type transcriptLine struct {
	Role     string          `json:"role"`
	Type     string          `json:"type"`
	Name     string          `json:"name"`
	ToolName string          `json:"tool_name"`
	Content  json.RawMessage `json:"content"`
	Session  string          `json:"session"`
	Turn     int             `json:"turn"`
	Project  string          `json:"project"`
	Time     string          `json:"time"`
}

// part is one element of a content array.
type part struct {
	Type    string          `json:"type"`
	Text    string          `json:"text"`
	Name    string          `json:"name"`
	Content json.RawMessage `json:"content"`
}

// segment is a piece of a line's content with who it comes from: source
// "" is the person.
type segment struct {
	source memcore.Source
	text   string
}

var personTypes = map[string]bool{"": true, "user": true, "message": true, "text": true, "input_text": true}

// sourceFor maps a non-person line or part onto the closest tainted
// source class; "" means the content is not worth keeping (edits, to-do
// lists, odekmem's own tools).
func sourceFor(role, typ, name string) memcore.Source {
	r, t := strings.ToLower(strings.TrimSpace(role)), strings.ToLower(strings.TrimSpace(typ))
	has := func(words ...string) bool {
		for _, w := range words {
			if strings.Contains(r, w) || strings.Contains(t, w) {
				return true
			}
		}
		return false
	}
	switch {
	case name != "" && (has("tool", "function") || r == ""):
		return agenthook.ToolSource(name)
	case has("mcp"):
		return memcore.SourceMCP
	case has("web", "browser", "fetch", "search", "url"):
		return memcore.SourceWeb
	case has("file", "read"):
		return memcore.SourceFileRead
	case has("subagent", "sub_agent", "task"):
		return memcore.SourceSubagent
	case has("tool", "function", "command", "shell", "bash", "exec"):
		return memcore.SourceToolOutput
	case r == "" && t == "":
		return memcore.SourceToolOutput // recorded content of unknown origin
	}
	return memcore.SourceAgentGenerated // assistant, system, model, anything else
}

// contentText flattens content: a string, or an array of parts (text
// parts are returned as the person's when person is true, other parts are
// tainted segments), or any other JSON value as tainted text.
func contentSegments(raw json.RawMessage, person bool, fallback memcore.Source) []segment {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		return nil
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		if person {
			return []segment{{"", s}}
		}
		return []segment{{fallback, s}}
	}
	var parts []part
	if json.Unmarshal(raw, &parts) == nil {
		var out []segment
		for _, p := range parts {
			switch {
			case personTypes[strings.ToLower(p.Type)] && len(bytes.TrimSpace(p.Content)) == 0:
				src := fallback
				if person {
					src = ""
				}
				out = append(out, segment{src, p.Text})
			default:
				src := sourceFor("", p.Type, p.Name)
				if src == "" {
					continue
				}
				if p.Text != "" {
					out = append(out, segment{src, p.Text})
				}
				for _, sub := range contentSegments(p.Content, false, src) {
					out = append(out, segment{src, sub.text})
				}
			}
		}
		return out
	}
	return []segment{{fallback, string(raw)}}
}

// IngestSummary is ingest's --json output.
type IngestSummary struct {
	Lines int `json:"lines"`
	// Messages are the person's messages run through the pipeline.
	Messages    int `json:"messages"`
	Added       int `json:"added"`
	Quarantined int `json:"quarantined"`
	Refreshed   int `json:"refreshed"`
	Promoted    int `json:"promoted"`
	Links       int `json:"links"`
	Evicted     int `json:"evicted"`
	// Tainted counts content that was not the person's and was stored as
	// a quarantine candidate with its source class.
	Tainted    int   `json:"tainted"`
	Inferences int64 `json:"inferences"`
	// NotUTF8 counts lines holding bytes that are not UTF-8: each run of
	// them was kept as U+FFFD.
	NotUTF8    int      `json:"not_utf8,omitempty"`
	Warnings   []string `json:"warnings,omitempty"`
	Errors     []string `json:"errors,omitempty"`
	ErrorCount int      `json:"error_count,omitempty"`
}

type ingester struct {
	// An inline approval ("odek, remember that") answers what its session
	// quarantined since the person's previous message, so in a session
	// that may hold one the person's messages and other content reach the
	// store in file order (a write per switch between the two); elsewhere
	// both kinds batch independently. strictAll covers every session
	// (stdin, which cannot be read twice); strict lists the sessions of a
	// file with a line that says "remember" in any letter case (every
	// inline command does).
	strictAll bool
	strict    map[string]bool
	// probe, when set, makes this a first pass: the person's messages go
	// to probe and nothing is stored.
	probe   func(memcore.Turn)
	c       *ctx
	h       *memcore.Hook
	sum     IngestSummary
	persons []memcore.Turn
	tainted []memcore.AddRequest
	maxText int
}

func (in *ingester) fail(line int, format string, a ...any) {
	in.sum.ErrorCount++
	if len(in.sum.Errors) < 100 {
		in.sum.Errors = append(in.sum.Errors, fmt.Sprintf("line %d: ", line)+plainJSON(fmt.Sprintf(format, a...)))
	}
}

func (in *ingester) warn(w ...string) {
	for _, s := range w {
		if len(in.sum.Warnings) < 100 {
			in.sum.Warnings = append(in.sum.Warnings, s)
		}
	}
}

func (in *ingester) flushPersons() error {
	if len(in.persons) == 0 {
		return nil
	}
	rrs, err := in.h.RecordUserMessages(in.c, in.persons)
	in.persons = in.persons[:0]
	for _, rr := range rrs {
		if !rr.SkippedTurn {
			in.sum.Messages++
		}
		for _, a := range rr.Added {
			in.count(a)
		}
		in.sum.Promoted += len(rr.Promoted)
		in.sum.Links += rr.Links
		if rr.Inference {
			in.sum.Inferences++
		}
		in.warn(rr.Warnings...)
	}
	return err
}

func (in *ingester) count(a memcore.AddResult) {
	in.sum.Evicted += len(a.Evicted)
	switch {
	case a.Duplicate:
	case a.Quarantined:
		in.sum.Quarantined++
	case a.Refreshed:
		in.sum.Refreshed++
	default:
		in.sum.Added++
	}
}

func (in *ingester) flushTainted() error {
	if len(in.tainted) == 0 {
		return nil
	}
	res, errs, err := in.c.store.AddBatch(in.c, in.tainted)
	in.tainted = in.tainted[:0]
	if err != nil {
		return err
	}
	for i, r := range res {
		if errs[i] != nil {
			in.warn("store tainted content: " + errs[i].Error())
			continue
		}
		in.sum.Tainted++
		in.count(r)
	}
	return nil
}

// person queues one of the person's messages; order with tainted content
// is kept exactly (an inline approval answers what came before it).
func (in *ingester) person(t memcore.Turn) error {
	if in.probe != nil {
		in.probe(t)
		return nil
	}
	if in.ordered(t.SessionID) {
		if err := in.flushTainted(); err != nil {
			return err
		}
	}
	in.persons = append(in.persons, t)
	if len(in.persons) >= ingestBatch {
		return in.flushPersons()
	}
	return nil
}

func (in *ingester) taint(source memcore.Source, text string, t memcore.Turn) error {
	text = strings.Join(strings.Fields(text), " ")
	if text == "" || in.probe != nil {
		return nil
	}
	if in.ordered(t.SessionID) {
		if err := in.flushPersons(); err != nil {
			return err
		}
	}
	// Redact the whole line before cutting it: a secret across the cut
	// would otherwise reach the store in part.
	text, _ = scan.Redact(text)
	if in.maxText > 1 {
		text = textutil.TruncateChars(text, in.maxText-1)
	}
	in.tainted = append(in.tainted, memcore.AddRequest{Text: text, Type: memcore.TypeObservation, Source: source, Confidence: 0.5, CreatedAt: t.Time,
		Context: memcore.AtomContext{SessionID: t.SessionID, Turn: t.TurnIndex, Project: t.Project}})
	if len(in.tainted) >= 4*ingestBatch {
		return in.flushTainted()
	}
	return nil
}

func (in *ingester) ordered(session string) bool { return in.strictAll || in.strict[session] }

func cmdIngest(c *ctx) error {
	procstart.RestoreGC() // a bulk job: garbage from its input must be collected as it goes (procstart.DeferGC)
	if len(c.p.pos) > 1 {
		return usagef("expected ingest [FILE|-]")
	}
	var r io.Reader = c.env.Stdin
	var size int64
	h := memcore.NewHook(c.store)
	strictAll := true
	var strict map[string]bool
	if len(c.p.pos) == 1 && c.p.pos[0] != "-" {
		f, err := os.Open(c.p.pos[0])
		if err != nil {
			return fmt.Errorf("ingest: %w", err)
		}
		defer f.Close()
		if fi, err := f.Stat(); err == nil {
			if !fi.Mode().IsRegular() {
				return fmt.Errorf("ingest: %s is not a regular file", c.p.pos[0])
			}
			size = fi.Size()
		}
		// A first pass (a file can be read twice, stdin cannot) finds the
		// sessions that may hold an inline command: only there does order
		// between the person's messages and other content matter.
		sessions, err := approvalSessions(c, h, f)
		if err != nil {
			return fmt.Errorf("ingest: %w", err)
		}
		if _, err := f.Seek(0, io.SeekStart); err != nil {
			return fmt.Errorf("ingest: %w", err)
		}
		strictAll, strict = sessions == nil, sessions
		r = f
	}
	in := &ingester{strictAll: strictAll, strict: strict, c: c, h: h, maxText: c.store.Config().AtomMaxChars}
	bar := progressBar(c, "ingest", size)
	lr := jsonl.NewReader(r, jsonl.MaxLine)
	mode := 0 // 0 unknown, 1 plain text, 2 JSONL
	var runErr error
	for runErr == nil {
		if err := c.Err(); err != nil {
			runErr = err
			break
		}
		b, err := lr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			if errors.Is(err, jsonl.ErrLineTooLong) {
				in.fail(lr.Line(), "longer than %d bytes; skipped", jsonl.MaxLine)
				continue
			}
			runErr = fmt.Errorf("ingest: %w", err)
			break
		}
		bar.set(lr.Line(), lr.Bytes())
		if len(b) == 0 {
			continue
		}
		if !utf8.Valid(b) {
			// Said, not done silently: each run of bytes that are not
			// UTF-8 becomes U+FFFD (JSON decoding does the same).
			in.sum.NotUTF8++
			b = bytes.ToValidUTF8(b, []byte("\uFFFD"))
		}
		if mode == 0 {
			mode = 1
			if b[0] == '{' {
				mode = 2
			}
		}
		t := memcore.Turn{SessionID: c.p.flags["session"], Project: c.p.flags["project"]}
		if mode == 1 {
			if len(b) > maxMessage {
				in.fail(lr.Line(), "message of %d bytes (at most %d)", len(b), maxMessage)
				continue
			}
			t.Message = string(b)
			runErr = in.person(t)
			continue
		}
		runErr = in.jsonLine(lr.Line(), b, t)
	}
	if runErr == nil {
		runErr = in.flushTainted()
	}
	if runErr == nil {
		runErr = in.flushPersons()
	}
	in.h.Close(context.Background()) // waits for the background inference
	bar.done()
	in.sum.Lines = lr.Line()
	if runErr != nil {
		return fmt.Errorf("ingest: line %d: %w", lr.Line(), runErr)
	}
	in.warn(in.h.Warnings()...)
	sum := in.sum
	if c.json {
		if err := c.emitJSON(sum); err != nil {
			return err
		}
	} else {
		c.out("ingested %d messages from the person: %d atoms added, %d refreshed, %d quarantined, %d promoted, %d links, %d user-state inferences\n",
			sum.Messages, sum.Added, sum.Refreshed, sum.Quarantined, sum.Promoted, sum.Links, sum.Inferences)
		if sum.Tainted > 0 {
			c.out("%d pieces of content that were not the person's (tool results, assistant turns, web, files) wait in quarantine\n", sum.Tainted)
		}
		if sum.NotUTF8 > 0 {
			c.warn("lines with bytes that are not UTF-8: %d; each run of such bytes was kept as \uFFFD (�)", sum.NotUTF8)
		}
	}
	if sum.Evicted > 0 {
		c.warn("evicted %d older atoms to stay under the size cap", sum.Evicted)
	}
	for _, w := range dedupe(sum.Warnings) {
		c.warn("%s", w)
	}
	for _, e := range sum.Errors {
		c.warn("ingest: %s", e)
	}
	if sum.ErrorCount > len(sum.Errors) {
		c.warn("ingest: … and %d more", sum.ErrorCount-len(sum.Errors))
	}
	if sum.ErrorCount > 0 {
		return fmt.Errorf("ingest: %d lines could not be ingested", sum.ErrorCount)
	}
	return nil
}

// jsonLine handles one line of a JSONL transcript.
func (in *ingester) jsonLine(line int, b []byte, t memcore.Turn) error {
	if b[0] != '{' {
		in.fail(line, "not a JSON object (the transcript is JSONL: every line is one)")
		return nil
	}
	if err := jsonl.CheckKeys(b); err != nil {
		in.fail(line, "%v", err)
		return nil
	}
	var tl transcriptLine
	if err := json.Unmarshal(b, &tl); err != nil {
		in.fail(line, "invalid JSON: %v", err)
		return nil
	}
	if tl.Session != "" {
		t.SessionID = tl.Session
	}
	if tl.Project != "" {
		t.Project = tl.Project
	}
	if tl.Turn < 0 {
		in.fail(line, "turn %d is negative", tl.Turn)
		return nil
	}
	t.TurnIndex = tl.Turn
	if tl.Time != "" {
		ts, err := time.Parse(time.RFC3339Nano, tl.Time)
		if err != nil {
			in.fail(line, "time %q is not RFC 3339", textutil.TruncateChars(tl.Time, 40))
			return nil
		}
		t.Time = ts
	}
	name := tl.Name
	if name == "" {
		name = tl.ToolName
	}
	isPerson := tl.Role == "user" && personTypes[tl.Type] && tl.ToolName == ""
	var fallback memcore.Source
	if !isPerson {
		if fallback = sourceFor(tl.Role, tl.Type, name); fallback == "" {
			return nil // edits, to-do lists, odekmem's own tools
		}
	}
	var person []string
	for _, seg := range contentSegments(tl.Content, isPerson, fallback) {
		if seg.source == "" {
			person = append(person, seg.text)
			continue
		}
		if err := in.taint(seg.source, seg.text, t); err != nil {
			return err
		}
	}
	if len(person) > 0 {
		msg := strings.Join(person, "\n")
		if len(msg) > maxMessage {
			in.fail(line, "message of %d bytes (at most %d)", len(msg), maxMessage)
			return nil
		}
		t.Message = msg
		return in.person(t)
	}
	return nil
}

// maxStrictSessions bounds the first pass's session set; a file with more
// sessions holding an inline command is ingested in file order throughout.
const maxStrictSessions = 100_000

// approvalSessions is ingest's first pass over a file: the sessions (as
// ingest keys them: the line's "session", else --session) in which a
// message of the person's holds an inline command, found by decoding every
// line exactly as the second pass does and asking the Hook's own parse
// (MayApprove). Constant memory; nil means "all sessions" (too many).
func approvalSessions(c *ctx, h *memcore.Hook, r io.Reader) (map[string]bool, error) {
	out := map[string]bool{}
	probe := &ingester{c: c, h: h}
	probe.probe = func(t memcore.Turn) {
		if out != nil && h.MayApprove(t.Message) {
			out[t.SessionID] = true
			if len(out) > maxStrictSessions {
				out = nil
			}
		}
	}
	lr := jsonl.NewReader(r, jsonl.MaxLine)
	for first := true; out != nil; {
		b, err := lr.Next()
		if err == io.EOF {
			break
		}
		if errors.Is(err, jsonl.ErrLineTooLong) {
			continue // skipped by the second pass too
		}
		if err != nil {
			return nil, err
		}
		if len(b) == 0 {
			continue
		}
		if first && b[0] != '{' {
			return out, nil // plain lines: every one the person's, nothing to order
		}
		first = false
		probe.jsonLine(lr.Line(), b, memcore.Turn{SessionID: c.p.flags["session"], Project: c.p.flags["project"]})
	}
	return out, nil
}
