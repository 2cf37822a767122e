package memcore

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"sort"
	"strings"
	"time"
)

// UserModel is user_model.json: the confirmed model of the person plus the
// queue of inferences waiting for a human to confirm or reject them.
type UserModel struct {
	// Version is kept as read and written as a JSON string (odek declares
	// it a string and rejects the whole file otherwise); a number on disk
	// is read as its digits.
	Version     string
	Style       Style
	Technical   Technical
	Focus       Focus
	Interaction Interaction
	Pending     []PendingReview
	// orig is the file as read: keys odekmem does not know, at any level,
	// are written back from it (see keepUnknown).
	orig []byte
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
	// orig is the entry as read, for its unknown fields.
	orig []byte
}

// MarshalJSON writes the entry with the unknown fields it was read with.
func (p PendingReview) MarshalJSON() ([]byte, error) {
	type plain PendingReview
	b, err := json.Marshal(plain(p))
	if err != nil {
		return nil, err
	}
	return keepUnknown(b, p.orig, schemaOf(reflect.TypeFor[PendingReview]())), nil
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
	*p = PendingReview{ID: raw.ID, Field: raw.Field, Evidence: raw.Evidence, Confidence: raw.Confidence, CreatedAt: raw.CreatedAt,
		orig: append([]byte(nil), b...)}
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

// userModelSchema is the keys of user_model.json odekmem declares.
func userModelSchema() keySchema {
	return keySchema{"version": nil, "style": schemaOf(reflect.TypeFor[Style]()), "technical": schemaOf(reflect.TypeFor[Technical]()),
		"current_focus": schemaOf(reflect.TypeFor[Focus]()), "interaction_patterns": schemaOf(reflect.TypeFor[Interaction]()), "pending_review": nil}
}

// UnmarshalJSON reads user_model.json, keeping every unknown key.
func (m *UserModel) UnmarshalJSON(b []byte) error {
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(b, &raw); err != nil {
		return err
	}
	*m = UserModel{orig: append([]byte(nil), b...)}
	if v := bytes.TrimSpace(raw["version"]); len(v) > 0 && v[0] != '"' && string(v) != "null" {
		var n json.Number
		if err := json.Unmarshal(v, &n); err != nil {
			return fmt.Errorf("version: %w", err)
		}
		m.Version = n.String()
		delete(raw, "version")
	}
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
	return nil
}

// MarshalJSON writes the FORMATS.md shape: version as a string, empty
// members and sections omitted, and every key odekmem does not know, at any
// level, as it was read.
func (m UserModel) MarshalJSON() ([]byte, error) {
	var out struct {
		Version     string          `json:"version,omitempty"`
		Style       *Style          `json:"style,omitempty"`
		Technical   *Technical      `json:"technical,omitempty"`
		Focus       *Focus          `json:"current_focus,omitempty"`
		Interaction *Interaction    `json:"interaction_patterns,omitempty"`
		Pending     []PendingReview `json:"pending_review,omitempty"`
	}
	out.Version = m.Version
	if m.Style != (Style{}) {
		out.Style = &m.Style
	}
	if len(m.Technical.Languages)+len(m.Technical.Patterns)+len(m.Technical.Tools) > 0 {
		out.Technical = &m.Technical
	}
	if m.Focus.Project != "" || m.Focus.Task != "" || m.Focus.Blocker != nil {
		out.Focus = &m.Focus
	}
	if len(m.Interaction.CommonOpeners) > 0 || m.Interaction.FollowupAfterBugfix != "" || m.Interaction.FollowupAfterRefactor != "" {
		out.Interaction = &m.Interaction
	}
	out.Pending = m.Pending
	b, err := json.Marshal(out)
	if err != nil {
		return nil, err
	}
	return keepUnknown(b, m.orig, userModelSchema()), nil
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
