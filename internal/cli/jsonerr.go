package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/odekmem/odekmem/internal/lazyre"
)

// Errors from decoding JSON, in plain words: which line and field, what
// was expected and what was found, instead of Go's "cannot unmarshal
// string into Go struct field exportRecord.Atom.confidence of type
// float64".

var (
	reGoField = lazyre.New(`(?:json: )?cannot unmarshal (\w+)(?: \S+)? into Go struct field (\S+) of type (.+)$`)
	reGoValue = lazyre.New(`(?:json: )?cannot unmarshal (\w+)(?: \S+)? into Go value of type (.+)$`)
	reBadChar = lazyre.New(`invalid character ('.+?'|'\\''|'\\\\') (.+)$`)
	reTime    = lazyre.New(`parsing time ("[^"]*") as "[^"]*": cannot parse .*$`)
	reEOF     = lazyre.New(`(unexpected end of JSON input|unexpected EOF|\bEOF)$`)
)

// where says in words where a JSON syntax error happened, from the end of
// encoding/json's "invalid character 'x' …" message.
var where = map[string]string{
	"looking for beginning of value":             "where a value should start",
	"looking for beginning of object key string": `where a quoted key should be`,
	"after object key":                           `after a key (expected ":")`,
	"after object key:value pair":                `after a value (expected "," or "}")`,
	"after array element":                        `after a list element (expected "," or "]")`,
	"after top-level value":                      "after the end of the value (one JSON value is expected)",
	"in string literal":                          "inside a string (control characters must be escaped)",
	"in string escape code":                      "in a backslash escape",
	"in numeric literal":                         "in a number",
}

// plainJSON rewrites the encoding/json and time parts of an error message
// in plain words; other text is kept.
func plainJSON(msg string) string {
	msg = strings.ReplaceAll(msg, "invalid JSON: json: ", "invalid JSON: ")
	if m := reGoField.FindStringSubmatchIndex(msg); m != nil {
		found, field, typ := msg[m[2]:m[3]], msg[m[4]:m[5]], msg[m[6]:m[7]]
		return msg[:m[0]] + fmt.Sprintf("field %q should be %s, not %s", jsonPath(field), goTypeWords(typ), jsonKindWords(found)) + msg[m[1]:]
	}
	if m := reGoValue.FindStringSubmatchIndex(msg); m != nil {
		found, typ := msg[m[2]:m[3]], msg[m[4]:m[5]]
		return msg[:m[0]] + fmt.Sprintf("expected %s, found %s", goTypeWords(typ), jsonKindWords(found)) + msg[m[1]:]
	}
	if m := reBadChar.FindStringSubmatchIndex(msg); m != nil {
		char, rest := msg[m[2]:m[3]], msg[m[4]:m[5]]
		w, ok := where[rest]
		if !ok {
			w = strings.TrimPrefix(rest, "in ")
			w = "in " + w
		}
		pre := strings.TrimSuffix(strings.TrimSuffix(msg[:m[0]], "json: "), "invalid JSON: ")
		return pre + fmt.Sprintf("not valid JSON: unexpected %s %s", char, w)
	}
	if m := reTime.FindStringSubmatchIndex(msg); m != nil {
		return msg[:m[0]] + fmt.Sprintf("time %s is not an RFC 3339 time such as 2026-01-02T15:04:05Z", msg[m[2]:m[3]])
	}
	if m := reEOF.FindStringIndex(msg); m != nil {
		pre := strings.TrimSuffix(strings.TrimSuffix(msg[:m[0]], "json: "), "invalid JSON: ")
		return pre + "not valid JSON: it ends in the middle of a value (a missing \"}\", \"]\" or closing quote?)"
	}
	return msg
}

// jsonPath is a Go struct-field path as the JSON keys a person wrote:
// without the struct's type name and without embedded Go field names
// ("exportRecord.Atom.context.turn" → "context.turn").
func jsonPath(goPath string) string {
	parts := strings.Split(goPath, ".")
	var out []string
	for i, p := range parts {
		if i == 0 || p == "" || (p[0] >= 'A' && p[0] <= 'Z') {
			continue
		}
		out = append(out, p)
	}
	if len(out) == 0 {
		return goPath
	}
	return strings.Join(out, ".")
}

// goTypeWords names a Go type by the JSON value that fits it.
func goTypeWords(t string) string {
	switch {
	case t == "string":
		return "a string"
	case t == "bool":
		return "true or false"
	case t == "time.Time":
		return "an RFC 3339 time such as 2026-01-02T15:04:05Z"
	case strings.HasPrefix(t, "int"), strings.HasPrefix(t, "uint"), strings.HasPrefix(t, "float"):
		return "a number"
	case strings.HasPrefix(t, "[]"), strings.HasPrefix(t, "["):
		return "a list"
	}
	return "an object"
}

// jsonKindWords names the kind of JSON value encoding/json found.
func jsonKindWords(k string) string {
	switch k {
	case "string":
		return "a string"
	case "number":
		return "a number"
	case "bool":
		return "true or false"
	case "array":
		return "a list"
	case "object":
		return "an object"
	}
	return k
}

// lineIndex reads through r and remembers where lines start, so that a
// decoding error at a byte offset can name its line and column.
type lineIndex struct {
	r  io.Reader
	n  int64
	nl []int64 // offsets of the newlines read so far
}

func (l *lineIndex) Read(p []byte) (int, error) {
	n, err := l.r.Read(p)
	for i, b := range p[:n] {
		if b == '\n' {
			l.nl = append(l.nl, l.n+int64(i))
		}
	}
	l.n += int64(n)
	return n, err
}

// pos is the 1-based line and column of byte offset off.
func (l *lineIndex) pos(off int64) (line, col int) {
	i := sort.Search(len(l.nl), func(i int) bool { return l.nl[i] >= off })
	start := int64(0)
	if i > 0 {
		start = l.nl[i-1] + 1
	}
	return i + 1, int(off-start) + 1
}

// decodeError is err from decoding a whole JSON document read through li,
// in plain words and with the line and column when encoding/json knows
// the offset.
func decodeError(err error, li *lineIndex) error {
	var off int64 = -1
	var inner error
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		off, inner = se.Offset, se
	case errors.As(err, &te):
		off, inner = te.Offset, te
	}
	msg := err.Error()
	if off < 0 {
		return errors.New(plainJSON(msg))
	}
	// "locomo: invalid JSON: <inner>" → "locomo: line 3, column 7: <inner in words>"
	pre := strings.TrimSuffix(strings.TrimSuffix(msg, inner.Error()), "invalid JSON: ")
	line, col := li.pos(max(off-1, 0))
	if se != nil {
		what := strings.TrimPrefix(plainJSON("json: "+se.Error()), "not valid JSON: ")
		return fmt.Errorf("%snot valid JSON at line %d, column %d: %s", pre, line, col, what)
	}
	return fmt.Errorf("%sline %d: %s", pre, line, plainJSON(te.Error()))
}
