package cli

import (
	"encoding/json"
	"strings"
	"testing"
)

// Go's JSON errors are rewritten in words that name the field, what was
// expected and what was found, and never mention Go types.
func TestPlainJSON(t *testing.T) {
	cases := []struct{ in, want string }{
		{"line 1: invalid JSON: json: cannot unmarshal string into Go struct field exportRecord.Atom.confidence of type float64",
			`line 1: invalid JSON: field "confidence" should be a number, not a string`},
		{"line 4: invalid JSON: json: cannot unmarshal string into Go struct field AtomContext.Atom.context.turn of type int",
			`line 4: invalid JSON: field "context.turn" should be a number, not a string`},
		{"line 5: invalid JSON: json: cannot unmarshal array into Go value of type memcore.exportRecord",
			"line 5: invalid JSON: expected an object, found a list"},
		{"line 2: invalid record: invalid character '}' looking for beginning of value",
			"line 2: invalid record: not valid JSON: unexpected '}' where a value should start"},
		{`line 3: invalid JSON: parsing time "yesterday" as "2006-01-02T15:04:05Z07:00": cannot parse "yesterday" as "2006"`,
			`line 3: invalid JSON: time "yesterday" is not an RFC 3339 time such as 2026-01-02T15:04:05Z`},
		{"line 6: invalid record: EOF", `line 6: invalid record: not valid JSON: it ends in the middle of a value (a missing "}", "]" or closing quote?)`},
		{"line 8: invalid JSON: style: json: cannot unmarshal number into Go struct field Style.tone of type string",
			`line 8: invalid JSON: style: field "tone" should be a string, not a number`},
		{"unknown kind \"x\"", "unknown kind \"x\""},
	}
	for _, tc := range cases {
		if got := plainJSON(tc.in); got != tc.want {
			t.Errorf("plainJSON(%q)\n got %q\nwant %q", tc.in, got, tc.want)
		}
	}
}

func TestDecodeErrorNamesLineAndColumn(t *testing.T) {
	for _, tc := range []struct{ doc, want string }{
		{"[\n {\"a\": 1},\n {\"a\": }\n]", "not valid JSON at line 3, column 8: unexpected '}' where a value should start"},
		{"[\n {\"a\": 1},\n {\"a\": \"x\"}\n]", `line 3: field "a" should be a number, not a string`},
	} {
		li := &lineIndex{r: strings.NewReader(tc.doc)}
		var v []struct {
			A int `json:"a"`
		}
		err := json.NewDecoder(li).Decode(&v)
		if got := decodeError(err, li).Error(); got != tc.want {
			t.Errorf("got %q\nwant %q", got, tc.want)
		}
	}
}
