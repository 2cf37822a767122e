package memcore

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"sort"
	"strings"
	"time"

	"github.com/odekmem/odekmem/internal/umfield"
)

// UserModel is user_model.json: the confirmed model of the person plus the
// queue of inferences waiting for a human to confirm or reject them.
type UserModel struct {
	// Version is kept as read and written as a JSON string (odek declares
	// it a string and rejects the whole file otherwise); a number on disk
	// is read as its digits.
	Version     string          `json:"version,omitempty"`
	Style       Style           `json:"style"`
	Technical   Technical       `json:"technical"`
	Focus       Focus           `json:"current_focus"`
	Interaction Interaction     `json:"interaction_patterns"`
	Pending     []PendingReview `json:"pending_review,omitempty"`
	// orig is the file as read: keys odekmem does not know, at any level,
	// are written back from it (see keepUnknown and userModelFile).
	orig []byte
}

// userModelFile is UserModel in user_model.json: the file's own shape
// (version a string, empty sections omitted, a pending value that is a
// list or number accepted) with every unknown key kept.
type userModelFile UserModel

// pendingEntry is a PendingReview in user_model.json, with its unknown
// fields kept.
type pendingEntry PendingReview

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
func (p pendingEntry) MarshalJSON() ([]byte, error) {
	b, err := json.Marshal(PendingReview(p))
	if err != nil {
		return nil, err
	}
	return keepUnknown(b, p.orig, schemaOf(reflect.TypeFor[PendingReview]())), nil
}

// UnmarshalJSON accepts a value that is a string, number, bool or array of
// strings (joined with ", "), as other writers may store lists.
func (p *pendingEntry) UnmarshalJSON(b []byte) error {
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
	*p = pendingEntry{ID: raw.ID, Field: raw.Field, Evidence: raw.Evidence, Confidence: raw.Confidence, CreatedAt: raw.CreatedAt,
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

// empty reports whether the model holds no confirmed values.
func (m UserModel) empty() bool {
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
func (m *userModelFile) UnmarshalJSON(b []byte) error {
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(b, &raw); err != nil {
		return err
	}
	*m = userModelFile{orig: append([]byte(nil), b...)}
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
	var pending []pendingEntry
	for _, kv := range []struct {
		k string
		v any
	}{{"version", &m.Version}, {"style", &m.Style}, {"technical", &m.Technical}, {"current_focus", &m.Focus}, {"interaction_patterns", &m.Interaction}, {"pending_review", &pending}} {
		if err := dec(kv.k, kv.v); err != nil {
			return err
		}
	}
	for _, p := range pending {
		m.Pending = append(m.Pending, PendingReview(p))
	}
	return nil
}

// MarshalJSON writes the FORMATS.md shape: version as a string, empty
// members and sections omitted, and every key odekmem does not know, at any
// level, as it was read.
func (m userModelFile) MarshalJSON() ([]byte, error) {
	var out struct {
		Version     string         `json:"version,omitempty"`
		Style       *Style         `json:"style,omitempty"`
		Technical   *Technical     `json:"technical,omitempty"`
		Focus       *Focus         `json:"current_focus,omitempty"`
		Interaction *Interaction   `json:"interaction_patterns,omitempty"`
		Pending     []pendingEntry `json:"pending_review,omitempty"`
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
	for _, p := range m.Pending {
		out.Pending = append(out.Pending, pendingEntry(p))
	}
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

// modelField reads and writes one dotted path of the model. Exactly one of
// str (a plain string), opt (a string that may be null on disk) and list
// (items shown joined with ", ") is set.
type modelField struct {
	name string
	str  func(*UserModel) *string
	opt  func(*UserModel) **string
	list func(*UserModel) *[]string
}

// modelFields is every field confirm understands, in canonical spelling
// and display order (umfield.Fields, which is llm.UserStateFields, the
// paths inference may propose); Get, apply and Undo of a confirm all go through
// it. A test keeps the table in step with umfield (names, order, which
// fields are lists).
var modelFields = []modelField{
	{name: "style.verbosity", str: func(m *UserModel) *string { return &m.Style.Verbosity }},
	{name: "style.humor", str: func(m *UserModel) *string { return &m.Style.Humor }},
	{name: "style.formality", str: func(m *UserModel) *string { return &m.Style.Formality }},
	{name: "style.explanation_depth", str: func(m *UserModel) *string { return &m.Style.ExplanationDepth }},
	{name: "style.tone", str: func(m *UserModel) *string { return &m.Style.Tone }},
	{name: "focus.project", str: func(m *UserModel) *string { return &m.Focus.Project }},
	{name: "focus.task", str: func(m *UserModel) *string { return &m.Focus.Task }},
	{name: "focus.blocker", opt: func(m *UserModel) **string { return &m.Focus.Blocker }},
	{name: "interaction.followup_after_refactor", str: func(m *UserModel) *string { return &m.Interaction.FollowupAfterRefactor }},
	{name: "interaction.followup_after_bugfix", str: func(m *UserModel) *string { return &m.Interaction.FollowupAfterBugfix }},
	{name: "interaction.common_openers", list: func(m *UserModel) *[]string { return &m.Interaction.CommonOpeners }},
	{name: "technical.languages", list: func(m *UserModel) *[]string { return &m.Technical.Languages }},
	{name: "technical.patterns", list: func(m *UserModel) *[]string { return &m.Technical.Patterns }},
	{name: "technical.tools", list: func(m *UserModel) *[]string { return &m.Technical.Tools }},
}

// lookupField returns the accessor for any accepted spelling of a path.
func lookupField(field string) (modelField, bool) {
	c := umfield.Canonical(field)
	for _, f := range modelFields {
		if f.name == c {
			return f, true
		}
	}
	return modelField{}, false
}

// Get returns the confirmed value at a dotted path ("" if unset) and
// whether the path is known.
func (m UserModel) Get(field string) (string, bool) {
	f, ok := lookupField(field)
	switch {
	case !ok:
		return "", false
	case f.list != nil:
		return strings.Join(*f.list(&m), ", "), true
	case f.opt != nil:
		if p := *f.opt(&m); p != nil {
			return *p, true
		}
		return "", true
	}
	return *f.str(&m), true
}

// apply sets the value at a dotted path; list fields append unique items
// (a value "a, b" appends both). An unknown path is errUnknownField.
func (m *UserModel) apply(field, value string) error {
	value = strings.TrimSpace(value)
	f, ok := lookupField(field)
	switch {
	case !ok:
		return fmt.Errorf("%w %q: confirm understands %s", errUnknownField, field, strings.Join(umfield.Fields, ", "))
	case f.list != nil:
		list := f.list(m)
		for _, item := range splitItems(value) {
			dup := false
			for _, have := range *list {
				if strings.EqualFold(have, item) {
					dup = true
					break
				}
			}
			if !dup {
				*list = append(*list, item)
			}
		}
	case f.opt != nil:
		if value == "" || strings.EqualFold(value, "null") || strings.EqualFold(value, "none") {
			*f.opt(m) = nil
		} else {
			v := value
			*f.opt(m) = &v
		}
	default:
		*f.str(m) = value
	}
	return nil
}

// setField sets the value at a dotted path outright: a list field gets
// exactly the items of value (undo puts back what Get returned), any other
// field is set as Apply sets it.
func (m *UserModel) setField(field, value string) error {
	if f, ok := lookupField(field); ok && f.list != nil {
		*f.list(m) = splitItems(value)
		return nil
	}
	return m.apply(field, value)
}

// splitItems splits a comma-separated list value into its non-empty,
// trimmed items.
func splitItems(v string) []string {
	var items []string
	for _, it := range strings.Split(v, ",") {
		if it = strings.TrimSpace(it); it != "" {
			items = append(items, it)
		}
	}
	return items
}

// Values returns every confirmed value as (canonical path, value) pairs in
// a fixed order (style, focus, interaction, technical), skipping empty ones.
func (m UserModel) Values() [][2]string {
	var out [][2]string
	for _, f := range umfield.Fields {
		if v, _ := m.Get(f); v != "" {
			out = append(out, [2]string{f, v})
		}
	}
	return out
}

func sortPending(p []PendingReview) {
	sort.SliceStable(p, func(i, j int) bool { return p[i].CreatedAt.Before(p[j].CreatedAt) })
}
