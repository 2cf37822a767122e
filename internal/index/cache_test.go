package index

import (
	"bytes"
	"strings"
	"testing"
)

func validID(id string) bool { return id != "" && !strings.ContainsAny(id, "/\\") }

func encodeSample(t *testing.T) ([]byte, map[string]string, map[string][]byte) {
	t.Helper()
	texts := map[string]string{"a1": "we deploy on fridays", "b2": "the ledger uses postgres", "c3": ""}
	raws := map[string][]byte{}
	for i, id := range []string{"a1", "b2", "c3"} {
		vec := make([]float32, 8)
		vec[i] = 1
		vec[(i+3)%8] = -0.5
		raws[id] = EncodeQuantized(vec)
	}
	var buf bytes.Buffer
	EncodeCache(&buf, "hash/1/8", 8, []string{"a1", "b2", "c3"}, texts, func(id string) []byte { return raws[id] })
	return buf.Bytes(), texts, raws
}

// TestCacheRoundTrip: what EncodeCache writes, DecodeCache gives back
// byte for byte, with the fingerprint.
func TestCacheRoundTrip(t *testing.T) {
	data, texts, raws := encodeSample(t)
	fp, got, err := DecodeCache(data, validID)
	if err != nil {
		t.Fatal(err)
	}
	if fp != "hash/1/8" || len(got) != 3 {
		t.Fatalf("fingerprint %q, %d entries", fp, len(got))
	}
	for id, e := range got {
		if e.Text != texts[id] || !bytes.Equal(e.Raw, raws[id]) || e.Dims() != 8 {
			t.Fatalf("%s: %+v", id, e)
		}
		// The cached vector scores as the quantised one does.
		v := RawVector(e.Raw)
		w := Dequantize(Quantize(v))
		for i := range v {
			if d := v[i] - w[i]; d > 1e-3 || d < -1e-3 {
				t.Fatalf("%s: re-quantising changed coordinate %d: %v vs %v", id, i, v[i], w[i])
			}
		}
	}
}

// TestCacheDamageIsAnError: a flipped byte anywhere, a truncation, another
// file, or an id the store could not hold makes DecodeCache fail (the
// cache is then rebuilt), never return wrong entries.
func TestCacheDamageIsAnError(t *testing.T) {
	data, _, _ := encodeSample(t)
	for i := range data {
		bad := append([]byte(nil), data...)
		bad[i] ^= 0x40
		if _, _, err := DecodeCache(bad, validID); err == nil {
			t.Fatalf("byte %d flipped: no error", i)
		}
	}
	for _, n := range []int{0, 8, len(data) / 2, len(data) - 1} {
		if _, _, err := DecodeCache(data[:n], validID); err == nil {
			t.Fatalf("truncated to %d bytes: no error", n)
		}
	}
	if _, _, err := DecodeCache([]byte(`[{"id":"x"}]`+strings.Repeat(" ", 20)), validID); err == nil {
		t.Fatal("a JSON file decoded as a cache")
	}
	if _, _, err := DecodeCache(data, func(id string) bool { return id != "b2" }); err == nil {
		t.Fatal("an invalid id was accepted")
	}
}

// TestLSHFindsNearDuplicates: a near-duplicate vector shares a band with
// the original; removed ids are no longer candidates.
func TestLSHFindsNearDuplicates(t *testing.T) {
	const dims = 64
	l := NewLSH(dims)
	base := make([]float32, dims)
	for i := range base {
		base[i] = float32((i*37)%11) / 11
	}
	other := make([]float32, dims)
	for i := range other {
		other[i] = float32((i*53+7)%13) / 13
	}
	l.Add("base", base)
	l.Add("other", other)
	near := append([]float32(nil), base...)
	near[5] += 0.01
	has := func(ids []string, want string) bool {
		for _, id := range ids {
			if id == want {
				return true
			}
		}
		return false
	}
	if c := l.Candidates(near); !has(c, "base") {
		t.Fatalf("near duplicate: candidates %v lack base", c)
	}
	l.Remove("base")
	if c := l.Candidates(near); has(c, "base") {
		t.Fatalf("removed id still a candidate: %v", c)
	}
	q, _ := Quantize(base)
	l.AddRow("base", q)
	if c := l.Candidates(near); !has(c, "base") {
		t.Fatalf("vector added as an int8 row: candidates %v lack base", c)
	}
}
