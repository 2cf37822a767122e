package llm

import (
	"context"
	"fmt"
	"github.com/odekmem/odekmem/internal/textutil"
	"slices"
	"strings"
)

// Update is one proposed change to the user-state model. It carries no
// provenance: the caller records it as inferred.
type Update struct {
	Field      string  // dotted path, one of UserStateFields
	Value      string  // scalar; list fields are comma-separated; "" clears focus.blocker
	Evidence   string  // the model's justification, as given (cleaned, clipped)
	Confidence float64 // clamped to [0,1]; 0.5 when missing
	// Direct is true only for low-impact factual fields (focus.*,
	// technical.*) the model listed as direct, with a short single-line
	// value. The caller still scans the value before applying it. False
	// means speculative: the caller queues it for review.
	Direct bool
}

// UserStateFields are the only field paths InferUserState returns.
var UserStateFields = []string{
	"style.verbosity", "style.humor", "style.formality", "style.explanation_depth", "style.tone",
	"focus.project", "focus.task", "focus.blocker",
	"interaction.followup_after_refactor", "interaction.followup_after_bugfix", "interaction.common_openers",
	"technical.languages", "technical.patterns", "technical.tools",
}

const (
	maxUpdates       = 20
	maxUpdateValue   = 200
	maxDirectValue   = 120
	maxEvidenceRunes = 300
	maxPromptAtoms   = 50
	maxAtomRunes     = 400
)

// UserStatePrompt is the system prompt for user-state inference.
const UserStatePrompt = `You maintain a model of one user's working style and focus for a coding assistant.
You receive the current user model (JSON) and recent statements the user made. Propose changes only when the statements support them.

Output ONLY a JSON object of this shape:
{"direct":[{"field":"...","value":"...","evidence":"...","confidence":0.0}],"speculative":[...]}

Allowed fields:
- style.verbosity, style.humor, style.formality, style.explanation_depth, style.tone
- focus.project, focus.task, focus.blocker
- interaction.followup_after_refactor, interaction.followup_after_bugfix, interaction.common_openers
- technical.languages, technical.patterns, technical.tools

Rules:
- "direct" is only for plain facts the user stated about focus.* or technical.* (for example a language they said they use).
- Everything about style or interaction, and anything you are guessing, goes in "speculative".
- "evidence" quotes or paraphrases the statement that supports the change.
- Do not repeat values the model already has. Use short values (a few words); lists as comma-separated strings.
- If nothing should change, output {"direct":[],"speculative":[]}.`

func allowedField(f string) bool { return slices.Contains(UserStateFields, f) }

// normalizeField lower-cases a field path and maps the user-model file's
// section names (current_focus, interaction_patterns) to the short ones.
func normalizeField(f string) string {
	f = strings.ToLower(strings.TrimSpace(f))
	f = strings.ReplaceAll(f, "-", "_")
	for long, short := range map[string]string{"current_focus.": "focus.", "interaction_patterns.": "interaction."} {
		if strings.HasPrefix(f, long) {
			f = short + strings.TrimPrefix(f, long)
		}
	}
	return f
}

// InferUserState asks the model for a diff to the user-state model. current
// is the model as JSON; atoms are recent trusted atom texts (the caller
// guarantees trust; tainted content must never be passed). A nil Client
// returns ErrNoLLM.
//
// Field paths outside UserStateFields are dropped. Only focus.* and
// technical.* updates the model listed as direct stay direct; style.* and
// interaction.* are always speculative, whatever the model says. Values are
// cleaned and clipped; empty values are dropped (except focus.blocker, where
// "" clears it); for one field and value the most confident proposal wins. A
// top-level array instead of the diff object is read as all-speculative.
func InferUserState(ctx context.Context, c Client, current string, atoms []string) ([]Update, error) {
	if c == nil {
		return nil, ErrNoLLM
	}
	var b strings.Builder
	b.WriteString("Current user model:\n")
	cur := strings.TrimSpace(current)
	if cur == "" {
		cur = "{}"
	}
	b.WriteString(textutil.Clip(cur, 8000))
	b.WriteString("\n\nRecent statements by the user (oldest first):\n")
	if len(atoms) > maxPromptAtoms {
		atoms = atoms[len(atoms)-maxPromptAtoms:]
	}
	for _, a := range atoms {
		if a = cleanText(a, maxAtomRunes); a != "" {
			b.WriteString("- " + a + "\n")
		}
	}
	req := prompt(UserStatePrompt, b.String())
	req.JSON = true
	raw, err := ask(ctx, c, "infer user state", req)
	if err != nil {
		return nil, err
	}
	v, err := ParseValue(raw, 0)
	if err != nil {
		return nil, fmt.Errorf("llm: infer user state: parse reply: %w", err)
	}
	var direct, spec []any
	switch t := v.(type) {
	case map[string]any:
		if d, ok := lookup(t, "direct"); ok {
			direct, _ = d.([]any)
		}
		if s, ok := lookup(t, "speculative"); ok {
			spec, _ = s.([]any)
		}
		if direct == nil && spec == nil {
			// {"updates":[…]} or a lone update object: nothing is direct.
			arr, err := unwrapArray(t)
			if err != nil {
				return nil, fmt.Errorf("llm: infer user state: parse reply: %w", err)
			}
			spec = arr
		}
	case []any:
		spec = t
	}
	return mergeUpdates(direct, spec), nil
}

func mergeUpdates(direct, spec []any) []Update {
	var out []Update
	index := map[string]int{}
	consider := func(items []any, wantDirect bool) {
		for _, it := range items {
			m, ok := it.(map[string]any)
			if !ok {
				continue
			}
			fv, _ := lookup(m, "field", "path")
			field := normalizeField(str(fv))
			if !allowedField(field) {
				continue
			}
			vv, _ := lookup(m, "value")
			value := cleanText(str(vv), maxUpdateValue)
			if value == "" && field != "focus.blocker" {
				continue
			}
			if strings.EqualFold(value, "null") || strings.EqualFold(value, "none") {
				if field != "focus.blocker" {
					continue
				}
				value = ""
			}
			ev, _ := lookup(m, "evidence")
			cv, _ := lookup(m, "confidence")
			u := Update{
				Field:      field,
				Value:      value,
				Evidence:   cleanText(str(ev), maxEvidenceRunes),
				Confidence: confidence(cv, 0.5),
			}
			u.Direct = wantDirect && directAllowed(field) && rawValueOK(str(vv))
			key := field + "\x00" + strings.ToLower(value)
			if i, ok := index[key]; ok {
				if u.Confidence > out[i].Confidence || (u.Direct && !out[i].Direct) {
					out[i] = u
				}
				continue
			}
			if len(out) >= maxUpdates {
				continue
			}
			index[key] = len(out)
			out = append(out, u)
		}
	}
	consider(direct, true)
	consider(spec, false)
	return out
}

// directAllowed: only low-impact factual sections may be applied without
// review.
func directAllowed(field string) bool {
	return strings.HasPrefix(field, "focus.") || strings.HasPrefix(field, "technical.")
}

// rawValueOK: a direct value must be a short single line with no control
// characters as the model sent it; anything else goes to review.
func rawValueOK(v string) bool {
	return !hasControl(v) && len([]rune(strings.TrimSpace(v))) <= maxDirectValue
}
