package views

import "testing"

func TestListFilterMatch(t *testing.T) {
	f := NewListFilter("", []string{"source", "reason", "type"}, map[string]string{"src": "source"})
	row := map[string]string{"source": "web", "reason": "scan_rejected: bidi_control", "type": "fact"}
	text := "Blog post claims the pgxpool default"
	tests := []struct {
		filter string
		want   bool
	}{
		{"", true},
		{"source:web", true},
		{"src:web", true},
		{"source:tool", false},
		{"reason:scan", true},
		{"reason:tainted", false},
		{"PGXPOOL", true},
		{"pgxpool blog", true},
		{"pgxpool redis", false},
		{"bidi", true},                 // a word matches any field too
		{"source:web type:fact", true}, // tokens AND
		{"source:web type:error", false},
		{"unknown:thing", false}, // not a known key: a word
		{"source:", false},       // an empty value is a word "source:"
	}
	for _, tt := range tests {
		f.Set(tt.filter)
		if got := f.Match(row, text); got != tt.want {
			t.Errorf("%q: %v, want %v", tt.filter, got, tt.want)
		}
	}
}
