package memcore

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/odekmem/odekmem/internal/disk"
)

// fastSeedAtoms are records in the forms odekmem writes, and in forms the
// fast reader must decline.
func fastSeedAtoms() []Atom {
	t := time.Date(2026, 2, 28, 23, 59, 58, 120000000, time.UTC)
	return []Atom{
		{ID: "0123456789abcdef0123456789abcdef", SourceClass: SourceUserSaid, Type: TypeFact, CreatedAt: t},
		{ID: "0123456789abcdef0123456789abcde0", SourceClass: "user_approved", Type: "decision", CreatedAt: t.Add(time.Second), Pin: true, Confidence: 0.85,
			Context: AtomContext{SessionID: "s-1", Turn: 12, Project: "~/src/päyments", RelatedAtomIDs: []string{"a", "b"}}},
		{ID: "x", SourceClass: "tool_output", Type: "observation", CreatedAt: time.Date(2024, 2, 29, 0, 0, 0, 0, time.UTC), Confidence: 1e-7,
			Context: AtomContext{Turn: -3, RelatedAtomIDs: []string{}}},
		{ID: "y", SourceClass: "user_said", Type: "fact", CreatedAt: t, Context: AtomContext{Project: `a "quoted" <b> & c`}},
		{ID: "z", SourceClass: "user_said", Type: "fact", CreatedAt: t, Origin: &Origin{SourceClass: "web", QuarantinedAt: t, PromotedAt: t}},
	}
}

// fastFile lays atoms out as atoms.json.
func fastFile(atoms []Atom) []byte {
	return disk.IndentArray(len(atoms), func(i int) []byte {
		b, _ := json.MarshalIndent(atoms[i], "  ", "  ")
		return b
	})
}

// checkFastMatchesJSON: when the fast path takes a file, it splits it as
// encoding/json does, and every record decodes and is kept as
// encoding/json and disk.IndentRecord give it.
func checkFastMatchesJSON(t *testing.T, data []byte) (accepted int) {
	t.Helper()
	recs, dec, ok := decodeAtomsFile(data)
	if !ok {
		return 0
	}
	var arr []json.RawMessage
	if err := json.Unmarshal(data, &arr); err != nil {
		t.Fatalf("fast path took a file encoding/json rejects: %v", err)
	}
	if len(arr) != len(recs) {
		t.Fatalf("split %d records, encoding/json %d", len(recs), len(arr))
	}
	for i := range recs {
		var want Atom
		err := json.Unmarshal(arr[i], &want)
		if (err == nil) != (dec[i].Err == nil) {
			t.Fatalf("record %d: error %v, encoding/json %v", i, dec[i].Err, err)
		}
		if err != nil {
			continue
		}
		if _, fast := decodeFastAtom(recs[i]); fast {
			accepted++
		}
		if !reflect.DeepEqual(dec[i].Value, want) {
			t.Fatalf("record %d:\nfast %#v\njson %#v", i, dec[i].Value, want)
		}
		if ind := disk.IndentRecord(arr[i]); string(ind) != string(dec[i].Indented) {
			t.Fatalf("record %d kept as\n%s\nlaid out\n%s", i, dec[i].Indented, ind)
		}
	}
	return accepted
}

func TestFastReaderMatchesEncodingJSON(t *testing.T) {
	atoms := fastSeedAtoms()
	data := fastFile(atoms)
	if n := checkFastMatchesJSON(t, data); n != 3 {
		// The project with quotes and <&> is escaped by encoding/json and
		// the origin is not read fast: both go through encoding/json.
		t.Fatalf("fast reader accepted %d of %d records, want 3", n, len(atoms))
	}
	for _, s := range []string{`[]`, "[\n  {}\n]", "[\n  {\n    \"id\": \"a\"\n  }\n]"} {
		checkFastMatchesJSON(t, []byte(s))
	}
	for _, bad := range []string{`[{"id":"a"}]`, "[\n  {}\n] x", "[\n  {}", "[\n  {},\n  {}\n]\n"} {
		if _, ok := splitRecords([]byte(bad)); ok {
			t.Fatalf("%q split as odekmem's layout", bad)
		}
	}
}

func FuzzAtomsFastReader(f *testing.F) {
	f.Add(fastFile(fastSeedAtoms()))
	one := string(fastFile(fastSeedAtoms()[:2]))
	for _, mut := range []string{
		strings.Replace(one, `"fact"`, `"fa\u0063t"`, 1),
		strings.Replace(one, `"id"`, `"ID"`, 1),
		strings.Replace(one, `58.12Z`, `58.12+00:00`, 1),
		strings.Replace(one, `0.85`, `085`, 1),
		strings.Replace(one, `"turn": 12`, `"turn": 1.5`, 1),
		strings.Replace(one, `"pin": true`, `"pin": "yes"`, 1),
		strings.Replace(one, `"type": "fact",`, `"type": "fact", "type": "goal",`, 1),
		strings.Replace(one, "\n  }", "\n  }}", 1),
	} {
		f.Add([]byte(mut))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		checkFastMatchesJSON(t, data)
	})
}
