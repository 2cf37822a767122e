package jsonl

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
)

// ErrDuplicateKey means a JSON object names the same key twice, in any
// letter case. encoding/json keeps the last of them (and matches struct
// fields case-insensitively), so {"role":"tool","Role":"user"} would read
// as a message from the person: such a line is refused instead.
var ErrDuplicateKey = errors.New("duplicate key")

// maxJSONDepth bounds nesting in CheckKeys.
const maxJSONDepth = 64

// CheckKeys reports ErrDuplicateKey (naming the key) when any object in
// the single JSON value b repeats a key, compared case-insensitively, and
// an error when b is not exactly one JSON value. It streams the tokens:
// memory is bounded by the nesting depth and the longest key.
func CheckKeys(b []byte) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	if err := checkValue(dec, 0); err != nil {
		return err
	}
	if _, err := dec.Token(); err != io.EOF {
		return errors.New("text after the JSON value")
	}
	return nil
}

func checkValue(dec *json.Decoder, depth int) error {
	if depth > maxJSONDepth {
		return fmt.Errorf("nested deeper than %d levels", maxJSONDepth)
	}
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	d, ok := tok.(json.Delim)
	if !ok {
		return nil
	}
	switch d {
	case '{':
		seen := map[string]bool{}
		for dec.More() {
			kt, err := dec.Token()
			if err != nil {
				return err
			}
			k, _ := kt.(string)
			fold := strings.ToLower(k)
			if seen[fold] {
				return fmt.Errorf("%w %q", ErrDuplicateKey, k)
			}
			seen[fold] = true
			if err := checkValue(dec, depth+1); err != nil {
				return err
			}
		}
	case '[':
		for dec.More() {
			if err := checkValue(dec, depth+1); err != nil {
				return err
			}
		}
	}
	_, err = dec.Token() // the closing delimiter
	return err
}
