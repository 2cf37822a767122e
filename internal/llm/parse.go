package llm

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/odekmem/odekmem/internal/lazyre"
)

// DefaultMaxRaw is the size cap ParseArray, ParseObject and ParseValue apply
// when given max <= 0.
const DefaultMaxRaw = 64 << 10

const (
	maxJSONDepth = 32 // deeper nesting is rejected
	maxStarts    = 32 // candidate value starts tried per text
)

var fence = lazyre.New("(?s)```[A-Za-z0-9_+-]*[ \t]*\\r?\\n?(.*?)```")

// ParseValue finds and decodes the first JSON array or object in raw model
// output. It strips <think> blocks and ``` fences, skips prose before the
// value and ignores text after it. max caps len(raw) in bytes (<= 0 means
// DefaultMaxRaw); larger input is an ErrTooLarge error.
//
// Objects that repeat a key, exactly or as a case variant ("text" and
// "Text"), are rejected with ErrDuplicateKey. A value that is clearly JSON but
// malformed (for example with a trailing comma) is an ErrMalformedJSON error:
// nothing partial is returned. Numbers decode as float64.
func ParseValue(raw string, max int) (any, error) {
	if max <= 0 {
		max = DefaultMaxRaw
	}
	if len(raw) > max {
		return nil, fmt.Errorf("%w: %d bytes, cap %d", ErrTooLarge, len(raw), max)
	}
	raw = stripThink(raw)
	var texts []string
	for _, m := range fence.FindAllStringSubmatch(raw, 4) {
		texts = append(texts, m[1])
	}
	texts = append(texts, raw)
	for _, t := range texts {
		v, err := findValue(t)
		if err == nil {
			return v, nil
		}
		if !errors.Is(err, ErrNoJSON) {
			return nil, err
		}
	}
	return nil, fmt.Errorf("%w (%d bytes)", ErrNoJSON, len(raw))
}

// ParseArray decodes a JSON array of objects from raw model output (see
// ParseValue for what is tolerated and what is rejected). A top-level object
// wrapping exactly one array-valued member ({"atoms":[…]}, {"results":[…]})
// yields that array; a non-empty object with no array member is taken as a
// one-element array (JSON mode forces objects); an object with several array
// members is ambiguous and rejected. Array elements that are not objects are
// skipped. max caps the raw size in bytes (<= 0 means DefaultMaxRaw).
func ParseArray(raw string, max int) ([]map[string]any, error) {
	v, err := ParseValue(raw, max)
	if err != nil {
		return nil, err
	}
	arr, err := unwrapArray(v)
	if err != nil {
		return nil, err
	}
	out := make([]map[string]any, 0, len(arr))
	for _, e := range arr {
		if m, ok := e.(map[string]any); ok {
			out = append(out, m)
		}
	}
	return out, nil
}

// ParseObject decodes a JSON object from raw model output (see ParseValue).
// A top-level array is an ErrMalformedJSON error. max caps the raw size in
// bytes (<= 0 means DefaultMaxRaw).
func ParseObject(raw string, max int) (map[string]any, error) {
	v, err := ParseValue(raw, max)
	if err != nil {
		return nil, err
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("%w: want an object, got an array", ErrMalformedJSON)
	}
	return m, nil
}

// unwrapArray returns v as an array, unwrapping a single-array object.
func unwrapArray(v any) ([]any, error) {
	switch t := v.(type) {
	case []any:
		return t, nil
	case map[string]any:
		var found []any
		n := 0
		for _, mv := range t {
			if a, ok := mv.([]any); ok {
				found = a
				n++
			}
		}
		switch {
		case n == 1:
			return found, nil
		case n > 1:
			return nil, fmt.Errorf("%w: object wraps %d arrays; which one is meant is ambiguous", ErrMalformedJSON, n)
		case len(t) == 0:
			return []any{}, nil
		default:
			return []any{t}, nil
		}
	}
	return nil, fmt.Errorf("%w: want an array", ErrMalformedJSON)
}

// findValue tries candidate starts ('[' or '{') in order. A start that fails
// on its first token is prose ("[note]") and the next start is tried; a start
// that fails after decoding at least one token inside the value is malformed
// JSON and its error is returned, so no inner fragment of a broken value is
// ever mistaken for the answer.
func findValue(text string) (any, error) {
	skipUntil := 0
	tries := 0
	for i := 0; i < len(text); i++ {
		c := text[i]
		if (c != '[' && c != '{') || i < skipUntil {
			continue
		}
		if tries++; tries > maxStarts {
			break
		}
		v, consumed, tokens, err := decodeOne(text[i:])
		if err == nil {
			return v, nil
		}
		if errors.Is(err, ErrDuplicateKey) || tokens >= 2 {
			return nil, err
		}
		skipUntil = i + consumed
	}
	return nil, ErrNoJSON
}

// decodeOne decodes one JSON value at the start of s by token streaming,
// detecting duplicate keys. It returns the bytes consumed and tokens read.
func decodeOne(s string) (v any, consumed int, tokens int, err error) {
	dec := json.NewDecoder(strings.NewReader(s))
	w := walker{dec: dec}
	v, err = w.value(0)
	consumed = int(dec.InputOffset())
	if consumed < 1 {
		consumed = 1
	}
	if err != nil {
		return nil, consumed, w.tokens, w.explain(s, err)
	}
	return v, consumed, w.tokens, nil
}

type walker struct {
	dec    *json.Decoder
	tokens int
}

func (w *walker) token() (json.Token, error) {
	t, err := w.dec.Token()
	if err == nil {
		w.tokens++
	}
	if err == io.EOF {
		err = io.ErrUnexpectedEOF
	}
	return t, err
}

func (w *walker) value(depth int) (any, error) {
	t, err := w.token()
	if err != nil {
		return nil, err
	}
	return w.from(t, depth)
}

// from builds the value that starts with token t. The array and object
// loops below read alike (next token, stop at the closer) but a member is a
// value in one and a checked key plus value in the other.
func (w *walker) from(t json.Token, depth int) (any, error) {
	d, ok := t.(json.Delim)
	if !ok {
		return t, nil // string, float64, bool or nil
	}
	if depth >= maxJSONDepth {
		return nil, fmt.Errorf("%w: nesting deeper than %d", ErrMalformedJSON, maxJSONDepth)
	}
	switch d {
	case '[':
		arr := []any{}
		for {
			t, err := w.token()
			if err != nil {
				return nil, err
			}
			if t == json.Delim(']') {
				return arr, nil
			}
			e, err := w.from(t, depth+1)
			if err != nil {
				return nil, err
			}
			arr = append(arr, e)
		}
	case '{':
		obj := map[string]any{}
		folded := map[string]string{}
		for {
			t, err := w.token()
			if err != nil {
				return nil, err
			}
			if t == json.Delim('}') {
				return obj, nil
			}
			key, ok := t.(string)
			if !ok {
				return nil, fmt.Errorf("%w: object key is not a string", ErrMalformedJSON)
			}
			lk := strings.ToLower(key)
			if prev, dup := folded[lk]; dup {
				if prev == key {
					return nil, fmt.Errorf("%w: %q appears twice in one object", ErrDuplicateKey, key)
				}
				return nil, fmt.Errorf("%w: %q and %q (case variants) in one object", ErrDuplicateKey, prev, key)
			}
			folded[lk] = key
			val, err := w.value(depth + 1)
			if err != nil {
				return nil, err
			}
			obj[key] = val
		}
	}
	return nil, fmt.Errorf("%w: unexpected %q", ErrMalformedJSON, string(d))
}

// explain wraps decoder errors in ErrMalformedJSON, naming trailing commas.
func (w *walker) explain(s string, err error) error {
	if errors.Is(err, ErrDuplicateKey) || errors.Is(err, ErrMalformedJSON) {
		return err
	}
	var se *json.SyntaxError
	if errors.As(err, &se) {
		// The offset points at or just past the offending byte, depending
		// on how the decoder buffered; check both.
		for _, p := range []int{int(se.Offset), int(se.Offset) - 1} {
			if p < 0 || p >= len(s) || (s[p] != ']' && s[p] != '}') {
				continue
			}
			j := p - 1
			for j >= 0 && strings.ContainsRune(" \t\r\n", rune(s[j])) {
				j--
			}
			if j >= 0 && s[j] == ',' {
				return fmt.Errorf("%w: trailing comma before %q at offset %d (trailing commas are not valid JSON and are rejected)",
					ErrMalformedJSON, s[p], p)
			}
			break
		}
		return fmt.Errorf("%w: %v (offset %d)", ErrMalformedJSON, se, se.Offset)
	}
	if errors.Is(err, io.ErrUnexpectedEOF) {
		return fmt.Errorf("%w: value is truncated", ErrMalformedJSON)
	}
	return fmt.Errorf("%w: %v", ErrMalformedJSON, err)
}

// lookup reads key from m case-insensitively (case-variant duplicates are
// already rejected by the parser, so at most one key matches).
func lookup(m map[string]any, keys ...string) (any, bool) {
	for _, k := range keys {
		if v, ok := m[k]; ok {
			return v, true
		}
	}
	for mk, v := range m {
		for _, k := range keys {
			if strings.EqualFold(mk, k) {
				return v, true
			}
		}
	}
	return nil, false
}

// str renders a scalar JSON value as a string; arrays of scalars are joined
// with ", "; objects and null give "".
func str(v any) string {
	switch t := v.(type) {
	case string:
		return t
	case float64:
		return fmt.Sprintf("%g", t)
	case bool:
		if t {
			return "true"
		}
		return "false"
	case []any:
		parts := make([]string, 0, len(t))
		for _, e := range t {
			if s := strings.TrimSpace(str(e)); s != "" {
				parts = append(parts, s)
			}
		}
		return strings.Join(parts, ", ")
	}
	return ""
}
