package memcore

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"regexp"
	"sort"
	"strings"
	"time"

	"github.com/odekmem/odekmem/internal/embed"
	"github.com/odekmem/odekmem/internal/lazyre"
	"github.com/odekmem/odekmem/internal/llm"
	"github.com/odekmem/odekmem/internal/textutil"
	"github.com/odekmem/odekmem/internal/vocab"
)

// Superseded memories. When a new trusted atom contradicts an older one on
// the same subject ("we moved order events from RabbitMQ to Kafka" after
// "we use RabbitMQ for order events"), the older one is superseded: it is
// kept and shown, linked to its successor, and never recalled above it
// (recall drops it when its successor is not among the results). Each such
// pair waits in a list for the person to resolve: keep-new (the older stays
// superseded), keep-old (the newer one is superseded instead) or keep-both
// (neither is). The memory LLM finds contradictions when one is
// configured; offline a conservative rule does (see ruleContradiction).
//
// The list lives in odekmem's own file contradictions.json, which odek
// does not read: atoms.json keeps odek's shape.

const fileContradictions = "contradictions.json"

// Resolutions of a contradiction.
const (
	ResolveKeepNew  = "keep-new"
	ResolveKeepOld  = "keep-old"
	ResolveKeepBoth = "keep-both"
)

// linkSupersedes is the association kind between a superseded atom and its
// successor.
const linkSupersedes = "supersedes"

// Contradiction is a pair of atoms where the newer one replaces the older.
type Contradiction struct {
	ID  string `json:"id"`
	Old string `json:"old"`
	New string `json:"new"`
	// Subject is what both are about, when the rule found it.
	Subject string `json:"subject,omitempty"`
	// Method is "rule" or "llm".
	Method     string     `json:"method"`
	CreatedAt  time.Time  `json:"created_at"`
	Resolution string     `json:"resolution,omitempty"`
	ResolvedAt *time.Time `json:"resolved_at,omitempty"`
}

// supersededPair is the (superseded, successor) pair c stands for, if any.
func (c Contradiction) supersededPair() (old, successor string, ok bool) {
	switch c.Resolution {
	case "", ResolveKeepNew:
		return c.Old, c.New, true
	case ResolveKeepOld:
		return c.New, c.Old, true
	}
	return "", "", false
}

type contradictionFile struct {
	Version        string          `json:"version"`
	Contradictions []Contradiction `json:"contradictions"`
}

// loadContradictionsLocked reads contradictions.json; damage is reported
// and the file moved aside (it is only odekmem's bookkeeping).
func (s *Store) loadContradictionsLocked(repair bool) {
	s.contra = nil
	data, err := s.readTrackedLocked(fileContradictions)
	if errors.Is(err, fs.ErrNotExist) {
		return
	}
	var f contradictionFile
	if err == nil {
		err = json.Unmarshal(data, &f)
	}
	if err != nil {
		if repair {
			s.report(fileContradictions, "invalid: "+err.Error(), s.moveAside(fileContradictions))
		}
		return
	}
	for _, c := range f.Contradictions {
		if vocab.ValidID(c.ID) && vocab.ValidID(c.Old) && vocab.ValidID(c.New) && c.Old != c.New {
			s.contra = append(s.contra, c)
		}
	}
}

func (s *Store) writeContradictionsLocked() error {
	b, err := json.MarshalIndent(contradictionFile{Version: "1", Contradictions: s.contra}, "", "  ")
	if err != nil {
		return fmt.Errorf("marshal contradictions: %w", err)
	}
	return s.writeTracked(fileContradictions, b)
}

// supersededLocked maps each superseded live atom to its live successor.
func (s *Store) supersededLocked() map[string]string {
	if len(s.contra) == 0 {
		return nil
	}
	m := map[string]string{}
	for _, c := range s.contra {
		old, succ, ok := c.supersededPair()
		if ok && s.byID[old] != nil && s.byID[succ] != nil {
			m[old] = succ
		}
	}
	return m
}

// supersededBy returns the successor of a superseded live atom, or ""
// when nothing supersedes it.
func (s *Store) supersededBy(ctx context.Context, id string) (string, error) {
	var succ string
	err := s.read(ctx, func() { succ = s.supersededLocked()[id] })
	return succ, err
}

// Contradictions lists contradictions between live atoms, newest first:
// the pending ones, or all with all.
func (s *Store) Contradictions(ctx context.Context, all bool) ([]Contradiction, error) {
	var out []Contradiction
	err := s.read(ctx, func() {
		for _, c := range s.contra {
			if (all || c.Resolution == "") && s.byID[c.Old] != nil && s.byID[c.New] != nil {
				out = append(out, c)
			}
		}
	})
	sort.SliceStable(out, func(i, j int) bool { return out[i].CreatedAt.After(out[j].CreatedAt) })
	return out, err
}

// ResolveContradiction records the person's decision on a contradiction
// (keep-new, keep-old or keep-both) and returns it. A decided one may be
// decided again.
func (s *Store) ResolveContradiction(ctx context.Context, id, resolution string) (Contradiction, Undo, error) {
	switch resolution {
	case ResolveKeepNew, ResolveKeepOld, ResolveKeepBoth:
	default:
		return Contradiction{}, Undo{}, fmt.Errorf("%w, got %q", errBadResolution, resolution)
	}
	var out, before Contradiction
	if !vocab.ValidID(id) {
		return out, Undo{}, invalidID("contradiction", id)
	}
	if err := s.setResolution(ctx, id, func(c *Contradiction) {
		before = *c
		now := s.now().UTC()
		c.Resolution, c.ResolvedAt = resolution, &now
		out = *c
	}); err != nil {
		return out, Undo{}, err
	}
	return out, Undo{label: "resolve " + shortID(id) + " " + resolution, back: func(ctx context.Context) error {
		return s.setResolution(ctx, id, func(c *Contradiction) { c.Resolution, c.ResolvedAt = before.Resolution, before.ResolvedAt })
	}}, nil
}

// setResolution changes contradiction id in place under the write lock;
// both of its atoms must still be live.
func (s *Store) setResolution(ctx context.Context, id string, set func(*Contradiction)) error {
	return s.update(ctx, func(t *tx) error {
		for i, c := range s.contra {
			if c.ID != id {
				continue
			}
			if s.byID[c.Old] == nil || s.byID[c.New] == nil {
				return fmt.Errorf("contradiction %s: %w (one of its atoms was forgotten)", id, ErrNotFound)
			}
			set(&s.contra[i])
			t.contra = true
			return nil
		}
		return fmt.Errorf("contradiction %s: %w", id, ErrNotFound)
	})
}

// DetectContradictions checks a live trusted atom against the older live
// atoms and records every contradiction it finds: the older atom is
// superseded at once, the pair linked, and the contradiction waits for the
// person. With a memory LLM the candidates are the older atoms most
// similar to it and the model decides; without one, or when the model
// fails, the offline rule decides. A pair already recorded (in either
// direction, resolved or not) is not recorded again.
func (s *Store) DetectContradictions(ctx context.Context, id string) ([]Contradiction, error) {
	return s.detectContradictions(ctx, id, s.opts.LLM, nil)
}

// detectContradictions is DetectContradictions with a given memory LLM
// (nil = the rule); bound, when set, wraps the context of the LLM call.
func (s *Store) detectContradictions(ctx context.Context, id string, c llm.Client, bound func(context.Context) (context.Context, context.CancelFunc)) ([]Contradiction, error) {
	a, q, err := s.Get(ctx, id)
	if err != nil {
		return nil, err
	}
	if q != nil || vocab.IsTainted(a.SourceClass) {
		return nil, nil // only a trusted live atom can supersede
	}
	known := map[string]bool{}
	var older []Atom
	s.read(ctx, func() {
		for _, c := range s.contra {
			known[c.Old+" "+c.New], known[c.New+" "+c.Old] = true, true
		}
		for _, e := range s.order {
			b := e.atom
			if b.ID != a.ID && !b.CreatedAt.After(a.CreatedAt) && !known[a.ID+" "+b.ID] {
				older = append(older, b)
			}
		}
	})
	if len(older) == 0 {
		return nil, nil
	}
	type found struct {
		old     Atom
		subject string
		method  string
	}
	var hits []found
	llmDone := false
	if c != nil {
		cands := s.contradictionCandidates(ctx, a, older)
		if len(cands) > 0 {
			texts := make([]string, len(cands))
			for i, b := range cands {
				texts[i] = b.Text
			}
			cctx, cancel := ctx, context.CancelFunc(func() {})
			if bound != nil {
				cctx, cancel = bound(ctx)
			}
			idx, err := llm.Contradicts(cctx, c, a.Text, texts)
			cancel()
			if err == nil {
				llmDone = true
				for _, i := range idx {
					hits = append(hits, found{old: cands[i], method: "llm"})
				}
			}
		} else {
			llmDone = true
		}
	}
	if !llmDone {
		for _, b := range older {
			if subj, ok := ruleContradiction(a, b); ok {
				hits = append(hits, found{old: b, subject: subj, method: "rule"})
			}
		}
	}
	if len(hits) == 0 {
		return nil, nil
	}
	var out []Contradiction
	err = s.update(ctx, func(t *tx) error {
		if s.byID[a.ID] == nil {
			return nil // forgotten meanwhile
		}
		for _, h := range hits {
			if s.byID[h.old.ID] == nil {
				continue
			}
			c := Contradiction{ID: vocab.NewID(), Old: h.old.ID, New: a.ID, Subject: textutil.TruncateChars(h.subject, 120), Method: h.method, CreatedAt: s.now().UTC()}
			s.contra = append(s.contra, c)
			s.graph.link(c.Old, c.New, linkSupersedes)
			out = append(out, c)
		}
		t.contra, t.assoc = len(out) > 0, len(out) > 0
		return nil
	})
	return out, err
}

// contradictionCandidates are the older atoms the LLM is shown: the most
// similar ones above the gate, at most eight.
func (s *Store) contradictionCandidates(ctx context.Context, a Atom, older []Atom) []Atom {
	isOlder := map[string]Atom{}
	for _, b := range older {
		isOlder[b.ID] = b
	}
	res, err := s.Search(ctx, a.Text, SearchOptions{K: 12})
	if err != nil {
		return nil
	}
	var out []Atom
	for _, r := range res {
		if b, ok := isOlder[r.Atom.ID]; ok && len(out) < 8 {
			out = append(out, b)
		}
	}
	return out
}

// orderSuperseded enforces "never above its successor" on a ranked list: a
// superseded atom whose successor is in the list moves to just after it; one
// whose successor is not in the list is dropped.
func orderSuperseded(list []Scored, succ map[string]string) []Scored {
	if len(succ) == 0 || len(list) == 0 {
		return list
	}
	for pass := 0; pass < 4; pass++ {
		pos := make(map[string]int, len(list))
		for i, r := range list {
			pos[r.Atom.ID] = i
		}
		changed := false
		out := make([]Scored, 0, len(list))
		var moved []Scored
		for _, r := range list {
			n, sup := succ[r.Atom.ID]
			if !sup {
				out = append(out, r)
				continue
			}
			j, present := pos[n]
			switch {
			case !present:
				changed = true // dropped
			case j < pos[r.Atom.ID]:
				out = append(out, r) // already below its successor
			default:
				moved = append(moved, r)
				changed = true
			}
		}
		for _, r := range moved {
			at := len(out)
			for i, x := range out {
				if x.Atom.ID == succ[r.Atom.ID] {
					at = i + 1
					break
				}
			}
			out = append(out[:at], append([]Scored{r}, out[at:]...)...)
		}
		list = out
		if !changed {
			break
		}
	}
	return list
}

// orderSupersededNow is orderSuperseded with the store's current pairs.
func (s *Store) orderSupersededNow(list []Scored) []Scored {
	var succ map[string]string
	s.mu.RLock()
	succ = s.supersededLocked()
	s.mu.RUnlock()
	return orderSuperseded(list, succ)
}

// The offline rule is deliberately conservative: it only fires on two
// statements of the same type that name the same subject in one of a few
// fixed phrasings with different values ("we use X for S", "decided to use
// X for S", "S is X"), or on an explicit change ("moved from A to B",
// "switched from A to B", "replaced A with B") against an older statement
// of the same type that names A and not B.
var (
	ruleCut    = lazyre.New(`(?i)\s*(?:[,;:.!?()]|\s-\s|\bbecause\b|\bsince\b|\bso that\b|\bwhich\b|\bbut\b).*$`)
	ruleChange = []*lazyre.Regexp{
		// object (what moved, may be empty), from, to
		lazyre.New(`(?i)\b(?:moved|moving|switched|switching|migrated|migrating|changed|changing|went|go|going|move|switch|migrate)\b((?:\s+[\w'-]+){0,4}?)\s+from\s+([\w.+#/-]+(?:\s+[\w.+#/-]+)?)\s+(?:to|onto|over to)\s+([\w.+#/-]+)`),
		lazyre.New(`(?i)\breplac(?:e|ed|ing)()\s+([\w.+#/-]+(?:\s+[\w.+#/-]+)?)\s+(?:with|by)\s+([\w.+#/-]+)`),
	}
	ruleSV = []*lazyre.Regexp{
		// value, subject
		lazyre.New(`(?i)^(?:we|i|the team|they)\s+(?:now\s+)?(?:use|uses|are using|am using|is using)\s+(.+?)\s+(?:for|as)\s+(.+)$`),
		lazyre.New(`(?i)\b(?:decided|agreed|chose|choose|settled)\s+(?:to use|on)\s+(.+?)\s+(?:for|as)\s+(.+)$`),
	}
	// subject, value
	ruleIs = lazyre.New(`(?i)^(.+?)\s+(?:is|are|runs on|run on|is written in|are written in|is stored in|are stored in|lives in|live in)\s+(.+)$`)
)

// ruleContradiction reports whether newer replaces older under the
// offline rule, and the subject.
func ruleContradiction(newer, older Atom) (string, bool) {
	longLived := map[Type]bool{TypeDecision: true, TypeConvention: true, TypeFact: true, TypePreference: true, TypeGoal: true}
	for _, re := range ruleChange {
		if m := re.FindStringSubmatch(newer.Text); m != nil && newer.Type == older.Type && longLived[newer.Type] {
			from, to := ruleNorm(m[2]), ruleNorm(m[3])
			// "moved billing events from Kafka to NATS" changes billing
			// events: an older statement about order events on Kafka
			// stays true.
			if from != "" && to != "" && from != to && mentions(older.Text, from) && !mentions(older.Text, to) && namesObject(older.Text, m[1]) {
				return strings.TrimSpace(m[2]), true
			}
		}
	}
	if newer.Type != older.Type {
		return "", false
	}
	ns, nv, ok1 := subjectValue(newer.Text)
	olds, ov, ok2 := subjectValue(older.Text)
	if !ok1 || !ok2 || ns != olds || nv == ov || strings.Contains(nv, ov) || strings.Contains(ov, nv) {
		return "", false
	}
	return ns, true
}

// subjectValue extracts a normalised (subject, value) from a statement in
// one of the rule's phrasings.
func subjectValue(text string) (string, string, bool) {
	t := strings.TrimSpace(ruleCut.ReplaceAllString(strings.TrimSpace(text), ""))
	t = strings.TrimPrefix(strings.TrimPrefix(t, "Convention: "), "Decision: ")
	for _, re := range ruleSV {
		if m := re.FindStringSubmatch(t); m != nil {
			return ruleSubject(m[2]), ruleNorm(m[1]), ruleSubject(m[2]) != "" && ruleNorm(m[1]) != "" && words(m[1]) <= 4
		}
	}
	if m := ruleIs.FindStringSubmatch(t); m != nil && words(m[2]) <= 4 && words(m[1]) <= 6 {
		s, v := ruleSubject(m[1]), ruleNorm(m[2])
		return s, v, s != "" && v != ""
	}
	return "", "", false
}

func words(s string) int { return len(strings.Fields(s)) }

// ruleNorm lowercases, drops articles and punctuation around words.
func ruleNorm(s string) string {
	var out []string
	for _, w := range strings.Fields(strings.ToLower(s)) {
		w = strings.Trim(w, `"'.,;:!?()[]{}`)
		switch w {
		case "", "a", "an", "the", "our", "my", "its", "their":
			continue
		}
		out = append(out, w)
	}
	return strings.Join(out, " ")
}

// ruleSubject is ruleNorm with each word stemmed, so "order events" and
// "the order event" name the same subject.
func ruleSubject(s string) string {
	f := strings.Fields(ruleNorm(s))
	for i, w := range f {
		f[i] = embed.Stem(w)
	}
	return strings.Join(f, " ")
}

// changeFiller are words between a change verb and "from" that name no
// object ("we moved everything over from …").
var changeFiller = map[string]bool{"it": true, "them": true, "everything": true, "all": true, "over": true, "back": true,
	"this": true, "that": true, "these": true, "those": true, "stuff": true, "things": true, "us": true, "away": true, "entirely": true, "fully": true, "now": true}

// namesObject reports whether text names every word of the object a
// change statement moved (stemmed, so "order events" matches "the order
// event"); an empty object matches anything.
func namesObject(text, object string) bool {
	have := map[string]bool{}
	for _, w := range strings.Fields(ruleSubject(text)) {
		have[w] = true
	}
	for _, w := range strings.Fields(ruleNorm(object)) {
		if changeFiller[w] {
			continue
		}
		if !have[embed.Stem(w)] {
			return false
		}
	}
	return true
}

// mentions reports whether text names phrase as whole words.
func mentions(text, phrase string) bool {
	re, err := regexp.Compile(`(?i)(^|[^\w])` + regexp.QuoteMeta(phrase) + `($|[^\w])`)
	return err == nil && re.MatchString(text)
}
