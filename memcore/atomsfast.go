package memcore

import (
	"bytes"
	"encoding/json"
	"strconv"
	"time"
	"unicode/utf8"
	"unsafe"

	"github.com/odekmem/odekmem/internal/disk"
)

// Reading atoms.json without encoding/json: the file is an indented array
// of records laid out exactly as odekmem writes them (json.MarshalIndent
// with a two-space prefix and indent, keys in the struct's order, empty
// members omitted), and a record in that layout is decoded by a reader
// that knows the layout, several times faster than encoding/json, which
// was most of the cost of opening a store. A record in any other form (a
// key odekmem does not write, another order, escapes in a string, a
// promoted atom's origin) is decoded by encoding/json as before, and a
// file not laid out as an indented array at all is read by the lenient
// reader (disk.Dir.ReadArray). For a record the fast reader accepts, the
// result equals encoding/json's (FuzzAtomsFastReader checks that).

// splitRecords splits data into the records of an indented array laid
// out as odekmem writes it (ok false for anything else): recs[i] is record
// i's bytes as laid out in the file, what disk.IndentRecord gives for a
// record in this layout.
func splitRecords(data []byte) (recs [][]byte, ok bool) {
	if len(data) < 2 || data[0] != '[' {
		return nil, false
	}
	if string(data) == "[]" {
		return [][]byte{}, true
	}
	recs = make([][]byte, 0, bytes.Count(data, []byte("\n  {")))
	i := 1
	for {
		// "\n  " then a record starting with '{' and ending at the first
		// "\n  }" (a newline never occurs inside a JSON string), then ','
		// or "\n]" and the end.
		if !bytes.HasPrefix(data[i:], []byte("\n  {")) {
			return nil, false
		}
		start := i + 3
		var end int
		if bytes.HasPrefix(data[start:], []byte("{}")) {
			end = start + 2
		} else {
			j := bytes.Index(data[start:], []byte("\n  }"))
			if j < 0 {
				return nil, false
			}
			end = start + j + 4
		}
		recs = append(recs, data[start:end:end])
		switch {
		case end < len(data) && data[end] == ',':
			i = end + 1
		case string(data[end:]) == "\n]":
			return recs, true
		default:
			return nil, false
		}
	}
}

// decodeSplit decodes the records of a split whose same[i] is nil (nil
// same: all): the fast reader's where it accepts them, encoding/json's
// otherwise. ok is false when a declined record is not a JSON value on
// its own: a value that starts with '{' ends at its closing brace, so
// only then was the split right, and otherwise the lenient reader
// decides.
func decodeSplit(recs [][]byte, same []*entry) (dec []disk.Record[Atom], ok bool) {
	dec = make([]disk.Record[Atom], len(recs))
	var slow []int
	var rest []json.RawMessage
	for i, r := range recs {
		if same != nil && same[i] != nil {
			continue
		}
		if a, fast := decodeFastAtom(r); fast {
			dec[i] = disk.Record[Atom]{Value: a, Indented: r}
			continue
		}
		if !json.Valid(r) {
			return nil, false
		}
		slow = append(slow, i)
		rest = append(rest, r)
	}
	for j, r := range disk.DecodeRecords[Atom](rest) {
		dec[slow[j]] = r
	}
	return dec, true
}

// atomCursor reads one record in odekmem's layout.
type atomCursor struct {
	b []byte
	i int
}

func (c *atomCursor) lit(s string) bool {
	if len(c.b)-c.i >= len(s) && string(c.b[c.i:c.i+len(s)]) == s {
		c.i += len(s)
		return true
	}
	return false
}

// str reads a JSON string without escapes, as valid UTF-8 with no control
// characters (what encoding/json gives back unchanged), in place.
func (c *atomCursor) str() (string, bool) {
	if c.i >= len(c.b) || c.b[c.i] != '"' {
		return "", false
	}
	start := c.i + 1
	ascii := true
	for j := start; j < len(c.b); j++ {
		switch ch := c.b[j]; {
		case ch == '"':
			c.i = j + 1
			s := c.b[start:j]
			if !ascii && !utf8.Valid(s) {
				return "", false
			}
			if len(s) == 0 {
				return "", true
			}
			return unsafe.String(&s[0], len(s)), true
		case ch == '\\' || ch < 0x20:
			return "", false
		case ch >= 0x80:
			ascii = false
		}
	}
	return "", false
}

// member reads the separator and key of a member after the first, given
// whole (`,\n    "name": `); nothing when they are not there.
func (c *atomCursor) member(sepKey string) bool { return c.lit(sepKey) }

// num reads a JSON number's text.
func (c *atomCursor) num() (string, bool) {
	start := c.i
	b := c.b
	j := c.i
	if j < len(b) && b[j] == '-' {
		j++
	}
	switch {
	case j < len(b) && b[j] == '0':
		j++
	case j < len(b) && b[j] >= '1' && b[j] <= '9':
		for j < len(b) && b[j] >= '0' && b[j] <= '9' {
			j++
		}
	default:
		return "", false
	}
	if j < len(b) && b[j] == '.' {
		j++
		k := j
		for j < len(b) && b[j] >= '0' && b[j] <= '9' {
			j++
		}
		if j == k {
			return "", false
		}
	}
	if j < len(b) && (b[j] == 'e' || b[j] == 'E') {
		j++
		if j < len(b) && (b[j] == '+' || b[j] == '-') {
			j++
		}
		k := j
		for j < len(b) && b[j] >= '0' && b[j] <= '9' {
			j++
		}
		if j == k {
			return "", false
		}
	}
	c.i = j
	return string(b[start:j]), true
}

// decodeFastAtom decodes a record in odekmem's layout (ok false for any
// other form).
func decodeFastAtom(rec []byte) (Atom, bool) {
	var a Atom
	c := &atomCursor{b: rec}
	var ok bool
	if !c.lit("{\n    \"id\": ") {
		return a, false
	}
	if a.ID, ok = c.str(); !ok {
		return a, false
	}
	if !c.member(",\n    \"source_class\": ") {
		return a, false
	}
	src, ok := c.str()
	if !ok {
		return a, false
	}
	a.SourceClass = Source(src)
	if !c.member(",\n    \"type\": ") {
		return a, false
	}
	typ, ok := c.str()
	if !ok {
		return a, false
	}
	a.Type = Type(typ)
	if !c.member(",\n    \"created_at\": ") {
		return a, false
	}
	ts, ok := c.str()
	if !ok {
		return a, false
	}
	if a.CreatedAt, ok = parseUTC(ts); !ok {
		return a, false
	}
	if !c.member(",\n    \"context\": ") || !decodeFastContext(c, &a.Context) {
		return a, false
	}
	if c.member(",\n    \"pin\": ") {
		switch {
		case c.lit("true"):
			a.Pin = true
		case c.lit("false"):
		default:
			return a, false
		}
	}
	if c.member(",\n    \"confidence\": ") {
		s, ok := c.num()
		if !ok {
			return a, false
		}
		f, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return a, false
		}
		a.Confidence = f
	}
	if !c.lit("\n  }") || c.i != len(rec) {
		return a, false // a text, an origin or any other member
	}
	return a, true
}

func decodeFastContext(c *atomCursor, ctx *AtomContext) bool {
	if c.lit("{}") {
		return true
	}
	if !c.lit("{\n") {
		return false
	}
	first := true
	// next reads the key of the context member name (keys are given with
	// the separator and indent odekmem writes).
	next := func(firstKey, laterKey string) bool {
		if first {
			if c.lit(firstKey) {
				first = false
				return true
			}
			return false
		}
		return c.lit(laterKey)
	}
	var ok bool
	if next("      \"session_id\": ", ",\n      \"session_id\": ") {
		if ctx.SessionID, ok = c.str(); !ok {
			return false
		}
	}
	if next("      \"turn\": ", ",\n      \"turn\": ") {
		s, ok := c.num()
		if !ok {
			return false
		}
		t, err := strconv.ParseInt(s, 10, 0)
		if err != nil {
			return false
		}
		ctx.Turn = int(t)
	}
	if next("      \"project\": ", ",\n      \"project\": ") {
		if ctx.Project, ok = c.str(); !ok {
			return false
		}
	}
	if next("      \"related_atom_ids\": ", ",\n      \"related_atom_ids\": ") {
		if c.lit("[]") {
			ctx.RelatedAtomIDs = []string{}
		} else {
			if !c.lit("[\n        ") {
				return false
			}
			for {
				s, ok := c.str()
				if !ok {
					return false
				}
				ctx.RelatedAtomIDs = append(ctx.RelatedAtomIDs, s)
				if c.lit(",\n        ") {
					continue
				}
				if c.lit("\n      ]") {
					break
				}
				return false
			}
		}
	}
	return !first && c.lit("\n    }")
}

// parseUTC parses "YYYY-MM-DDTHH:MM:SS[.fraction]Z" as encoding/json
// parses a time.Time (RFC 3339), for that form only.
func parseUTC(s string) (time.Time, bool) {
	if len(s) < 20 || s[len(s)-1] != 'Z' || s[4] != '-' || s[7] != '-' || s[10] != 'T' || s[13] != ':' || s[16] != ':' {
		return time.Time{}, false
	}
	d := func(a, b int) (int, bool) {
		n := 0
		for _, ch := range []byte(s[a:b]) {
			if ch < '0' || ch > '9' {
				return 0, false
			}
			n = n*10 + int(ch-'0')
		}
		return n, true
	}
	y, ok1 := d(0, 4)
	mo, ok2 := d(5, 7)
	dd, ok3 := d(8, 10)
	h, ok4 := d(11, 13)
	mi, ok5 := d(14, 16)
	se, ok6 := d(17, 19)
	if !(ok1 && ok2 && ok3 && ok4 && ok5 && ok6) || mo < 1 || mo > 12 || dd < 1 || dd > daysIn(mo, y) || h > 23 || mi > 59 || se > 59 {
		return time.Time{}, false
	}
	ns := 0
	if frac := s[19 : len(s)-1]; frac != "" {
		if frac[0] != '.' || len(frac) < 2 || len(frac) > 10 {
			return time.Time{}, false
		}
		f, ok := d(20, len(s)-1)
		if !ok {
			return time.Time{}, false
		}
		for range 10 - len(frac) {
			f *= 10
		}
		ns = f
	}
	return time.Date(y, time.Month(mo), dd, h, mi, se, ns, time.UTC), true
}

func daysIn(m, y int) int {
	switch m {
	case 2:
		if y%4 == 0 && (y%100 != 0 || y%400 == 0) {
			return 29
		}
		return 28
	case 4, 6, 9, 11:
		return 30
	}
	return 31
}

// decodeAtomsFile decodes atoms.json laid out as odekmem writes it (ok
// false for anything else: see splitRecords and decodeSplit).
func decodeAtomsFile(data []byte) (recs [][]byte, dec []disk.Record[Atom], ok bool) {
	if recs, ok = splitRecords(data); !ok {
		return nil, nil, false
	}
	if dec, ok = decodeSplit(recs, nil); !ok {
		return nil, nil, false
	}
	return recs, dec, true
}

// readAtomsFile reads atoms.json: each record's bytes, the live entry of
// the last load that has the same bytes (same[i], not decoded again), and
// the others decoded; through splitRecords and decodeSplit when the file
// is laid out as odekmem writes it, else by the lenient reader.
func (s *Store) readAtomsFile(repair bool) (recs [][]byte, same []*entry, dec []disk.Record[Atom], ok, dirty bool) {
	if data, sig, err := s.files.ReadFile(fileAtoms); err == nil {
		if recs, good := splitRecords(data); good {
			same = s.unchangedRecords(recs)
			if dec, good = decodeSplit(recs, same); good {
				s.sigs[fileAtoms] = sig
				return recs, same, dec, true, false
			}
		}
	}
	arr, ok, dirty := s.readArrayLocked(fileAtoms, "records", repair)
	recs = make([][]byte, len(arr))
	for i, r := range arr {
		recs[i] = r
	}
	same = s.unchangedRecords(recs)
	var changed []json.RawMessage
	var at []int
	for i, r := range arr {
		if same[i] == nil {
			changed = append(changed, r)
			at = append(at, i)
		}
	}
	dec = make([]disk.Record[Atom], len(recs))
	for j, r := range disk.DecodeRecords[Atom](changed) {
		dec[at[j]] = r
	}
	return recs, same, dec, ok, dirty
}
