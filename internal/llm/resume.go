package llm

import (
	"context"
	"fmt"
	"github.com/odekmem/odekmem/internal/textutil"
	"strings"

	"github.com/odekmem/odekmem/internal/lazyre"
)

// ResumePrompt is the system prompt for the return-after-break summary.
const ResumePrompt = `You write a return-after-break note for a user coming back to their project.
Use ONLY the statements given; they all belong to the named project. Do not mention any other project and do not invent details.
Write one or two sentences, exactly in this shape:
Where you left off: <what they were doing or had decided>. Next likely step: <the most likely next action>.
Output only those sentences, no preamble.`

const (
	maxResumeRunes = 400
	maxResumeAtoms = 30
)

var reResumeStart = rx(`where you left off`)

// ResumeSummary writes a one- or two-sentence "Where you left off: … Next
// likely step: …" note from atoms, which the caller has already scoped to
// project and ordered oldest first. With a nil Client it returns
// ResumeRules(project, atoms). No atoms gives "" and no error. The reply is
// flattened to one line, clipped to 400 runes and made to start with "Where
// you left off:"; an empty reply is an error.
func ResumeSummary(ctx context.Context, c Client, project string, atoms []string) (string, error) {
	atoms = nonEmpty(atoms)
	if len(atoms) == 0 {
		return "", nil
	}
	if c == nil {
		return ResumeRules(project, atoms), nil
	}
	if len(atoms) > maxResumeAtoms {
		atoms = atoms[len(atoms)-maxResumeAtoms:]
	}
	var b strings.Builder
	if p := cleanText(project, 200); p != "" {
		b.WriteString("Project: " + p + "\n")
	}
	b.WriteString("Statements (oldest first):\n")
	for _, a := range atoms {
		b.WriteString("- " + cleanText(a, maxAtomRunes) + "\n")
	}
	raw, err := ask(ctx, c, "resume summary", prompt(ResumePrompt, b.String()))
	if err != nil {
		return "", err
	}
	s := stripThink(raw)
	if m := fence.FindStringSubmatch(s); m != nil {
		s = m[1]
	}
	s = strings.Trim(textutil.OneLine(s), "\"'` ")
	if loc := reResumeStart.FindStringIndex(s); loc != nil {
		s = "Where you left off" + s[loc[1]:]
	} else if s != "" {
		s = "Where you left off: " + s
	}
	s = cleanText(s, maxResumeRunes)
	if s == "" {
		return "", fmt.Errorf("llm: resume summary: %w", ErrEmptyReply)
	}
	return s, nil
}

func nonEmpty(in []string) []string {
	var out []string
	for _, a := range in {
		if strings.TrimSpace(a) != "" {
			out = append(out, a)
		}
	}
	return out
}

var (
	reDecisionAtom = rx(`\b(?:decided|decision|chose|picked|went with|settled on|opted for|will use|switch(?:ed)? to|migrat(?:e|ed) to|convention)\b`)
	reStepAtom     = rx(`\b(?:is going to|going to|plans? to|needs? to|wants? to|intends? to|aims? to|goal is to|would like to|is trying to|trying to|is about to|hopes? to|next step is to|next,?)\s+(.+)`)
)

// ResumeRules is the deterministic return-after-break note used when no LLM
// is configured. atoms are the project's atom texts, oldest first. It picks
// the newest decision (else the newest atom) for "Where you left off" and the
// newest intent or goal ("… going to/needs to/plans to …") for "Next likely
// step"; when no atom states a next step it says "continue from there". It
// uses only the given atoms and the project name, nothing else.
func ResumeRules(project string, atoms []string) string {
	atoms = nonEmpty(atoms)
	if len(atoms) == 0 {
		return ""
	}
	where, step := -1, -1
	stepText := ""
	for i := len(atoms) - 1; i >= 0; i-- {
		if step < 0 {
			if m := reStepAtom.FindStringSubmatch(atoms[i]); m != nil {
				step, stepText = i, trimSentence(m[1])
			}
		}
		if where < 0 && reDecisionAtom.MatchString(atoms[i]) {
			where = i
		}
	}
	if where < 0 {
		where = len(atoms) - 1
		if where == step && len(atoms) > 1 {
			where = len(atoms) - 2
		}
	}
	var b strings.Builder
	b.WriteString("Where you left off: ")
	if p := cleanText(project, 80); p != "" {
		b.WriteString("in " + p + ", ")
	}
	b.WriteString(textutil.Clip(toSecond(trimSentence(cleanText(atoms[where], maxAtomRunes))), 180))
	b.WriteString(". Next likely step: ")
	if step >= 0 && stepText != "" {
		b.WriteString(textutil.Clip(toSecond(cleanText(stepText, maxAtomRunes)), 160))
	} else {
		b.WriteString("continue from there")
	}
	b.WriteString(".")
	return b.String()
}

var (
	reUserSubj = lazyre.New(`^(?:The user|User|user)(?:'s)?\s+(\S+)`)
	secondVerb = map[string]string{
		"is": "are", "was": "were", "has": "have", "does": "do", "prefers": "prefer", "wants": "want",
		"needs": "need", "plans": "plan", "uses": "use", "likes": "like", "hates": "hate", "intends": "intend",
		"aims": "aim", "hopes": "hope", "dislikes": "dislike", "works": "work", "loves": "love", "thinks": "think",
		"goes": "go", "asks": "ask", "writes": "write", "runs": "run", "keeps": "keep",
	}
)

// toSecond turns an atom about "User" into one addressed to "you":
// "User decided to use X" → "you decided to use X", "User prefers X" → "you
// prefer X", "User's goal is X" → "your goal is X". Other text is returned
// with only its first letter lowered.
func toSecond(s string) string {
	m := reUserSubj.FindStringSubmatchIndex(s)
	if m == nil {
		return lowerFirst(s)
	}
	if strings.Contains(s[m[0]:m[2]], "'s") {
		return "your " + s[m[2]:]
	}
	verb := s[m[2]:m[3]]
	if strings.EqualFold(verb, "convention:") {
		return "your " + s[m[2]:]
	}
	if v, ok := secondVerb[strings.ToLower(verb)]; ok {
		verb = v
	}
	return "you " + verb + s[m[3]:]
}
