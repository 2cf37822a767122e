package memcore

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"sort"
	"strings"
	"time"

	"github.com/odekmem/odekmem/internal/judge"
	"github.com/odekmem/odekmem/internal/lazyre"
	"github.com/odekmem/odekmem/internal/provenance"
	"github.com/odekmem/odekmem/internal/vocab"
)

// Inline approvals: what "odek, remember …" in the person's own message
// does. The agent's name is Config.AgentName (default "odek").
//
//   - "<agent>, remember that <clause>" (also "remember: <clause>",
//     "remember <clause>") is a statement: the clause is stored as the
//     person's own words (user_said). It approves nothing.
//   - A bare "<agent>, remember that" / "remember this" / "remember it"
//     approves the newest quarantined entry of the session created since
//     the person's previous message — the agent turn being answered. "all"
//     ("remember all of that", "remember them all", "remember everything")
//     approves every such entry. "remember the browser output" / "the test
//     results" / "the file" approves the newest entry of the source it
//     names (all of them when the person says "all" or uses a plural).
//   - Nothing is approved or stated when the phrase is negated ("don't
//     remember that", "I never said odek, remember that"), a question, in
//     quotation marks, reported ("he said odek, remember that"), retracted
//     later in the message ("… just kidding", "never mind"), or in text the
//     person pasted: an <untrusted_content> block, a fenced code block, a
//     "> " quote, or a message that looks pasted (more than three lines,
//     or any pasted region by the shared judgement of pasted.go: log or
//     terminal output, a stack trace, HTML, JSON, an e-mail, a web page).
//   - Entries the scanner rejected, and entries whose text fails the scan
//     when promote re-runs it, are never approved by a phrase: a person
//     promotes those after reading the findings.

type approvalKind int

const (
	approvalNone approvalKind = iota
	approvalBare
	approvalNamed
	approvalStatement
)

// approvalCmd is one parsed inline command.
type approvalCmd struct {
	kind   approvalKind
	all    bool
	source Source // approvalNamed: the source class named ("" = any)
	clause string // approvalStatement: the person's words to store
	phrase string // the sentence it came from
}

const maxApprovalLines = 3

var (
	approvalLead = `(?i)^(?:(?:ok|okay|thanks|thank you|great|good|nice|cool|yes|yep|yeah|sure|perfect|right|alright|hey|hi|please|also|and|so)[,.!]?\s+)*`
	approvalTail = `\s*[,:]?\s+(?:please\s+)?remember\b\s*(.*)$`
	retraction   = lazyre.New(`(?i)\b(?:just kidding|kidding|jk|never ?mind|scratch that|forget (?:it|that|this)|don'?t remember|do not remember|actually,? no|wait,? no|not that one|ignore that)\b`)
	fillerTail   = lazyre.New(`(?i)(?:[\s,]+(?:please|thanks|thank you|too|as well|for later|for next time|for me|for now|one|ok|okay|then|now))+$`)
	allObject    = lazyre.New(`(?i)^(?:all(?: of)?(?: (?:that|this|it|them|those|these))?|(?:that|this|it|them) all|all of them|everything|them|those|these|both)$`)
	bareObject   = lazyre.New(`(?i)^(?:that|this|it)$`)
	// namedObject is a determiner directly before a source noun, with at
	// most three modifiers between them, each a word that names a source
	// or picks one entry ("the last two web pages", "those test
	// results"). Any other word makes the object a clause with a subject
	// and a verb, a statement ("remember that I prefer short answers",
	// "that CI uploads build logs"), never an approval.
	namedObject = lazyre.New(`(?i)^(all(?: of)?\s+)?(?:the|those|these|that|this|your)\s+((?:` + approvalModifiers + `)\s+){0,3}(outputs?|results?|contents?|pages?|texts?|summary|summaries|answers?|responses?|logs?|findings|files?|notes?|suggestions?|ones?|entry|entries|memory|memories)$`)
	statementRe = lazyre.New(`(?i)^(?:(?:that|this)\s*:\s*|that\s+|:\s*)?(.+)$`)
)

// approvalModifiers are the words allowed between the determiner and the
// noun of a named approval: every word of sourceWords, and words that
// pick entries by position or count.
var approvalModifiers = func() string {
	words := []string{"last", "latest", "previous", "recent", "new", "newest", "above", "first", "second", "third",
		"other", "both", "two", "three", "four", "five", "few", "output", "outputs", "result", "results", "fetch", "fetched", "server", "agent's", "tool's"}
	for _, sw := range sourceWords {
		words = append(words, regexp.QuoteMeta(sw.word))
	}
	return strings.Join(words, "|")
}()

// retractNot is a bare "not" right after the sentence, past any
// punctuation: "… remember that. Not!", "… remember that... not.".
var retractNot = lazyre.New(`(?i)^[\s\p{P}\p{S}]*not(?:\s*[\p{P}\p{S}]|\s*$)`)

// retracts is the one test of whether the text after a sentence takes it
// back ("just kidding", "never mind", a bare "Not!"). The verbatim rule and
// inline approvals share it.
func retracts(after string) bool {
	return retraction.MatchString(after) || retractNot.MatchString(after)
}

// sourceWords maps words in an inline approval to the source they name.
var sourceWords = []struct {
	word   string
	source Source
}{
	{"browser", SourceWeb}, {"web", SourceWeb}, {"page", SourceWeb}, {"pages", SourceWeb}, {"search", SourceWeb}, {"website", SourceWeb},
	{"tool", SourceToolOutput}, {"command", SourceToolOutput}, {"shell", SourceToolOutput}, {"terminal", SourceToolOutput},
	{"test", SourceToolOutput}, {"tests", SourceToolOutput}, {"log", SourceToolOutput}, {"logs", SourceToolOutput}, {"build", SourceToolOutput},
	{"file", SourceFileRead}, {"files", SourceFileRead}, {"readme", SourceFileRead},
	{"mcp", SourceMCP}, {"subagent", SourceSubagent}, {"subagent's", SourceSubagent},
	{"your", SourceAgentGenerated}, {"suggestion", SourceAgentGenerated}, {"suggestions", SourceAgentGenerated},
	{"inference", SourceInferred}, {"inferences", SourceInferred},
}

// parseApprovals finds the inline commands in a message (see the rules
// above). It returns nothing for a message that looks pasted or retracts.
func parseApprovals(msg, agent string) []approvalCmd {
	// The shared judgement of pasted text (pasted.go): a message that
	// holds an unmarked paste, or more lines than a short answer, approves
	// nothing; fenced blocks and "> " quotes are left out.
	p := splitPasted(msg)
	if p.unmarked() || p.ownLines == 0 || p.ownLines > maxApprovalLines {
		return nil
	}
	analysis := provenance.Analyse(msg)
	var lines []string
	for _, l := range strings.Split(p.own, "\n") {
		if strings.TrimSpace(l) != "" {
			lines = append(lines, l)
		}
	}
	head := lazyre.New(approvalLead + regexp.QuoteMeta(agent) + approvalTail)
	var cmds []approvalCmd
	text := strings.Join(lines, "\n")
	for _, sent := range splitApprovalSentences(text) {
		s := strings.TrimSpace(sent.text)
		m := head.FindStringSubmatch(s)
		if m == nil {
			continue
		}
		if sent.question || startsQuoted(s) || endsQuoted(s) {
			continue
		}
		// Only the person's own voice commands: not a report ("he said
		// odek, remember that …"), a hypothesis, sarcasm or a sentence
		// they took back, by the analyser's reading of the message.
		if !ownVoice(analysis, s) {
			continue
		}
		if retracts(text[sent.end:]) {
			return nil
		}
		obj := strings.TrimSpace(strings.TrimRight(m[1], ".!,; "))
		obj = strings.TrimSpace(fillerTail.ReplaceAllString(obj, ""))
		cmd := approvalCmd{phrase: s}
		switch {
		case obj == "" || bareObject.MatchString(obj):
			cmd.kind = approvalBare
		case allObject.MatchString(obj):
			cmd.kind, cmd.all = approvalBare, true
		case namedObject.MatchString(obj):
			nm := namedObject.FindStringSubmatch(obj)
			cmd.kind = approvalNamed
			noun := strings.ToLower(nm[3])
			lower := strings.ToLower(obj)
			cmd.all = nm[1] != "" || strings.HasPrefix(lower, "those ") || strings.HasPrefix(lower, "these ") ||
				(strings.HasSuffix(noun, "s") && noun != "findings" && noun != "contents")
			for _, w := range strings.Fields(strings.ToLower(nm[2] + noun)) {
				for _, sw := range sourceWords {
					if w == sw.word && cmd.source == "" {
						cmd.source = sw.source
					}
				}
			}
		default:
			clause := strings.TrimSpace(statementRe.FindStringSubmatch(obj)[1])
			if n := len(strings.Fields(clause)); n < minVerbatimWords || len([]rune(clause)) < minVerbatimChars {
				continue // "remember that port": neither an approval nor a statement
			}
			cmd.kind, cmd.clause = approvalStatement, clause
		}
		cmds = append(cmds, cmd)
	}
	return cmds
}

// ownVoice reports whether the analyser reads sentence, a sentence of the
// message analysed as a, in the person's own voice: every clause of it
// that holds words is Own.
func ownVoice(a provenance.Analysis, sentence string) bool {
	at := strings.Index(a.Text, strings.TrimSpace(sentence))
	if at < 0 {
		return false
	}
	end := at + len(strings.TrimSpace(sentence))
	found := false
	for _, seg := range a.Segments {
		if seg.End <= at || seg.Start >= end {
			continue
		}
		found = true
		if seg.Voice != provenance.Own {
			return false
		}
	}
	return found
}

type approvalSentence struct {
	text     string
	end      int // byte offset just past the sentence (and its terminator)
	question bool
}

// splitApprovalSentences cuts text at . ! ? followed by space or the end,
// and at line breaks.
func splitApprovalSentences(text string) []approvalSentence {
	var out []approvalSentence
	start := 0
	for i := 0; i < len(text); i++ {
		c := text[i]
		end := -1
		switch {
		case c == '\n':
			end = i
		case c == '.' || c == '!' || c == '?':
			if i+1 == len(text) || text[i+1] == ' ' || text[i+1] == '\n' || text[i+1] == '"' || text[i+1] == '\'' {
				end = i + 1
			}
		}
		if end < 0 {
			continue
		}
		s := text[start:end]
		q := strings.HasSuffix(strings.TrimSpace(s), "?")
		if strings.TrimSpace(s) != "" {
			out = append(out, approvalSentence{text: s, end: end, question: q})
		}
		start = end
		if c == '\n' {
			start = i + 1
		}
	}
	if strings.TrimSpace(text[start:]) != "" {
		out = append(out, approvalSentence{text: text[start:], end: len(text)})
	}
	return out
}

func startsQuoted(s string) bool {
	return strings.ContainsAny(firstRune(s), "\"'`“”‘’«»„‹›「」『』")
}

// endsQuoted is true when a quotation mark closes right after the phrase
// (the sentence is someone else's words).
func endsQuoted(s string) bool {
	s = strings.TrimRight(s, ".!,; ")
	return s != "" && strings.ContainsAny(lastRune(s), "\"'`“”‘’«»„‹›「」『』")
}

func firstRune(s string) string {
	for _, r := range s {
		return string(r)
	}
	return ""
}

func lastRune(s string) string {
	r := []rune(s)
	if len(r) == 0 {
		return ""
	}
	return string(r[len(r)-1])
}

// quarantineWindow returns the session's quarantined entries created since
// the person's previous message, oldest first, reading the store without
// copying entries that do not qualify.
func (s *Store) quarantineWindow(ctx context.Context, session string, since time.Time, seenAtMark map[string]bool) []QuarantinedAtom {
	var out []QuarantinedAtom
	s.read(ctx, func() {
		for _, q := range s.quar {
			if q.Context.SessionID != session {
				continue
			}
			if q.QuarantinedAt.Before(since) || q.QuarantinedAt.Equal(since) && seenAtMark[q.ID] {
				continue
			}
			c := *q
			c.Atom = cloneAtom(q.Atom)
			out = append(out, c)
		}
	})
	sort.SliceStable(out, func(i, j int) bool { return out[i].QuarantinedAt.Before(out[j].QuarantinedAt) })
	return out
}

// sessionQuarantineAt lists the ids of the session's entries quarantined
// exactly at t: the entries a later window starting at t must exclude.
func (s *Store) sessionQuarantineAt(ctx context.Context, session string, t time.Time) map[string]bool {
	out := map[string]bool{}
	s.read(ctx, func() {
		for _, q := range s.quar {
			if q.Context.SessionID == session && q.QuarantinedAt.Equal(t) {
				out[q.ID] = true
			}
		}
	})
	return out
}

// approvalMark is where the person's previous message in a session left
// the quarantine: its time on the store's clock and the entries already
// there at that instant.
type approvalMark struct {
	at  time.Time
	ids map[string]bool
}

// moveApprovalMark starts the next message's window now and returns the
// previous mark (nil when this Hook has not seen the session before).
func (h *Hook) moveApprovalMark(ctx context.Context, st *sessionState, session string) *approvalMark {
	now := h.store.now().UTC()
	ids := h.store.sessionQuarantineAt(ctx, session, now)
	h.mu.Lock()
	defer h.mu.Unlock()
	prev := st.mark
	st.mark = &approvalMark{at: now, ids: ids}
	return prev
}

// applyApprovals runs the inline commands of one message. It returns the
// promoted ids, the statements stored and warnings. The message's text
// without the statements is what per-turn extraction should see.
func (h *Hook) applyApprovals(ctx context.Context, t Turn, mark *approvalMark, turn int, at time.Time, cmds []approvalCmd) (promoted []string, added []AddResult, warnings []string) {
	for _, c := range cmds {
		switch c.kind {
		case approvalStatement:
			typ := Type(judge.TypeOf(c.clause))
			if !vocab.ValidType(typ) {
				typ = TypeFact
			}
			r, err := h.store.Add(ctx, AddRequest{Text: c.clause, Type: typ, Source: SourceUserSaid, CreatedAt: at,
				Context: AtomContext{SessionID: t.SessionID, Turn: turn, Project: t.Project}})
			if err != nil {
				warnings = append(warnings, "inline remember: "+err.Error())
				continue
			}
			added = append(added, r)
		case approvalBare, approvalNamed:
			ids, err := h.approve(ctx, t, mark, c)
			promoted = append(promoted, ids...)
			if err != nil {
				warnings = append(warnings, "inline approval: "+err.Error())
			}
		}
	}
	return promoted, added, warnings
}

// approve promotes what one bare or named approval covers.
func (h *Hook) approve(ctx context.Context, t Turn, mark *approvalMark, c approvalCmd) ([]string, error) {
	if t.SessionID == "" {
		return nil, errors.New("an inline approval needs a session; promote it in odekmem instead")
	}
	if !t.PreviousMessageAt.IsZero() && (mark == nil || t.PreviousMessageAt.After(mark.at)) {
		mark = &approvalMark{at: t.PreviousMessageAt.UTC()}
	}
	if mark == nil {
		return nil, errors.New("the person's previous message in this session is unknown, so nothing is known to answer; promote it in odekmem instead")
	}
	var cands []QuarantinedAtom
	for _, q := range h.store.quarantineWindow(ctx, t.SessionID, mark.at, mark.ids) {
		// Only merely-untrusted content is approved by a phrase: anything
		// the scanner rejected needs a person to look at its findings.
		if q.Reason != "tainted" || !vocab.IsTainted(q.SourceClass) {
			continue
		}
		if c.source != "" && q.SourceClass != c.source {
			continue
		}
		cands = append(cands, q)
	}
	if len(cands) == 0 {
		what := "nothing"
		if c.source != "" {
			what = "nothing from " + string(c.source)
		}
		return nil, fmt.Errorf("%s was quarantined in this session since the previous message", what)
	}
	if !c.all {
		cands = cands[len(cands)-1:] // the newest
	}
	var ids []string
	var errs []string
	for i := len(cands) - 1; i >= 0; i-- {
		q := cands[i]
		if _, _, err := h.store.promote(ctx, q.ID, false); err != nil {
			errs = append(errs, err.Error())
			continue
		}
		ids = append(ids, q.ID)
	}
	if len(errs) > 0 {
		return ids, errors.New(strings.Join(errs, "; "))
	}
	return ids, nil
}

// withoutStatements removes the sentences that held inline commands from
// msg, so per-turn extraction does not store them a second time.
func withoutStatements(msg string, cmds []approvalCmd) string {
	for _, c := range cmds {
		msg = strings.Replace(msg, c.phrase, " ", 1)
	}
	return strings.TrimSpace(msg)
}
