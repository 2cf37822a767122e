package views

import (
	"fmt"
	"sort"
	"strings"
	"unicode"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"

	"github.com/odekmem/odekmem/keymap"
)

// Filterable is a pane whose list "/" filters. The root uses it to say so
// when a pane has nothing to filter, instead of ignoring the key.
type Filterable interface {
	FilterText() string
}

// ListFilter is the "/" filter the list panes share: a text input while
// typing, then words and key:value tokens. A token whose key the pane
// names (source:web) must be contained in that field; every other word
// must be contained in one of the row's fields or its text. Matching is
// case-insensitive.
type ListFilter struct {
	// Aliases maps a token key to a field name ("src" → "source").
	Aliases map[string]string
	// Placeholder is shown in the empty input.
	Placeholder string

	text   string
	input  Input
	typing bool
	pre    string
	fields map[string]string
	words  []string
}

// NewListFilter returns a filter over the named fields; aliases map
// shorthand keys to field names (each field is its own key too).
func NewListFilter(placeholder string, fields []string, aliases map[string]string) ListFilter {
	al := map[string]string{}
	for _, f := range fields {
		al[f] = f
	}
	for k, v := range aliases {
		al[k] = v
	}
	return ListFilter{Aliases: al, Placeholder: placeholder}
}

// Text is the filter as typed; "" when no filter is set.
func (f *ListFilter) Text() string { return f.text }

// Typing reports whether the filter input has the keys.
func (f *ListFilter) Typing() bool { return f.typing }

// Start opens the input on the current filter.
func (f *ListFilter) Start() {
	f.typing, f.pre = true, f.text
	f.input.Prompt = "/ "
	f.input.Placeholder = f.Placeholder
	f.input.SetValue(f.text)
}

// Set replaces the filter (for tests and callers that build one).
func (f *ListFilter) Set(s string) { f.text = s; f.parse() }

// Clear removes the filter; it reports whether there was one.
func (f *ListFilter) Clear() bool {
	had := f.text != ""
	f.Set("")
	return had
}

// Key handles a key while typing: enter keeps the filter, esc restores the
// one from before, anything else edits. It reports whether the filter text
// changed.
func (f *ListFilter) Key(msg tea.KeyMsg, in keymap.Input) bool {
	switch {
	case key.Matches(msg, in.Cancel):
		f.typing = false
		changed := f.text != f.pre
		f.Set(f.pre)
		return changed
	case key.Matches(msg, in.Submit):
		f.typing = false
		f.Set(strings.TrimSpace(f.input.Value()))
		return false
	}
	if f.input.Update(msg) {
		f.Set(f.input.Value())
		return true
	}
	return false
}

func (f *ListFilter) parse() {
	f.fields, f.words = nil, nil
	for _, tok := range strings.Fields(strings.ToLower(f.text)) {
		if k, v, ok := strings.Cut(tok, ":"); ok && v != "" {
			if name, known := f.Aliases[k]; known {
				if f.fields == nil {
					f.fields = map[string]string{}
				}
				f.fields[name] = v
				continue
			}
		}
		f.words = append(f.words, tok)
	}
}

// Match reports whether a row passes: fields are the row's named values,
// text its main text. An empty filter matches everything.
func (f *ListFilter) Match(fields map[string]string, text string) bool {
	if f.text == "" {
		return true
	}
	for k, v := range f.fields {
		if !strings.Contains(strings.ToLower(fields[k]), v) {
			return false
		}
	}
	if len(f.words) == 0 {
		return true
	}
	hay := strings.ToLower(text)
	for _, v := range fields {
		hay += "\x00" + strings.ToLower(v)
	}
	for _, w := range f.words {
		if !strings.Contains(hay, w) {
			return false
		}
	}
	return true
}

// InputView draws the input line while typing.
func (f *ListFilter) InputView(width int, prompt, text, cursor lipgloss.Style) string {
	return f.input.View(width, prompt, text, cursor)
}

// Label is the header fragment for a set filter ("filter: …"), or "".
// A token whose key no field has (a typo: "tpye:decision") is named.
func (f *ListFilter) Label() string {
	if f.text == "" {
		return ""
	}
	var names []string
	for k, v := range f.Aliases {
		if k == v {
			names = append(names, k)
		}
	}
	sort.Strings(names)
	return "filter: " + Line(f.text) + unknownNote(unknownKeys(f.text, func(k string) bool { _, ok := f.Aliases[strings.ToLower(k)]; return ok }), names)
}

// unknownKeys returns the keys of the key:value tokens in text that
// known does not name ("tpye" in "tpye:decision"): a typo is said, not
// silently searched for as a word. Only a key of letters counts (a URL
// or a time like 10:30 is a word).
func unknownKeys(text string, known func(string) bool) []string {
	var out []string
	for _, tok := range strings.Fields(text) {
		k, v, ok := strings.Cut(tok, ":")
		if !ok || v == "" || k == "" || len(k) > 15 || known(k) || strings.HasPrefix(v, "//") {
			continue
		}
		letters := true
		for _, r := range k {
			letters = letters && unicode.IsLetter(r)
		}
		if letters {
			out = append(out, k)
		}
	}
	return out
}

// unknownNote says which keys are unknown and which exist, or "".
func unknownNote(unknown, fields []string) string {
	if len(unknown) == 0 {
		return ""
	}
	return fmt.Sprintf(" · no field %q: try %s", unknown[0], strings.Join(fields, ", "))
}

// withFilterInput puts f's input on the last of h lines while typing.
func withFilterInput(f *ListFilter, d Deps, body string, w, h int) string {
	if !f.Typing() {
		return body
	}
	s := d.Styles
	return FitLines(body, w, h-1) + "\n" + f.InputView(w, s.Prompt, s.Input, s.Selected)
}
