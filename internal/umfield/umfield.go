// Package umfield is the vocabulary of user_model.json that memcore and the
// odekmem front ends share: the dotted field paths, their accepted
// spellings, which fields are lists, the words a style field may use and
// the bounds on free text. Validation itself (memcore's user-model check,
// which runs the scanner) and the accessors stay in memcore.
package umfield

import (
	"strings"

	"github.com/odekmem/odekmem/internal/llm"
)

// Fields lists every dotted path confirm understands, in their canonical
// spelling and display order: the paths inference may propose
// (llm.UserStateFields).
var Fields = llm.UserStateFields

// Bounds on user-model free text, in characters.
const (
	MaxText  = 160 // a free-text value
	MaxItem  = 60  // one item of a list field
	MaxItems = 20  // items in a list field
)

// StyleVocabulary lists the words each style field may use.
var StyleVocabulary = map[string][]string{
	"style.verbosity":         {"low", "medium", "high", "brief", "terse", "concise", "minimal", "short", "moderate", "normal", "detailed", "verbose", "long"},
	"style.explanation_depth": {"low", "medium", "high", "shallow", "minimal", "brief", "moderate", "normal", "deep", "detailed", "thorough", "expert", "beginner", "intermediate"},
	"style.formality":         {"low", "medium", "high", "casual", "informal", "neutral", "formal", "professional", "relaxed", "semi-formal"},
	"style.humor":             {"none", "low", "medium", "high", "light", "some", "dry", "playful", "occasional", "minimal", "witty"},
	"style.tone": {"direct", "friendly", "neutral", "warm", "concise", "technical", "blunt", "polite", "encouraging", "professional", "casual", "enthusiastic", "calm", "matter-of-fact", "pragmatic", "supportive", "patient", "terse", "formal", "informal", "collaborative", "candid", "precise", "positive", "serious", "relaxed",
		"plain", "dry", "sardonic", "playful", "humorous", "witty", "grumpy", "gentle", "firm", "upbeat", "cheerful", "curt", "brief", "detailed",
		"respectful", "empathetic", "assertive", "objective", "analytical", "skeptical", "sceptical", "dry-humored", "businesslike", "conversational"},
}

// Canonical maps accepted spellings (current_focus.*, interaction_patterns.*,
// any case) to the canonical dotted path, or "" when the path is unknown.
func Canonical(field string) string {
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
	for _, known := range Fields {
		if known == c {
			return c
		}
	}
	return ""
}

// IsList reports whether a user-model field holds a list, so that confirm
// appends the value instead of replacing the field.
func IsList(field string) bool {
	switch Canonical(field) {
	case "interaction.common_openers", "technical.languages", "technical.patterns", "technical.tools":
		return true
	}
	return false
}
