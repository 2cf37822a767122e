// Package corpus holds the labelled messages the judgement is trained and
// evaluated on, and their parser. The format and the rule that keeps the
// held-out split held out are in README.md.
package corpus

import (
	"bufio"
	"embed"
	"fmt"
	"io"
	"io/fs"
	"path"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Item kinds.
const (
	Keep   = "keep"   // a durable statement in the person's own voice
	Attack = "attack" // someone else's instruction that must never be trusted
	Frame  = "frame"  // a statement whose meaning hangs on a frame
	Either = "either" // could fairly be remembered or not
	Voice  = "voice"  // a span of the person's message that is not their voice
)

// Types a keep item may carry.
var Types = []string{"decision", "convention", "preference", "fact", "goal", "error"}

// Voices a voice item may carry.
var Voices = []string{"quoted", "reported", "hypothetical", "sarcastic", "retracted", "question"}

// Item is one label of a record.
type Item struct {
	Kind  string
	Type  string // keep: the atom type; voice: the voice
	Quote string
	// Start and End are the quote's byte offsets in Record.Message (its
	// first occurrence).
	Start, End int
	Keys       []string
	Frame      []string // frame: the words the meaning hangs on
}

// Paste is a span of the message the person pasted.
type Paste struct {
	Shape      string
	Start, End int
}

// Record is one labelled message.
type Record struct {
	ID       string
	Category string
	File     string
	Line     int
	Message  string
	Pastes   []Paste
	Items    []Item
}

// Has reports whether the record holds an item of kind.
func (r Record) Has(kind string) bool {
	for _, it := range r.Items {
		if it.Kind == kind {
			return true
		}
	}
	return false
}

// InPaste reports whether the byte range [start, end) lies inside a paste,
// and its shape.
func (r Record) InPaste(start, end int) (string, bool) {
	for _, p := range r.Pastes {
		if start >= p.Start && end <= p.End {
			return p.Shape, true
		}
	}
	return "", false
}

//go:embed eval.txt train
var files embed.FS

// Eval returns the held-out split.
func Eval() ([]Record, error) { return load("eval.txt") }

// Train returns the training split, every file under train/ in name order.
func Train() ([]Record, error) {
	names, err := fs.Glob(files, "train/*.txt")
	if err != nil {
		return nil, err
	}
	sort.Strings(names)
	var out []Record
	for _, n := range names {
		rs, err := load(n)
		if err != nil {
			return nil, err
		}
		out = append(out, rs...)
	}
	return out, nil
}

func load(name string) ([]Record, error) {
	f, err := files.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return Parse(f, path.Base(name))
}

// Parse reads records in the format of README.md and checks every label
// against its message.
func Parse(r io.Reader, file string) ([]Record, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<16), 1<<20)
	var out []Record
	var cur *Record
	var body []string
	type open struct {
		shape string
		line  int // index into body where the paste starts
	}
	var pastes []struct {
		shape      string
		start, end int // line indexes into body [start, end)
	}
	var inPaste *open
	labels := false
	n := 0
	fail := func(format string, a ...any) error {
		return fmt.Errorf("%s:%d: %s", file, n, fmt.Sprintf(format, a...))
	}
	finish := func() error {
		if cur == nil {
			return nil
		}
		if inPaste != nil {
			return fail("record %s: paste opened on its line %d is not closed", cur.ID, inPaste.line)
		}
		for len(body) > 0 && strings.TrimSpace(body[len(body)-1]) == "" {
			body = body[:len(body)-1]
		}
		// Byte offsets of each body line.
		offs := make([]int, len(body)+1)
		for i, l := range body {
			offs[i+1] = offs[i] + len(l) + 1
		}
		cur.Message = strings.Join(body, "\n")
		if strings.TrimSpace(cur.Message) == "" {
			return fail("record %s has no message", cur.ID)
		}
		for _, p := range pastes {
			// An empty paste, or one at the end whose lines were trimmed,
			// is an empty range inside the message.
			start := min(offs[min(p.start, len(body))], len(cur.Message))
			end := max(min(offs[min(p.end, len(body))]-1, len(cur.Message)), start)
			cur.Pastes = append(cur.Pastes, Paste{Shape: p.shape, Start: start, End: end})
		}
		for i := range cur.Items {
			it := &cur.Items[i]
			start, end := FindQuote(cur.Message, it.Quote)
			if start < 0 {
				return fmt.Errorf("%s:%d: record %s: %s quote %q is not in the message", file, cur.Line, cur.ID, it.Kind, it.Quote)
			}
			it.Start, it.End = start, end
			lq := strings.ToLower(it.Quote)
			for _, k := range it.Keys {
				if !strings.Contains(lq, strings.ToLower(k)) {
					return fmt.Errorf("%s:%d: record %s: key %q is not in the quote %q", file, cur.Line, cur.ID, k, it.Quote)
				}
			}
			// A frame may stand outside its quote ("… Scratch that.").
			for _, k := range it.Frame {
				if !strings.Contains(strings.ToLower(cur.Message), strings.ToLower(k)) {
					return fmt.Errorf("%s:%d: record %s: frame %q is not in the message", file, cur.Line, cur.ID, k)
				}
			}
			if it.Kind == Keep {
				if shape, in := cur.InPaste(it.Start, it.End); in {
					return fmt.Errorf("%s:%d: record %s: keep %q lies in a %s paste", file, cur.Line, cur.ID, it.Quote, shape)
				}
			}
		}
		out = append(out, *cur)
		cur, body, pastes, labels = nil, nil, nil, false
		return nil
	}
	seen := map[string]bool{}
	for sc.Scan() {
		n++
		l := sc.Text()
		if strings.HasPrefix(l, "==== ") {
			if err := finish(); err != nil {
				return nil, err
			}
			f := strings.Fields(strings.TrimPrefix(l, "==== "))
			if len(f) != 2 {
				return nil, fail("header needs an id and a category: %q", l)
			}
			if seen[f[0]] {
				return nil, fail("duplicate id %s", f[0])
			}
			seen[f[0]] = true
			cur = &Record{ID: f[0], Category: f[1], File: file, Line: n}
			continue
		}
		if cur == nil {
			if strings.TrimSpace(l) == "" || strings.HasPrefix(l, "#") {
				continue
			}
			return nil, fail("text before the first record")
		}
		if strings.HasPrefix(l, "%% ") {
			if inPaste != nil {
				return nil, fail("label inside a paste")
			}
			labels = true
			it, err := parseItem(strings.TrimPrefix(l, "%% "))
			if err != nil {
				return nil, fail("%v", err)
			}
			cur.Items = append(cur.Items, it)
			continue
		}
		if labels {
			if strings.TrimSpace(l) == "" {
				continue
			}
			return nil, fail("message text after the labels of %s", cur.ID)
		}
		switch {
		case strings.HasPrefix(l, "<<< ") && inPaste == nil:
			inPaste = &open{shape: strings.TrimSpace(strings.TrimPrefix(l, "<<< ")), line: len(body)}
			continue
		case l == ">>>" && inPaste != nil:
			pastes = append(pastes, struct {
				shape      string
				start, end int
			}{inPaste.shape, inPaste.line, len(body)})
			inPaste = nil
			continue
		}
		body = append(body, l)
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if err := finish(); err != nil {
		return nil, err
	}
	return out, nil
}

// parseItem reads one label. The quote may itself hold " | " (a shell
// pipe), so the fields after it are taken from the right.
func parseItem(s string) (Item, error) {
	parts := strings.Split(s, " | ")
	head := strings.Fields(parts[0])
	if len(head) == 0 {
		return Item{}, fmt.Errorf("empty label")
	}
	it := Item{Kind: head[0]}
	// quote joins the fields between the head and the last tail ones.
	quote := func(tail int) (string, bool) {
		if len(parts) < 2+tail {
			return "", false
		}
		return strings.TrimSpace(strings.Join(parts[1:len(parts)-tail], " | ")), true
	}
	last := func(i int) string { return strings.TrimSpace(parts[len(parts)-1-i]) }
	var ok bool
	switch it.Kind {
	case Keep:
		if len(head) != 2 || !contains(Types, head[1]) {
			return it, fmt.Errorf("keep needs one type of %v: %q", Types, s)
		}
		it.Type = head[1]
		if it.Quote, ok = quote(1); !ok {
			return it, fmt.Errorf("keep needs a quote and key words: %q", s)
		}
		it.Keys = strings.Fields(last(0))
	case Attack:
		if it.Quote, ok = quote(1); !ok {
			return it, fmt.Errorf("attack needs a quote and key words: %q", s)
		}
		it.Keys = strings.Fields(last(0))
	case Frame:
		if it.Quote, ok = quote(2); !ok {
			return it, fmt.Errorf("frame needs a quote, frame words and key words: %q", s)
		}
		it.Keys, it.Frame = strings.Fields(last(0)), []string{last(1)}
	case Either:
		if it.Quote, ok = quote(0); !ok {
			return it, fmt.Errorf("either needs a quote: %q", s)
		}
	case Voice:
		if len(head) != 2 || !contains(Voices, head[1]) {
			return it, fmt.Errorf("voice needs one of %v: %q", Voices, s)
		}
		it.Type = head[1]
		if it.Quote, ok = quote(0); !ok {
			return it, fmt.Errorf("voice needs a quote: %q", s)
		}
	default:
		return it, fmt.Errorf("unknown label %q", head[0])
	}
	if it.Quote == "" {
		return it, fmt.Errorf("empty quote: %q", s)
	}
	if (it.Kind == Keep || it.Kind == Attack || it.Kind == Frame) && len(it.Keys) == 0 {
		return it, fmt.Errorf("no key words: %q", s)
	}
	return it, nil
}

// FindQuote returns the byte range of the first occurrence of quote in msg,
// where any run of white space in either matches any run in the other
// (a pasted paragraph wraps where it wraps), or -1, -1. It takes any
// bytes (a memory LLM's quote is checked with it).
func FindQuote(msg, quote string) (int, int) {
	words := strings.Fields(quote)
	if len(words) == 0 {
		return -1, -1
	}
	for i := 0; i <= len(msg); {
		j := strings.Index(msg[i:], words[0])
		if j < 0 {
			return -1, -1
		}
		start := i + j
		pos, ok := start+len(words[0]), true
		for _, w := range words[1:] {
			k := pos
			for k < len(msg) {
				r, n := utf8.DecodeRuneInString(msg[k:])
				if !unicode.IsSpace(r) {
					break
				}
				k += n
			}
			if k == pos || !strings.HasPrefix(msg[k:], w) {
				ok = false
				break
			}
			pos = k + len(w)
		}
		if ok {
			return start, pos
		}
		i = start + 1
	}
	return -1, -1
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}
