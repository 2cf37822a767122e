package disk

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/odekmem/odekmem/internal/par"
)

// Array is a file holding a JSON array of records, as read: its bytes and
// the signature of that version, and its records. A damaged array keeps
// the intact prefix of its records and says why decoding stopped.
type Array struct {
	Data []byte
	Sig  Sig
	Recs []json.RawMessage
	// Err is why the file could not be read (fs.ErrNotExist when it is
	// missing); Damage is why decoding stopped early.
	Err, Damage error
}

// ReadArray reads the JSON array in rel. A file of only white space has no
// records and no damage.
func (d *Dir) ReadArray(rel string) Array {
	var a Array
	a.Data, a.Sig, a.Err = d.ReadFile(rel)
	if a.Err != nil || len(bytes.TrimSpace(a.Data)) == 0 {
		return a
	}
	if json.Unmarshal(a.Data, &a.Recs) != nil || a.Recs == nil {
		a.Recs, a.Damage = DecodeArray(a.Data) // lenient: keeps the intact prefix
	}
	return a
}

// DecodeArray decodes a JSON array leniently: the intact prefix of a
// truncated file is returned with the error that stopped decoding.
func DecodeArray(data []byte) ([]json.RawMessage, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	if d, ok := tok.(json.Delim); !ok || d != '[' {
		return nil, fmt.Errorf("not a JSON array")
	}
	var out []json.RawMessage
	for dec.More() {
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return out, err
		}
		out = append(out, raw)
	}
	if _, err := dec.Token(); err != nil {
		return out, err
	}
	if _, err := dec.Token(); err == nil {
		return out, fmt.Errorf("data after the array")
	}
	return out, nil
}

// Record is one decoded record of an array: its value, its bytes laid out
// as an element of an indented array file (IndentRecord), or why it could
// not be decoded.
type Record[T any] struct {
	Value    T
	Indented []byte
	Err      error
}

// DecodeRecords unmarshals every record and lays each out as the array
// file holds it, on every core: for a large file this is most of the
// work of reading it.
func DecodeRecords[T any](recs []json.RawMessage) []Record[T] {
	out := make([]Record[T], len(recs))
	par.For(len(recs), 256, 0, func(i int) {
		r := &out[i]
		if r.Err = json.Unmarshal(recs[i], &r.Value); r.Err == nil {
			r.Indented = IndentRecord(recs[i])
		}
	})
	return out
}

// IndentRecord lays a record out as an element of an array indented by two
// spaces (nil when it is not valid JSON).
func IndentRecord(raw json.RawMessage) []byte {
	var buf bytes.Buffer
	if err := json.Indent(&buf, bytes.TrimSpace(raw), "  ", "  "); err != nil {
		return nil
	}
	return buf.Bytes()
}

// IndentArray lays n records out as an indented array file; record(i)
// is the i-th as IndentRecord gives it, called twice (size, then copy), so
// it should be cheap.
func IndentArray(n int, record func(i int) []byte) []byte {
	size := 4
	for i := range n {
		size += len(record(i)) + 4
	}
	buf := make([]byte, 0, size)
	buf = append(buf, '[')
	for i := range n {
		if i > 0 {
			buf = append(buf, ',')
		}
		buf = append(buf, "\n  "...)
		buf = append(buf, record(i)...)
	}
	if n > 0 {
		buf = append(buf, '\n')
	}
	buf = append(buf, ']')
	return buf
}
