package jsonl_test

import (
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/odekmem/odekmem/internal/jsonl"
)

func TestReaderBoundsLinesAndStripsBOM(t *testing.T) {
	in := "\ufeff{\"a\":1}\r\n" + strings.Repeat("x", 100) + "\n\n  \ufeff\ufeffplain  \nlast"
	r := jsonl.NewReader(strings.NewReader(in), 50)
	var got []string
	var errs []int
	for {
		b, err := r.Next()
		if err == io.EOF {
			break
		}
		if errors.Is(err, jsonl.ErrLineTooLong) {
			errs = append(errs, r.Line())
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, string(b))
	}
	want := []string{`{"a":1}`, "", "plain", "last"}
	if strings.Join(got, "|") != strings.Join(want, "|") || len(errs) != 1 || errs[0] != 2 || r.Line() != 5 {
		t.Fatalf("lines %q, too long at %v, line count %d", got, errs, r.Line())
	}
	if r.Bytes() != int64(len(in)) {
		t.Fatalf("bytes %d of %d", r.Bytes(), len(in))
	}
}

func TestCheckKeysFindsDuplicatesInAnyCaseAndDepth(t *testing.T) {
	for in, bad := range map[string]bool{
		`{"role":"user","content":"x"}`:                false,
		`{"role":"tool","role":"user"}`:                true,
		`{"role":"tool","Role":"user"}`:                true,
		`{"content":[{"type":"text","TYPE":"tool"}]}`:  true,
		`{"a":{"b":1},"c":{"b":2}}`:                    false,
		`{"a":1} {"b":2}`:                              true,
		`{"a":` + strings.Repeat("[", 100) + `]` + `}`: true,
	} {
		if err := jsonl.CheckKeys([]byte(in)); (err != nil) != bad {
			t.Errorf("CheckKeys(%s) = %v", in, err)
		}
	}
	if err := jsonl.CheckKeys([]byte(`{"role":"tool","Role":"user"}`)); !errors.Is(err, jsonl.ErrDuplicateKey) {
		t.Errorf("want ErrDuplicateKey, got %v", err)
	}
}
