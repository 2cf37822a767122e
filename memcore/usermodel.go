package memcore

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"time"
)

// UserModel is user_model.json: the confirmed model of the person plus the
// queue of inferences waiting for a human to confirm or reject them.
type UserModel struct {
	Version     int
	Style       Style
	Technical   Technical
	Focus       Focus
	Interaction Interaction
	Pending     []PendingReview
	// extra holds top-level keys odekmem does not know, written back as-is.
	extra map[string]json.RawMessage
}

// Style is the person's communication style.
type Style struct {
	Verbosity        string `json:"verbosity,omitempty"`
	Humor            string `json:"humor,omitempty"`
	Formality        string `json:"formality,omitempty"`
	ExplanationDepth string `json:"explanation_depth,omitempty"`
	Tone             string `json:"tone,omitempty"`
}

// Technical lists languages, patterns and tools the person uses.
type Technical struct {
	Languages []string `json:"languages,omitempty"`
	Patterns  []string `json:"patterns,omitempty"`
	Tools     []string `json:"tools,omitempty"`
}

// Focus is what the person is working on now. Blocker may be null on disk.
type Focus struct {
	Project string  `json:"project,omitempty"`
	Task    string  `json:"task,omitempty"`
	Blocker *string `json:"blocker,omitempty"`
}

// Interaction records the person's habits in conversation.
type Interaction struct {
	CommonOpeners         []string `json:"common_openers,omitempty"`
	FollowupAfterRefactor string   `json:"followup_after_refactor,omitempty"`
	FollowupAfterBugfix   string   `json:"followup_after_bugfix,omitempty"`
}

// PendingReview is one inference waiting for a person. It never reaches a
// prompt until confirmed.
type PendingReview struct {
	ID         string    `json:"id"`
	Field      string    `json:"field"`
	Value      string    `json:"value"`
	Evidence   string    `json:"evidence,omitempty"`
	Confidence float64   `json:"confidence,omitempty"`
	CreatedAt  time.Time `json:"created_at"`
}

// UnmarshalJSON accepts a value that is a string, number, bool or array of
// strings (joined with ", "), as other writers may store lists.
func (p *PendingReview) UnmarshalJSON(b []byte) error {
	var raw struct {
		ID         string          `json:"id"`
		Field      string          `json:"field"`
		Value      json.RawMessage `json:"value"`
		Evidence   string          `json:"evidence"`
		Confidence float64         `json:"confidence"`
		CreatedAt  time.Time       `json:"created_at"`
	}
	if err := json.Unmarshal(b, &raw); err != nil {
		return err
	}
	*p = PendingReview{ID: raw.ID, Field: raw.Field, Evidence: raw.Evidence, Confidence: raw.Confidence, CreatedAt: raw.CreatedAt}
	v := bytes.TrimSpace(raw.Value)
	switch {
	case len(v) == 0 || string(v) == "null":
	case v[0] == '"':
		return json.Unmarshal(v, &p.Value)
	case v[0] == '[':
		var list []string
		if err := json.Unmarshal(v, &list); err != nil {
			return fmt.Errorf("pending value: %w", err)
		}
		p.Value = strings.Join(list, ", ")
	default:
		p.Value = string(v)
	}
	return nil
}

// Empty reports whether the model holds no confirmed values.
func (m UserModel) Empty() bool {
	return m.Style == (Style{}) && len(m.Technical.Languages)+len(m.Technical.Patterns)+len(m.Technical.Tools) == 0 &&
		m.Focus.Project == "" && m.Focus.Task == "" && m.Focus.Blocker == nil &&
		len(m.Interaction.CommonOpeners) == 0 && m.Interaction.FollowupAfterBugfix == "" && m.Interaction.FollowupAfterRefactor == ""
}

var userModelKnown = map[string]bool{"version": true, "style": true, "technical": true, "current_focus": true, "interaction_patterns": true, "pending_review": true}

// UnmarshalJSON reads user_model.json, keeping unknown top-level keys.
func (m *UserModel) UnmarshalJSON(b []byte) error {
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(b, &raw); err != nil {
		return err
	}
	*m = UserModel{}
	dec := func(key string, into any) error {
		if v, ok := raw[key]; ok && string(v) != "null" {
			if err := json.Unmarshal(v, into); err != nil {
				return fmt.Errorf("%s: %w", key, err)
			}
		}
		return nil
	}
	for _, kv := range []struct {
		k string
		v any
	}{{"version", &m.Version}, {"style", &m.Style}, {"technical", &m.Technical}, {"current_focus", &m.Focus}, {"interaction_patterns", &m.Interaction}, {"pending_review", &m.Pending}} {
		if err := dec(kv.k, kv.v); err != nil {
			return err
		}
	}
	for k, v := range raw {
		if !userModelKnown[k] {
			if m.extra == nil {
				m.extra = map[string]json.RawMessage{}
			}
			m.extra[k] = v
		}
	}
	return nil
}

// MarshalJSON writes the FORMATS.md shape: empty members and sections omitted.
func (m UserModel) MarshalJSON() ([]byte, error) {
	out := map[string]any{}
	for k, v := range m.extra {
		out[k] = v
	}
	if m.Version != 0 {
		out["version"] = m.Version
	}
	if m.Style != (Style{}) {
		out["style"] = m.Style
	}
	if len(m.Technical.Languages)+len(m.Technical.Patterns)+len(m.Technical.Tools) > 0 {
		out["technical"] = m.Technical
	}
	if m.Focus.Project != "" || m.Focus.Task != "" || m.Focus.Blocker != nil {
		out["current_focus"] = m.Focus
	}
	if len(m.Interaction.CommonOpeners) > 0 || m.Interaction.FollowupAfterBugfix != "" || m.Interaction.FollowupAfterRefactor != "" {
		out["interaction_patterns"] = m.Interaction
	}
	if len(m.Pending) > 0 {
		out["pending_review"] = m.Pending
	}
	return json.Marshal(out)
}

// clone returns a deep copy so callers cannot alias the store's state.
func (m UserModel) clone() UserModel {
	c := m
	c.Technical.Languages = append([]string(nil), m.Technical.Languages...)
	c.Technical.Patterns = append([]string(nil), m.Technical.Patterns...)
	c.Technical.Tools = append([]string(nil), m.Technical.Tools...)
	c.Interaction.CommonOpeners = append([]string(nil), m.Interaction.CommonOpeners...)
	c.Pending = append([]PendingReview(nil), m.Pending...)
	if m.Focus.Blocker != nil {
		b := *m.Focus.Blocker
		c.Focus.Blocker = &b
	}
	if m.extra != nil {
		c.extra = map[string]json.RawMessage{}
		for k, v := range m.extra {
			c.extra[k] = v
		}
	}
	return c
}

// UserModelFields lists every dotted path confirm understands, in their
// canonical spelling.
var UserModelFields = []string{
	"style.verbosity", "style.humor", "style.formality", "style.explanation_depth", "style.tone",
	"focus.project", "focus.task", "focus.blocker",
	"interaction.followup_after_refactor", "interaction.followup_after_bugfix", "interaction.common_openers",
	"technical.languages", "technical.patterns", "technical.tools",
}

// CanonicalField maps accepted spellings (current_focus.*, interaction_patterns.*,
// any case) to the canonical dotted path, or "" when the path is unknown.
func CanonicalField(field string) string {
	f := strings.ToLower(strings.TrimSpace(field))
	sect, name, ok := strings.Cut(f, ".")
	if !ok {
		return ""
	}
	switch sect {
	case "current_focus":
		sect = "focus"
	case "interaction_patterns":
		sect = "interaction"
	}
	c := sect + "." + name
	for _, known := range UserModelFields {
		if known == c {
			return c
		}
	}
	return ""
}

// Get returns the confirmed value at a dotted path ("" if unset) and
// whether the path is known.
func (m UserModel) Get(field string) (string, bool) {
	switch CanonicalField(field) {
	case "style.verbosity":
		return m.Style.Verbosity, true
	case "style.humor":
		return m.Style.Humor, true
	case "style.formality":
		return m.Style.Formality, true
	case "style.explanation_depth":
		return m.Style.ExplanationDepth, true
	case "style.tone":
		return m.Style.Tone, true
	case "focus.project":
		return m.Focus.Project, true
	case "focus.task":
		return m.Focus.Task, true
	case "focus.blocker":
		if m.Focus.Blocker == nil {
			return "", true
		}
		return *m.Focus.Blocker, true
	case "interaction.followup_after_refactor":
		return m.Interaction.FollowupAfterRefactor, true
	case "interaction.followup_after_bugfix":
		return m.Interaction.FollowupAfterBugfix, true
	case "interaction.common_openers":
		return strings.Join(m.Interaction.CommonOpeners, ", "), true
	case "technical.languages":
		return strings.Join(m.Technical.Languages, ", "), true
	case "technical.patterns":
		return strings.Join(m.Technical.Patterns, ", "), true
	case "technical.tools":
		return strings.Join(m.Technical.Tools, ", "), true
	}
	return "", false
}

// Apply sets the value at a dotted path; list fields append unique items
// (a value "a, b" appends both). An unknown path is ErrUnknownField.
func (m *UserModel) Apply(field, value string) error {
	value = strings.TrimSpace(value)
	appendUnique := func(list []string, v string) []string {
		for _, item := range strings.Split(v, ",") {
			item = strings.TrimSpace(item)
			if item == "" {
				continue
			}
			dup := false
			for _, have := range list {
				if strings.EqualFold(have, item) {
					dup = true
					break
				}
			}
			if !dup {
				list = append(list, item)
			}
		}
		return list
	}
	switch CanonicalField(field) {
	case "style.verbosity":
		m.Style.Verbosity = value
	case "style.humor":
		m.Style.Humor = value
	case "style.formality":
		m.Style.Formality = value
	case "style.explanation_depth":
		m.Style.ExplanationDepth = value
	case "style.tone":
		m.Style.Tone = value
	case "focus.project":
		m.Focus.Project = value
	case "focus.task":
		m.Focus.Task = value
	case "focus.blocker":
		if value == "" || strings.EqualFold(value, "null") || strings.EqualFold(value, "none") {
			m.Focus.Blocker = nil
		} else {
			v := value
			m.Focus.Blocker = &v
		}
	case "interaction.followup_after_refactor":
		m.Interaction.FollowupAfterRefactor = value
	case "interaction.followup_after_bugfix":
		m.Interaction.FollowupAfterBugfix = value
	case "interaction.common_openers":
		m.Interaction.CommonOpeners = appendUnique(m.Interaction.CommonOpeners, value)
	case "technical.languages":
		m.Technical.Languages = appendUnique(m.Technical.Languages, value)
	case "technical.patterns":
		m.Technical.Patterns = appendUnique(m.Technical.Patterns, value)
	case "technical.tools":
		m.Technical.Tools = appendUnique(m.Technical.Tools, value)
	default:
		return fmt.Errorf("%w %q: confirm understands %s", ErrUnknownField, field, strings.Join(UserModelFields, ", "))
	}
	return nil
}

// Values returns every confirmed value as (canonical path, value) pairs in
// the order of UserModelFields, skipping empty ones.
func (m UserModel) Values() [][2]string {
	var out [][2]string
	for _, f := range UserModelFields {
		if v, _ := m.Get(f); v != "" {
			out = append(out, [2]string{f, v})
		}
	}
	return out
}

func sortPending(p []PendingReview) {
	sort.SliceStable(p, func(i, j int) bool { return p[i].CreatedAt.Before(p[j].CreatedAt) })
}
