package llm

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

func TestParseArray(t *testing.T) {
	tests := []struct {
		name    string
		raw     string
		want    string // JSON of the result
		wantErr error
		errHas  string
	}{
		{name: "plain", raw: `[{"text":"a","type":"fact"}]`, want: `[{"text":"a","type":"fact"}]`},
		{name: "empty array", raw: `[]`, want: `[]`},
		{name: "fenced json", raw: "```json\n[{\"text\":\"a\"}]\n```", want: `[{"text":"a"}]`},
		{name: "fenced no lang", raw: "Sure:\n```\n[{\"text\":\"a\"}]\n```\nDone.", want: `[{"text":"a"}]`},
		{name: "prose around", raw: `Here are the atoms: [{"text":"a"}] Hope this helps`, want: `[{"text":"a"}]`},
		{name: "bracket prose before", raw: `[note] the answer is [{"text":"a"}]`, want: `[{"text":"a"}]`},
		{name: "think block", raw: "<think>maybe [1,2,</think>[{\"text\":\"a\"}]", want: `[{"text":"a"}]`},
		{name: "wrapped atoms", raw: `{"atoms":[{"text":"a"}]}`, want: `[{"text":"a"}]`},
		{name: "wrapped intents", raw: `{"intents":[{"text":"a"}],"note":"x"}`, want: `[{"text":"a"}]`},
		{name: "wrapped results fenced", raw: "```json\n{\"results\": [{\"text\":\"b\"}]}\n```", want: `[{"text":"b"}]`},
		{name: "single object", raw: `{"text":"a","type":"fact"}`, want: `[{"text":"a","type":"fact"}]`},
		{name: "empty object", raw: `{}`, want: `[]`},
		{name: "non-objects skipped", raw: `[{"text":"a"}, "junk", 3, null]`, want: `[{"text":"a"}]`},
		{name: "unicode", raw: `[{"text":"Benutzer mag Käse ✓"}]`, want: `[{"text":"Benutzer mag Käse ✓"}]`},
		{name: "nested ok", raw: `[{"text":"a","meta":{"x":[1,{"y":2}]}}]`, want: `[{"meta":{"x":[1,{"y":2}]},"text":"a"}]`},
		{name: "two arrays ambiguous", raw: `{"a":[{"text":"x"}],"b":[{"text":"y"}]}`, wantErr: ErrMalformedJSON, errHas: "ambiguous"},
		{name: "duplicate key", raw: `[{"text":"a","text":"b"}]`, wantErr: ErrDuplicateKey},
		{name: "case-variant key", raw: `[{"text":"a","Text":"b"}]`, wantErr: ErrDuplicateKey, errHas: "case variants"},
		{name: "dup in wrapper", raw: `{"atoms":[],"Atoms":[{"text":"x"}]}`, wantErr: ErrDuplicateKey},
		{name: "trailing comma array", raw: `[{"text":"a"},]`, wantErr: ErrMalformedJSON, errHas: "trailing comma"},
		{name: "trailing comma object", raw: `[{"text":"a",}]`, wantErr: ErrMalformedJSON, errHas: "trailing comma"},
		{name: "truncated", raw: `[{"text":"a"},{"text":"b`, wantErr: ErrMalformedJSON},
		{name: "malformed no partial", raw: `Atoms: [{"text":"ok"}, {"text": oops}]`, wantErr: ErrMalformedJSON},
		{name: "single quotes", raw: `[{'text':'a'}]`, wantErr: ErrMalformedJSON},
		{name: "no json", raw: `I could not find anything durable.`, wantErr: ErrNoJSON},
		{name: "empty", raw: ``, wantErr: ErrNoJSON},
		{name: "too deep", raw: strings.Repeat("[", 40) + strings.Repeat("]", 40), wantErr: ErrMalformedJSON, errHas: "nesting"},
		{name: "too large", raw: "[" + strings.Repeat(" ", DefaultMaxRaw) + "]", wantErr: ErrTooLarge},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ParseArray(tc.raw, 0)
			if tc.wantErr != nil {
				if !errors.Is(err, tc.wantErr) {
					t.Fatalf("err = %v, want %v", err, tc.wantErr)
				}
				if got != nil {
					t.Errorf("partial result %v returned with error", got)
				}
				if tc.errHas != "" && !strings.Contains(err.Error(), tc.errHas) {
					t.Errorf("err %q does not mention %q", err, tc.errHas)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			b, _ := json.Marshal(got)
			if string(b) != tc.want {
				t.Errorf("got %s, want %s", b, tc.want)
			}
		})
	}
}

func TestParseArrayMaxArgument(t *testing.T) {
	raw := `[{"text":"abcdefghij"}]`
	if _, err := ParseArray(raw, 10); !errors.Is(err, ErrTooLarge) {
		t.Errorf("max 10: err = %v, want ErrTooLarge", err)
	}
	if _, err := ParseArray(raw, len(raw)); err != nil {
		t.Errorf("max = len: %v", err)
	}
}

func TestParseObject(t *testing.T) {
	m, err := ParseObject("Result:\n```json\n{\"direct\":[],\"speculative\":[{\"field\":\"style.tone\"}]}\n```", 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := m["speculative"]; !ok {
		t.Errorf("got %v", m)
	}
	if _, err := ParseObject(`[1,2]`, 0); !errors.Is(err, ErrMalformedJSON) {
		t.Errorf("array: err = %v", err)
	}
	if _, err := ParseObject(`{"a":1,"A":2}`, 0); !errors.Is(err, ErrDuplicateKey) {
		t.Errorf("case dup: err = %v", err)
	}
	if _, err := ParseObject(`{"a":{"b":1,"b":2}}`, 0); !errors.Is(err, ErrDuplicateKey) {
		t.Errorf("nested dup: err = %v", err)
	}
	if _, err := ParseObject(`nothing here`, 0); !errors.Is(err, ErrNoJSON) {
		t.Errorf("prose: err = %v", err)
	}
}

func FuzzParseArray(f *testing.F) {
	for _, s := range []string{
		`[{"text":"a","type":"fact","confidence":0.9}]`,
		"```json\n[{\"text\":\"a\"}]\n```",
		`Here are the atoms: [{"text":"a"}] Hope this helps`,
		`{"atoms":[{"text":"a"}]}`,
		`[{"text":"a","Text":"b"}]`,
		`[{"text":"a"},]`,
		`[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[`,
		`{"a":[1],"b":[2]}`,
		"<think>x</think>[]",
		"```\n```",
		`[{"text":"\ud800"}]`,
		`[1e999]`,
		`{"":[{"":{}}]}`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		arr, err := ParseArray(s, 0)
		if err == nil {
			if arr == nil {
				t.Fatal("nil result without error")
			}
			if _, err := json.Marshal(arr); err != nil {
				t.Fatalf("result does not re-marshal: %v", err)
			}
		} else if arr != nil {
			t.Fatal("result with error")
		}
		_, _ = ParseObject(s, 0)
		_, _ = ParseValue(s, 128)
	})
}
